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
-> ``between`` (or ``over``). Each state change of the match goes through
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
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Sequence
from typing import Any

from rami_lan.core import actions as A
from rami_lan.core.cards import card_from_id
from rami_lan.core.codec import action_from_plain, action_to_plain
from rami_lan.core.errors import IllegalAction, MalformedAction, RulesError
from rami_lan.core.events import Event, RoundEnded, RoundVoided
from rami_lan.core.match import MatchOptions, MatchState, apply, new_match, start_round, withdraw
from rami_lan.core.variants import get_variant
from rami_lan.core.views import view_for
from rami_lan.ids import DEDICATED_HOST_SEAT, TABLE_NOTICE
from rami_lan.table import effects as F
from rami_lan.table.chat import ChatPolicy, ChatRefusal
from rami_lan.table.config import TableConfig
from rami_lan.table.fairround import RoundCtx, pairs
from rami_lan.table.policy import fallback_action, make_policy, reads_events, think_delay
from rami_lan.table.private_deal import PrivateDealing
from rami_lan.table.seats import Seat, card_nick, find_by_token, token_hash, unique_nick
from rami_lan.table.shuffle import CommitmentRound, Phase, RevealOutcome, deck_order, round_tag
from rami_lan.table.stage import Stage

__all__ = ["Stage", "TableMachine"]

MAX_MESSAGE = 500
"""Longest error text on the wire (`rami_lan.net.protocol.MAX_MESSAGE`)."""

NOTICE_GRACE = 1.0
"""Seconds a dropped seat waits before the table is told (a quick reconnect: no notice)."""


def _clip(text: str) -> str:
    text = "".join(ch if ch.isprintable() else " " for ch in text)
    return text[:MAX_MESSAGE]


def _msg(kind: str, **fields: Any) -> F.Msg:
    return F.Msg(kind, fields)


def _exclusion_codes(ctx: RoundCtx) -> dict[int, str]:
    """Excluded seat -> reason code (``bad_reveal``, ``no_reveal``), for the verifiers."""
    return {s: why.name.lower() for s, why in sorted(ctx.commit.excluded.items())}


class TableMachine(PrivateDealing):
    """One table, sans I/O. ``entropy(n)`` returns ``n`` fresh random bytes."""

    def __init__(self, config: TableConfig, entropy: Callable[[int], bytes], *,
                 record: Any = None, table_id: bytes | None = None) -> None:
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
        """The match record being built (`rami_lan.net.record.MatchRecord`), or None."""
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
        self._resume_deal = False
        """A round taken up at a resume is dealt once the players are back (private
        dealing: the masked deck is shuffled by their own machines)."""
        self._choices: dict[int, str] = {}
        self._between_round: int | None = None
        """The round after which the last between-rounds phase came."""
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
        self._private_init()

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

    # ------------------------------------------------------------------ queries

    @property
    def started(self) -> bool:
        return self._start_requested or self.match.round is not None

    @property
    def over(self) -> bool:
        return self.stage in (Stage.OVER, Stage.STOPPED)

    def dropped_seat(self, seat_no: int) -> Seat | None:
        """``seat_no`` if its human player dropped out of the match (held, not connected,
        not left for good): a return invitation may give it back."""
        seat = self.seats.get(seat_no)
        if (seat is None or seat.kind != "human" or seat.token is None or seat.conn is not None
                or seat.left or seat.owner or not self.started):
            return None
        return seat

    def dropped_seat_of(self, player_id: str) -> int | None:
        """The seat whose dropped player has ``player_id`` (from its "Info joueur" card)."""
        if not player_id:
            return None
        for seat_no, card in self.cards.items():
            if (isinstance(card, dict) and card.get("id") == player_id
                    and self.dropped_seat(seat_no) is not None):
                return seat_no
        return None

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
        audit = self._audit_deadline if self._audit_wait else None
        ds = [d for d in (self._stage_deadline, self._notice_at, self._auto_deadline()[0], audit,
                          self._private_void_at()[0]) if d is not None]
        return min(ds) if ds else None

    def move_deadline(self) -> float | None:
        """When the current turn's move timer ends (None: no timer running)."""
        m = self.match
        if self.config.timer <= 0 or m.round is None or m.phase not in ("draw", "play"):
            return None
        return self._turn_started + self.config.timer

    # ------------------------------------------------------------------ effect plumbing

    def _send(self, conn: int, msg: F.Msg) -> None:
        self._out.append(F.Send(conn, msg))

    def _to_seated(self, msg: F.Msg) -> None:
        for conn, seat in self.conns.items():
            if seat is not None:
                self._out.append(F.Send(conn, msg))

    def _error(self, conn: int, code: str, message: str, ref: int | None = None) -> None:
        fields: dict[str, Any] = {"code": code, "message": _clip(message)}
        if ref is not None:
            fields["ref"] = ref
        self._send(conn, F.Msg("error", fields))

    def _refuse(self, conn: int, code: str, message: str) -> None:
        self._send(conn, _msg("refused", code=code, message=message))
        self._out.append(F.Close(conn))
        self.conns.pop(conn, None)

    def _journal(self, kind: str, body: dict[str, Any]) -> None:
        if self._journal_on:
            self._out.append(F.JournalAppend(kind, body))

    def _flush(self, now: float) -> list[F.Effect]:
        self._maybe_notice(now)
        self._private_watch(now)
        self._private_checkpoint()
        self._out.append(F.Wake(self.deadline()))
        out, self._out = self._out, []
        return out

    # ------------------------------------------------------------------ seating

    def joined(self, conn: int, now: float, *, nick: str, lang: str = "en", bot: bool = False,
               token: bytes | None = None, pake_secret: str | None = None,
               return_seat: int | None = None) -> list[F.Effect]:
        """A connection proved what it had to (join code, ticket): seat it or refuse it.

        ``token``: the reconnect token it gave (its seat, if still valid);
        ``pake_secret``: the invitation ticket it was admitted with (new seats keep it);
        ``return_seat``: the owner's return invitation (its ticket proven) gives this
        seat back to its dropped player: a new token replaces the lost one.
        """
        seat: Seat | None = None
        if token is None and return_seat is not None:
            back = self.dropped_seat(return_seat)
            if back is not None:
                token = self.entropy(16)
                back.token = token_hash(token)
                back.pake_secret = pake_secret
                self._attach(conn, back, token, nick, bot, now)
                return self._flush(now)
        if token is not None:
            seat = self.seat_for_token(token)
            if seat is None:
                self._refuse(conn, "bad_token", "unknown or expired reconnect token")
                return self._flush(now)
        if seat is None:
            free = [s for s in self.seats.values() if s.kind == "human" and s.token is None]
            if not free:
                if self.started:
                    self._refuse(conn, "in_progress", "the match has started")
                else:
                    self._refuse(conn, "table_full", "every seat is taken")
                return self._flush(now)
            seat = free[0]
            token = self.entropy(16)
            seat.token = token_hash(token)
            seat.nick = unique_nick(nick, [s.nick for s in self.seats.values()])
            seat.pake_secret = pake_secret
        assert token is not None
        self._attach(conn, seat, token, nick, bot, now)
        return self._flush(now)

    def _attach(self, conn: int, seat: Seat, token: bytes, nick: str, bot: bool,
                now: float) -> None:
        old = seat.conn
        if old is not None and old != conn:
            self.conns.pop(old, None)
            self._players_sent.pop(old, None)
            self._send(old, _msg("bye", reason="seat taken over by a new connection"))
            self._out.append(F.Close(old))
        if not seat.nick:
            seat.nick = nick
        seat.conn = conn
        self._away_since.pop(seat.seat, None)
        seat.remote_bot = bot
        self.conns[conn] = seat.seat
        if bot:
            self._bot_conns.add(conn)
        self.chat_policy.set_bot(seat.seat, bot or seat.kind == "bot")
        players = self.players_info()
        self._send(conn, _msg("welcome", table_id=self.table_id, seat=seat.seat, token=token,
                              table=self.table_info(), players=players))
        self._players_sent[conn] = players
        if self.match.round is not None or self._round is not None:
            self._send_state(conn, seat.seat)
        self._send_cards(conn)
        if bot:
            self._broadcast_card(seat.seat, skip=conn)
        self._players_changed(now, soon=False)
        if self.config.auto_start and not self.started and self._all_seated():
            self._begin_match(now)
        self._check_resume_grace(now)

    def left(self, conn: int, now: float) -> list[F.Effect]:
        """A connection closed (or was closed)."""
        seat_no = self.conns.pop(conn, None)
        self._players_sent.pop(conn, None)
        self._bot_conns.discard(conn)
        if seat_no is not None:
            seat = self.seats[seat_no]
            if seat.conn == conn:
                seat.conn = None
                self._away_since[seat_no] = now
                if not self.started and not seat.owner:
                    seat.free()
                    self.cards.pop(seat_no, None)
                    self.chat_policy.forget(seat_no)
                    self._players_changed(now, soon=False)
                else:
                    self._players_changed(now, soon=True)
        return self._flush(now)

    def _all_seated(self) -> bool:
        return all(s.connected for s in self.seats.values())

    def _players_changed(self, now: float, *, soon: bool) -> None:
        """The players list changed: tell the table now, or after `NOTICE_GRACE` (drops)."""
        self._out.append(F.AdChange(self.seats_taken()))
        if soon:
            at = now + NOTICE_GRACE
            self._notice_at = at if self._notice_at is None else min(self._notice_at, at)
        else:
            self._notice_at = now

    def _maybe_notice(self, now: float, text: str | None = None) -> None:
        if text is None and (self._notice_at is None or now < self._notice_at):
            return
        self._notice_at = None
        players = self.players_info()
        for conn, seat in self.conns.items():
            if seat is None:
                continue
            if text is None and self._players_sent.get(conn) == players:
                continue  # nothing new for that seat (a quick reconnect, its own welcome)
            entry: dict[str, Any] = {"type": TABLE_NOTICE, "players": players}
            if text:
                entry["text"] = text
            self._players_sent[conn] = players
            self._send(conn, _msg("events", seq=self.seq, events=[entry]))

    def _send_state(self, conn: int, seat: int) -> None:
        """Full state for a (re)joining seat: its view, and the round's fair-shuffle data."""
        ctx = self._round
        if self._resume_void is not None:  # restarted during a private round: it is void
            self._send(conn, _msg("events", seq=self.seq, events=[
                RoundVoided(self._resume_void, None, "host_restarted")]))
        if ctx is not None and ctx.commits_sent:
            self._send(conn, self._commitments_msg(ctx))
        elif (ctx is not None and self.stage is Stage.COMMIT and seat in ctx.participants
              and seat in ctx.commit.missing_commits):
            self._send(conn, _msg("commit_request", round_tag=ctx.tag, seat=seat))
        self._private_resync(conn, seat)
        self._private_hand(self.match, seat)
        if not self._private_owner_holds(seat, self.match, []):  # else: once its card is known
            self._send(conn, _msg("view", seq=self.seq, view=self._private_view(self.match, seat)))
        if ctx is not None and ctx.finished and self._resume_secret is None:
            # (resumed before the next round's commitments went out: that round is asked
            # for again, and the last round's secrets, already out, would come after it)
            secrets = ctx.secrets()
            if secrets:
                self._send(conn, self._secrets_msg(ctx))

    # ------------------------------------------------------------------ cards and chat

    def card(self, conn: int, plain: dict[str, Any], now: float) -> list[F.Effect]:
        """A player's "Info joueur" card: checked, stamped with the seat's nick, relayed."""
        from rami_lan.stats import Connection, PlayerCard

        seat = self.conns.get(conn)
        if seat is None:
            return self._flush(now)
        st = self.seats[seat]
        if conn in self._bot_conns or st.kind == "bot":
            return self._flush(now)  # bots get the host's bare bot card
        try:
            card = PlayerCard.from_plain(plain, connection=Connection.CONNECTED)
            card = PlayerCard(card_nick(st.nick, card.nickname), card.player_id,
                              Connection.CONNECTED, card.stats, card.by_variant)
        except (ValueError, TypeError):
            self._error(conn, "bad_card", "the player card does not decode")
            return self._flush(now)
        plain_card = card.to_plain()
        if self.cards.get(seat) != plain_card:  # the same card again: nothing to tell
            self.cards[seat] = plain_card
            self._broadcast_card(seat)
        return self._flush(now)

    def _card_of(self, seat: int) -> dict[str, Any] | None:
        from rami_lan.stats import Connection, PlayerCard

        st = self.seats[seat]
        if st.kind == "bot" or st.remote_bot:
            return PlayerCard(card_nick(st.nick, f"bot {seat + 1}"), None,
                              Connection.BOT).to_plain()
        return self.cards.get(seat)

    def _broadcast_card(self, seat: int, skip: int | None = None) -> None:
        card = self._card_of(seat)
        if card is None:
            return
        msg = _msg("card_msg", seat=seat, card=card)
        for conn, s in self.conns.items():
            if s is not None and conn != skip:
                self._send(conn, msg)

    def _send_cards(self, conn: int) -> None:
        for seat in self.seats:
            card = self._card_of(seat)
            if card is not None:
                self._send(conn, _msg("card_msg", seat=seat, card=card))

    def chat(self, conn: int, text: str, now: float) -> list[F.Effect]:
        """Relay a chat line through the chat policy, or tell its sender why not."""
        self._now = now
        seat = self.conns.get(conn)
        if seat is None:
            return self._flush(now)
        verdict = self.chat_policy.check(
            seat, text, bot=conn in self._bot_conns or self.seats[seat].kind == "bot")
        if not verdict.ok:
            why = {
                ChatRefusal.EMPTY: "empty message",
                ChatRefusal.RATE_LIMITED:
                    f"too many messages, wait {max(1, math.ceil(verdict.retry_after))} s",
                ChatRefusal.BOT: "bots do not chat",
            }.get(verdict.refusal, "refused")  # type: ignore[arg-type]
            self._error(conn, "chat_refused", f"{verdict.refusal}: {why}")
            return self._flush(now)
        self._to_seated(_msg("chat_msg", seat=seat, text=verdict.text))
        return self._flush(now)

    # ------------------------------------------------------------------ play

    def action(self, conn: int, seq: int, plain: dict[str, Any], now: float) -> list[F.Effect]:
        seat = self.conns.get(conn)
        if seat is None:
            return self._flush(now)
        try:
            action = action_from_plain(plain, self.variant)
        except (MalformedAction, RulesError, ValueError, KeyError, TypeError) as exc:
            self._error(conn, "bad_action", str(exc), seq)
            return self._flush(now)
        if isinstance(action, A.Timeout) or action.seat != seat:
            self._error(conn, "not_your_seat", f"you play seat {seat} only", seq)
            return self._flush(now)
        if self._private_benched(seat):
            self._error(conn, "illegal", "your seat left the private deal: the host's bot plays it", seq)
            return self._flush(now)
        if self._timeout_half is not None and self._timeout_half[0] == seat:
            self._error(conn, "illegal", "your move timer ran out: the automatic move is being played", seq)
            return self._flush(now)
        self.try_apply(conn, action, seq, now)
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
                self._error(conn, "illegal", "no round is being played", seq)
            return False
        try:
            m, evs = self.apply_core(self.match, action)
        except IllegalAction as exc:
            self.last_refusal = exc
            if conn is not None:
                self._error(conn, "illegal", str(exc), seq)
            return False
        unproven = self._private_claim(action) or self._private_unproven(evs)
        if unproven and isinstance(action, A.Timeout) and self._private_split(action, evs, now):
            return True  # the draw first; the rest once the drawn card is known
        if unproven:
            self.last_refusal = IllegalAction(getattr(action, "seat", None), self.match.phase, unproven)
            if conn is not None:
                self._error(conn, "illegal", str(self.last_refusal), seq)
            return False
        if self._private_hold(conn, action, seq, evs, now):
            return True  # every hand is shown first; the action is applied then
        by = "player" if conn is not None else (
            "timer" if isinstance(action, A.Timeout) else "bot")
        if self.record is not None or self._journal_on:
            plain = action_to_plain(action, self.variant)
            if self._mj is not None:  # a private round: in its next checkpoint
                self._mj_actions.append([plain, by])
            elif self._masked is not None:
                self._journal("tick", {"seq": self.seq + 1})
            else:
                self._journal("action", {"seq": self.seq + 1, "seat": getattr(action, "seat", -1),
                                         "by": by, "action": plain})
            if self.record is not None:
                self.record.log_action(plain, by)
        self._commit_change(m, evs, now)
        return True

    def _commit_change(self, m: MatchState, evs: list[Event], now: float) -> None:
        """Store the new state and tell every seat what it may see of it."""
        self.match = m
        self.seq += 1
        self._changed_at = now
        if self.emit_applied:
            self._out.append(F.Applied(tuple(evs), m))
        ctx = self._round
        if self.record is not None and ctx is not None and not ctx.finished and self._masked is None:
            self.record.log_events(evs, self.variant)
        self._private_before(m, evs, now)
        noted = self._private_note(evs)
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
            if seat is None or self._private_owner_holds(seat, m, evs):
                continue
            if evs:
                self._send(conn, _msg("events", seq=self.seq,
                                      events=[self._private_redact(e, seat) for e in evs]))
            self._private_hand(m, seat)
            self._send(conn, _msg("view", seq=self.seq, view=self._private_view(m, seat)))
        self._private_after(evs, noted, now)
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
            self._turn_waiting = key is not None and self._masked is not None and self._private_mover_waits()

    # ------------------------------------------------------------------ automatic play

    def _bot_delay(self, st: Seat) -> float:
        if self.config.bot_delay is not None:
            return self.config.bot_delay
        return think_delay(st.policy) if st.policy is not None else 0.5

    def _auto_deadline(self) -> tuple[float | None, int, str]:
        """(when, seat, what) of the table's next own move: "knock", "bot" or "timeout"."""
        m = self.match
        r = m.round
        if self.stage is not Stage.PLAYING or r is None or m.phase not in ("draw", "play"):
            return (None, -1, "")
        mr = self._masked
        if mr is not None and (mr.waiting() or self._held_action is not None
                               or self._timeout_half is not None):
            return (None, -1, "")  # a key the host waits for (a bot's card), or a showdown
        if (m.phase == "draw" and r.knock_window and self._knock_asked != self._turn_key):
            for s in r.knock_window:
                st = self.seats[s]
                if st.kind == "bot":
                    return (self._changed_at + self._bot_delay(st), s, "ask")
        s = r.turn
        st = self.seats[s]
        if st.kind == "bot" or self._private_benched(s):
            return (self._changed_at + self._bot_delay(st), s, "bot")
        if self._turn_waiting:
            return (None, -1, "")  # its cards are on their way: its move timer starts then
        if mr is not None and s in mr.blind:
            # Nobody but the player can play its hidden hand: when the move timer runs out,
            # its own client is asked to play the automatic move (once per turn); it owes
            # that move from then on (`_private_owed`: a deadline, then the round is void).
            if self.config.timer > 0 and st.conn is not None and self._prompted != self._turn_key:
                return (self._turn_started + self.config.timer, s, "prompt")
            return (None, -1, "")
        if st.conn is None:
            wait = float(self.config.timer) if self.config.timer > 0 else self.config.away_delay
            at = self._turn_started + wait
            if r.away[s] or s in self._handed_over:  # gone for good: no wait for it
                at = min(at, self._changed_at + self._bot_delay(st))
            return (at, s, "bot")
        if self.config.timer > 0:
            if self._timeout_refused == self._turn_key:
                return (None, -1, "")  # the core refused it this turn: no deadline to spin on
            return (self._turn_started + self.config.timer, s, "timeout")
        return (None, -1, "")

    def _ask_knocks(self, now: float) -> bool:
        """Ask the bots in the frapper window, once per turn; True if one knocked."""
        m = self.match
        r = m.round
        self._knock_asked = self._turn_key
        assert r is not None
        for s in r.knock_window:
            st = self.seats[s]
            if st.kind != "bot" or st.policy is None:
                continue
            new_events, self._bot_events[s] = self._bot_events[s], []  # each event given once
            try:
                wants = st.policy.wants_knock(view_for(m, s), tuple(new_events))
            except Exception:  # noqa: BLE001 - a broken bot must not stop the table
                wants = False
            if wants and self.try_apply(None, A.Knock(s), None, now):
                return True
        return False

    def _bot_move(self, seat: int, now: float) -> None:
        st = self.seats[seat]
        if st.policy is None:
            st.policy = self.make_policy("moyen", seat)
        view = view_for(self.match, seat)
        new_events, self._bot_events[seat] = self._bot_events[seat], []
        try:
            action = self.choose(seat, st.policy, view, new_events)
        except Exception as exc:  # noqa: BLE001 - a broken bot must not stop the table
            self.bot_failed(seat, exc)
            action = None
        self.last_refusal = None
        if action is not None and getattr(action, "seat", None) == seat and self.try_apply(
                None, action, None, now):
            return
        self.bot_failed(seat, self.last_refusal)
        fb = fallback_action(view)
        if fb is not None and self.try_apply(None, fb, None, now):
            return
        self.try_apply(None, A.Timeout(seat), None, now)

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
        while steps < max_steps and (not self.over or (self._audit_wait and self.stage is Stage.OVER)):
            if not self._step(now):
                break
            steps += 1
        return self._flush(now)

    def _step(self, now: float) -> bool:
        """One due thing; False when nothing is due."""
        void_at, void_seat = self._private_void_at()
        if void_at is not None and void_seat is not None and now >= void_at:
            self._private_late(void_seat, now)
            return True
        if self._audit_wait and self._audit_deadline is not None and now >= self._audit_deadline:
            self._audit_deadline = None
            if self._masked is not None:
                self._private_close_audit(now)
            if self._audit_wait:  # closed with nothing to report: go on
                self._audit_wait = False
                self._private_resume(now)
            return True
        if self._stage_deadline is not None and now >= self._stage_deadline:
            self._stage_deadline = None
            if self.stage is Stage.COMMIT:
                self._close_commits(now)
            elif self.stage is Stage.REVEAL:
                self._close_reveals(now)
            elif self.stage is Stage.BETWEEN:
                self._next_round_or_end(now)
            elif self.stage is Stage.RESUMING:
                self._after_resume(now)
            elif self.stage is Stage.WAITING:
                self._begin_match(now)
            return True
        at, seat, what = self._auto_deadline()
        if at is None or now < at:
            return False
        if what == "ask":
            self._ask_knocks(now)
        elif what == "bot":
            self._bot_move(seat, now)
        elif what == "prompt":
            self._prompted = self._turn_key
            self._private_send(seat, {"k": "mk_timeout", "turn": self.match.round.turn_no})  # type: ignore[union-attr]
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
        self._start_requested = True
        self._strikes.clear()
        self._private_out.clear()
        for st in self.seats.values():
            if st.kind == "human" and st.token is None:
                st.kind = "bot"
                st.nick = st.nick or f"Bot {st.seat + 1}"
                st.policy = self.make_policy("moyen", st.seat)
                self._broadcast_card(st.seat)
        self._players_changed(now, soon=False)
        if self.record is not None:
            self.record.set_players([
                {"seat": s.seat, "nick": s.nick, "kind": "bot" if s.remote_bot else s.kind}
                for s in self.seats.values()])
        if self._journal_on:
            self._out.append(F.JournalOpen())
            self._out.append(F.JournalSnapshot(self.snapshot(self.match, self.seq)))
        self._setup_round(now)

    def _setup_round(self, now: float) -> None:
        """Commit-reveal with the seated remote clients (spec steps 1-2)."""
        m = self.match
        self._resume_void = None
        tag = self.round_tag_for(m.round_no + 1)
        if tag in self._tags_used:
            raise RuntimeError(f"round tag {tag.hex()} used twice")  # our own bug
        self._tags_used.add(tag)
        remote = self.seats_to_commit(m.next_players())
        host_secret = self.host_secret_for(tag)
        self._journal("round", {"tag": tag, "step": "host_secret", "secret": host_secret})
        ctx = RoundCtx(tag, CommitmentRound(tag, self.host_seat, host_secret, remote), remote,
                       host_secret)
        self._round = ctx
        self.stage = Stage.COMMIT
        for s in remote:
            conn = self.seats[s].conn
            if conn is not None:
                self._send(conn, _msg("commit_request", round_tag=tag, seat=s))
        if ctx.commit.missing_commits:
            self._stage_deadline = now + self.config.commit_timeout
        else:
            self._close_commits(now)

    def commit(self, conn: int, tag: bytes, commitment: bytes, now: float) -> list[F.Effect]:
        seat = self.conns.get(conn)
        ctx = self._round
        if seat is None:
            return self._flush(now)
        if (ctx is None or ctx.tag != tag or self.stage is not Stage.COMMIT
                or ctx.commit.phase is not Phase.COMMIT):
            self._error(conn, "unexpected", "no commitment is expected")
            return self._flush(now)
        try:
            ctx.commit.add_commit(seat, commitment)
        except (ValueError, RuntimeError) as exc:
            self._error(conn, "unexpected", str(exc))
            return self._flush(now)
        if not ctx.commit.missing_commits:
            self._close_commits(now)
        return self._flush(now)

    def _close_commits(self, now: float) -> None:
        """Spec step 2: the commitment list goes out (seats that did not commit: absent)."""
        ctx = self._round
        assert ctx is not None
        commits = ctx.commit.commitment_list(drop_missing=True)
        ctx.commits_sent = True
        self._journal("round", {"tag": ctx.tag, "step": "commits", "commits": pairs(commits)})
        self._to_seated(_msg("commitments", round_tag=ctx.tag, commits=commits))
        self._announce_exclusions(ctx)
        if ctx.commit.phase is Phase.REVEAL:
            self.stage = Stage.REVEAL
            self._stage_deadline = now + self.config.reveal_timeout
        else:
            self._deal(now)

    def reveal(self, conn: int, tag: bytes, secret: bytes, now: float) -> list[F.Effect]:
        seat = self.conns.get(conn)
        ctx = self._round
        if seat is None:
            return self._flush(now)
        if (ctx is None or ctx.tag != tag or self.stage is not Stage.REVEAL
                or ctx.commit.phase is not Phase.REVEAL):
            self._error(conn, "unexpected", "no reveal is expected")
            return self._flush(now)
        try:
            outcome = ctx.add_reveal(seat, secret)
        except (ValueError, RuntimeError) as exc:
            self._error(conn, "unexpected", str(exc))
            return self._flush(now)
        self._journal("round", {"tag": ctx.tag, "step": "reveal", "seat": seat, "secret": secret})
        if outcome is RevealOutcome.MISMATCH:
            text = f"seat {seat} revealed a secret that does not match its commitment"
            for c, s in self.conns.items():
                if s is not None:
                    self._error(c, "reveal_mismatch", text)
            self._announce_exclusions(ctx)
        if ctx.commit.phase is Phase.COMPLETE:
            self._stage_deadline = None
            self._deal(now)
        return self._flush(now)

    def _close_reveals(self, now: float) -> None:
        ctx = self._round
        assert ctx is not None
        if ctx.commit.phase is Phase.REVEAL:
            ctx.commit.close_reveals()
        self._deal(now)

    def _announce_exclusions(self, ctx: RoundCtx) -> None:
        """Every seat left out of the round's seed is announced to all, with the reason."""
        fresh = False
        codes = {s: "no_commit" for s in ctx.commit.absent} | _exclusion_codes(ctx)
        for seat, why in sorted(ctx.exclusions().items()):
            if seat in ctx.announced:
                continue
            ctx.announced.add(seat)
            fresh = fresh or seat in ctx.commit.excluded
            self._notice(f"seat {seat + 1} is left out of this round's shuffle: {why}",
                         "left_out_of_shuffle", seat=seat, reason=codes.get(seat, "no_commit"))
        if fresh:  # the verifiers' structured announcement: the same list, with the reasons
            self._to_seated(self._commitments_msg(ctx))

    @staticmethod
    def _commitments_msg(ctx: RoundCtx) -> F.Msg:
        """``commitments``, with ``excluded`` (seat -> reason code) once seats are excluded."""
        fields: dict[str, Any] = {"round_tag": ctx.tag, "commits": ctx.commitments()}
        if ctx.commit.excluded:
            fields["excluded"] = _exclusion_codes(ctx)
        return F.Msg("commitments", fields)

    @staticmethod
    def _secrets_msg(ctx: RoundCtx) -> F.Msg:
        fields: dict[str, Any] = {"round_tag": ctx.tag, "secrets": ctx.secrets(),
                                  "excluded": ctx.excluded()}
        if ctx.commit.excluded:
            fields["reasons"] = _exclusion_codes(ctx)
        return F.Msg("round_secrets", fields)

    def _notice(self, text: str, code: str | None = None, **data: Any) -> None:
        """A notice to every player: ``text`` (English), and for the facts the client
        words itself in its player's language, ``code`` and ``data`` (net/notices.py)."""
        players = self.players_info()
        entry: dict[str, Any] = {"type": TABLE_NOTICE, "players": players, "text": text}
        if code is not None:
            entry["code"], entry["data"] = code, data
        for conn, seat in self.conns.items():
            if seat is not None:
                self._players_sent[conn] = players
                self._send(conn, _msg("events", seq=self.seq, events=[entry]))

    def _deal(self, now: float) -> None:
        """Spec steps 3-4: the seed from the secrets, the deck from the seed; deal."""
        ctx = self._round
        assert ctx is not None
        self._announce_exclusions(ctx)
        if ctx.excluded() and self._journal_on:
            self._journal("round", {"tag": ctx.tag, "step": "excluded", "seats": ctx.excluded()})
        seed = self.round_seed(ctx)
        ctx.seed = seed
        self._masked = None
        if self._private_start(ctx, seed, now):
            self._audit_deadline = None
            return  # dealt once the masked deck is shuffled (`_private_deal`)
        v = self.variant
        deck_ids = self.deck_for_round(seed, v.deck_size)
        if self._cards is None:  # one Card object per id for the whole match
            self._cards = self.card_objects()
        cards = [self._cards[i] for i in deck_ids]
        if self.record is not None:
            self.record.begin_round(self, ctx.tag, ctx.commit, deck_ids, seed)
        new_m, evs = self.deal(self.match, cards, seed)
        ctx.started = True
        self.stage = Stage.PLAYING
        if self.record is not None:
            self.record.set_round_players(new_m)
        if self._journal_on:
            # Write-ahead: the dealt round is on disk before anyone sees a card of it.
            self._out.append(F.JournalSnapshot(self.snapshot(new_m, self.seq + 1, evs)))
        self._commit_change(new_m, evs, now)

    def _finish_round(self, ctx: RoundCtx, now: float, abandoned: bool = False,
                      go_on: bool = True) -> None:
        """Spec step 5: every secret goes out; the record gets the round."""
        ctx.finished = True
        secrets = ctx.secrets()
        if secrets:
            self._to_seated(self._secrets_msg(ctx))
        if self.record is not None and self._masked is None:
            self.record.end_round(self.match, secrets, ctx.excluded(), abandoned)
            self._out.append(F.WriteRecord(self.record.to_plain()))
        if abandoned or not go_on:
            return
        if self.match.over:
            self._end_match(now)
        else:
            self._enter_between(now)

    def _enter_between(self, now: float) -> None:
        self.stage = Stage.BETWEEN
        self._between_round = self.match.round_no
        self._stage_deadline = now + self.config.between_timeout
        if not self._waiting_choices():
            self._next_round_or_end(now)

    def _waiting_choices(self) -> list[int]:
        return [
            s.seat for s in self.seats.values()
            if s.kind == "human" and s.conn is not None and not s.left
            and not self.match.eliminated[s.seat] and s.seat not in self._choices
        ]

    def next_round(self, conn: int, choice: str, now: float) -> list[F.Effect]:
        """Between rounds: a player's "continue" or "leave" (journaled)."""
        seat = self.conns.get(conn)
        if seat is None:
            return self._flush(now)
        if self.stage is not Stage.BETWEEN and not (
                self.stage is Stage.RESUMING and self.match.phase == "between"):
            self._error(conn, "unexpected", "not between rounds")
            if not self.started:
                # Early: the match has not started, there is nothing to answer (protocol.md:
                # unexpected, and the connection is closed).
                self._out.append(F.Close(conn))
            # Else a stray answer (a race with the next deal, or a confused client):
            # refused, the seat plays on.
            return self._flush(now)
        if seat in self._choices:
            return self._flush(now)
        if choice == "leave":
            try:
                m, evs = withdraw(self.match, seat)
            except IllegalAction as exc:
                self._error(conn, "illegal", str(exc))
                return self._flush(now)
            self._journal("withdraw", {"seq": self.seq + 1, "seat": seat})
            self.seats[seat].left = True
            if self.record is not None:
                self.record.log_withdrawal(seat)
            self._commit_change(m, evs, now)
            self._players_changed(now, soon=False)
        else:
            self._journal("choice", {"round_no": self.match.round_no, "seat": seat,
                                     "choice": choice})
        self._choices[seat] = choice
        if self.stage is Stage.BETWEEN and (self.match.over or not self._waiting_choices()):
            self._next_round_or_end(now)
        return self._flush(now)

    def _next_round_or_end(self, now: float) -> None:
        self._choices.clear()
        self._stage_deadline = None
        if self.match.over:
            self._end_match(now)
        elif self.may_continue():
            if self._audit_wait:
                self._setup_after_audit = True  # dealt once the last round's audit is in
            else:
                self._setup_round(now)
        else:
            self.stage = Stage.STOPPED

    def may_continue(self) -> bool:
        """Deal another round? (self-play stops at its round cap)."""
        return True

    def _end_match(self, now: float) -> None:
        self.stage = Stage.OVER
        self._stage_deadline = None
        if self.record is not None:
            self.record.finish(self.match)
        self._journal("end", {"scores": list(self.match.totals)})
        if self.record is not None:
            self._out.append(F.WriteRecord(self.record.to_plain()))
        if self._journal_on:
            self._out.append(F.JournalClose(delete=True))
        if self._audit_wait:  # private dealing: the last round's audit still needs the table
            self._over_after_audit = True
            return
        self._out.append(F.MatchOver(self.match.winner))

    def stop(self, now: float) -> list[F.Effect]:
        """Close the table: a running round is abandoned (its secrets go out)."""
        if self.stage is Stage.STOPPED:
            return []
        ctx = self._round
        if ctx is not None and ctx.started and not ctx.finished:
            self._finish_round(ctx, now, abandoned=True)
        was_over = self.stage is Stage.OVER
        self.stage = Stage.STOPPED
        self._stage_deadline = None
        for conn in list(self.conns):
            self._send(conn, _msg("bye", reason="table closed"))
            self._out.append(F.Close(conn))
        self.conns.clear()
        if self._journal_on and not was_over:
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
                entropy: Callable[[int], bytes], *, record: Any = None,
                now: float = 0.0) -> TableMachine:
        """Rebuild a table from its journal (snapshot and the records after it)."""
        from rami_lan.table.snapshot import restore

        return restore(cls, snap, records, config, entropy, record=record, now=now)

    def resumed(self, now: float) -> list[F.Effect]:
        """Go on after `restore`, at the point the match was (call once, when listening)."""
        self._start_requested = True
        self._changed_at = now
        self._turn_key = None
        self._note_turn(now)
        ctx = self._round
        if self.match.phase in ("draw", "play"):
            self.stage = Stage.PLAYING
            if self._masked is not None:  # a private round goes on: its players have
                for s in self._masked.blind:  # `masked_wait` to come back, as after a drop
                    self._away_since.setdefault(s, now)
            return self._flush(now)
        if ctx is not None and ctx.started and not ctx.finished:
            # The round ended just before the crash, or (private dealing) it was being
            # played and the journal could not make its masked deck again: it is void.
            self._finish_round(ctx, now, abandoned=self._resume_void is not None, go_on=False)
        nxt, self._resume_next = self._resume_next, None
        if self.match.over:
            self._end_match(now)
        elif nxt is not None and nxt["commits"] is not None:
            self._take_up_round(nxt, now)
        else:
            if nxt is not None:
                # Crashed before the commitment list went out: the same tag and host
                # secret, asked again (no commitment set was ever published for that tag).
                self._resume_secret = (nxt["tag"], nxt["secret"])
            # Give the players a moment to come back first, so their secrets count.
            self.stage = Stage.RESUMING
            self._stage_deadline = now + self.config.resume_grace
        return self._flush(now)

    def _after_resume(self, now: float) -> None:
        self._stage_deadline = None
        if self._resume_deal:
            self._resume_deal = False
            self._deal(now)
        elif self._resume_secret is not None:
            self._setup_round(now)
        elif self._resume_void is not None:
            self._next_round_or_end(now)  # a void round has no result to look at: deal on
        else:
            self._enter_between(now)

    def _take_up_round(self, nxt: dict[str, Any], now: float) -> None:
        """Crashed in the reveal phase: the published commitments stand; wait for reveals."""
        tag = nxt["tag"]
        commits: dict[int, bytes] = nxt["commits"]
        remote = tuple(s for s in sorted(commits) if s != self.host_seat)
        commit = CommitmentRound(tag, self.host_seat, nxt["secret"], remote)
        for s in remote:
            commit.add_commit(s, commits[s])
        ctx = RoundCtx(tag, commit, remote, nxt["secret"])
        commit.commitment_list(drop_missing=True)
        ctx.commits_sent = True
        for s, secret in nxt["reveals"].items():
            with contextlib.suppress(ValueError, RuntimeError):
                ctx.add_reveal(s, secret)
        self._round = ctx
        self._tags_used.add(tag)
        if commit.phase is Phase.REVEAL:
            self.stage = Stage.REVEAL
            self._stage_deadline = now + self.config.reveal_timeout
        elif self.config.private_deal:
            # The masked deck is shuffled by the players' own machines: they come back
            # first (a shuffle cut by the crash starts again, with a new ``mk_round``).
            self._resume_deal = True
            self.stage = Stage.RESUMING
            self._stage_deadline = now + self.config.resume_grace
        else:
            self._deal(now)

    def _check_resume_grace(self, now: float) -> None:
        if self.stage is Stage.RESUMING and not any(
                st.kind == "human" and st.conn is None and not st.left
                and st.seat != self.owner_seat for st in self.seats.values()):
            self._after_resume(now)

