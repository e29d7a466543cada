"""What a seat's verifier is fed: the table's facts and every message the seat received or sent.

Plain frozen records, one per kind of input (`Input` is their union), and
`audited_refills`, the refills a private round's audited masked decks give.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rami_lan.core import actions as A
from rami_lan.core import events as E
from rami_lan.core.cards import Card
from rami_lan.table.verify_spec import DEDICATED_HOST_SEAT

__all__ = [
    "OBSERVER",
    "ActionSent",
    "CommitAsked",
    "CommitSent",
    "CommitmentsSeen",
    "Disconnected",
    "EventsSeen",
    "Input",
    "MaskedOrders",
    "MaskedRefused",
    "MaskedRoundSeen",
    "SeatBenched",
    "Refused",
    "RevealSent",
    "SecretsSeen",
    "StreamEnded",
    "TableFacts",
    "ViewSeen",
    "audited_refills",
]

#: Seat of an observer that sees every card (offline record checks).
OBSERVER = -1


# --------------------------------------------------------------------------- inputs


@dataclass(frozen=True, slots=True)
class TableFacts:
    """What the table announced when we joined (the same for every seat)."""

    table_id: bytes
    match_no: int
    variant: str
    n_seats: int
    seat: int
    host_seat: int = DEDICATED_HOST_SEAT
    limit: int | None = None
    quick: bool = False
    knock: bool = False
    rejoin: bool = False
    """We came back with a token (a new process): the match may be in progress."""


@dataclass(frozen=True, slots=True)
class CommitAsked:
    """Received ``commit_request``: the host asks ``seat`` to commit for ``tag``."""

    tag: bytes
    seat: int


@dataclass(frozen=True, slots=True)
class CommitSent:
    """We sent ``commit`` for ``tag``; ``secret`` is the one it commits to (ours)."""

    tag: bytes
    commit: bytes
    secret: bytes


@dataclass(frozen=True, slots=True)
class CommitmentsSeen:
    """Received ``commitments``; ``excluded`` (seat -> reason) announces exclusions."""

    tag: bytes
    commits: Mapping[int, bytes]
    excluded: Mapping[int, str] | None = None


@dataclass(frozen=True, slots=True)
class RevealSent:
    """We sent our secret for ``tag``."""

    tag: bytes
    secret: bytes


@dataclass(frozen=True, slots=True)
class EventsSeen:
    """Received ``events`` (already decoded, redacted for our seat) numbered ``seq``."""

    seq: int | None
    events: tuple[E.Event, ...]


@dataclass(frozen=True, slots=True)
class ViewSeen:
    """Received a view numbered ``seq``, showing round ``round_no`` in ``phase``.

    Only the first view matters beyond its number: a seat that joins a match already in
    progress (a new process with its token) learns the round from it.
    """

    seq: int | None
    round_no: int | None = None
    phase: str | None = None


@dataclass(frozen=True, slots=True)
class ActionSent:
    """We sent ``action`` as our action number ``seq``."""

    seq: int
    action: A.Action


@dataclass(frozen=True, slots=True)
class Refused:
    """Received an error about our action ``ref`` (``code`` "illegal" = a ruling)."""

    ref: int | None
    code: str
    message: str = ""


@dataclass(frozen=True, slots=True)
class SecretsSeen:
    """Received ``round_secrets``: the secrets used, the excluded seats and why."""

    tag: bytes
    secrets: Mapping[int, bytes]
    excluded: tuple[int, ...] = ()
    reasons: Mapping[int, str] | None = None


@dataclass(frozen=True, slots=True)
class Disconnected:
    """Our connection dropped: what the host sent meanwhile is lost."""


@dataclass(frozen=True, slots=True)
class StreamEnded:
    """The session is over: nothing more will come."""


@dataclass(frozen=True, slots=True)
class MaskedRoundSeen:
    """Private dealing: round ``tag`` is dealt from a masked deck (``mk_round`` came):
    its replay waits for the audited deck orders (`MaskedOrders`). ``stand_in``: it came as
    ``mk_own`` (our seat's keys are the host's). At any seat but the host's own that makes
    it a stand-in round: the host's bot plays our seat (it left the private deal, or was
    away when the round was dealt), our own actions are refused and the moves made for
    our seat are the bot's."""

    tag: bytes
    stand_in: bool = False


@dataclass(frozen=True, slots=True)
class SeatBenched:
    """The host said our seat left the private deal (``private_deal_benched``): from the
    next round its bot plays our seat, in a masked round (``mk_own``) or in a round with
    no other key holder left (dealt from the seed). Those rounds are stand-in rounds."""


@dataclass(frozen=True, slots=True)
class MaskedOrders:
    """Private dealing: our audit of round ``tag``'s masked decks is complete.

    ``orders``: masked deck -> its card ids in stock order (0: the round's deck);
    ``gen_decks``: stock generation -> its masked deck (None: turned over, public);
    ``faults``: the audit's findings ("KIND by seat N: evidence"), empty when fair."""

    tag: bytes
    orders: Mapping[int, tuple[int, ...]]
    gen_decks: Mapping[int, int | None]
    faults: tuple[str, ...] = ()

    @classmethod
    def from_report(cls, tag: bytes, report: Any, gen_decks: Mapping[int, int | None]) -> MaskedOrders:
        """From an audit report (`rami_lan.masked.audit.AuditReport`): its orders and its
        faults as text."""
        faults = tuple(f"{f.kind.name} by seat {f.seat}: {f.evidence}" for f in report.faults)
        return cls(tag, dict(report.orders), dict(gen_decks), faults)


@dataclass(frozen=True, slots=True)
class MaskedRefused:
    """Private dealing: our seat refused a host message of round ``tag`` (``kind``, why:
    ``reason``): it asked for a key, a reveal or an audit the rules do not give away
    now, or did not fit what we saw. Nothing was given; the round fails naming the host."""

    tag: bytes | None
    kind: str
    reason: str


def audited_refills(cards: Sequence[Card], orders: Mapping[int, Sequence[int]],
                    gen_decks: Mapping[int, int | None]) -> tuple[tuple[Card, ...], ...]:
    """Each refill's order (stock generations 1, 2, ...) from a round's audited masked
    decks, for `start_round`'s ``refills`` (a turned-over generation: empty)."""
    out: list[tuple[Card, ...]] = []
    for gen in range(1, max(gen_decks, default=0) + 1):
        deck = gen_decks.get(gen)
        out.append(tuple(cards[i] for i in orders.get(deck, ())) if deck is not None else ())
    return tuple(out)


Input = (
    CommitAsked | CommitSent | CommitmentsSeen | RevealSent | EventsSeen | ViewSeen
    | ActionSent | Refused | SecretsSeen | Disconnected | StreamEnded | MaskedOrders
    | MaskedRoundSeen | MaskedRefused | SeatBenched
)
