"""Cost of the trust layer on loopback: TLS and PAKE handshakes, encrypted round trips, fsync.

1. ``handshake``: connect to a server on 127.0.0.1 until ``welcome`` is received, three
   ways: plain TCP + hello/welcome; TLS 1.3 + pinning + hello/welcome; TLS 1.3 + pinning +
   hello + the SPAKE2 join-code exchange (``pake``/``pake_confirm``) + welcome.
2. ``round_trip``: on an established connection, the client sends an ``action`` and waits
   for a ~300-byte ``events`` answer (the shape of a real move); plain vs TLS. Target for
   the action round trip: p99 <= 5 ms.
3. ``journal_append``: one journaled action (msgpack + CRC + write + fsync) in a temporary
   folder, the price the host pays per accepted action before answering.

Prints JSON. ``python -m benchmarks.tls [--handshakes N] [--round-trips N] [--appends N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import ssl
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.stats import percentile
from rami_lan.net import tls
from rami_lan.net.journal import Journal
from rami_lan.net.pake import PakeClient, PakeHost
from rami_lan.net.protocol import (
    Action,
    Events,
    Hello,
    Message,
    Pake,
    PakeConfirm,
    Session,
    Welcome,
)

LOOPBACK = "127.0.0.1"
CODE = "BLEU-4271"
WELCOME = Welcome(table_id=bytes(16), seat=1, token=bytes(16), table={"variant": "rami"}, players=[])
EVENTS = Events(seq=1, events=[{"e": "drew", "seat": 1, "n": i, "x": "x" * 20} for i in range(8)])
ACTION = Action(seq=1, action={"kind": "discard", "seat": 1, "card": 42})


def _summary(name: str, values: list[float], **extra: Any) -> dict[str, Any]:
    ms = [v * 1000 for v in values]
    return {
        "name": name,
        "unit": "ms",
        "count": len(ms),
        "p50": round(statistics.median(ms), 3),
        "p99": round(percentile(ms, 0.99), 3),
        "max": round(max(ms), 3),
        **extra,
    }


async def _next(reader: asyncio.StreamReader, session: Session, pending: list[Message]) -> Message:
    while not pending:
        data = await reader.read(65536)
        if not data:
            raise ConnectionError("closed")
        pending.extend(session.receive_data(data))
    return pending.pop(0)


def _handler(identity: tls.HostIdentity, code: str | None) -> Any:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        session, pending = Session("host"), []
        try:
            await _next(reader, session, pending)  # hello
            if code is not None:
                pake = PakeHost(code, identity.fingerprint)
                writer.write(session.send(Pake(msg=pake.start())))
                msg = await _next(reader, session, pending)
                pake.receive(msg.msg)  # type: ignore[attr-defined]
                confirm = await _next(reader, session, pending)
                pake.check_confirmation(confirm.mac)  # type: ignore[attr-defined]
                writer.write(session.send(PakeConfirm(mac=pake.confirm_message())))
            writer.write(session.send(WELCOME))
            while True:
                await _next(reader, session, pending)  # an action
                writer.write(session.send(EVENTS))
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    return handle


async def _connect(
    port: int, use_tls: bool, identity: tls.HostIdentity, code: str | None
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, Session, list[Message]]:
    context = tls.client_context() if use_tls else None
    reader, writer = await asyncio.open_connection(LOOPBACK, port, ssl=context)
    seen = None
    if use_tls:
        seen = tls.check_pinned(writer.get_extra_info("ssl_object"), identity.fingerprint)
    session, pending = Session("client"), []
    writer.write(session.send(Hello(nick="bench", lang="en")))
    if code is not None:
        pake = PakeClient(code, seen or identity.fingerprint)
        first = await _next(reader, session, pending)
        reply = pake.receive(first.msg)  # type: ignore[attr-defined]
        assert reply is not None
        writer.write(session.send(Pake(msg=reply)) + session.send(
            PakeConfirm(mac=pake.confirm_message())
        ))
        confirm = await _next(reader, session, pending)
        pake.check_confirmation(confirm.mac)  # type: ignore[attr-defined]
    welcome = await _next(reader, session, pending)
    assert isinstance(welcome, Welcome)
    return reader, writer, session, pending


async def _server(identity: tls.HostIdentity, use_tls: bool, code: str | None) -> asyncio.Server:
    context = tls.server_context(identity) if use_tls else None
    return await asyncio.start_server(_handler(identity, code), LOOPBACK, 0, ssl=context)


async def _close(writer: asyncio.StreamWriter) -> None:
    writer.close()
    try:
        await writer.wait_closed()
    except (ConnectionError, ssl.SSLError):
        pass


async def bench_handshakes(identity: tls.HostIdentity, n: int) -> list[dict[str, Any]]:
    out = []
    for name, use_tls, code in (
        ("handshake_plain", False, None),
        ("handshake_tls", True, None),
        ("handshake_tls_pake", True, CODE),
    ):
        server = await _server(identity, use_tls, code)
        port = server.sockets[0].getsockname()[1]
        times = []
        for i in range(n + 5):
            start = time.perf_counter()
            _, writer, _, _ = await _connect(port, use_tls, identity, code)
            elapsed = time.perf_counter() - start
            if i >= 5:  # warm-up
                times.append(elapsed)
            await _close(writer)
        server.close()
        await server.wait_closed()
        out.append(_summary(name, times))
    return out


async def bench_round_trips(identity: tls.HostIdentity, n: int) -> list[dict[str, Any]]:
    out = []
    for name, use_tls in (("round_trip_plain", False), ("round_trip_tls", True)):
        server = await _server(identity, use_tls, None)
        port = server.sockets[0].getsockname()[1]
        reader, writer, session, pending = await _connect(port, use_tls, identity, None)
        times = []
        for i in range(n + 50):
            start = time.perf_counter()
            writer.write(session.send(ACTION))
            answer = await _next(reader, session, pending)
            elapsed = time.perf_counter() - start
            assert isinstance(answer, Events)
            if i >= 50:
                times.append(elapsed)
        await _close(writer)
        server.close()
        await server.wait_closed()
        out.append(_summary(name, times, target_p99_ms=5.0, ok=percentile(times, 0.99) <= 0.005))
    return out


def bench_journal(n: int) -> dict[str, Any]:
    body = {"seq": 0, "seat": 1, "action": {"kind": "discard", "seat": 1, "card": 42}}
    times = []
    with tempfile.TemporaryDirectory() as folder:
        with Journal.open(Path(folder) / "bench.journal") as journal:
            for seq in range(n):
                body["seq"] = seq
                start = time.perf_counter()
                journal.append("action", body)
                times.append(time.perf_counter() - start)
    return _summary("journal_append_fsync", times)


async def main(handshakes: int, round_trips: int, appends: int) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory() as folder:
        identity = tls.load_or_create_identity("bench", Path(folder))
        results = await bench_handshakes(identity, handshakes)
        results += await bench_round_trips(identity, round_trips)
    results.append(bench_journal(appends))
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--handshakes", type=int, default=200)
    parser.add_argument("--round-trips", type=int, default=2000)
    parser.add_argument("--appends", type=int, default=500)
    a = parser.parse_args()
    print(json.dumps(asyncio.run(main(a.handshakes, a.round_trips, a.appends)), indent=1))
