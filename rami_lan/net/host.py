"""The table host: the asyncio adapter around the sans-I/O table machine.

Theory of operation
-------------------
Every decision about the table lives in `rami_lan.table.TableMachine`. This module only
carries its inputs and effects: TLS server, the per-connection `protocol.Session`, the
guards against hostile peers, the join-code exchange (PAKE) and invitations, the mDNS
ad, one timer (the machine's `Wake` deadline, on the loop's clock), the journal file and
the match record file. A connection is fed to the machine once it is admitted
(`_admit`, the one place that decides whether a ``hello`` may sit); every later message
becomes one machine input, and the effects it returns are carried out in order.
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
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rami_lan.core import actions as A
from rami_lan.core.codec import event_to_plain, view_to_plain
from rami_lan.core.events import Event
from rami_lan.ids import TABLE_NOTICE
from rami_lan.net import guard as G
from rami_lan.net import protocol as P
from rami_lan.net import tls
from rami_lan.net.journal import Journal
from rami_lan.net.pake import PakeError, PakeHost
from rami_lan.net.presence import Guestlist, WhoMaySit
from rami_lan.net.record import MatchRecord
from rami_lan.table import effects as F
from rami_lan.table.config import TableConfig
from rami_lan.table.machine import TableMachine
from rami_lan.table.snapshot import config_from_snapshot
from rami_lan.textsafe import clip

log = logging.getLogger(__name__)

__all__ = ["TABLE_NOTICE", "TableConfig", "TableHost"]

_MAX_WRITE_BUFFER = 4 * 1024 * 1024
"""A peer with more than this many bytes waiting to be written to it does not read: dropped."""


@dataclass(eq=False)
class _Conn:
    id: int
    session: P.Session
    writer: asyncio.StreamWriter
    peer: str
    key: str = ""
    seat: int | None = None
    closed: bool = False
    hello: P.Hello | None = None
    pake: PakeHost | None = None
    pake_secret: str | None = None
    invitation: str | None = None
    limiter: Any = None


class _HostMachine(TableMachine):
    """The machine, with the host's test seams (`TableHost._deck_for_round`, `_try_apply`)."""

    host: TableHost
    _now = 0.0

    def deck_for_round(self, seed: bytes, n_cards: int) -> list[int]:
        return self.host._deck_for_round(seed, n_cards)

    def try_apply(self, conn: int | None, action: A.Action, seq: int | None, now: float) -> bool:
        self._apply_now = now
        return self.host._try_apply(self.host._by_id.get(conn) if conn is not None else None,
                                    action, seq)


class TableHost:
    """An authoritative rami-lan table. ``await start()`` returns the TCP port."""

    def __init__(self, config: TableConfig, *, machine: TableMachine | None = None) -> None:
        self.config = config
        if machine is None:
            machine = _HostMachine(config, secrets.token_bytes)
            machine.record = MatchRecord.new(machine, config)
        if isinstance(machine, _HostMachine):
            machine.host = self
        self.machine = machine
        self.table_id = machine.table_id
        identity_dir = Path(config.identity_dir) if config.identity_dir is not None else None
        self.identity = tls.load_or_create_identity(config.name, identity_dir)
        self._ssl_ctx = tls.server_context(self.identity)
        self.guard = G.HostGuard(config.guard or G.GuardConfig())
        self.guestlist = Guestlist(config.who_may_sit, join_code=config.join_code)
        """Who may sit, and the invitations the owner issued (`rami_lan.net.presence`)."""
        self.journal: Journal | None = None
        self.journal_path: Path | None = None
        self.record_path: Path | None = None
        self.port = 0
        self.finished = asyncio.Event()
        self._resumed = False
        self._servers: list[asyncio.Server] = []
        self._by_id: dict[int, _Conn] = {}
        self._next_id = 1
        self._seat_limiters: dict[int, Any] = {}
        self._advertiser: Any = None
        self._ad_task: asyncio.Task[None] | None = None
        self._wake: asyncio.TimerHandle | None = None
        self._conn_tasks: set[asyncio.Task[Any]] = set()
        self._stopping = False
        self._match_at: Any = None

    # ------------------------------------------------------------------ facts

    match = property(lambda self: self._match_at if self._match_at is not None
                     else self.machine.match)
    seats = property(lambda self: self.machine.seats)
    owner_token = property(lambda self: self.machine.owner_token)
    owner_seat = property(lambda self: self.machine.owner_seat)
    host_seat = property(lambda self: self.machine.host_seat)
    variant = property(lambda self: self.machine.variant)
    record = property(lambda self: self.machine.record)
    fingerprint = property(lambda self: self.identity.fingerprint,
                           doc="The SHA-256 of the table's TLS certificate (TXT ``fp``).")
    short_fingerprint = property(lambda self: self.identity.short_fingerprint,
                                 doc="The fingerprint players compare aloud.")

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> int:
        """Listen (and advertise); return the TCP port."""
        cfg = self.config
        hosts = ["0.0.0.0", "::"] if cfg.interfaces == "all" else list(cfg.interfaces)
        try:
            first = await asyncio.start_server(self._on_connect, host=hosts[0], port=cfg.port)
        except OSError:
            if not (cfg.port and self._resumed):
                raise
            log.info("port %d is taken; listening on another", cfg.port)
            first = await asyncio.start_server(self._on_connect, host=hosts[0], port=0)
        self.port = first.sockets[0].getsockname()[1]
        self._servers = [first]
        for extra in hosts[1:]:
            try:
                self._servers.append(
                    await asyncio.start_server(self._on_connect, host=extra, port=self.port))
            except OSError as exc:
                if cfg.interfaces != "all":
                    for srv in self._servers:
                        srv.close()
                    raise
                log.debug("not listening on %s: %s", extra, exc)
        if cfg.advertise:
            await self._start_advertising()
        if self._resumed:
            self._run(self.machine.resumed(self._now()))
        log.info("table %r on port %d", cfg.name, self.port)
        return self.port

    async def start_match(self) -> None:
        """Start now: empty human seats are filled with bots."""
        self._run(self.machine.start(self._now()))

    async def wait_finished(self, timeout: float | None = None) -> None:
        await asyncio.wait_for(self.finished.wait(), timeout)

    async def stop(self) -> None:
        """Abandon any running round (secrets go out), close every connection."""
        if self._stopping:
            return
        self._run(self.machine.stop(self._now()))
        self._stopping = True
        if self._wake is not None:
            self._wake.cancel()
        for server in self._servers:
            server.close()
        for server in self._servers:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), 1.0)
        for conn in list(self._by_id.values()):
            self._close(conn)
        for task in list(self._conn_tasks):
            task.cancel()
        if self._conn_tasks:
            await asyncio.wait(self._conn_tasks, timeout=1.0)
        if self._ad_task is not None:
            self._ad_task.cancel()
        if self._advertiser is not None:
            with contextlib.suppress(Exception):
                await self._advertiser.stop()
            self._advertiser = None
        self._close_journal(delete=False)
        self.finished.set()

    @staticmethod
    def _now() -> float:
        return asyncio.get_running_loop().time()

    # ------------------------------------------------------------------ effects

    def _run(self, effects: Sequence[F.Effect]) -> None:
        """Carry out the machine's effects, in order."""
        cache: dict[int, Any] = {}
        try:
            for eff in effects:
                if isinstance(eff, F.Send):
                    conn = self._by_id.get(eff.conn)
                    if conn is not None:
                        self._send(conn, self._message(eff.msg, cache))
                elif isinstance(eff, F.Applied):
                    self._match_at = eff.match
                    self._on_applied(eff.events)
                elif isinstance(eff, F.Close):
                    conn = self._by_id.get(eff.conn)
                    if conn is not None:
                        self._close(conn)
                elif isinstance(eff, F.Wake):
                    self._arm(eff.at)
                elif isinstance(eff, F.JournalAppend | F.JournalSnapshot | F.JournalOpen):
                    if not self._journal(eff):
                        return
                elif isinstance(eff, F.JournalClose):
                    self._close_journal(delete=eff.delete)
                elif isinstance(eff, F.WriteRecord):
                    self._write_record(eff.plain)
                elif isinstance(eff, F.AdChange):
                    self._update_ad()
                elif isinstance(eff, F.MatchOver):
                    self.finished.set()
        finally:
            self._match_at = None

    def _message(self, msg: F.Msg, cache: dict[int, Any]) -> P.Message:
        f = msg.fields
        if msg.kind == "view":
            return P.View(seq=f["seq"], view=view_to_plain(f["view"]))
        if msg.kind == "events":
            v = self.machine.variant
            out = []
            for e in f["events"]:
                if isinstance(e, dict):
                    out.append(e)
                    continue
                plain = cache.get(id(e))
                if plain is None:
                    plain = cache[id(e)] = event_to_plain(e, v)
                out.append(plain)
            return P.Events(seq=f["seq"], events=out)
        return P.KINDS[msg.kind](**f)

    def _arm(self, at: float | None) -> None:
        if self._wake is not None:
            self._wake.cancel()
            self._wake = None
        if at is not None and not self._stopping:
            self._wake = asyncio.get_running_loop().call_at(at, self._on_wake)

    def _on_wake(self) -> None:
        self._wake = None
        if not self._stopping:
            self._run(self.machine.tick(self._now()))

    # ------------------------------------------------------------------ ad, journal, record

    async def _start_advertising(self) -> None:
        from zeroconf import IPVersion

        from rami_lan.net.discovery import TableAd, TableAdvertiser

        cfg = self.config
        ad = TableAd(
            table_id=self.table_id.hex(), name=cfg.name, host=cfg.host_nickname,
            variant=cfg.variant, seats_total=cfg.seats,
            point_limit=self.machine.match.options.limit or 0,
            code_required=cfg.who_may_sit != WhoMaySit.ANYONE, frapper=cfg.knock,
            timer=cfg.timer, fingerprint=self.identity.fingerprint,
            seats_taken=self.machine.seats_taken(),
        )
        self._advertiser = TableAdvertiser(ad, self.port, interfaces=cfg.interfaces,
                                           ip_version=IPVersion.V4Only)
        await self._advertiser.start()

    def _update_ad(self) -> None:
        if self._advertiser is None or self._stopping:
            return
        if self._ad_task is None or self._ad_task.done():
            async def update() -> None:
                with contextlib.suppress(Exception):
                    await self._advertiser.update(seats_taken=self.machine.seats_taken())
            self._ad_task = asyncio.create_task(update())

    def _journal(self, eff: F.JournalAppend | F.JournalSnapshot | F.JournalOpen) -> bool:
        """Write one journal effect (fsync'd); False, and the table stops, if the disk failed."""
        try:
            if isinstance(eff, F.JournalOpen):
                if self.config.journal_dir is not None and self.journal is None:
                    folder = Path(self.config.journal_dir)
                    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
                    self.journal_path = folder / f"{self.table_id.hex()}.journal"
                    self.journal = Journal.open(self.journal_path)
            elif self.journal is None:
                pass
            elif isinstance(eff, F.JournalAppend):
                self.journal.append(eff.kind, dict(eff.body))
            else:
                body = dict(eff.body)
                body["port"] = self.port
                body["record_path"] = None if self.record_path is None else str(self.record_path)
                self.journal.compact(body)
        except (OSError, ValueError):
            log.exception("could not write the journal: stopping the table")
            if not self._stopping:
                asyncio.get_running_loop().create_task(self.stop())
            return False
        return True

    def _close_journal(self, delete: bool) -> None:
        if self.journal is None:
            return
        self.journal.close()
        self.journal = None
        if delete and self.journal_path is not None:
            with contextlib.suppress(OSError):
                self.journal_path.unlink()

    def _write_record(self, plain: Any) -> None:
        if self.config.record_dir is None:
            return
        folder = Path(self.config.record_dir)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"rami-{self.table_id.hex()[:12]}-m{self.machine.match_no}.json"
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(plain, indent=1), encoding="utf-8")
            os.replace(tmp, path)
            self.record_path = path
        except OSError:
            log.exception("could not write the match record")

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
            snap, records = journal.replayed
            if snap is None or snap.get("v") != 1:
                raise ValueError(f"{path} holds no match snapshot")
            config = config_from_snapshot(snap, journal_dir=path.parent, **overrides)
            record = MatchRecord({}, None)
            machine = _HostMachine.restore(snap, records, config, secrets.token_bytes,
                                           record=record)
            host = cls(config, machine=machine)
            host.journal, host.journal_path, host._resumed = journal, path, True
            if snap.get("record_path"):
                host.record_path = Path(snap["record_path"])
            return host
        except BaseException:
            journal.close()
            raise

    # ------------------------------------------------------------------ connections

    async def _on_connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._conn_tasks.add(task)
        peername = writer.get_extra_info("peername")
        key = G.address_key(peername)
        if self._stopping or not self.guard.connections.admit(key):
            with contextlib.suppress(Exception):
                writer.transport.abort()  # over a cap: close at once, before any TLS work
            if task is not None:
                self._conn_tasks.discard(task)
            return
        conn: _Conn | None = None
        try:
            try:
                await writer.start_tls(self._ssl_ctx,
                                       ssl_handshake_timeout=self.guard.config.tls_handshake_timeout)
            except (ssl.SSLError, ConnectionError, OSError, TimeoutError, EOFError):
                with contextlib.suppress(Exception):
                    writer.transport.abort()
                return
            conn = _Conn(self._next_id, P.Session("host"), writer, str(peername), key=key,
                         limiter=self.guard.rate_limiter())
            self._next_id += 1
            self._by_id[conn.id] = conn
            await self._serve(conn, reader)
        except (ConnectionError, OSError, asyncio.CancelledError):
            pass
        except Exception:  # nothing a peer sends may reach the host's main task
            log.exception("connection from %s failed", clip(peername))
        finally:
            try:
                if conn is not None:
                    if conn.pake is not None and not conn.pake.verified:
                        self.guard.join_attempts.failure(key)  # gave up mid-exchange
                        conn.pake = None
                    self._close(conn)
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
        hello_by = self.guard.hello_deadline()
        welcome_by = self.guard.handshake_deadline()
        while not conn.closed:
            if conn.session.established:
                wait = gc.idle_timeout
            else:
                wait = (welcome_by if conn.hello is not None else hello_by).remaining()
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
            # The rate limit belongs to the seat once seated: a reconnect does not reset it.
            limiter = self._seat_limiters.get(conn.seat, conn.limiter) if conn.seat is not None \
                else conn.limiter
            if not limiter.allow(messages=max(len(msgs), 1), size=len(data)):
                log.info("%s sends too fast; closing", clip(conn.peer))
                kind = P.Error if conn.session.established else P.Refused
                self._send(conn, kind(code="rate_limited", message="too many messages"))
                return
            for m in msgs:
                try:
                    self._on_message(conn, m)
                except Exception:
                    log.exception("handling %s from %s failed; closing that connection",
                                  type(m).__name__, clip(conn.peer))
                    self._close(conn)
                if conn.closed:
                    return
            if error is not None:
                reply = conn.session.error_reply(error)
                if reply is not None:
                    self._send(conn, reply)
                log.info("protocol error from %s: %s", clip(conn.peer), clip(error, 200))
                return

    def _close(self, conn: _Conn) -> None:
        was_seated = conn.id in self._by_id
        self._by_id.pop(conn.id, None)
        if conn.closed and not was_seated:
            return
        conn.closed = True
        with contextlib.suppress(Exception):
            conn.writer.close()
        if not self._stopping and was_seated:
            self._run(self.machine.left(conn.id, self._now()))

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
        if isinstance(msg, P.Welcome):
            conn.seat = msg.seat
            self._seat_limiters.setdefault(msg.seat, conn.limiter)
        self._on_send(conn.seat, msg, data)
        transport = conn.writer.transport
        if transport.is_closing():
            return
        if transport.get_write_buffer_size() > _MAX_WRITE_BUFFER:
            log.warning("%s does not read; closing", clip(conn.peer))
            self._close(conn)
            return
        conn.writer.write(data)

    def _refuse(self, conn: _Conn, code: str, message: str) -> None:
        self._send(conn, P.Refused(code=code, message=message))
        self._close(conn)

    # ------------------------------------------------------------------ test seams

    def _on_send(self, seat: int | None, msg: P.Message, data: bytes) -> None:
        """Hook for tests: every message the host sends, with its frame."""

    def _on_applied(self, events: Sequence[Event]) -> None:
        """Hook for tests: the unredacted events of each change, before any send."""

    def _deck_for_round(self, seed: bytes, n_cards: int) -> list[int]:
        """The round's deck (`TableMachine.deck_for_round`); test doubles override it."""
        return TableMachine.deck_for_round(self.machine, seed, n_cards)

    def _try_apply(self, conn: _Conn | None, action: A.Action, seq: int | None) -> bool:
        """Every action the machine applies passes here; test doubles watch it."""
        m = self.machine
        return TableMachine.try_apply(m, None if conn is None else conn.id, action, seq,
                                      getattr(m, "_apply_now", self._now()))

    # ------------------------------------------------------------------ messages

    def _on_message(self, conn: _Conn, msg: P.Message) -> None:
        now = self._now()
        m = self.machine
        if isinstance(msg, P.Hello):
            self._admit(conn, msg)
        elif isinstance(msg, P.Bye):
            self._close(conn)
        elif isinstance(msg, P.Ping):
            self._send(conn, P.Pong(n=msg.n))
        elif isinstance(msg, P.Pake | P.PakeConfirm):
            self._on_pake(conn, msg)
        elif conn.seat is None or isinstance(msg, P.Pong):
            return
        elif isinstance(msg, P.Action):
            self._run(m.action(conn.id, msg.seq, msg.action, now))
        elif isinstance(msg, P.Knock):
            self._run(m.knock(conn.id, msg.seq, now))
        elif isinstance(msg, P.Commit):
            self._run(m.commit(conn.id, msg.round_tag, msg.commit, now))
        elif isinstance(msg, P.Reveal):
            self._run(m.reveal(conn.id, msg.round_tag, msg.secret, now))
        elif isinstance(msg, P.NextRound):
            self._run(m.next_round(conn.id, msg.choice, now))
        elif isinstance(msg, P.Chat):
            self._run(m.chat(conn.id, msg.text, now))
        elif isinstance(msg, P.Card):
            self._run(m.card(conn.id, msg.card, now))

    def _admit(self, conn: _Conn, hello: P.Hello) -> None:
        """The one place that decides whether a ``hello`` may go on to a seat.

        A reconnect proves again what seated it (its ticket, else the join code); a
        newcomer gives the join code or an invitation's ticket, as the password of a
        PAKE (``hello.code`` is ignored: never sent in clear).
        """
        conn.hello = hello
        code = self.config.join_code
        conn.invitation = None
        if hello.token is not None:
            seat = self.machine.seat_for_token(hello.token)
            if seat is None:
                self.guard.join_attempts.failure(conn.key)
                self._refuse(conn, "bad_token", "unknown or expired reconnect token")
                return
            code = seat.pake_secret or code
        elif self.guestlist.who is WhoMaySit.INVITED:
            ticket = (self.guestlist.ticket_for(hello.invitation)
                      if hello.invitation is not None else None)
            if ticket is None:
                self._refuse(conn, "not_invited", "this table is by invitation only")
                return
            code, conn.invitation = ticket, hello.invitation
        if code is not None:
            wait = self.guard.join_attempts.retry_after(conn.key)
            if wait > 0:
                self._refuse(conn, "rate_limited",
                             f"too many wrong codes, try again in {math.ceil(wait)} s")
                return
            conn.pake = PakeHost(code, self.identity.fingerprint)
            conn.pake_secret = code
            self._send(conn, P.Pake(msg=conn.pake.start()))
            return
        self._seat(conn)

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
        if (conn.invitation is not None and conn.hello.token is None
                and self.guestlist.redeem(conn.invitation) is None):
            # The ticket is single-use: another connection may have redeemed it meanwhile.
            self._refuse(conn, "not_invited", "this invitation was already used")
            return
        self._send(conn, P.PakeConfirm(mac=pake.confirm_message()))
        conn.pake = None
        self._seat(conn)

    def _pake_failed(self, conn: _Conn) -> None:
        conn.pake = None
        self.guard.join_attempts.failure(conn.key)
        self._refuse(conn, "bad_code", "wrong join code")

    def _seat(self, conn: _Conn) -> None:
        hello = conn.hello
        assert hello is not None
        self._run(self.machine.joined(
            conn.id, self._now(), nick=hello.nick, lang=hello.lang, bot=hello.bot,
            token=hello.token, pake_secret=conn.pake_secret if conn.invitation else None))
