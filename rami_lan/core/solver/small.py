"""The small-hand path: an exact memoised depth-first search on cards (`SmallDfs`).

The everyday question of bots and hints -- the best partition of a hand of at most
`FAST_PATH_MAX_CARDS` cards -- goes here: it skips the sweep's set-up, and on 14-card
`rami` hands with 0-2 jokers is about 3x faster than the sweep in median and 2-3x in
p99 (depending on the benchmark's seed), with 4 jokers about 3.5x in median and 3-4x in
p99 (`python -m benchmarks.solver` times both paths on the same hands). Same scores as
the sweep (``points * 64 - leftover``); both are exact and cross-checked.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from operator import mul

from rami_lan.core.solver.common import NEG, POINTS_SCALE, SweepResult, Tables
from rami_lan.core.variants import VARIANTS, Variant

FAST_PATH_MAX_CARDS = 16
"""Hands of at most this many cards (unconstrained best partition) take `SmallDfs`."""


class SmallDfs:
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

    @classmethod
    def new(cls, v: Variant, tables: Tables) -> SmallDfs:
        """A search with an empty memo, its per-variant set-up taken from ``tables``
        (made there once per preset variant; a custom variant's is made for this search)."""
        proto = tables.small.get(v.id)
        if not isinstance(proto, SmallDfs) or proto.v is not v:
            proto = object.__new__(cls)
            proto._setup(v, tables)
            if VARIANTS.get(v.id) is v:
                tables.small[v.id] = proto
        self = object.__new__(cls)
        for name in cls.__slots__:
            setattr(self, name, getattr(proto, name))
        self.memo = {}
        return self

    def _setup(self, v: Variant, tables: Tables) -> None:
        self.v = v
        self.lo = 1 if v.ace_low else 2
        self.hi = 14 if v.ace_high else 13
        self.not_more = v.joker_limit == "not_more_than_naturals"
        self.run_pts, self.set_pts = tables.point_tables(v)
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

