"""The sweep: an exact dynamic programme over run positions (any hand, any question).

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
and set options are tables shared by every hand of a variant (`SweepTables`, kept in the
solver's `Tables`); they are made by `rami_lan.core.solver.sweep_options`.
"""

from __future__ import annotations

from collections.abc import Sequence

from rami_lan.core.solver.common import NEG, POINTS_SCALE, SweepResult, Tables
from rami_lan.core.solver.sweep_options import (  # noqa: F401  (SweepTables re-exported)
    SWEEP_TABLES_MAX_OPTIONS,
    Status,
    SweepOptions,
    SweepTables,
    shared_tables,
)
from rami_lan.core.variants import Variant

NO_RUNS = (0, 0, 0, 0)
NO_SETS = [((0, 0, 0, 0), 0, ())]
IDLE = [((), 0, 0, 0, ((), ()), (0,) * 16)]  # a suit with no natural here and no open run
LEFT_PENS = [-c for c in range(9)]
# Pass the bound down to the next state (alpha-beta style; such states are memoised as
# "at most alpha" and redone when needed)? Correct either way. With the loose bound alone
# it was measured slower; with the joker-free bound (`Sweep._free_bound`) it halves the
# slowest 30-card `500` hands with two jokers, so it is on.
PASS_ALPHA = True
HAND_SCALE = 4096


class Sweep(SweepOptions):
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
        tables: Tables | None = None,  # the solver's per-variant tables (None: this search's own)
    ) -> None:
        v = variant
        tables = Tables() if tables is None else tables
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
        run_pts, set_pts = tables.point_tables(v)
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
        sh = shared_tables(tables, v, objective, jokers, self.swap_prune, self.greedy_ok)
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
        if pos > self.hi:
            best = self._at_end(runs, jl, lf)
            self.memo[key] = (best, None, True)
            return best
        if (self.has_jlow or runs != NO_RUNS) and self._dead(pos, runs, jl, carried):
            self.memo[key] = (NEG, None, True)
            return NEG
        n = carried if pos == 14 and self.carry else self.nat_at[pos]
        if not any(n) and not any(runs):
            nxt = self.next_nat[pos]
            if self.carry and any(carried):
                nxt = min(nxt, 14)
            if nxt > pos + 1:  # nothing happens before ``nxt``: go there at once
                best = self.solve(nxt, runs, jl, carried, lf, alpha)
                if best != NEG and best > alpha:
                    self.memo[key] = (best, ("skip", nxt), True)
                    return best
                self.memo[key] = (alpha, None, False)
                return NEG
        # The transitions: each way to make sets at this rank (`set_options`) combined with
        # every suit's run options (`_combine`); the best that beats ``alpha`` is kept.
        carry_pos = self.carry and pos == 1
        n_suits = (n[0] > 0) + (n[1] > 0) + (n[2] > 0) + (n[3] > 0)
        if (2 <= pos <= 13 or pos == self.set_pos) and n_suits and n_suits + jl >= 3:
            set_opts = self.set_options(n, jl)
        else:
            set_opts = NO_SETS
        req = self.required
        req_s, req_total = -1, 0
        if req is not None and req[1] == (1 if pos == 14 else pos):
            req_s = req[0]
            req_total = self.counts[req[0]][1] if pos in (1, 14) else self.counts[req[0]][pos]
        # upper bound of the next state's value, by free jokers (carried aces added below)
        ub_next = self.ub_nat[pos + 1]
        if self.carry and pos + 1 <= 14:
            ub_next += sum(carried) * self.ub_ace
        free_ub = None
        if self.free_ok and pos < self.hi:
            free_ub = self.free_ub.get(pos + 1)
            if free_ub is None:
                free_ub = self.free_ub[pos + 1] = {}
        lim = alpha  # a transition must beat this
        choice = None
        for used, js, sets in set_opts:
            jl1 = jl - js
            opts = [
                self.suit_options(pos, s, runs[s], n[s] - used[s], jl1)
                if n[s] - used[s] or runs[s] else IDLE
                for s in range(4)
            ]
            if not (opts[0] and opts[1] and opts[2] and opts[3]):
                continue
            base = self.set_pts[pos] * (used[0] + used[1] + used[2] + used[3] + js)
            if not self.hand_obj:
                base *= POINTS_SCALE
            completable = self._completable(sets) if sets and self.greedy_ok and not carry_pos else 0
            extra = ub_next + base + (sum(n) * self.ub_ace if carry_pos else 0)
            found = self._combine(opts, pos, carried, lf, carry_pos, ub_next, req_s, req_total, free_ub,
                                  sets, js, jl1, base, completable, extra, lim)
            if found is not None:
                lim, choice = found
        if choice is not None:  # (then lim > alpha)
            self.memo[key] = (lim, choice, True)
            return lim
        self.memo[key] = (alpha, None, False)
        return NEG

    def _at_end(self, runs: tuple[int, int, int, int], jl: int, lf: int) -> int:
        """The value past the top position: the free jokers left over, when every open run
        may end there and the demands (cards left over, a joker melded) are met; else NEG."""
        rc = self.r_closable
        if not (rc[runs[0]] and rc[runs[1]] and rc[runs[2]] and rc[runs[3]]):
            return NEG
        if min(lf + jl, self.min_left) < self.min_left:
            return NEG
        if self.required_joker and jl >= self.j0:
            return NEG
        return self.left_jokers(jl)

    def _dead(self, pos: int, runs: tuple[int, int, int, int], jl: int, carried: tuple[int, ...]) -> bool:
        """Do the open runs need more jokers than are free? (Then the state is infeasible.)"""
        if self.has_jlow:
            # a run that starts with jokers reaches the top: its empty positions need jokers
            need = 0
            for s in range(4):
                c = self.r_jlow[runs[s]]
                if c:
                    need += c * self.empties[s][pos]
            if need > jl:
                return True
        # An open run that cannot end here needs a card at each of its next positions
        # (3 - length of them if short, else one): where the suit holds too few naturals
        # there, jokers must stand (a lower bound on the jokers needed; dead states
        # are dropped before their options are explored).
        if not (runs[0] or runs[1] or runs[2] or runs[3]):
            return False
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
        return need > jl

    def _completable(self, sets: tuple) -> int:
        """Suits (a bit mask) a natural of which, if left over, would better go in one of
        ``sets`` (a set of three, or one with a joker it could replace)."""
        completable = 0
        for suits, j in sets:
            if len(suits) + j == 3 or (j and self.swap_prune):
                for s in range(4):
                    if s not in suits:
                        completable |= 1 << s
        return completable

    def _combine(
        self, opts: list, pos: int, carried: tuple[int, ...], lf: int, carry_pos: bool, ub_next: int,
        req_s: int, req_total: int, free_ub: dict | None, sets: tuple, js: int, jl1: int, base: int,
        completable: int, extra: int, lim: int,
    ) -> tuple[int, tuple] | None:
        """The best combination of the four suits' run options ``opts`` at ``pos`` with the
        sets ``sets`` (``js`` jokers, ``base`` score units; ``jl1`` jokers left) that beats
        ``lim``: (its total, its choice), or None. ``extra``: what the next state and the
        sets add at most, besides the free jokers; ``req_s``: the suit of the card that
        must be melded if it is at this position (else -1), ``req_total`` its copies;
        ``completable``: suits whose leftover naturals should be in a set
        (`_completable`); ``free_ub``: the joker-free bounds of the next position (None:
        not used). Solves the next state for each candidate.

        Bounds, richest options first (each list is sorted by points, descending): once
        even the jokers all left free cannot lift a prefix above ``lim``, the rest of that
        list cannot either.
        """
        unit = 1 if self.hand_obj else POINTS_SCALE
        jmax = self.ub_joker
        m1, m2, m3 = opts[1][0][3] * unit, opts[2][0][3] * unit, opts[3][0][3] * unit
        r0 = extra + m1 + m2 + m3
        r1 = extra + m2 + m3
        r2 = extra + m3
        if opts[0][0][3] * unit + r0 + jl1 * jmax <= lim:
            return None
        left_pen = self.left_pens[pos]
        min_left = self.min_left
        ub_ace = self.ub_ace
        solve = self.solve
        found = None
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
                            ub = ub_next + jn * jmax + sum(new_carried) * ub_ace
                        else:
                            new_carried = carried
                            left = o0[1] + o1[1] + o2[1] + o3[1]
                            if req_s >= 0 and sel[req_s][1] >= req_total:
                                continue
                            if left:
                                gain += (left_pen[o0[1]] + left_pen[o1[1]]
                                         + left_pen[o2[1]] + left_pen[o3[1]])
                            ub = ub_next + jn * jmax
                        if gain + ub <= lim:
                            continue
                        new_runs = (o0[5][jn], o1[5][jn], o2[5][jn], o3[5][jn])
                        lf2 = min(lf + left, min_left)
                        if jn == 0 and free_ub is not None and lim != NEG and new_runs != NO_RUNS:
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
                            lim = tot
                            found = (tot, (sets, js, sel, new_runs, jn, new_carried, lf2))
        return found

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
