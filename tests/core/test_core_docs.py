"""The examples of docs/core.md run as doctests: the reference can not drift."""

from __future__ import annotations

import doctest
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "core.md"


def test_docs_core_examples_run() -> None:
    result = doctest.testfile(
        str(DOC),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        verbose=False,
    )
    assert result.attempted > 40
    assert result.failed == 0, f"{result.failed} example(s) of docs/core.md failed (see the output)"


def test_scenario_module_examples_run() -> None:
    import importlib

    mod = importlib.import_module("rami_lan.core.scenario")  # the package exports the function
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert result.attempted and result.failed == 0
