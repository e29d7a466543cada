"""The package's layers, from its import graph: every arrow points down, and no cycles.

core <- wire <- table <- net <- cli, and bots use core only. Every module is read with `ast`
(imports inside functions and under ``TYPE_CHECKING`` count too: a lazy import is still
a dependency).
"""

from __future__ import annotations

import ast
from pathlib import Path

import rami_lan

ROOT = Path(rami_lan.__file__).parent

FORBIDDEN = {
    "core": ("table", "net", "cli", "bots", "app"),
    "table": ("net", "cli", "app"),
    "net": ("cli", "app"),
    "bots": ("net", "cli", "table", "app"),
    "tournament": ("net", "cli", "table", "bots", "app"),
    "masked": ("core", "table", "net", "cli", "bots", "app"),
    "wire": ("core", "table", "net", "cli", "bots", "app"),
    "profile": ("cli", "app"),
    "paths": ("core", "table", "net", "cli", "bots", "app", "profile", "stats"),
    "ids": ("core", "table", "net", "cli", "bots", "app", "profile", "stats", "paths"),
}
"""layer -> the layers it may never import."""

ALLOWED: dict[str, set[str]] = {
    "core": {"ids"},  # the rules: pure (the fair shuffle's constants from ids)
    "masked": set(),  # the masked deck: pure, on PyNaCl
    "ids": set(),
    "paths": set(),
    "fsutil": set(),
    "textsafe": set(),
    "i18n": {"i18n_build"},  # gettext over the compiled catalogues (the sources: for tests)
    "i18n_build": set(),  # Babel: .po -> .mo
    "player_card": {"core"},  # the "Info joueur" card as pure values
    "bots": {"core", "ids"},
    "tournament": {"core", "ids"},  # the tournament's decisions: pure, as the core
    "wire": {"masked", "ids"},  # the wire's message catalogue: checks and dataclasses
    "table": {"core", "masked", "wire", "bots", "ids", "player_card", "textsafe"},
    "net": {"core", "masked", "wire", "table", "bots", "ids", "paths", "fsutil", "textsafe", "player_card",
            "tournament"},
    "logsetup": {"paths", "textsafe"},
    "profile": {"fsutil", "i18n", "paths", "ids", "textsafe"},
    "replay": {"core", "i18n", "textsafe"},
    "stats": {"core", "paths", "fsutil", "player_card"},  # sqlite, above net: the cli's
    "cli": {"core", "masked", "wire", "table", "bots", "net", "ids", "paths", "fsutil", "textsafe", "i18n",
            "player_card", "logsetup", "profile", "replay", "stats", "tournament"},
}
"""Every top-level module or package of `rami_lan` -> the others it may import."""

KNOWN: set[tuple[str, str]] = set()
"""Edges known to break the rule, each with its reason (none left)."""



def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(module: str, node: ast.ImportFrom, is_pkg: bool) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    if not is_pkg:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def import_graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in ROOT.rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for mod, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(mod, node, path.name == "__init__.py")
                targets = [base] + [f"{base}.{a.name}" for a in node.names]
            for t in targets:
                # The deepest module of the package this names.
                while t and t not in modules:
                    t = t.rpartition(".")[0]
                if t.startswith("rami_lan") and t != mod and t != "rami_lan":
                    graph[mod].add(t)
    return graph


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_the_graph_sees_lazy_imports() -> None:
    graph = import_graph()
    # cli.cmd_solo imports the table app only inside a function.
    assert "rami_lan.cli.app" in graph["rami_lan.cli.cmd_solo"]


def test_every_import_points_down() -> None:
    graph = import_graph()
    bad = sorted(
        (mod, dep) for mod, deps in graph.items() for dep in deps
        if _layer(dep) in FORBIDDEN.get(_layer(mod), ())
        and (mod, dep) not in KNOWN
    )
    assert not bad, "layer violations:\n" + "\n".join(f"  {m} -> {d}" for m, d in bad)


def test_every_top_level_module_has_its_row_and_keeps_to_it() -> None:
    graph = import_graph()
    layers = {_layer(m) for m in graph} - {""}
    assert not layers - set(ALLOWED), f"add rows to ALLOWED for {sorted(layers - set(ALLOWED))}"
    assert not set(ALLOWED) - layers, f"ALLOWED names what is gone: {sorted(set(ALLOWED) - layers)}"
    bad = sorted(
        (mod, dep) for mod, deps in graph.items() for dep in deps
        if _layer(mod) and _layer(dep) != _layer(mod) and _layer(dep) not in ALLOWED[_layer(mod)]
        and (mod, dep) not in KNOWN
    )
    assert not bad, "imports outside ALLOWED:\n" + "\n".join(f"  {m} -> {d}" for m, d in bad)


def test_the_table_machine_and_the_client_never_touch_the_statistics_database() -> None:
    """The card is a pure value; the sqlite layer (`stats`) is the cli's."""
    graph = import_graph()
    for mod, deps in graph.items():
        if _layer(mod) in ("core", "table", "net", "bots", "masked", "player_card"):
            assert "rami_lan.stats" not in deps, mod
            assert "rami_lan.i18n" not in deps or _layer(mod) not in ("bots", "core"), mod


def test_known_exceptions_are_still_real() -> None:
    graph = import_graph()
    stale = [(m, d) for m, d in KNOWN if d not in graph.get(m, set())]
    assert not stale, f"remove these from KNOWN: {stale}"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles() -> None:
    graph = import_graph()
    # A package importing its own submodules (re-exports) is not a cycle of design.
    trimmed = {m: {d for d in deps if not d.startswith(m + ".")} for m, deps in graph.items()}
    cycles = _cycles(trimmed)
    assert not cycles, "import cycles:\n" + "\n".join("  " + " <-> ".join(c) for c in cycles)


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_shared_ids_agree_with_their_sources() -> None:
    from rami_lan import ids
    from rami_lan.bots import LEVELS
    from rami_lan.core.variants import VARIANTS
    from rami_lan.net.discovery import VARIANT_IDS

    assert ids.VARIANT_IDS == tuple(VARIANTS) == VARIANT_IDS
    assert ids.BOT_LEVELS == tuple(LEVELS)


FAIR_SHUFFLE_CONSTANTS = {
    b"rami-lan/v1": "ROUND_TAG_PREFIX",
    b"rami-lan commit v1": "COMMIT_LABEL",
    b"rami-lan seed v1": "SEED_LABEL",
    b"rami-lan dealer v1": "DEALER_LABEL",
    b"rami-lan reshuffle v1": "RESHUFFLE_LABEL",
}
KNOWN_COPIES: set[tuple[str, bytes]] = set()
"""Copies still to remove (none left)."""
HASH_LABELS = {"COMMIT_LABEL", "SEED_LABEL", "DEALER_LABEL", "RESHUFFLE_LABEL"}
HASH_HOMES = {"ids.py", "table/verify_spec.py", "core/deckrng.py"}
"""Where the labels may be used: the one definition and the one hash built on each."""


def fair_shuffle_copies(root: Path) -> tuple[list[tuple[str, bytes]], list[tuple[str, int, str]]]:
    """(file, constant) for each fair-shuffle literal written outside ``ids.py``, and
    (file, line, label) for each use of a hash label outside its homes."""
    literals, uses = [], []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Constant) and node.value in FAIR_SHUFFLE_CONSTANTS
                    and rel != "ids.py"):
                literals.append((rel, node.value))
            if (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
                    and node.id in HASH_LABELS and rel not in HASH_HOMES):
                uses.append((rel, node.lineno, node.id))
    return literals, uses


def test_each_fair_shuffle_constant_and_hash_is_written_once() -> None:
    literals, uses = fair_shuffle_copies(ROOT)
    assert [c for c in literals if c not in KNOWN_COPIES] == [], "use rami_lan.ids' constants"
    assert uses == [], "the hashes are rami_lan.table.verify_spec's and rami_lan.core.deckrng's"
    assert all(c in literals for c in KNOWN_COPIES), "remove from KNOWN_COPIES what is gone"


def test_a_second_copy_of_a_fair_shuffle_constant_or_hash_is_found(tmp_path: Path) -> None:
    (tmp_path / "ids.py").write_text('P = b"rami-lan/v1"\nCOMMIT_LABEL = b"rami-lan commit v1"\n')
    (tmp_path / "copy.py").write_text(
        "import hashlib\nfrom ids import COMMIT_LABEL\n"
        'TAG = b"rami-lan/v1"\n'
        "def commitment(tag, seat, secret):\n"
        "    return hashlib.sha256(COMMIT_LABEL + tag + bytes([seat]) + secret).digest()\n")
    literals, uses = fair_shuffle_copies(tmp_path)
    assert literals == [("copy.py", b"rami-lan/v1")]
    assert uses == [("copy.py", 5, "COMMIT_LABEL")]


def test_bot_levels_and_variants_are_listed_once_in_the_cli() -> None:
    """The commands take their choices from `rami_lan.ids`, not from a copy."""
    for name in ("cmd_host.py", "cmd_solo.py", "cmd_simulate.py", "local_session.py"):
        text = (ROOT / "cli" / name).read_text(encoding="utf-8")
        assert '("debutant", "moyen", "expert")' not in text, name
        assert '("rami", "classique", "multi", "500", "40")' not in text, name


UNTRANSLATED_LAYERS = ("net", "table")
"""Layers that report facts (codes, enums, exceptions with data) and never make a
translated sentence: `rami_lan.cli.messages` turns those facts into English or French."""

_TRANSLATORS = {"_", "ngettext", "gettext", "N_"}


def translation_uses(source: str, module: str = "rami_lan.net.x") -> list[str]:
    """Where ``source`` translates text: an import of `rami_lan.i18n` (or of the
    ``gettext`` module), or a call of ``_`` / ``ngettext`` / ``gettext`` / ``N_``."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [f"line {node.lineno}: import {a.name}" for a in node.names
                      if a.name in ("gettext", "rami_lan.i18n")]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, node, False)
            names = {a.name for a in node.names}
            if base in ("gettext", "rami_lan.i18n") or (base == "rami_lan" and "i18n" in names):
                found.append(f"line {node.lineno}: from {base} import {', '.join(sorted(names))}")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in _TRANSLATORS):
            found.append(f"line {node.lineno}: {node.func.id}(...)")
    return found


def test_net_and_table_make_no_translated_text() -> None:
    """Player-facing sentences are made in `cli`; `net` and `table` report facts."""
    bad = []
    for path in sorted(ROOT.rglob("*.py")):
        mod = _module_name(path)
        if _layer(mod) in UNTRANSLATED_LAYERS:
            bad += [f"{mod}: {where}" for where in
                    translation_uses(path.read_text(encoding="utf-8"), mod)]
    assert not bad, "translation outside cli:\n" + "\n".join(f"  {b}" for b in bad)
    graph = import_graph()
    assert not [m for m, deps in graph.items()
                if _layer(m) in UNTRANSLATED_LAYERS and "rami_lan.i18n" in deps]


def test_the_translation_check_catches_each_way_back() -> None:
    assert translation_uses("from rami_lan.i18n import _\n")
    assert translation_uses("from rami_lan import i18n\n")
    assert translation_uses("def f():\n    from ..i18n import ngettext\n", "rami_lan.net.client")
    assert translation_uses("import rami_lan.i18n\n")
    assert translation_uses("import gettext\n")
    assert translation_uses("x = _('Hello')\n")
    assert not translation_uses("def __init__(self):\n    super().__init__()\n")
    assert not translation_uses("from rami_lan.net.notices import Notice\n")


def test_the_readme_architecture_names_every_package_and_module() -> None:
    """README's architecture section names every top-level module and package with its
    layer (issue 27): a new one must be placed there too."""
    text = (ROOT.parent / "README.md").read_text(encoding="utf-8")
    section = text.split("## Architecture", 1)[1].split("\n## ", 1)[0]
    names = {p.stem for p in ROOT.glob("*.py") if p.stem != "__init__"}
    names |= {p.name for p in ROOT.iterdir() if (p / "__init__.py").exists()}
    missing = sorted(n for n in names if f"`{n}`" not in section)
    assert not missing, missing
    assert set(ALLOWED) >= names - {"locale"}, sorted(names - set(ALLOWED))
