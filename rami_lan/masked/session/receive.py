"""A masked-deck participant's handling of received messages: each kind of message
checked against the protocol and the commitments, its cards learnt, its faults recorded.
"""

from __future__ import annotations

from rami_lan.masked.audit import Fault, FaultKind, ReceivedKey
from rami_lan.masked.deck import initial_points, key_commitment
from rami_lan.masked.messages import (
    AuditPublication,
    CardReveal,
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
from rami_lan.masked.session.deck_state import _Deck
from rami_lan.masked.session.queries import Queries
from rami_lan.masked.session.results import (
    CardPublic,
    CardReceived,
    MaskedProtocolError,
    Outgoing,
    Phase,
    Result,
)


class Receiving(Queries):
    """The received messages, on top of the queries (`Queries`)."""

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
