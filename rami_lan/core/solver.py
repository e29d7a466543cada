"""Exact meld search: the best partition of a hand, and what the game asks on top of it.

Theory of operation. A hand is reduced to face counts (two decks hold two of each
face) and a number of jokers. `Sweep` is a dynamic programme over run positions, from
the low ace (1) to the high ace (14). At each position every natural of that rank is
left over, put in a set of that rank, extends a run of its suit that is still open, or
starts a new run; a joker may do any of these in place of a natural. The state between
two positions is, per suit, the sorted multiset of open runs reduced to what the
future needs -- length capped at 3, joker balance (per the variant's joker limit),
"started at the low ace" (such a run may never reach the high ace: K A 2 and A..A are
impossible) and "started with a joker" -- plus the free jokers, the aces kept for the
high end (an ace not used in a low run waits for position 14, where sets of aces are
made), and, when asked for, the leftover count so far (capped). Memoised on that state.

Scores are single integers so comparisons stay cheap: ``points * 64 - leftover`` for
the maximum-points objective (ties: fewer leftover cards), ``-hand_points * 4096 +
points`` for the fewest hand points. Pruning is by dominance, each argued where
applied (a joker never plays a run position of a face whose natural is left over: swap
them; a run never starts with a joker unless it reaches the top position: otherwise
move that joker to the high end, same cards, at least as many points), and by branch
and bound with an admissible upper bound only: what a state can still add is at most
every remaining natural and free joker melded at the most a card can score anywhere,
nothing left over; for a state with open runs and no free joker, the exact value of the
same state with no open run plus what its open runs could still collect
(`Sweep._free_bound`). These bounds never under-estimate, so no optimum is cut (an
estimate of "what the remaining cards are worth" would). A transition is skipped when its
gain plus that bound cannot beat the best transition already found at its state, and
the difference is passed down as ``alpha`` (`PASS_ALPHA`). A state whose open runs need
more jokers than it has free (a short run needs a card at each of its next positions)
is dropped at once.

Speed: a suit's open runs are interned as small integers in state keys; per-suit options
and set options are tables shared by every hand of a variant (`_Shared`); answers are
kept by faces in an LRU (bots and hints ask about one hand many times).

Small hands. The everyday question of bots and hints -- the best partition of a hand
of at most `FAST_PATH_MAX_CARDS` cards -- goes to `_SmallDfs`, a memoised search card by
card (see its docstring), which skips the sweep's set-up: on 14-card `rami` hands with
0-2 jokers about 3x faster in median and 2-3x in p99 (depending on the benchmark's
seed), with 4 jokers about 3.5x in median and 3-4x in p99 (`python -m
benchmarks.solver` times both paths on the same hands; `best_partition_sweep` is the
sweep alone). Constrained questions (a card
or a joker that must be melded, cards to keep, the fewest hand points) and bigger
hands (30-card `500`) use the sweep. Both are exact and cross-checked.

`enumerate_melds` (every meld a hand can form) keeps the older shape enumeration.
"""

from __future__ import annotations

import gc
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from operator import mul

from rami_lan.core.cards import SUITS, Card
from rami_lan.core.melds import (
    InvalidMeld,
    Meld,
    build_run,
    build_set,
    lay_off,
    rank_points,
    recover_joker,
    run_extensions,
)
from rami_lan.core.variants import VARIANTS, Variant, get_variant

Face = tuple[int, str]
# A meld shape: (kind, position faces in order, None where a joker stands), points.
Shape = tuple[str, tuple[Face | None, ...], tuple[int, ...]]

FACES: tuple[Face, ...] = tuple((r, s) for s in SUITS for r in range(1, 14))
FACE_INDEX = {f: i for i, f in enumerate(FACES)}


@dataclass(frozen=True)
class Partition:
    """Melds found in a hand: ``melds`` (lists of cards), total ``points``, ``leftover``."""

    melds: list[list[Card]] = field(default_factory=list)
    points: int = 0
    leftover: list[Card] = field(default_factory=list)
    meld_objects: tuple[Meld, ...] = ()


# A run's status: (length capped at 3, joker balance, starts at the low ace, starts with a
# joker, ends with a joker)
Status = tuple[int, int, bool, bool, bool]
NEG = -(10**18)
NO_RUNS = (0, 0, 0, 0)
NO_SETS = [((0, 0, 0, 0), 0, ())]
IDLE = [((), 0, 0, 0, ((), ()), (0,) * 16)]  # a suit with no natural here and no open run
POINTS_SCALE = 64
LEFT_PENS = [-c for c in range(9)]
# Pass the bound down to the next state (alpha-beta style; such states are memoised as
# "at most alpha" and redone when needed)? Correct either way. With the loose bound alone
# it was measured slower; with the joker-free bound (`Sweep._free_bound`) it halves the
# slowest 30-card `500` hands with two jokers, so it is on.
PASS_ALPHA = True
HAND_SCALE = 4096


_POINT_TABLES: dict[int, tuple[Variant, list[int], list[int]]] = {}


class _Shared:
    """Tables that depend on the variant and the search settings, not on the hand.

    Per-suit options at a position (`Sweep.suit_options`), set options, and the
    interning of a suit's open runs as small integers. Hands of one variant share them
    (the per-variant shape tables); `Sweep.memo` (hand-specific) refers to run ids, so a
    full table is replaced, never emptied, while sweeps still use it.
    """

    __slots__ = ("suit_memo", "set_memo", "norm_memo", "rs_of", "rid_of", "r_closable",
                 "r_jlow")

    def __init__(self) -> None:
        self.suit_memo: dict = {}
        self.set_memo: dict = {}
        self.norm_memo: dict = {}
        self.rs_of: list[tuple[Status, ...]] = [()]
        self.rid_of: dict[tuple[Status, ...], int] = {(): 0}
        self.r_closable: list[bool] = [True]
        self.r_jlow: list[int] = [0]


_SHARED: dict[tuple, _Shared] = {}
_SHARED_MAX_OPTIONS = 200_000


def _shared(v: Variant, objective: str, jokers: int, swap_prune: bool, greedy_ok: bool) -> _Shared:
    if VARIANTS.get(v.id) is not v:
        return _Shared()  # a custom variant: tables for this search only
    key = (v.id, objective, jokers, swap_prune, greedy_ok)
    sh = _SHARED.get(key)
    if sh is None or len(sh.suit_memo) > _SHARED_MAX_OPTIONS:
        sh = _SHARED[key] = _Shared()
    return sh


def _point_tables(v: Variant) -> tuple[list[int], list[int]]:
    """Meld points per run position 1..14 and per set rank position (cached per variant)."""
    got = _POINT_TABLES.get(id(v))
    if got is not None and got[0] is v:
        return got[1], got[2]
    run_pts = [0] * 15
    set_pts = [0] * 15
    for p in range(1, 15):
        run_pts[p] = rank_points(v, p)
        set_pts[p] = rank_points(v, 14 if p == 14 else p, in_set=True)
    if len(_POINT_TABLES) > 64:
        _POINT_TABLES.clear()
    _POINT_TABLES[id(v)] = (v, run_pts, set_pts)
    return run_pts, set_pts


@dataclass(frozen=True)
class SweepResult:
    """The winning choice: melds as (kind, [(position, suit or None for a joker)])."""

    score: int
    runs: list[list[tuple[int, int | None]]]  # positions ascending; suit index or None
    sets: list[tuple[int, list[int], int]]  # (rank position, suit indexes, n jokers)
    direct: bool = False  # runs may be built without re-validation (`_materialise`)


class Sweep:
    """One exact search over a hand given as face counts plus jokers."""

    def __init__(
        self,
        variant: Variant,
        counts: Sequence[Sequence[int]],  # counts[suit][rank 1..13] (index 0 unused)
        jokers: int,
        objective: str = "points",
        required: tuple[int, int] | None = None,  # (suit, rank) that must be melded
        required_joker: bool = False,
        min_leftover: int = 0,
    ) -> None:
        v = variant
        self.v = v
        self.j0 = jokers
        counts = [list(row) for row in counts]
        self.hand_obj = objective == "hand"
        self.required = required
        self.required_joker = required_joker
        self.min_left = min_leftover
        self.lo = 1 if v.ace_low else 2
        self.hi = 14 if v.ace_high else 13
        self.carry = v.ace_low and v.ace_high
        self.not_more = v.joker_limit == "not_more_than_naturals"
        self.kcap = max(jokers, 1)
        run_pts, set_pts = _point_tables(v)
        self.run_pts = run_pts
        self.set_pts = set_pts
        self.set_pos = 14 if v.ace_high else 1  # where sets of aces are made
        # Dominance "move a low-end joker to the high end" needs non-decreasing points.
        self.monotone = all(run_pts[p] <= run_pts[p + 1] for p in range(self.lo, self.hi))
        # Dominance "a natural left over while a joker plays its face: swap them" keeps
        # the meld valid, the points and the leftover count; for the fewest hand points it
        # needs a joker to cost no more in hand than any natural (never, in the presets),
        # and it is off when a joker must be melded.
        self.swap_prune = not required_joker and (
            not self.hand_obj or v.hand_joker_points <= 1
        )
        self.greedy_ok = min_leftover == 0  # "meld rather than leave over" dominances
        # Naturals that can be in no meld at all are left over at once.
        self.base = 0
        self.lf0 = 0
        removed = []
        for si in range(4):
            for r in range(1, 14):
                if counts[si][r] and not self._meldable(counts, si, r, required):
                    removed.append((si, r, counts[si][r]))
        for si, r, c in removed:
            counts[si][r] = 0
            self.base += self.left_nat(r, c)
            self.lf0 += c
        self.counts = counts
        # Position tables: naturals per suit at each position, the next position holding
        # a natural (any suit / this suit), and empty positions from p to the top.
        nat_at = [(0, 0, 0, 0)] * 16
        c0, c1, c2, c3 = counts
        for p in range(max(self.lo, 2), min(self.hi, 13) + 1):
            nat_at[p] = (c0[p], c1[p], c2[p], c3[p])
        aces = (c0[1], c1[1], c2[1], c3[1])
        if self.lo == 1:
            nat_at[1] = aces
        if self.hi == 14:
            nat_at[14] = aces
        self.nat_at = nat_at
        self.next_nat = [self.hi + 1] * 16
        self.empties = [[0] * 16 for _ in range(4)]
        self.next_suit_nat = [[99] * 16 for _ in range(4)]
        nxt = self.hi + 1
        nxt_s = [99, 99, 99, 99]
        empty = [0, 0, 0, 0]
        for p in range(self.hi, 0, -1):
            here = nat_at[p]
            self.next_nat[p] = nxt
            if here[0] or here[1] or here[2] or here[3]:
                nxt = p
            for si in range(4):
                self.next_suit_nat[si][p] = nxt_s[si]
                if here[si]:
                    nxt_s[si] = p
                else:
                    empty[si] += 1
                self.empties[si][p] = empty[si]
        # Admissible upper bounds (score units): the most any natural at or after a
        # position, a free joker, or an ace kept for the high end can add.
        unit = 1 if self.hand_obj else POINTS_SCALE
        best_at = [max(run_pts[p], set_pts[p]) for p in range(15)]
        self.ub_joker = max(best_at[self.lo:self.hi + 1]) * unit
        self.ub_ace = max(run_pts[14], set_pts[14]) * unit
        ub_nat = [0] * 17
        for p in range(self.hi, 0, -1):
            if self.carry and p == 14:
                here = 0  # the aces are counted at position 1 or as carried
            elif self.carry and p == 1:
                here = sum(nat_at[1]) * max(best_at[1], best_at[14]) * unit
            else:
                here = sum(nat_at[p]) * best_at[p] * unit
            ub_nat[p] = ub_nat[p + 1] + here
        self.ub_nat = ub_nat
        self.has_jlow = self.monotone and jokers > 0
        self.left_pens = [self._left_pens(p) for p in range(16)] if self.hand_obj else [LEFT_PENS] * 16
        self.memo: dict = {}
        self.jneed: dict = {}
        # joker-free states are bounded by the same cards with no open run
        # (`_free_bound`); not when a card or a joker must be melded
        self.free_ok = required is None and not required_joker
        self.free_ub: dict = {}
        sh = _shared(v, objective, jokers, self.swap_prune, self.greedy_ok)
        self.suit_memo = sh.suit_memo
        self.norm_memo = sh.norm_memo
        self.set_memo = sh.set_memo
        # suit run multisets as small integers (0: no open run), with what solve needs
        self.rs_of = sh.rs_of
        self.rid_of = sh.rid_of
        self.r_closable = sh.r_closable
        self.r_jlow = sh.r_jlow

    # --- scores -------------------------------------------------------------------

    def placed(self, pts: int) -> int:
        return pts if self.hand_obj else pts * POINTS_SCALE

    def left_nat(self, pos: int, n: int) -> int:
        if not n:
            return 0
        if self.hand_obj:
            r = 1 if pos in (1, 14) else pos
            hp = self.v.hand_ace_points if r == 1 else min(r, 10)
            return -hp * HAND_SCALE * n
        return -n

    def _left_pens(self, pos: int) -> list[int]:
        if not self.hand_obj:
            return LEFT_PENS
        r = 1 if pos in (1, 14) else pos
        hp = self.v.hand_ace_points if r == 1 else min(r, 10)
        return [-hp * HAND_SCALE * c for c in range(9)]

    def left_jokers(self, n: int) -> int:
        if self.hand_obj:
            return -self.v.hand_joker_points * HAND_SCALE * n
        return -n

    # --- helpers ------------------------------------------------------------------

    def _meldable(
        self, counts: list[list[int]], si: int, r: int, required: tuple[int, int] | None
    ) -> bool:
        """Could face (suit ``si``, rank ``r``) be in any meld of this hand? (superset)"""
        if required == (si, r):
            return True
        J = self.j0
        if not self.not_more and J >= 2:
            return True
        others = sum(1 for s2 in range(4) if s2 != si and counts[s2][r])
        if others >= 2 or (others and J):
            return True
        row = counts[si]

        def held(q: int) -> bool:
            if q in (1, 14):
                return bool(row[1]) and (self.v.ace_low if q == 1 else self.v.ace_high)
            return 1 < q < 14 and bool(row[q])

        positions = [p for p in ((1, 14) if r == 1 else (r,)) if self.lo <= p <= self.hi]
        for p in positions:
            if J == 0:
                if (held(p - 1) and held(p + 1)) or (held(p + 1) and held(p + 2)) or (
                    held(p - 1) and held(p - 2)
                ):
                    return True
            elif any(held(p + d) or held(p - d) for d in range(1, J + 2)):
                return True
        return False

    def _closable(self, st: Status) -> bool:
        """Can this open run end where it stands (no trailing jokers)?"""
        if st[0] < 3 or st[4]:
            return False
        return st[1] >= 0 if self.not_more else st[1] >= 1

    def _k_nat(self, k: int) -> int:
        return min(k + 1, self.kcap) if self.not_more else 1

    def _k_jok(self, k: int) -> int:
        return k - 1 if self.not_more else k

    # --- per-suit options at one position --------------------------------------------

    def suit_options(
        self, pos: int, s: int, rid: int, m: int, jl: int
    ) -> list[tuple[tuple[Status, ...], int, int, int, tuple, tuple[int, ...]]]:
        """Ways to use ``m`` naturals and up to ``jl`` jokers in runs of suit ``s`` at ``pos``.

        Canonical runs: a run starts at its first natural (with its leading jokers, if
        any, chosen then) and is closed after its last natural (with its trailing
        jokers chosen then); a joker inside the run (a gap) must be followed by a
        natural. Returns (new runs, naturals not used, jokers used, run points, plan).
        """
        # The options depend on the suit only through these two facts, so they are
        # shared by the suits and, through `_Shared`, by every hand of the variant.
        gap_ok = self.next_suit_nat[s][pos] - pos - 1 < jl  # a gap joker needs a natural soon
        empt = self.empties[s][pos]
        key = (pos, rid, m, jl, gap_ok, empt)
        got = self.suit_memo.get(key)
        if got is not None:
            return got
        runs = self.rs_of[rid]
        out: dict[tuple, tuple] = {}
        n = len(runs)
        carry = self.carry and pos == 1
        no_swap = carry or not self.swap_prune
        rp = self.run_pts
        hi = self.hi

        def rec(i: int, new: list, acts: list, nat: int, jok: int, pts: int, ext: bool) -> None:
            if i == n:
                finish(new, acts, nat, jok, pts, ext)
                return
            st = runs[i]
            L, k, low, jlow, gap = st
            can_extend = pos <= hi and not (low and pos == 14)
            if not gap:
                # close after pos - 1, with t trailing jokers at pos .. pos + t - 1
                for t in range(0, jl - jok + 1):
                    end = pos + t - 1
                    if t and (end > hi or (low and end >= 14)):
                        break
                    if jlow and end != hi:
                        continue  # a run with low-end jokers reaches the top
                    if min(L + t, 3) < 3 or (self.not_more and k - t < 0):
                        continue
                    tp = sum(rp[pos:pos + t])
                    rec(i + 1, new, acts + [("c", t)], nat, jok + t, pts + tp,
                        ext or (can_extend and t == 0))
            if can_extend:
                nl = 3 if L >= 2 else L + 1
                if nat < m:
                    rec(i + 1, new + [(nl, self._k_nat(k), low, jlow, False)], acts + [("n", 0)],
                        nat + 1, jok, pts + rp[pos], ext)
                if jok < jl and gap_ok and pos < hi:
                    rec(i + 1, new + [(nl, self._k_jok(k), low, jlow, True)], acts + [("j", 0)],
                        nat, jok + 1, pts + rp[pos], ext)

        def starts(a: int, min_t: int, jl_left: int) -> list[tuple[tuple[int, ...], int, int]]:
            """Leading-joker counts (non-decreasing) for ``a`` new natural runs."""
            if a == 0:
                return [((), 0, 0)]
            res = []
            for t in range(min_t, jl_left + 1):
                if t and not self._lead_ok(pos, s, t, jl_left):
                    break
                tp = sum(rp[pos - t:pos])
                for rest, used, p2 in starts(a - 1, t, jl_left - t):
                    res.append(((t,) + rest, used + t, p2 + tp))
            return res

        def finish(new: list, acts: list, nat: int, jok: int, pts: int, ext: bool) -> None:
            rest = m - nat
            can_start = pos <= hi - 2 or (self.monotone and pos <= hi)
            max_a = rest if can_start else 0
            gap_jok = sum(1 for act, _t in acts if act == "j")
            for a in range(max_a + 1):
                left = rest - a
                if left and not carry and self.greedy_ok and ext:
                    continue  # a run closes while a natural that extends it is left over
                if gap_jok and left and not no_swap:
                    continue  # a natural of this face left while a joker plays it
                for ts, used, p2 in starts(a, 0, jl - jok):
                    news = list(new)
                    for t in ts:
                        if t == 0:
                            if pos > hi - 2:
                                break
                            news.append((1, self._k_nat(0), pos == 1, False, False))
                        else:
                            news.append((min(t + 1, 3), 1 - t if self.not_more else 1,
                                         pos - t == 1, self.monotone, False))
                    else:
                        full = tuple(sorted(news))
                        k2 = (full, left, jok + used)
                        total = pts + p2 + rp[pos] * a
                        old = out.get(k2)
                        if old is None or total > old[0]:
                            out[k2] = (total, (tuple(acts), ts))

        rec(0, [], [], 0, 0, 0, False)
        res = [
            (k2[0], k2[1], k2[2], val[0], val[1], self._norm_table(k2[0]))
            for k2, val in out.items()
        ]
        # richest options first: a good total is found early, which tightens the bound
        res.sort(key=lambda o: (-o[3], o[1]))
        self.suit_memo[key] = res
        return res

    def _rid(self, rs: tuple[Status, ...]) -> int:
        """The small integer standing for a suit's sorted open runs in state keys."""
        got = self.rid_of.get(rs)
        if got is None:
            got = self.rid_of[rs] = len(self.rs_of)
            self.rs_of.append(rs)
            self.r_closable.append(all(self._closable(st) for st in rs))
            self.r_jlow.append(sum(1 for st in rs if st[3]))
        return got

    def _norm_table(self, rs: tuple[Status, ...]) -> tuple[int, ...]:
        """Ids of ``rs`` normalised for each number of free jokers 0..j0.

        With the "not more jokers than naturals" limit, a run's joker balance above the
        free jokers is capped at that number: the run stays valid whatever comes next.
        """
        got = self.norm_memo.get(rs)
        if got is not None:
            return got
        out = []
        for jl in range(self.j0 + 1):
            if self.not_more and jl < self.kcap and any(st[1] > jl for st in rs):
                out.append(self._rid(tuple(sorted((st[0], min(st[1], jl)) + st[2:] for st in rs))))
            else:
                out.append(self._rid(rs))
        got = self.norm_memo[rs] = tuple(out)
        return got

    def _lead_ok(self, pos: int, s: int, t: int, jl: int) -> bool:
        """May a run of suit ``s`` whose first natural is at ``pos`` start ``t`` jokers lower?"""
        start = pos - t
        if start < self.lo:
            return False
        if not self.monotone:
            return True
        # Dominance: unless the run reaches the top, its low-end jokers could move up.
        if self.hi - start + 1 > 13 or (start == 1 and self.hi == 14):
            return False
        return self.empties[s][pos] + t <= jl

    # --- sets at one rank ----------------------------------------------------------

    def set_options(self, n: tuple[int, ...], jl: int) -> list[tuple[tuple[int, ...], int, tuple]]:
        """Ways to make sets from ``n[s]`` naturals per suit and up to ``jl`` jokers."""
        key = (n, jl)
        got = self.set_memo.get(key)
        if got is not None:
            return got
        types: list[tuple[tuple[int, ...], int]] = []
        for mask in range(1, 16):
            suits = tuple(s for s in range(4) if mask >> s & 1)
            if any(n[s] == 0 for s in suits):
                continue
            for j in range(0, 4 - len(suits) + 1):
                size = len(suits) + j
                if size < 3 or size > 4 or j > jl:
                    continue
                if self.not_more and j > len(suits):
                    continue
                types.append((suits, j))
        out: dict[tuple, tuple] = {((0, 0, 0, 0), 0): ()}

        def rec(start: int, used: list[int], jok: int, chosen: tuple) -> None:
            for t in range(start, len(types)):
                suits, j = types[t]
                if jok + j > jl or any(used[s] >= n[s] for s in suits):
                    continue
                for s in suits:
                    used[s] += 1
                c2 = chosen + (types[t],)
                k2 = (tuple(used), jok + j)
                if k2 not in out:
                    out[k2] = c2
                rec(t, used, jok + j, c2)
                for s in suits:
                    used[s] -= 1

        rec(0, [0, 0, 0, 0], 0, ())
        res = [(k2[0], k2[1], sets) for k2, sets in out.items()]
        # most cards in sets first: a good total early tightens the bound (measured)
        res.sort(key=lambda o: -(sum(o[0]) + o[1]))
        self.set_memo[key] = res
        return res

    # --- the sweep -----------------------------------------------------------------

    def solve(
        self,
        pos: int,
        runs: tuple[int, int, int, int],
        jl: int,
        carried: tuple[int, ...],
        lf: int,
        alpha: int = NEG,
    ) -> int:
        """Best score from this state on; NEG if it cannot beat ``alpha`` (or is infeasible).

        ``runs``: per suit, the id (`_rid`) of the normalised open runs (`_norm_table`).
        A value above ``alpha`` is exact; otherwise
        the memo keeps "at most ``alpha``" and a later call with a lower ``alpha`` redoes
        the work. Transitions are skipped only when an admissible upper bound (`ub`: every
        remaining natural and free joker melded at the most a card can score anywhere,
        nothing left over) shows they cannot beat the best total found or ``alpha``.
        """
        key = (pos, runs, jl, carried, lf)
        got = self.memo.get(key)
        if got is not None:
            if got[2]:
                return got[0]
            if got[0] <= alpha:
                return NEG
        best = NEG
        choice = None
        if pos > self.hi:
            rc = self.r_closable
            if rc[runs[0]] and rc[runs[1]] and rc[runs[2]] and rc[runs[3]]:
                if min(lf + jl, self.min_left) >= self.min_left:
                    if not (self.required_joker and jl >= self.j0):
                        best = self.left_jokers(jl)
            self.memo[key] = (best, None, True)
            return best
        if self.has_jlow:
            # a run that starts with jokers reaches the top: its empty positions need jokers
            need = 0
            for s in range(4):
                c = self.r_jlow[runs[s]]
                if c:
                    need += c * self.empties[s][pos]
            if need > jl:
                self.memo[key] = (NEG, None, True)
                return NEG
        # An open run that cannot end here needs a card at each of its next positions
        # (3 - length of them if short, else one): where the suit holds too few naturals
        # there, jokers must stand (a lower bound on the jokers needed; dead states
        # are dropped before their options are explored).
        if runs[0] or runs[1] or runs[2] or runs[3]:
            need = 0
            jneed = self.jneed
            for s in range(4):
                rid = runs[s]
                if rid:
                    nk = (pos, rid, s, carried[s])
                    c = jneed.get(nk)
                    if c is None:
                        c = jneed[nk] = self._jneed(pos, rid, s, carried)
                    need += c
            if need > jl:
                self.memo[key] = (NEG, None, True)
                return NEG
        n = carried if pos == 14 and self.carry else self.nat_at[pos]
        if not any(n) and not any(runs):
            nxt = self.next_nat[pos]
            if self.carry and any(carried):
                nxt = min(nxt, 14)
            if nxt > pos + 1:
                best = self.solve(nxt, runs, jl, carried, lf, alpha)
                if best != NEG and best > alpha:
                    self.memo[key] = (best, ("skip", nxt), True)
                    return best
                self.memo[key] = (alpha, None, False)
                return NEG
        carry_pos = self.carry and pos == 1
        sets_here = 2 <= pos <= 13 or pos == self.set_pos
        n_suits = (n[0] > 0) + (n[1] > 0) + (n[2] > 0) + (n[3] > 0)
        if sets_here and n_suits and n_suits + jl >= 3:
            set_opts = self.set_options(n, jl)
        else:
            set_opts = NO_SETS
        spts = self.set_pts[pos]
        req = self.required
        req_here = req is not None and req[1] == (1 if pos == 14 else pos)
        if req_here:
            req_total = self.counts[req[0]][1] if pos in (1, 14) else self.counts[req[0]][pos]
        hand_obj = self.hand_obj
        unit = 1 if hand_obj else POINTS_SCALE
        left_pen = self.left_pens[pos]
        # upper bound of the next state's value, by free jokers (carried aces added below)
        ub_next = self.ub_nat[pos + 1]
        jmax = self.ub_joker
        if self.carry and pos + 1 <= 14:
            ub_next += sum(carried) * self.ub_ace
        lim = alpha  # a transition must beat this
        solve = self.solve
        min_left = self.min_left
        free_ok = self.free_ok and pos < self.hi
        if free_ok:
            free_ub = self.free_ub.get(pos + 1)
            if free_ub is None:
                free_ub = self.free_ub[pos + 1] = {}
        for used, js, sets in set_opts:
            jl1 = jl - js
            completable = 0  # suits a natural of which, if left over, would better go in a set
            if self.greedy_ok and not carry_pos:
                for suits, j in sets:
                    if len(suits) + j == 3 or (j and self.swap_prune):
                        for s in range(4):
                            if s not in suits:
                                completable |= 1 << s
            base = spts * (used[0] + used[1] + used[2] + used[3] + js)
            if not hand_obj:
                base *= POINTS_SCALE
            opts = [
                self.suit_options(pos, s, runs[s], n[s] - used[s], jl1)
                if n[s] - used[s] or runs[s] else IDLE
                for s in range(4)
            ]
            if not (opts[0] and opts[1] and opts[2] and opts[3]):
                continue
            # Bounds, richest options first (each list is sorted by points, descending):
            # once even the jokers all left free cannot lift a prefix above ``lim``, the
            # rest of that list cannot either.
            m1, m2, m3 = opts[1][0][3] * unit, opts[2][0][3] * unit, opts[3][0][3] * unit
            extra = ub_next + base + (sum(n) * self.ub_ace if carry_pos else 0)
            r0 = extra + m1 + m2 + m3
            r1 = extra + m2 + m3
            r2 = extra + m3
            if opts[0][0][3] * unit + r0 + jl1 * jmax <= lim:
                continue
            # combine the four suits
            for o0 in opts[0]:
                j_a = o0[2]
                p0 = o0[3] * unit
                if p0 + r0 + jl1 * jmax <= lim:
                    break
                if j_a > jl1 or p0 + r0 + (jl1 - j_a) * jmax <= lim:
                    continue
                for o1 in opts[1]:
                    j_b = j_a + o1[2]
                    p1 = p0 + o1[3] * unit
                    if p1 + r1 + (jl1 - j_a) * jmax <= lim:
                        break
                    if j_b > jl1 or p1 + r1 + (jl1 - j_b) * jmax <= lim:
                        continue
                    for o2 in opts[2]:
                        j_c = j_b + o2[2]
                        p2 = p1 + o2[3] * unit
                        if p2 + r2 + (jl1 - j_b) * jmax <= lim:
                            break
                        if j_c > jl1 or p2 + r2 + (jl1 - j_c) * jmax <= lim:
                            continue
                        r3 = p2 + extra + (jl1 - j_c) * jmax
                        for o3 in opts[3]:
                            if o3[3] * unit + r3 <= lim:
                                break  # the rest of the list scores no more
                            j_d = j_c + o3[2]
                            if j_d > jl1:
                                continue
                            sel = (o0, o1, o2, o3)
                            if completable and any(sel[s][1] and completable >> s & 1 for s in range(4)):
                                continue
                            gain = base + p2 + o3[3] * unit
                            jn = jl1 - j_d
                            if carry_pos:
                                new_carried = (o0[1], o1[1], o2[1], o3[1])
                                left = 0
                                ub = ub_next + jn * jmax + sum(new_carried) * self.ub_ace
                            else:
                                new_carried = carried
                                left = o0[1] + o1[1] + o2[1] + o3[1]
                                if req_here and sel[req[0]][1] >= req_total:
                                    continue
                                if left:
                                    gain += (left_pen[o0[1]] + left_pen[o1[1]]
                                             + left_pen[o2[1]] + left_pen[o3[1]])
                                ub = ub_next + jn * jmax
                            if gain + ub <= lim:
                                continue
                            new_runs = (o0[5][jn], o1[5][jn], o2[5][jn], o3[5][jn])
                            lf2 = min(lf + left, min_left)
                            if jn == 0 and free_ok and lim != NEG and new_runs != NO_RUNS:
                                fk = (new_runs, jn, new_carried, lf2)
                                fb = free_ub.get(fk)
                                if fb is None:
                                    fb = free_ub[fk] = self._free_bound(pos + 1, new_runs, jn,
                                                                        new_carried, lf2)
                                if gain + fb <= lim:
                                    continue
                            sub = solve(pos + 1, new_runs, jn, new_carried, lf2,
                                        NEG if lim == NEG or not PASS_ALPHA else lim - gain)
                            if sub == NEG:
                                continue
                            tot = gain + sub
                            if tot > lim:
                                best = lim = tot
                                choice = (sets, js, sel, new_runs, jn, new_carried, lf2)
        if best != NEG and best > alpha:
            self.memo[key] = (best, choice, True)
            return best
        self.memo[key] = (alpha, None, False)
        return NEG

    def _free_bound(self, p: int, runs: tuple[int, ...], jl: int, carried: tuple[int, ...],
                    lf: int) -> int:
        """Upper bound on the value of a state at ``p`` from the same state with no open run.

        The optimum of the state extends its open runs with some naturals E and J of the
        free jokers and melds the rest; leaving E and those J jokers over instead is a
        solution of the state with no open run. So the value is at most the exact value
        with no open run, plus for every natural that could extend an open run (its suit
        from ``p`` on, through at most ``jl`` missing positions, at most one per open run
        and face) its run points and leftover cost, plus for each free joker the most a
        card scores and its leftover cost.
        """
        free = self.solve(p, NO_RUNS, jl, carried, lf)
        if free == NEG:
            return -NEG  # no bound
        unit = 1 if self.hand_obj else POINTS_SCALE
        ext = jl * (self.ub_joker - self.left_jokers(1))
        for s in range(4):
            rid = runs[s]
            if not rid:
                continue
            nr = len(self.rs_of[rid])
            q = p
            gaps = jl
            while q <= self.hi:
                have = carried[s] if q == 14 and self.carry else self.nat_at[q][s]
                if not have:
                    if not gaps:
                        break
                    gaps -= 1
                else:
                    ext += min(nr, have) * (self.run_pts[q] * unit - self.left_pens[q][1])
                q += 1
        return free + ext

    def _jneed(self, pos: int, rid: int, s: int, carried: tuple[int, ...]) -> int:
        """Fewest jokers the open runs ``rid`` of suit ``s`` need from ``pos`` on."""
        demand = [0, 0, 0]
        for st in self.rs_of[rid]:
            if self._closable(st):
                continue
            d = 3 - st[0] if st[0] < 3 else 1
            top = 13 if st[2] else self.hi
            if pos + d - 1 > top:
                return 99
            for i in range(d):
                demand[i] += 1
        need = 0
        for i in range(3):
            if demand[i]:
                q = pos + i
                if q == 14 and self.carry:
                    have = carried[s]
                else:
                    have = self.nat_at[q][s] if q <= 15 else 0
                if demand[i] > have:
                    need += demand[i] - have
        return need

    def start(self, jokers: int | None = None) -> tuple:
        carried = (0, 0, 0, 0)
        runs = (0, 0, 0, 0)
        j = self.j0 if jokers is None else jokers
        return (self.lo, runs, j, carried, min(self.lf0, self.min_left))

    def value(self, jokers: int) -> int:
        """Best score with ``jokers`` jokers (NEG if no partition meets the demands)."""
        best = self.solve(*self.start(jokers))
        return NEG if best == NEG else best + self.base

    def result(self, jokers: int | None = None) -> SweepResult | None:
        st = self.start(jokers)
        best = self.solve(*st)
        if best == NEG:
            return None
        return self._replay(st, best + self.base)

    def run(self) -> SweepResult | None:
        return self.result()

    def _replay(self, st: tuple, best: int) -> SweepResult:
        pos, runs, jl, carried, lf = st
        # concrete open runs per suit, aligned with the sorted statuses
        open_runs: list[list[tuple[Status, list[tuple[int, int | None]]]]] = [[], [], [], []]
        done_runs: list[list[tuple[int, int | None]]] = []
        done_sets: list[tuple[int, list[int], int]] = []
        while pos <= self.hi:
            _score, choice, _exact = self.memo[(pos, runs, jl, carried, lf)]
            if choice[0] == "skip":
                pos = choice[1]
                continue
            sets, _js, sel, new_runs, jl2, carried2, lf2 = choice
            for suits, j in sets:
                done_sets.append((pos, list(suits), j))
            for s in range(4):
                acts, ts = sel[s][4]
                nxt: list[tuple[Status, list[tuple[int, int | None]]]] = []
                for (status, cells), (act, t) in zip(open_runs[s], acts, strict=True):
                    L, k, low, jlow, _gap = status
                    if act == "c":
                        done_runs.append(cells + [(pos + i, None) for i in range(t)])
                        continue
                    nl = 3 if L >= 2 else L + 1
                    if act == "n":
                        nxt.append(((nl, self._k_nat(k), low, jlow, False), cells + [(pos, s)]))
                    else:
                        nxt.append(((nl, self._k_jok(k), low, jlow, True), cells + [(pos, None)]))
                for t in ts:
                    cells = [(pos - t + i, None) for i in range(t)] + [(pos, s)]
                    if t == 0:
                        status = (1, self._k_nat(0), pos == 1, False, False)
                    else:
                        status = (min(t + 1, 3), 1 - t if self.not_more else 1,
                                  pos - t == 1, self.monotone, False)
                    nxt.append((status, cells))
                nxt.sort(key=lambda x: x[0])
                assert tuple(x[0] for x in nxt) == sel[s][0]
                open_runs[s] = nxt
            pos, runs, jl, carried, lf = pos + 1, new_runs, jl2, carried2, lf2
            if self.not_more and jl < self.kcap:
                for s in range(4):
                    open_runs[s] = sorted(
                        (((st[0], min(st[1], jl)) + st[2:], cells) for st, cells in open_runs[s]),
                        key=lambda x: x[0],
                    )
        for s in range(4):
            for _status, cells in open_runs[s]:
                done_runs.append(cells)
        return SweepResult(best, done_runs, done_sets)


def _joker_ok(variant: Variant, n_nat: int, n_jok: int) -> bool:
    if n_nat == 0:
        return False
    return variant.joker_limit != "not_more_than_naturals" or n_jok <= n_nat


def _shapes_from(variant: Variant, counts: Sequence[int], jokers: int, fi: int) -> list[Shape]:
    """Meld shapes whose first natural (in search order) is face ``fi``."""
    rank, suit = FACES[fi]
    out: list[Shape] = []
    # Sets: the current face plus other suits still present, plus jokers.
    others = [(rank, s) for s in SUITS if s != suit and counts[FACE_INDEX[(rank, s)]] > 0]
    for k in range(0, min(3, len(others)) + 1):
        for combo in combinations(others, k):
            for j in range(0, min(jokers, 4 - 1 - k) + 1):
                size = 1 + k + j
                if size < 3 or not _joker_ok(variant, 1 + k, j):
                    continue
                faces = ((rank, suit), *combo) + (None,) * j
                out.append(("set", faces, (rank,) * size))
    # Runs: any position other than the current card holds a natural if one is still
    # present (only the high ace precedes its own lower cards in search order) or a joker.
    positions = []
    if rank == 1:
        if variant.ace_low:
            positions.append(1)
        if variant.ace_high:
            positions.append(14)
    else:
        positions.append(rank)
    lo_bound = 1 if variant.ace_low else 2
    hi_bound = 14 if variant.ace_high else 13
    for p in positions:
        for lo in range(max(lo_bound, p - 12), p + 1):
            max_hi = min(13 if lo == 1 else hi_bound, lo + 12)
            for hi in range(max(p, lo + 2), max_hi + 1):
                others = [q for q in range(lo, hi + 1) if q != p]
                held = [q for q in others if counts[FACE_INDEX[(1 if q == 14 else q, suit)]] > 0]
                need = len(others) - len(held)
                if need > jokers:
                    break
                spare = jokers - need
                for n_sub in range(0, min(spare, len(held)) + 1):
                    for sub in combinations(held, n_sub):
                        n_jok = need + n_sub
                        if not _joker_ok(variant, hi - lo + 1 - n_jok, n_jok):
                            continue
                        faces: list[Face | None] = []
                        for q in range(lo, hi + 1):
                            if q == p or (q in held and q not in sub):
                                faces.append((1 if q == 14 else q, suit))
                            else:
                                faces.append(None)
                        out.append(("run", tuple(faces), tuple(range(lo, hi + 1))))
    return out


# --- the small-hand path ---------------------------------------------------------------

FAST_PATH_MAX_CARDS = 16
"""Hands of at most this many cards (unconstrained best partition) take `_SmallDfs`."""


_SMALL_PROTO: dict[str, _SmallDfs] = {}


class _SmallDfs:
    """Exact best partition of a small hand by a memoised depth-first search on cards.

    The bots' and hints' everyday question (a 13-15 card hand, maximum points) has a
    handful of meldable cards: a search over melds beats the sweep's set-up there. The
    lowest remaining card (suits in order, ranks ascending, a high ace after the king)
    is put in a set of its rank with higher suits, starts a run (it is the run's lowest
    natural; jokers may stand below it -- only in a run that reaches the top, else they
    could move to the high end for at least as many points -- and at any position above
    it), is left over, or (a low ace) waits for the high end. Memoised on the remaining
    counts and free jokers; within a state an option is skipped when what it gains plus
    an upper bound of the rest (every remaining card at the most it can score) can not
    beat the best option found, so every memoised value is exact. Same score as the
    sweep: ``points * 64 - leftover``.

    What keeps the slow tail short (2-joker hands with aces, issue 10): a low ace either
    waits for the high end (when a run could still take it there: a natural of its suit
    near the king) or is left over, never both -- an ace kept high that no run takes is
    left over there, the same partition, and searching both solved the rest of the hand
    twice. A card that can be in no meld any more is left over at once, with the next
    such cards, without trying options (`_hopeless`; with no joker left a run needs the
    next two cards of the suit, a high ace the queen and king); otherwise one cheap test
    says which of a set, a run and the high end can exist, and only those are tried.
    """

    __slots__ = ("v", "lo", "hi", "not_more", "run_pts", "set_pts", "memo", "set_slot", "promote",
                 "ub_slot", "ub_joker", "monotone", "set_at", "near", "next2", "rp64")

    def __new__(cls, v: Variant) -> _SmallDfs:
        proto = _SMALL_PROTO.get(v.id)
        if proto is None or proto.v is not v:
            proto = object.__new__(cls)
            proto._setup(v)
            if VARIANTS.get(v.id) is v:
                _SMALL_PROTO[v.id] = proto
        self = object.__new__(cls)
        for name in cls.__slots__:
            setattr(self, name, getattr(proto, name))
        self.memo = {}
        return self

    def __init__(self, v: Variant) -> None:
        pass  # set up in __new__ from the per-variant tables

    def _setup(self, v: Variant) -> None:
        self.v = v
        self.lo = 1 if v.ace_low else 2
        self.hi = 14 if v.ace_high else 13
        self.not_more = v.joker_limit == "not_more_than_naturals"
        self.run_pts, self.set_pts = _point_tables(v)
        self.memo: dict = {}
        self.set_slot = 1 if v.ace_low else 14  # where aces make sets
        self.promote = v.ace_low and v.ace_high
        rp, sp = self.run_pts, self.set_pts
        best_at = [max(rp[q], sp[q]) for q in range(15)]
        ub = [0] * 15
        for q in range(1, 15):
            ub[q] = best_at[q]
        if self.promote:
            ub[1] = max(best_at[1], best_at[14])
        self.ub_slot = [x * POINTS_SCALE for x in ub] * 4
        self.ub_joker = max(best_at[self.lo:self.hi + 1]) * POINTS_SCALE
        self.monotone = all(rp[q] <= rp[q + 1] for q in range(self.lo, self.hi))
        self.rp64 = [x * POINTS_SCALE for x in rp]
        self.set_at = [2 <= q <= 13 or q == self.set_slot for q in range(15)]
        self.near: dict[int, list[tuple[int, ...]]] = {}
        # per slot, with no joker: the next two slots of its suit that a run in which
        # it is the lowest card needs (None: no such run)
        self.next2: list[tuple[int, int] | None] = []
        for i in range(60):
            p = i % 15
            ok = self.lo <= p and p + 2 <= (13 if p <= 1 else self.hi)
            self.next2.append((i + 1, i + 2) if ok else None)

    def solve(self, cnt: list[int], jokers: int, i: int, ub: int, alpha: int = NEG) -> int:
        """Best score of the counts ``cnt`` (60 slots: suit * 15 + position, zero in the
        slots 1 to ``i - 1``; slot 0, where no card goes, is used for the memo key) and
        ``jokers``; ``ub`` bounds it from above. NEG when it can not
        beat ``alpha``: the memo then keeps "at most alpha" (redone if asked with a lower
        alpha); a value above ``alpha`` is exact (as in `Sweep.solve`)."""
        while i < 60 and not cnt[i]:
            i += 1
        if i == 60:
            return -jokers if -jokers > alpha else NEG
        if ub <= alpha:
            return NEG  # even every card melded at its best could not beat alpha
        cnt[0] = jokers  # (slot 0 holds no card) the key: counts and jokers in one bytes
        key = bytes(cnt)
        got = self.memo.get(key)
        if got is not None:
            if got[2]:
                return got[0] if got[0] > alpha else NEG
            if got[0] <= alpha:
                return NEG
        p = i % 15
        not_more = self.not_more
        free = jokers >= 2 and not not_more  # jokers may outnumber naturals
        set_ok = False  # (superset tests, as in `_hopeless`)
        if self.set_at[p]:
            # suits below this one hold nothing at this position any more (it is the
            # lowest card left); a second copy in its own suit makes no set with it
            n_o = (cnt[p] > 0) + (cnt[15 + p] > 0) + (cnt[30 + p] > 0) + (cnt[45 + p] > 0) - 1
            set_ok = n_o >= 2 or (n_o and jokers) or free
        if free:
            run_ok = self.lo <= p <= self.hi
        elif jokers:
            near = self.near.get(jokers)
            if near is None:
                near = self.near[jokers] = self._near_table(jokers)
            run_ok = False
            for q in near[i]:
                if cnt[q]:
                    run_ok = True
                    break
        else:
            pair = self.next2[i]
            run_ok = pair is not None and cnt[pair[0]] > 0 and cnt[pair[1]] > 0
        high = p == 1 and self.promote and self._high_ok(cnt, i - 1, jokers)
        if not (set_ok or run_ok or high):
            # in no meld any more: left over at once, and so are the next such cards
            forced = [i]
            cnt[i] -= 1
            ub -= self.ub_slot[i]
            j = i
            while True:
                while j < 60 and not cnt[j]:
                    j += 1
                if j == 60 or not self._hopeless(cnt, jokers, j):
                    break
                forced.append(j)
                cnt[j] -= 1
                ub -= self.ub_slot[j]
            n = len(forced)
            sub = -jokers if j == 60 else self.solve(cnt, jokers, j, ub, alpha + n)
            for f in forced:
                cnt[f] += 1
            if sub == NEG or sub - n <= alpha:
                self.memo[key] = (alpha, None, False)
                return NEG
            self.memo[key] = (sub - n, ("left", n), True)
            return sub - n
        s = i // 15
        base = s * 15
        ub_slot = self.ub_slot
        ubj = self.ub_joker
        best = alpha  # an option must beat this
        choice: tuple = ()
        ub_c = ub_slot[i]
        # 1. sets of this rank with higher suits
        if set_ok:
            others = [t for t in range(s + 1, 4) if cnt[t * 15 + p]]
            sp = self.set_pts[p] * POINTS_SCALE
            for k in range(n_o, -1, -1):  # the biggest sets first
                for combo in combinations(others, k):
                    for j in range(min(jokers, 3 - k), -1, -1):
                        size = 1 + k + j
                        if size < 3 or (not_more and j > 1 + k):
                            continue
                        gain = sp * size
                        rest = ub - ub_c * (1 + k) - ubj * j
                        if gain + rest <= best:
                            continue
                        cnt[i] -= 1
                        for t in combo:
                            cnt[t * 15 + p] -= 1
                        sub = self.solve(cnt, jokers - j, i, rest, best - gain)
                        cnt[i] += 1
                        for t in combo:
                            cnt[t * 15 + p] += 1
                        if sub != NEG and sub + gain > best:
                            best, choice = sub + gain, ("set", p, (s, *combo), j)
        # 2. runs whose lowest natural is this card
        if run_ok:
            rp = self.run_pts
            for t in range(0, min(jokers, p - self.lo) + 1):
                start = p - t
                top = min(13 if start == 1 else self.hi, start + 12)
                if t and self.monotone:
                    # low-end jokers only in a run that reaches the top: enough cards?
                    if top - p > 13 - t:
                        continue
                    gaps = 0
                    room = jokers - t
                    for q in range(top, p, -1):
                        if not cnt[base + q]:
                            gaps += 1
                            if gaps > room:
                                break
                    if gaps > room:
                        continue
                cnt[i] -= 1
                if t:
                    lead = sum(rp[start:p]) * POINTS_SCALE
                    cells: list[tuple[int, int | None]] = [(q, None) for q in range(start, p)] + [(p, s)]
                else:
                    lead = 0
                    cells = [(p, s)]
                res = self._extend(cnt, base, s, p + 1, top, jokers - t, 1, t,
                                   lead + rp[p] * POINTS_SCALE, cells, best, i,
                                   ub - ub_c - ubj * t, t > 0 and self.monotone)
                cnt[i] += 1
                if res[0] > best:
                    best, choice = res[0], ("run", res[1])
        # 3. left over, or (a low ace that a run could still take at the high end) kept
        # for the high end: only one of the two, as a kept ace that no run takes is left
        # over there (at slot 14 it is in no set and starts no run with a natural), same
        # cards, same score; searching both would solve the rest of the hand twice.
        cnt[i] -= 1
        if high:
            if ub > best:
                cnt[base + 14] += 1
                sub = self.solve(cnt, jokers, i, ub, best)
                cnt[base + 14] -= 1
                if sub != NEG and sub > best:
                    best, choice = sub, ("high",)
        elif ub - ub_c - 1 > best:
            sub = self.solve(cnt, jokers, i, ub - ub_c, best + 1)
            if sub != NEG and sub - 1 > best:
                best, choice = sub - 1, ("left",)
        cnt[i] += 1
        if choice:
            self.memo[key] = (best, choice, True)
            return best
        self.memo[key] = (alpha, None, False)
        return NEG

    def _prefilter(self, cnt: list[int], jokers: int, held: list[int]) -> int:
        """Drop the naturals that can be in no meld of this hand (a superset test: a
        card of the same rank in two other suits, or in one with a joker, or of the same
        suit close enough for the jokers to fill the gap); they are left over. ``held``:
        the slots holding a card. Returns how many were dropped."""
        if jokers >= 2 and not self.not_more:
            return 0
        promote = self.promote
        masks = [0, 0, 0, 0]
        for i in held:
            masks[i // 15] |= 1 << (i % 15)
        if promote:
            masks = [m | (1 << 14) if m & 2 else m for m in masks]  # a low ace is also high
        reach = jokers + 1
        window = (1 << (2 * reach + 1)) - 1
        n = 0
        for i in held:
            s, q = divmod(i, 15)
            p_bits = 1 << q
            if promote and q == 1:
                p_bits |= 1 << 14
            k = (masks[0] & p_bits != 0) + (masks[1] & p_bits != 0) + (masks[2] & p_bits != 0) \
                + (masks[3] & p_bits != 0) - 1
            if k >= 2 or (k and jokers):
                continue
            m = masks[s] & ~p_bits
            lo = q - reach
            near = m & (window << lo if lo >= 0 else window >> -lo)
            if not near and p_bits >> 14 & 1 and q == 1:
                near = m & (window << (14 - reach))
            if not near:
                n += cnt[i]
                cnt[i] = 0
        return n

    def _hopeless(self, cnt: list[int], jokers: int, i: int) -> bool:
        """Can the card at slot ``i`` (the lowest left) be in no meld at all now?
        (A superset test of "some option exists": False when unsure.)"""
        if jokers >= 2 and not self.not_more:
            return False
        p = i % 15
        if self.set_at[p]:
            # suits below this one hold nothing at this position any more (it is the
            # lowest card left); a second copy in its own suit makes no set with it
            k = (cnt[p] > 0) + (cnt[15 + p] > 0) + (cnt[30 + p] > 0) + (cnt[45 + p] > 0)
            if k >= 3 or (k == 2 and jokers):
                return False
        if jokers:
            near = self.near.get(jokers)
            if near is None:
                near = self.near[jokers] = self._near_table(jokers)
            for q in near[i]:
                if cnt[q]:
                    return False
        else:
            pair = self.next2[i]
            if pair and cnt[pair[0]] and cnt[pair[1]]:
                return False
        if p == 1 and self.promote:
            return not self._high_ok(cnt, i - 1, jokers)
        return True

    def _near_table(self, jokers: int) -> list[tuple[int, ...]]:
        """Per slot: the slots of its suit above it that a run in which it is the
        lowest natural could hold with ``jokers`` jokers (for `_hopeless`)."""
        out: list[tuple[int, ...]] = []
        for i in range(60):
            s, p = divmod(i, 15)
            if not self.lo <= p <= self.hi:
                out.append(())
                continue
            top = min(13 if p - jokers <= 1 else self.hi, p + 1 + jokers)
            out.append(tuple(s * 15 + q for q in range(p + 1, top + 1)))
        return out

    def _high_ok(self, cnt: list[int], base: int, jokers: int) -> bool:
        """Could a run still take this suit's ace at the high end? (A superset test: such
        a run holds another natural of the suit at most ``jokers + 1`` positions below,
        unless jokers may outnumber naturals.)"""
        if jokers >= 2 and not self.not_more:
            return True
        if not jokers:
            return cnt[base + 12] > 0 and cnt[base + 13] > 0
        for q in range(max(2, 13 - jokers), 14):
            if cnt[base + q]:
                return True
        return False

    def _extend(self, cnt: list[int], base: int, s: int, q: int, top: int, jl: int, nat: int, jok: int,
                pts: int, cells: list, best: int, i: int, rest: int, to_top: bool) -> tuple[int, tuple]:
        """Best score of runs continuing ``cells`` at position ``q``: at each position a
        joker (a recursive branch), the run closed there, or the natural (a loop).
        ``rest`` bounds what the cards not in the run can add; ``to_top``: the run must
        reach ``top`` (it starts with jokers)."""
        out = (NEG, ())
        rp = self.rp64
        ub_slot = self.ub_slot
        not_more = self.not_more
        n0 = n = len(cells)
        taken = []
        while pts + rest > best:  # the rest's bound counts the cards that could extend the run
            if jl and q <= top:
                cells.append((q, None))
                res = self._extend(cnt, base, s, q + 1, top, jl - 1, nat, jok + 1,
                                   pts + rp[q], cells, best, i, rest - self.ub_joker, to_top)
                cells.pop()
                if res[0] > best:
                    best, out = res[0], res
            if n >= 3 and (not not_more or jok <= nat) and (not to_top or q > top):
                sub = self.solve(cnt, jl, i, rest, best - pts)
                if sub != NEG and sub + pts > best:
                    best = sub + pts
                    out = (best, tuple(cells))
            slot = base + q
            if q > top or not cnt[slot]:
                break
            cnt[slot] -= 1
            taken.append(slot)
            cells.append((q, s))
            n += 1
            nat += 1
            pts += rp[q]
            rest -= ub_slot[slot]
            q += 1
        for slot in taken:
            cnt[slot] += 1
        del cells[n0:]
        return out

    def result(self, counts: Sequence[Sequence[int]], jokers: int) -> SweepResult:
        # suits in the order of the search: the fullest suit last (its many ways to
        # combine then meet fewer cards left; measured faster on the slowest hands)
        order = sorted(range(4), key=lambda s: sum(counts[s]))
        cnt = [0] * 60
        for s in range(4):
            b = s * 15
            cnt[b + 1:b + 14] = counts[order[s]][1:14]
            if self.lo == 2 and cnt[b + 1]:  # the ace is high only
                cnt[b + 14], cnt[b + 1] = cnt[b + 1], 0
        held = [i for i in range(60) if cnt[i]]
        dropped = self._prefilter(cnt, jokers, held)
        ub = sum(map(mul, self.ub_slot, cnt)) + self.ub_joker * jokers
        score = self.solve(cnt, jokers, 1, ub) - dropped
        runs: list[list[tuple[int, int | None]]] = []
        sets: list[tuple[int, list[int], int]] = []
        jl = jokers
        while True:
            i = 1
            while i < 60 and not cnt[i]:
                i += 1
            if i == 60:
                break
            cnt[0] = jl
            choice = self.memo[bytes(cnt)][1]
            s, p = divmod(i, 15)
            kind = choice[0]
            if kind == "left":
                for _n in range(choice[1] if len(choice) > 1 else 1):
                    while not cnt[i]:
                        i += 1
                    cnt[i] -= 1
                continue  # `_materialise` leaves over whatever is not placed
            if kind == "high":
                cnt[i] -= 1
                cnt[s * 15 + 14] += 1
                continue
            if kind == "set":
                _k, pos, suits, j = choice
                for t in suits:
                    cnt[t * 15 + pos] -= 1
                jl -= j
                sets.append((pos, [order[t] for t in suits], j))
                continue
            cells = choice[1]
            for q, si in cells:
                if si is None:
                    jl -= 1
                else:
                    cnt[s * 15 + q] -= 1
            runs.append([(q, None if si is None else order[si]) for q, si in cells])
        return SweepResult(score, runs, sets, True)


# --- public API ----------------------------------------------------------------------


def _count_cards(cards: Iterable[Card]) -> tuple[list[list[int]], int]:
    counts = [[0] * 14 for _ in range(4)]
    jokers = 0
    for c in cards:
        if c.is_joker:
            jokers += 1
        else:
            counts[SUITS.index(c.suit)][c.rank] += 1  # type: ignore[arg-type]
    return counts, jokers


def _materialise(
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


_SWEEPS: OrderedDict[tuple, Sweep] = OrderedDict()
_SWEEP_CACHE_SIZE = 16


def _cached_sweep(
    variant: Variant,
    counts: list[list[int]],
    jokers: int,
    objective: str,
    req: tuple[int, int] | None,
) -> Sweep:
    """A solved group of faces is reused: hands change a card at a time during a game."""
    if VARIANTS.get(variant.id) is not variant:  # only the presets are cached
        return Sweep(variant, counts, jokers, objective, required=req)
    key = (variant.id, objective, jokers, req, tuple(tuple(row) for row in counts))
    sw = _SWEEPS.get(key)
    if sw is None:
        sw = Sweep(variant, counts, jokers, objective, required=req)
        _SWEEPS[key] = sw
        if len(_SWEEPS) > _SWEEP_CACHE_SIZE:
            _SWEEPS.popitem(last=False)
    else:
        _SWEEPS.move_to_end(key)
    return sw


def clear_caches(tables: bool = False) -> None:
    """Forget the cached answers and searches (benchmarks time cold searches with it).

    ``tables``: also drop the per-variant tables (`_Shared`), as in a fresh process.
    """
    _SWEEPS.clear()
    _RESULTS.clear()
    if tables:
        _SHARED.clear()


def _sweep_hand(
    variant: Variant,
    counts: list[list[int]],
    jokers: int,
    objective: str,
    req: tuple[int, int] | None,
) -> SweepResult | None:
    """One sweep over the whole hand.

    Splitting the hand into groups of faces that can share no meld and sharing the
    jokers by a knapsack (one search per group and joker count) was measured slower on
    the benchmark hands: the sweep already skips empty positions, and each extra search
    costs its set-up and replay.
    """
    return _cached_sweep(variant, counts, jokers, objective, req).run()


def _search(
    variant: Variant,
    cards: Sequence[Card],
    objective: str = "points",
    required: Card | None = None,
    min_leftover: int = 0,
) -> Partition | None:
    # The search allocates many small tuples that are never cyclic: pausing the cyclic
    # garbage collector meanwhile avoids full collections in the middle of a solve.
    paused = gc.isenabled()
    gc.disable()
    try:
        return _search_inner(variant, cards, objective, required, min_leftover)
    finally:
        if paused:
            gc.enable()


def _search_inner(
    variant: Variant,
    cards: Sequence[Card],
    objective: str,
    required: Card | None,
    min_leftover: int,
) -> Partition | None:
    counts, jokers = _count_cards(cards)
    req: tuple[int, int] | None = None
    if required is not None and not required.is_joker:
        req = (SUITS.index(required.suit), required.rank)  # type: ignore[arg-type]
    need_joker = required is not None and required.is_joker
    # Bots and hints ask about the same hand many times: answers are kept by faces (the
    # result names faces, not physical cards), for the preset variants only.
    key = None
    if VARIANTS.get(variant.id) is variant:
        key = (variant.id, objective, tuple(map(tuple, counts)), jokers, req, need_joker,
               min_leftover, _FAST[0])
        got = _RESULTS.get(key, _MISSING)
        if got is not _MISSING:
            _RESULTS.move_to_end(key)
            return None if got is None else _materialise(variant, cards, got, required, got.direct)
    res = _solve_counts(variant, counts, jokers, objective, req, need_joker, min_leftover,
                        len(cards))
    if key is not None:
        _RESULTS[key] = res
        if len(_RESULTS) > _RESULT_CACHE_SIZE:
            _RESULTS.popitem(last=False)
    if res is None:
        return None
    return _materialise(variant, cards, res, required, res.direct)


_RESULTS: OrderedDict[tuple, SweepResult | None] = OrderedDict()
_FAST = [True]  # the small-hand path is on (`sweep_only` turns it off for comparisons)
_RESULT_CACHE_SIZE = 512
_MISSING = object()


def _solve_counts(
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
        _FAST[0]
        and objective == "points"
        and req is None
        and not need_joker
        and not min_leftover
        and n_cards <= FAST_PATH_MAX_CARDS
    ):
        return _SmallDfs(variant).result(counts, jokers)
    res = _sweep_hand(variant, counts, jokers, objective, req)
    if res is not None and (need_joker or min_leftover):
        # The unconstrained optimum is the answer when it happens to meet the demands.
        melded = sum(len(r) for r in res.runs) + sum(len(st) + j for _p, st, j in res.sets)
        jok_used = sum(1 for r in res.runs for _p, si in r if si is None)
        jok_used += sum(j for _p, _st, j in res.sets)
        if n_cards - melded < min_leftover or (need_joker and not jok_used):
            res = Sweep(
                variant, counts, jokers, objective, required=req,
                required_joker=need_joker, min_leftover=min_leftover,
            ).run()
    return res


def best_partition(variant: str | Variant, cards: Sequence[Card]) -> Partition:
    """The partition into valid melds with maximum total meld points.

    Ties are broken by fewer leftover cards. Exact (see the module docstring).
    """
    v = get_variant(variant)
    res = _search(v, list(cards), "points")
    assert res is not None
    return res


def best_partition_sweep(variant: str | Variant, cards: Sequence[Card]) -> Partition:
    """`best_partition` by the sweep alone, as before the small-hand path existed
    (`benchmarks.solver` times both in one run; tests check they agree)."""
    _FAST[0] = False
    try:
        return best_partition(variant, cards)
    finally:
        _FAST[0] = True


def min_hand_partition(variant: str | Variant, cards: Sequence[Card]) -> Partition:
    """The partition that leaves the fewest hand (penalty) points, then most meld points."""
    v = get_variant(variant)
    res = _search(v, list(cards), "hand")
    assert res is not None
    return res


def best_partition_with(
    variant: str | Variant, cards: Sequence[Card], required: Card, min_leftover: int = 0
) -> Partition | None:
    """Best partition in which ``required`` is melded, leaving ``min_leftover`` cards.

    None when no partition melds ``required`` with at least that many cards left over.
    """
    v = get_variant(variant)
    cards = list(cards)
    if required not in cards:
        return None
    return _search(v, cards, "points", required, min_leftover)


def _counts(cards: Iterable[Card]) -> tuple[list[int], int]:
    counts = [0] * 52
    jokers = 0
    for c in cards:
        if c.is_joker:
            jokers += 1
        else:
            counts[FACE_INDEX[(c.rank, c.suit)]] += 1  # type: ignore[index]
    return counts, jokers


def enumerate_melds(variant: str | Variant, cards: Sequence[Card], canonical: bool = True) -> list[Meld]:
    """Every distinct meld (by faces and joker positions) the cards can form.

    Naturals are used where held; jokers fill gaps and extend runs at either end.
    Each meld uses specific physical cards from ``cards``. With ``canonical`` (the
    default) a joker never stands in a run where a held natural could; with
    ``canonical=False`` those melds are listed too (``5h 6h *`` while holding ``7h``:
    a different lay-down, which keeps the ``7h`` for another meld).
    """
    v = get_variant(variant)
    counts, jokers = _counts(cards)
    pool: dict[Face | None, list[Card]] = {}
    for c in cards:
        pool.setdefault(None if c.is_joker else (c.rank, c.suit), []).append(c)  # type: ignore[arg-type]
    seen: set[tuple[str, tuple[Face | None, ...], tuple[int, ...]]] = set()
    out: list[Meld] = []
    for fi, n in enumerate(counts):
        if not n:
            continue
        # Shapes with this face as lowest natural and no joker substitution of held cards.
        for shape in _shapes_from(v, counts, jokers, fi):
            kind, faces, ranks = shape
            if shape in seen:
                continue
            # canonical forms only: no joker where a held natural could stand
            if canonical and kind == "run" and any(
                f is None and counts[FACE_INDEX[(1 if r == 14 else r, FACES[fi][1])]] > 0
                for f, r in zip(faces, ranks, strict=True)
            ):
                continue
            seen.add(shape)
            taken: dict[Face | None, int] = {}
            chosen = []
            for f in faces:
                i = taken.get(f, 0)
                taken[f] = i + 1
                chosen.append(pool[f][i])
            out.append(build_set(v, chosen) if kind == "set" else build_run(v, chosen))
    return out


# --- what the game asks on top of the partition ---------------------------------------


def best_lay_down(
    variant: str | Variant,
    hand: Sequence[Card],
    must_use: Sequence[Card] = (),
    keep: int | None = None,
) -> Partition | None:
    """The best lay-down the turn allows: the most meld points, melding the first card
    of ``must_use`` still in ``hand`` (the turn's obligation), and leaving ``keep``
    cards in hand (default: one when the variant makes players discard to go out).

    Exact (the solver's search under those constraints). None when the obligation can
    not be melded with ``keep`` cards left; a partition without melds when nothing can
    be laid. The one helper behind the engine's best opening, the bots' lay-down and
    the UI's "Déposer" hint.
    """
    v = get_variant(variant)
    hand = list(hand)
    if keep is None:
        keep = 1 if v.must_discard_to_go_out else 0
    must = [c for c in must_use if c in hand]
    if must:
        return best_partition_with(v, hand, must[0], min_leftover=keep)
    return _search(v, hand, "points", None, keep)


@dataclass(frozen=True)
class OpeningPlan:
    """Can a hand open now, and with which melds (the best-scoring ones)."""

    ok: bool
    points: int
    need: int
    melds: list[list[Card]] = field(default_factory=list)
    meld_objects: tuple[Meld, ...] = ()


def can_open(
    variant: str | Variant,
    hand: Sequence[Card],
    must_use: Sequence[Card] = (),
    keep: int | None = None,
) -> OpeningPlan:
    """The best opening lay-down of ``hand``: ok when it reaches the variant's threshold.

    ``must_use``: cards that must be among the melds (40's discard taken before opening;
    only the first is enforced exactly, the others are checked). ``keep``: cards that
    must stay in hand (default: one when the variant makes players discard to go out).
    For variants without a threshold any meld opens.
    """
    v = get_variant(variant)
    hand = list(hand)
    must = [c for c in must_use if c in hand]
    part = best_lay_down(v, hand, must, keep)
    need = v.open_min_points
    if part is None or not part.melds:
        return OpeningPlan(False, 0, need)
    melded = {c for m in part.melds for c in m}
    ok = part.points >= need and all(c in melded for c in must)
    return OpeningPlan(ok, part.points, need, part.melds, part.meld_objects)


def lay_off_options(
    variant: str | Variant, table: Sequence[Meld], hand: Sequence[Card]
) -> list[tuple[Card, int, str | None]]:
    """(card, table meld index, end) for every hand card that fits a table meld now.

    One entry per card face, meld and end; ``end`` is ``"low"``/``"high"`` for a joker
    on a run and for an ace that fits both ends of a ``2..K`` run, else None. Whether
    the seat may lay off at all (opening) is not checked here.
    """
    v = get_variant(variant)
    out: list[tuple[Card, int, str | None]] = []
    seen: set = set()
    for c in hand:
        for i, m in enumerate(table):
            if (c.face, i) in seen:
                continue
            ends: tuple[str | None, ...] = (None,)
            if m.kind == "run" and (c.is_joker or len(run_extensions(v, m, c)) == 2):
                ends = ("low", "high")  # a joker, or an ace that fits both ends of 2..K
            for end in ends:
                try:
                    lay_off(v, m, c, end)  # type: ignore[arg-type]
                except InvalidMeld:
                    continue
                out.append((c, i, end))
            seen.add((c.face, i))
    return out


def joker_recoveries(
    variant: str | Variant, table: Sequence[Meld], hand: Sequence[Card]
) -> list[tuple[int, tuple[Card, ...]]]:
    """(table meld index, hand cards to give) for every joker the hand can take back."""
    v = get_variant(variant)
    if v.joker_recovery == "none":
        return []
    naturals = []
    faces: set = set()
    for c in hand:
        if not c.is_joker and c.face not in faces:
            faces.add(c.face)
            naturals.append(c)
    out: list[tuple[int, tuple[Card, ...]]] = []
    for i, m in enumerate(table):
        if not m.n_jokers:
            continue
        if m.kind == "set" and v.set_joker_recovery_needs_two:
            groups: list[tuple[Card, ...]] = list(combinations(naturals, 2))
        else:
            groups = [(c,) for c in naturals]
        for g in groups:
            try:
                recover_joker(v, m, g)
            except InvalidMeld:
                continue
            out.append((i, g))
    return out
