"""The state of a round in progress: `RoundState`, the host's full knowledge, and the
copy and tuple helpers the rules use on it (split out of `rami_lan.core.round`, which
re-exports every name). A value: frozen, and changed only by copying (`replace`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rami_lan.core import events as E
from rami_lan.core.cards import Card
from rami_lan.core.melds import Meld
from rami_lan.core.reasons import Reason
from rami_lan.core.variants import Variant


@dataclass(frozen=True)
class RoundState:
    """Everything about a round in progress (the host's full knowledge)."""

    variant: Variant
    players: tuple[int, ...]
    n_seats: int
    round_no: int
    dealer: int
    seed: bytes
    knock_enabled: bool
    hands: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]
    stock_gen: int
    stock_base: int
    discard: tuple[Card, ...]
    melds: tuple[Meld, ...]
    turn: int
    phase: str
    turn_no: int
    opened: tuple[bool, ...]
    laid_before: tuple[bool, ...]
    laid_points: tuple[int, ...]
    timeouts: tuple[int, ...]
    away: tuple[bool, ...]
    taken: Card | None = None
    drawn: Card | None = None
    must_use: tuple[Card, ...] = ()
    laid_this_turn: bool = False
    knock_window: tuple[int, ...] = ()
    result: E.RoundEnded | None = None
    blind: frozenset[int] = frozenset()
    """Seats whose hidden cards the ruler does not know (private dealing, docs/masked_deck.md).
    Rules that depend on the unseen rest of such a hand are the player's claim: not judged
    here, judged by every client's replay once the round's cards are public."""
    refills: tuple[tuple[Card, ...], ...] | None = None
    """None: each refill of the stock is shuffled from the seed. A tuple (private dealing):
    refill ``r`` takes the order ``refills[r - 1]`` (a permutation of the pile going back),
    or the pile as it lies when that order is not known yet (the host's model)."""

    def next_player(self, seat: int) -> int:
        ps = self.players
        for s in ps:
            if s > seat:
                return s
        return ps[0]

    def hand(self, seat: int) -> tuple[Card, ...]:
        return self.hands[seat]

    @property
    def pending_must_use(self) -> tuple[Card, ...]:
        """The turn's obligations still in the hand of the seat to move.

        ``must_use`` lists every card the turn obliges to use, those already laid
        included (with ``obligation_ends_on_table`` a laid card taken back into the hand
        by a joker recovery is owed again); the pending ones are those still in hand.
        """
        hand = self.hands[self.turn]
        return tuple(c for c in self.must_use if c in hand)

    def can_lay_on_table(self, seat: int) -> bool:
        return not self.variant.requires_opening or self.opened[seat]

    def opening_reason(self) -> Reason:
        """What opening needs in this variant (points, or a meld of one's own)."""
        v = self.variant
        if v.open_min_points:
            return Reason.of("needs_points", points=v.open_min_points)
        return Reason.of("needs_own_meld")

    def opening_need(self) -> str:
        return self.opening_reason().text()


def replace(st: RoundState, **changes: object) -> RoundState:
    """A copy of ``st`` with ``changes`` (a fast `dataclasses.replace`: no validation
    runs in ``__init__``, so copying the field dict is equivalent)."""
    new = object.__new__(RoundState)
    d = new.__dict__
    d.update(st.__dict__)
    d.update(changes)
    return new


def _set(t: tuple, i: int, value: object) -> tuple:
    return t[:i] + (value,) + t[i + 1 :]


def _find(cards: list[Card], card: Card) -> int:
    """Where ``card`` is in ``cards`` (-1: absent). A hand holds each physical card once,
    so the card object itself is looked for first, without calling ``Card.__eq__`` on
    the others (the engine's hot path), then a card equal to it."""
    for i, c in enumerate(cards):
        if c is card:
            return i
    for i, c in enumerate(cards):
        if c == card:
            return i
    return -1


def _remove(hand: tuple[Card, ...], cards: Sequence[Card]) -> tuple[Card, ...]:
    out = list(hand)
    for c in cards:
        i = _find(out, c)
        if i < 0:
            out.remove(c)  # not there: list.remove raises ValueError, as before
        else:
            del out[i]
    return tuple(out)
