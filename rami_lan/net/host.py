"""The authoritative table host: asyncio server around the sans-I/O protocol session.

Theory of operation
-------------------
`TableHost` owns the one true `MatchState`. Clients connect over TCP; each connection
runs as one asyncio task that feeds received bytes to a `protocol.Session` and handles
the messages it yields. Every change of the match goes through `_commit_change`: the
new state is stored, the sequence number grows, the events are logged for the record,
and each connected seat receives ``events`` (each event redacted with
``event.for_seat(seat)``) and ``view`` (``view_for(match, seat)``) -- nothing else about
the cards ever leaves the host. Then the automatic players and the move timer are
re-planned for the new state.

Match flow (one background task, `_run_match`): wait until every human seat is filled
(or `start_match`), then for each round run the commit-reveal of FAIR_SHUFFLE.md with
the remote clients seated at that moment, deal from ``deck_order(seed, n)``, let the
round play, send every secret at the end, write the record, wait for each player's
"continue" or "leave" (``withdraw``) and go on until the match is over.

Who plays a seat: a connected human plays their own seat (their move timer, when on,
applies the core's ``Timeout`` on expiry); bot seats are played by a policy after its
think delay; a dropped human keeps the seat (their reconnect token gets it back with
the full view) and, when their turn comes, a bot plays for them after the timer (or
``away_delay``). Knocks (frapper) are applied in arrival order: the first to reach the
host wins; the core closes the window at the next player's draw.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
import secrets
import ssl
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from rami_lan.core import (
    IllegalAction,
    MalformedAction,
    MatchOptions,
    MatchState,
    RulesError,
    apply,
    card_from_id,
    new_match,
    start_round,
    view_for,
    withdraw,
)
from rami_lan.core import actions as A
from rami_lan.core.codec import (
    action_from_plain,
    action_to_plain,
    event_to_plain,
    match_from_plain,
    match_to_plain,
    view_to_plain,
)
from rami_lan.core.events import Event, RoundEnded
from rami_lan.core.variants import get_variant
from rami_lan.net import guard as G
from rami_lan.net import protocol as P
from rami_lan.net import tls
from rami_lan.net.bot_client import LEVELS, fallback_action, make_policy, think_delay
from rami_lan.net.chat import ChatPolicy, ChatRefusal
from rami_lan.net.journal import Journal
from rami_lan.net.pake import PakeError, PakeHost
from rami_lan.net.presence import Guestlist, WhoMaySit
from rami_lan.net.record import MatchRecord
from rami_lan.net.shuffle import (
    DEDICATED_HOST_SEAT,
    CommitmentRound,
    Phase,
    RevealOutcome,
    deck_order,
    new_secret,
    round_tag,
)

log = logging.getLogger(__name__)

__all__ = ["TABLE_NOTICE", "TableConfig", "TableHost"]

_MAX_WRITE_BUFFER = 4 * 1024 * 1024
"""A peer with more than this many bytes waiting to be written to it does not read: dropped."""

TABLE_NOTICE = "TableNotice"
"""``type`` of the host's own entries in an ``events`` message (players, notices).

They are not core events; `rami_lan.net.client` handles them before decoding the rest.
"""


@dataclass
class TableConfig:
    """Every setting of a table. ``bots`` maps seat -> level for seats the host fills."""

    name: str = "Rami"
    variant: str = "rami"
    seats: int = 4
    bots: dict[int, str] = field(default_factory=dict)
    limit: int | None = None
    quick: bool = False
    knock: bool = False
    timer: int = 0
    join_code: str | None = None
    who_may_sit: str = ""
    """"anyone", "code" (the join code) or "invited" (an invitation's ticket); empty:
    "code" when there is a join code, else "anyone"."""
    advertise: bool = True
    interfaces: list[str] | Literal["all"] = "all"
    port: int = 0
    host_nickname: str = "host"
    record_dir: str | Path | None = None
    headless: bool = False
    # Tuning (sensible defaults; tests shorten them).
    bot_delay: float | None = None
    """Seconds a bot waits before acting; None: the policy's own ``think_delay``."""
    away_delay: float = 3.0
    """A dropped player's turn, timer off: seconds before a bot plays for them."""
    commit_timeout: float = 10.0
    reveal_timeout: float = 10.0
    between_timeout: float = 60.0
    """Seconds to wait for every player's continue/leave between rounds."""
    auto_start: bool = True
    """Start the match as soon as every human seat is taken."""
    identity_dir: str | Path | None = None
    """Folder of the host's TLS identity; None: ``config_dir()`` (see `rami_lan.net.tls`)."""
    guard: G.GuardConfig | None = None
    """Limits against hostile peers; None: `guard.GuardConfig` defaults."""
    journal_dir: str | Path | None = None
    """Folder of the crash-safe journal (``rami-lan host`` uses ``config_dir()/tables``);
    None: no journal (library use, tests)."""
    table_id: bytes | None = None
    """Fixed table id (a resumed table keeps its own); None: a random one."""
    resume_grace: float = 10.0
    """A resumed table between rounds waits this long for its players to come back."""

    def __post_init__(self) -> None:
        get_variant(self.variant)
        if not 2 <= self.seats <= 4:
            raise ValueError("a table has 2 to 4 seats")
        for seat, level in self.bots.items():
            if not 0 <= seat < self.seats:
                raise ValueError(f"bot seat {seat} is not a seat of this table")
            if level not in LEVELS:
                raise ValueError(f"bot level must be one of {', '.join(LEVELS)}, not {level!r}")
        if self.timer < 0:
            raise ValueError("the timer is a number of seconds, 0 for none")
        if not self.who_may_sit:
            self.who_may_sit = "code" if self.join_code else "anyone"
        who = WhoMaySit(self.who_may_sit)  # ValueError on anything else
        self.who_may_sit = str(who)
        if who is WhoMaySit.CODE and not self.join_code:
            raise ValueError("a 'code only' table needs a join code")
        if who is WhoMaySit.ANYONE and self.join_code:
            raise ValueError("a table with a join code is 'code only' (or 'invited only')")
        if not self.headless and len(self.bots) >= self.seats:
            raise ValueError("every seat is a bot: no seat left for the host's player")
        MatchOptions(self.limit, self.quick, self.knock).resolved(get_variant(self.variant))

    @property
    def human_seats(self) -> list[int]:
        return [s for s in range(self.seats) if s not in self.bots]


@dataclass(eq=False)
class _Conn:
    session: P.Session
    writer: asyncio.StreamWriter
    peer: str
    key: str = ""
    seat: int | None = None
    nick: str = ""
    lang: str = "en"
    bot: bool = False
    closed: bool = False
    got_hello: bool = False
    hello: P.Hello | None = None
    pake: PakeHost | None = None
    pake_seat: _Seat | None = None
    pake_secret: str | None = None
    invitation: str | None = None
    """The invitation being redeemed by this connection's join-code exchange."""


@dataclass(eq=False)
class _Seat:
    seat: int
    kind: Literal["human", "bot"]
    level: str = "moyen"
    nick: str = ""
    token: bytes | None = None
    conn: _Conn | None = None
    owner: bool = False
    left: bool = False
    remote_bot: bool = False
    policy: Any = None
    pake_secret: str | None = None
    """The invitation ticket this seat was admitted with: its reconnects prove it again."""


@dataclass
class _RoundCtx:
    tag: bytes
    commit: CommitmentRound
    participants: tuple[int, ...]
    commit_event: asyncio.Event = field(default_factory=asyncio.Event)
    reveal_event: asyncio.Event = field(default_factory=asyncio.Event)
    started: bool = False
    finished: bool = False
    secrets_msg: P.RoundSecrets | None = None
    commitments_msg: P.Commitments | None = None
    host_secret: bytes = b""
    reveals: dict[int, bytes] = field(default_factory=dict)
    seed: bytes | None = None


class TableHost:
    """An authoritative rami-lan table. ``await start()`` returns the TCP port."""

    def __init__(self, config: TableConfig) -> None:
        self.config = config
        self.table_id = config.table_id or secrets.token_bytes(16)
        identity_dir = Path(config.identity_dir) if config.identity_dir is not None else None
        self.identity = tls.load_or_create_identity(config.name, identity_dir)
        self._ssl_ctx = tls.server_context(self.identity)
        self.guard = G.HostGuard(config.guard or G.GuardConfig())
        self.journal: Journal | None = None
        self.journal_path: Path | None = None
        self._resumed: dict[str, Any] | None = None
        self._resume_secret: tuple[bytes, bytes] | None = None
        self.variant = get_variant(config.variant)
        self.match: MatchState = new_match(
            config.variant, config.seats, MatchOptions(config.limit, config.quick, config.knock)
        )
        self.match_no = 1
        self.seq = 0
        self.seats: dict[int, _Seat] = {}
        for s in range(config.seats):
            if s in config.bots:
                self.seats[s] = _Seat(s, "bot", level=config.bots[s], nick=f"bot {s + 1}")
            else:
                self.seats[s] = _Seat(s, "human")
        self.owner_seat: int | None = None
        self.owner_token: bytes | None = None
        if not config.headless:
            self.owner_seat = config.human_seats[0]
            owner = self.seats[self.owner_seat]
            owner.owner = True
            owner.nick = config.host_nickname
            owner.token = self.owner_token = secrets.token_bytes(16)
        self.host_seat = DEDICATED_HOST_SEAT if self.owner_seat is None else self.owner_seat
        self.guestlist = Guestlist(config.who_may_sit, join_code=config.join_code)
        """Who may sit, and the invitations the owner issued (`rami_lan.net.presence`)."""
        self.chat = ChatPolicy()
        self.cards: dict[int, dict[str, Any]] = {}
        """seat -> the "Info joueur" card its player reported (plain, nick from the host)."""
        self.record = MatchRecord.new(self, config)
        self.record_path: Path | None = None
        self.port = 0
        self.finished = asyncio.Event()
        self._server: asyncio.Server | None = None
        self._servers: list[asyncio.Server] = []
        self._conns: set[_Conn] = set()
        self._advertiser: Any = None
        self._start_event = asyncio.Event()
        self._match_task: asyncio.Task[None] | None = None
        self._auto_task: asyncio.Task[None] | None = None
        self._timer_task: asyncio.Task[None] | None = None
        self._timer_key: tuple[int, int, int] | None = None
        self._round: _RoundCtx | None = None
        self._round_done = asyncio.Event()
        self._choices: dict[int, str] = {}
        self._choice_event = asyncio.Event()
        self._bot_events: dict[int, list[Event]] = {s: [] for s in range(config.seats)}
        self._conn_tasks: set[asyncio.Task[Any]] = set()
        self._stopping = False
        self._seat_update_task: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> int:
        """Listen (and advertise); return the TCP port."""
        cfg = self.config
        # One port for every address: bind the first, then the others to its port.
        hosts = ["0.0.0.0", "::"] if cfg.interfaces == "all" else list(cfg.interfaces)
        try:
            first = await asyncio.start_server(self._on_connect, host=hosts[0], port=cfg.port)
        except OSError:
            if not (cfg.port and self._resumed is not None):
                raise
            # A resumed table takes its old port if it is free, else any.
            log.info("port %d is taken; listening on another", cfg.port)
            first = await asyncio.start_server(self._on_connect, host=hosts[0], port=0)
        self.port = first.sockets[0].getsockname()[1]
        self._servers = [first]
        for extra in hosts[1:]:
            try:
                self._servers.append(
                    await asyncio.start_server(self._on_connect, host=extra, port=self.port)
                )
            except OSError as exc:
                if cfg.interfaces != "all":
                    for srv in self._servers:
                        srv.close()
                    raise
                log.debug("not listening on %s: %s", extra, exc)
        self._server = first
        for s, seat in self.seats.items():
            if seat.kind == "bot":
                seat.policy = make_policy(seat.level, s, secrets.randbits(32))
        if cfg.advertise:
            await self._start_advertising()
        self._match_task = asyncio.create_task(self._run_match(), name="rami-host-match")
        self._match_task.add_done_callback(_log_task_error)
        log.info("table %r on port %d", cfg.name, self.port)
        return self.port

    @property
    def fingerprint(self) -> str:
        """The SHA-256 of the table's TLS certificate (TXT ``fp``; clients pin it)."""
        return self.identity.fingerprint

    @property
    def short_fingerprint(self) -> str:
        """The table fingerprint players compare aloud (``3F2A-91BC-0D7E-55A1``)."""
        return self.identity.short_fingerprint

    async def start_match(self) -> None:
        """Start now: empty human seats are filled with bots."""
        self._start_event.set()

    async def wait_finished(self, timeout: float | None = None) -> None:
        await asyncio.wait_for(self.finished.wait(), timeout)

    async def stop(self) -> None:
        """Abandon any running round (secrets go out), close every connection."""
        if self._stopping:
            return
        self._stopping = True
        for task in (self._match_task, self._auto_task, self._timer_task, self._seat_update_task):
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        ctx = self._round
        if ctx is not None and ctx.started and not ctx.finished:
            self._finish_round(ctx, abandoned=True)
        for conn in list(self._conns):
            self._send(conn, P.Bye(reason="table closed"))
            self._close_conn(conn)
        for server in self._servers:
            server.close()
        for server in self._servers:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), 1.0)
        for task in list(self._conn_tasks):
            task.cancel()
        if self._conn_tasks:
            await asyncio.wait(self._conn_tasks, timeout=1.0)
        if self._advertiser is not None:
            with contextlib.suppress(Exception):
                await self._advertiser.stop()
            self._advertiser = None
        self._close_journal(delete=False)  # an unfinished match stays resumable
        self.finished.set()

    # ------------------------------------------------------------------ advertising

    def _ad_fields(self) -> dict[str, Any]:
        taken = sum(1 for s in self.seats.values() if s.kind == "bot" or s.conn is not None)
        return {"seats_taken": min(taken, self.config.seats)}

    async def _start_advertising(self) -> None:
        from zeroconf import IPVersion

        from rami_lan.net.discovery import TableAd, TableAdvertiser

        cfg = self.config
        ad = TableAd(
            table_id=self.table_id.hex(),
            name=cfg.name,
            host=cfg.host_nickname,
            variant=cfg.variant,
            seats_total=cfg.seats,
            point_limit=self.match.options.limit or 0,
            code_required=cfg.who_may_sit != WhoMaySit.ANYONE,
            frapper=cfg.knock,
            timer=cfg.timer,
            fingerprint=self.identity.fingerprint,
            **self._ad_fields(),
        )
        self._advertiser = TableAdvertiser(
            ad, self.port, interfaces=cfg.interfaces, ip_version=IPVersion.V4Only
        )
        await self._advertiser.start()

    def _seats_changed(self) -> None:
        self._broadcast_table_notice()
        if self._advertiser is None or self._stopping:
            return
        if self._seat_update_task is None or self._seat_update_task.done():
            self._seat_update_task = asyncio.create_task(self._update_ad())

    async def _update_ad(self) -> None:
        with contextlib.suppress(Exception):
            await self._advertiser.update(**self._ad_fields())

    # ------------------------------------------------------------------ info for clients

    def table_info(self) -> dict[str, Any]:
        cfg = self.config
        o = self.match.options
        return {
            "name": cfg.name,
            "variant": cfg.variant,
            "seats": cfg.seats,
            "limit": o.limit,
            "quick": o.quick,
            "knock": o.knock,
            "timer": cfg.timer,
            "host": cfg.host_nickname,
            "headless": cfg.headless,
            "host_seat": self.host_seat,
            "match_no": self.match_no,
            "code": cfg.join_code is not None,
            "who": cfg.who_may_sit,
            # the bots' levels, for the players' "Info joueur" (seat, level)
            "bots": [[s.seat, s.level] for s in self.seats.values()
                     if s.kind == "bot" and not s.remote_bot],
        }

    def players_info(self) -> list[dict[str, Any]]:
        return [
            {
                "seat": s.seat,
                "nick": s.nick or "",
                "kind": s.kind,
                "connected": s.kind == "bot" or s.conn is not None,
                "left": s.left,
            }
            for s in self.seats.values()
        ]

    def _broadcast_table_notice(self, text: str | None = None) -> None:
        entry: dict[str, Any] = {"type": TABLE_NOTICE, "players": self.players_info()}
        if text:
            entry["text"] = text
        for conn in list(self._conns):
            if conn.seat is not None:
                self._send(conn, P.Events(seq=self.seq, events=[entry]))

    # ------------------------------------------------------------------ connections

    async def _on_connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._conn_tasks.add(task)
        peername = writer.get_extra_info("peername")
        key = G.address_key(peername)
        if self._stopping or not self.guard.connections.admit(key):
            # Over a cap: close at once, before any TLS work.
            with contextlib.suppress(Exception):
                writer.transport.abort()
            if task is not None:
                self._conn_tasks.discard(task)
            return
        conn: _Conn | None = None
        try:
            gc = self.guard.config
            try:
                await writer.start_tls(self._ssl_ctx,
                                       ssl_handshake_timeout=gc.tls_handshake_timeout)
            except (ssl.SSLError, ConnectionError, OSError, TimeoutError, EOFError):
                with contextlib.suppress(Exception):
                    writer.transport.abort()
                return
            conn = _Conn(P.Session("host"), writer, str(peername), key=key)
            self._conns.add(conn)
            await self._serve(conn, reader)
        except (ConnectionError, OSError, asyncio.CancelledError):
            pass
        except Exception:  # nothing a peer sends may reach the host's main task
            log.exception("connection from %s failed", peername)
        finally:
            try:
                if conn is not None:
                    if conn.pake is not None and not conn.pake.verified:
                        self.guard.join_attempts.failure(key)  # gave up mid-exchange
                        conn.pake = None
                    self._close_conn(conn)
                else:
                    with contextlib.suppress(Exception):
                        writer.close()
            finally:
                self.guard.connections.release(key)
                if task is not None:
                    self._conn_tasks.discard(task)

    async def _serve(self, conn: _Conn, reader: asyncio.StreamReader) -> None:
        """Read, decode, rate-limit and handle one connection's messages until it ends."""
        gc = self.guard.config
        limiter = self.guard.rate_limiter()
        hello_by = self.guard.hello_deadline()
        welcome_by = self.guard.handshake_deadline()
        while not conn.closed:
            if conn.session.established:
                wait = gc.idle_timeout
            elif not conn.got_hello:
                wait = hello_by.remaining()
            else:
                wait = welcome_by.remaining()
            try:
                data = await asyncio.wait_for(reader.read(G.READ_CHUNK), max(wait, 0.0))
            except TimeoutError:
                if not conn.session.established:
                    if conn.pake is not None:
                        self._pake_failed(conn)
                    else:
                        self._refuse(conn, "protocol_error", "too slow")
                return
            if not data:
                return
            error: P.RemoteProtocolError | None = None
            try:
                msgs = conn.session.receive_data(data)
            except P.RemoteProtocolError as exc:
                error, msgs = exc, list(exc.received)
            if not limiter.allow(messages=max(len(msgs), 1), size=len(data)):
                log.info("%s sends too fast; closing", conn.peer)
                if conn.session.established:
                    self._send(conn, P.Error(code="rate_limited", message="too many messages"))
                else:
                    self._send(conn, P.Refused(code="rate_limited", message="too many messages"))
                return
            for m in msgs:
                self._handle_safely(conn, m)
                if conn.closed:
                    return
            if error is not None:
                reply = conn.session.error_reply(error)
                if reply is not None:
                    self._send(conn, reply)
                log.info("protocol error from %s: %s", conn.peer, error)
                return

    def _handle_safely(self, conn: _Conn, msg: P.Message) -> None:
        try:
            self._on_message(conn, msg)
        except Exception:
            log.exception("handling %s from %s failed; closing that connection",
                          type(msg).__name__, conn.peer)
            self._close_conn(conn)

    def _close_conn(self, conn: _Conn) -> None:
        if conn in self._conns:
            self._conns.discard(conn)
        was_closed = conn.closed
        conn.closed = True
        with contextlib.suppress(Exception):
            conn.writer.close()
        if was_closed and conn.seat is None:
            return
        seat = self.seats.get(conn.seat) if conn.seat is not None else None
        if seat is not None and seat.conn is conn:
            seat.conn = None
            if not self._started and not seat.owner:
                seat.token = None  # before the match a dropped seat is free again
                seat.nick = ""
                seat.pake_secret = None
                seat.remote_bot = False
                self.cards.pop(seat.seat, None)
                self.chat.forget(seat.seat)
            if not self._stopping:
                self._seats_changed()
                self._plan()

    def _send(self, conn: _Conn, msg: P.Message) -> None:
        if conn.closed or conn.session.local_closed:
            return
        if conn.session.error is not None and not isinstance(msg, P.Error | P.Refused | P.Bye):
            return  # that peer broke the protocol: only the farewell goes out
        try:
            # view / events come from the core's own encoders: skip the full self-check.
            data = conn.session.send(msg, validate=not isinstance(msg, P.View | P.Events))
        except P.LocalProtocolError:
            log.exception("host tried to send an invalid message")
            return
        self._on_send(conn.seat, msg, data)
        transport = conn.writer.transport
        if transport.is_closing():
            return
        if transport.get_write_buffer_size() > _MAX_WRITE_BUFFER:
            log.warning("%s does not read; closing", conn.peer)
            self._close_conn(conn)
            return
        conn.writer.write(data)

    def _on_send(self, seat: int | None, msg: P.Message, data: bytes) -> None:
        """Hook for tests: every message the host sends, with its frame."""

    def _on_applied(self, events: Sequence[Event]) -> None:
        """Hook for tests: the unredacted events of each change, before any send."""

    # ------------------------------------------------------------------ messages

    def _on_message(self, conn: _Conn, msg: P.Message) -> None:
        if isinstance(msg, P.Hello):
            self._on_hello(conn, msg)
            return
        if isinstance(msg, P.Bye):
            self._close_conn(conn)
            return
        if isinstance(msg, P.Ping):
            self._send(conn, P.Pong(n=msg.n))
            return
        if isinstance(msg, P.Pong):
            return
        if isinstance(msg, P.Pake | P.PakeConfirm):
            self._on_pake(conn, msg)
            return
        seat = conn.seat
        if seat is None:
            return
        if isinstance(msg, P.Action):
            self._on_action(conn, seat, msg.seq, msg.action)
        elif isinstance(msg, P.Knock):
            self._try_apply(conn, A.Knock(seat), msg.seq)
        elif isinstance(msg, P.Commit):
            self._on_commit(conn, seat, msg)
        elif isinstance(msg, P.Reveal):
            self._on_reveal(conn, seat, msg)
        elif isinstance(msg, P.NextRound):
            self._on_next_round(conn, seat, msg.choice)
        elif isinstance(msg, P.Chat):
            self._on_chat(conn, seat, msg.text)
        elif isinstance(msg, P.Card):
            self._on_card(conn, seat, msg.card)

    # ------------------------------------------------------------------ chat and cards

    def _on_chat(self, conn: _Conn, seat: int, text: str) -> None:
        """Relay a chat line to every seat through the chat policy, or tell its sender why not."""
        verdict = self.chat.check(seat, text, bot=conn.bot or self.seats[seat].kind == "bot")
        if not verdict.ok:
            why = {
                ChatRefusal.EMPTY: "empty message",
                ChatRefusal.RATE_LIMITED:
                    f"too many messages, wait {max(1, math.ceil(verdict.retry_after))} s",
                ChatRefusal.BOT: "bots do not chat",
            }.get(verdict.refusal, "refused")  # type: ignore[arg-type]
            self._send(conn, P.Error(code="chat_refused", message=f"{verdict.refusal}: {why}"))
            return
        out = P.ChatMsg(seat=seat, text=verdict.text)
        for other in list(self._conns):
            if other.seat is not None:
                self._send(other, out)

    def _on_card(self, conn: _Conn, seat: int, plain: dict[str, Any]) -> None:
        """Check a player's card, stamp the seat's nickname on it, relay it to everyone."""
        from rami_lan.stats import Connection, PlayerCard

        st = self.seats[seat]
        if conn.bot or st.kind == "bot":
            return  # bots get the host's bare bot card
        try:
            card = PlayerCard.from_plain(plain, connection=Connection.CONNECTED)
            card = PlayerCard(_card_nick(st.nick, card.nickname), card.player_id,
                              Connection.CONNECTED, card.stats, card.by_variant)
        except (ValueError, TypeError):
            self._send(conn, P.Error(code="bad_card", message="the player card does not decode"))
            return
        self.cards[seat] = card.to_plain()
        self._broadcast_card(seat)

    def _card_of(self, seat: int) -> dict[str, Any] | None:
        from rami_lan.stats import Connection, PlayerCard

        st = self.seats[seat]
        if st.kind == "bot" or st.remote_bot:
            return PlayerCard(_card_nick(st.nick, f"bot {seat + 1}"), None,
                              Connection.BOT).to_plain()
        return self.cards.get(seat)

    def _broadcast_card(self, seat: int) -> None:
        card = self._card_of(seat)
        if card is None:
            return
        msg = P.CardMsg(seat=seat, card=card)
        for other in list(self._conns):
            if other.seat is not None:
                self._send(other, msg)

    def _send_cards(self, conn: _Conn) -> None:
        """Every card the host holds, to a (re)joining seat."""
        for seat in self.seats:
            card = self._card_of(seat)
            if card is not None:
                self._send(conn, P.CardMsg(seat=seat, card=card))

    def _refuse(self, conn: _Conn, code: str, message: str) -> None:
        self._send(conn, P.Refused(code=code, message=message))
        self._close_conn(conn)

    def _on_hello(self, conn: _Conn, hello: P.Hello) -> None:
        conn.got_hello = True
        conn.nick, conn.lang, conn.bot = hello.nick, hello.lang, hello.bot
        conn.hello = hello
        seat: _Seat | None = None
        if hello.token is not None:
            seat = next(
                (s for s in self.seats.values() if s.token is not None
                 and secrets.compare_digest(s.token, hello.token)),
                None,
            )
            if seat is None or seat.left:
                self.guard.join_attempts.failure(conn.key)
                self._refuse(conn, "bad_token", "unknown or expired reconnect token")
                return
        code = self.config.join_code
        conn.invitation = None
        if seat is not None:
            # A reconnect proves again what seated it: its ticket, else the join code.
            code = seat.pake_secret or code
        elif self.guestlist.who is WhoMaySit.INVITED:
            ticket = (self.guestlist.ticket_for(hello.invitation)
                      if hello.invitation is not None else None)
            if ticket is None:
                self._refuse(conn, "not_invited", "this table is by invitation only")
                return
            code, conn.invitation = ticket, hello.invitation
        if code is not None:
            # hello.code is ignored: the code (or the invitation's ticket) is the password
            # of a PAKE, never sent.
            wait = self.guard.join_attempts.retry_after(conn.key)
            if wait > 0:
                self._refuse(conn, "rate_limited",
                             f"too many wrong codes, try again in {math.ceil(wait)} s")
                return
            conn.pake = PakeHost(code, self.identity.fingerprint)
            conn.pake_seat = seat
            conn.pake_secret = code
            self._send(conn, P.Pake(msg=conn.pake.start()))
            return
        self._seat_after_hello(conn, hello, seat)

    def _on_pake(self, conn: _Conn, msg: P.Pake | P.PakeConfirm) -> None:
        pake = conn.pake
        if pake is None or conn.hello is None:
            self._refuse(conn, "protocol_error", "no join-code exchange is running")
            return
        try:
            if isinstance(msg, P.Pake):
                pake.receive(msg.msg)
                return
            pake.check_confirmation(msg.mac)
        except PakeError:
            self._pake_failed(conn)
            return
        self.guard.join_attempts.success(conn.key)
        if conn.invitation is not None and conn.pake_seat is None:
            # The ticket is single-use: another connection may have redeemed it meanwhile.
            if self.guestlist.redeem(conn.invitation) is None:
                self._refuse(conn, "not_invited", "this invitation was already used")
                return
        self._send(conn, P.PakeConfirm(mac=pake.confirm_message()))
        conn.pake = None
        self._seat_after_hello(conn, conn.hello, conn.pake_seat)

    def _pake_failed(self, conn: _Conn) -> None:
        conn.pake = None
        self.guard.join_attempts.failure(conn.key)
        self._refuse(conn, "bad_code", "wrong join code")

    def _seat_after_hello(self, conn: _Conn, hello: P.Hello, seat: _Seat | None) -> None:
        if seat is not None and (seat.left or seat.token is None):
            self._refuse(conn, "bad_token", "unknown or expired reconnect token")
            return
        if seat is None:
            free = [s for s in self.seats.values() if s.kind == "human" and s.token is None]
            if not free:
                if self._started:
                    self._refuse(conn, "in_progress", "the match has started")
                else:
                    self._refuse(conn, "table_full", "every seat is taken")
                return
            seat = free[0]
            seat.token = secrets.token_bytes(16)
            seat.nick = _unique_nick(hello.nick, [s.nick for s in self.seats.values()])
            if conn.invitation is not None:
                seat.pake_secret = conn.pake_secret
        self._attach(conn, seat, hello)

    def _attach(self, conn: _Conn, seat: _Seat, hello: P.Hello) -> None:
        old = seat.conn
        if old is not None and old is not conn:
            old.seat = None
            self._send(old, P.Bye(reason="seat taken over by a new connection"))
            self._close_conn(old)
        if not seat.nick:
            seat.nick = hello.nick
        seat.conn = conn
        seat.remote_bot = hello.bot
        conn.seat = seat.seat
        self.chat.set_bot(seat.seat, hello.bot or seat.kind == "bot")
        assert seat.token is not None
        self._send(
            conn,
            P.Welcome(
                table_id=self.table_id,
                seat=seat.seat,
                token=seat.token,
                table=self.table_info(),
                players=self.players_info(),
            ),
        )
        if self.match.round is not None:
            self._send_state(conn)
        self._send_cards(conn)
        if hello.bot:
            self._broadcast_card(seat.seat)
        self._seats_changed()
        self._plan()
        if self.config.auto_start and not self._started and self._all_seated():
            self._start_event.set()

    def _send_state(self, conn: _Conn) -> None:
        """Full state for a (re)joining seat: its view, and the round's fair-shuffle data."""
        assert conn.seat is not None
        ctx = self._round
        if ctx is not None and ctx.commitments_msg is not None:
            self._send(conn, ctx.commitments_msg)
        self._send(conn, P.View(seq=self.seq, view=view_to_plain(view_for(self.match, conn.seat))))
        if ctx is not None and ctx.secrets_msg is not None:
            self._send(conn, ctx.secrets_msg)

    def _all_seated(self) -> bool:
        return all(s.kind == "bot" or s.conn is not None for s in self.seats.values())

    def _on_action(self, conn: _Conn, seat: int, seq: int, plain: dict[str, Any]) -> None:
        try:
            action = action_from_plain(plain, self.variant)
        except (MalformedAction, RulesError, ValueError, KeyError, TypeError) as exc:
            self._send(conn, P.Error(code="bad_action", message=_clip(str(exc)), ref=seq))
            return
        if isinstance(action, A.Timeout) or action.seat != seat:
            self._send(conn, P.Error(code="not_your_seat",
                                     message=f"you play seat {seat} only", ref=seq))
            return
        self._try_apply(conn, action, seq)

    def _try_apply(self, conn: _Conn | None, action: A.Action, seq: int | None) -> bool:
        if self.match.phase not in ("draw", "play"):
            if conn is not None:
                self._send(conn, P.Error(code="illegal", message="no round is being played",
                                         ref=seq))
            return False
        try:
            m, evs = apply(self.match, action)
        except IllegalAction as exc:
            if conn is not None:
                self._send(conn, P.Error(code="illegal", message=_clip(str(exc)), ref=seq))
            return False
        by = "player" if conn is not None else ("timer" if isinstance(action, A.Timeout) else "bot")
        plain = action_to_plain(action, self.variant)
        if not self._journal_append("action", {
            "seq": self.seq + 1, "seat": getattr(action, "seat", -1), "by": by,
            "action": plain,
        }):
            return False
        self.record.log_action(plain, by)
        self._commit_change(m, evs)
        return True

    # ------------------------------------------------------------------ state changes

    def _commit_change(self, m: MatchState, evs: list[Event]) -> None:
        """Store the new state and tell every seat what it may see of it."""
        self.match = m
        self.seq += 1
        self._on_applied(evs)
        ctx = self._round
        if ctx is not None and not ctx.finished:
            self.record.log_events(evs, self.variant)
        for s in range(self.config.seats):
            self._bot_events[s].extend(e.for_seat(s) for e in evs)
        v = self.variant
        # Encode each public event once; only events redacted per seat are encoded per seat.
        public = [event_to_plain(e, v) if e.for_seat(None) is e else None for e in evs]
        for conn in list(self._conns):
            seat = conn.seat
            if seat is None:
                continue
            plain = [
                pub if pub is not None else event_to_plain(e.for_seat(seat), v)
                for e, pub in zip(evs, public, strict=True)
            ]
            if plain:
                self._send(conn, P.Events(seq=self.seq, events=plain))
            self._send(conn, P.View(seq=self.seq, view=view_to_plain(view_for(m, seat))))
        if ctx is not None and not ctx.finished and any(isinstance(e, RoundEnded) for e in evs):
            self._finish_round(ctx)
        self._plan()

    def _finish_round(self, ctx: _RoundCtx, abandoned: bool = False) -> None:
        ctx.finished = True
        excluded = sorted(ctx.commit.excluded)
        secrets_map = ctx.commit.secrets() if ctx.commit.phase is Phase.COMPLETE else {}
        if secrets_map:
            ctx.secrets_msg = P.RoundSecrets(round_tag=ctx.tag, secrets=secrets_map,
                                             excluded=excluded)
            for conn in list(self._conns):
                if conn.seat is not None:
                    self._send(conn, ctx.secrets_msg)
        self.record.end_round(self.match, secrets_map, excluded, abandoned)
        self._write_record()
        self._round_done.set()

    def _write_record(self) -> None:
        if self.config.record_dir is None:
            return
        folder = Path(self.config.record_dir)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"rami-{self.table_id.hex()[:12]}-m{self.match_no}.json"
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(self.record.to_plain(), indent=1), encoding="utf-8")
            os.replace(tmp, path)
            self.record_path = path
        except OSError:
            log.exception("could not write the match record")

    # ------------------------------------------------------------------ automatic play

    @property
    def _started(self) -> bool:
        return self._start_event.is_set() or self.match.round is not None

    def _plan(self) -> None:
        """Re-plan the automatic move and the move timer for the current state."""
        if self._stopping:
            return
        if self._auto_task is not None and not self._auto_task.done():
            self._auto_task.cancel()
        self._auto_task = None
        planned = self._plan_auto()
        if planned is not None:
            delay, seat, knock = planned
            self._auto_task = asyncio.create_task(self._auto(self.seq, delay, seat, knock))
            self._auto_task.add_done_callback(_log_task_error)
        self._plan_timer()

    def _controlled(self, seat: int) -> bool:
        """Is this seat played by the host right now (a bot seat or a dropped player)?"""
        st = self.seats[seat]
        return st.kind == "bot" or st.conn is None

    def _plan_auto(self) -> tuple[float, int, bool] | None:
        m = self.match
        if m.phase not in ("draw", "play") or m.round is None:
            return None
        r = m.round
        if m.phase == "draw":
            for s in r.knock_window:
                st = self.seats[s]
                if st.kind == "bot" and st.policy is not None:
                    try:
                        wants = st.policy.wants_knock(view_for(m, s))
                    except Exception:
                        log.exception("bot wants_knock failed")
                        wants = False
                    if wants:
                        return (self._bot_delay(st), s, True)
        s = r.turn
        st = self.seats[s]
        if st.kind == "bot":
            return (self._bot_delay(st), s, False)
        if st.conn is None:
            wait = float(self.config.timer) if self.config.timer > 0 else self.config.away_delay
            if r.away[s]:
                wait = min(wait, self._bot_delay(st))
            return (wait, s, False)
        return None

    def _bot_delay(self, st: _Seat) -> float:
        if self.config.bot_delay is not None:
            return self.config.bot_delay
        return think_delay(st.policy) if st.policy is not None else 0.5

    async def _auto(self, seq: int, delay: float, seat: int, knock: bool) -> None:
        if delay > 0:
            await asyncio.sleep(delay)
        else:
            await asyncio.sleep(0)
        if self.seq != seq or self._stopping:
            return
        self._auto_task = None
        if knock:
            if self._try_apply(None, A.Knock(seat), None):
                return
        st = self.seats[seat]
        if st.policy is None:
            st.policy = make_policy("moyen", seat, secrets.randbits(32))
        view = view_for(self.match, seat)
        new_events, self._bot_events[seat] = self._bot_events[seat], []
        try:
            action = st.policy.choose(view, tuple(new_events))
        except Exception:
            log.exception("bot policy failed for seat %d", seat)
            action = None
        if action is not None and getattr(action, "seat", None) == seat and self._try_apply(
            None, action, None
        ):
            return
        fb = fallback_action(view)
        if fb is not None and self._try_apply(None, fb, None):
            return
        self._try_apply(None, A.Timeout(seat), None)

    def _plan_timer(self) -> None:
        m = self.match
        key = None
        if self.config.timer > 0 and m.phase in ("draw", "play") and m.round is not None:
            s = m.round.turn
            if self.seats[s].kind == "human" and self.seats[s].conn is not None:
                key = (m.round_no, m.round.turn_no, s)
        if key == self._timer_key:
            return
        if self._timer_task is not None and not self._timer_task.done():
            self._timer_task.cancel()
        self._timer_task = None
        self._timer_key = key
        if key is not None:
            self._timer_task = asyncio.create_task(self._timer(key))
            self._timer_task.add_done_callback(_log_task_error)

    async def _timer(self, key: tuple[int, int, int]) -> None:
        await asyncio.sleep(self.config.timer)
        if self._timer_key != key or self._stopping:
            return
        self._timer_task = None
        self._timer_key = None
        self._try_apply(None, A.Timeout(key[2]), None)

    # ------------------------------------------------------------------ fair shuffle

    def _on_commit(self, conn: _Conn, seat: int, msg: P.Commit) -> None:
        ctx = self._round
        if ctx is None or ctx.tag != msg.round_tag or ctx.commit.phase is not Phase.COMMIT:
            self._send(conn, P.Error(code="unexpected", message="no commitment is expected"))
            return
        try:
            ctx.commit.add_commit(seat, msg.commit)
        except (ValueError, RuntimeError) as exc:
            self._send(conn, P.Error(code="unexpected", message=_clip(str(exc))))
            return
        if not ctx.commit.missing_commits:
            ctx.commit_event.set()

    def _on_reveal(self, conn: _Conn, seat: int, msg: P.Reveal) -> None:
        ctx = self._round
        if ctx is None or ctx.tag != msg.round_tag or ctx.commit.phase is not Phase.REVEAL:
            self._send(conn, P.Error(code="unexpected", message="no reveal is expected"))
            return
        try:
            outcome = ctx.commit.add_reveal(seat, msg.secret)
        except (ValueError, RuntimeError) as exc:
            self._send(conn, P.Error(code="unexpected", message=_clip(str(exc))))
            return
        ctx.reveals[seat] = msg.secret
        self._journal_append("round", {"tag": ctx.tag, "step": "reveal", "seat": seat,
                                       "secret": msg.secret})
        if outcome is RevealOutcome.MISMATCH:
            text = f"seat {seat} revealed a secret that does not match its commitment"
            for other in list(self._conns):
                if other.seat is not None:
                    self._send(other, P.Error(code="reveal_mismatch", message=text))
        if ctx.commit.phase is Phase.COMPLETE:
            ctx.reveal_event.set()

    def _deck_for_round(self, seed: bytes, n_cards: int) -> list[int]:
        """The round's deck of card ids (index 0 = top). Test doubles override it."""
        return deck_order(seed, n_cards)

    async def _setup_round(self) -> None:
        """Commit-reveal with the seated remote clients, then deal the next round."""
        m = self.match
        players = m.next_players()
        tag = round_tag(self.table_id, self.match_no, m.round_no + 1)
        remote = tuple(
            s for s in players
            if self.seats[s].kind == "human" and self.seats[s].conn is not None
            and s != self.host_seat and not self.seats[s].left
        )
        # A resumed host reuses the secret it journaled for this tag: it cannot reroll.
        resumed = self._resume_secret
        host_secret = resumed[1] if resumed is not None and resumed[0] == tag else new_secret()
        self._resume_secret = None
        if not self._journal_append("round", {"tag": tag, "step": "host_secret",
                                              "secret": host_secret}):
            return
        ctx = _RoundCtx(tag, CommitmentRound(tag, self.host_seat, host_secret, remote), remote,
                        host_secret=host_secret)
        self._round = ctx
        self._round_done.clear()
        for s in remote:
            conn = self.seats[s].conn
            if conn is not None:
                self._send(conn, P.CommitRequest(round_tag=tag, seat=s))
        if ctx.commit.missing_commits:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(ctx.commit_event.wait(), self.config.commit_timeout)
        commits = ctx.commit.commitment_list(drop_missing=True)
        self._journal_append("round", {"tag": tag, "step": "commits",
                                       "commits": _pairs(commits)})
        ctx.commitments_msg = P.Commitments(round_tag=tag, commits=commits)
        for conn in list(self._conns):
            if conn.seat is not None:
                self._send(conn, ctx.commitments_msg)
        if ctx.commit.phase is Phase.REVEAL:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(ctx.reveal_event.wait(), self.config.reveal_timeout)
            if ctx.commit.phase is Phase.REVEAL:
                late = ctx.commit.close_reveals()
                if late:
                    log.info("seats %s did not reveal in time: excluded", sorted(late))
        if ctx.commit.excluded:
            self._journal_append("round", {"tag": tag, "step": "excluded",
                                           "seats": sorted(ctx.commit.excluded)})
        seed = ctx.commit.seed()
        ctx.seed = seed
        v = self.variant
        deck_ids = self._deck_for_round(seed, v.deck_size)
        cards = [card_from_id(i, v.n_decks, v.n_jokers) for i in deck_ids]
        self.record.begin_round(self, ctx.tag, ctx.commit, deck_ids, seed)
        new_m, evs = start_round(self.match, cards, seed)
        ctx.started = True
        self.record.set_round_players(new_m)
        # Write-ahead: the dealt round is on disk before anyone sees a card of it.
        if not self._journal_snapshot(new_m, self.seq + 1, pending_events=evs):
            return
        self._commit_change(new_m, evs)

    # ------------------------------------------------------------------ journal

    def _journal_append(self, kind: str, body: dict[str, Any]) -> bool:
        """Append one record (fsync'd); False, and the table stops, if the disk failed."""
        if self.journal is None:
            return True
        try:
            self.journal.append(kind, body)
        except (OSError, ValueError):
            log.exception("could not write the journal: stopping the table")
            self._journal_failed()
            return False
        return True

    def _journal_failed(self) -> None:
        if not self._stopping:
            asyncio.get_running_loop().create_task(self.stop())

    def _snapshot_body(self, m: MatchState, seq: int,
                       pending_events: Sequence[Event] = ()) -> dict[str, Any]:
        cfg = self.config
        ctx = self._round
        round_plain = None
        if ctx is not None:
            round_plain = {
                "tag": ctx.tag, "host_secret": ctx.host_secret,
                "participants": list(ctx.participants),
                "commits": _pairs(ctx.commit.commitment_list(drop_missing=True))
                if ctx.commitments_msg is not None else [],
                "reveals": _pairs(ctx.reveals),
                "seed": ctx.seed, "started": ctx.started, "finished": ctx.finished,
            }
        record_current = self.record._current
        if record_current is not None and pending_events:
            record_current = dict(record_current)
            record_current["events"] = list(record_current["events"]) + [
                event_to_plain(e, self.variant) for e in pending_events]
        body = {
            "v": 1,
            "match": match_to_plain(m),
            "seq": seq,
            "table_id": self.table_id,
            "table": {
                "name": cfg.name, "variant": cfg.variant, "seats": cfg.seats,
                "bots": [[s, lvl] for s, lvl in sorted(cfg.bots.items())],
                "limit": cfg.limit, "quick": cfg.quick, "knock": cfg.knock, "timer": cfg.timer,
                "join_code": cfg.join_code, "who_may_sit": cfg.who_may_sit,
                "host_nickname": cfg.host_nickname,
                "headless": cfg.headless,
                "record_dir": None if cfg.record_dir is None else str(cfg.record_dir),
            },
            "port": self.port,
            "match_no": self.match_no,
            "host_seat": self.host_seat,
            "seats": [
                {"seat": st.seat, "kind": st.kind, "nick": st.nick, "token": st.token,
                 "bot_level": st.level, "owner": st.owner, "left": st.left,
                 "remote_bot": st.remote_bot, "pake_secret": st.pake_secret}
                for st in self.seats.values()
            ],
            "round": round_plain,
            "record": {"data": self.record.data, "current": record_current},
            "record_path": None if self.record_path is None else str(self.record_path),
        }
        return _plainify(body)

    def _journal_snapshot(self, m: MatchState, seq: int,
                          pending_events: Sequence[Event] = ()) -> bool:
        if self.journal is None:
            return True
        try:
            self.journal.compact(self._snapshot_body(m, seq, pending_events))
        except (OSError, ValueError):
            log.exception("could not write the journal snapshot: stopping the table")
            self._journal_failed()
            return False
        return True

    def _open_journal(self) -> None:
        if self.config.journal_dir is None or self.journal is not None:
            return
        folder = Path(self.config.journal_dir)
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.journal_path = folder / f"{self.table_id.hex()}.journal"
        self.journal = Journal.open(self.journal_path)

    def _close_journal(self, delete: bool) -> None:
        if self.journal is None:
            return
        self.journal.close()
        self.journal = None
        if delete and self.journal_path is not None:
            with contextlib.suppress(OSError):
                self.journal_path.unlink()

    @classmethod
    def resume(cls, path: str | Path, **overrides: Any) -> TableHost:
        """Rebuild a table from its journal after a crash (``rami-lan host --resume``).

        ``overrides`` are `TableConfig` fields that are not in the journal (interfaces,
        advertise, identity_dir, guard, delays...). Raises `journal.JournalError`
        (corrupt, locked) or ``ValueError`` if the journal does not replay.
        """
        path = Path(path)
        journal = Journal.open(path)
        try:
            return cls._from_journal(journal, path, overrides)
        except BaseException:
            journal.close()
            raise

    @classmethod
    def _from_journal(cls, journal: Journal, path: Path, overrides: dict[str, Any]) -> TableHost:
        snap, records = journal.replayed
        if snap is None or snap.get("v") != 1:
            raise ValueError(f"{path} holds no match snapshot")
        t = dict(snap["table"])
        t["bots"] = {int(s): str(lvl) for s, lvl in t["bots"]}
        options: dict[str, Any] = dict(t)
        options.update(table_id=bytes(snap["table_id"]), port=int(snap["port"]),
                       journal_dir=path.parent)
        options.update(overrides)
        host = cls(TableConfig(**options))
        host.journal, host.journal_path = journal, path
        host._resumed = snap
        host.match = match_from_plain(snap["match"])
        host.seq = int(snap["seq"])
        host.match_no = int(snap["match_no"])
        host.host_seat = int(snap["host_seat"])
        host.owner_seat = None
        host.owner_token = None
        for sp in snap["seats"]:
            st = host.seats[int(sp["seat"])]
            st.kind = sp["kind"]
            st.nick = sp["nick"]
            st.token = sp["token"]
            st.level = sp["bot_level"]
            st.owner = bool(sp["owner"])
            st.left = bool(sp["left"])
            st.remote_bot = bool(sp["remote_bot"])
            st.pake_secret = sp.get("pake_secret")
            st.conn = None  # every human seat is held until its player comes back
            if st.owner:
                host.owner_seat, host.owner_token = st.seat, st.token
        rec = snap["record"]
        host.record = MatchRecord(rec["data"], rec["current"])
        if snap.get("record_path"):
            host.record_path = Path(snap["record_path"])
        rp = snap.get("round")
        if rp is not None:
            ctx = host._rebuild_round(rp)
            host._round = ctx
        for r in records:
            b = r.body
            if r.kind == "action":
                if int(b["seq"]) != host.seq + 1:
                    raise ValueError(f"journal action seq {b['seq']} after {host.seq}")
                m, evs = apply(host.match, action_from_plain(b["action"], host.variant))
                host.record.log_action(b["action"], str(b.get("by", "player")))
                host._replayed(m, evs)
            elif r.kind == "withdraw":
                if int(b["seq"]) != host.seq + 1:
                    raise ValueError(f"journal withdraw seq {b['seq']} after {host.seq}")
                m, evs = withdraw(host.match, int(b["seat"]))
                host.seats[int(b["seat"])].left = True
                host.record.log_withdrawal(int(b["seat"]))
                host._replayed(m, evs)
            elif r.kind == "round":
                ctx = host._round
                if b["step"] == "host_secret":
                    host._resume_secret = (bytes(b["tag"]), bytes(b["secret"]))
                elif b["step"] == "reveal" and ctx is not None and ctx.tag == b["tag"]:
                    ctx.reveals[int(b["seat"])] = bytes(b["secret"])
        host._start_event.set()
        return host

    def _rebuild_round(self, rp: dict[str, Any]) -> _RoundCtx:
        tag = bytes(rp["tag"])
        participants = tuple(int(s) for s in rp["participants"])
        commit = CommitmentRound(tag, self.host_seat, bytes(rp["host_secret"]), participants)
        commits = {int(s): bytes(c) for s, c in rp["commits"]}
        for s, c in commits.items():
            if s != self.host_seat:
                commit.add_commit(s, c)
        ctx = _RoundCtx(tag, commit, participants, host_secret=bytes(rp["host_secret"]))
        if rp["commits"]:
            ctx.commitments_msg = P.Commitments(
                round_tag=tag, commits=commit.commitment_list(drop_missing=True))
            for s, secret in rp["reveals"]:
                ctx.reveals[int(s)] = bytes(secret)
                commit.add_reveal(int(s), bytes(secret))
            if commit.phase is Phase.REVEAL:
                commit.close_reveals()
        ctx.seed = None if rp["seed"] is None else bytes(rp["seed"])
        ctx.started = bool(rp["started"])
        ctx.finished = bool(rp["finished"])
        return ctx

    def _replayed(self, m: MatchState, evs: list[Event]) -> None:
        """Apply one journaled change while resuming (nobody is connected yet)."""
        self.match = m
        self.seq += 1
        ctx = self._round
        if ctx is not None and ctx.started and not ctx.finished:
            self.record.log_events(evs, self.variant)

    # ------------------------------------------------------------------ match flow

    async def _run_match(self) -> None:
        await self._start_event.wait()
        self._start_event.set()
        if self._resumed is None:
            for seat in self.seats.values():
                if seat.kind == "human" and seat.token is None:
                    seat.kind = "bot"
                    seat.nick = seat.nick or f"bot {seat.seat + 1}"
                    seat.policy = make_policy("moyen", seat.seat, secrets.randbits(32))
                    self._broadcast_card(seat.seat)
            self._seats_changed()
            self.record.set_players(self.players_info())
            try:
                self._open_journal()
            except Exception:
                log.exception("could not open the journal: the table stops")
                await self.stop()
                return
            if not self._journal_snapshot(self.match, self.seq):
                return
        else:
            await self._resume_play()
        while not self.match.over:
            await self._setup_round()
            if self._stopping:
                return
            await self._round_done.wait()
            if self.match.over:
                break
            await self._between_rounds()
        self.record.finish(self.match)
        self._journal_append("end", {"scores": list(self.match.totals)})
        self._write_record()
        self._close_journal(delete=True)
        self.finished.set()

    async def _resume_play(self) -> None:
        """Go on with a match rebuilt from the journal, at the point it was."""
        ctx = self._round
        if self.match.phase in ("draw", "play"):
            self._round_done.clear()
            self._plan()
            await self._round_done.wait()
        elif ctx is not None and ctx.started and not ctx.finished:
            self._finish_round(ctx)  # the round ended just before the crash
        if self.match.over:
            return
        # Between rounds: give the players a moment to come back before the next
        # commit-reveal, so their secrets count.
        deadline = time.monotonic() + self.config.resume_grace
        while time.monotonic() < deadline and any(
            st.kind == "human" and st.conn is None and not st.left and st.seat != self.owner_seat
            for st in self.seats.values()
        ):
            await asyncio.sleep(0.05)
        await self._between_rounds()

    async def _between_rounds(self) -> None:
        deadline = time.monotonic() + self.config.between_timeout
        while not self.match.over:
            waiting = self._waiting_choices()
            if not waiting:
                break
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self._choice_event.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._choice_event.wait(), left)
        self._choices.clear()

    def _waiting_choices(self) -> list[int]:
        return [
            s.seat for s in self.seats.values()
            if s.kind == "human" and s.conn is not None and not s.left
            and not self.match.eliminated[s.seat] and s.seat not in self._choices
        ]

    def _on_next_round(self, conn: _Conn, seat: int, choice: str) -> None:
        if self.match.phase != "between":
            self._send(conn, P.Error(code="unexpected", message="not between rounds"))
            return
        if choice == "leave":
            try:
                m, evs = withdraw(self.match, seat)
            except IllegalAction as exc:
                self._send(conn, P.Error(code="illegal", message=_clip(str(exc))))
                return
            if not self._journal_append("withdraw", {"seq": self.seq + 1, "seat": seat}):
                return
            self.seats[seat].left = True
            self.record.log_withdrawal(seat)
            self._commit_change(m, evs)
            self._seats_changed()
        self._choices[seat] = choice
        self._choice_event.set()


def _pairs(m: dict[int, bytes]) -> list[list[Any]]:
    return [[int(k), v] for k, v in sorted(m.items())]


def _plainify(value: Any) -> Any:
    """Tuples to lists, recursively (the journal stores plain data only)."""
    if isinstance(value, dict):
        return {k: _plainify(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plainify(v) for v in value]
    return value


def _unique_nick(nick: str, taken: Sequence[str]) -> str:
    if nick not in taken:
        return nick
    for k in range(2, 10):
        cand = f"{nick[: P.MAX_NICK - 2]}-{k}"
        if cand not in taken:
            return cand
    return nick


def _card_nick(nick: str, fallback: str) -> str:
    """A nickname a `PlayerCard` accepts: the seat's, else ``fallback``."""
    text = "".join(ch for ch in nick if ch.isprintable()).strip()[: P.MAX_NICK].strip()
    return text or fallback


def _clip(text: str) -> str:
    text = "".join(ch if ch.isprintable() else " " for ch in text)
    return text[: P.MAX_MESSAGE]


def _log_task_error(task: asyncio.Task[Any]) -> None:
    if task.cancelled():
        return
    exc = task.exception()
    if exc is not None:
        log.error("host task %s failed", task.get_name(), exc_info=exc)
