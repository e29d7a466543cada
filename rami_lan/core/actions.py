"""Actions a seat (or the host, for timeouts) can ask the engine to perform.

Every action names its seat. Card arguments are physical cards of the seat's hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rami_lan.core.cards import Card


@dataclass(frozen=True, slots=True)
class MeldSpec:
    """A meld to lay from the hand: cards in table order, optionally its kind."""

    cards: tuple[Card, ...]
    kind: Literal["set", "run"] | None = None

    def __str__(self) -> str:
        return " ".join(str(c) for c in self.cards)


@dataclass(frozen=True, slots=True)
class DrawStock:
    seat: int


@dataclass(frozen=True, slots=True)
class DrawDiscard:
    """Take from the discard pile: ``depth`` 1 is the top card; deeper (500) takes
    the card at that depth and every card above it."""

    seat: int
    depth: int = 1


@dataclass(frozen=True, slots=True)
class LayDown:
    """Lay one or more new melds. The opening turn's melds must all be in one LayDown."""

    seat: int
    melds: tuple[MeldSpec, ...]


@dataclass(frozen=True, slots=True)
class LayOff:
    """Add one card to the table meld ``target`` (index); ``end`` for a joker on a run."""

    seat: int
    card: Card
    target: int
    end: Literal["low", "high"] | None = None


@dataclass(frozen=True, slots=True)
class RecoverJoker:
    """Put natural card(s) into table meld ``target`` and take a joker into the hand."""

    seat: int
    target: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Discard:
    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class Knock:
    """ "Frapper": take the discard just made plus two stock cards and play at once."""

    seat: int


@dataclass(frozen=True, slots=True)
class Timeout:
    """Sent by the host when the seat's move timer ran out (the core has no clock)."""

    seat: int


Action = DrawStock | DrawDiscard | LayDown | LayOff | RecoverJoker | Discard | Knock | Timeout

ACTION_KINDS: dict[str, type] = {
    "draw_stock": DrawStock,
    "draw_discard": DrawDiscard,
    "lay_down": LayDown,
    "lay_off": LayOff,
    "recover_joker": RecoverJoker,
    "discard": Discard,
    "knock": Knock,
    "timeout": Timeout,
}
KIND_OF: dict[type, str] = {v: k for k, v in ACTION_KINDS.items()}
