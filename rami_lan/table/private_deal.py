"""Private dealing in the table machine: the round's deck is masked (docs/masked_deck.md).

`PrivateDealing` is the part of `TableMachine` that runs a round with a masked deck,
kept apart so the machine's flow stays readable. The machine calls it at these points:

| machine step | here |
|---|---|
| the seed is known (commit-reveal done) | `_private_start`: ``mk_round`` to each, our mask pass |
| deck 0 ready | `_private_layout`: ``mk_deal`` (who gets each position), key releases |
| every host key known (turned-up card, bots' cards) | `_private_deal`: the model is dealt, journaled |
| each change of the match | `_private_redact`, `_hand`, `_view`, `_before`, `_note`, `_after` |
| an action would end the round | `_private_hold`: ``mk_show``, every hand revealed, then applied |
| a blind seat's move timer runs out | ``mk_timeout``: its own client plays the automatic move |
| a participant gone longer than ``masked_wait`` | `_private_void`: the round is void, the audit closes |
| a blind seat comes back | `_private_resync`: the round's masked messages again, with ``mk_sync`` |
| the round's audit is in | `_private_record` (the record), `_private_resume` (next round, or over) |

The model (`rami_lan.table.masked_host`) holds stand-ins for every card the host cannot
see; `_private_swap` makes it true wherever a card becomes known. Seats whose cards the
host cannot see (``blind``) are told their hand as deck positions (``mk_hand``) and get
their own hidden cards redacted from events: their client fills them in from its keys.
The host never plays a blind seat; a host restart voids the round being played.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Any

import msgpack

from rami_lan.core import events as E
from rami_lan.core.cards import Card, card_id
from rami_lan.core.match import MatchState, start_round
from rami_lan.masked.audit import AuditReport, Fault, FaultKind
from rami_lan.masked.signing import ANNOUNCE
from rami_lan.table import effects as F
from rami_lan.table.masked_host import MaskedRound, Routed, deal_assignments, host_randomness
from rami_lan.table.receipts import HostKeys, lost_round_key
from rami_lan.table.stage import Stage
from rami_lan.table.verifier import audited_refills

__all__ = ["PrivateDealing"]

VOID_AUDIT_WAIT = 5.0
"""Seconds a void round waits for the present participants' audits before closing it."""

STEP_WAIT = 20.0
"""Seconds a participant has to send a masked message it owes (its shuffle step, a key
release, the reveal of its hand at the round's end, the automatic move its move timer
asked for) when the table has no move timer; with one, the move timer's seconds."""

STRIKES_OUT = 2
"""Missed deadlines (rounds) after which a participant leaves the private deal: from the
next round its seat is played by the host's bot."""

_TIMEOUT_REST = "timeout-rest"
"""The held action of a timed-out turn whose drawn card is still masked (`_private_split`)."""


class PrivateDealing:
    """Mixin of `rami_lan.table.machine.TableMachine` (uses its attributes)."""

    _masked: MaskedRound | None
    _model_deck: list[Card] | None
    _held_action: tuple[int | None, Any, int | None] | None
    _audit_wait: bool

    # ------------------------------------------------------------------ state

    def _private_init(self) -> None:
        """The machine's private-dealing state (called once, from its ``__init__``)."""
        self._host_keys = HostKeys()  # the seats' announced signing keys (`table/receipts.py`)
        self._owed_keys: set[int] = set()  # participants whose key a masked round waits for
        self._masked_void_marker: dict[str, int] | None = None
        """Private dealing: the round being played (journaled: a restart voids it)."""
        self._resume_void: int | None = None
        """Restored from a journal during a private round: that round is void."""
        self._masked = None
        self._masked_log: dict[int, list[dict[str, Any]]] = {}
        self._hand_told: dict[int, list[Any]] = {}
        """Connection -> the hand positions its last ``mk_hand`` gave (not sent again)."""
        self._masked_events: list[Any] = []
        self._model_deck = None
        self._held_action = None
        self._prompted: tuple[int, int] | None = None
        self._away_since: dict[int, float] = {}
        """seat -> when its connection dropped (cleared when it comes back)."""
        self._audit_wait = False
        self._audit_deadline: float | None = None
        self._setup_after_audit = False
        self._over_after_audit = False
        self._void_audit = False
        self._masked_seed = b""
        self._masked_m0: MatchState | None = None
        self._masked_key = b""
        """The seed of the host participant's secrets this round (journaled, never sent)."""
        self._mj: dict[str, Any] | None = None
        """Journal cursor of the private round being played (None: nothing to journal):
        how many calls and events are written, and the model last written."""
        self._handed_over: set[int] = set()
        """Seats whose player quit this round and handed over: the away bot plays at once."""
        self._mj_actions: list[list[Any]] = []
        """Actions applied since the last checkpoint, as [plain action, by] (for the record)."""
        self.masked_reports: list[Any] = []
        """Private dealing: each round's audit report (`rami_lan.masked.audit.AuditReport`)."""
        self._owner_held: list[tuple[int, list[E.Event]]] = []
        """The host's own seat: (seq, events) held while a card it drew is still masked."""
        self._owed_since: dict[int, tuple[float, str]] = {}
        """Participant -> since when it owes a masked message without a break, and what."""
        self._strikes: dict[int, set[int]] = {}
        """Participant -> the rounds (numbers) in which it missed a deadline, this match."""
        self._private_out: set[int] = set()
        """Seats out of the private deal (missed `STRIKES_OUT` deadlines): the host's bot
        plays them from the next round; they are no participant any more."""
        self._timeout_half: tuple[int, Any, MatchState] | None = None
        """A timed-out turn split in two (its drawn card is masked): (seat, turn key, the
        match before the timeout), the second half played once the card is known."""
        self._turn_waiting = False
        """The turn's player still waits for its cards: its move timer starts when they are in."""

    # ------------------------------------------------------------------ start

    def _private_participants(self) -> tuple[int, ...]:
        """Remote seats holding their own keys (humans and `join --bot`): the next round's
        players, and eliminated players still at the table (they follow and check it)."""
        return tuple(
            s for s in sorted(self.seats)  # type: ignore[attr-defined]
            if self.seats[s].kind == "human" and self.seats[s].conn is not None  # type: ignore[attr-defined]
            and s != self.host_seat and not self.seats[s].left  # type: ignore[attr-defined]
            and s not in self._private_out)

    def _private_start(self, ctx: Any, seed: bytes, now: float) -> bool:
        """Begin a masked round (True), or say the round is dealt as before (False)."""
        if not self.config.private_deal:  # type: ignore[attr-defined]
            return False
        remote = self._private_participants()
        if not remote:
            return False  # nobody but the host holds keys: nothing to hide from anyone
        v = self.variant  # type: ignore[attr-defined]
        self._masked_key = self.entropy(32)  # type: ignore[attr-defined]
        mr = MaskedRound(ctx.tag, self.host_seat, remote + (self.host_seat,),  # type: ignore[attr-defined]
                         v.deck_size, host_randomness(self._masked_key))
        mr.sign_with(self._host_keys.roster(ctx.tag, self.host_seat, mr.participants, self._masked_key))  # type: ignore[attr-defined]
        self._masked = mr
        self._masked_seed = seed
        self._masked_events: list[E.Event] = []
        self._model_deck = None
        self._held_action = None
        self._handed_over = set()
        self._owed_since = {}
        self._timeout_half = None
        self.stage = Stage.SHUFFLE
        self._owed_keys = {s for s in remote if s not in self._host_keys.announced}
        if mr.signing is None and self._owed_keys:
            # A seat's key is still on its way (a restarted host, its players just back):
            # the shuffle begins once it is in (`masked`), or its deadline names the seat.
            self._masked_log = {s: [] for s in mr.blind}
            mr.start()  # (nothing of it is sent: a void for a missing key then audits as usual)
            return True
        self._private_greet(mr)
        self._private_route(mr.start(), now)
        return True

    def _private_greet(self, mr: MaskedRound) -> None:
        """``mk_round`` to every blind seat: the first message of its log."""
        self._masked_log: dict[int, list[dict[str, Any]]] = {s: [] for s in mr.blind}
        self._hand_told = {}  # a client forgets its hand's positions at ``mk_round``
        # ``rid`` tells this masked round from another with the same tag (the host
        # restarted during the shuffle and shuffles again); the same after a resume.
        rid = hashlib.sha256(b"rami-lan masked round id" + self._masked_key).digest()[:8]
        for s in sorted(mr.blind):
            self._private_send(s, {"k": "mk_round", "tag": mr.p.tag, "host": self.host_seat,  # type: ignore[attr-defined]
                                   "participants": list(mr.participants), "n": mr.p.table.n_cards,
                                   "rid": rid, **(mr.signing.roster.to_plain() if mr.signing else {})})
        self._private_tell_owner({"k": "mk_own", "tag": mr.p.tag})

    def _private_tell_owner(self, plain: dict[str, Any]) -> None:
        """The host's own player (``mk_own``, ``mk_orders``): its seat's keys are the
        host's, so its client is no participant, but its verifier must know that the
        round is dealt from a masked deck and, at the end, the audited orders."""
        mr = self._masked
        for seat, info in self.seats.items():  # type: ignore[attr-defined]
            # the host's own player, and a player out of this round's masked deck (it left
            # the private deal: the host's bot plays its seat with the host's keys)
            if info.conn is None or (seat != self.host_seat  # type: ignore[attr-defined]
                                     and (mr is None or seat in mr.participants)):
                continue
            self._send(info.conn, F.Msg("masked", {"m": plain}))  # type: ignore[attr-defined]

    def _private_send(self, seat: int, plain: dict[str, Any]) -> None:
        if plain.get("k") != "mk_hand":  # kept for a reconnect (`_private_resync`)
            self._masked_log.setdefault(seat, []).append(plain)
        conn = self.seats[seat].conn  # type: ignore[attr-defined]
        if conn is not None:
            self._send(conn, F.Msg("masked", {"m": plain}))  # type: ignore[attr-defined]

    def _private_resync(self, conn: int, seat: int) -> None:
        """A blind seat came back: everything masked it was sent this round, again, with
        the round's public events (``mk_sync``) right after the deal, so its participant
        makes every assignment it missed. The client drops what it already had."""
        mr = self._masked
        self._hand_told.pop(conn, None)
        if mr is not None and seat == self.host_seat and mr.phase.value != "idle":  # type: ignore[attr-defined]
            self._private_tell_owner({"k": "mk_own", "tag": mr.p.tag})
            return
        if mr is None or seat not in mr.blind or mr.phase.value in ("complete", "idle"):
            return
        from rami_lan.core.codec import event_to_plain

        sync = {"k": "mk_sync", "events": [event_to_plain(e.for_seat(None), self.variant)  # type: ignore[attr-defined]
                                           for e in self._masked_events]}
        log = self._masked_log.get(seat, [])
        cut = next((k + 1 for k, plain in enumerate(log) if plain.get("k") == "mk_deal"), len(log))
        for plain in [*log[:cut], sync, *log[cut:]]:
            self._send(conn, F.Msg("masked", {"m": plain}))  # type: ignore[attr-defined]

    # ------------------------------------------------------------------ input

    def masked(self, conn: int, plain: Any, now: float) -> list[F.Effect]:
        """A masked-deck message from a client: checked, used, relayed."""
        seat = self.conns.get(conn)  # type: ignore[attr-defined]
        mr = self._masked
        if seat is None:
            return self._flush(now)  # type: ignore[attr-defined]
        if isinstance(plain, dict) and plain.get("k") == ANNOUNCE:  # a seat's signing key
            why = self._host_keys.announce(seat, plain)
            if why:
                self._error(conn, "bad_masked", why)  # type: ignore[attr-defined]
            elif lost_round_key(mr, seat, plain):  # relaunched without its keys: no waiting for it
                self._owed_since[seat] = (now, "its keys of this round (its process lost them)")
                self._private_late(seat, now)
            elif (mr is not None and mr.signing is None and self._owed_keys
                  and self.stage is Stage.SHUFFLE and self._round is not None  # type: ignore[has-type,attr-defined]
                  and self._host_keys.roster(mr.p.tag, self.host_seat, mr.participants, b"\0" * 32)):  # type: ignore[attr-defined]
                # The shuffle waited for this key (`_private_start`): it begins now, signed.
                self._private_start(self._round, self._masked_seed, now)  # type: ignore[attr-defined]
            return self._flush(now)  # type: ignore[attr-defined]
        if mr is None:  # e.g. a client's audit of a round a host restart voided: dropped
            return self._flush(now)  # type: ignore[attr-defined]
        try:
            routed = mr.receive(seat, plain)
        except ValueError as exc:
            self._error(conn, "bad_masked", str(exc))  # type: ignore[attr-defined]
            return self._flush(now)  # type: ignore[attr-defined]
        self._private_route(routed, now)
        return self._flush(now)  # type: ignore[attr-defined]

    # ------------------------------------------------------------------ routing

    def _private_route(self, routed: Routed, now: float) -> None:
        mr = self._masked
        assert mr is not None
        self._private_deliver(mr, routed)
        for real, stand_in in routed.swaps:
            self._private_swap(real, stand_in)
        self._private_owner_flush()
        for fault in routed.faults:
            self._private_fault(fault)
            if fault.seat is not None and fault.seat in mr.participants and fault.seat != self.host_seat:  # type: ignore[attr-defined]
                self._private_strike(fault.seat, fault.kind.name, late=False)  # proven: a fault
        for seat in routed.left:
            self._private_left(seat)
        if 0 in routed.ready and self._model_deck is None:
            self._private_layout(now)
        if routed.report is not None:
            self._private_report(routed.report, now)
        self._private_progress(now)

    def _private_deliver(self, mr: MaskedRound, routed: Routed) -> None:
        for d in routed.deliveries:
            if d.to is not None:
                if d.to in mr.blind:
                    self._private_send(d.to, d.plain)
            else:
                for s in mr.participants:
                    if s in mr.blind and s != d.skip:
                        self._private_send(s, d.plain)

    def _private_left(self, seat: int) -> None:
        """A player left for good mid-round and gave the host its hand (``mk_give``, then
        ``mk_handover``): its seat is no longer blind, the model holds its real cards, and
        the host's away bot plays it as at any table (its client is gone)."""
        m = self.match  # type: ignore[attr-defined]
        r = m.round
        self._away_since.pop(seat, None)
        if r is None or r.phase == "over":
            return  # it left as the round ended: its hand-over stands for its audit
        if seat in r.blind:
            self.match = replace(m, round=replace(r, blind=r.blind - {seat}))  # type: ignore[attr-defined]
        self._handed_over.add(seat)
        self._notice(f"seat {seat + 1} left the table and gave its hand over: the host's bot "  # type: ignore[attr-defined]
                     "plays it for the rest of this round", "seat_handed_over", seat=seat)

    def _private_progress(self, now: float) -> None:
        mr = self._masked
        if mr is None or mr.waiting():
            return
        if self.stage is Stage.SHUFFLE and self._model_deck is not None:  # type: ignore[has-type]
            self._private_deal(now)
        elif self._held_action is not None and not self._private_hidden_hands():
            conn, action, seq = self._held_action
            self._held_action = None
            if action == _TIMEOUT_REST:
                self._private_rest(now)
            else:
                self.try_apply(conn, action, seq, now)  # type: ignore[attr-defined]
        elif self._timeout_half is not None and self._held_action is None:
            self._private_rest(now)

    # ------------------------------------------------------------------ the deal

    def _private_layout(self, now: float) -> None:
        """Deck 0 is ready: deal the model once for the layout, and assign every position."""
        mr = self._masked
        assert mr is not None
        if self._cards is None:  # type: ignore[has-type]
            from rami_lan.core.cards import card_from_id

            v = self.variant  # type: ignore[attr-defined]
            self._cards = [card_from_id(i, v.n_decks, v.n_jokers) for i in range(v.deck_size)]
        self._model_deck = list(self._cards)
        _m, evs = start_round(self.match, self._model_deck, self._masked_seed)  # type: ignore[attr-defined]
        started = next(e for e in evs if isinstance(e, E.RoundStarted))
        dealt = [(e.seat, e.positions) for e in evs if isinstance(e, E.CardsDealt)]
        seats = deal_assignments(dealt, len(started.players) * started.hand_size)
        self._private_route(mr.assign_deal(seats), now)

    def _private_deal(self, now: float) -> None:
        """Every card the host must know is known: deal the model and go on as usual."""
        mr = self._masked
        assert mr is not None and self._model_deck is not None
        ctx = self._round  # type: ignore[attr-defined]
        new_m, evs = self.deal_private(self.match, self._model_deck, self._masked_seed,  # type: ignore[attr-defined]
                                       mr.blind)
        self._model_deck = []
        self._masked_m0 = self.match  # type: ignore[attr-defined]
        ctx.started = True
        self.stage = Stage.PLAYING
        record = self.record  # type: ignore[attr-defined]
        if record is not None:  # the deck is known only from the audit: see `_private_record`
            record.begin_round(self, ctx.tag, ctx.commit, [], self._masked_seed)
            record.set_round_players(new_m)
        if self._journal_on:  # type: ignore[attr-defined]
            # The match before this round, marked as being played, with what a restart
            # needs to go on with it (`_private_header`); every change after it is a
            # ``private`` record (`_private_checkpoint`). Should that fail, the round is void.
            self._masked_void_marker = {"round_no": new_m.round_no, "dealer": new_m.dealer}
            self._mj = {"calls": 0, "events": 0, "match": None}
            self._mj_actions = []
            self._out.append(F.JournalSnapshot(self.snapshot(self._masked_m0, self.seq)))  # type: ignore[attr-defined]
        self._commit_change(new_m, evs, now)  # type: ignore[attr-defined]

    def deal_private(self, m: MatchState, cards: list[Card], seed: bytes,
                     blind: frozenset[int]) -> tuple[MatchState, list[E.Event]]:
        """Deal the model: the core with ``blind`` seats and refills kept in the pile's order."""
        return start_round(m, cards, seed, blind=blind, refills=())

    # ------------------------------------------------------------------ journal

    def _private_header(self) -> dict[str, Any] | None:
        """The journal snapshot's part for the private round being played (None: none):
        what a restarted host needs to make the same masked round again."""
        mr = self._masked
        if self._mj is None or mr is None or self._masked_m0 is None:
            return None
        from rami_lan.core.codec import match_to_plain

        header = {"key": self._masked_key, "tag": mr.p.tag, "participants": list(mr.participants),
                  "n": mr.p.table.n_cards, "seed": self._masked_seed,
                  "m0": match_to_plain(self._masked_m0), "sigkeys": self._host_keys.to_plain(mr.signing)}
        if self._mj.get("over"):  # the round is over, its audit awaited: the snapshot holds
            from rami_lan.core.codec import event_to_plain  # every call and event so far

            v = self.variant  # type: ignore[attr-defined]
            header["calls"] = list(mr.calls)
            header["events"] = [event_to_plain(e.for_seat(None), v) for e in self._masked_events]
            self._mj.update(calls=len(mr.calls), events=len(self._masked_events))
        return header

    def _private_checkpoint(self) -> None:
        """After each input during a private round: one ``private`` journal record with
        the masked-round calls it made, the model if it changed, the public events and the
        actions, placed before this input's messages (write-ahead). Only a record with an
        action is fsync'd; a restart that lost the others is made whole by the clients,
        which send their messages again when the host resyncs them (``mk_sync``; the host
        drops duplicates)."""
        mj, mr = self._mj, self._masked
        if mj is None or mr is None or not self._journal_on:  # type: ignore[attr-defined]
            return
        calls = mr.calls[mj["calls"]:]
        events = self._masked_events[mj["events"]:]
        changed = self.match is not mj["match"]  # type: ignore[attr-defined]
        if not (calls or events or changed or self._mj_actions):
            return
        from rami_lan.core.codec import event_to_plain, match_to_plain

        v = self.variant  # type: ignore[attr-defined]
        body = {"seq": self.seq,  # type: ignore[attr-defined]
                "calls": calls,
                "match": match_to_plain(self.match) if changed else None,  # type: ignore[attr-defined]
                "events": [event_to_plain(e.for_seat(None), v) for e in events],
                "actions": self._mj_actions}
        out = self._out  # type: ignore[attr-defined]
        at = max((k + 1 for k, eff in enumerate(out) if isinstance(eff, F.JournalSnapshot)), default=0)
        out.insert(at, F.JournalAppend("private", body, sync=bool(self._mj_actions)))
        mj.update(calls=len(mr.calls), events=len(self._masked_events), match=self.match)  # type: ignore[attr-defined]
        self._mj_actions = []

    def _private_restore(self, header: dict[str, Any], bodies: list[dict[str, Any]]) -> None:
        """A restarted host goes on with the private round its journal holds: the masked
        round made again from its calls (the same secrets from the journaled seed), the
        model as last written, the per-seat logs rebuilt from what the calls sent.
        Raises (ValueError, KeyError, TypeError, ...) if the journal does not fit."""
        from rami_lan.core.cards import card_from_id
        from rami_lan.core.codec import event_from_plain, match_from_plain

        v = self.variant  # type: ignore[attr-defined]
        ctx = self._round  # type: ignore[attr-defined]
        if ctx is None or ctx.tag != bytes(header["tag"]):
            raise ValueError("the journal's private round is not the round being played")
        key = bytes(header["key"])
        mr = MaskedRound(bytes(header["tag"]), self.host_seat,  # type: ignore[attr-defined]
                         [int(x) for x in header["participants"]], int(header["n"]), host_randomness(key))
        self._masked_key = key
        self._host_keys.restore(header.get("sigkeys"))
        mr.sign_with(self._host_keys.roster(mr.p.tag, self.host_seat, mr.participants, key))  # type: ignore[attr-defined]
        self._private_greet(mr)
        over = "calls" in header  # the round was over, its audit awaited (`_private_header`)
        calls = [*header.get("calls", ()), *(c for b in bodies for c in b["calls"])]
        self._private_deliver(mr, mr.replay(calls))
        model = next((b["match"] for b in reversed(bodies) if b["match"] is not None), None)
        phases = ("playing", "shuffling", "auditing") if over else ("playing", "shuffling")
        if (model is None and not over) or not mr.ready(0) or mr.phase.value not in phases:
            raise ValueError("the journal holds no dealt private round")  # (shuffling: a refill)
        self._masked = mr
        self._masked_seed = bytes(header["seed"])
        self._masked_m0 = match_from_plain(header["m0"])
        if model is not None:
            self.match = match_from_plain(model)  # type: ignore[attr-defined]
        self._masked_events = [event_from_plain(e, v) for e in header.get("events", ())]
        self._masked_events += [event_from_plain(e, v) for b in bodies for e in b["events"]]
        record = self.record  # type: ignore[attr-defined]
        if record is not None and not over:  # (over: the snapshot's record holds them all)
            for b in bodies:
                for plain, by in b["actions"]:
                    record.log_action(plain, str(by))
        self._cards = [card_from_id(i, v.n_decks, v.n_jokers) for i in range(v.deck_size)]
        self._model_deck = []
        self.stage = Stage.PLAYING
        ctx.started = True
        r = self.match.round  # type: ignore[attr-defined]
        if over:  # its audit goes on: the participants send theirs again when resynced
            if r is None or r.phase != "over":
                raise ValueError("the journal's private round is not over")
            self._audit_wait = True
            self._mj = {"calls": len(mr.calls), "events": len(self._masked_events),  # type: ignore[attr-defined]
                        "match": self.match, "over": True}
            return
        self._masked_void_marker = {"round_no": self.match.round_no, "dealer": self.match.dealer}  # type: ignore[attr-defined]
        if r is None or r.phase == "over":
            raise ValueError("the journal's private round is over")
        self._mj = {"calls": len(mr.calls), "events": len(self._masked_events), "match": self.match}  # type: ignore[attr-defined]

    # ------------------------------------------------------------------ the model

    def _card_no(self, card: Card) -> int:
        return card_id(card, self.variant.n_decks)  # type: ignore[attr-defined]

    def _private_swap(self, real: int, stand_in: int) -> None:
        """``real`` is where ``stand_in`` was in the model: exchange the two cards."""
        a, b = self._cards[real], self._cards[stand_in]  # type: ignore[index]

        def sw(c: Card | None) -> Card | None:
            return b if c == a else a if c == b else c

        if self._model_deck:
            self._model_deck = [sw(c) for c in self._model_deck]  # type: ignore[misc]
        self.match = _swapped(self.match, sw)  # type: ignore[attr-defined]
        if self._timeout_half is not None:
            seat, key, before = self._timeout_half
            self._timeout_half = (seat, key, _swapped(before, sw))
        for buf in [*self._bot_events.values(), *(evs for _, evs in self._owner_held)]:  # type: ignore[attr-defined]
            for k, ev in enumerate(buf):
                if isinstance(ev, E.StockDrawn) and ev.card in (a, b):
                    buf[k] = replace(ev, card=sw(ev.card))
                elif isinstance(ev, E.CardsDealt) and ev.cards and (a in ev.cards or b in ev.cards):
                    buf[k] = replace(ev, cards=tuple(sw(c) for c in ev.cards))  # type: ignore[misc]

    def _private_owner_holds(self, seat: int, m: MatchState, evs: list[E.Event]) -> bool:
        """The host's own seat while a card of its hand is still masked from the host (the
        keys of its draw are on their way): its events wait, the model's swaps applied to
        them, and go out with a fresh view once the card is known (`_private_owner_flush`).
        Its player never sees a stand-in. True: held."""
        mr = self._masked
        if mr is None or seat != self.host_seat or seat in mr.blind:  # type: ignore[attr-defined]
            return False
        if not self._owner_held and not self._private_owner_hidden(m):
            return False
        self._owner_held.append((self.seq, list(evs)))  # type: ignore[attr-defined]
        return True

    def _private_owner_hidden(self, m: MatchState) -> bool:
        mr, r, seat = self._masked, m.round, self.host_seat  # type: ignore[attr-defined]
        if mr is None or r is None or seat not in r.players or r.phase == "over":
            return False
        return any(mr.position_of(self._card_no(c)) is not None for c in r.hands[seat])

    def _private_owner_flush(self) -> None:
        if not self._owner_held or self._private_owner_hidden(self.match):  # type: ignore[attr-defined]
            return
        held, self._owner_held = self._owner_held, []
        seat = self.host_seat  # type: ignore[attr-defined]
        conn = self.seats[seat].conn  # type: ignore[attr-defined]
        if conn is None:
            return
        from rami_lan.core.views import view_for

        for seq, evs in held:
            if evs:
                self._send(conn, F.Msg("events", {"seq": seq, "events": [e.for_seat(seat) for e in evs]}))  # type: ignore[attr-defined]
        self._send(conn, F.Msg("view", {"seq": self.seq, "view": view_for(self.match, seat)}))  # type: ignore[attr-defined]

    def _private_hidden_hands(self) -> bool:
        """Does a blind seat's hand still hold a card the host has not seen?"""
        mr = self._masked
        r = self.match.round  # type: ignore[attr-defined]
        if mr is None or r is None:
            return False
        return any(mr.position_of(self._card_no(c)) is not None
                   for s in mr.blind for c in r.hands[s])

    # ------------------------------------------------------------------ each change

    def _private_redact(self, ev: E.Event, seat: int) -> E.Event:
        """What ``seat`` sees of an event: a blind seat gets its own hidden cards blank
        (the host does not know them; its client fills them in from its keys)."""
        mr = self._masked
        if mr is None or seat not in mr.blind:
            return ev.for_seat(seat)
        if (isinstance(ev, E.StockDrawn) and ev.reshuffle > 0
                and self.variant.stock_rule == "turn_over"):  # type: ignore[attr-defined]
            return ev.for_seat(seat)  # a turned-over pile is public: the host knows the card
        return ev.for_seat(None)

    def _private_hand(self, m: MatchState, seat: int) -> None:
        """Before a blind seat's view: where each card of its hand lies in the masked deck.

        Sent only when that differs from what this connection was last told: the client
        keeps the positions until the next ``mk_hand`` or ``mk_round``, and most views
        (the others' moves) leave a hand as it was."""
        mr = self._masked
        if mr is None or seat not in mr.blind or m.round is None or seat not in m.round.players \
                or m.round.phase == "over":
            return
        ids = [self._card_no(c) for c in m.round.hands[seat]]
        pos = mr.hand_positions(ids)
        conn = self.seats[seat].conn  # type: ignore[attr-defined]
        if conn is not None and self._hand_told.get(conn) == pos:
            return
        if conn is not None:
            self._hand_told[conn] = pos
        self._private_send(seat, {"k": "mk_hand", "pos": pos})

    def _private_view(self, m: MatchState, seat: int) -> Any:
        """The view for ``seat``. A blind seat's own hidden cards are nil in it: the host
        does not know them (its model holds stand-ins there); ``mk_hand`` says where each
        lies, and the seat's client fills its real cards in."""
        from rami_lan.core.views import view_for

        view = view_for(m, seat)
        mr = self._masked
        if mr is None or seat not in mr.blind or not view.hand:
            return view
        return replace(view, hand=tuple(None if mr.position_of(self._card_no(c)) is not None else c
                                        for c in view.hand))

    def _private_before(self, m: MatchState, evs: list[E.Event], now: float) -> None:
        """Cards the host holds that this change makes public: reveal them first."""
        mr = self._masked
        if mr is None or not evs:
            return
        for c in [c for ev in evs for c in _event_cards(ev)]:
            pos = mr.held_position(self._card_no(c))
            if pos is not None:
                self._private_route(mr.reveal(*pos), now)

    def _private_note(self, evs: list[E.Event]) -> list[Routed]:
        """Before the change goes out: the model's new stock generation and draws are
        noted (so ``mk_hand`` can name the positions); what they send waits."""
        mr = self._masked
        out: list[Routed] = []
        if mr is None:
            return out
        self._masked_events += evs
        if self._journal_on and any(  # type: ignore[attr-defined]
                isinstance(e, E.RoundEnded | E.RoundVoided) for e in evs):
            self._masked_void_marker = None  # the round is over: the journal holds its end
            if self._mj is not None and not any(isinstance(e, E.RoundVoided) for e in evs):
                # Its audit is still to come: the snapshot keeps the masked round (its
                # calls so far, `_private_header`) and what the audit brings is journaled,
                # so a host killed before the audit is in takes the audit up again.
                self._mj["over"] = True
            else:
                self._mj = None
            self._out.append(F.JournalSnapshot(self.snapshot(self.match, self.seq)))  # type: ignore[attr-defined]
        for ev in evs:
            if isinstance(ev, E.StockRefilled):
                out.append(mr.refilled(ev.reshuffle, [self._card_no(c) for c in ev.pile], ev.shuffled))
            elif isinstance(ev, E.StockDrawn):
                out.append(mr.drawn(ev.reshuffle, ev.position, ev.seat))
        return out

    def _private_after(self, evs: list[E.Event], noted: list[Routed], now: float) -> None:
        """After the events went out: the key releases and mask passes they caused."""
        mr = self._masked
        if mr is None:
            return
        for routed in noted:
            self._private_route(routed, now)
        if any(isinstance(ev, E.RoundEnded) for ev in evs):
            self._audit_wait = True
            self._audit_deadline = now + self.config.audit_timeout  # type: ignore[attr-defined]
            self._private_route(mr.publish_audit(), now)

    def _private_unproven(self, evs: list[E.Event]) -> str:
        """Why a change may not happen: it makes public a card the host has not seen
        revealed (a stand-in of its model). Empty: it may."""
        mr = self._masked
        if mr is None:
            return ""
        for ev in evs:
            if isinstance(ev, E.RoundEnded):
                continue  # every hand is shown first (`_private_hold`)
            for c in _event_cards(ev):
                where = mr.position_of(self._card_no(c))
                if where is not None:
                    return (f"{c} is not proven to be in the hand: reveal deck {where[0]} "
                            f"position {where[1]} first (private dealing)")
        return ""

    def _private_claim(self, action: Any) -> str:
        """Why a blind seat's take from the pile is refused (empty: it is not): judged as a
        plain host judges it, on the cards of its hand revealed to the host
        (`rami_lan.table.private_claims`)."""
        from rami_lan.core import actions as A
        from rami_lan.table.private_claims import discard_refusal, take_refusal

        mr = self._masked
        r = self.match.round  # type: ignore[attr-defined]
        if (mr is None or r is None or not isinstance(action, A.DrawDiscard | A.Discard)
                or action.seat not in mr.blind):
            return ""
        hand = r.hands[action.seat]
        known = [c for c in hand if mr.position_of(self._card_no(c)) is None]
        if isinstance(action, A.Discard):  # (its own card is revealed with it: not counted)
            unknown = sum(1 for c in hand
                          if c != action.card and mr.position_of(self._card_no(c)) is not None)
            return discard_refusal(self.match, action, unknown)  # type: ignore[attr-defined]
        return take_refusal(self.match, action, known, len(hand) - len(known))  # type: ignore[attr-defined]

    def _private_hold(self, conn: int | None, action: Any, seq: int | None, evs: list[E.Event],
                      now: float) -> bool:
        """An action would end the round while blind hands are unseen: show them first."""
        mr = self._masked
        if mr is None or not any(isinstance(e, E.RoundEnded) for e in evs):
            return False
        if not self._private_hidden_hands():
            return False
        self._held_action = (conn, action, seq)
        # The show carries the ending action's public events and the end's reason: each
        # client's own replay must say they end the round before it reveals its hand. The
        # cards the host holds that the action plays are revealed first (the proof).
        at = next(k for k, e in enumerate(evs) if isinstance(e, E.RoundEnded))
        ending, end = evs[:at], evs[at]
        assert isinstance(end, E.RoundEnded)
        self._private_before(self.match, ending, now)  # type: ignore[attr-defined]
        from rami_lan.core.codec import event_to_plain

        self._private_route(mr.show([event_to_plain(e.for_seat(None), self.variant)  # type: ignore[attr-defined]
                                     for e in ending], str(getattr(end.reason, "value", end.reason)),
                                    end.winner), now)
        return True

    # ------------------------------------------------------------------ outcome

    def _private_fault(self, fault: Fault) -> None:
        who = "nobody yet" if fault.seat is None else f"seat {fault.seat + 1}" \
            if fault.seat != self.host_seat or not self.config.headless else "the host"  # type: ignore[attr-defined]
        self._notice(f"private dealing: {fault.kind.name} by {who}: {fault.evidence[:200]}",  # type: ignore[attr-defined]
                     "private_deal_fault", kind=fault.kind.name, seat=fault.seat)

    def _private_report(self, report: AuditReport, now: float) -> None:
        self.masked_reports.append(report)  # type: ignore[attr-defined]
        mr = self._masked
        if mr is not None:
            self._private_tell_owner({
                "k": "mk_orders", "tag": mr.p.tag,
                "orders": [[d, list(o)] for d, o in sorted(report.orders.items())],
                "gens": [[g, d] for g, d in sorted(mr.gen_decks().items())],
                "faults": [f"{f.kind.name} by seat {f.seat}: {f.evidence}"[:500]
                           for f in report.faults][:64]})
        self._private_record(report)
        # A participant that left (or missed its audit's deadline) was told as such when
        # it happened: its missing audit is no fault of the round's dealing.
        faults = [f for f in report.faults
                  if not (f.kind is FaultKind.MISSING_AUDIT and f.seat is not None
                          and (self._private_struck(f.seat) or self.seats[f.seat].conn is None))]  # type: ignore[attr-defined]
        if faults:
            named = sorted({f.seat for f in faults if f.seat is not None})
            self._notice(f"private dealing: the round's audit found {len(faults)} fault(s); seats "  # type: ignore[attr-defined]
                         f"named: {', '.join(str(s + 1) for s in named) or '-'}", "private_audit_faults",
                         count=len(faults), seats=named)
        if self._audit_wait:
            self._audit_wait = False
            self._private_resume(now)

    def _private_record(self, report: AuditReport) -> None:
        """The round goes into the match record once its audit is in: the deck order from
        the audit, the true events replayed from it and the accepted actions, and the
        broadcast masked messages (so `rami-lan verify` recomputes the audit)."""
        record, mr, ctx = self.record, self._masked, self._round  # type: ignore[attr-defined]
        cur = getattr(record, "_current", None)
        if record is None or mr is None or ctx is None or cur is None:
            return
        from rami_lan.core.codec import action_from_plain, event_to_plain
        from rami_lan.core.match import apply

        v = self.variant  # type: ignore[attr-defined]
        if any(isinstance(e, E.RoundVoided) for e in self._masked_events):
            # A void round: nothing of it counts, and its deck order may not be known (a
            # participant's secrets are missing). The record keeps its public events.
            cur["events"] = [event_to_plain(e.for_seat(None), v) for e in self._masked_events]
            cur["n_cards"] = v.deck_size
            record.end_round(self.match, ctx.secrets(), ctx.excluded(), abandoned=True)  # type: ignore[attr-defined]
            self._out.append(F.WriteRecord(record.to_plain()))  # type: ignore[attr-defined]
            self._private_record_journaled()
            return
        cards = self._cards
        orders = dict(report.orders)
        gens = dict(mr.gen_decks())
        events: list[E.Event] = []
        if 0 in orders and cards is not None:
            refills = audited_refills(cards, orders, gens)
            try:
                m, events = start_round(self._masked_m0, [cards[i] for i in orders[0]],  # type: ignore[index]
                                        self._masked_seed, refills=refills)
                for plain in cur.get("actions", []):
                    m, more = apply(m, action_from_plain(plain, v))
                    events += more
            except Exception as exc:  # noqa: BLE001 - a false claim: the record shows where
                cur["replay_error"] = str(exc)[:500]
        cur["deck"] = list(orders.get(0, ()))
        cur["n_cards"] = v.deck_size
        cur["events"] = [event_to_plain(e, v) for e in events]
        cur["masked"] = {
            "decks": [[d, list(ids), list(mr.participants)] for d, ids in mr.deck_cards()],
            "gen_decks": {str(g): d for g, d in gens.items()},
            "orders": {str(d): list(o) for d, o in orders.items()},
            "messages": [msgpack.packb(plain, use_bin_type=True).hex() for plain in mr.broadcast],
        }
        record.end_round(self.match, ctx.secrets(), ctx.excluded())  # type: ignore[attr-defined]
        self._out.append(F.WriteRecord(record.to_plain()))  # type: ignore[attr-defined]
        self._private_record_journaled()

    def _private_record_journaled(self) -> None:
        """The round's record entry is complete (its audit is in): a new snapshot holds
        it, so a host killed between this round's end and the next deal resumes with it
        (the snapshot at the round's end holds the entry still empty)."""
        self._mj = None  # nothing of the masked round is left to take up
        if self._journal_on:  # type: ignore[attr-defined]
            self._out.append(F.JournalSnapshot(self.snapshot(self.match, self.seq)))  # type: ignore[attr-defined]

    # ------------------------------------------------------------------ liveness

    def _private_step_wait(self) -> float:
        """Seconds a participant has for a masked message it owes (`STEP_WAIT`, or the
        move timer where the table has one)."""
        timer = self.config.timer  # type: ignore[attr-defined]
        return float(timer) if timer > 0 else STEP_WAIT

    def _private_owed(self) -> dict[int, str]:
        """Participant -> what the table waits for from it now (empty: nobody). Only what
        nobody else can send: its shuffle step, its key releases, the reveal of its hand
        at the round's end, and (blind seat) its own move once its move timer asked for
        it, or at once while its connection is gone."""
        mr = self._masked
        if mr is not None and mr.signing is None and self._owed_keys and self.stage is Stage.SHUFFLE:  # type: ignore[has-type]
            return {s: "its signing key (mk_seatkey)" for s in sorted(self._owed_keys)
                    if s not in self._host_keys.announced}
        if mr is None or mr.phase.value not in ("shuffling", "playing"):
            return {}
        m = self.match  # type: ignore[attr-defined]
        r = m.round
        if self.stage is not Stage.SHUFFLE and (  # type: ignore[has-type]
                self.stage is not Stage.PLAYING or r is None or m.phase not in ("draw", "play")):  # type: ignore[has-type]
            return {}
        owed = mr.owed()
        if self._held_action is not None and r is not None:
            for s in sorted(mr.blind):
                if s not in owed and any(mr.position_of(self._card_no(c)) is not None for c in r.hands[s]):
                    owed[s] = "the reveal of its hand (the round's end)"
        if self.stage is Stage.PLAYING and r is not None and r.turn in mr.blind and r.turn not in owed:  # type: ignore[has-type]
            st = self.seats[r.turn]  # type: ignore[attr-defined]
            if st.conn is None and r.turn not in self._handed_over:
                owed[r.turn] = "its move"
            elif self._prompted == self._turn_key:  # type: ignore[attr-defined]
                owed[r.turn] = "its automatic move (its move timer ran out)"
        return owed

    def _private_watch(self, now: float) -> None:
        """After each input: who owes what since when; the turn's move timer starts once
        its player has its cards; a void round's audit closes once only the one it was
        void for is missing."""
        owed = self._private_owed()
        since = self._owed_since
        for s in [s for s in since if s not in owed]:
            del since[s]
        for s, what in owed.items():  # since: the first moment of an unbroken debt
            since[s] = (since[s][0] if s in since else now, what)
        if self._turn_waiting and not self._private_mover_waits():
            self._turn_waiting = False
            self._turn_started = max(self._turn_started, now)  # type: ignore[has-type]
        mr = self._masked
        if self._audit_wait and self._void_audit and mr is not None:
            missing = mr.p.missing_audits()
            if missing and all(self._private_struck(s) or self.seats[s].conn is None  # type: ignore[attr-defined]
                               for s in missing):
                self._audit_deadline = min(self._audit_deadline or now, now)

    def _private_mover_waits(self) -> bool:
        """Does the player whose turn it is still wait for cards of its hand (its keys)?"""
        mr = self._masked
        m = self.match  # type: ignore[attr-defined]
        r = m.round
        if mr is None or r is None or m.phase not in ("draw", "play"):
            return False
        s = r.turn
        if s in mr.blind:
            return mr.owed_to(s) or self.stage is not Stage.PLAYING  # type: ignore[has-type]
        if s == self.host_seat:  # type: ignore[attr-defined]
            return bool(self._owner_held) or self._private_owner_hidden(m)
        return False

    def _private_struck(self, seat: int) -> bool:
        """Did ``seat`` miss a deadline in this round already (it is waited for no more)?"""
        return self.match.round_no in self._strikes.get(seat, set())  # type: ignore[attr-defined]

    def _private_void_at(self) -> tuple[float | None, int | None]:
        """When the first participant owing a message runs out of time, and which (a
        seat that already missed a deadline this round: at once; a gone one: no sooner
        than `masked_wait` after it left)."""
        wait = self._private_step_wait()
        best: tuple[float | None, int | None] = (None, None)
        for s, (at, _what) in self._owed_since.items():
            due = at if self._private_struck(s) else at + wait
            away = self._away_since.get(s)
            if away is not None and self.seats[s].conn is None and not self._private_struck(s):  # type: ignore[attr-defined]
                due = max(due, away + self.config.masked_wait)  # type: ignore[attr-defined]
            if best[0] is None or due < best[0]:
                best = (due, s)
        return best

    def _private_late(self, seat: int, now: float) -> None:
        """``seat`` did not send what it owed in time: it is named (as "left" if its
        connection is gone), and the round, which can not go on without it, is void."""
        what = self._owed_since.get(seat, (now, "a masked message"))[1]
        self._owed_since.pop(seat, None)
        self._private_strike(seat, what)
        self._private_void(seat, now)

    def _private_strike(self, seat: int, what: str, late: bool = True) -> None:
        """A missed deadline (``late``) or a proven fault (named already): once a round;
        the second round it happens in a match, the seat leaves the private deal (the
        host's bot plays it from the next round)."""
        rounds = self._strikes.setdefault(seat, set())
        round_no = self.match.round_no  # type: ignore[attr-defined]
        if round_no in rounds:
            return
        rounds.add(round_no)
        gone = self.seats[seat].conn is None  # type: ignore[attr-defined]
        if not late:
            pass
        elif gone:
            self._notice(f"seat {seat + 1} left: the table waited for {what}",  # type: ignore[attr-defined]
                         "private_deal_late", seat=seat, left=True)
        else:
            self._notice(f"seat {seat + 1} did not send {what} in time",  # type: ignore[attr-defined]
                         "private_deal_late", seat=seat, left=False)
        if len(rounds) >= STRIKES_OUT and seat not in self._private_out:
            self._private_out.add(seat)
            self._notice(f"seat {seat + 1} missed private-dealing deadlines in {len(rounds)} rounds: it "  # type: ignore[attr-defined]
                         "leaves the private deal, and the host's bot plays its seat from the next round",
                         "private_deal_benched", seat=seat)

    def _private_benched(self, seat: int) -> bool:
        """Is ``seat`` out of the private deal (played by the host's bot)?"""
        return seat in self._private_out

    # ------------------------------------------------------------------ a timed-out turn

    def _private_split(self, action: Any, evs: list[E.Event], now: float) -> bool:
        """A move timer ran out for a seat the host holds (its own player's, a bot's) and
        the automatic move would throw away the card it draws, still masked: the draw goes
        out first (the events up to it), the rest once the drawn card's keys are in. The
        record has the one ``timeout`` action. False: not that case."""
        mr = self._masked
        m = self.match  # type: ignore[attr-defined]
        if mr is None or m.phase != "draw" or action.seat in mr.blind:
            return False
        k = next((i for i, e in enumerate(evs)
                  if isinstance(e, E.StockDrawn) and e.seat == action.seat), None)
        if k is None or self._private_unproven(evs[:k + 1]):
            return False
        from rami_lan.core import actions as A

        try:
            m_draw, _evs = self.apply_core(m, A.DrawStock(action.seat))  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - the stock could not be drawn: no split
            return False
        full, _ = self.apply_core(m, action)  # type: ignore[attr-defined]
        r = m_draw.round
        rf = full.round
        if r is None or rf is None:
            return False
        half = replace(m_draw, round=replace(r, timeouts=rf.timeouts, away=rf.away, must_use=()))
        self._private_log_action(action)
        self._timeout_half = (action.seat, None, m)
        self._commit_change(half, evs[:k + 1], now)  # type: ignore[attr-defined]
        self._timeout_half = (action.seat, self._turn_key, self._timeout_half[2])  # type: ignore[attr-defined]
        self._private_progress(now)
        return True

    def _private_rest(self, now: float) -> None:
        """The drawn card of a split timeout is known: the rest of the automatic move."""
        half = self._timeout_half
        mr = self._masked
        if half is None or mr is None:
            return
        seat, _key, before = half
        r = self.match.round  # type: ignore[attr-defined]
        if r is None or r.drawn is None or mr.position_of(self._card_no(r.drawn)) is not None:
            return  # still masked
        from rami_lan.core import actions as A

        m, evs = self.apply_core(before, A.Timeout(seat))  # type: ignore[attr-defined]
        k = next(i for i, e in enumerate(evs) if isinstance(e, E.StockDrawn) and e.seat == seat)
        rest = evs[k + 1:]
        if self._private_hold(None, _TIMEOUT_REST, None, rest, now):
            return  # every hand is shown first
        self._timeout_half = None
        self._commit_change(m, rest, now)  # type: ignore[attr-defined]

    def _private_log_action(self, action: Any) -> None:
        """An action the table applies goes into the record and the journal."""
        from rami_lan.core.codec import action_to_plain

        if self.record is not None or self._journal_on:  # type: ignore[attr-defined]
            plain = action_to_plain(action, self.variant)  # type: ignore[attr-defined]
            if self._mj is not None:
                self._mj_actions.append([plain, "timer"])
            else:
                self._journal("tick", {"seq": self.seq + 1})  # type: ignore[attr-defined]
            if self.record is not None:  # type: ignore[attr-defined]
                self.record.log_action(plain, "timer")  # type: ignore[attr-defined]

    # ------------------------------------------------------------------ a void round

    def _private_void(self, seat: int | None, now: float) -> None:
        """A participant is gone, or did not answer in time: nobody can play its hidden
        cards, so the round is void (no score). Every present participant publishes its
        audit; the next round is dealt once it is in (the missing are named)."""
        mr, ctx = self._masked, self._round  # type: ignore[attr-defined]
        if mr is None or ctx is None:
            return
        from rami_lan.core.match import void_round

        if self.stage is Stage.SHUFFLE:  # type: ignore[has-type]
            # Gone during the shuffle: the model is dealt (unseen) only to fix the round's
            # number and dealer, as every client's verifier derives them from the seed.
            if self._cards is None:  # type: ignore[has-type]
                from rami_lan.core.cards import card_from_id

                v = self.variant  # type: ignore[attr-defined]
                self._cards = [card_from_id(i, v.n_decks, v.n_jokers) for i in range(v.deck_size)]
            record = self.record  # type: ignore[attr-defined]
            if record is not None and record._current is None:  # its entry: void, numbered
                record.begin_round(self, ctx.tag, ctx.commit, [], self._masked_seed)
            self.match, _evs = start_round(self.match, list(self._cards), self._masked_seed)  # type: ignore[attr-defined]
            if record is not None:
                record.set_round_players(self.match)  # type: ignore[attr-defined]
            self._model_deck = []
            ctx.started = True
            self.stage = Stage.PLAYING
        gone = seat is None or self.seats[seat].conn is None  # type: ignore[attr-defined]
        who = f"seat {seat + 1}" if seat is not None else "a participant"
        self._notice(f"{who} {'is gone' if gone else 'did not answer'}: this private round "  # type: ignore[attr-defined]
                     "is void (no score); the next round is dealt", "private_round_void", seat=seat,
                     left=gone)
        self._held_action = None
        self._timeout_half = None
        self._owed_since = {}
        m, evs = void_round(self.match, seat, "player_gone" if gone else "no_answer")  # type: ignore[attr-defined]
        self._commit_change(m, evs, now)  # type: ignore[attr-defined]
        self._audit_wait = True
        self._void_audit = True
        self._audit_deadline = now + min(self.config.audit_timeout, VOID_AUDIT_WAIT)  # type: ignore[attr-defined]
        self._private_route(mr.publish_audit(), now)
        self._finish_round(ctx, now, abandoned=True, go_on=False)  # type: ignore[attr-defined]
        self._next_round_or_end(now)  # type: ignore[attr-defined]  # dealt once the audit is in

    def _private_close_audit(self, now: float) -> None:
        """The audit's time is up: close it with what came (the missing are named)."""
        mr = self._masked
        assert mr is not None
        for s in sorted(mr.p.missing_audits()):  # each named once a round, "left" if gone
            if s != self.host_seat and not self._private_struck(s):  # type: ignore[attr-defined]
                self._private_strike(s, "its audit")
        self._void_audit = False
        for s in mr.blind:  # the present participants close theirs too (the missing named)
            if self.seats[s].conn is not None:  # type: ignore[attr-defined]
                self._private_send(s, {"k": "mk_close"})
        self._private_route(mr.close_audit(), now)

    def _private_resume(self, now: float) -> None:
        """The audit is in: a round that waited for it may be dealt now (or the match,
        which waited for it, is over)."""
        if self._over_after_audit:
            self._over_after_audit = False
            self._out.append(F.MatchOver(self.match.winner))  # type: ignore[attr-defined]
        if self._setup_after_audit:
            self._setup_after_audit = False
            self._setup_round(now)  # type: ignore[attr-defined]


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
