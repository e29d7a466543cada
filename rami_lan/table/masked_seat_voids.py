"""How a client seat judges a void of a masked round that names a seat: what backs a
void naming another participant (`_void_backing`), whether we owed nothing when it
names us (`_owed_nothing`: the host's own signed receipts disprove it), and a named
seat's protest (``mk_protest``) showing the host's receipts for all it was said to owe.

Split out of `rami_lan.table.masked_seat`: `SeatVoids` is a mixin of
`rami_lan.table.masked_seat.MaskedSeat` (``self`` is the seat).
"""

from __future__ import annotations

from typing import Any

from rami_lan.masked import kinds as MK
from rami_lan.masked.messages import Protest
from rami_lan.table.masked_seat_errors import MaskedSeatError

__all__ = ["SeatVoids"]


class SeatVoids:
    """A void's checks at a seat (a mixin: ``self`` is the `MaskedSeat`)."""

    def _void_backing(self, culprit: int) -> list[tuple[int, int, int | None]] | None:
        """What backs a void naming ``culprit`` (another participant) that this seat can
        check: None if nothing it could owe is missing here (its shuffle step is not due,
        every key it owes us or everyone came, signed by it, it is not in turn, no hand is
        being shown): the host's word alone, refused. Else the keys it owed to other seats
        (deck, position, holder), which only its own audit's receipts can clear: [] when
        something it owed us is plainly missing."""
        p, gate = self.p, self.gate
        assert p is not None and gate is not None
        turn = p.shuffle_turn()
        if turn is not None and turn[1] == culprit:
            return []
        if gate.turn == culprit and gate.phase is not None or gate.shown is not None:
            return []
        unseen: list[tuple[int, int, int | None]] = []
        for deck, j, holder, sender, came in p.key_debts():
            if sender != culprit:
                continue
            if came is False:
                return []
            if came is None:
                unseen.append((deck, j, holder))
        return unseen or None

    def _owed_nothing(self) -> bool:
        """A void names us: did we owe nothing, and did the host receipt all we sent?"""
        p, gate = self.p, self.gate
        if p is None or gate is None or p.signing is None:
            return False
        turn = p.shuffle_turn()
        if turn is not None and turn[1] == self.seat:
            return False
        if gate.turn == self.seat and gate.phase is not None or self._mine and gate.shown is not None:
            return False
        return not p.unreceipted()

    def _on_protest(self, msg: Protest) -> list[dict[str, Any]]:
        """``mk_protest``: the seat a void named shows the host's receipts. If they cover
        every key it was said to owe other seats (all this seat could not see), the void
        was the host's lie, by its own signatures: the host is named. A protest that does
        not hold is its author's word alone: it names nobody."""
        p, claim = self.p, self._void_claim
        if p is None or p.signing is None or msg.tag != self.tag:
            return []  # (a late one, of a round over for us)
        plain = msg.to_plain()
        if not p.signing.valid(msg.seat, plain):
            raise MaskedSeatError(f"seat {msg.seat}'s mk_protest is not signed by it for this round")
        if claim is None or claim[0] != msg.seat or not claim[1]:
            return []
        ok = p.signing.receipt_valid
        for deck, j, holder in claim[1]:
            if not any(r.author == msg.seat and r.for_(MK.KEY, deck, j, holder)
                       and (holder in r.relayed or holder == self.host) and ok(r) for r in msg.receipts):
                return []
        self._void_claim = None
        self._refuse("events", f"a void naming seat {msg.seat}: it holds the host's signed receipts for "
                     "every key it was said to owe", plain)
        return []
