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


_Tables = tuple[tuple[int, ...], tuple[int, ...]]
_TABLES: dict[str, _Tables] = {}


def _tables(v: Variant) -> _Tables:
    """Per variant: run points up to each position (``cum[p]`` = points of positions
    1..p-1, so a run start..end is ``cum[end + 1] - cum[start]``) and set points per rank."""
    t = _TABLES.get(v.id)
    if t is None:
        cum = [0, 0]
        for q in range(1, 16):
            cum.append(cum[-1] + rank_points(v, q))
        t = _TABLES[v.id] = (tuple(cum), tuple(rank_points(v, r, in_set=True) for r in range(15)))
    return t


def _runs(v: Variant, cards: list[Card], out: list[tuple[tuple[Card, ...], int]]) -> list[Card]:
    """Take maximal natural runs (one copy per position); returns the cards left.

    Suits are taken in the order they first appear, each from its low end; the cards
    left are the second copies (in the given order), then the short stretches."""
    by_suit: dict[str | None, list[Card | None]] = {}
    rest: list[Card] = []
    low = v.ace_low
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
    cum = _tables(v)[0]
    both = low and v.ace_high
    for slots in by_suit.values():
        if both and slots[1] is not None and slots[13] is not None and slots[2] is None:
            slots[1], slots[14] = None, slots[1]  # a lone ace next to the king is worth more high
        p = 1
        while p < 15:  # each stretch of taken positions, low to high (15 is never taken)
            if slots[p] is None:
                p += 1
                continue
            start = p
            p += 1
            while slots[p] is not None:
                p += 1
            if p - start >= 3:
                out.append((tuple(slots[start:p]), cum[p] - cum[start]))  # type: ignore[arg-type]
            else:
                rest.extend(slots[start:p])  # type: ignore[arg-type]
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
    set_pts = _tables(v)[1]
    for r, d in by_rank.items():
        if len(d) >= 3:
            out.append((tuple(d.values()), len(d) * set_pts[r]))
        else:
            rest.extend(d.values())
    return rest


def _with_jokers(
    v: Variant, loose: list[Card], jokers: list[Card], out: list[tuple[tuple[Card, ...], int]]
) -> None:
    """Complete the best pairs of loose cards with one joker each."""
    if not jokers:
        return
    cum, set_pts = _tables(v)
    pairs: list[tuple[int, Card, Card]] = []
    for i, a in enumerate(loose):
        ar, asuit = a.rank, a.suit
        for b in loose[i + 1 :]:
            br = b.rank
            if ar == br and asuit != b.suit:
                pairs.append((3 * set_pts[ar], a, b))
            elif asuit == b.suit and ar != 1 and br != 1 and 0 < abs(ar - br) <= 2:
                lo = min(ar, br)
                hi = lo + 2 if abs(ar - br) == 2 else min(lo + 2, 13)
                if hi - lo < 2:
                    lo = hi - 2
                pairs.append((cum[hi + 1] - cum[lo], a, b))
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
    """Greedy melds of ``cards`` (a lower bound of `best_partition`).

    Two greedy orders, runs then sets and sets then runs (the second only wins when
    strictly better); the first is skipped when no rank has three suits (no set)."""
    naturals: list[Card] = []
    jokers: list[Card] = []
    for c in cards:
        (naturals if c.rank else jokers).append(c)  # jokers have rank 0
    # the sets step of "sets first", done once: it also tells whether any set exists
    by_rank: dict[int, dict[str | None, Card]] = {}
    rest: list[Card] = []
    for c in naturals:
        d = by_rank.get(c.rank)
        if d is None:
            by_rank[c.rank] = {c.suit: c}
        elif c.suit in d:
            rest.append(c)
        else:
            d[c.suit] = c
    set_pts = _tables(v)[1]
    late: list[tuple[tuple[Card, ...], int]] = []
    for r, d in by_rank.items():
        if len(d) >= 3:
            late.append((tuple(d.values()), len(d) * set_pts[r]))
        else:
            rest.extend(d.values())
    rest = _runs(v, rest, late)
    _with_jokers(v, rest, jokers, late)
    best = late
    best_pts = sum([p for _, p in late])
    if len(late) and any(len(d) >= 3 for d in by_rank.values()):
        early: list[tuple[tuple[Card, ...], int]] = []
        rest = _sets(v, _runs(v, naturals, early), early)
        _with_jokers(v, rest, jokers, early)
        pts = sum([p for _, p in early])
        if pts >= best_pts:  # runs first is tried first: it wins ties
            best, best_pts = early, pts
    melds = tuple([m for m, _ in best])
    q = object.__new__(QuickPartition)  # a frozen dataclass: fill its fields directly
    q.__dict__.update(melds=melds, points=best_pts, melded=frozenset([c for m in melds for c in m]))
    return q
