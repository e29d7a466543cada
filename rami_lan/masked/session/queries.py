"""What a masked-deck participant tells its table machine without changing its state (its
signing and receipts, the cards it knows, what is pending, key debts, missing audits, a
relayed key's check), on top of its state (`ParticipantBase`).
"""

from __future__ import annotations

from rami_lan.masked.audit import Fault, FaultKind, ReceivedKey
from rami_lan.masked.deck import key_commitment
from rami_lan.masked.messages import AuditPublication, KeyRelease, Protest
from rami_lan.masked.session.base import ParticipantBase
from rami_lan.masked.session.results import MaskedProtocolError, MaskedStateError, Phase, Result
from rami_lan.masked.signing import Receipt, Signing


class Queries(ParticipantBase):
    """Receipts and the views of a participant's state."""

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
