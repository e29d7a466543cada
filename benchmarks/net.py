"""Network benchmark on loopback: action -> every client updated, and discovery time.

1. ``action_to_all_clients``: a headless host and three clients on 127.0.0.1; the
   player to move sends an action (chosen beforehand) and the clock stops when all
   three clients have decoded the resulting view. p50 / p99 over many actions, after a
   warm-up. Target: p99 <= 2 ms. ``bare_msgpack_echo_to_3`` is the floor in the same
   run: a plain asyncio relay of one msgpack frame to three clients (no TLS, no game).
   Every connection is TLS 1.3 (the host's real identity), so this is the round trip
   *with* encryption; the host skips the full self-check of the ``view``/``events`` it
   sends (``Session.send(validate=False)``).
2. ``join_handshake``: ``open_session`` against the real host: TCP + TLS 1.3 + pinning +
   ``hello`` → ``welcome``, without and with a join code (SPAKE2 + confirmation).
3. ``discovery``: a lobby browser is already running (zeroconf bound to 127.0.0.1,
   IPv4 only); a table starts advertising; time until the browser lists it. Target:
   <= 0.5 s.

Prints JSON. ``python -m benchmarks.net [--actions N] [--joins N] [--discoveries N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import statistics
import time
from typing import Any

from zeroconf import IPVersion

from benchmarks.stats import percentile
from rami_lan.bots import make_bot
from rami_lan.net.client import RemoteTableSession, open_session
from rami_lan.net.discovery import TableAd, TableAdvertiser, TableBrowser
from rami_lan.net.host import TableConfig, TableHost

LOOPBACK = ["127.0.0.1"]


async def _one_match(samples: list[float], want: int) -> None:
    host = TableHost(TableConfig(name="bench", variant="rami", limit=1, seats=3,
                                 headless=True, advertise=False, interfaces=LOOPBACK,
                                 between_timeout=0.5))
    port = await host.start()
    sessions: list[RemoteTableSession] = [
        await open_session("127.0.0.1", port, nickname=f"b{i}") for i in range(3)]
    counts = [0, 0, 0]
    arrival = [0, 0, 0]
    changed = asyncio.Event()

    async def consume(i: int, s: RemoteTableSession) -> None:
        async for up in s.updates():
            if up.view is not None:
                arrival[i] = time.perf_counter_ns()
                counts[i] += 1
                changed.set()

    consumers = [asyncio.create_task(consume(i, s)) for i, s in enumerate(sessions)]
    bots = [make_bot("debutant", s.seat, i) for i, s in enumerate(sessions)]
    try:
        while len(samples) < want:
            # wait for a state where some client has to move
            mover = None
            for _ in range(2000):
                mover = next((i for i, s in enumerate(sessions)
                              if s.view is not None and s.view.my_turn), None)
                if mover is not None or host.match.over:
                    break
                if host.match.phase == "between":
                    for s in sessions:
                        await s.next_round("continue")
                changed.clear()
                await asyncio.wait_for(changed.wait(), 5)
            if mover is None:
                break
            view = sessions[mover].view
            assert view is not None
            action = bots[mover].choose(view, ())
            before = list(counts)
            t0 = time.perf_counter_ns()
            await sessions[mover].act(action)
            while any(c == b for c, b in zip(counts, before, strict=True)):
                changed.clear()
                await asyncio.wait_for(changed.wait(), 5)
            samples.append((max(arrival) - t0) / 1e6)
    finally:
        for t in consumers:
            t.cancel()
        for s in sessions:
            await s.close()
        await host.stop()


async def bench_actions(n: int, warmup: int = 30) -> dict[str, Any]:
    samples: list[float] = []
    while len(samples) < n + warmup:
        await _one_match(samples, n + warmup)
    data = samples[warmup:]
    return {
        "name": "action_to_all_clients",
        "unit": "ms",
        "clients": 3,
        "count": len(data),
        "median": round(statistics.median(data), 3),
        "p50": round(percentile(data, 0.50), 3),
        "p99": round(percentile(data, 0.99), 3),
        "max": round(max(data), 3),
        "target_p99": 2.0,
        "ok": percentile(data, 0.99) <= 2.0,
    }


async def bench_echo(n: int, warmup: int = 30) -> dict[str, Any]:
    """The floor under ``action_to_all_clients`` in the same run: a bare asyncio server
    (no TLS, no game) that relays each msgpack frame one client sends to three clients."""
    import msgpack

    writers: list[asyncio.StreamWriter] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writers.append(writer)
        try:
            while head := await reader.readexactly(4):
                body = await reader.readexactly(int.from_bytes(head, "big"))
                for w in writers:
                    w.write(head + body)
        except asyncio.IncompleteReadError:
            pass  # the client closed: the end of the run

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    conns = [await asyncio.open_connection("127.0.0.1", port) for _ in range(3)]
    while len(writers) < 3:
        await asyncio.sleep(0.001)
    frame = msgpack.packb({"k": "action", "seq": 1, "action": {"kind": "draw_stock", "seat": 0}})
    frame = len(frame).to_bytes(4, "big") + frame
    samples: list[float] = []
    for _ in range(n + warmup):
        t0 = time.perf_counter_ns()
        conns[0][1].write(frame)
        for r, _w in conns:
            head = await r.readexactly(4)
            msgpack.unpackb(await r.readexactly(int.from_bytes(head, "big")))
        samples.append((time.perf_counter_ns() - t0) / 1e6)
    for _r, w in conns:
        w.close()
    server.close()
    data = samples[warmup:]
    return {"name": "bare_msgpack_echo_to_3", "unit": "ms", "count": len(data),
            "p50": round(percentile(data, 0.50), 3), "p99": round(percentile(data, 0.99), 3),
            "max": round(max(data), 3)}


async def bench_joins(n: int) -> list[dict[str, Any]]:
    out = []
    for code in (None, "bench-code"):
        from rami_lan.net import guard as G

        host = TableHost(TableConfig(name="bench", seats=2, headless=True, advertise=False,
                                     interfaces=LOOPBACK, join_code=code, auto_start=False,
                                     guard=G.GuardConfig(
                                         max_connections_per_address=64,
                                         # one address joins n times in a row: lift the
                                         # admission limiter's per-address hello rate
                                         admission=G.AdmissionConfig(
                                             hello_rate=1e6, hello_burst=1e6,
                                             global_hello_rate=1e6, global_hello_burst=1e6))))
        port = await host.start()
        times: list[float] = []
        try:
            for _ in range(n):
                t0 = time.perf_counter()
                s = await open_session("127.0.0.1", port, nickname="j", code=code,
                                       fingerprint=host.fingerprint)
                times.append((time.perf_counter() - t0) * 1000)
                await s.close()
                await asyncio.sleep(0.005)  # let the host free the seat
        finally:
            await host.stop()
        out.append({
            "name": "join_handshake_tls_pake" if code else "join_handshake_tls",
            "unit": "ms", "count": len(times),
            "p50": round(percentile(times, 0.5), 3), "p99": round(percentile(times, 0.99), 3),
            "max": round(max(times), 3),
        })
    return out


async def bench_discovery(n: int) -> dict[str, Any]:
    times: list[float] = []
    browser = TableBrowser(interfaces=LOOPBACK, ip_version=IPVersion.V4Only)
    await browser.start()
    try:
        await asyncio.sleep(0.2)
        for k in range(n):
            table_id = secrets.token_hex(8)
            ad = TableAd(table_id=table_id, name=f"bench {k}", host="b", variant="rami",
                         seats_taken=1, seats_total=4, point_limit=100)
            adv = TableAdvertiser(ad, 40000 + k, interfaces=LOOPBACK,
                                  ip_version=IPVersion.V4Only)
            t0 = time.perf_counter()
            await adv.start()
            try:
                while not any(t.table_id == table_id for t in browser.tables.values()):
                    if time.perf_counter() - t0 > 5:
                        break
                    await asyncio.sleep(0.002)
                times.append(time.perf_counter() - t0)
            finally:
                await adv.stop()
    finally:
        await browser.stop()
    return {
        "name": "advertise_to_lobby",
        "unit": "s",
        "count": len(times),
        "median": round(statistics.median(times), 4),
        "p99": round(percentile(times, 0.99), 4),
        "max": round(max(times), 4),
        "target_max": 0.5,
        "ok": max(times) <= 0.5,
    }


async def main(actions: int, discoveries: int, joins: int = 50) -> list[dict[str, Any]]:
    return [await bench_actions(actions), await bench_echo(actions),
            *(await bench_joins(joins)),
            await bench_discovery(discoveries)]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--actions", type=int, default=1000)
    parser.add_argument("--discoveries", type=int, default=10)
    parser.add_argument("--joins", type=int, default=50)
    a = parser.parse_args()
    print(json.dumps(asyncio.run(main(a.actions, a.discoveries, a.joins)), indent=1))
