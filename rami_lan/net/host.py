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
import logging
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rami_lan.core.codec import action_from_plain
from rami_lan.ids import TABLE_NOTICE
from rami_lan.masked.inbound import decode_inbound
from rami_lan.net import guard as G
from rami_lan.net import protocol as P
from rami_lan.net import tls
from rami_lan.net.admission import Admission
from rami_lan.net.awake_clock import BEAT, GRACE, AwakeClock
from rami_lan.net.host_conn import Conn, ConnectionServer
from rami_lan.net.host_files import TableFiles
from rami_lan.net.invitations import Guestlist, WhoMaySit
from rami_lan.net.journal import Journal
from rami_lan.net.record import MatchRecord
from rami_lan.player_card import Connection, PlayerCard
from rami_lan.table import effects as F
from rami_lan.table.config import TableConfig
from rami_lan.table.machine import TableMachine
from rami_lan.table.snapshot import config_from_snapshot

log = logging.getLogger(__name__)

__all__ = ["TABLE_NOTICE", "HostObserver", "TableConfig", "TableHost"]



class HostObserver:
    """What a table host lets an onlooker see, injected (``TableHost(observer=...)``)
    instead of subclassing the host: every frame it sends and every change it applies.
    The base class sees nothing; tests and the tournament's spectator relay override a
    method. An observer never changes what the table does."""

    def sent(self, host: TableHost, seat: int | None, msg: P.Message, data: bytes) -> None:
        """A message the host sent to ``seat`` (None: a seatless connection), as framed."""

    def applied(self, host: TableHost, change: F.Applied) -> None:
        """One change the machine applied: its unredacted events, the match after them,
        and the action and the seat that sent it (None for the table's own moves)."""


class TableHost(ConnectionServer, Admission):
    """An authoritative rami-lan table. ``await start()`` returns the TCP port."""

    def __init__(self, config: TableConfig, *, machine: TableMachine | None = None,
                 observer: HostObserver | None = None) -> None:
        self.config = config
        if machine is None:
            machine = TableMachine(config, secrets.token_bytes)
            machine.record = MatchRecord.new(machine, config)
        self.machine = machine
        self.observer = observer or HostObserver()
        """Who sees every frame and change (`HostObserver`; tests, the tournament)."""
        self.table_id = machine.table_id
        identity_dir = Path(config.identity_dir) if config.identity_dir is not None else None
        self.identity = tls.load_or_create_identity(config.name, identity_dir)
        self._ssl_ctx = tls.server_context(self.identity)
        self.guard = G.HostGuard(config.guard or G.GuardConfig())
        self.guestlist = Guestlist(config.who_may_sit, join_code=config.join_code)
        """Who may sit, and the invitations the owner issued (`rami_lan.net.presence`)."""
        self.files = TableFiles(config.journal_dir, config.record_dir, self.table_id)
        self.port = 0
        self.finished = asyncio.Event()
        self._resumed = False
        self._servers: list[asyncio.Server] = []
        self._by_id: dict[int, Conn] = {}
        self._next_id = 1
        self._seat_limiters: dict[int, Any] = {}
        self._advertiser: Any = None
        self._ad_task: asyncio.Task[None] | None = None
        self._wake: asyncio.TimerHandle | None = None
        self._clock: AwakeClock | None = None
        self._beat: asyncio.Task[None] | None = None
        self._conn_tasks: set[asyncio.Task[Any]] = set()
        self._dirty: list[Conn] = []
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
    journal = property(lambda self: self.files.journal)
    journal_path = property(lambda self: self.files.journal_path)
    record_path = property(lambda self: self.files.record_path)
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
        self._beat = asyncio.get_running_loop().create_task(self._heartbeat(), name="rami-host-clock")
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
        if self._beat is not None:
            self._beat.cancel()
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
        self.files.close_journal(delete=False)
        self.finished.set()

    def _awake(self) -> AwakeClock:
        """The clock the table's deadlines run on (made on first use, in the running loop)."""
        if self._clock is None:
            self._clock = AwakeClock(asyncio.get_running_loop().time)
        return self._clock

    def _now(self) -> float:
        """The table's time: the loop's, without the pauses of this process (`AwakeClock`)."""
        return self._awake().now()

    async def _heartbeat(self) -> None:
        """Read the clock every `BEAT` seconds, so a pause of the process is seen as one."""
        while not self._stopping:
            self._now()
            await asyncio.sleep(BEAT)

    # ------------------------------------------------------------------ effects

    def _run(self, effects: Sequence[F.Effect]) -> None:
        """Carry out the machine's effects, in order."""
        cache: dict[int, Any] = {}
        with self.corked():
            self._run_corked(effects, cache)

    def _run_corked(self, effects: Sequence[F.Effect], cache: dict[int, Any]) -> None:
        try:
            for eff in effects:
                if isinstance(eff, F.Send):
                    conn = self._by_id.get(eff.conn)
                    if conn is not None:
                        self._send(conn, self._message(eff.msg, cache))
                elif isinstance(eff, F.Applied):
                    self._match_at = eff.match
                    self.observer.applied(self, eff)
                elif isinstance(eff, F.Close):
                    conn = self._by_id.get(eff.conn)
                    if conn is not None:
                        self._close(conn)
                elif isinstance(eff, F.Wake):
                    # The machine's own deadline now: an input nested in this batch
                    # (a close) may have moved it since this effect was made.
                    self._arm(self.machine.deadline())
                elif isinstance(eff, F.JournalAppend | F.JournalSnapshot | F.JournalOpen):
                    try:
                        self.files.journal_effect(eff, self.port)
                    except (OSError, ValueError):
                        log.exception("could not write the journal: stopping the table")
                        if not self._stopping:
                            asyncio.get_running_loop().create_task(self.stop())
                        return  # nothing the journal does not cover goes out
                elif isinstance(eff, F.JournalClose):
                    self.files.close_journal(delete=eff.delete)
                elif isinstance(eff, F.WriteRecord):
                    self.files.write_record(eff.plain, self.machine.match_no)
                elif isinstance(eff, F.AdChange):
                    self._update_ad()
                elif isinstance(eff, F.MatchOver):
                    self.finished.set()
        finally:
            self._match_at = None

    def _message(self, msg: F.Msg, cache: dict[int, Any]) -> P.Message:
        """The wire message for one the machine sent (its ``view`` and ``events`` hold
        core objects: encoded here, each event once per batch)."""
        return F.wire_message(msg, self.machine.variant, cache)

    def _arm(self, at: float | None) -> None:
        if self._wake is not None:
            self._wake.cancel()
            self._wake = None
        if at is not None and not self._stopping:
            clock = self._awake()
            clock.now()  # (a pause just ended is taken out before the timer is set)
            self._wake = asyncio.get_running_loop().call_at(clock.real_at(at), self._on_wake)

    def _on_wake(self) -> None:
        self._wake = None
        if self._stopping:
            return
        now = self._now()
        since = self._awake().since_stall()
        if since is not None and since < GRACE:
            # This process was not running: what the players sent meanwhile is read first.
            self._wake = asyncio.get_running_loop().call_later(GRACE - since, self._on_wake)
            return
        self._run(self.machine.tick(now))

    # ------------------------------------------------------------------ ad, journal, record

    async def _start_advertising(self) -> None:
        from zeroconf import IPVersion

        from rami_lan.net.discovery import (
            MAX_NAME_BYTES,
            TableAd,
            TableAdvertiser,
            ad_text,
            host_label,
        )

        cfg = self.config
        ad = TableAd(  # text fields made fit for TXT: an odd typed name never stops the host
            table_id=self.table_id.hex(), name=ad_text(cfg.name, MAX_NAME_BYTES, "Rami"),
            host=host_label(cfg.host_nickname),
            variant=cfg.variant, seats_total=cfg.seats,
            point_limit=self.machine.match.options.limit or 0,
            code_required=cfg.who_may_sit != WhoMaySit.ANYONE, frapper=cfg.knock,
            timer=cfg.timer, fingerprint=self.identity.fingerprint,
            seats_taken=self.machine.seats_taken(), private_deal=bool(cfg.private_deal),
        )
        self._advertiser = TableAdvertiser(ad, self.port, interfaces=cfg.interfaces,
                                           ip_version=IPVersion.V4Only)
        await self._advertiser.start()

    def _update_ad(self) -> None:
        if self._advertiser is None or self._stopping:
            return
        if self._ad_task is None or self._ad_task.done():
            async def update() -> None:
                sent = None
                while not self._stopping and sent != (now := self.machine.seats_taken()):
                    with contextlib.suppress(Exception):  # (mdns rate-limits the packets)
                        await self._advertiser.update(seats_taken=now)
                    sent = now  # changes made meanwhile go out in the next turn of the loop
            self._ad_task = asyncio.create_task(update())

    @classmethod
    def resume(cls, path: str | Path, *, observer: HostObserver | None = None,
               **overrides: Any) -> TableHost:
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
            machine = TableMachine.restore(snap, records, config, secrets.token_bytes,
                                           record=record)
            host = cls(config, machine=machine, observer=observer)
            host.files.journal, host.files.journal_path, host._resumed = journal, path, True
            if snap.get("record_path"):
                host.files.record_path = Path(snap["record_path"])
            return host
        except BaseException:
            journal.close()
            raise

    # ------------------------------------------------------------------ connections

    def _refuse(self, conn: Conn, code: str, message: str, retry_ms: int | None = None) -> None:
        self._send(conn, P.Refused(code=code, message=message, retry_ms=retry_ms))
        self._close(conn)

    # ------------------------------------------------------------------ messages

    def _on_message(self, conn: Conn, msg: P.Message) -> None:
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
            try:
                action = action_from_plain(msg.action, m.variant)
            except (ValueError, KeyError, TypeError) as exc:  # MalformedAction is a ValueError
                self._run(m.refuse(conn.id, "bad_action", str(exc), msg.seq, now))
            else:
                self._run(m.action(conn.id, msg.seq, action, now))
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
            self._run(m.card(conn.id, _player_card(msg.card), now))
        elif isinstance(msg, P.Masked):
            self._run(m.masked(conn.id, decode_inbound(msg.m), now))


def _player_card(plain: Any) -> PlayerCard | None:
    """A ``card`` message's card, decoded (None: it does not decode; the machine answers
    ``bad_card``)."""
    try:
        return PlayerCard.from_plain(plain, connection=Connection.CONNECTED)
    except (ValueError, TypeError):
        return None
