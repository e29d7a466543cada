"""Small card tactics the expert shares across variants (pure functions, core only).

- `positions`: the run positions a card can take (an ace low, high, or both).
- `completes_meld`: would a card make a three-card meld with two cards an opponent can
  reach (the public discard pile of ``500``, the cards it is known to hold)? Used to
  avoid feeding: in ``500`` every card of the pile stays within reach (a card and all
  above it may be taken), so a discard that completes a meld with pile cards hands the
  next player a deep take.
- `can_go_out` / `finish_left` / `lay_off_rest`: what a hand could not place this turn with greedy
  melds and lay-offs on the table (chained): the end-game question "does this card
  let me go out?".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rami_lan.bots.quick import quick_partition
from rami_lan.core.cards import Card
from rami_lan.core.errors import RulesError
from rami_lan.core.melds import Meld, lay_off
from rami_lan.core.variants import Variant


def positions(v: Variant, card: Card) -> tuple[int, ...]:
    """Run positions of a natural card (ace: 1 and/or 14 per the variant)."""
    if card.rank != 1:
        return (card.rank,)
    return tuple(p for p, ok in ((1, v.ace_low), (14, v.ace_high)) if ok)


def completes_meld(v: Variant, card: Card, reach: Iterable[Card]) -> bool:
    """Does ``card`` form a three-card meld with two cards of ``reach``?

    Sets need two other suits of its rank; runs two neighbours of its suit making three
    consecutive positions; a joker in ``reach`` stands for any one missing card when
    the variant has jokers (never more jokers than naturals: one joker with two
    naturals is always allowed).
    """
    if card.is_joker:
        return False
    suits: set[str] = set()
    run_pos: set[int] = set()
    jokers = 0
    for c in reach:
        if c.is_joker:
            jokers += 1
        elif c.rank == card.rank and c.suit != card.suit:
            suits.add(c.suit)  # type: ignore[arg-type]
        elif c.suit == card.suit and c.rank != card.rank:
            run_pos.update(positions(v, c))
    if len(suits) >= 2:
        return True
    joker = jokers > 0 and v.n_jokers > 0
    if joker and suits:
        return True
    for p in positions(v, card):
        near = [q for q in (p - 2, p - 1, p + 1, p + 2) if q in run_pos]
        for a, b in ((p + 1, p + 2), (p - 1, p + 1), (p - 2, p - 1)):
            if a in run_pos and b in run_pos:
                return True
        if joker and any(abs(q - p) <= 2 for q in near):
            return True
    return False


def meld_value(v: Variant, card: Card) -> int:
    """Meld points of a natural card (an ace at its higher value where allowed)."""
    if card.rank == 1:
        return v.ace_high_points if v.ace_high else v.ace_low_points
    return min(card.rank, 10)


def _fit(v: Variant, meld: Meld, card: Card) -> Meld | None:
    """``meld`` with ``card`` laid off, or None if it does not fit."""
    if not card.is_joker:
        if meld.kind == "set" and card.rank % 13 != meld.lo % 13:
            return None
        if meld.kind == "run" and card.suit != meld.suit:
            return None
    ends: tuple[str | None, ...] = ("high", "low") if card.is_joker and meld.kind == "run" else (None,)
    for end in ends:
        try:
            return lay_off(v, meld, card, end)  # type: ignore[arg-type]
        except RulesError:
            continue
    return None


def lay_off_rest(v: Variant, table: Sequence[Meld], cards: Sequence[Card]) -> list[Card]:
    """The cards left after laying off on ``table`` whatever fits, one after the other
    (a card may extend a run so that the next one fits)."""
    melds = list(table)
    left = list(cards)
    placed = True
    while placed and left:
        placed = False
        for c in left:
            for i, m in enumerate(melds):
                new = _fit(v, m, c)
                if new is not None:
                    melds[i] = new
                    left.remove(c)
                    placed = True
                    break
            if placed:
                break
    return left


def finish_left(v: Variant, table: Sequence[Meld], cards: Sequence[Card], lay_offs: bool) -> list[Card]:
    """Cards a turn could not place: greedy melds (`quick_partition`), then lay-offs
    on the table when ``lay_offs``. A lower bound of what the hand can place."""
    q = quick_partition(v, list(cards))
    left = [c for c in cards if c not in q.melded]
    if lay_offs and table and left:
        left = lay_off_rest(v, table, left)
    return left


def can_go_out(v: Variant, table: Sequence[Meld], cards: Sequence[Card], lay_offs: bool) -> bool:
    """Could a turn place ``cards`` whole (`finish_left`), bar at most one discard?

    Where the last card must be discarded, a hand placed whole still goes out if one
    placed card can be kept back as the discard: a laid-off card or the fourth card of
    a meld (not a card of a three-card meld).
    """
    q = quick_partition(v, list(cards))
    loose = [c for c in cards if c not in q.melded]
    left = lay_off_rest(v, table, loose) if lay_offs and table and loose else loose
    if len(left) > 1:
        return False
    if left or not v.must_discard_to_go_out:
        return True
    return bool(loose) or any(len(m) >= 4 for m in q.melds)
