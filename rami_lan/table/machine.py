"""The table machine: one authoritative table, sans I/O.

Theory of operation
-------------------
`TableMachine` owns the one true `MatchState` and everything a table decides: who sits
where, the fair shuffle of each round, dealing, what each seat may see, the move timer,
the bots, the between-rounds answers, the chat limits, the journal and the record.
It has no clock, socket, task or randomness of its own: every input is a method call
carrying ``now`` (seconds, any monotonic clock), and secrets come from the ``entropy``
function given at construction. Every call returns the effects (`rami_lan.table.effects`)
its adapter must carry out, in order.

Inputs: `joined` (a connection proved its right to sit), `left` (it closed), `action`,
`knock`, `commit`, `reveal`, `chat`, `next_round`, `card`, `start` (the owner starts
now), `tick` (a `Wake` deadline passed), `stop`.

Stages: ``waiting`` (seating) -> for each round ``commit`` -> ``reveal`` -> ``playing``
-> ``between`` (or ``over``); every move between them is a `Step` through the one
transition table of `rami_lan.table.stage` (`_go`). Each round is dealt by a strategy
(`rami_lan.table.dealing`): `PlainDealing`, or `MaskedDealing` at a table that deals
privately (docs/masked_deck.md), whose round's audit may hold the table in ``audit`` or
``last_audit`` after the round. Each state change of the match goes through
`_commit_change`: the new state is stored, the sequence number grows, the events are
recorded, and each connected seat gets ``events`` (each event redacted with
``event.for_seat(seat)``) and ``view``. Then the deadlines are recomputed.

Deadlines belong to the turn, never to a connection: the move timer of a turn starts
when the turn starts (a reconnect does not reset it), a bot's think delay starts at the
last change of the match (a reconnect does not restart it), and a dropped player's whole
turn (draw and discard) takes one timer.

Fair shuffle duties (FAIR_SHUFFLE.md): one tag per round (`round_tag`), one commitment
set per tag, a ``commit_request`` to every seated remote human (`seats_to_commit`),
every exclusion listed and announced, the deck from the seed (`deck_for_round`), the
first dealer from the seed and the core's rotation (`start_round`). Each duty is a small
method a test can override to build a cheating table.

Jobs in helper modules of functions taking the machine (its methods call them):
seating (`rami_lan.table.seating`), the fair shuffle's rounds (`fair_rounds`), the
table's own moves (`autoplay`), going on after a restart (`resume`), the course of the
match from its beginning to its end (`match_flow`), the players' cards and the chat
(`cards_chat`), and the ``error`` messages' bounds (`error_msgs`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from rami_lan.core import actions as A
from rami_lan.core.cards import card_from_id
from rami_lan.core.codec import action_to_plain
from rami_lan.core.errors import IllegalAction
from rami_lan.core.events import Event, RoundEnded
from rami_lan.core.match import MatchOptions, MatchState, apply, new_match, start_round
from rami_lan.core.reasons import Reason
from rami_lan.core.variants import get_variant
from rami_lan.ids import BYE_TABLE_CLOSED, BYE_TABLE_PAUSED, DEDICATED_HOST_SEAT
from rami_lan.masked import kinds as MK
from rami_lan.masked.inbound import MaskedInput, Undecoded
from rami_lan.masked.signing import SeatKeyAnnouncement
from rami_lan.table import autoplay, cards_chat, resume, seating
from rami_lan.table import effects as F
from rami_lan.table import fair_rounds as rounds
from rami_lan.table import match_flow as flow
from rami_lan.table.chat import ChatPolicy
from rami_lan.table.config import TableConfig
from rami_lan.table.dealing import Dealing, MaskedDealing, PlainDealing, Standing, key_holders
from rami_lan.table.error_msgs import MAX_MESSAGE, _clip, _fits, error_msg  # noqa: F401
from rami_lan.table.fairround import RoundCtx
from rami_lan.table.policy import make_policy, reads_events
from rami_lan.table.receipts import HostKeys
from rami_lan.table.record_sink import RecordSink
from rami_lan.table.seating import NOTICE_GRACE
from rami_lan.table.seats import Seat, find_by_token, token_hash
from rami_lan.table.shuffle import deck_order, round_tag
from rami_lan.table.stage import RESUMING_STAGES, Stage, Step, next_stage
from rami_lan.wire import messages as W

if TYPE_CHECKING:
    from rami_lan.player_card import PlayerCard

__all__ = ["NOTICE_GRACE", "Stage", "TableMachine"]



class TableMachine:
    """One table, sans I/O. ``entropy(n)`` returns ``n`` fresh random bytes."""

    masked_dealing: type[MaskedDealing] = MaskedDealing
    """The strategy of a privately dealt round (a test puts a cheating host's here)."""

    def __init__(self, config: TableConfig, entropy: Callable[[int], bytes], *,
                 record: RecordSink | None = None, table_id: bytes | None = None) -> None:
        self.config = config
        self.entropy = entropy
        self.table_id = table_id or config.table_id or entropy(16)
        self.variant = get_variant(config.variant)
        self.match: MatchState = new_match(
            config.variant, config.seats, MatchOptions(config.limit, config.quick, config.knock))
        self.match_no = 1
        self.seq = 0
        self.stage = Stage.WAITING
        self.record = record
        """Where the match record goes (a `RecordSink`: the host's
        `rami_lan.net.record.MatchRecord`), or None."""
        self.seats: dict[int, Seat] = {}
        for s in range(config.seats):
            if s in config.bots:
                self.seats[s] = Seat(s, "bot", level=config.bots[s], nick=f"Bot {s + 1}")
            else:
                self.seats[s] = Seat(s, "human")
        self.owner_seat: int | None = None
        self.owner_token: bytes | None = None
        if not config.headless:
            self.owner_seat = config.human_seats[0]
            owner = self.seats[self.owner_seat]
            owner.owner = True
            owner.nick = config.host_nickname
            self.owner_token = entropy(16)
            owner.token = token_hash(self.owner_token)
        self.host_seat = DEDICATED_HOST_SEAT if self.owner_seat is None else self.owner_seat
        for st in self.seats.values():
            if st.kind == "bot":
                st.policy = self.make_policy(st.level, st.seat)
        self._now = 0.0
        self.chat_policy = ChatPolicy(clock=lambda: self._now)
        for st in self.seats.values():
            if st.kind == "bot":
                self.chat_policy.set_bot(st.seat)
        self.cards: dict[int, dict[str, Any]] = {}
        """seat -> the "Info joueur" card its player reported (plain, nick from the host)."""
        self.conns: dict[int, int | None] = {}
        """Every connection that said hello -> its seat (None until seated)."""
        self._bot_conns: set[int] = set()
        self._round: RoundCtx | None = None
        self._tags_used: set[bytes] = set()
        self._resume_secret: tuple[bytes, bytes] | None = None
        self._resume_next: dict[str, Any] | None = None
        self._resume_void: int | None = None
        """Restored from a journal during a private round it could not take up: that
        round's number (it is void)."""
        self._choices: dict[int, str] = {}
        self._bot_events: dict[int, list[Event]] = {s: [] for s in range(config.seats)}
        self._start_requested = False
        self._changed_at = 0.0
        self._turn_key: tuple[int, int] | None = None
        self._turn_started = 0.0
        self._knock_asked: tuple[int, int] | None = None
        self._stage_deadline: float | None = None
        self._timeout_refused: tuple[int, int] | None = None
        """The turn whose automatic move the core refused (its deadline is not asked again)."""
        self._players_sent: dict[int, list[dict[str, Any]]] = {}
        self._notice_at: float | None = None
        self._out: list[F.Effect] = []
        self._cards: list[Any] | None = None
        self.emit_applied = True
        """Emit `Applied` effects (self-play, which reads none, turns them off)."""
        self.last_refusal: Exception | None = None
        """Why the core refused the last action the table tried (bots' mistakes)."""
        self._journal_on = config.journal_dir is not None
        self._away_since: dict[int, float] = {}
        """seat -> when its connection dropped (cleared when it comes back)."""
        self._turn_waiting = False
        """The turn's player still waits for its cards: its move timer starts when they are in."""
        self.dealing: Dealing = PlainDealing(self)
        """The strategy dealing the current (or last) round (`dealing_for_round`)."""
        self.standing = Standing()
        """Private dealing over the match: missed deadlines, seats out of the private deal."""
        self.masked_reports: list[Any] = []
        """Private dealing: each round's audit report (`rami_lan.masked.audit.AuditReport`)."""
        self.host_keys = HostKeys()
        """The seats' announced signing keys, over the match (`rami_lan.table.receipts`)."""

    # ------------------------------------------------------------------ overridable duties

    def make_policy(self, level: str, seat: int) -> Any:
        """A bot for a seat; its seed comes from the table's entropy."""
        return make_policy(level, seat, int.from_bytes(self.entropy(4), "big"))

    def round_tag_for(self, round_no: int) -> bytes:
        """The round's tag: ``shuffle.round_tag(table_id, match_no, round_no)``."""
        return round_tag(self.table_id, self.match_no, round_no)

    def seats_to_commit(self, players: Sequence[int]) -> tuple[int, ...]:
        """Every seated remote human of the next round: each gets a ``commit_request``."""
        return tuple(
            s for s in players
            if self.seats[s].kind == "human" and self.seats[s].conn is not None
            and s != self.host_seat and not self.seats[s].left)

    def host_secret_for(self, tag: bytes) -> bytes:
        """The host's own secret for a tag (a resumed table reuses the journaled one)."""
        resumed, self._resume_secret = self._resume_secret, None
        if resumed is not None and resumed[0] == tag:
            return resumed[1]
        return self.entropy(32)

    def round_seed(self, ctx: RoundCtx) -> bytes:
        """The round seed: from every accepted secret (spec step 4)."""
        return ctx.commit.seed()

    def deck_for_round(self, seed: bytes, n_cards: int) -> list[int]:
        """The round's deck of card ids (index 0 = top): ``deck_order(seed, n)``."""
        return deck_order(seed, n_cards)

    def card_objects(self) -> list[Any]:
        """This match's cards by canonical id (new objects: a card's identity is its
        physical copy in this match)."""
        v = self.variant
        return [card_from_id(i, v.n_decks, v.n_jokers) for i in range(v.deck_size)]

    def deal(self, m: MatchState, cards: list[Any], seed: bytes) -> tuple[MatchState, list[Event]]:
        """Deal a round: the core places the cards (deal positions), picks the first
        dealer from the seed and rotates it after, and reshuffles from the seed."""
        return start_round(m, cards, seed)

    def apply_core(self, m: MatchState, action: A.Action) -> tuple[MatchState, list[Event]]:
        return apply(m, action)

    def dealing_for_round(self, ctx: RoundCtx, seed: bytes) -> Dealing:
        """The round's dealing: masked at a table that deals privately when a remote seat
        holds keys of its own (else nobody but the host holds keys: nothing to hide)."""
        if self.config.private_deal:
            remote = key_holders(self)
            if remote:
                return self.masked_dealing.for_round(self, ctx.tag, remote, seed)
        return PlainDealing(self)

    # ------------------------------------------------------------------ queries

    @property

    def started(self) -> bool:
        return self._start_requested or self.match.round is not None

    @property

    def over(self) -> bool:
        return self.stage in (Stage.OVER, Stage.LAST_AUDIT, Stage.STOPPED)

    def dropped_seat(self, seat_no: int) -> Seat | None:
        """`seating.dropped_seat`: the seat a return invitation may give back."""
        return seating.dropped_seat(self, seat_no)

    def dropped_seat_of(self, player_id: str) -> int | None:
        """`seating.dropped_seat_of`: the dropped seat of the player with ``player_id``."""
        return seating.dropped_seat_of(self, player_id)

    def seat_for_token(self, token: bytes) -> Seat | None:
        seat = find_by_token(self.seats.values(), token)
        return None if seat is None or seat.left else seat

    def table_info(self) -> dict[str, Any]:
        cfg = self.config
        o = self.match.options
        return {
            "name": cfg.name, "variant": cfg.variant, "seats": cfg.seats, "limit": o.limit,
            "quick": o.quick, "knock": o.knock, "timer": cfg.timer,
            "host": cfg.host_nickname, "headless": cfg.headless,
            "host_seat": self.host_seat, "match_no": self.match_no,
            "code": cfg.join_code is not None, "who": cfg.who_may_sit,
            "private_deal": cfg.private_deal,
            # the bots' levels, for the players' "Info joueur" (seat, level)
            "bots": [[s.seat, s.level] for s in self.seats.values()
                     if s.kind == "bot" and not s.remote_bot],
        }

    def players_info(self) -> list[dict[str, Any]]:
        return [
            {"seat": s.seat, "nick": s.nick or "", "kind": s.kind,
             "connected": s.connected, "left": s.left}
            for s in self.seats.values()
        ]

    def seats_taken(self) -> int:
        return min(sum(1 for s in self.seats.values() if s.taken), self.config.seats)

    def deadline(self) -> float | None:
        """The earliest moment `tick` has work to do (None: only on input)."""
        ds = [d for d in (self._stage_deadline, self._notice_at, self._auto_deadline()[0],
                          self.dealing.deadline()) if d is not None]
        return min(ds) if ds else None

    def move_deadline(self) -> float | None:
        """When the current turn's move timer ends (None: no timer running)."""
        m = self.match
        if self.config.timer <= 0 or m.round is None or m.phase not in ("draw", "play"):
            return None
        return self._turn_started + self.config.timer

    # ------------------------------------------------------------------ effect plumbing

    def _go(self, step: Step) -> None:
        """Move to the next stage by ``step`` (`rami_lan.table.stage.TRANSITIONS`)."""
        self.stage = next_stage(self.stage, step)

    def _match_cards(self) -> list[Any]:
        """This match's one Card object per canonical id (made once)."""
        if self._cards is None:
            self._cards = self.card_objects()
        return self._cards

    def _send(self, conn: int, msg: F.Msg) -> None:
        self._out.append(F.Send(conn, msg))

    def _to_seated(self, msg: F.Msg) -> None:
        for conn, seat in self.conns.items():
            if seat is not None:
                self._out.append(F.Send(conn, msg))

    def _error(self, conn: int, code: str, message: str, ref: int | None = None,
               reason: Reason | None = None) -> None:
        """``error`` to ``conn``: ``code``, the English ``message``, and, for a refusal of
        the rules, its coded ``reason`` (plain, when it fits the wire's bounds)."""
        self._send(conn, error_msg(code, message, ref, reason))

    def _illegal(self, conn: int, reason: Reason | IllegalAction, ref: int | None = None) -> None:
        """``error`` ``illegal``: the rules (or the table) refuse an action, and why."""
        if isinstance(reason, IllegalAction):
            self._error(conn, "illegal", str(reason), ref, reason.why)
        else:
            self._error(conn, "illegal", reason.text(), ref, reason)

    def _refuse(self, conn: int, code: str, message: str) -> None:
        self._send(conn, W.Refused(code=code, message=message))
        self._out.append(F.Close(conn))
        self.conns.pop(conn, None)

    def _journal(self, kind: str, body: dict[str, Any]) -> None:
        if self._journal_on:
            self._out.append(F.JournalAppend(kind, body))

    def _flush(self, now: float) -> list[F.Effect]:
        seating.maybe_notice(self, now)
        self.dealing.settle(now)
        self._out.append(F.Wake(self.deadline()))
        out, self._out = self._out, []
        return out

    # ------------------------------------------------------------------ seating

    def joined(self, conn: int, now: float, *, nick: str, lang: str = "en", bot: bool = False,
               token: bytes | None = None, pake_secret: str | None = None,
               return_seat: int | None = None) -> list[F.Effect]:
        """A connection proved what it had to (join code, ticket): seat it or refuse it
        (`seating.join`). ``token``: the reconnect token it gave (its seat, if still
        valid); ``pake_secret``: the invitation ticket it was admitted with;
        ``return_seat``: the owner's return invitation (its ticket proven) gives this
        seat back to its dropped player: a new token replaces the lost one."""
        seating.join(self, conn, now, nick=nick, bot=bot, token=token, pake_secret=pake_secret,
                     return_seat=return_seat)
        return self._flush(now)

    def left(self, conn: int, now: float) -> list[F.Effect]:
        """A connection closed (or was closed): `seating.leave`."""
        seating.leave(self, conn, now)
        return self._flush(now)

    # ------------------------------------------------------------------ cards and chat

    def card(self, conn: int, card: PlayerCard | None, now: float) -> list[F.Effect]:
        """A player's "Info joueur" card, decoded at the network edge (None: it did not
        decode): stamped with the seat's nick, relayed (`cards_chat.card`)."""
        return cards_chat.card(self, conn, card, now)

    def chat(self, conn: int, text: str, now: float) -> list[F.Effect]:
        """Relay a chat line through the chat policy, or tell its sender why not
        (`cards_chat.chat`)."""
        return cards_chat.chat(self, conn, text, now)

    def masked(self, conn: int, msg: MaskedInput, now: float) -> list[F.Effect]:
        """A masked-deck message from a client (decoded at the network edge,
        `rami_lan.masked.inbound`): the round's dealing checks, uses, relays it."""
        seat = self.conns.get(conn)
        if seat is None:
            return self._flush(now)
        if isinstance(msg, SeatKeyAnnouncement):  # a seat's signing key
            why = self.host_keys.announce(seat, msg)
            if why:
                self._error(conn, "bad_masked", why)
            else:
                self.dealing.announced(seat, msg.to_plain(), now)
        elif isinstance(msg, Undecoded) and msg.kind == MK.SEATKEY:
            self._error(conn, "bad_masked", msg.reason)
        else:
            self.dealing.receive(conn, seat, msg, now)
        return self._flush(now)

    # ------------------------------------------------------------------ play

    def action(self, conn: int, seq: int, action: A.Action, now: float) -> list[F.Effect]:
        """A seat's move (decoded at the network edge; `refuse` when it did not decode)."""
        seat = self.conns.get(conn)
        if seat is None:
            return self._flush(now)
        if isinstance(action, A.Timeout) or action.seat != seat:
            self._error(conn, "not_your_seat", f"you play seat {seat} only", seq)
            return self._flush(now)
        if self.standing.benched(seat):
            self._illegal(conn, Reason.of("benched"), seq)
            return self._flush(now)
        if self.dealing.moving_for(seat):
            self._illegal(conn, Reason.of("timer_ran_out"), seq)
            return self._flush(now)
        self.try_apply(conn, action, seq, now)
        return self._flush(now)

    def refuse(self, conn: int, code: str, message: str, ref: int | None,
               now: float) -> list[F.Effect]:
        """An input the network edge could not decode (``bad_action``: its action map):
        ``error`` with ``code`` and ``message`` to that seat."""
        if self.conns.get(conn) is not None:
            self._error(conn, code, message, ref)
        return self._flush(now)

    def knock(self, conn: int, seq: int, now: float) -> list[F.Effect]:
        seat = self.conns.get(conn)
        if seat is not None:
            self.try_apply(conn, A.Knock(seat), seq, now)
        return self._flush(now)

    def try_apply(self, conn: int | None, action: A.Action, seq: int | None,
                  now: float) -> bool:
        """Apply one action if the core allows it (``conn`` None: the table's own move)."""
        if self.match.phase not in ("draw", "play") or self.stage is not Stage.PLAYING:
            if conn is not None:
                self._illegal(conn, Reason.of("no_round_played"), seq)
            return False
        try:
            m, evs = self.apply_core(self.match, action)
        except IllegalAction as exc:
            self.last_refusal = exc
            if conn is not None:
                self._illegal(conn, exc, seq)
            return False
        unproven = self.dealing.refusal(action, evs)
        if unproven and isinstance(action, A.Timeout) and self.dealing.split(action, evs, now):
            return True  # the draw first; the rest once the drawn card is known
        if unproven:
            self.last_refusal = IllegalAction(getattr(action, "seat", None), self.match.phase, unproven)
            if conn is not None:
                self._illegal(conn, self.last_refusal, seq)
            return False
        if self.dealing.hold(conn, action, seq, evs, now):
            return True  # every hand is shown first; the action is applied then
        by = "player" if conn is not None else (
            "timer" if isinstance(action, A.Timeout) else "bot")
        if self.record is not None or self._journal_on:
            plain = action_to_plain(action, self.variant)
            self.dealing.log_action(getattr(action, "seat", -1), plain, by)
            if self.record is not None:
                self.record.log_action(plain, by)
        self._commit_change(m, evs, now, action, None if conn is None else self.conns.get(conn))
        return True

    def _commit_change(self, m: MatchState, evs: list[Event], now: float,
                       action: A.Action | None = None, by_seat: int | None = None) -> None:
        """Store the new state and tell every seat what it may see of it."""
        self.match = m
        self.seq += 1
        self._changed_at = now
        if self.emit_applied:
            self._out.append(F.Applied(tuple(evs), m, action, by_seat))
        ctx = self._round
        if ctx is not None and not ctx.finished:
            self.dealing.record_events(evs)
        noted = self.dealing.changing(m, evs, now)
        seats = self.seats
        for s, buf in self._bot_events.items():
            st = seats[s]
            if st.kind == "bot" or st.conn is None:
                if st.policy is not None and not reads_events(st.policy):
                    continue  # a bot that ignores events: nothing to redact for it
                buf += [e.for_seat(s) for e in evs]
            elif buf:
                buf.clear()  # a connected player reads its own events
        for conn, seat in self.conns.items():
            if seat is None or self.dealing.holds_for(seat, m, evs):
                continue
            if evs:
                self._send(conn, F.EventsMsg(seq=self.seq,
                                             events=tuple(self.dealing.redact(e, seat) for e in evs)))
            self._send(conn, F.SeatViewMsg(seq=self.seq, view=self.dealing.seat_view(m, seat)))
        self.dealing.changed(evs, noted, now)
        self._note_turn(now)
        if ctx is not None and not ctx.finished and any(isinstance(e, RoundEnded) for e in evs):
            self._finish_round(ctx, now)

    def _note_turn(self, now: float) -> None:
        r = self.match.round
        key = None if r is None or self.match.phase not in ("draw", "play") else (
            self.match.round_no, r.turn_no)
        if key != self._turn_key:
            self._turn_key = key
            self._turn_started = now
            # Private dealing: the move timer starts once the player has its cards.
            self._turn_waiting = key is not None and self.dealing.mover_waits()

    # ------------------------------------------------------------------ automatic play

    def _auto_deadline(self) -> tuple[float | None, int, str]:
        """(when, seat, what) of the table's next own move (`autoplay.next_move`)."""
        return autoplay.next_move(self)

    def choose(self, seat: int, policy: Any, view: Any, new_events: list[Event]) -> Any:
        """Ask a bot for its move (self-play times this)."""
        return policy.choose(view, tuple(new_events))

    def bot_failed(self, seat: int, exc: Exception | None) -> None:
        """A bot raised (``exc``) or chose an illegal action: the table plays a fallback.
        Self-play overrides it to raise: there, a bot's mistake is a bug."""

    # ------------------------------------------------------------------ time

    def tick(self, now: float, max_steps: int = 1) -> list[F.Effect]:
        """Do what is due at ``now``: at most ``max_steps`` moves of the table's own."""
        steps = 0
        # Once the match is over, the last round's audit still has its deadline.
        while steps < max_steps and (not self.over or self.stage is Stage.LAST_AUDIT):
            if not self._step(now):
                break
            steps += 1
        return self._flush(now)

    def _step(self, now: float) -> bool:
        """One due thing; False when nothing is due."""
        if self.dealing.step(now):
            return True
        if self._stage_deadline is not None and now >= self._stage_deadline:
            self._stage_deadline = None
            if self.stage is Stage.COMMIT:
                rounds.close_commits(self, now)
            elif self.stage is Stage.REVEAL:
                rounds.close_reveals(self, now)
            elif self.stage is Stage.BETWEEN:
                self._next_round_or_end(now)
            elif self.stage in RESUMING_STAGES:
                resume.after_resume(self, now)
            elif self.stage is Stage.WAITING:
                self._begin_match(now)
            return True
        at, seat, what = self._auto_deadline()
        if at is None or now < at:
            return False
        if what == "ask":
            autoplay.ask_knocks(self, now)
        elif what == "bot":
            autoplay.bot_move(self, seat, now)
        elif what == "prompt":
            self.dealing.prompt(seat, now)
        elif what == "timeout" and not self.try_apply(None, A.Timeout(seat), None, now):
            self._timeout_refused = self._turn_key  # (a bug of ours: never a busy loop)
        return True

    # ------------------------------------------------------------------ match flow

    def start(self, now: float) -> list[F.Effect]:
        """Start now: empty human seats are filled with bots."""
        if not self.started:
            self._begin_match(now)
        return self._flush(now)

    def _begin_match(self, now: float) -> None:
        """The match begins (`match_flow.begin_match`)."""
        flow.begin_match(self, now)

    def _setup_round(self, now: float) -> None:
        """Commit-reveal with the seated remote clients (`fair_rounds.setup_round`)."""
        rounds.setup_round(self, now)

    def commit(self, conn: int, tag: bytes, commitment: bytes, now: float) -> list[F.Effect]:
        """A seat's commitment to its secret (`fair_rounds.commit`)."""
        rounds.commit(self, conn, tag, commitment, now)
        return self._flush(now)

    def reveal(self, conn: int, tag: bytes, secret: bytes, now: float) -> list[F.Effect]:
        """A seat's secret (`fair_rounds.reveal`)."""
        rounds.reveal(self, conn, tag, secret, now)
        return self._flush(now)

    def _announce_exclusions(self, ctx: RoundCtx) -> None:
        """Every seat left out of the round's seed is announced to all, with the reason
        (`fair_rounds.announce_exclusions`; a test overrides it to build a cheating table)."""
        rounds.announce_exclusions(self, ctx)

    def _notice(self, text: str, code: str | None = None, **data: Any) -> None:
        """A notice to every player: ``text`` (English), and for the facts the client
        words itself in its player's language, ``code`` and ``data`` (net/notices.py)."""
        players = self.players_info()
        entry = F.TableNotice(players, text, code, data if code is not None else None)
        for conn, seat in self.conns.items():
            if seat is not None:
                self._players_sent[conn] = players
                self._send(conn, F.EventsMsg(seq=self.seq, events=(entry,)))

    def _deal(self, now: float) -> None:
        """Spec steps 3-4: the seed from the secrets, the deck from the seed; deal
        (`match_flow.deal`)."""
        flow.deal(self, now)

    def _finish_round(self, ctx: RoundCtx, now: float, abandoned: bool = False,
                      go_on: bool = True) -> None:
        """Spec step 5: every secret goes out; the record gets the round
        (`match_flow.finish_round`)."""
        flow.finish_round(self, ctx, now, abandoned, go_on)

    def _enter_between(self, now: float) -> None:
        flow.enter_between(self, now)

    def next_round(self, conn: int, choice: str, now: float) -> list[F.Effect]:
        """Between rounds: a player's "continue" or "leave" (journaled;
        `match_flow.next_round`)."""
        return flow.next_round(self, conn, choice, now)

    def _next_round_or_end(self, now: float) -> None:
        flow.next_round_or_end(self, now)

    def may_continue(self) -> bool:
        """Deal another round? (self-play stops at its round cap)."""
        return True

    def _end_match(self, now: float) -> None:
        flow.end_match(self, now)

    def _audit_in(self, now: float) -> None:
        """The last round's audit is in (or closed at its deadline): what waited for it
        goes on (`match_flow.audit_in`)."""
        flow.audit_in(self, now)

    def stop(self, now: float) -> list[F.Effect]:
        """Close the table. Closed for good, a running round is abandoned (its secrets go
        out); paused (the journal is kept and the match not over), the round stays secret:
        the resumed host plays it on (or voids it) as after a crash, and a player still
        connected must not have seen the deck of a round that goes on."""
        if self.stage is Stage.STOPPED:
            return []
        was_over = self.stage in (Stage.OVER, Stage.LAST_AUDIT)
        resumable = self._journal_on and not was_over  # the journal is kept: see below
        ctx = self._round
        if ctx is not None and ctx.started and not ctx.finished and not resumable:
            self._finish_round(ctx, now, abandoned=True)
        self._go(Step.STOP)
        self._stage_deadline = None
        for conn in list(self.conns):
            self._send(conn, W.Bye(reason=BYE_TABLE_PAUSED if resumable else BYE_TABLE_CLOSED))
            self._out.append(F.Close(conn))
        self.conns.clear()
        if resumable:
            self._out.append(F.JournalClose(delete=False))  # an unfinished match stays resumable
        out, self._out = self._out, []
        return out

    # ------------------------------------------------------------------ journal

    def snapshot(self, m: MatchState, seq: int,
                 pending_events: Sequence[Event] = ()) -> dict[str, Any]:
        from rami_lan.table.snapshot import snapshot_body

        return snapshot_body(self, m, seq, pending_events)

    @classmethod

    def restore(cls, snap: dict[str, Any], records: Sequence[Any], config: TableConfig,
                entropy: Callable[[int], bytes], *, record: RecordSink | None = None,
                now: float = 0.0) -> TableMachine:
        """Rebuild a table from its journal (snapshot and the records after it)."""
        from rami_lan.table.snapshot import restore

        return restore(cls, snap, records, config, entropy, record=record, now=now)

    def resumed(self, now: float) -> list[F.Effect]:
        """Go on after `restore`, at the point the match was (call once, when listening;
        `resume.resumed`)."""
        resume.resumed(self, now)
        return self._flush(now)
