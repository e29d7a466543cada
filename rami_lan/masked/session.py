"""One participant of the masked deck: a sans-I/O state machine with explicit phases.

Theory of operation
-------------------
A :class:`Participant` is one machine at the table (the host or a client). It knows
nothing of sockets or clocks: the table machine feeds it local decisions
(:meth:`~Participant.start_deck`, :meth:`~Participant.assign`, :meth:`~Participant.reveal`,
:meth:`~Participant.hand_over`, :meth:`~Participant.publish_audit`) and received
messages (:meth:`~Participant.receive`); each call returns a :class:`Result`: messages
to send (:class:`Outgoing`, ``to=None`` meaning every other participant) and events
(:class:`DeckReady`, :class:`CardReceived`, :class:`CardPublic`, :class:`FaultFound`,
:class:`AuditComplete`).

Phases: ``IDLE -> SHUFFLING -> PLAYING (-> SHUFFLING -> PLAYING for a reshuffle)
-> AUDITING -> COMPLETE``, or ``PLAYING -> LEFT`` after a hand-over. A call in the wrong
phase raises :class:`MaskedStateError`; a received message that does not fit the
protocol (wrong turn, unknown deck, a position not assigned to us) raises
:class:`MaskedProtocolError`. Both leave the state unchanged. Evidence of cheating
(a wrong key, a skipped step, a card that is not a card) is not an exception: the
offending data is not used, a :class:`~rami_lan.masked.audit.Fault` is recorded and
returned as a :class:`FaultFound` event, and the table machine decides (void the round).

Assignments are public: every participant calls :meth:`~Participant.assign` for every
position that leaves the stock (deal, draw, a card turned up) in the same order, from
the public game events. A position assigned to a seat that is not a participant (a bot)
goes to the relay (the host), which holds that seat. A key message for a position must
arrive after its assignment: the host sends the public draw event before relaying keys.

The whole state is plain data: :meth:`~Participant.snapshot` /
:meth:`Participant.restore` journal it on the participant's own machine.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from rami_lan.masked.audit import (
    AuditReport,
    DeckRecord,
    Fault,
    FaultKind,
    PartialSecrets,
    ReceivedKey,
    ViewRecord,
    audit_view,
)
from rami_lan.masked.deck import (
    ShuffleSecrets,
    check_tag,
    deck_problems,
    initial_points,
    key_commitment,
    lock_step,
    mask_step,
    unmask,
)
from rami_lan.masked.group import GroupError, Randomness, card_table, is_point
from rami_lan.masked.messages import (
    AuditPublication,
    CardReveal,
    DeckSecretsRecord,
    HandGift,
    Handover,
    KeyRelease,
    LockPass,
    MaskedMessage,
    MaskPass,
    Protest,
    SentRecord,
    from_plain,
)
from rami_lan.masked.signing import Receipt, Signing

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
    "Participant",
    "Phase",
    "Result",
]

SNAPSHOT_VERSION = 1
_RECYCLED = -1


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


class _Deck:
    """Mutable per-deck state (internal)."""

    def __init__(
        self, deck: int, order: tuple[int, ...], card_ids: tuple[int, ...], secrets: ShuffleSecrets
    ) -> None:
        self.deck = deck
        self.order = order
        self.card_ids = card_ids
        self.secrets = secrets
        self.masks: list[tuple[bytes, ...]] = []
        self.locks: list[tuple[bytes, ...]] = []
        self.commitments: list[tuple[bytes, ...]] = []
        #: position -> assigned seat (None: public) and -> the participant receiving it.
        self.assigned: dict[int, int | None] = {}
        self.recipients: dict[int, int | None] = {}
        #: position -> {seat: key} for positions we receive or that are public.
        self.keys: dict[int, dict[int, bytes]] = {}
        #: position -> {leaver seat: key}
        self.handed: dict[int, dict[int, bytes]] = {}
        self.cards: dict[int, int] = {}
        self.public: set[int] = set()
        #: leaver seat -> (round key, permutation) from its hand-over.
        self.left_secrets: dict[int, tuple[bytes, tuple[int, ...]]] = {}
        #: (the relay) positions of a leaver's hand it was given: the relay holds them now.
        self.given: set[int] = set()

    @property
    def n(self) -> int:
        return len(self.card_ids)

    @property
    def ready(self) -> bool:
        return len(self.locks) == len(self.order)

    def commitment_of(self, seat: int, position: int) -> bytes:
        return self.commitments[self.order.index(seat)][position]

    def record(self) -> DeckRecord:
        return DeckRecord(
            self.deck,
            self.order,
            self.card_ids,
            tuple(self.masks),
            tuple(self.locks),
            tuple(self.commitments),
        )


class Participant:
    """One participant's side of the masked deck (see the module docstring)."""

    def __init__(self, tag: bytes, seat: int, relay: int, n_cards: int, randomness: Randomness) -> None:
        self.tag = check_tag(tag)
        if not 0 <= seat <= 255 or not 0 <= relay <= 255:
            raise MaskedStateError("seats are 0 .. 255")
        self.seat = seat
        self.relay = relay
        self.table = card_table(n_cards)
        self._randomness = randomness
        self._phase = Phase.IDLE
        self._decks: list[_Deck] = []
        self._where: dict[int, tuple[int, int]] = {}
        self._left: set[int] = set()
        self._sent: list[SentRecord] = []
        self._received: set[ReceivedKey] = set()
        self._audits: dict[int, AuditPublication] = {}
        self._faults: list[Fault] = []
        self._report: AuditReport | None = None
        self._next_n: dict[int, int] = {}
        """Per channel (-1: everyone, else the one recipient): the sequence number of the
        next message we send on it (every message is stamped)."""
        self._last_n: dict[tuple[int, int], int] = {}
        """Per (author, channel): the highest sequence number taken (see `MaskedMessage`)."""
        self.signing: Signing | None = None
        """The round's roster and our key (`sign_with`): None, nothing is signed or checked."""
        self._stamps: dict[tuple[str, int, int, int | None], tuple[int, int, bytes]] = {}
        """(kind, deck, position, to) of each key message we sent -> (channel, number, digest)."""
        self._receipts: dict[tuple[int, int], Receipt] = {}
        """(channel, number) -> the host's receipt for that message of ours."""

    def sign_with(self, signing: Signing) -> None:
        """Sign every message we send with ``signing``'s key, and take a message from
        another participant only with its author's valid signature under the round's
        roster (`rami_lan.masked.signing`). The relay (the host) checks the signatures of
        what it receives itself, before it feeds us (`MaskedRound.receive`)."""
        self.signing = signing

    def take_receipt(self, receipt: Receipt) -> bool:
        """The host's receipt for a message we sent: kept (True) if the host signed it and
        it names that message exactly; anything else is ignored (False)."""
        sg = self.signing
        if sg is None or receipt.author != self.seat or not sg.receipt_valid(receipt):
            return False
        stamp = self._stamps.get((receipt.kind, receipt.deck, receipt.position, receipt.to))
        if stamp is None or stamp != (receipt.channel, receipt.n, receipt.digest):
            return False
        self._receipts[(receipt.channel, receipt.n)] = receipt
        return True

    def unreceipted(self) -> list[tuple[str, int, int, int | None]]:
        """(kind, deck, position, to) of each message we signed and sent that the host
        has not receipted (yet)."""
        return [k for k, stamp in sorted(self._stamps.items(), key=repr) if stamp[:2] not in self._receipts]

    def receipt_for(self, kind: str, deck: int, position: int, to: int | None) -> Receipt | None:
        """The host's receipt for a message we sent (a key message, or a shuffle step with
        position -1 and ``to`` None; None: none came)."""
        stamp = self._stamps.get((kind, deck, position, to))
        return None if stamp is None else self._receipts.get(stamp[:2])

    # ------------------------------------------------------------------ views

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def faults(self) -> tuple[Fault, ...]:
        return tuple(self._faults)

    @property
    def report(self) -> AuditReport | None:
        return self._report

    @property
    def participants(self) -> frozenset[int]:
        return frozenset(s for d in self._decks for s in d.order)

    @property
    def present(self) -> frozenset[int]:
        """Participants that have not left (a new deck's shufflers)."""
        return self.participants - self._left

    def card_at(self, deck: int, position: int) -> int | None:
        """The card at a position if we know it (ours, a bot's we hold, or public)."""
        return self._deck(deck).cards.get(position)

    def recipients(self) -> tuple[tuple[int, int, int | None], ...]:
        """(deck, position, recipient) of every assigned position."""
        return tuple((d.deck, j, r) for d in self._decks for j, r in sorted(d.recipients.items()))

    def is_public(self, card_id: int) -> bool:
        """Whether card ``card_id`` was made public to us (so it may be re-masked)."""
        return self._is_public(card_id)

    def card_positions(self, deck: int) -> frozenset[int]:
        """Positions of ``deck`` whose card we know."""
        return frozenset(self._deck(deck).cards)

    def pending(self) -> tuple[tuple[int, int], ...]:
        """(deck, position) we are to learn but still lack keys for (for timeouts)."""
        out = []
        for d in self._decks:
            for j, recipient in d.recipients.items():
                if recipient in (self.seat, None) and j not in d.cards:
                    out.append((d.deck, j))
        return tuple(out)

    def shuffle_turn(self) -> tuple[int, int, str] | None:
        """(deck, seat, "mask" or "lock"): whose step the shuffle in progress waits for
        (None: no shuffle waits)."""
        if self._phase is not Phase.SHUFFLING or not self._decks or self._decks[-1].ready:
            return None
        d = self._decks[-1]
        if len(d.masks) < len(d.order):
            return (d.deck, d.order[len(d.masks)], "mask")
        return (d.deck, d.order[len(d.locks)], "lock")

    def key_debts(self) -> tuple[tuple[int, int, int | None, int, bool | None], ...]:
        """Every key release the round owes now: (deck, position, holder, sender, in),
        for each assigned position not yet public and each participant still at the table
        but its holder. ``in``: whether it reached us (None: it is for another seat, so
        only the relay's own log can tell)."""
        out: list[tuple[int, int, int | None, int, bool | None]] = []
        for d in self._decks:
            if not d.ready:
                continue
            for j in sorted(d.recipients):
                if j in d.public:
                    continue
                holder = self._holder(d, j)
                ours = holder in (self.seat, None)
                if ours and j in d.cards:
                    continue
                have = {**d.handed.get(j, {}), **d.keys.get(j, {})}
                for s in d.order:
                    if s == holder or s in self._left:
                        continue
                    out.append((d.deck, j, holder, s, (s in have) if ours else None))
        return tuple(out)

    def received_log(self) -> frozenset[ReceivedKey]:
        """Every key message (release, reveal, gift) that reached us, by its sender."""
        return frozenset(self._received)

    def protest(self) -> Result:
        """A void names us although the host receipted what we sent: our `Protest` (the
        host's receipts, none of our secrets), to everyone. Nothing else leaves after it."""
        if self._phase not in (Phase.PLAYING, Phase.SHUFFLING):
            raise MaskedStateError(f"can not protest in phase {self._phase.value}")
        receipts = tuple(r for _k, r in sorted(self._receipts.items()))
        self._phase = Phase.LEFT  # (nothing of this round is given any more)
        return Result((self._outgoing(None, Protest(self.seat, receipts)),))

    def _audit_receipts(self) -> tuple[Receipt, ...]:
        """The host's receipts our audit lists: of what went to another seat or everyone
        (what its recipients may find missing: `audit._check_delivery`), never of steps or
        keys for the relay, and of a key release only while its position is not public (a
        card its holder revealed, or showed at the round's end, had every key it needed:
        nothing of it can be in dispute). So a round that ends as usual lists its reveals'
        receipts only, and a recorded audit stays small."""
        out = []
        for s in self._sent:
            if s.to == self.relay or (s.kind == KeyRelease.KIND and s.position in self._decks[s.deck].public):
                continue
            r = self.receipt_for(s.kind, s.deck, s.position, s.to)
            if r is not None:
                out.append(r)
        return tuple(out)

    def audit_of(self, seat: int) -> AuditPublication | None:
        """``seat``'s audit publication of this round, if it came."""
        return self._audits.get(seat)

    def missing_audits(self) -> frozenset[int]:
        """Participants whose audit publication has not come (in the audit phase)."""
        if self._phase is not Phase.AUDITING:
            return frozenset()
        return frozenset(self.participants - self._left - set(self._audits))

    def check_relayed_key(self, msg: KeyRelease) -> Fault | None:
        """The relay, before it passes on a key meant for another seat: it must fit the
        protocol (raises `MaskedProtocolError`) and match its sender's commitment (else
        the fault, and the key goes nowhere). The relay's state does not change."""
        d = self._ready_deck_remote(msg.deck)
        if msg.seat not in d.order or msg.seat in self._left:
            raise MaskedProtocolError(f"seat {msg.seat} holds no key of deck {msg.deck}")
        if msg.position not in d.recipients or msg.position in d.public:
            raise MaskedProtocolError(f"position {msg.position} of deck {msg.deck} is not waiting for keys")
        if msg.to != self._holder(d, msg.position) or msg.to == msg.seat:
            raise MaskedProtocolError(f"position {msg.position} of deck {msg.deck} is not for seat {msg.to}")
        self._check_stamp(msg)
        if key_commitment(self.tag, msg.deck, msg.seat, msg.position, msg.key) != d.commitment_of(
                msg.seat, msg.position):
            return Fault(FaultKind.WRONG_KEY, msg.seat, msg.deck,
                         f"seat {msg.seat} released key {msg.key.hex()} for position {msg.position} of deck "
                         f"{msg.deck} to seat {msg.to}; it does not match the commitment of its lock pass",
                         (msg.position,))
        self._took(msg)  # (its sender's sequence number: the relay sees all it sends)
        return None

    # ------------------------------------------------------------------ local calls

    def start_deck(self, deck: int, card_ids: Sequence[int], order: Sequence[int]) -> Result:
        """Begin the shuffle of deck ``deck`` (0: the round's deck, r: the r-th reshuffle).

        ``card_ids`` are the public ids (for a reshuffle: the pile going back, bottom to
        top, each of which must be public to us); ``order`` the participants in seat
        order. Draws our secrets and, if we are first, returns our mask pass.
        """
        ids, seats = tuple(card_ids), tuple(order)
        if self._phase not in (Phase.IDLE, Phase.PLAYING):
            raise MaskedStateError(f"can not start a deck in phase {self._phase.value}")
        if deck != len(self._decks):
            raise MaskedStateError(f"the next deck is {len(self._decks)}, not {deck}")
        if self.seat not in seats or len(set(seats)) != len(seats) or any(not 0 <= s <= 255 for s in seats):
            raise MaskedStateError(f"order {seats} must list distinct seats, ours ({self.seat}) included")
        if seats != tuple(sorted(seats)) or self._left & set(seats):
            raise MaskedStateError(f"order {seats} must be the present participants in ascending seat order")
        if not ids or len(set(ids)) != len(ids) or any(not 0 <= c < self.table.n_cards for c in ids):
            raise MaskedStateError("card ids must be distinct ids of the deck")
        if deck == 0 and sorted(ids) != list(range(self.table.n_cards)):
            raise MaskedStateError("the round's deck holds every card id once")
        if deck > 0:
            hidden = [c for c in ids if not self._is_public(c)]
            if hidden:
                raise MaskedStateError(f"cards {hidden[:8]} are not public: only public piles are re-masked")
        secrets = ShuffleSecrets.generate(self._randomness, len(ids))
        state = _Deck(deck, seats, ids, secrets)
        self._decks.append(state)
        for c in ids:
            if deck > 0:
                self._where[c] = (deck, _RECYCLED)
        self._phase = Phase.SHUFFLING
        return self._advance(state)

    def assign(self, deck: int, position: int, seat: int | None) -> Result:
        """Position ``position`` leaves the stock for ``seat`` (None: turned up for all).

        Every participant calls this for every such public event. Others' keys go to
        the recipient; our own key is released unless the position is ours.
        """
        self._require(Phase.PLAYING, "assign a position")
        d = self._ready_deck(deck)
        if not 0 <= position < d.n:
            raise MaskedStateError(f"deck {deck} has no position {position}")
        if position in d.assigned:
            raise MaskedStateError(f"position {position} of deck {deck} was already assigned")
        if seat is not None and not 0 <= seat <= 255:
            raise MaskedStateError(f"no seat {seat}")
        recipient = self._recipient(d, seat)
        d.assigned[position] = seat
        d.recipients[position] = recipient
        out: list[Outgoing] = []
        if recipient != self.seat:
            key = self._release_key(d, position)
            out.append(self._outgoing(recipient, KeyRelease(deck, self.seat, recipient, position, key)))
            self._sent.append(SentRecord(KeyRelease.KIND, deck, position, recipient))
        if recipient in (self.seat, None):
            d.keys.setdefault(position, {})[self.seat] = d.secrets.position_keys[position]
        return Result(tuple(out)) + self._try_unmask(d, position)

    def reveal(self, deck: int, position: int) -> Result:
        """Make a card we hold (or a bot seat we hold holds) public: publish all its keys."""
        self._require(Phase.PLAYING, "reveal a card")
        d = self._ready_deck(deck)
        if self._holder(d, position) != self.seat or position not in d.cards:
            raise MaskedStateError(f"position {position} of deck {deck} is not a card we hold")
        if position in d.public:
            raise MaskedStateError(f"position {position} of deck {deck} is already public")
        keys = self._reveal_keys(d, position)
        message = CardReveal(deck, self.seat, position, keys)
        d.public.add(position)
        self._sent.append(SentRecord(CardReveal.KIND, deck, position, None))
        event = CardPublic(deck, position, d.assigned[position], d.cards[position])
        return Result((self._outgoing(None, message),), (event,))

    def hand_over(self) -> Result:
        """Leave for good: give the relay every card of our hand (all its keys, to the relay
        only: the host plays our seat from now on), then publish our keys for every stock
        position (never for another hand) with our round keys and permutations.

        Raises :class:`MaskedStateError` while a card of our hand is still on its way (its
        keys are not all in): then it can not be given.
        """
        self._require(Phase.PLAYING, "hand over")
        gifts: list[Outgoing] = []
        for d in self._decks:
            for j, recipient in sorted(d.recipients.items()):
                if recipient != self.seat or j in d.public or self.seat == self.relay:
                    continue
                if j not in d.cards:
                    raise MaskedStateError(f"position {j} of deck {d.deck} is still on its way to us")
                gift = HandGift(d.deck, self.seat, j, self._reveal_keys(d, j))
                gifts.append(self._outgoing(self.relay, gift))
                self._sent.append(SentRecord(HandGift.KIND, d.deck, j, self.relay))
        entries = tuple(
            (d.deck, j, d.secrets.position_keys[j])
            for d in self._decks
            if self.seat in d.order
            for j in range(d.n)
            if j not in d.assigned
        )
        decks = tuple((d.deck, d.secrets.round_key, d.secrets.permutation) for d in self._decks)
        self._phase = Phase.LEFT
        return Result((*gifts, self._outgoing(None, Handover(self.seat, entries, decks))))

    def publish_audit(self) -> Result:
        """Round end (or a round voided mid-shuffle): publish our secrets and what we sent."""
        if self._phase not in (Phase.PLAYING, Phase.SHUFFLING):
            raise MaskedStateError(f"can not publish the audit in phase {self._phase.value}")
        pub = AuditPublication(
            self.seat,
            tuple(
                DeckSecretsRecord(d.deck, d.secrets.round_key, d.secrets.permutation, d.secrets.position_keys)
                for d in self._decks
            ),
            tuple(self._sent),
            self.tag,
            receipts=self._audit_receipts(),
        )
        self._audits[self.seat] = pub
        self._phase = Phase.AUDITING
        return Result((self._outgoing(None, pub),)) + self._maybe_finish_audit(force=False)

    def close_audit(self) -> Result:
        """Audit timeout: audit now, naming every participant whose publication is missing."""
        self._require(Phase.AUDITING, "close the audit")
        return self._maybe_finish_audit(force=True)

    # ------------------------------------------------------------------ received messages

    def receive_plain(self, plain: object) -> Result:
        """Parse a received plain form strictly (``MessageError``), then :meth:`receive`.

        The relay checks every point of a shuffle output (it refuses a bad one before
        relaying it); everyone else checks their shape here and their group membership
        where it multiplies them (libsodium refuses a bad point; see :meth:`_bad_point`).
        """
        return self.receive(from_plain(plain, check_points=self.seat == self.relay))

    def receive(self, message: MaskedMessage) -> Result:
        """Handle a message relayed to us. Refusals raise and change nothing."""
        if self._phase in (Phase.LEFT, Phase.COMPLETE, Phase.IDLE):
            raise MaskedProtocolError(f"no masked-deck message expected in phase {self._phase.value}")
        if message.seat == self.seat:
            raise MaskedProtocolError("a message in our own name came back to us")
        sg = self.signing
        if sg is not None and self.seat != self.relay and not sg.valid(message.seat, message.to_plain()):
            raise MaskedProtocolError(
                f"seat {message.seat}'s {message.KIND} does not carry its signature under the key the "
                f"round's roster gives it: the relay (seat {self.relay}) forged or altered it")
        self._check_stamp(message)
        result = self._dispatch(message)
        self._took(message)
        return result

    def _dispatch(self, message: MaskedMessage) -> Result:
        match message:
            case MaskPass():
                return self._on_mask(message)
            case LockPass():
                return self._on_lock(message)
            case KeyRelease():
                return self._on_key(message)
            case CardReveal():
                return self._on_reveal(message)
            case HandGift():
                return self._on_gift(message)
            case Handover():
                return self._on_handover(message)
            case AuditPublication():
                return self._on_audit(message)
            case Protest():
                return Result()  # the table's to judge (`rami_lan.table.masked_seat`)
        raise MaskedProtocolError(f"not a masked-deck message: {type(message).__name__}")

    def _on_mask(self, msg: MaskPass) -> Result:
        d = self._shuffling_deck(msg.deck)
        step = len(d.masks)
        if step >= len(d.order) or d.order[step] != msg.seat:
            raise MaskedProtocolError(f"seat {msg.seat} does not mask deck {msg.deck} now")
        previous = d.masks[-1] if d.masks else initial_points(d.card_ids)
        fault = self._step_fault(msg.seat, d, msg.points, previous, "mask pass")
        if fault is not None:
            return self._fault(fault)
        d.masks.append(msg.points)
        return self._advance(d)

    def _on_lock(self, msg: LockPass) -> Result:
        d = self._shuffling_deck(msg.deck)
        step = len(d.locks)
        if len(d.masks) != len(d.order) or step >= len(d.order) or d.order[step] != msg.seat:
            raise MaskedProtocolError(f"seat {msg.seat} does not lock deck {msg.deck} now")
        previous = d.locks[-1] if d.locks else d.masks[-1]
        fault = self._step_fault(msg.seat, d, msg.points, previous, "lock pass")
        if fault is not None:
            return self._fault(fault)
        d.locks.append(msg.points)
        d.commitments.append(msg.commitments)
        return self._advance(d)

    def _on_key(self, msg: KeyRelease) -> Result:
        d = self._ready_deck_remote(msg.deck)
        if msg.seat not in d.order or msg.seat in self._left:
            raise MaskedProtocolError(f"seat {msg.seat} holds no key of deck {msg.deck}")
        if msg.position not in d.recipients:
            raise MaskedProtocolError(f"position {msg.position} of deck {msg.deck} is not assigned yet")
        recipient = self._holder(d, msg.position)
        if msg.to != recipient or recipient not in (self.seat, None):
            raise MaskedProtocolError(f"the key for position {msg.position} is not for us")
        if msg.seat in d.keys.get(msg.position, {}):
            raise MaskedProtocolError(f"seat {msg.seat} already sent its key for position {msg.position}")
        self._received.add(ReceivedKey(KeyRelease.KIND, msg.deck, msg.position, msg.seat))
        if key_commitment(self.tag, msg.deck, msg.seat, msg.position, msg.key) != d.commitment_of(
            msg.seat, msg.position
        ):
            return self._fault(
                Fault(
                    FaultKind.WRONG_KEY,
                    msg.seat,
                    msg.deck,
                    f"seat {msg.seat} released key {msg.key.hex()} for position {msg.position} of deck "
                    f"{msg.deck}; it does not match the commitment of its lock pass",
                    (msg.position,),
                )
            )
        d.keys.setdefault(msg.position, {})[msg.seat] = msg.key
        return self._try_unmask(d, msg.position)

    def _on_reveal(self, msg: CardReveal) -> Result:
        d = self._ready_deck_remote(msg.deck)
        j = msg.position
        if self._holder(d, j) != msg.seat:
            raise MaskedProtocolError(f"seat {msg.seat} does not hold position {j} of deck {msg.deck}")
        if j in d.public:
            raise MaskedProtocolError(f"position {j} of deck {msg.deck} is already public")
        keys, bad = self._take_keys(d, msg, "reveal")
        if bad:
            return self._fault(
                Fault(
                    FaultKind.BAD_REVEAL,
                    msg.seat,
                    msg.deck,
                    f"seat {msg.seat} revealed position {j} of deck {msg.deck} "
                    f"with wrong keys for seats {bad}",
                    (j,),
                )
            )
        # Every key matched its commitment: a bad card comes from the shuffle, not from
        # the revealer, and only the audit can say whose step it was.
        card, failed = self._take_card(d, j, keys)
        if card is None:
            return failed
        d.public.add(j)
        return Result(events=(CardPublic(msg.deck, j, d.assigned[j], card),))

    def _take_card(self, d: _Deck, j: int, keys: dict[int, bytes]) -> tuple[int | None, Result]:
        """Unmask position ``j`` with every participant's key and keep what it is: the
        card, or None and the fault (not a card, or a card seen elsewhere)."""
        card, fault = self._identify(d, j, [keys[s] for s in d.order], blame=None)
        if fault is not None:
            return None, self._fault(fault)
        assert card is not None
        d.keys[j] = keys
        self._learn(d, j, card)
        return card, Result()

    def _take_keys(
        self, d: _Deck, msg: CardReveal | HandGift, what: str
    ) -> tuple[dict[int, bytes], list[int]]:
        """A reveal's or gift's keys (one per participant, or refused), noted as received,
        and the seats whose key is wrong: ours not exactly ours, another's not matching
        its commitment."""
        keys = dict(msg.keys)
        if set(keys) != set(d.order):
            raise MaskedProtocolError(f"a {what} must carry the keys of seats {sorted(d.order)}")
        self._received.add(ReceivedKey(msg.KIND, msg.deck, msg.position, msg.seat))
        j = msg.position
        return keys, [
            s
            for s, key in sorted(keys.items())
            if (
                key != d.secrets.position_keys[j]
                if s == self.seat
                else key_commitment(self.tag, d.deck, s, j, key) != d.commitment_of(s, j)
            )
        ]

    def _on_gift(self, msg: HandGift) -> Result:
        """The relay takes a card of a leaving participant's hand (see :meth:`hand_over`)."""
        if self.seat != self.relay:
            raise MaskedProtocolError("only the relay takes a leaving participant's cards")
        d = self._ready_deck_remote(msg.deck)
        j = msg.position
        if msg.seat in self._left or d.recipients.get(j, -2) != msg.seat or j in d.public | d.given:
            raise MaskedProtocolError(f"seat {msg.seat} does not hold position {j} of deck {msg.deck}")
        keys, bad = self._take_keys(d, msg, "gift")
        if bad:
            return self._fault(
                Fault(
                    FaultKind.WRONG_KEY,
                    msg.seat,
                    msg.deck,
                    f"seat {msg.seat} gave position {j} of deck {msg.deck} with wrong keys for seats {bad}",
                    (j,),
                )
            )
        card, failed = self._take_card(d, j, keys)
        if card is None:
            return failed
        d.given.add(j)
        return Result(events=(CardReceived(msg.deck, j, msg.seat, card),))

    def _on_handover(self, msg: Handover) -> Result:
        # In AUDITING: it left as the round ended, before it saw the end (its hand was
        # shown); its hand-over stands for its audit publication.
        if self._phase not in (Phase.PLAYING, Phase.AUDITING):
            raise MaskedProtocolError(f"a hand-over can not be taken in phase {self._phase.value}")
        if msg.seat not in self.participants or msg.seat in self._left:
            raise MaskedProtocolError(f"seat {msg.seat} is not a participant that can leave")
        handed = {(deck, j) for deck, j, _key in msg.keys}
        if self.seat == self.relay:
            # A card of its hand it did not give must be one it had not seen yet (a draw
            # that crossed its leaving): then its key is among the "stock" keys.
            kept = [(d.deck, j) for d in self._decks for j, r in d.recipients.items()
                    if r == msg.seat and j not in d.public and j not in d.given and (d.deck, j) not in handed]
            if kept:
                raise MaskedProtocolError(
                    f"seat {msg.seat} leaves before giving the cards of its hand {kept[:8]}")
        for deck, j, _key in msg.keys:
            d = self._ready_deck_remote(deck)
            if msg.seat not in d.order or not 0 <= j < d.n or j in d.public or j in d.given:
                raise MaskedProtocolError(
                    f"a hand-over may only hold stock keys; position {j} of deck {deck} is not one"
                )
            # A position drawn since the leaver last looked: by another seat, its key is that
            # draw's release (everyone sees it; the card still needs the drawer's own key);
            # by the leaver, the relay now holds it and everyone releases its key there.
        wrong = [
            (deck, j)
            for deck, j, key in msg.keys
            if key_commitment(self.tag, deck, msg.seat, j, key)
            != self._decks[deck].commitment_of(msg.seat, j)
        ]
        if wrong:
            return self._fault(
                Fault(
                    FaultKind.WRONG_KEY,
                    msg.seat,
                    wrong[0][0],
                    f"seat {msg.seat} handed over wrong keys {wrong[:4]}",
                )
            )
        missing = [
            (d.deck, j)
            for d in self._decks
            if msg.seat in d.order
            for j in range(d.n)
            if j not in d.assigned and (d.deck, j) not in {(e[0], e[1]) for e in msg.keys}
        ]
        if missing:
            raise MaskedProtocolError(f"the hand-over lacks stock positions {missing[:8]}")
        shuffled = {d.deck: d.n for d in self._decks if msg.seat in d.order}
        if {deck: len(perm) for deck, _, perm in msg.decks} != shuffled:
            raise MaskedProtocolError("the hand-over must give a round key and permutation for each deck")
        for deck, j, key in msg.keys:
            self._decks[deck].handed.setdefault(j, {})[msg.seat] = key
        for deck, round_key, perm in msg.decks:
            self._decks[deck].left_secrets[msg.seat] = (round_key, perm)
        self._left.add(msg.seat)  # its hand is the relay's now (`_holder`)
        out: list[Outgoing] = []
        result = Result()
        for deck, j, _key in msg.keys:
            d = self._decks[deck]
            if d.recipients.get(j, -2) != msg.seat:
                if j in d.recipients:  # a draw of ours that waited for the leaver's key
                    result += self._try_unmask(d, j)
                continue
            # The leaver's own draw it never saw: the relay holds that card now.
            if self.seat == self.relay:
                d.keys.setdefault(j, {})[self.seat] = d.secrets.position_keys[j]
                result += self._try_unmask(d, j)
            elif self.seat in d.order:
                out.append(self._outgoing(self.relay, KeyRelease(deck, self.seat, self.relay, j,
                                                           self._release_key(d, j))))
                self._sent.append(SentRecord(KeyRelease.KIND, deck, j, self.relay))
        return Result(tuple(out)) + result + self._maybe_finish_audit(force=False)

    def _on_audit(self, msg: AuditPublication) -> Result:
        if self._phase not in (Phase.SHUFFLING, Phase.PLAYING, Phase.AUDITING):
            raise MaskedProtocolError(f"an audit publication can not be taken in phase {self._phase.value}")
        if msg.tag != self.tag:
            raise MaskedProtocolError(f"seat {msg.seat}'s audit is of another round ({msg.tag.hex()[:16]})")
        if msg.seat not in self.participants or msg.seat in self._audits:
            raise MaskedProtocolError(f"unexpected audit publication from seat {msg.seat}")
        self._audits[msg.seat] = msg
        return self._maybe_finish_audit(force=False)

    # ------------------------------------------------------------------ hooks (tests subclass them)

    def _make_mask(self, d: _Deck, previous: Sequence[bytes]) -> tuple[bytes, ...]:
        return mask_step(previous, d.secrets.round_key, d.secrets.permutation)

    def _make_lock(self, d: _Deck, previous: Sequence[bytes]) -> tuple[bytes, ...]:
        return lock_step(previous, d.secrets.round_key, d.secrets.position_keys)

    def _release_key(self, d: _Deck, position: int) -> bytes:
        return d.secrets.position_keys[position]

    def _reveal_keys(self, d: _Deck, position: int) -> tuple[tuple[int, bytes], ...]:
        return tuple(sorted({**d.handed.get(position, {}), **d.keys[position]}.items()))

    # ------------------------------------------------------------------ internals

    def renumber_from(self, base: int) -> None:
        """Number what we send from ``base`` on, on every channel (a relaunched process
        that can not know the numbers its dead predecessor used)."""
        self._n_base = base

    def _outgoing(self, to: int | None, message: MaskedMessage) -> Outgoing:
        """A message we send, stamped with our round's tag and our next sequence number."""
        channel = _channel(message, self.relay)
        n = self._next_n.get(channel, getattr(self, "_n_base", 0))
        self._next_n[channel] = n + 1
        stamped = replace(message, tag=self.tag, n=n)  # type: ignore[type-var]
        sg = self.signing
        if sg is not None and sg.key is not None:
            stamped = replace(stamped, sig=sg.sign(stamped.to_plain()))
            if isinstance(stamped, KeyRelease | CardReveal | HandGift | MaskPass | LockPass):
                key_to = stamped.to if isinstance(stamped, KeyRelease) else (
                    self.relay if isinstance(stamped, HandGift) else None)
                position = stamped.position if isinstance(stamped, KeyRelease | CardReveal | HandGift) else -1
                self._stamps[(stamped.KIND, stamped.deck, position, key_to)] = (
                    channel, n, sg.message_digest(stamped.to_plain()))
        return Outgoing(to, stamped)

    def _check_stamp(self, msg: MaskedMessage) -> None:
        """Refuse a stamped message of another round, or one whose sequence number is not
        above the last we took from its author (late, or replayed). Unstamped forms (an
        older client) pass: they are checked as before."""
        if msg.tag and msg.tag != self.tag:
            raise MaskedProtocolError(f"seat {msg.seat}'s {msg.KIND} is of another round "
                                      f"({msg.tag.hex()[:16]})")
        last = self._last_n.get((msg.seat, _channel(msg, self.relay)), -1)
        if msg.n is not None and msg.n <= last:
            raise MaskedProtocolError(f"seat {msg.seat}'s {msg.KIND} number {msg.n} is not after its "
                                      f"last one ({last}): late or replayed")

    def _took(self, msg: MaskedMessage) -> None:
        if msg.n is not None:
            self._last_n[(msg.seat, _channel(msg, self.relay))] = msg.n

    def _advance(self, d: _Deck) -> Result:
        out: list[Outgoing] = []
        m = len(d.order)
        while len(d.masks) < m and d.order[len(d.masks)] == self.seat:
            previous = d.masks[-1] if d.masks else initial_points(d.card_ids)
            try:
                points = self._make_mask(d, previous)
            except GroupError:
                fault = self._bad_point(d, previous, len(d.masks) - 1, "mask")
                return Result(tuple(out)) + self._fault(fault)
            d.masks.append(points)
            out.append(self._outgoing(None, MaskPass(d.deck, self.seat, points)))
        while len(d.masks) == m and len(d.locks) < m and d.order[len(d.locks)] == self.seat:
            previous = d.locks[-1] if d.locks else d.masks[-1]
            try:
                points = self._make_lock(d, previous)
            except GroupError:
                what = "lock" if d.locks else "mask"
                author = len(d.locks) - 1 if d.locks else m - 1
                return Result(tuple(out)) + self._fault(self._bad_point(d, previous, author, what))
            commits = tuple(
                key_commitment(self.tag, d.deck, self.seat, j, k)
                for j, k in enumerate(d.secrets.position_keys)
            )
            d.locks.append(points)
            d.commitments.append(commits)
            out.append(self._outgoing(None, LockPass(d.deck, self.seat, points, commits)))
        events: tuple[Event, ...] = ()
        if d.ready:
            self._phase = Phase.PLAYING
            events = (DeckReady(d.deck),)
        return Result(tuple(out), events)

    def _step_fault(
        self, seat: int, d: _Deck, points: Sequence[bytes], previous: Sequence[bytes], what: str
    ) -> Fault | None:
        problems = deck_problems(points, previous)
        if not problems:
            return None
        skipped = any("skipped" in p for p in problems)
        kind = FaultKind.SKIPPED_STEP if skipped else FaultKind.DUPLICATE_POINT
        return Fault(kind, seat, d.deck, f"seat {seat}, {what} of deck {d.deck}: " + "; ".join(problems))

    def _bad_point(self, d: _Deck, previous: Sequence[bytes], step: int, what: str) -> Fault:
        """Our own step refused its input: name the author of ``previous`` (step index)."""
        bad = [j for j, p in enumerate(previous) if not is_point(p)]
        seat = d.order[step]
        return Fault(FaultKind.BAD_POINT, seat, d.deck,
                     f"seat {seat}, {what} pass of deck {d.deck}: {len(bad)} value(s) are not points "
                     f"of the group (positions {bad[:8]}); our own step refused them", tuple(bad))

    def _holder(self, d: _Deck, position: int) -> int | None:
        """Who holds a position now: its recipient, or the relay for a leaver's hand
        (-2: not assigned)."""
        recipient = d.recipients.get(position, -2)
        if recipient is not None and recipient in self._left:
            return self.relay
        return recipient

    def _recipient(self, d: _Deck, seat: int | None) -> int | None:
        if seat is None:
            return None
        if seat in d.order and seat not in self._left:
            return seat
        return self.relay

    def _try_unmask(self, d: _Deck, j: int) -> Result:
        recipient = self._holder(d, j)
        if recipient not in (self.seat, None) or j in d.cards:
            return Result()
        have = dict(d.keys.get(j, {}))
        have.update(d.handed.get(j, {}))
        if any(s not in have for s in d.order):
            return Result()
        card, fault = self._identify(d, j, [have[s] for s in d.order], blame=None)
        if fault is not None:
            return self._fault(fault)
        assert card is not None
        self._learn(d, j, card)
        seat = d.assigned[j]
        if recipient is None:
            d.public.add(j)
            return Result(events=(CardPublic(d.deck, j, None, card),))
        assert seat is not None
        return Result(events=(CardReceived(d.deck, j, seat, card),))

    def _identify(
        self, d: _Deck, j: int, keys: Sequence[bytes], blame: int | None
    ) -> tuple[int | None, Fault | None]:
        try:
            point = unmask(d.locks[-1][j], keys)
        except GroupError as exc:  # the final output is not a point: the audit names its author
            return None, Fault(FaultKind.NOT_A_CARD, blame, d.deck, str(exc), (j,))
        card = self.table.card_of(point)
        if card is None or card not in d.card_ids:
            return None, Fault(
                FaultKind.NOT_A_CARD,
                blame,
                d.deck,
                f"position {j} of deck {d.deck} unmasks to {point.hex()}, not a card of this deck "
                "(someone mis-masked or sent a wrong key: the audit names who)",
                (j,),
            )
        where = self._where.get(card)
        if where is not None and where not in ((d.deck, _RECYCLED), (d.deck, j)):
            return None, Fault(
                FaultKind.DUPLICATE_CARD,
                blame,
                d.deck,
                f"position {j} of deck {d.deck} unmasks to card {card}, already at position "
                f"{where[1]} of deck {where[0]}",
                (j,),
            )
        return card, None

    def _learn(self, d: _Deck, j: int, card: int) -> None:
        d.cards[j] = card
        self._where[card] = (d.deck, j)

    def _is_public(self, card: int) -> bool:
        where = self._where.get(card)
        return where is not None and where[1] != _RECYCLED and where[1] in self._decks[where[0]].public

    def _fault(self, fault: Fault) -> Result:
        self._faults.append(fault)
        return Result(events=(FaultFound(fault),))

    def _maybe_finish_audit(self, *, force: bool) -> Result:
        if self._phase is not Phase.AUDITING:
            return Result()
        waiting = self.participants - self._left - set(self._audits)
        if waiting and not force:
            return Result()
        self._report = audit_view(self._view(), self._audits, self._faults)
        self._phase = Phase.COMPLETE
        return Result(events=(AuditComplete(self._report),))

    def _view(self) -> ViewRecord:
        return ViewRecord(
            seat=self.seat,
            relay=self.relay,
            tag=self.tag,
            decks=tuple(d.record() for d in self._decks),
            recipients={(d.deck, j): r for d in self._decks for j, r in d.recipients.items()},
            cards_seen={(d.deck, j): c for d in self._decks for j, c in d.cards.items()},
            received=frozenset(self._received),
            left=frozenset(self._left),
            leavers={d.deck: self._leavers(d) for d in self._decks},
            receipt_ok=self.signing.receipt_valid if self.signing is not None else None,
        )

    def _leavers(self, d: _Deck) -> dict[int, PartialSecrets]:
        out = {}
        for seat, (round_key, perm) in d.left_secrets.items():
            keys = {j: k[seat] for j, k in d.handed.items() if seat in k}
            keys.update({j: k[seat] for j, k in d.keys.items() if seat in k})
            out[seat] = PartialSecrets(round_key, perm, keys)
        return out

    def _require(self, phase: Phase, action: str) -> None:
        if self._phase is not phase:
            raise MaskedStateError(f"can not {action} in phase {self._phase.value} (needs {phase.value})")

    def _deck(self, deck: int) -> _Deck:
        if not 0 <= deck < len(self._decks):
            raise MaskedStateError(f"no deck {deck}")
        return self._decks[deck]

    def _ready_deck(self, deck: int) -> _Deck:
        d = self._deck(deck)
        if not d.ready:
            raise MaskedStateError(f"deck {deck} is still being shuffled")
        return d

    def _ready_deck_remote(self, deck: int) -> _Deck:
        if not 0 <= deck < len(self._decks) or not self._decks[deck].ready:
            raise MaskedProtocolError(f"deck {deck} is not in play")
        return self._decks[deck]

    def _shuffling_deck(self, deck: int) -> _Deck:
        if self._phase is not Phase.SHUFFLING or deck != len(self._decks) - 1 or self._decks[deck].ready:
            raise MaskedProtocolError(f"deck {deck} is not being shuffled")
        return self._decks[deck]

    # ------------------------------------------------------------------ journal

    def snapshot(self) -> dict[str, Any]:
        """The whole state as plain data (msgpack-friendly, string map keys only)."""
        return {
            "v": SNAPSHOT_VERSION,
            "tag": self.tag,
            "seat": self.seat,
            "relay": self.relay,
            "n_cards": self.table.n_cards,
            "phase": self._phase.value,
            "decks": [_deck_plain(d) for d in self._decks],
            "where": [[c, d, j] for c, (d, j) in sorted(self._where.items())],
            "left": sorted(self._left),
            "sent": [s.to_plain() for s in self._sent],
            "received": sorted([r.kind, r.deck, r.position, r.sender] for r in self._received),
            "audits": [a.to_plain() for _, a in sorted(self._audits.items())],
            "faults": [f.to_plain() for f in self._faults],
            "next_n": _pairs(self._next_n),
            "last_n": sorted([a, c, n] for (a, c), n in self._last_n.items()),
        }

    @classmethod
    def restore(cls, plain: dict[str, Any], randomness: Randomness) -> Participant:
        """Rebuild a participant from :meth:`snapshot` (its own journal: trusted data)."""
        if plain.get("v") != SNAPSHOT_VERSION:
            raise ValueError(f"unknown masked-deck snapshot version {plain.get('v')!r}")
        p = cls(plain["tag"], plain["seat"], plain["relay"], plain["n_cards"], randomness)
        p._phase = Phase(plain["phase"])
        p._decks = [_deck_from_plain(d) for d in plain["decks"]]
        p._where = {c: (d, j) for c, d, j in plain["where"]}
        p._left = set(plain["left"])
        p._sent = [SentRecord.parse(s) for s in plain["sent"]]
        p._received = {ReceivedKey(k, d, j, s) for k, d, j, s in plain["received"]}
        audits = [AuditPublication.parse(a) for a in plain["audits"]]
        p._audits = {a.seat: a for a in audits}
        p._faults = [Fault.from_plain(f) for f in plain["faults"]]
        # (journal before sending: a restored participant that reused a number for another
        # message would be refused by every receiver as replaying)
        p._next_n = {int(c): int(n) for c, n in plain.get("next_n", [])}
        p._last_n = {(int(a), int(c)): int(n) for a, c, n in plain.get("last_n", [])}
        if p._phase is Phase.COMPLETE:
            p._report = audit_view(p._view(), p._audits, p._faults)
        return p


def _channel(msg: MaskedMessage, relay: int) -> int:
    """A message's channel for its sequence number: its one recipient (a key for one
    seat, a hand gift for the relay), else -1 (everyone). Order is kept per channel."""
    if isinstance(msg, KeyRelease) and msg.to is not None:
        return msg.to
    if isinstance(msg, HandGift):
        return relay
    return -1


def _pairs(mapping: dict[int, Any]) -> list[list[Any]]:
    return [[k, v] for k, v in sorted(mapping.items())]


def _deck_plain(d: _Deck) -> dict[str, Any]:
    s = d.secrets
    return {
        "deck": d.deck,
        "order": list(d.order),
        "cards": list(d.card_ids),
        "secrets": [s.round_key, list(s.permutation), list(s.position_keys)],
        "masks": [list(m) for m in d.masks],
        "locks": [list(m) for m in d.locks],
        "commits": [list(c) for c in d.commitments],
        "assigned": _pairs(d.assigned),
        "recipients": _pairs(d.recipients),
        "keys": [[j, _pairs(k)] for j, k in sorted(d.keys.items())],
        "handed": [[j, _pairs(k)] for j, k in sorted(d.handed.items())],
        "known": _pairs(d.cards),
        "public": sorted(d.public),
        "left": [[seat, key, list(perm)] for seat, (key, perm) in sorted(d.left_secrets.items())],
        "given": sorted(d.given),
    }


def _deck_from_plain(plain: dict[str, Any]) -> _Deck:
    key, perm, keys = plain["secrets"]
    d = _Deck(
        plain["deck"],
        tuple(plain["order"]),
        tuple(plain["cards"]),
        ShuffleSecrets(key, tuple(perm), tuple(keys)),
    )
    d.masks = [tuple(m) for m in plain["masks"]]
    d.locks = [tuple(m) for m in plain["locks"]]
    d.commitments = [tuple(c) for c in plain["commits"]]
    d.assigned = dict(_tuples(plain["assigned"]))
    d.recipients = dict(_tuples(plain["recipients"]))
    d.keys = {j: dict(_tuples(k)) for j, k in plain["keys"]}
    d.handed = {j: dict(_tuples(k)) for j, k in plain["handed"]}
    d.cards = dict(_tuples(plain["known"]))
    d.public = set(plain["public"])
    d.left_secrets = {seat: (key, tuple(perm)) for seat, key, perm in plain["left"]}
    d.given = set(plain.get("given", ()))
    return d


def _tuples(pairs: Iterable[list[Any]]) -> Iterable[tuple[Any, Any]]:
    return ((a, b) for a, b in pairs)
