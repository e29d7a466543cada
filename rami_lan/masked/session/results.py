"""What a masked-deck participant's calls give back: the messages to send (`Outgoing`), the
events (`DeckReady`, `CardReceived`, `CardPublic`, `FaultFound`, `AuditComplete`) as one
`Result`; its `Phase`; and the two errors a call can raise.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rami_lan.masked.audit import AuditReport, Fault
from rami_lan.masked.messages import MaskedMessage

__all__ = [
    "AuditComplete",
    "CardPublic",
    "CardReceived",
    "DeckReady",
    "Event",
    "FaultFound",
    "MaskedProtocolError",
    "MaskedStateError",
    "Outgoing",
    "Phase",
    "Result",
]

class MaskedStateError(RuntimeError):
    """A local call came in the wrong phase or with impossible arguments (our bug)."""


class MaskedProtocolError(ValueError):
    """A received message does not fit the protocol now (the peer's or relay's mistake)."""


class Phase(StrEnum):
    IDLE = "idle"
    SHUFFLING = "shuffling"
    PLAYING = "playing"
    AUDITING = "auditing"
    COMPLETE = "complete"
    LEFT = "left"


@dataclass(frozen=True, slots=True)
class Outgoing:
    """A message to send: to one participant's seat, or to every other one (None)."""

    to: int | None
    message: MaskedMessage


@dataclass(frozen=True, slots=True)
class DeckReady:
    deck: int


@dataclass(frozen=True, slots=True)
class CardReceived:
    """A card assigned to ``seat`` (us, or a bot seat we hold) is now known to us."""

    deck: int
    position: int
    seat: int
    card_id: int


@dataclass(frozen=True, slots=True)
class CardPublic:
    """A position became public: ``card_id``; ``seat`` is its holder (None: turned up)."""

    deck: int
    position: int
    seat: int | None
    card_id: int


@dataclass(frozen=True, slots=True)
class FaultFound:
    fault: Fault


@dataclass(frozen=True, slots=True)
class AuditComplete:
    report: AuditReport


Event = DeckReady | CardReceived | CardPublic | FaultFound | AuditComplete


@dataclass(frozen=True, slots=True)
class Result:
    outgoing: tuple[Outgoing, ...] = ()
    events: tuple[Event, ...] = ()

    def __add__(self, other: Result) -> Result:
        return Result(self.outgoing + other.outgoing, self.events + other.events)
