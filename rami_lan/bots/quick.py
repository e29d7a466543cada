"""A fast, approximate meld finder for the everyday bot (``moyen``).

`quick_partition(variant, cards)` finds melds greedily (natural runs and sets, in both
orders, then pairs completed by a joker) in a few tens of microseconds. It is a lower
bound of the exact solver's answer: every meld it returns is valid, but it may miss a
better arrangement. The bots use it to decide cheaply and call the exact solver only
when something is about to be laid on the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rami_lan.core.cards import Card
from rami_lan.core.melds import rank_points
from rami_lan.core.variants import Variant


@dataclass(frozen=True)
class QuickPartition:
    melds: tuple[tuple[Card, ...], ...]
    points: int
    melded: frozenset[Card]


def _runs(v: Variant, cards: list[Card], out: list[tuple[tuple[Card, ...], int]]) -> list[Card]:
    """Take maximal natural runs (one copy per position); returns the cards left."""
    by_suit: dict[str | None, list[Card | None]] = {}
    rest: list[Card] = []
    low, high = v.ace_low, v.ace_high
    for c in cards:
        slots = by_suit.get(c.suit)
        if slots is None:
            slots = by_suit[c.suit] = [None] * 16
        r = c.rank
        if r == 1 and not low:
            r = 14
        if slots[r] is None:
            slots[r] = c
        else:
            rest.append(c)
    for slots in by_suit.values():
        ace = slots[1]
        if ace is not None and low and high and slots[13] is not None and slots[2] is None:
            slots[1], slots[14] = None, ace  # a lone ace next to the king is worth more high
        start = 0
        for p in range(1, 16):
            if slots[p] is not None:
                if not start:
                    start = p
                continue
            if start:
                if p - start >= 3:
                    out.append(
                        (tuple(slots[start:p]), sum(rank_points(v, q) for q in range(start, p)))  # type: ignore[arg-type]
                    )
                else:
                    rest.extend(slots[start:p])  # type: ignore[arg-type]
                start = 0
    return rest


def _sets(v: Variant, cards: list[Card], out: list[tuple[tuple[Card, ...], int]]) -> list[Card]:
    by_rank: dict[int, dict[str | None, Card]] = {}
    rest: list[Card] = []
    for c in cards:
        d = by_rank.get(c.rank)
        if d is None:
            d = by_rank[c.rank] = {}
        if c.suit in d:
            rest.append(c)
        else:
            d[c.suit] = c
    for r, d in by_rank.items():
        if len(d) >= 3:
            out.append((tuple(d.values()), len(d) * rank_points(v, r, in_set=True)))
        else:
            rest.extend(d.values())
    return rest


def _with_jokers(
    v: Variant, loose: list[Card], jokers: list[Card], out: list[tuple[tuple[Card, ...], int]]
) -> None:
    """Complete the best pairs of loose cards with one joker each."""
    if not jokers:
        return
    pairs: list[tuple[int, Card, Card]] = []
    for i, a in enumerate(loose):
        for b in loose[i + 1 :]:
            if a.rank == b.rank and a.suit != b.suit:
                pairs.append((3 * rank_points(v, a.rank, in_set=True), a, b))
            elif a.suit == b.suit and a.rank != 1 and b.rank != 1 and 0 < abs(a.rank - b.rank) <= 2:
                lo = min(a.rank, b.rank)
                hi = lo + 2 if abs(a.rank - b.rank) == 2 else min(lo + 2, 13)
                if hi - lo < 2:
                    lo = hi - 2
                pts = sum(rank_points(v, q) for q in range(lo, hi + 1))
                pairs.append((pts, a, b))
    pairs.sort(key=lambda t: -t[0])
    used: set[Card] = set()
    js = list(jokers)
    for pts, a, b in pairs:
        if not js:
            break
        if a in used or b in used:
            continue
        used.update((a, b))
        out.append(((a, b, js.pop()), pts))


def quick_partition(v: Variant, cards: Sequence[Card]) -> QuickPartition:
    """Greedy melds of ``cards`` (a lower bound of `best_partition`)."""
    naturals = [c for c in cards if c.rank]  # jokers have rank 0
    jokers = [c for c in cards if not c.rank]
    best: list[tuple[tuple[Card, ...], int]] | None = None
    best_pts = -1
    ranks: dict[int, set[str | None]] = {}
    for c in naturals:
        ranks.setdefault(c.rank, set()).add(c.suit)
    orders = (0, 1) if any(len(s) >= 3 for s in ranks.values()) else (1,)
    for order in orders:
        out: list[tuple[tuple[Card, ...], int]] = []
        if order == 0:
            rest = _sets(v, _runs(v, naturals, out), out)
        else:
            rest = _runs(v, _sets(v, naturals, out), out)
        _with_jokers(v, rest, jokers, out)
        pts = sum(p for _, p in out)
        if pts > best_pts:
            best, best_pts = out, pts
    assert best is not None
    melds = tuple(m for m, _ in best)
    return QuickPartition(melds, best_pts, frozenset(c for m in melds for c in m))
