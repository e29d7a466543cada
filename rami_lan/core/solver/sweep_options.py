"""The sweep's transition options: the ways to use a position's naturals and jokers in
runs of one suit (`SweepOptions.suit_options`) and in sets of one rank
(`SweepOptions.set_options`), and the tables that keep them for every hand of a variant
(`SweepTables`, `shared_tables`). Split out of `rami_lan.core.solver.sweep`, whose `Sweep`
inherits these methods (they read the search's settings from ``self``).
"""

from __future__ import annotations

from rami_lan.core.solver.common import Tables
from rami_lan.core.variants import VARIANTS, Variant

# A run's status: (length capped at 3, joker balance, starts at the low ace, starts with a
# joker, ends with a joker)
Status = tuple[int, int, bool, bool, bool]


class SweepTables:
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


SWEEP_TABLES_MAX_OPTIONS = 200_000


def shared_tables(tables: Tables, v: Variant, objective: str, jokers: int, swap_prune: bool,
                  greedy_ok: bool) -> SweepTables:
    """The sweep tables of these settings in ``tables`` (made when missing or full)."""
    if VARIANTS.get(v.id) is not v:
        return SweepTables()  # a custom variant: tables for this search only
    key = (v.id, objective, jokers, swap_prune, greedy_ok)
    sh = tables.sweep.get(key)
    if not isinstance(sh, SweepTables) or len(sh.suit_memo) > SWEEP_TABLES_MAX_OPTIONS:
        sh = tables.sweep[key] = SweepTables()
    return sh


class SweepOptions:
    """Option tables of a `Sweep` (a mixin: ``self`` is the sweep, its settings set by
    `Sweep.__init__`)."""

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
