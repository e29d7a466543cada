"""Private dealing: a round dealt from a masked deck (docs/masked_deck.md).

`MaskedDealing` is the table machine's strategy for a round whose deck is masked by
every participant's machine (`rami_lan.table.dealing.Dealing`). It holds the round's
masked deck (`rami_lan.table.masked_host.MaskedRound`) and everything the round needs
around it, and lives until the next round is dealt (the audit comes after the round's
end). The machine asks it at these points:

| machine step | here |
|---|---|
| the seed is known (commit-reveal done) | `deal`: ``mk_round`` to each, our mask pass |
| deck 0 ready | `_layout`: ``mk_deal`` (who gets each position), key releases |
| every host key known (turned-up card, bots' cards) | `_dealt`: the model is dealt, journaled |
| each change of the match | `redact`, `seat_view`, `changing`, `changed` |
| an action would end the round | `hold`: ``mk_show``, every hand revealed, then applied |
| a blind seat's move timer runs out | `prompt`: its own client plays the automatic move |
| a participant owes a message past its deadline | `late`: named, the round void, the audit closes |
| a blind seat comes back | `resync`: the round's masked messages again, with ``mk_sync`` |
| the round's audit is in | `_report` (the record), then the machine's `_audit_in` |

The model (`rami_lan.table.masked_host`) holds stand-ins for every card the host cannot
see; `_swap` makes it true wherever a card becomes known. Seats whose cards the host
cannot see (``blind``) are told their hand as deck positions (``mk_hand``) and get their
own hidden cards redacted from events: their client fills them in from its keys. The
host never plays a blind seat. The journal and the record of a masked round are in
`rami_lan.table.dealing.masked_journal`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from rami_lan.core import actions as A
from rami_lan.core import events as E
from rami_lan.core.cards import Card, card_id
from rami_lan.core.codec import event_to_plain
from rami_lan.core.match import MatchState, start_round
from rami_lan.core.reasons import Reason
from rami_lan.core.views import view_for
from rami_lan.masked.audit import AuditReport, Fault, FaultKind
from rami_lan.masked.inbound import MaskedInput
from rami_lan.table import effects as F
from rami_lan.table.dealing import masked_journal as J
from rami_lan.table.dealing import masked_live as L
from rami_lan.table.dealing.base import AuditWait, Halved, Held, Standing
from rami_lan.table.dealing.masked_live import STEP_WAIT, STRIKES_OUT, VOID_AUDIT_WAIT, step_wait
from rami_lan.table.masked_host import MaskedRound, Routed, deal_assignments, host_randomness
from rami_lan.table.private_claims import discard_refusal, take_refusal
from rami_lan.table.receipts import lost_round_key
from rami_lan.table.stage import Stage, Step
from rami_lan.wire import masked_table as MT
from rami_lan.wire import messages as W

if TYPE_CHECKING:
    from rami_lan.table.dealing.base import Table
    from rami_lan.table.fairround import RoundCtx

__all__ = ["STEP_WAIT", "STRIKES_OUT", "VOID_AUDIT_WAIT", "AuditWait", "Halved", "Held",
           "MaskedDealing", "Standing", "key_holders", "step_wait"]

_TIMEOUT_REST = "timeout-rest"
"""The held action of a timed-out turn whose drawn card is still masked (`Halved`)."""


def key_holders(t: Table) -> tuple[int, ...]:
    """Remote seats holding their own keys (humans and `join --bot`): the next round's
    players, and eliminated players still at the table (they follow and check it)."""
    return tuple(
        s for s in sorted(t.seats)
        if t.seats[s].kind == "human" and t.seats[s].conn is not None
        and s != t.host_seat and not t.seats[s].left and not t.standing.benched(s))


class MaskedDealing:
    """One round dealt from a masked deck (`rami_lan.table.dealing.Dealing`)."""

    def __init__(self, table: Table, mr: MaskedRound, key: bytes, seed: bytes) -> None:
        self.t = table
        self.mr = mr
        self.key = key
        """The seed of the host participant's secrets this round (journaled, never sent)."""
        self.seed = seed
        self.events: list[E.Event] = []
        """The round's public events (``mk_sync``; the journal)."""
        self.model_deck: list[Card] | None = None
        self.m0: MatchState | None = None
        """The match before this round (the record's replay; the journal)."""
        self.held: Held | None = None
        self.halved: Halved | None = None
        self.audit: AuditWait | None = None
        self.prompted_turn: tuple[int, int] | None = None
        self.handed: set[int] = set()
        """Seats whose player quit this round and handed over: the away bot plays at once."""
        self.owner_held: dict[int, list[tuple[int, list[E.Event]]]] = {}
        """A seat whose keys are the host's (its own player, a player out of the private
        deal) -> (seq, events) held while a card it drew is still masked from the host."""
        self.owed_since: dict[int, tuple[float, str]] = {}
        """Participant -> since when it owes a masked message without a break, and what."""
        self.owed_keys: set[int] = set()
        """Participants whose signing key the shuffle waits for (`deal`, `announced`)."""
        self.log: dict[int, list[dict[str, Any]]] = {}
        """Seat -> every masked message it was sent this round but ``mk_hand`` (resync)."""
        self.hand_told: dict[int, list[Any]] = {}
        """Connection -> the hand positions its last ``mk_hand`` gave (not sent again)."""
        self.marker: dict[str, int | None] | None = None
        """The round being played (journaled: a restart that can not go on voids it)."""
        self.mj: dict[str, Any] | None = None
        """Journal cursor of the round being played (None: nothing to journal): how many
        calls and events are written, and the model last written."""
        self.mj_actions: list[list[Any]] = []
        """Actions applied since the last checkpoint, as [plain action, by] (the record)."""

    @classmethod
    def for_round(cls, table: Table, tag: bytes, remote: Sequence[int],
                  seed: bytes) -> MaskedDealing:
        """A new masked round: the host and the ``remote`` key holders."""
        key = table.entropy(32)
        mr = MaskedRound(tag, table.host_seat, (*remote, table.host_seat), table.variant.deck_size,
                         host_randomness(key))
        mr.sign_with(table.host_keys.roster(tag, table.host_seat, mr.participants, key))
        d = cls(table, mr, key, seed)
        d.owed_keys = {s for s in remote if s not in table.host_keys.announced}
        return d

    @classmethod
    def restored(cls, table: Table, head: dict[str, Any], bodies: list[dict[str, Any]],
                 now: float) -> MaskedDealing:
        """The private round a restarted host's journal holds, made again
        (`masked_journal.take_up`; raises if the journal does not fit)."""
        key = bytes(head["key"])
        mr = MaskedRound(bytes(head["tag"]), table.host_seat, [int(x) for x in head["participants"]],
                         int(head["n"]), host_randomness(key))
        table.host_keys.restore(head.get("sigkeys"))
        mr.sign_with(table.host_keys.roster(mr.p.tag, table.host_seat, mr.participants, key))
        d = cls(table, mr, key, bytes(head["seed"]))
        J.take_up(d, head, bodies, now)
        return d

    # ------------------------------------------------------------------ queries

    @property
    def auditing(self) -> bool:
        return self.audit is not None

    def _current(self) -> bool:
        """Is this still the table's dealing (not replaced by the next round's)?"""
        return self.t.dealing is self

    def _card_no(self, card: Card) -> int:
        return card_id(card, self.t.variant.n_decks)

    def _struck(self, seat: int) -> bool:
        """Did ``seat`` miss a deadline in this round already (it is waited for no more)?"""
        return self.t.standing.struck(seat, self.t.match.round_no)

    def busy(self) -> bool:
        """A key the host waits for (a bot's card), or a showdown, or a split timeout."""
        return self.mr.waiting() or self.held is not None or self.halved is not None

    def blind(self, seat: int) -> bool:
        return seat in self.mr.blind

    def handed_over(self, seat: int) -> bool:
        return seat in self.handed

    def moving_for(self, seat: int) -> bool:
        return self.halved is not None and self.halved.seat == seat

    def prompted(self) -> bool:
        return self.prompted_turn == self.t._turn_key

    def mover_waits(self) -> bool:
        """Does the player whose turn it is still wait for cards of its hand (its keys)?"""
        mr, t = self.mr, self.t
        m = t.match
        r = m.round
        if r is None or m.phase not in ("draw", "play"):
            return False
        s = r.turn
        if s in mr.blind:
            return mr.owed_to(s) or t.stage is not Stage.PLAYING
        if self._keyless(s):
            return bool(self.owner_held.get(s)) or self.owner_hidden(m, s)
        return False

    def _keyless(self, seat: int) -> bool:
        """A seat of the round's players whose keys are the host's: its own player, or a
        player out of the private deal (connected: the host's bot plays it)."""
        return seat == self.t.host_seat or seat not in self.mr.participants

    # ------------------------------------------------------------------ start

    def deal(self, ctx: RoundCtx, seed: bytes, now: float) -> None:
        """Begin the masked round: ``mk_round`` to each, our own mask pass."""
        self.t._go(Step.SHUFFLE)
        if self.mr.signing is None and self.owed_keys:
            # A seat's key is still on its way (a restarted host, its players just back):
            # the shuffle begins once it is in (`announced`), or its deadline names the seat.
            self.log = {s: [] for s in self.mr.blind}
            self.mr.start()  # (nothing of it is sent: a void for a missing key then audits as usual)
            return
        self._greet()
        self._route(self.mr.start(), now)

    def announced(self, seat: int, plain: dict[str, Any], now: float) -> None:
        """A seat's signing key came in: a seat relaunched without its keys of this round
        can not go on with it (its deadline is up at once); the last key the shuffle
        waited for starts it, signed."""
        mr, t = self.mr, self.t
        if lost_round_key(mr, seat, plain):
            self.owed_since[seat] = (now, "its keys of this round (its process lost them)")
            self.late(seat, now)
        elif (mr.signing is None and self.owed_keys and t.stage is Stage.SHUFFLE and self._current()
              and t.host_keys.roster(mr.p.tag, t.host_seat, mr.participants, b"\0" * 32)):
            # every key is in: the shuffle the round waited for begins now, signed
            self.mr = MaskedRound(mr.p.tag, t.host_seat, mr.participants, t.variant.deck_size,
                                  host_randomness(self.key))
            self.mr.sign_with(t.host_keys.roster(mr.p.tag, t.host_seat, mr.participants, self.key))
            self.owed_keys = set()
            self._greet()
            self._route(self.mr.start(), now)

    def _greet(self) -> None:
        """``mk_round`` to every blind seat: the first message of its log."""
        mr, t = self.mr, self.t
        self.log = {s: [] for s in mr.blind}
        self.hand_told = {}  # a client forgets its hand's positions at ``mk_round``
        # ``rid`` tells this masked round from another with the same tag (the host
        # restarted during the shuffle and shuffles again); the same after a resume.
        rid = hashlib.sha256(b"rami-lan masked round id" + self.key).digest()[:8]
        for s in sorted(mr.blind):
            self.post(s, MT.MkRound(mr.p.tag, t.host_seat, tuple(mr.participants), mr.p.table.n_cards, rid,
                                     mr.signing.roster.to_plain() if mr.signing else None))
        self.tell_owner(MT.MkOwn(mr.p.tag))

    def tell_owner(self, message: MT.MkOwn | MT.MkOrders) -> None:
        """The host's own player (``mk_own``, ``mk_orders``): its seat's keys are the
        host's, so its client is no participant, but its verifier must know that the
        round is dealt from a masked deck and, at the end, the audited orders."""
        t = self.t
        for seat, info in t.seats.items():
            # the host's own player, and a player out of this round's masked deck (it left
            # the private deal: the host's bot plays its seat with the host's keys)
            if info.conn is None or (seat != t.host_seat and seat in self.mr.participants):
                continue
            t._send(info.conn, W.Masked(m=message.to_plain()))

    def post(self, seat: int, message: MT.TableMessage) -> None:
        """One table message of the masked round to a seat (`send` puts it on the wire)."""
        self.send(seat, message.to_plain())

    def send(self, seat: int, plain: dict[str, Any]) -> None:
        """One masked message to a seat (kept for a resync); a test overrides it to
        build a cheating host."""
        if plain.get("k") != MT.MkHand.KIND:  # kept for a reconnect (`resync`)
            self.log.setdefault(seat, []).append(plain)
        conn = self.t.seats[seat].conn
        if conn is not None:
            self.t._send(conn, W.Masked(m=plain))

    def resync(self, conn: int, seat: int) -> None:
        """A blind seat came back: everything masked it was sent this round, again, with
        the round's public events (``mk_sync``) right after the deal, so its participant
        makes every assignment it missed. The client drops what it already had."""
        mr, t = self.mr, self.t
        self.hand_told.pop(conn, None)
        if (seat == t.host_seat or seat not in mr.participants) and mr.phase.value != "idle":
            # no participant (the host's own player, or a player out of the private deal):
            # its verifier learns again that the host holds this round's keys of its seat
            t._send(conn, W.Masked(m=MT.MkOwn(mr.p.tag).to_plain()))
            return
        if seat not in mr.blind or mr.phase.value in ("complete", "idle"):
            return
        sync = MT.MkSync(tuple(event_to_plain(e.for_seat(None), t.variant) for e in self.events)).to_plain()
        log = self.log.get(seat, [])
        cut = next((k + 1 for k, plain in enumerate(log) if plain.get("k") == MT.MkDeal.KIND), len(log))
        for plain in [*log[:cut], sync, *log[cut:]]:
            t._send(conn, W.Masked(m=plain))

    def resumed(self, now: float) -> None:
        """A private round goes on: its players have `masked_wait` to come back, as after
        a drop."""
        for s in self.mr.blind:
            self.t._away_since.setdefault(s, now)

    # ------------------------------------------------------------------ input

    def receive(self, conn: int, seat: int, msg: MaskedInput, now: float) -> None:
        """A masked-deck message from a client (decoded at the edge): checked, used, relayed."""
        try:
            routed = self.mr.receive(seat, msg)
        except ValueError as exc:
            self.t._error(conn, "bad_masked", str(exc))
            return
        self._route(routed, now)

    # ------------------------------------------------------------------ routing

    def _route(self, routed: Routed, now: float) -> None:
        mr, t = self.mr, self.t
        self._deliver(routed)
        for real, stand_in in routed.swaps:
            self._swap(real, stand_in)
        self._owner_flush()
        for fault in routed.faults:
            self._fault(fault)
            if fault.seat is not None and fault.seat in mr.participants and fault.seat != t.host_seat:
                self.strike(fault.seat, fault.kind.name, late=False)  # proven: a fault
        for seat in routed.left:
            self._gave_up(seat)
        if 0 in routed.ready and self.model_deck is None:
            self._layout(now)
        if routed.report is not None:
            self._report(routed.report, now)
        self._progress(now)

    def _deliver(self, routed: Routed) -> None:
        mr = self.mr
        for d in routed.deliveries:
            if d.to is not None:
                if d.to in mr.blind:
                    self.send(d.to, d.plain)
            else:
                for s in mr.participants:
                    if s in mr.blind and s != d.skip:
                        self.send(s, d.plain)

    def _gave_up(self, seat: int) -> None:
        """A player left for good mid-round and gave the host its hand (``mk_give``, then
        ``mk_handover``): its seat is no longer blind, the model holds its real cards, and
        the host's away bot plays it as at any table (its client is gone)."""
        t = self.t
        m = t.match
        r = m.round
        t._away_since.pop(seat, None)
        if r is None or r.phase == "over":
            return  # it left as the round ended: its hand-over stands for its audit
        if seat in r.blind:
            t.match = replace(m, round=replace(r, blind=r.blind - {seat}))
        self.handed.add(seat)
        t._notice(f"seat {seat + 1} left the table and gave its hand over: the host's bot "
                  "plays it for the rest of this round", "seat_handed_over", seat=seat)

    def _progress(self, now: float) -> None:
        if not self._current() or self.mr.waiting():
            return
        if self.t.stage is Stage.SHUFFLE and self.model_deck is not None:
            self._dealt(now)
        elif self.held is not None and not self._hidden_hands():
            held, self.held = self.held, None
            if held.action == _TIMEOUT_REST:
                self._rest(now)
            else:
                self.t.try_apply(held.conn, held.action, held.seq, now)
        elif self.halved is not None and self.held is None:
            self._rest(now)

    # ------------------------------------------------------------------ the deal

    def _layout(self, now: float) -> None:
        """Deck 0 is ready: deal the model once for the layout, and assign every position."""
        t = self.t
        self.model_deck = list(t._match_cards())
        _m, evs = start_round(t.match, self.model_deck, self.seed)
        started = next(e for e in evs if isinstance(e, E.RoundStarted))
        dealt = [(e.seat, e.positions) for e in evs if isinstance(e, E.CardsDealt)]
        seats = deal_assignments(dealt, len(started.players) * started.hand_size)
        self._route(self.mr.assign_deal(seats), now)

    def _dealt(self, now: float) -> None:
        """Every card the host must know is known: deal the model and go on as usual."""
        t = self.t
        ctx = t._round
        assert ctx is not None and self.model_deck is not None
        new_m, evs = self.deal_private(t.match, self.model_deck, self.seed, self.mr.blind)
        self.model_deck = []
        self.m0 = t.match
        ctx.started = True
        t._go(Step.DEAL)
        if t.record is not None:  # the deck is known only from the audit: see `record_round`
            t.record.begin_round(t.match.round_no + 1, ctx.tag, ctx.commit, [], self.seed)
            t.record.set_round_players(new_m)
        if t._journal_on:
            # The match before this round, marked as being played, with what a restart
            # needs to go on with it (`header`); every change after it is a ``private``
            # record (`settle`). Should that fail, the round is void.
            self.marker = {"round_no": new_m.round_no, "dealer": new_m.dealer}
            self.mj = {"calls": 0, "events": 0, "match": None}
            self.mj_actions = []
            t._out.append(F.JournalSnapshot(t.snapshot(self.m0, t.seq)))
        t._commit_change(new_m, evs, now)

    def deal_private(self, m: MatchState, cards: list[Card], seed: bytes,
                     blind: frozenset[int]) -> tuple[MatchState, list[E.Event]]:
        """Deal the model: the core with ``blind`` seats and refills kept in the pile's order."""
        return start_round(m, cards, seed, blind=blind, refills=())

    # ------------------------------------------------------------------ journal and record

    def header(self) -> dict[str, Any] | None:
        return J.header(self)

    def void_marker(self) -> dict[str, int | None] | None:
        return self.marker

    def log_action(self, seat: int, plain: Any, by: str) -> None:
        """An applied action goes into the round's next checkpoint (the record keeps it)."""
        if self.mj is not None:
            self.mj_actions.append([plain, by])
        else:
            self.t._journal("tick", {"seq": self.t.seq + 1})

    def record_events(self, evs: list[E.Event]) -> None:
        """Nothing yet: the round's true events are known from its audit (`record_round`)."""

    def record_end(self, ctx: RoundCtx, abandoned: bool) -> None:
        """Nothing yet: the round goes into the record once its audit is in."""

    # ------------------------------------------------------------------ the model

    def _swap(self, real: int, stand_in: int) -> None:
        """``real`` is where ``stand_in`` was in the model: exchange the two cards."""
        t = self.t
        cards = t._match_cards()
        a, b = cards[real], cards[stand_in]

        def sw(c: Card | None) -> Card | None:
            return b if c == a else a if c == b else c

        def swc(c: Card) -> Card:
            return b if c == a else a if c == b else c

        if self.model_deck:
            self.model_deck = [swc(c) for c in self.model_deck]
        t.match = _swapped(t.match, sw)
        if self.halved is not None:
            self.halved = replace(self.halved, before=_swapped(self.halved.before, sw))
        for buf in [*t._bot_events.values(),
                    *(evs for held in self.owner_held.values() for _, evs in held)]:
            for k, ev in enumerate(buf):
                if isinstance(ev, E.StockDrawn) and ev.card in (a, b):
                    buf[k] = replace(ev, card=sw(ev.card))
                elif isinstance(ev, E.CardsDealt) and ev.cards and (a in ev.cards or b in ev.cards):
                    buf[k] = replace(ev, cards=tuple(swc(c) for c in ev.cards))

    def holds_for(self, seat: int, m: MatchState, evs: list[E.Event]) -> bool:
        """A seat whose keys are the host's (`_keyless`: its own player, a player out of the
        private deal) while a card of its hand is still masked from the host (the keys of
        its draw are on their way): its events wait, the model's swaps applied to them, and
        go out with a fresh view once the card is known (`_owner_flush`). Its player never
        sees a stand-in. True: held."""
        if not self._keyless(seat):
            return False
        if not self.owner_held.get(seat) and not self.owner_hidden(m, seat):
            return False
        self.owner_held.setdefault(seat, []).append((self.t.seq, list(evs)))
        return True

    def owner_hidden(self, m: MatchState, seat: int | None = None) -> bool:
        """Does ``seat`` (default: the host's own) hold a card still masked from the host?"""
        mr, r = self.mr, m.round
        seat = self.t.host_seat if seat is None else seat
        if r is None or seat not in r.players or r.phase == "over":
            return False
        return any(mr.position_of(self._card_no(c)) is not None for c in r.hands[seat])

    def _owner_flush(self) -> None:
        t = self.t
        for seat in [s for s, held in self.owner_held.items() if not self.owner_hidden(t.match, s)]:
            held = self.owner_held.pop(seat)
            conn = t.seats[seat].conn
            if conn is None:
                continue
            for seq, evs in held:
                if evs:
                    t._send(conn, F.EventsMsg(seq=seq, events=tuple(e.for_seat(seat) for e in evs)))
            t._send(conn, F.SeatViewMsg(seq=t.seq, view=view_for(t.match, seat)))

    def _hidden_hands(self) -> bool:
        """Does a blind seat's hand still hold a card the host has not seen?"""
        mr = self.mr
        r = self.t.match.round
        if r is None:
            return False
        return any(mr.position_of(self._card_no(c)) is not None
                   for s in mr.blind for c in r.hands[s])

    # ------------------------------------------------------------------ each change

    def redact(self, ev: E.Event, seat: int) -> E.Event:
        """What ``seat`` sees of an event: a blind seat gets its own hidden cards blank
        (the host does not know them; its client fills them in from its keys)."""
        if seat not in self.mr.blind:
            return ev.for_seat(seat)
        if (isinstance(ev, E.StockDrawn) and ev.reshuffle > 0
                and self.t.variant.stock_rule == "turn_over"):
            return ev.for_seat(seat)  # a turned-over pile is public: the host knows the card
        return ev.for_seat(None)

    def seat_view(self, m: MatchState, seat: int) -> Any:
        """The view for ``seat``, after its hand's positions (``mk_hand``, a blind seat).
        A blind seat's own hidden cards are nil in it: the host does not know them (its
        model holds stand-ins there); its client fills its real cards in."""
        self._hand(m, seat)
        view = view_for(m, seat)
        mr = self.mr
        if seat not in mr.blind or not view.hand:
            return view
        return replace(view, hand=tuple(None if mr.position_of(self._card_no(c)) is not None else c
                                        for c in view.hand))

    def _hand(self, m: MatchState, seat: int) -> None:
        """Before a blind seat's view: where each card of its hand lies in the masked deck.

        Sent only when that differs from what this connection was last told: the client
        keeps the positions until the next ``mk_hand`` or ``mk_round``, and most views
        (the others' moves) leave a hand as it was."""
        mr = self.mr
        if seat not in mr.blind or m.round is None or seat not in m.round.players \
                or m.round.phase == "over":
            return
        ids = [self._card_no(c) for c in m.round.hands[seat]]
        pos = mr.hand_positions(ids)
        conn = self.t.seats[seat].conn
        if conn is not None and self.hand_told.get(conn) == pos:
            return
        if conn is not None:
            self.hand_told[conn] = pos
        self.post(seat, MT.MkHand(tuple(None if q is None else (q[0], q[1]) for q in pos)))

    def _before(self, evs: list[E.Event], now: float) -> None:
        """Cards the host holds that this change makes public: reveal them first."""
        mr = self.mr
        for c in [c for ev in evs for c in _event_cards(ev)]:
            pos = mr.held_position(self._card_no(c))
            if pos is not None:
                self._route(mr.reveal(*pos), now)

    def changing(self, m: MatchState, evs: list[E.Event], now: float) -> list[Routed]:
        """Before the change goes out: cards the host holds that it makes public are
        revealed; the model's new stock generation and draws are noted (so ``mk_hand``
        can name the positions); what they send waits (`changed`)."""
        if evs:
            self._before(evs, now)
        t, mr = self.t, self.mr
        out: list[Routed] = []
        self.events += evs
        if t._journal_on and any(isinstance(e, E.RoundEnded | E.RoundVoided) for e in evs):
            self.marker = None  # the round is over: the journal holds its end
            if self.mj is not None and not any(isinstance(e, E.RoundVoided) for e in evs):
                # Its audit is still to come: the snapshot keeps the masked round (its
                # calls so far, `header`) and what the audit brings is journaled, so a
                # host killed before the audit is in takes the audit up again.
                self.mj["over"] = True
            else:
                self.mj = None
            t._out.append(F.JournalSnapshot(t.snapshot(t.match, t.seq)))
        for ev in evs:
            if isinstance(ev, E.StockRefilled):
                out.append(mr.refilled(ev.reshuffle, [self._card_no(c) for c in ev.pile], ev.shuffled))
            elif isinstance(ev, E.StockDrawn):
                out.append(mr.drawn(ev.reshuffle, ev.position, ev.seat))
        return out

    def changed(self, evs: list[E.Event], noted: list[Routed], now: float) -> None:
        """After the events went out: the key releases and mask passes they caused; at
        the round's end, the audit begins."""
        for routed in noted:
            self._route(routed, now)
        if any(isinstance(ev, E.RoundEnded) for ev in evs):
            self.audit = AuditWait(now + self.t.config.audit_timeout)
            self._route(self.mr.publish_audit(), now)

    def refusal(self, action: Any, evs: list[E.Event]) -> Reason | str:
        """Why an action the core allows may not happen (empty: it may): a take from the
        pile judged on the revealed cards (`_claim`), or a change that makes public a
        card the host has not seen revealed (`_unproven`)."""
        return self._claim(action) or self._unproven(evs)

    def _unproven(self, evs: list[E.Event]) -> Reason | str:
        mr = self.mr
        for ev in evs:
            if isinstance(ev, E.RoundEnded):
                continue  # every hand is shown first (`hold`)
            for c in _event_cards(ev):
                where = mr.position_of(self._card_no(c))
                if where is not None:
                    return Reason.of("not_proven", card=str(c), deck=where[0], position=where[1])
        return ""

    def _claim(self, action: Any) -> Reason | str:
        """Why a blind seat's take from the pile is refused (empty: it is not): judged as a
        plain host judges it, on the cards of its hand revealed to the host
        (`rami_lan.table.private_claims`)."""
        mr, t = self.mr, self.t
        r = t.match.round
        if r is None or not isinstance(action, A.DrawDiscard | A.Discard) or action.seat not in mr.blind:
            return ""
        hand = r.hands[action.seat]
        known = [c for c in hand if mr.position_of(self._card_no(c)) is None]
        if isinstance(action, A.Discard):  # (its own card is revealed with it: not counted)
            unknown = sum(1 for c in hand
                          if c != action.card and mr.position_of(self._card_no(c)) is not None)
            return discard_refusal(t.match, action, unknown)
        return take_refusal(t.match, action, known, len(hand) - len(known))

    def hold(self, conn: int | None, action: Any, seq: int | None, evs: list[E.Event],
             now: float) -> bool:
        """An action would end the round while blind hands are unseen: show them first."""
        if not any(isinstance(e, E.RoundEnded) for e in evs) or not self._hidden_hands():
            return False
        self.held = Held(conn, action, seq)
        # The show carries the ending action's public events and the end's reason: each
        # client's own replay must say they end the round before it reveals its hand. The
        # cards the host holds that the action plays are revealed first (the proof).
        at = next(k for k, e in enumerate(evs) if isinstance(e, E.RoundEnded))
        ending, end = evs[:at], evs[at]
        assert isinstance(end, E.RoundEnded)
        self._before(ending, now)
        v = self.t.variant
        self._route(self.mr.show([event_to_plain(e.for_seat(None), v) for e in ending],
                                 str(getattr(end.reason, "value", end.reason)), end.winner), now)
        return True

    # ------------------------------------------------------------------ a timed-out turn

    def prompt(self, seat: int, now: float) -> None:
        """Nobody but the player can play its hidden hand: its move timer ran out, so its
        own client is asked to play the automatic move (once per turn); it owes that move
        from then on (`_owed`: a deadline, then the round is void)."""
        r = self.t.match.round
        assert r is not None
        self.prompted_turn = self.t._turn_key
        self.post(seat, MT.MkTimeout(r.turn_no))

    def split(self, action: Any, evs: list[E.Event], now: float) -> bool:
        """A move timer ran out for a seat the host holds (its own player's, a bot's) and
        the automatic move would throw away the card it draws, still masked: the draw goes
        out first (the events up to it), the rest once the drawn card's keys are in. The
        record has the one ``timeout`` action. False: not that case."""
        t = self.t
        m = t.match
        if m.phase != "draw" or action.seat in self.mr.blind:
            return False
        k = next((i for i, e in enumerate(evs)
                  if isinstance(e, E.StockDrawn) and e.seat == action.seat), None)
        if k is None or self._unproven(evs[:k + 1]):
            return False
        try:
            m_draw, _evs = t.apply_core(m, A.DrawStock(action.seat))
        except Exception:  # noqa: BLE001 - the stock could not be drawn: no split
            return False
        full, _ = t.apply_core(m, action)
        r = m_draw.round
        rf = full.round
        if r is None or rf is None:
            return False
        half = replace(m_draw, round=replace(r, timeouts=rf.timeouts, away=rf.away, must_use=()))
        if t.record is not None or t._journal_on:
            from rami_lan.core.codec import action_to_plain

            plain = action_to_plain(action, t.variant)
            self.log_action(action.seat, plain, "timer")
            if t.record is not None:
                t.record.log_action(plain, "timer")
        self.halved = Halved(action.seat, None, m)
        t._commit_change(half, evs[:k + 1], now)
        self.halved = replace(self.halved, turn=t._turn_key)
        self._progress(now)
        return True

    def _rest(self, now: float) -> None:
        """The drawn card of a split timeout is known: the rest of the automatic move."""
        half, t = self.halved, self.t
        if half is None:
            return
        r = t.match.round
        if r is None or r.drawn is None or self.mr.position_of(self._card_no(r.drawn)) is not None:
            return  # still masked
        m, evs = t.apply_core(half.before, A.Timeout(half.seat))
        k = next(i for i, e in enumerate(evs) if isinstance(e, E.StockDrawn) and e.seat == half.seat)
        rest = evs[k + 1:]
        if self.hold(None, _TIMEOUT_REST, None, rest, now):
            return  # every hand is shown first
        self.halved = None
        t._commit_change(m, rest, now)

    # ------------------------------------------------------------------ liveness (`masked_live`)

    def settle(self, now: float) -> None:
        """After each input: who owes what since when (`masked_live.watch`); the
        journal's checkpoint (`masked_journal.checkpoint`)."""
        L.watch(self, now)
        J.checkpoint(self)

    def void_at(self) -> tuple[float | None, int | None]:
        """When the first participant owing a message runs out of time, and which."""
        return L.void_at(self)

    def deadline(self) -> float | None:
        ds = [d for d in (self.audit.deadline if self.audit is not None else None, self.void_at()[0])
              if d is not None]
        return min(ds) if ds else None

    def step(self, now: float) -> bool:
        """A participant's deadline ran out (the round void), or the audit's."""
        void_at, void_seat = self.void_at()
        if void_at is not None and void_seat is not None and now >= void_at:
            self.late(void_seat, now)
            return True
        audit = self.audit
        if audit is not None and audit.deadline is not None and now >= audit.deadline:
            audit.deadline = None
            self.close_audit(now)
            if self.audit is not None:  # closed with nothing to report: go on
                self.audit = None
                self.t._audit_in(now)
            return True
        return False

    def late(self, seat: int, now: float) -> None:
        """``seat`` did not send what it owed in time: it is named (as "left" if its
        connection is gone), and the round, which can not go on without it, is void."""
        what = self.owed_since.pop(seat, (now, "a masked message"))[1]
        self.strike(seat, what)
        self.void(seat, now)

    def strike(self, seat: int, what: str, late: bool = True) -> None:
        """A missed deadline (``late``) or a proven fault (`masked_live.strike`)."""
        L.strike(self, seat, what, late)

    def void(self, seat: int | None, now: float) -> None:
        """Nobody can play a participant's hidden cards: the round is void (`masked_live.void`)."""
        L.void(self, seat, now)

    def close_audit(self, now: float) -> None:
        """The audit's time is up: close it with what came (`masked_live.close_audit`)."""
        L.close_audit(self, now)

    # ------------------------------------------------------------------ outcome

    def _fault(self, fault: Fault) -> None:
        t = self.t
        who = "nobody yet" if fault.seat is None else f"seat {fault.seat + 1}" \
            if fault.seat != t.host_seat or not t.config.headless else "the host"
        t._notice(f"private dealing: {fault.kind.name} by {who}: {fault.evidence[:200]}",
                  "private_deal_fault", kind=fault.kind.name, seat=fault.seat)

    def _report(self, report: AuditReport, now: float) -> None:
        t, mr = self.t, self.mr
        t.masked_reports.append(report)
        self.tell_owner(MT.MkOrders(
            mr.p.tag, tuple((d, tuple(o)) for d, o in sorted(report.orders.items())),
            tuple(sorted(mr.gen_decks().items())),
            tuple(f"{f.kind.name} by seat {f.seat}: {f.evidence}"[:500] for f in report.faults)[:64]))
        J.record_round(self, report)
        # A participant that left (or missed its audit's deadline) was told as such when
        # it happened: its missing audit is no fault of the round's dealing.
        faults = [f for f in report.faults
                  if not (f.kind is FaultKind.MISSING_AUDIT and f.seat is not None
                          and (self._struck(f.seat) or t.seats[f.seat].conn is None))]
        if faults:
            named = sorted({f.seat for f in faults if f.seat is not None})
            t._notice(f"private dealing: the round's audit found {len(faults)} fault(s); seats "
                      f"named: {', '.join(str(s + 1) for s in named) or '-'}", "private_audit_faults",
                      count=len(faults), seats=named)
        if self.audit is not None:
            self.audit = None
            t._audit_in(now)


def _swapped(m: MatchState, sw: Any) -> MatchState:
    """``m`` with the model's swap ``sw`` (card -> card) made in its round's hands and stock."""
    r = m.round
    if r is None or r.phase == "over":
        return m
    r = replace(r, hands=tuple(tuple(sw(c) for c in h) for h in r.hands),
                stock=tuple(sw(c) for c in r.stock), drawn=sw(r.drawn))
    return replace(m, round=r)


def _event_cards(ev: E.Event) -> list[Card]:
    """Cards an event makes public (a play; a round's end shows every hand)."""
    if isinstance(ev, E.RoundEnded):
        return [c for _s, h in ev.hands for c in h]
    return E.cards_played(ev)
