"""What the solver's engines share: the answer types, the score scale and the tables kept
per variant (`Tables`, owned by a `rami_lan.core.solver.search.Solver`).

Scores are single integers so comparisons stay cheap: ``points * POINTS_SCALE -
leftover`` for the maximum-points objective (ties: fewer leftover cards).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rami_lan.core.cards import Card
from rami_lan.core.melds import Meld, rank_points
from rami_lan.core.variants import Variant

Face = tuple[int, str]

NEG = -(10**18)
"""The score of "no partition meets the demands" (or "can not beat alpha")."""
POINTS_SCALE = 64
"""Meld points are worth this many leftover cards in a score."""
POINT_TABLES_MAX = 64
"""Variants whose point tables a `Tables` keeps (a custom variant per game is possible)."""


@dataclass(frozen=True)
class Partition:
    """Melds found in a hand: ``melds`` (lists of cards), total ``points``, ``leftover``."""

    melds: list[list[Card]] = field(default_factory=list)
    points: int = 0
    leftover: list[Card] = field(default_factory=list)
    meld_objects: tuple[Meld, ...] = ()


@dataclass(frozen=True)
class SweepResult:
    """The winning choice: melds as (kind, [(position, suit or None for a joker)])."""

    score: int
    runs: list[list[tuple[int, int | None]]]  # positions ascending; suit index or None
    sets: list[tuple[int, list[int], int]]  # (rank position, suit indexes, n jokers)
    direct: bool = False  # runs may be built without re-validation (`search.materialise`)


class Tables:
    """Tables that depend on the variant (and the search settings), not on the hand.

    Hands of one variant share them: the meld points per position (`point_tables`), the
    sweep's per-suit options and run interning (``sweep``, see
    `rami_lan.core.solver.sweep_options.shared_tables`) and the small-hand search's per-variant
    set-up (``small``, see `rami_lan.core.solver.small.SmallDfs.new`). Only the preset
    variants are kept in ``sweep`` and ``small`` (a custom variant gets tables for one
    search). Owned by a solver; two solvers may share one (`Solver(tables=...)`).
    """

    __slots__ = ("points", "sweep", "small")

    def __init__(self) -> None:
        self.points: dict[int, tuple[Variant, list[int], list[int]]] = {}
        self.sweep: dict[tuple, object] = {}
        self.small: dict[str, object] = {}

    def point_tables(self, v: Variant) -> tuple[list[int], list[int]]:
        """Meld points per run position 1..14 and per set rank position."""
        got = self.points.get(id(v))
        if got is not None and got[0] is v:
            return got[1], got[2]
        run_pts = [0] * 15
        set_pts = [0] * 15
        for p in range(1, 15):
            run_pts[p] = rank_points(v, p)
            set_pts[p] = rank_points(v, 14 if p == 14 else p, in_set=True)
        if len(self.points) > POINT_TABLES_MAX:
            self.points.clear()
        self.points[id(v)] = (v, run_pts, set_pts)
        return run_pts, set_pts

    def clear(self) -> None:
        """Forget every table, as in a fresh process."""
        self.points.clear()
        self.sweep.clear()
        self.small.clear()
