"""`Participant`: one machine's whole side of the masked deck: the local calls (start a
deck, assign, reveal, hand over, the audit) and the journal (`snapshot` / `restore`), on
top of the received messages (`Receiving`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rami_lan.masked.audit import Fault, ReceivedKey, audit_view
from rami_lan.masked.deck import ShuffleSecrets
from rami_lan.masked.group import Randomness
from rami_lan.masked.messages import (
    AuditPublication,
    CardReveal,
    DeckSecretsRecord,
    HandGift,
    Handover,
    KeyRelease,
    SentRecord,
)
from rami_lan.masked.session.deck_state import (
    _RECYCLED,
    SNAPSHOT_VERSION,
    _Deck,
    _deck_from_plain,
    _deck_plain,
    _pairs,
)
from rami_lan.masked.session.receive import Receiving
from rami_lan.masked.session.results import CardPublic, MaskedStateError, Outgoing, Phase, Result


class Participant(Receiving):
    """One participant's side of the masked deck (see the module docstring)."""

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
