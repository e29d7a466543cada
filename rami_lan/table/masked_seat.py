"""Private dealing at a client: this seat's participant of the masked deck.

Sans-I/O. The client session feeds a `MaskedSeat` every ``masked`` message from the host,
decoded once at the edge (`rami_lan.wire.masked_table.decode_for_seat`: a typed table or
masked-deck message, or an `Unparsed` with its reason; `on_masked`), every decoded public
event (`on_events`) and asks it, before sending an action, for the reveals that prove
the action's cards are ours (`reveals_for`). Each call returns the plain masked
messages to send to the host, in order.

The seat **derives** every assignment itself: the deal's layout (``mk_deal``) must be
the round-robin deal of the variant's hand size, and must match the public deal events;
each draw comes from the public ``StockDrawn`` event, each re-masked refill from the
public ``StockRefilled``. So a host can not make us release a key for a position the
public game did not give to the seat it names.

Our own hidden cards never come from the host (it does not know them): `fill_event`
and `fill_view` put them into the events and views the host sent, where it put nil
(``mk_hand`` says at which deck position each card of our hand lies). `complete` is False while a key for
one of our cards is still on its way: the session holds the update back until then.
At the round's end, the audit's card orders (`orders`) let the verifier replay the
round with the rules (`rami_lan.table.verifier`).
"""

from __future__ import annotations

import copy
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import msgpack

from rami_lan.core import actions as A
from rami_lan.core import events as E
from rami_lan.core.cards import Card, card_from_id, card_id
from rami_lan.core.codec import event_from_plain
from rami_lan.core.variants import Variant
from rami_lan.core.views import SeatView
from rami_lan.masked import kinds as MK
from rami_lan.masked.audit import AuditReport, Fault, FaultKind
from rami_lan.masked.group import card_table
from rami_lan.masked.messages import Protest
from rami_lan.masked.session import (
    AuditComplete,
    CardPublic,
    CardReceived,
    DeckReady,
    FaultFound,
    MaskedProtocolError,
    MaskedStateError,
    Participant,
    Phase,
    Result,
)
from rami_lan.masked.signing import Receipt, Roster, SeatKey, SignatureError, Signing
from rami_lan.table.masked_seat_errors import MaskedSeatError, Refusal
from rami_lan.table.masked_seat_hold import SeatHolding
from rami_lan.table.masked_seat_relaunch import SeatRelaunch, _Tape
from rami_lan.table.masked_seat_voids import SeatVoids
from rami_lan.table.seat_gate import PublicReplay
from rami_lan.table.seat_keys import MAX_RELAUNCHES, SeatKeys
from rami_lan.wire import masked_table as MT
from rami_lan.wire.masked_table import SeatMasked, Unparsed, kind_of, plain_of

_PLAY_KINDS = frozenset({MK.MASK, MK.LOCK, MK.KEY, MK.REVEAL, MK.GIVE, MK.HANDOVER})
"""The masked deck's messages of a round's shuffle and play (not its audit)."""

__all__ = ["MaskedSeat", "MaskedSeatError", "Refusal"]


RELAUNCH_SEQ_BASE = 1 << 24
"""Where a relaunched seat's masked messages are numbered from (`Participant.renumber_from`):
the k-th relaunch in a round numbers from k x this (the count is kept in the journal)."""


class _Lost(Exception):
    """(internal) A round we can not take part in, through no one's fault."""


class MaskedSeat(SeatHolding, SeatVoids, SeatRelaunch):
    """One client seat's side of private dealing, across the rounds of a match.

    Its jobs are split by module: holding updates back and filling in our cards
    (`rami_lan.table.masked_seat_hold`), a void's checks (`rami_lan.table.masked_seat_voids`)
    and the relaunch journal (`rami_lan.table.masked_seat_relaunch`) are mixins; the
    round, the deal, the assignments and the reveals are here."""

    def __init__(self, seat: int, variant: Variant, entropy: Callable[[int], bytes]) -> None:
        self.seat = seat
        self.variant = variant
        self.entropy = entropy
        self.p: Participant | None = None
        self.tag: bytes | None = None
        self.host: int | None = None
        self._cards = [card_from_id(i, variant.n_decks, variant.n_jokers) for i in range(variant.deck_size)]
        self._hand_pos: list[Any] | None = None
        self._gen_deck: dict[int, int | None] = {0: 0}
        self._n_decks = 0
        self._ready: set[int] = set()
        self._later: list[tuple[int, int, int | None]] = []
        self._layout: list[int | None] | None = None
        self._mine: dict[int, tuple[int, int]] = {}
        """Card id -> (deck, position) of each card we hold, not yet public."""
        self.faults: list[Fault] = []
        self.reports: dict[bytes, AuditReport] = {}
        """Round tag -> that round's audit report."""
        self.problems: list[Refusal] = []
        """Every host message refused (nothing was given for it; the host is named)."""
        self._gone = False
        """The round was voided by the host's restart: nothing more is given for it."""
        self._broken: set[tuple[int, int]] = set()
        """(deck, position) of ours a fault made unknowable (a wrong key, not a card): the
        round fails, and the host's messages no longer wait for that card."""
        self.gate: PublicReplay | None = None
        """This round's public game as we saw it: what the rules give away now."""
        self.expect: Callable[[], tuple[int, ...] | None] | None = None
        """The next round's players as our verifier derives them (None: not known)."""
        self._held: deque[Any] = deque()
        self._seen: set[bytes] = set()
        self.timeout_turn: int | None = None
        """The turn whose move timer ran out (``mk_timeout``): the session plays it."""
        self._sent_log: list[dict[str, Any]] = []
        self._assigned: set[tuple[int, int]] = set()
        # Persistence (`rami_lan.table.seat_keys`): what a relaunched client needs to go on.
        self._tape: _Tape | None = None
        """The round participant's randomness, recorded (its shuffle secrets)."""
        self._revealed: list[tuple[int, int]] = []
        """(deck, position) of each card our own actions revealed this round."""
        self._kept: SeatKeys | None = None
        """A journal loaded at launch (`restore`), used when its round's ``mk_round`` comes."""
        self._round_seats: tuple[int, ...] = ()
        self._deferred: tuple[E.StockRefilled, list[E.Event]] | None = None
        """(relaunched) A refill whose pile is not all public to us yet, and the events after it."""
        self._redo: set[tuple[int, int]] = set()
        """(deck, position) revealed before the crash: revealed again once the card is in."""
        self.restored = False
        """This round was picked up from the journal after a relaunch."""
        self._relaunches = 0
        """How many relaunched processes took this round up (ours included): the journal's."""
        self.journal_changes = 0
        """Counts the changes of what `journal` returns (the seat machine saves on change)."""
        self.key: SeatKey | None = None
        """Our signing key (`rami_lan.masked.signing`; `sign_with`): None, we sign nothing."""
        self.table_id = ""
        self.require_signed = False
        """Refuse a round whose ``mk_round`` carries no roster (set once we announced our key:
        a host that leaves it out would be free to forge any seat's messages)."""
        self.receipts_taken = 0
        self.relaunched = False
        """A new process at a table it sat at (the seat machine says so): a round whose
        roster holds a key of ours we lost with the dead process is sat out quietly."""
        self._blocked = False
        self._void_claim: tuple[int, list[tuple[int, int, int | None]]] | None = None
        """A void naming another seat: (it, the keys it owed other seats), checked against
        its audit's receipts when the round's audit is in (`_check_void_claim`)."""
        # The cards' points (a hash to the curve each, a few ms for a deck), ready before
        # the first shuffle step reaches us rather than on its critical path.
        card_table(variant.deck_size)

    def sign_with(self, key: SeatKey, table_id: str = "") -> dict[str, Any]:
        """Sign our masked messages with ``key`` from now on and refuse unsigned rounds;
        returns our announcement (``mk_seatkey``) for the host."""
        self.key, self.table_id, self.require_signed = key, table_id, True
        return key.announcement(table_id, self.seat)

    def _refuse(self, kind: str, reason: str, evidence: Any = None) -> None:
        """Note a refused host message (the client tells the player and its verifier)."""
        self.problems.append(Refusal(self.tag, kind, reason, evidence))

    # ------------------------------------------------------------------ queries

    @property
    def active(self) -> bool:
        return self.p is not None and self.p.phase in (Phase.SHUFFLING, Phase.PLAYING)

    def complete(self) -> bool:
        """True when every card of ours the host has announced is known to us."""
        if self._blocked:
            return False  # a round we could not take part in: its messages wait for the next one
        if self.p is None or self.p.phase not in (Phase.SHUFFLING, Phase.PLAYING) or self._gone:
            return True
        return (not self._later and self._deferred is None
                and all(x in self._broken for x in self.p.pending()))

    def refill_decks(self) -> dict[int, int | None]:
        """Stock generation -> masked deck number of the current round."""
        return dict(self._gen_deck)

    # ------------------------------------------------------------------ input

    def resend(self) -> list[dict[str, Any]]:
        """After a reconnect: every masked message we sent this round (the host drops the
        ones it had; those lost with the old connection go through). Sent when the host
        resyncs us (``mk_sync``), never before: a host that restarted during a shuffle
        starts it again (a new ``mk_round``), and the old shuffle's messages must not
        reach the new one."""
        return list(self._sent_log)

    def on_masked(self, msg: SeatMasked) -> list[dict[str, Any]]:
        """A ``masked`` message from the host, decoded at the edge
        (`rami_lan.wire.masked_table.decode_for_seat`); raises `MaskedSeatError` if
        refused (and notes it in `problems`: nothing was given for it)."""
        try:
            return self._on_masked_checked(msg)
        except MaskedSeatError as exc:
            self._refuse(kind_of(msg), str(exc), plain_of(msg))
            raise

    def _on_masked_checked(self, msg: SeatMasked) -> list[dict[str, Any]]:
        kind = kind_of(msg)
        if not isinstance(msg, MT.MkHand):
            fingerprint = msgpack.packb(plain_of(msg), use_bin_type=True)
            if fingerprint in self._seen:
                return []  # sent again after a reconnect: we have it
            if kind == MK.ROUND:
                self._seen = set()
            self._seen.add(fingerprint)
        if isinstance(msg, MT.MkSync):
            return self._on_sync(msg)
        return self._step("masked deck", lambda: self._on_masked(msg))

    def _on_masked(self, msg: SeatMasked) -> list[dict[str, Any]]:
        if isinstance(msg, MT.MkRound):
            return self._on_round(msg)
        if isinstance(msg, Unparsed) and msg.kind == MK.ROUND:
            raise MaskedSeatError(f"mk_round does not describe a round of this table: {msg.reason}")
        if self.p is None:
            raise MaskedSeatError(f"{kind_of(msg)} before any masked round")
        if self._gone:
            return []  # the round is void at the host (it restarted): nothing more of it
        match msg:
            case MT.MkDeal():
                return self._on_deal(msg)
            case MT.MkHand():  # in order with the views: see `hold`
                if self.must_hold():
                    self.hold(msg)
                else:
                    self._set_hand(msg)
                return []
            case MT.MkTimeout():  # our move timer ran out: the session plays for us
                self.timeout_turn = msg.turn
                return []
            case MT.MkClose():  # the host closed the round's audit: close ours with what came
                if self.p.phase is Phase.AUDITING:
                    return self._result(self.p.close_audit())
                return []
            case MT.MkShow():
                return self._on_show(msg)
            case MT.MkOwn() | MT.MkOrders():
                raise MaskedSeatError(f"{msg.KIND} is for a seat whose keys the host holds, not ours")
            case Protest():
                return self._on_protest(msg)
            case Receipt():  # the host's receipt for a message of ours: kept for our audit
                try:
                    if self.p.take_receipt(msg):
                        self.receipts_taken += 1
                except SignatureError:
                    pass  # a receipt we can not use is no receipt: nothing is given for it
                return []
            case Unparsed():
                return self._on_unparsed(msg)
        try:
            return self._result(self.p.receive(msg))
        except ValueError as exc:  # a message that does not fit the protocol
            return self._late_or_refused(msg.KIND, exc)

    def _on_unparsed(self, msg: Unparsed) -> list[dict[str, Any]]:
        """A host map that is no valid message of its kind (`decode_for_seat` says why)."""
        if msg.kind == Receipt.KIND:
            return []  # a receipt we can not use is no receipt: nothing is given for it
        if msg.kind in MK.TABLE_KINDS or msg.kind == Protest.KIND:
            raise MaskedSeatError(f"{msg.kind}: {msg.reason}")
        return self._late_or_refused(msg.kind, ValueError(msg.reason))

    def _late_or_refused(self, kind: str, exc: ValueError) -> list[dict[str, Any]]:
        assert self.p is not None
        if self.restored and self.p.phase in (Phase.AUDITING, Phase.COMPLETE):
            return []  # the host's resync of a round we published our audit for: nothing to give
        if self.p.phase in (Phase.AUDITING, Phase.COMPLETE) and kind in _PLAY_KINDS:
            # A participant's play message relayed after the round's end (a player
            # stopped past its deadline sends what it owed once it runs again, and the
            # host relays it as the void crosses it). Our audit is out: it asks nothing
            # of us and can change nothing. Dropped, nobody named.
            return []
        raise MaskedSeatError(f"masked deck: {exc}") from exc

    def _decode(self, events: Sequence[dict[str, Any]], what: str) -> list[E.Event]:
        try:
            return [event_from_plain(e, self.variant) for e in events]
        except (ValueError, TypeError, KeyError) as exc:  # MalformedAction is a ValueError
            raise MaskedSeatError(f"{what} holds an undecodable event: {exc}") from exc

    def _on_sync(self, msg: MT.MkSync) -> list[dict[str, Any]]:
        """The host resyncs us after a reconnect: the round's public events so far. Those
        we saw must be the ones we saw; the rest pass through our replay (as any events
        message) before anything leaves; then what we sent this round goes again."""
        decoded = self._decode(msg.events, MK.SYNC)
        gate = self.gate
        if self.p is None or gate is None:
            raise MaskedSeatError("mk_sync before any masked round")
        seen = gate.events
        head = [e.for_seat(None) for e in decoded[:len(seen)]]
        if head != seen:
            k = next((i for i, (a, b) in enumerate(zip(head, seen, strict=False)) if a != b), len(head))
            raise MaskedSeatError(f"mk_sync: event {k} of the round is not the one we saw "
                                  f"({type(head[k]).__name__ if k < len(head) else 'missing'})")
        fresh = decoded[len(seen):]
        if fresh and not gate.over:
            trial = copy.deepcopy(gate)
            _n, why = trial.admit_all(fresh)
            if why:
                raise MaskedSeatError(f"mk_sync: {why}")
        again = self.resend()
        if self._deferred is not None:  # the events after a waiting refill: these again
            self._deferred = (self._deferred[0], [])
        return again + (self.on_events(fresh) if fresh and not gate.over else [])

    def _on_show(self, msg: MT.MkShow) -> list[dict[str, Any]]:
        """``mk_show``: an action would end the round; every hand is shown first. Only if
        our replay says the announced action (its public events, each card proven to be
        in its player's hand) ends the round by the rules now."""
        if (self.restored and self.p is not None and self.gate is not None
                and self.p.phase in (Phase.AUDITING, Phase.COMPLETE)):
            return []  # resent after our relaunch: the round ended, our audit is out already
        if self.gate is None or self.p is None or self.p.phase is not Phase.PLAYING:
            raise MaskedSeatError("mk_show while no masked round is being played")
        why = self.gate.check_show(self._decode(msg.events, MK.SHOW), msg.reason, msg.winner)
        if why:
            raise MaskedSeatError(why)
        out: list[dict[str, Any]] = []
        for cid in list(self._mine):
            out += self._reveal(cid)
        return out

    def on_events(self, events: Sequence[E.Event]) -> list[dict[str, Any]]:
        """Public events of the round, in order, each admitted by our replay of the game
        first (`PublicReplay`): the assignments they make. The first event the rules do
        not allow now is refused (`problems`): it and the rest of the message give nothing."""
        return self._step("the public events do not fit the masked deck",
                          lambda: self._on_events(events))

    def reveals_for(self, action: A.Action, view: SeatView | None = None) -> list[dict[str, Any]]:
        """Before sending ``action``: reveal every card of ours it puts on the table (a
        take from the pile that must be used this turn, with ``view``: the cards it will
        be used with, which the host must see to rule on the take, as a plain host does)."""
        # not ours to reveal: a MaskedSeatError, and the host refuses the play itself
        return self._step("can not reveal", lambda: self._reveals_for(action, view))

    def hand_over(self) -> list[dict[str, Any]] | None:
        """Leaving the table for good mid-round: our hand to the host (which plays our seat
        from now on) and our stock keys to everyone, so the round goes on without us.
        ``[]`` when no round is being played; None while a card of ours is still on its
        way (ask again once it is in; a player who leaves anyway makes the round wait for
        it, and void if it does not come back)."""
        p = self.p
        if p is None or p.phase is not Phase.PLAYING:
            return []
        if any(recipient == self.seat and j not in p.card_positions(deck)
               for deck, j, recipient in p.recipients()):
            return None
        return self._step("can not hand over", lambda: self._result(p.hand_over()))

    def _step(self, what: str, run: Callable[[], list[dict[str, Any]]]) -> list[dict[str, Any]]:
        """Run one step of our participant: what it sends is kept for a resend after a
        reconnect; a masked-deck protocol or state error is a `MaskedSeatError`."""
        try:
            out = run()
        except (MaskedStateError, MaskedProtocolError) as exc:
            raise MaskedSeatError(f"{what}: {exc}") from exc
        self._sent_log += out
        return out

    def _on_events(self, events: Sequence[E.Event]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        gate = self.gate
        if self.p is None or gate is None or self.p.phase in (Phase.COMPLETE, Phase.AUDITING, Phase.IDLE):
            return out
        if self._deferred is not None:  # in order, after the refill that waits (`_refill`)
            self._deferred[1].extend(events)
            return out
        for k, ev in enumerate(events):
            if isinstance(ev, E.RoundStarted) and gate.started and ev.round_no != gate.round_no:
                # The next round is dealt without us in its masked deck (we left the private
                # deal, or a round we refused): the last one is over for us, nothing of it
                # is given any more, and this round's views are the host's (its bot plays).
                self._drop_round()
                return out
            if gate.over:
                break  # the round's scoring, eliminations: nothing masked is left to give
            why = gate.admit(ev)
            if why:
                self._refuse("events", why, ev)
                break
            if isinstance(ev, E.StockRefilled):
                if not ev.shuffled:
                    self._gen_deck[ev.reshuffle] = None
                    continue
                if not self._refill(ev, out):
                    # Relaunched: the pile's cards are public, but their reveals come after
                    # the resync's events: the refill (and what follows) waits for them.
                    self._deferred = (ev, list(events[k + 1:]))
                    break
            elif isinstance(ev, E.StockDrawn):
                deck = self._gen_deck.get(ev.reshuffle)
                if deck is not None:
                    out += self._assign(deck, ev.position, ev.seat)
            elif isinstance(ev, E.RoundEnded | E.RoundVoided):
                if self.p.phase not in (Phase.PLAYING, Phase.SHUFFLING):
                    continue
                if isinstance(ev, E.RoundVoided) and ev.seat == self.seat and self._owed_nothing():
                    # The host says we did not answer, but it receipted every message we
                    # owed: its own signatures disprove it. We name it, and publish our
                    # audit (its receipts are the proof for the others; the round is void).
                    self._refuse("events", "the host voided the round naming this seat, but its own "
                                 "signed receipts show it took every message this seat owed", ev)
                    out += self._result(self.p.protest())  # the receipts, none of our secrets
                    self._gone = True
                    break
                if isinstance(ev, E.RoundVoided) and ev.seat in (None, self.seat):
                    # The host lost the round (a restart), or says we did not answer in time
                    # (a frozen laptop, a stopped process): no audit from us, so our hand
                    # stays ours whether or not that is true; the round is void for us too.
                    self._gone = True
                    break
                if isinstance(ev, E.RoundVoided):
                    unseen = self._void_backing(ev.seat)
                    if unseen is None:  # nothing it could owe is missing here: the host's lie
                        self._refuse("events", f"a void naming seat {ev.seat}, which owed nothing this "
                                     "seat could see missing (its every message came, signed by it)", ev)
                        self._gone = True
                        break
                    self._void_claim = (ev.seat, unseen)
                for cid in list(self._mine):  # the hand is shown (the host asked with mk_show)
                    self._mine.pop(cid, None)
                out += self._result(self.p.publish_audit())
        return out

    def _refill(self, ev: E.StockRefilled, out: list[dict[str, Any]]) -> bool:
        """Start re-masking a refill's pile (False: a relaunched seat does not know all of
        its cards to be public yet; nothing changed)."""
        assert self.p is not None
        ids = [self._id(c) for c in ev.pile]
        if self.restored and not all(self.p.is_public(c) for c in ids):
            return False
        deck = self._n_decks
        self._n_decks += 1
        self._gen_deck[ev.reshuffle] = deck
        out += self._result(self.p.start_deck(deck, ids, sorted(self.p.present)))
        return True

    def _reveals_for(self, action: A.Action, view: SeatView | None = None) -> list[dict[str, Any]]:
        if self.p is None or self.p.phase is not Phase.PLAYING:
            return []
        cards: list[Card] = []
        if isinstance(action, A.DrawDiscard) and view is not None:
            from rami_lan.table.private_claims import take_proof

            cards = take_proof(view, action)
        elif isinstance(action, A.LayDown):
            cards = [c for meld in action.melds for c in meld.cards]
        elif isinstance(action, A.LayOff | A.Discard):
            cards = [action.card]
            if isinstance(action, A.Discard) and view is not None:
                from rami_lan.table.private_claims import discard_proof

                cards += discard_proof(view, action)
        elif isinstance(action, A.RecoverJoker):
            cards = list(action.cards)
        out: list[dict[str, Any]] = []
        for c in cards:
            cid = self._id(c)
            if cid in self._mine:
                out += self._reveal(cid)
        return out

    # ------------------------------------------------------------------ internals

    def _id(self, card: Card) -> int:
        return card_id(card, self.variant.n_decks)

    def _drop_round(self) -> None:
        """Forget the masked round we took part in (it is over for us): no key, reveal
        or audit of it leaves any more, and views are used as the host sends them."""
        self.p = None
        self.gate = None
        self._hand_pos = None
        self._later = []
        self._mine = {}
        self._sent_log = []
        self._tape = None
        self._revealed = []
        self._deferred = None
        self.journal_changes += 1

    def _on_round(self, msg: MT.MkRound) -> list[dict[str, Any]]:
        tag, host, seats, n = msg.tag, msg.host, list(msg.participants), msg.n
        if n != self.variant.deck_size or self.seat not in seats or host not in seats:
            raise MaskedSeatError("mk_round does not describe a round of this table")
        if self.p is not None and self.p.phase is Phase.PLAYING and tag == self.tag:
            raise MaskedSeatError("mk_round again for the round being played")
        try:
            signing = self._roster(msg, tag, host, seats)
        except _Lost:
            return []
        self._blocked = False
        # A new tag while a round is open: that round was void (e.g. the host restarted).
        # The same tag while its deck is still being shuffled: the host restarted before
        # the deal and shuffles again; nothing was dealt, fresh secrets hide nothing less.
        kept, self._kept = self._kept, None
        self._round_seats = tuple(sorted(seats))
        if kept is not None and (kept.tag, kept.host, kept.participants) == (tag, host, self._round_seats):
            # Relaunched after a crash: this round's secrets again (the host resyncs us).
            self._tape = _Tape(self.entropy, kept.tape)
            self._redo = set(kept.reveals)
            self._relaunches = min(kept.relaunches + 1, MAX_RELAUNCHES)
            self.restored = True
        else:
            self._tape = _Tape(self.entropy)
            self._redo = set()
            self._relaunches = 0
            self.restored = False
        self._revealed = []
        self._deferred = None
        self.journal_changes += 1
        self.p = Participant(tag, self.seat, host, n, self._tape)
        if signing is not None:
            self.p.sign_with(signing)
        if self.restored:
            # The dead process numbered what it sent; a number it used may come again for
            # another message of ours, which every receiver would refuse as replayed: the
            # relaunched process numbers on from far above (still increasing, so a late or
            # replayed message stays refused). Each relaunch takes a range of its own: a
            # second one in the round must not reuse the numbers the first one sent.
            self.p.renumber_from(RELAUNCH_SEQ_BASE * self._relaunches)
        self.tag, self.host = tag, host
        self._hand_pos = None
        self._gen_deck = {0: 0}
        self._n_decks = 1
        self._ready = set()
        self._later = []
        self._layout = None
        self._mine = {}
        self._sent_log = []
        self._assigned = set()
        self.gate = PublicReplay(self.variant, self.seat, frozenset(seats), host)
        self._void_claim = None
        self._gone = False
        self._broken = set()
        try:
            return self._result(self.p.start_deck(0, range(n), sorted(seats)))
        except MaskedStateError as exc:
            raise MaskedSeatError(str(exc)) from exc

    def _roster(self, msg: MT.MkRound, tag: bytes, host: int, seats: list[int]) -> Signing | None:
        """The round's roster (``mk_round``'s ``hkey`` and ``keys``): every participant's
        self-signed key, ours exactly as we announced it (None: an unsigned round, taken
        only from a host we never announced a key to). A bad roster refuses the round:
        nothing of it is given (the host is named)."""
        plain = msg.roster or {}
        if "keys" not in plain and not self.require_signed:
            return None
        why = ""
        try:
            roster = Roster.from_plain(tag, host, seats, plain, self.table_id)
            if self.key is None or roster.keys.get(self.seat) != self.key.public:
                if self.relaunched and self.tag is None and self._kept is None:
                    # Relaunched without a keys journal, at the round the dead process
                    # played: its key is lost with it (not the host's lie). We can not take
                    # part: the round's messages wait until the next round (the host names
                    # us late, then voids the round).
                    self.p, self.gate, self.tag, self.host, self._blocked = None, None, tag, host, True
                    raise _Lost
                why = "the roster gives our seat a key that is not the one we announced"
        except SignatureError as exc:
            why = str(exc)
        if why:  # nothing of this round leaves, and its messages wait (the next round's go on)
            self.p, self.gate, self.tag, self.host, self._blocked = None, None, tag, host, True
            raise MaskedSeatError(f"mk_round: {why}")
        assert self.key is not None
        return Signing(roster, self.key)

    def _on_deal(self, msg: MT.MkDeal) -> list[dict[str, Any]]:
        seats = list(msg.seats)
        if msg.deck != 0 or self._layout is not None:
            raise MaskedSeatError("mk_deal is not the one deal of deck 0")
        gate = self.gate
        assert gate is not None
        if self.expect is not None:
            try:
                gate.expected_players = self.expect()
            except Exception:  # noqa: BLE001 - our verifier can not tell: the layout alone decides
                gate.expected_players = None
        why = gate.check_layout(seats)
        if why:
            raise MaskedSeatError(why)
        self._layout = list(seats)
        gate.layout = list(seats)
        out: list[dict[str, Any]] = []
        for j, seat in enumerate(seats):
            out += self._assign(0, j, seat)
        return out

    def _assign(self, deck: int, position: int, seat: int | None) -> list[dict[str, Any]]:
        assert self.p is not None
        if (deck, position) in self._assigned:
            return []  # assigned before (a resync after a reconnect)
        self._assigned.add((deck, position))
        if deck not in self._ready or self.p.phase is not Phase.PLAYING:
            self._later.append((deck, position, seat))
            return []
        try:
            return self._result(self.p.assign(deck, position, seat))
        except MaskedStateError as exc:
            raise MaskedSeatError(str(exc)) from exc

    def _reveal(self, cid: int) -> list[dict[str, Any]]:
        assert self.p is not None
        where = self._mine.pop(cid, None)
        if where is None:
            return []
        self._redo.discard(where)
        self._revealed.append(where)
        self.journal_changes += 1
        return self._result(self.p.reveal(*where))

    def _result(self, res: Result) -> list[dict[str, Any]]:
        out = [o.message.to_plain() for o in res.outgoing]
        if self._tape is not None and self._tape.grown:
            self._tape.grown = False
            self.journal_changes += 1  # new secrets: kept before their first step leaves
        ready = False
        redo: list[int] = []
        for ev in res.events:
            if isinstance(ev, DeckReady):
                self._ready.add(ev.deck)
                ready = True
            elif isinstance(ev, CardReceived):
                self._mine[ev.card_id] = (ev.deck, ev.position)
                if (ev.deck, ev.position) in self._redo:
                    redo.append(ev.card_id)
            elif isinstance(ev, CardPublic):
                self._mine.pop(ev.card_id, None)
                if self.gate is not None:
                    self.gate.card_public(ev.seat, self._cards[ev.card_id])
            elif isinstance(ev, FaultFound):
                fault = ev.fault
                if (fault.seat is None and fault.kind is FaultKind.NOT_A_CARD and self.p is not None
                        and self.p.participants <= {self.seat, self.host}):
                    # Only the host shuffled with us (and relayed every step): it is the one.
                    fault = replace(fault, seat=self.host, evidence=fault.evidence + " (the host is "
                                    "the only other participant: its own step or its relay)")
                self.faults.append(fault)
                if fault.deck is not None:  # never learnt: its update waits no longer
                    self._broken.update((fault.deck, j) for j in fault.positions)
            elif isinstance(ev, AuditComplete):
                if self.tag is not None:
                    self.reports[self.tag] = ev.report
        if ready and self._later:
            later, self._later = self._later, []
            for deck, position, seat in later:
                self._assigned.discard((deck, position))
                out += self._assign(deck, position, seat)
        if ready and self._redo:  # a refill is ready: we play again, and may reveal again
            out += self._retry_redo()
        if self._deferred is not None and any(isinstance(ev, CardPublic) for ev in res.events):
            out += self._resume_deferred()
        for cid in redo:  # a card we revealed before the crash: the same reveal again,
            if self.p is not None and self.p.phase is Phase.PLAYING and self._played_by_us(cid):
                # (only while the round is played, and only if the public game shows we played it)
                out += self._reveal(cid)
            # else: not played (yet: a refill's events wait; or a crash between its journal
            # and its sending: it never left), it stays ours until the game shows it played
        return out
