"""Exact meld search: the best partition of a hand into melds, for every variant.

A hand is reduced to face counts (two decks hold two of each face) and a number of
jokers, and one of two exact engines answers:

- `sweep` (`Sweep`): a dynamic programme over run positions, from the low ace to the high
  ace, memoised on the open runs per suit; it answers every question (a card or a joker
  that must be melded, cards to keep, the fewest hand points, 30-card `500` hands);
- `small` (`SmallDfs`): a memoised depth-first search card by card for the everyday
  question of bots and hints, the unconstrained best partition of a hand of at most
  `FAST_PATH_MAX_CARDS` cards (about 3x faster there; `best_partition_sweep` is the
  sweep alone, and tests check both agree).

`search` (`Solver`) chooses the engine and owns the caches: the per-variant tables
(`common.Tables`), the answers by faces and the last sweeps; the functions here use
`search.DEFAULT` unless given a ``solver``. `shapes` lists every meld a hand can form
(`enumerate_melds`, the rules engine's legal lay-downs). The game's questions built on
the search (`best_lay_down`, `can_open`, `lay_off_options`, `joker_recoveries`,
`OpeningPlan`) live in `rami_lan.core.questions`; they are also found here, for older
importers.
"""

from __future__ import annotations

from typing import Any

from rami_lan.core.solver.common import Partition, SweepResult, Tables
from rami_lan.core.solver.search import (
    DEFAULT,
    SWEEP_ONLY,
    Solver,
    best_partition,
    best_partition_sweep,
    best_partition_with,
    clear_caches,
    min_hand_partition,
)
from rami_lan.core.solver.shapes import enumerate_melds
from rami_lan.core.solver.small import FAST_PATH_MAX_CARDS

__all__ = [
    "DEFAULT",
    "FAST_PATH_MAX_CARDS",
    "SWEEP_ONLY",
    "Partition",
    "Solver",
    "SweepResult",
    "Tables",
    "best_partition",
    "best_partition_sweep",
    "best_partition_with",
    "clear_caches",
    "enumerate_melds",
    "min_hand_partition",
]

_QUESTIONS = ("OpeningPlan", "best_lay_down", "can_open", "joker_recoveries", "lay_off_options")
"""Names of `rami_lan.core.questions` this package still answers to (imported when first
asked for: the questions module imports this package's search)."""


def __getattr__(name: str) -> Any:
    if name in _QUESTIONS:
        from rami_lan.core import questions

        return getattr(questions, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
