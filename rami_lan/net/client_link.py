"""The network client's link to its table: connecting (TCP + TLS 1.3, the pinned
certificate, ``hello``, the join-code PAKE, ``welcome``), sending, the read loop, the
reconnection with backoff (following the table on the LAN by its id when it moved) and
the keep-alive pings; and the errors a join ends with (`JoinRefused`, `PakeFailed`).

Split out of `rami_lan.net.client`: `ClientLink` is a mixin of
`rami_lan.net.client.RemoteTableSession` (``self`` is the session, its state set by
`RemoteTableSession.__init__`), which still offers every name from here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from typing import Any

from rami_lan.core.variants import get_variant
from rami_lan.ids import BYE_TABLE_PAUSED
from rami_lan.net import guard as G
from rami_lan.net import protocol as P
from rami_lan.net import tls
from rami_lan.net.notices import Notice, NoticeCode
from rami_lan.net.pake import PakeClient, PakeError
from rami_lan.net.table_session import ConnectionState, SessionUpdate
from rami_lan.table.seat_machine import SeatMachine

log = logging.getLogger("rami_lan.net.client")

__all__ = ["ClientLink", "FingerprintMismatch", "JoinRefused", "PakeFailed"]

FingerprintMismatch = tls.FingerprintMismatch


class JoinRefused(ConnectionError):
    """The host turned us away (``code`` from protocol.REFUSED_CODES; ``message``: the
    host's text). ``notice``: set when we refused on our side (no join code to give)."""

    def __init__(self, code: str, message: str, notice: Notice | None = None,
                 retry_after: float | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.notice = notice
        self.retry_after = retry_after
        """``rate_limited``: seconds the host asked us to wait (``refused.retry_ms``)."""


class PakeFailed(ConnectionError):
    """The join-code exchange failed on our side: a wrong code, or a man in the middle.
    ``notice`` says which (`NoticeCode.WRONG_CODE`, ``POSSIBLE_INTERCEPTION``...)."""

    def __init__(self, notice: Notice) -> None:
        super().__init__(str(notice))
        self.notice = notice


class ClientLink:
    """The connection of a `RemoteTableSession` (a mixin: ``self`` is the session)."""

    def abort_transport(self) -> None:
        """Drop the TCP connection abruptly (tests: a client killed mid-turn)."""
        if self._writer is not None:
            self._writer.transport.abort()

    def _check_interception(self, seen: str) -> None:
        """After a failed join-code exchange: raise `PakeFailed` saying "possible
        interception" if the table's certificate is not the one we knew for it."""
        if self.known_fingerprint is not None and seen != self.known_fingerprint:
            raise PakeFailed(Notice.of(
                NoticeCode.POSSIBLE_INTERCEPTION, old=tls.short_fingerprint(self.known_fingerprint),
                new=tls.short_fingerprint(seen)))

    async def _connect(self) -> None:
        """One attempt: TCP + TLS 1.3, pin check, ``hello``, join-code PAKE, ``welcome``."""
        reader, writer = await asyncio.open_connection(
            self.host, self.port, ssl=tls.client_context(),
            ssl_handshake_timeout=G.TLS_HANDSHAKE_TIMEOUT)
        session = P.Session("client")
        try:
            ssl_object = writer.get_extra_info("ssl_object")
            seen = tls.peer_fingerprint(ssl_object) if ssl_object is not None else None
            if seen is None:
                raise tls.FingerprintMismatch(self.fingerprint or "0" * 64, None)
            if self.fingerprint:
                tls.check_pinned(ssl_object, self.fingerprint)
            writer.write(session.send(P.Hello(
                nick=self.nickname, lang=self.lang, token=self.token, bot=self.bot,
                invitation=self.invitation if self.token is None else None,
            )))
            welcome: P.Welcome | None = None
            early: list[P.Message] = []
            pake: PakeClient | None = None
            while welcome is None:
                data = await reader.read(65536)
                if not data:
                    raise ConnectionError("the host closed the connection")
                for msg in session.receive_data(data):
                    if welcome is not None:
                        early.append(msg)
                    elif isinstance(msg, P.Refused):
                        if msg.code == "bad_code":
                            self._check_interception(seen)
                        raise JoinRefused(msg.code, msg.message, retry_after=(
                            None if msg.retry_ms is None else msg.retry_ms / 1000))
                    elif isinstance(msg, P.Pake):
                        if not self.code:
                            with contextlib.suppress(Exception):
                                writer.write(session.send(P.Bye(reason="no join code")))
                            raise JoinRefused("bad_code", "this table needs a join code",
                                              Notice.of(NoticeCode.CODE_NEEDED))
                        pake = PakeClient(self.code, seen)
                        try:
                            reply = pake.receive(msg.msg)
                        except PakeError as exc:
                            raise PakeFailed(Notice.of(NoticeCode.PAKE_ERROR, why=str(exc))) from None
                        assert reply is not None
                        writer.write(session.send(P.Pake(msg=reply))
                                     + session.send(P.PakeConfirm(mac=pake.confirm_message())))
                    elif isinstance(msg, P.PakeConfirm):
                        assert pake is not None  # the session enforces the order
                        try:
                            pake.check_confirmation(msg.mac)
                        except PakeError:
                            with contextlib.suppress(Exception):
                                writer.write(session.send(P.Bye(reason="pake failed")))
                            self._check_interception(seen)
                            raise PakeFailed(Notice.of(NoticeCode.WRONG_CODE)) from None
                    elif isinstance(msg, P.Welcome):
                        if (self.code or self.code_required) and not (
                                session.pake_complete and pake is not None and pake.verified):
                            # A real table that wants a code always asks for it.
                            raise PakeFailed(Notice.of(NoticeCode.CODE_NOT_ASKED))
                        welcome = msg
        except BaseException:
            writer.close()
            raise
        self._reader, self._writer, self._session = reader, writer, session
        self._local_address = _local_ipv4(writer)
        self.fingerprint = seen  # pinned for every reconnect
        self.seat = welcome.seat
        self.token = welcome.token
        self.table_id = welcome.table_id
        self.table = dict(welcome.table)
        self.table["fingerprint"] = tls.short_fingerprint(seen)
        match_no = self.table.get("match_no")
        if isinstance(match_no, int) and match_no >= 1:
            self.match_no = match_no
        self.variant = str(self.table.get("variant", "rami"))
        self.players = list(welcome.players)
        self._back_in()
        self._fair_start()
        if (self.seat_machine is None and self.table.get("private_deal")
                and self.seat != self.table.get("host_seat")):
            tracker = self.tracker
            store = self.seat_store
            self.seat_machine = SeatMachine(
                self.seat, get_variant(self.variant), os.urandom,
                expect=tracker.verifier.expected_players if tracker is not None else None,
                table_id=self.table_id.hex(), keep=self._keep_keys if store is not None else None,
                relaunched=self._rejoin)
            kept = store.load_keys(self.table_id.hex()) if store is not None and self._rejoin else None
            if kept is not None:  # relaunched after a crash: our keys of the round being played
                self.seat_machine.restore(kept)
        self._keep_seat()
        self._set_connection("connected", nicknames=self._nicknames(),
                             connections=self._connections(), table=dict(self.table))
        if self.seat_machine is not None:  # a new connection: our signing key, before anything else
            await self._send(*(P.Masked(m=m) for m in self.seat_machine.hello()))
        # Back after a drop, what we sent of the masked deck may have been lost: it goes
        # again when the host resyncs us (``mk_sync``, `MaskedSeat.on_masked`).
        self._schedule_card()
        for msg in early:
            await self._handle(msg)

    def _set_connection(self, state: ConnectionState, **extra: Any) -> None:
        self.connection = state
        self._queue.put_nowait(SessionUpdate(connection=state, **extra))

    def _drop_transport(self) -> None:
        if self._writer is not None:
            with contextlib.suppress(Exception):
                self._writer.close()

    async def _send(self, *msgs: P.Message) -> None:
        """Send ``msgs`` in order, in one write (one TLS record and one system call for a
        batch, such as an action's reveals and the action)."""
        if self._session is None or self._writer is None or self.connection != "connected":
            if not all(isinstance(msg, P.Bye) for msg in msgs):
                self._queue.put_nowait(SessionUpdate(error=Notice.of(NoticeCode.NOT_CONNECTED)))
            return
        frames: list[bytes] = []
        for msg in msgs:
            try:
                frames.append(self._session.send(msg))
            except P.LocalProtocolError as exc:
                log.error("client tried to send an invalid message: %s", exc)
        if not frames:
            return
        try:
            self._writer.write(b"".join(frames))
            self._last_sent = time.monotonic()
        except (ConnectionError, OSError):
            pass

    async def _run(self) -> None:
        while not self._closing:
            self._paused = False
            ended_by_host = await self._read_loop()
            if self._closing or ended_by_host and not self._paused:
                break
            if self.tracker is not None:
                self.tracker.disconnected()
            if not await self._reconnect(paused=self._paused):
                break
        if not self._closing:
            self._closing = True
            self._fair_end()
            if self.seat_store is not None and self.table_id:
                self.seat_store.release(self.table_id.hex())
            self._set_connection("closed")
            self._queue.put_nowait(None)

    _paused = False

    def _match_over(self) -> bool:
        view = getattr(self, "view", None)
        return view is not None and bool(view.match_over)

    async def _read_loop(self) -> bool:
        """Read until the connection ends; True if the host ended it on purpose (then
        ``_paused`` says whether its ``bye`` paused the table: it may be resumed)."""
        reader, session = self._reader, self._session
        assert reader is not None and session is not None
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    return session.remote_closed
                try:
                    msgs = session.receive_data(data)
                except P.RemoteProtocolError as exc:
                    for m in exc.received:
                        await self._handle(m)
                    log.warning("protocol error from the host: %s", exc)
                    self._queue.put_nowait(SessionUpdate(notice=Notice.of(NoticeCode.INVALID_DATA)))
                    return True
                for m in msgs:
                    if isinstance(m, P.Bye):
                        self._paused = m.reason == BYE_TABLE_PAUSED and not self._match_over()
                    await self._handle_safely(m)
                if session.remote_closed:
                    return True
        except (ConnectionError, OSError):
            return False

    async def _handle_safely(self, msg: P.Message) -> None:
        """`_handle` one message from the host; a bug it meets in our own code is logged
        with its traceback and the message dropped, so the connection (and the match) goes
        on: an exception here would end the read loop and leave the player waiting for
        ever."""
        try:
            await self._handle(msg)
        except (ConnectionError, OSError):
            raise
        except Exception:  # noqa: BLE001 - one message lost, not the session
            log.exception("a %s message from the host could not be handled: dropped",
                          type(msg).__name__)

    async def _reconnect(self, paused: bool = False) -> bool:
        """Retry with backoff for up to `reconnect_window` seconds after a drop (a host
        being restarted with ``--resume`` is down for a few seconds), or `paused_window`
        after the host paused the table (``paused``), always with the pin.

        Meanwhile the table is looked up on the LAN by its table id (mDNS, see
        `_follow_table`): a host resumed on another port or address is tried there as
        soon as its advertisement resolves; the pinned fingerprint still decides
        whether it is the same host. Giving up says why, on the session and in the log.
        """
        from rami_lan.textsafe import clip

        self._drop_transport()
        self._set_connection("reconnecting")
        delay = self.backoff
        window = self.paused_window if paused else self.reconnect_window
        give_up = time.monotonic() + window
        # ``retries`` bounds the attempts after a drop (0: never reconnect); a paused
        # table is waited for over its whole window, at the backoff's pace
        retries = self.retries
        if paused and retries:
            retries = max(retries, int(window / max(self.max_backoff, 0.1)) + 1)
        attempt = 0
        moved = asyncio.Event()
        follower: asyncio.Task[None] | None = None
        try:
            while attempt < retries and time.monotonic() < give_up:
                attempt += 1
                if self._closing:
                    return False
                if attempt == 2:  # the address we joined failed once: look for the table
                    follower = asyncio.create_task(self._follow_table(moved),
                                                   name="rami-client-follow")
                moved.clear()
                try:
                    await asyncio.wait_for(self._connect(), 5.0)
                    self._queue.put_nowait(SessionUpdate(notice=Notice.of(NoticeCode.RECONNECTED)))
                    return True
                except JoinRefused as exc:
                    if exc.code == "rate_limited":
                        wait = exc.retry_after if exc.retry_after is not None else self.max_backoff * 2
                        await asyncio.sleep(min(wait, 5.0, max(0.0, give_up - time.monotonic())))
                        continue
                    if exc.code in ("bad_token", "in_progress"):
                        self.forget_seat()  # the host no longer knows this seat
                    self._queue.put_nowait(SessionUpdate(
                        notice=Notice.of(NoticeCode.REJOIN_REFUSED, why=clip(exc.message))))
                    return False
                except tls.FingerprintMismatch:
                    self._queue.put_nowait(SessionUpdate(
                        error=Notice.of(NoticeCode.CERTIFICATE_CHANGED)))
                    return False
                except PakeFailed as exc:
                    self._queue.put_nowait(SessionUpdate(error=exc.notice))
                    return False
                except (OSError, ConnectionError, TimeoutError, EOFError, P.ProtocolError):
                    # Wait for the backoff, or less if the table shows up elsewhere.
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(moved.wait(), delay)
                    delay = min(delay * 2, self.max_backoff)
        finally:
            if follower is not None:
                follower.cancel()
                await asyncio.gather(follower, return_exceptions=True)
        notice = Notice.of(NoticeCode.RECONNECT_GAVE_UP, where=clip(f"{self.host}:{self.port}", 80),
                           secs=window)
        log.warning("could not reconnect to the table, giving up: %s", notice)
        self._queue.put_nowait(SessionUpdate(notice=notice))
        return False

    def follow_interfaces(self) -> list[str] | str:
        """Where `_follow_table` browses: ``$RAMI_LAN_INTERFACES`` if set, else the local
        address of our last connection to the table (the LAN it is on), else every
        interface (an IPv6-only connection)."""
        from rami_lan.ids import env_interfaces

        env = env_interfaces()
        if env != "all":
            return env
        return [self._local_address] if self._local_address else "all"

    async def _follow_table(self, moved: asyncio.Event) -> None:
        """While reconnecting, once the address we joined has failed: browse for our table
        id (on `follow_interfaces` only) and retarget ``host``/``port`` when it is
        advertised elsewhere (a table resumed on another port)."""
        if not self.table_id:
            return
        from rami_lan.net import discovery
        from rami_lan.textsafe import clip

        wanted = self.table_id.hex()

        def on_change(event: discovery.TableEvent) -> None:
            ad = event.table
            if (event.kind is discovery.TableEventKind.REMOVED or ad.table_id != wanted
                    or not ad.addresses or ad.port is None):
                return
            if (ad.addresses[0], ad.port) != (self.host, self.port):
                log.info("table %s now advertised at %s:%s", wanted[:12], ad.addresses[0], ad.port)
                self.host, self.port = ad.addresses[0], ad.port
                moved.set()

        try:
            browser = discovery.TableBrowser(
                interfaces=self.follow_interfaces(), on_change=on_change,
                resolve_timeout=2.0)
            async with browser:
                await asyncio.Event().wait()  # until cancelled
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - no mDNS here: plain retries go on
            log.info("cannot browse for the table while reconnecting: %s", clip(exc))

    async def _pinger(self) -> None:
        """Keep the host's idle timeout from firing on a live but quiet client."""
        n = 0
        while not self._closing:
            await asyncio.sleep(G.PING_INTERVAL)
            if self.connection == "connected" and time.monotonic() - self._last_sent >= \
                    G.PING_INTERVAL / 2:
                n += 1
                await self._send(P.Ping(n=n))


def _local_ipv4(writer: asyncio.StreamWriter) -> str | None:
    """Our end's IPv4 address on ``writer``'s connection (None for IPv6 or unknown)."""
    import ipaddress

    sock = writer.get_extra_info("sockname")
    try:
        addr = ipaddress.ip_address(sock[0]) if sock else None
    except (ValueError, TypeError, IndexError):
        return None
    if isinstance(addr, ipaddress.IPv6Address):
        addr = addr.ipv4_mapped
    return str(addr) if addr is not None else None
