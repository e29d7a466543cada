"""The table host's connections: TLS accept, read loop, guards, sends.

`ConnectionServer` is mixed into `rami_lan.net.host.TableHost`: it accepts a TCP
connection (connection caps before any TLS work), runs the TLS handshake, then reads,
decodes and rate-limits each connection's messages and hands them to
``TableHost._on_message``. The rate limit of a seated connection belongs to its seat
(``_seat_limiters``): a reconnect does not reset it. Sends go through the connection's
`protocol.Session`; a peer that does not read is dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from rami_lan.net import guard as G
from rami_lan.net import protocol as P
from rami_lan.net.pake import PakeHost
from rami_lan.textsafe import clip

log = logging.getLogger("rami_lan.net.host")

__all__ = ["Conn", "ConnectionServer"]

_MAX_WRITE_BUFFER = 4 * 1024 * 1024
"""A peer with more than this many bytes waiting to be written to it does not read: dropped."""


@dataclass(eq=False)
class Conn:
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
    return_seat: int | None = None
    """The seat a return invitation gives back (`Guestlist.return_ticket`)."""
    limiter: Any = None
    ticket: G.Ticket | None = None
    """The admission limiter's ticket of this connection's attempt, once asked."""
    pending: list[bytes] | None = None
    """Frames waiting for the end of the current batch of effects (`ConnectionServer.corked`)."""


class ConnectionServer:
    """Connection handling of a table host (needs its guard, machine and `_on_message`)."""

    guard: G.HostGuard
    machine: Any
    observer: Any
    """Sees every frame sent (`rami_lan.net.host.HostObserver.sent`)."""
    _ssl_ctx: ssl.SSLContext
    _by_id: dict[int, Conn]
    _next_id: int
    _seat_limiters: dict[int, Any]
    _conn_tasks: set[asyncio.Task[Any]]
    _cork_depth: int = 0
    _dirty: list[Conn]
    """Connections with frames held by `corked`, in the order of their first frame."""
    _stopping: bool

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
        conn: Conn | None = None
        try:
            try:
                await writer.start_tls(self._ssl_ctx,
                                       ssl_handshake_timeout=self.guard.config.tls_handshake_timeout)
            except (ssl.SSLError, ConnectionError, OSError, TimeoutError, EOFError):
                with contextlib.suppress(Exception):
                    writer.transport.abort()
                return
            conn = Conn(self._next_id, P.Session("host"), writer, str(peername), key=key,
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
                    if conn.ticket is not None:  # gave up mid-exchange: a failure
                        self.guard.admission.end(conn.ticket, ok=False)
                    conn.pake = None
                    self._close(conn)
                else:
                    with contextlib.suppress(Exception):
                        writer.close()
            finally:
                self.guard.connections.release(key)
                if task is not None:
                    self._conn_tasks.discard(task)

    async def _serve(self, conn: Conn, reader: asyncio.StreamReader) -> None:
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
            with self.corked():  # what the messages of one read cause goes out together
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

    @contextlib.contextmanager
    def corked(self) -> Iterator[None]:
        """Hold every frame sent inside the block, then write each connection's frames at once.

        One batch of the machine's effects often sends a connection several frames (a
        view, events, masked-deck messages): written together they make one TLS write and
        one system call instead of one each, and the peer wakes once. Order per
        connection is kept; a connection closed inside the block gets its frames first.
        """
        self._cork_depth += 1
        try:
            yield
        finally:
            self._cork_depth -= 1
            if self._cork_depth == 0:
                while self._dirty:
                    self._flush(self._dirty.pop(0))

    def _flush(self, conn: Conn) -> None:
        frames, conn.pending = conn.pending, None
        if not frames or conn.closed:
            return
        transport = conn.writer.transport
        if transport.is_closing():
            return
        if transport.get_write_buffer_size() > _MAX_WRITE_BUFFER:
            log.warning("%s does not read; closing", clip(conn.peer))
            self._close(conn)
            return
        conn.writer.write(b"".join(frames))

    def _close(self, conn: Conn) -> None:
        self._flush(conn)
        was_seated = conn.id in self._by_id
        self._by_id.pop(conn.id, None)
        if conn.closed and not was_seated:
            return
        conn.closed = True
        with contextlib.suppress(Exception):
            conn.writer.close()
        if not self._stopping and was_seated:
            self._run(self.machine.left(conn.id, self._now()))

    def _send(self, conn: Conn, msg: P.Message) -> None:
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
        self.observer.sent(self, conn.seat, msg, data)
        if conn.pending is None:
            conn.pending = [data]
            if self._cork_depth:
                self._dirty.append(conn)
        else:
            conn.pending.append(data)
        if not self._cork_depth:
            self._flush(conn)

