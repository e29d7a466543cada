"""The state of one masked-deck participant and the internals every call shares: the
shuffle's steps, unmasking and identifying cards, message stamps and channels, faults,
the audit's view, and the hooks tests subclass (`ParticipantBase`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from rami_lan.masked.audit import (
    AuditReport,
    Fault,
    FaultKind,
    PartialSecrets,
    ReceivedKey,
    ViewRecord,
    audit_view,
)
from rami_lan.masked.deck import (
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
    HandGift,
    KeyRelease,
    LockPass,
    MaskedMessage,
    MaskPass,
    SentRecord,
)
from rami_lan.masked.session.deck_state import _RECYCLED, _Deck
from rami_lan.masked.session.results import (
    AuditComplete,
    CardPublic,
    CardReceived,
    DeckReady,
    Event,
    FaultFound,
    MaskedProtocolError,
    MaskedStateError,
    Outgoing,
    Phase,
    Result,
)
from rami_lan.masked.signing import Receipt, Signing


class ParticipantBase:
    """A participant's state and internals (`Participant` is the whole machine)."""

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



def _channel(msg: MaskedMessage, relay: int) -> int:
    """A message's channel for its sequence number: its one recipient (a key for one
    seat, a hand gift for the relay), else -1 (everyone). Order is kept per channel."""
    if isinstance(msg, KeyRelease) and msg.to is not None:
        return msg.to
    if isinstance(msg, HandGift):
        return relay
    return -1
