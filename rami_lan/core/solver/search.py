"""The partition search: which engine answers a question, and the caches of a solver.

A `Solver` owns everything it keeps between questions: the per-variant tables
(`Tables`, shareable between solvers), the answers by faces (an LRU: bots and hints ask
about one hand many times) and the last sweeps (hands change a card at a time during a
game, so a solved group of faces is reused). The unconstrained best partition of a
hand of at most `FAST_PATH_MAX_CARDS` cards goes to the small-hand search
(`rami_lan.core.solver.small`) unless the solver was made with ``small_path=False``;
constrained questions (a card or a joker that must be melded, cards to keep, the fewest
hand points) and bigger hands (30-card `500`) go to the sweep
(`rami_lan.core.solver.sweep`). Both are exact and cross-checked.

`DEFAULT` is the solver the module functions of `rami_lan.core.solver` use; `SWEEP_ONLY`
(the sweep alone, sharing `DEFAULT`'s tables) is there for comparisons.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence

from rami_lan.core.cards import SUITS, Card
from rami_lan.core.melds import Meld, build_run, build_set
from rami_lan.core.solver.common import Partition, SweepResult, Tables
from rami_lan.core.solver.small import FAST_PATH_MAX_CARDS, SmallDfs
from rami_lan.core.solver.sweep import Sweep
from rami_lan.core.variants import VARIANTS, Variant, get_variant

ANSWERS_MAX = 512
"""Answers a solver keeps by faces (least recently used dropped first)."""
SWEEPS_MAX = 16
"""Solved sweeps a solver keeps for reuse."""
_MISSING = object()


class Solver:
    """Exact partitions of hands, with the caches that make asking again cheap.

    ``small_path``: send the unconstrained best partition of a small hand to the
    small-hand search (off: the sweep answers everything, for comparisons).
    ``tables``: per-variant tables to share with another solver (default: its own).
    The answers do not depend on the caches' state (both engines are exact), only the
    time does. A search leaves the garbage collector alone (the process's policy:
    `rami_lan.cli.ui.shell.tune_gc` for the UI); pausing it during each search, as the
    single module did, saved about 5% of the CPU time on 30-card `500` hands and nothing
    measurable on 14-card hands or in expert self-play.
    """

    __slots__ = ("small_path", "tables", "answers", "sweeps")

    def __init__(self, small_path: bool = True, tables: Tables | None = None) -> None:
        self.small_path = small_path
        self.tables = Tables() if tables is None else tables
        self.answers: OrderedDict[tuple, SweepResult | None] = OrderedDict()
        self.sweeps: OrderedDict[tuple, Sweep] = OrderedDict()

    def clear(self, tables: bool = False) -> None:
        """Forget the kept answers and sweeps; ``tables``: the per-variant tables too."""
        self.answers.clear()
        self.sweeps.clear()
        if tables:
            self.tables.clear()

    def search(
        self,
        variant: Variant,
        cards: Sequence[Card],
        objective: str = "points",
        required: Card | None = None,
        min_leftover: int = 0,
    ) -> Partition | None:
        """The best partition of ``cards`` for ``objective`` ("points": most meld points,
        then fewest leftover cards; "hand": fewest hand points, then most meld points),
        melding ``required`` and leaving at least ``min_leftover`` cards; None when no
        partition meets those demands."""
        counts, jokers = count_cards(cards)
        req: tuple[int, int] | None = None
        if required is not None and not required.is_joker:
            req = (SUITS.index(required.suit), required.rank)  # type: ignore[arg-type]
        need_joker = required is not None and required.is_joker
        # Bots and hints ask about the same hand many times: answers are kept by faces (the
        # result names faces, not physical cards), for the preset variants only.
        key = None
        if VARIANTS.get(variant.id) is variant:
            key = (variant.id, objective, tuple(map(tuple, counts)), jokers, req, need_joker,
                   min_leftover)
            got = self.answers.get(key, _MISSING)
            if got is not _MISSING:
                self.answers.move_to_end(key)
                return None if got is None else materialise(variant, cards, got, required, got.direct)
        res = self._solve_counts(variant, counts, jokers, objective, req, need_joker, min_leftover,
                                 len(cards))
        if key is not None:
            self.answers[key] = res
            if len(self.answers) > ANSWERS_MAX:
                self.answers.popitem(last=False)
        if res is None:
            return None
        return materialise(variant, cards, res, required, res.direct)

    def _solve_counts(
        self,
        variant: Variant,
        counts: list[list[int]],
        jokers: int,
        objective: str,
        req: tuple[int, int] | None,
        need_joker: bool,
        min_leftover: int,
        n_cards: int,
    ) -> SweepResult | None:
        if (
            self.small_path
            and objective == "points"
            and req is None
            and not need_joker
            and not min_leftover
            and n_cards <= FAST_PATH_MAX_CARDS
        ):
            return SmallDfs.new(variant, self.tables).result(counts, jokers)
        # One sweep over the whole hand. Splitting the hand into groups of faces that can
        # share no meld and sharing the jokers by a knapsack (one search per group and
        # joker count) was measured slower on the benchmark hands: the sweep already
        # skips empty positions, and each extra search costs its set-up and replay.
        res = self._cached_sweep(variant, counts, jokers, objective, req).run()
        if res is not None and (need_joker or min_leftover):
            # The unconstrained optimum is the answer when it happens to meet the demands.
            melded = sum(len(r) for r in res.runs) + sum(len(st) + j for _p, st, j in res.sets)
            jok_used = sum(1 for r in res.runs for _p, si in r if si is None)
            jok_used += sum(j for _p, _st, j in res.sets)
            if n_cards - melded < min_leftover or (need_joker and not jok_used):
                res = Sweep(
                    variant, counts, jokers, objective, required=req,
                    required_joker=need_joker, min_leftover=min_leftover, tables=self.tables,
                ).run()
        return res

    def _cached_sweep(self, variant: Variant, counts: list[list[int]], jokers: int, objective: str,
                      req: tuple[int, int] | None) -> Sweep:
        """A solved group of faces is reused: hands change a card at a time during a game."""
        if VARIANTS.get(variant.id) is not variant:  # only the presets are cached
            return Sweep(variant, counts, jokers, objective, required=req, tables=self.tables)
        key = (variant.id, objective, jokers, req, tuple(tuple(row) for row in counts))
        sw = self.sweeps.get(key)
        if sw is None:
            sw = Sweep(variant, counts, jokers, objective, required=req, tables=self.tables)
            self.sweeps[key] = sw
            if len(self.sweeps) > SWEEPS_MAX:
                self.sweeps.popitem(last=False)
        else:
            self.sweeps.move_to_end(key)
        return sw


DEFAULT = Solver()
"""The solver behind `rami_lan.core.solver`'s functions (one per process)."""
SWEEP_ONLY = Solver(small_path=False, tables=DEFAULT.tables)
"""The sweep alone, as before the small-hand path (`best_partition_sweep`)."""


def count_cards(cards: Iterable[Card]) -> tuple[list[list[int]], int]:
    """Face counts ``counts[suit][rank]`` (rank 1..13, index 0 unused) and jokers."""
    counts = [[0] * 14 for _ in range(4)]
    jokers = 0
    for c in cards:
        if c.is_joker:
            jokers += 1
        else:
            counts[SUITS.index(c.suit)][c.rank] += 1  # type: ignore[arg-type]
    return counts, jokers


def materialise(
    variant: Variant, cards: Sequence[Card], res: SweepResult, required: Card | None,
    direct_runs: bool = False,
) -> Partition:
    """Physical cards for a result. ``direct_runs``: runs are built as `Meld` values
    straight from their cells (positions ascending, contiguous: what `build_run` would
    return for them, without re-validating; the small-hand path)."""
    pool: dict[tuple[int, str | None], list[Card]] = {}
    for c in cards:
        pool.setdefault(c.face, []).append(c)
    if required is not None and required in cards:
        lst = pool[required.face]
        lst.remove(required)
        lst.insert(0, required)

    def take(face: tuple[int, str | None]) -> Card:
        return pool[face].pop(0)

    melds: list[Meld] = []
    for pos, suits, j in res.sets:
        rank = 1 if pos in (1, 14) else pos
        chosen = [take((rank, SUITS[s])) for s in suits] + [take((0, None)) for _ in range(j)]
        melds.append(build_set(variant, chosen))
    for cells in res.runs:
        chosen = []
        cells = sorted(cells, key=lambda t: t[0])
        suit = None
        for pos, s in cells:
            if s is None:
                chosen.append(take((0, None)))
            else:
                suit = SUITS[s]
                chosen.append(take((1 if pos in (1, 14) else pos, suit)))
        if direct_runs:
            melds.append(Meld("run", tuple(chosen), tuple(p for p, _s in cells), (suit,) * len(cells)))
        else:
            melds.append(build_run(variant, chosen))
    leftover = [c for lst in pool.values() for c in lst]
    leftover.sort(key=Card.sort_key)
    melds.sort(key=lambda m: (m.kind != "set", m.suits[0] or "", m.lo))
    return Partition(
        [list(m.cards) for m in melds],
        sum(m.points(variant) for m in melds),
        leftover,
        tuple(melds),
    )


# --- the questions on partitions (one solver each; `DEFAULT` unless told) ----------------


def best_partition(variant: str | Variant, cards: Sequence[Card], solver: Solver | None = None) -> Partition:
    """The partition into valid melds with maximum total meld points.

    Ties are broken by fewer leftover cards. Exact (see `rami_lan.core.solver`).
    """
    res = (solver or DEFAULT).search(get_variant(variant), list(cards), "points")
    assert res is not None
    return res


def best_partition_sweep(variant: str | Variant, cards: Sequence[Card]) -> Partition:
    """`best_partition` by the sweep alone, as before the small-hand path existed
    (`benchmarks.solver` times both in one run; tests check they agree)."""
    return best_partition(variant, cards, SWEEP_ONLY)


def min_hand_partition(
    variant: str | Variant, cards: Sequence[Card], solver: Solver | None = None
) -> Partition:
    """The partition that leaves the fewest hand (penalty) points, then most meld points."""
    res = (solver or DEFAULT).search(get_variant(variant), list(cards), "hand")
    assert res is not None
    return res


def best_partition_with(
    variant: str | Variant, cards: Sequence[Card], required: Card, min_leftover: int = 0,
    solver: Solver | None = None,
) -> Partition | None:
    """Best partition in which ``required`` is melded, leaving ``min_leftover`` cards.

    None when no partition melds ``required`` with at least that many cards left over.
    """
    cards = list(cards)
    if required not in cards:
        return None
    return (solver or DEFAULT).search(get_variant(variant), cards, "points", required, min_leftover)


def clear_caches(tables: bool = False) -> None:
    """Forget the answers and sweeps `DEFAULT` and `SWEEP_ONLY` keep (benchmarks time cold
    searches with it). ``tables``: also drop their per-variant tables, as in a fresh process.
    """
    DEFAULT.clear(tables)
    SWEEP_ONLY.clear(tables)
