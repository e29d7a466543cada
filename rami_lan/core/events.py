"""Events the engine emits, and how each is seen by a given seat.

An event may carry private cards (a card drawn from the stock, the dealt hand). The
method `for_seat(seat)` returns the event as that seat may see it: private cards are
replaced by None for everyone but their owner. Round results reveal every hand, as
the rules do when a round ends.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from rami_lan.core.cards import Card
from rami_lan.core.melds import Meld


@dataclass(frozen=True, slots=True)
class Event:
    """Base class: public events are seen identically by everyone."""

    def for_seat(self, seat: int | None) -> Event:
        return self


@dataclass(frozen=True, slots=True)
class RoundStarted(Event):
    round_no: int
    dealer: int
    first_player: int
    players: tuple[int, ...]
    hand_size: int
    stock_size: int
    first_discard: Card


@dataclass(frozen=True, slots=True)
class CardsDealt(Event):
    seat: int
    cards: tuple[Card, ...] | None
    positions: tuple[int, ...]

    def for_seat(self, seat: int | None) -> Event:
        return self if seat == self.seat else replace(self, cards=None)


@dataclass(frozen=True, slots=True)
class StockDrawn(Event):
    """A card drawn from the stock at ``position`` of stock generation ``reshuffle``."""

    seat: int
    card: Card | None
    position: int
    reshuffle: int
    reason: str = "draw"  # "draw", "knock" or "timeout"

    def for_seat(self, seat: int | None) -> Event:
        return self if seat == self.seat else replace(self, card=None)


@dataclass(frozen=True, slots=True)
class DiscardTaken(Event):
    seat: int
    cards: tuple[Card, ...]  # from the chosen card up to the top, bottom to top
    depth: int


@dataclass(frozen=True, slots=True)
class Melded(Event):
    seat: int
    melds: tuple[Meld, ...]
    first_index: int
    opened: bool  # this lay-down opened the seat


@dataclass(frozen=True, slots=True)
class LaidOff(Event):
    seat: int
    card: Card
    target: int
    meld: Meld


@dataclass(frozen=True, slots=True)
class JokerRecovered(Event):
    seat: int
    target: int
    cards: tuple[Card, ...]
    joker: Card
    meld: Meld


@dataclass(frozen=True, slots=True)
class Discarded(Event):
    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class Knocked(Event):
    seat: int
    card: Card  # the discard taken


@dataclass(frozen=True, slots=True)
class StockRefilled(Event):
    """The stock ran out and was rebuilt from the discard pile (minus its top)."""

    reshuffle: int
    pile: tuple[Card, ...]  # the cards that went back, bottom to top (all were public)
    shuffled: bool  # False for a turn-over (multi)
    kept: Card | None  # the card that starts the new discard pile


@dataclass(frozen=True, slots=True)
class TimedOut(Event):
    seat: int
    away: bool


@dataclass(frozen=True, slots=True)
class RoundVoided(Event):
    """The round in progress is void: no score, nothing of it counts; the next round is
    dealt. Only a table with private dealing voids a round, when a player whose hidden
    hand nobody else can play is gone for good (``reason``: ``player_gone``)."""

    round_no: int
    seat: int | None
    reason: str


@dataclass(frozen=True, slots=True)
class TurnStarted(Event):
    seat: int
    turn_no: int


@dataclass(frozen=True, slots=True)
class RoundEnded(Event):
    winner: int | None
    rami_sec: bool
    reason: str  # a RoundEnd: "out", "stock", "blocked", "cap"
    hands: tuple[tuple[int, tuple[Card, ...]], ...]
    hand_points: tuple[tuple[int, int], ...]
    laid_points: tuple[tuple[int, int], ...]
    scores: tuple[tuple[int, int], ...]  # round score per seat (penalty or points)


@dataclass(frozen=True, slots=True)
class PlayersEliminated(Event):
    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MatchEnded(Event):
    winner: int | None
    totals: tuple[tuple[int, int], ...]
    reason: str


def cards_played(ev: Event) -> list[Card]:
    """The cards an event takes from a hand to the table or the discard pile (a meld, a
    lay-off, a discard, the cards given for a joker taken back); none for any other."""
    if isinstance(ev, Melded):
        return [c for meld in ev.melds for c in meld.cards]
    if isinstance(ev, LaidOff | Discarded):
        return [ev.card]
    if isinstance(ev, JokerRecovered):
        return list(ev.cards)
    return []
