"""The security promises end to end, through the real host and client on 127.0.0.1:
a wrong join code is refused, a man in the middle with its own certificate is caught
(pinned fingerprint with and without a code; with a code even when the client pinned
the attacker's fingerprint from a spoofed TXT record), and a capture of a whole match's
TCP payload holds none of the plaintext the host sent (no card, no view, no nickname).
"""

from __future__ import annotations

import asyncio
import ssl
from pathlib import Path
from typing import Any

import aio_helpers
import pytest
from aio_helpers import pump

from rami_lan.net import guard as G
from rami_lan.net import tls
from rami_lan.net.bot_client import BotClient
from rami_lan.net.client import FingerprintMismatch, JoinRefused, PakeFailed, open_session
from rami_lan.net.host import HostObserver, TableConfig, TableHost
from rami_lan.net.record import verify_file

FAST = G.GuardConfig(admission=G.AdmissionConfig(base_delay=0.001, max_delay=0.002))
NO_WAIT = G.GuardConfig(admission=G.AdmissionConfig(base_delay=1e-9, max_delay=1e-9))
"""For tests of what follows a failure, not of the wait after it: a nanosecond, nothing to
sleep past (the next TLS handshake alone takes milliseconds)."""


pytestmark = pytest.mark.usefixtures("isolated_config")


def run(coro: Any, timeout: float = 30.0) -> Any:
    return aio_helpers.run(coro, timeout)


class Relay:
    """A TCP relay on 127.0.0.1. With ``identity`` it is a man in the middle: it ends the
    client's TLS with its own certificate and opens its own TLS to the host. Without, it
    only copies (and records) the bytes: a passive sniffer."""

    def __init__(self, port: int, identity: tls.HostIdentity | None = None) -> None:
        self.target = port
        self.identity = identity
        self.captured = bytearray()
        self.server: asyncio.Server | None = None
        self.tasks: set[asyncio.Task[Any]] = set()

    async def start(self) -> int:
        ctx = tls.server_context(self.identity) if self.identity is not None else None
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=ctx)
        return self.server.sockets[0].getsockname()[1]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_ssl: ssl.SSLContext | None = tls.client_context() if self.identity else None
        try:
            ur, uw = await asyncio.open_connection("127.0.0.1", self.target, ssl=up_ssl)
        except OSError:
            writer.close()
            return
        await asyncio.gather(pump(reader, uw, self.captured), pump(ur, writer, self.captured))

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()


def _config(**kw: Any) -> TableConfig:
    base: dict[str, Any] = dict(name="sec", seats=2, headless=True, advertise=False,
                                interfaces=["127.0.0.1"], variant="rami", limit=1,
                                auto_start=False, guard=FAST)
    base.update(kw)
    return TableConfig(**base)


def test_wrong_join_code_is_refused() -> None:
    async def scenario() -> None:
        host = TableHost(_config(join_code="tulipe-42", guard=NO_WAIT))
        port = await host.start()
        try:
            with pytest.raises(JoinRefused) as info:
                await open_session("127.0.0.1", port, nickname="x", code="tulipe-43")
            assert info.value.code == "bad_code"
            assert host.guard.admission.failures("127.0.0.1") == 1
            assert all(s.conn is None for s in host.seats.values())
            ok = await open_session("127.0.0.1", port, nickname="y", code="tulipe-42",
                                    fingerprint=host.fingerprint)
            assert ok.table["fingerprint"] == host.short_fingerprint
            assert host.guard.admission.failures("127.0.0.1") == 0
            await ok.close()
        finally:
            await host.stop()

    run(scenario())


def test_wrong_codes_are_delayed_then_locked_out() -> None:
    async def scenario() -> None:
        slow = G.GuardConfig(admission=G.AdmissionConfig(base_delay=5.0, lockout_after=3))
        host = TableHost(_config(join_code="abc", guard=slow))
        port = await host.start()
        try:
            with pytest.raises(JoinRefused):
                await open_session("127.0.0.1", port, nickname="x", code="nope")
            with pytest.raises(JoinRefused) as info:  # even the right code must wait now
                await open_session("127.0.0.1", port, nickname="x", code="abc")
            assert info.value.code == "rate_limited" and "try again in" in info.value.message
        finally:
            await host.stop()

    run(scenario())


@pytest.mark.parametrize("code", [None, "cerise"])
def test_mitm_is_caught_by_the_pin(tmp_path: Path, code: str | None) -> None:
    async def scenario() -> None:
        host = TableHost(_config(join_code=code))
        port = await host.start()
        mitm = Relay(port, tls.load_or_create_identity("evil", tmp_path / "evil"))
        mport = await mitm.start()
        try:
            with pytest.raises(FingerprintMismatch):
                await open_session("127.0.0.1", mport, nickname="x", code=code,
                                   fingerprint=host.fingerprint)
            # Nothing was sent past TLS: no hello reached the host through the relay.
            assert all(s.token is None for s in host.seats.values())
        finally:
            await mitm.stop()
            await host.stop()

    run(scenario())


def test_mitm_with_spoofed_txt_is_caught_by_the_join_code(tmp_path: Path) -> None:
    """The attacker publishes its own fingerprint (spoofed TXT): the client pins it and the
    TLS check passes, but the PAKE confirmation binds the fingerprint each side sees."""

    async def scenario() -> None:
        host = TableHost(_config(join_code="cerise"))
        port = await host.start()
        evil = tls.load_or_create_identity("evil", tmp_path / "evil")
        mitm = Relay(port, evil)
        mport = await mitm.start()
        try:
            with pytest.raises((PakeFailed, JoinRefused)) as info:
                await open_session("127.0.0.1", mport, nickname="x", code="cerise",
                                   fingerprint=evil.fingerprint)
            if isinstance(info.value, JoinRefused):
                assert info.value.code == "bad_code"
            await aio_helpers.poll_until(
                lambda: host.guard.admission.failures("127.0.0.1") >= 1, "refusal", 5)
            assert host.guard.admission.failures("127.0.0.1") >= 1  # the host refused too
            assert all(s.token is None for s in host.seats.values())
            # Without a code at all the same relay is caught by a client that expects one.
            with pytest.raises((PakeFailed, JoinRefused)):
                await open_session("127.0.0.1", mport, nickname="x", code="cerise",
                                   fingerprint=evil.fingerprint, code_required=True)
        finally:
            await mitm.stop()
            await host.stop()

    run(scenario())


def test_capture_of_a_whole_match_shows_nothing(tmp_path: Path) -> None:
    async def scenario() -> None:
        sent: list[bytes] = []

        class Spied(HostObserver):
            def sent(self, host: Any, seat: int | None, msg: Any, data: bytes) -> None:
                sent.append(data)

        host = TableHost(_config(seats=3, join_code="secret-code", record_dir=tmp_path,
                                 auto_start=True, bot_delay=0.0), observer=Spied())
        port = await host.start()
        sniffer = Relay(port)
        sport = await sniffer.start()
        try:
            sessions = [await open_session("127.0.0.1", sport, nickname=f"nick{i}zz",
                                           code="secret-code", fingerprint=host.fingerprint)
                        for i in range(3)]
            summaries = await asyncio.gather(*(BotClient(s, delay=0.0, seed=i).run()
                                               for i, s in enumerate(sessions)))
            assert all(sm.finished and sm.fair for sm in summaries)
            await host.wait_finished(10)
            for s in sessions:
                await s.close()
        finally:
            await sniffer.stop()
            await host.stop()
        capture = bytes(sniffer.captured)
        assert len(capture) > 10_000
        for word in (b"secret-code", b"nick0zz", b"hand", b"view", b"events", b"CardsDealt",
                     b"StockDrawn", b"discard"):
            assert word not in capture, word
        # No 12-byte window of any plaintext frame the host sent appears on the wire.
        for frame in sent:
            for i in range(0, max(1, len(frame) - 12), 12):
                window = frame[i:i + 12]
                if len(window) == 12 and len(set(window)) > 3:
                    assert window not in capture
        assert verify_file(host.record_path).ok

    run(scenario(), 60)


def test_parallel_guesses_from_one_address_run_one_at_a_time() -> None:
    """Issue 13: 8 parallel join-code guesses from one address all got a PAKE at once;
    the admission limiter reserves the address's slot before the exchange starts."""

    async def scenario() -> None:
        host = TableHost(_config(join_code="K7QM-PX3R"))
        port = await host.start()
        try:
            results = await asyncio.gather(
                *(open_session("127.0.0.1", port, nickname=f"g{i}", code=f"WRONG-{i:04d}")
                  for i in range(8)), return_exceptions=True)
            codes = sorted(r.code for r in results if isinstance(r, JoinRefused))
            assert len(codes) + sum(isinstance(r, PakeFailed) for r in results) == 8
            # at most one real exchange ran; the others were refused before any work
            assert codes.count("rate_limited") >= 7, codes
            assert host.guard.admission.failures("127.0.0.1") == 1
        finally:
            await host.stop()

    run(scenario())


def test_bad_tokens_are_delayed_like_wrong_codes() -> None:
    """Issue 13: bad reconnect tokens skipped the per-address delay."""

    async def scenario() -> None:
        slow = G.GuardConfig(admission=G.AdmissionConfig(base_delay=30.0))
        host = TableHost(_config(guard=slow))
        port = await host.start()
        try:
            with pytest.raises(JoinRefused) as first:
                await open_session("127.0.0.1", port, nickname="x", token=bytes(16))
            assert first.value.code == "bad_token"
            with pytest.raises(JoinRefused) as second:
                await open_session("127.0.0.1", port, nickname="x", token=bytes(range(16)))
            assert second.value.code == "rate_limited" and "try again in" in second.value.message
        finally:
            await host.stop()

    run(scenario())


def test_a_seated_player_is_never_held_by_the_global_cap() -> None:
    """Issue 13: a flood of bad tokens locked everyone out, a seated player included."""

    async def scenario() -> None:
        tight = G.GuardConfig(admission=G.AdmissionConfig(global_max=2, global_share=2,
                                                          base_delay=30.0))
        host = TableHost(_config(guard=tight, seats=3, bots={2: "moyen"}, bot_delay=0.0,
                                 away_delay=30.0, auto_start=True))
        port = await host.start()
        a = await open_session("127.0.0.1", port, nickname="alice", retries=0,
                               fingerprint=host.fingerprint)
        b = await open_session("127.0.0.1", port, nickname="bob", fingerprint=host.fingerprint)
        token, seat = a.token, a.seat
        assert token is not None
        again = None
        try:
            async for up in a.updates():  # the match has started: the seat is held on a drop
                if up.view is not None:
                    break
            for i in range(3):  # fill the global failure cap, and lock 127.0.0.1 out
                with pytest.raises(JoinRefused):
                    await open_session("127.0.0.1", port, nickname="x", token=bytes([i]) * 16)
            assert host.guard.admission.retry_after("127.0.0.1") > 0
            with pytest.raises(JoinRefused) as newcomer:
                await open_session("127.0.0.1", port, nickname="y", token=bytes([9]) * 16)
            assert newcomer.value.code == "rate_limited"
            a.abort_transport()
            await aio_helpers.poll_until(lambda: host.seats[seat].conn is None, "seat held", 5)
            again = await open_session("127.0.0.1", port, nickname="alice", token=token,
                                       fingerprint=host.fingerprint)
            assert again.seat == seat
        finally:
            for s in (a, b, again):
                if s is not None:
                    await s.close()
            await host.stop()

    run(scenario())
