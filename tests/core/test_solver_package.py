"""The solver package keeps its state in `Solver` objects: no module-level cache or switch."""

from __future__ import annotations

import copy
import gc
import importlib

from rami_lan.core import parse_cards
from rami_lan.core.solver import (
    DEFAULT,
    Solver,
    best_partition,
    best_partition_sweep,
    best_partition_with,
    min_hand_partition,
)

MODULES = ("common", "search", "shapes", "small", "sweep")
CONSTANT_TABLES = {"FACE_INDEX", "NO_SETS", "IDLE", "LEFT_PENS", "__all__", "_QUESTIONS"}
"""Module-level containers that are constants (never written after import)."""

HAND = parse_cards("7h 8h 9h 10h 5s 5c 5d Ah As * 2c Kd Qd Jd")


def _containers(module) -> dict[str, object]:
    return {name: value for name, value in vars(module).items()
            if isinstance(value, dict | list | set) and not name.startswith("__") or name == "__all__"}


def test_no_module_level_container_but_constants_and_none_is_written_by_a_search() -> None:
    mods = [importlib.import_module(f"rami_lan.core.solver.{m}") for m in MODULES]
    mods.append(importlib.import_module("rami_lan.core.solver"))
    before = {}
    for mod in mods:
        found = _containers(mod)
        assert set(found) <= CONSTANT_TABLES, (mod.__name__, sorted(set(found) - CONSTANT_TABLES))
        before[mod.__name__] = copy.deepcopy(found)
    best_partition("rami", HAND)
    best_partition_sweep("rami", HAND)
    min_hand_partition("500", HAND)
    best_partition_with("rami", HAND, HAND[0], 1)
    for mod in mods:
        assert _containers(mod) == before[mod.__name__], mod.__name__


def test_a_solver_owns_its_caches() -> None:
    mine = Solver()
    DEFAULT.clear(tables=True)
    got = best_partition("rami", HAND, solver=mine)
    assert mine.answers and mine.tables.points and mine.tables.small
    assert not DEFAULT.answers and not DEFAULT.tables.small  # nothing leaked to the default
    assert got == best_partition("rami", HAND)  # the same answer from either
    mine.clear(tables=True)
    assert not mine.answers and not mine.tables.points


def test_the_sweep_only_solver_agrees_and_keeps_apart_answers() -> None:
    mine = Solver(small_path=False)
    fast = best_partition("rami", HAND, solver=Solver())
    slow = best_partition("rami", HAND, solver=mine)
    assert (fast.points, len(fast.leftover)) == (slow.points, len(slow.leftover))
    assert mine.sweeps  # the sweep answered


def test_a_search_leaves_the_garbage_collector_alone() -> None:
    """No process-wide switch: the collector's state is the process's, never the solver's."""
    import ast
    from pathlib import Path

    root = Path(importlib.import_module("rami_lan.core.solver").__file__).parent
    for path in root.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert "gc" not in names, path.name
    gc.disable()
    try:
        best_partition("500", HAND + parse_cards("3h 4h 5h 6c 7c 8c"), solver=Solver())
        assert not gc.isenabled()
    finally:
        gc.enable()
    best_partition("rami", HAND, solver=Solver())
    assert gc.isenabled()
