"""Benchmark: what spectators cost a tournament's table (issue 28: "watching costs the
table nothing measurable").

An in-process organiser (`TournamentHost`) on 127.0.0.1, three players registered
through the tournament protocol and seated at its table (TLS 1.3 everywhere), and 0 or
8 spectators (``t_hello`` with ``watch``). The player to move sends an action chosen
beforehand; the clock stops when all three players have decoded the resulting view
and every spectator has decoded its ``t_watch``. p50 / p99 over many actions, after a
warm-up, without and with spectators; the target is the table's own
(`benchmarks.net`: p99 <= 2 ms for action -> every client), with the spectators
counted among the clients.

Prints JSON. ``python -m benchmarks.spectators [--actions N] [--spectators K]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.stats import percentile
from rami_lan.bots import make_bot
from rami_lan.cli.tournament_join import join_tournament
from rami_lan.net import tls
from rami_lan.net import tournament_protocol as T
from rami_lan.net.tournament_host import TournamentHost
from rami_lan.tournament.machine import TournamentConfig

TARGET_P99_MS = 2.0


async def _run(n_actions: int, n_watchers: int, warmup: int) -> list[tuple[float, float]]:
    folder = Path(tempfile.mkdtemp(prefix="rami-bench-spect-"))
    host = TournamentHost(TournamentConfig(table_size=3, limit=100), interfaces=["127.0.0.1"],
                          advertise=False, record_dir=folder, start_at=3, join_wait=30,
                          table_tuning={"between_timeout": 0.5})
    port = await host.start()
    watch_counts = [0] * n_watchers
    watch_arrival = [0] * n_watchers
    changed = asyncio.Event()

    async def watcher(i: int) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=tls.client_context())
        s = T.TSession("client")
        writer.write(s.send(T.THello(nick=f"w{i}", lang="en", watch=True)))
        while data := await reader.read(1 << 16):
            for msg in s.receive_data(data):
                if isinstance(msg, T.TWatch):
                    watch_arrival[i] = time.perf_counter_ns()
                    watch_counts[i] += 1
                    changed.set()

    watchers = [asyncio.create_task(watcher(i)) for i in range(n_watchers)]
    sessions: list[Any] = []
    done = asyncio.Event()

    async def seat(session: Any) -> int:
        sessions.append(session)
        await done.wait()
        return 0

    import argparse as ap

    args = ap.Namespace(bot=None, bot_delay=0.0, code=None)
    players = [asyncio.create_task(join_tournament("127.0.0.1", port, args, f"b{i}", None, seat))
               for i in range(3)]
    counts = [0, 0, 0]
    arrival = [0, 0, 0]
    samples: list[tuple[float, float]] = []
    try:
        while len(sessions) < 3:
            await asyncio.sleep(0.01)

        async def consume(i: int, s: Any) -> None:
            async for up in s.updates():
                if up.view is not None:
                    arrival[i] = time.perf_counter_ns()
                    counts[i] += 1
                    changed.set()

        consumers = [asyncio.create_task(consume(i, s)) for i, s in enumerate(sessions)]
        bots = [make_bot("debutant", s.seat, i) for i, s in enumerate(sessions)]
        (run,) = host._running.values()
        while len(samples) < n_actions + warmup and not run.host.match.over:
            mover = next((i for i, s in enumerate(sessions)
                          if s.view is not None and s.view.my_turn), None)
            if mover is None:
                if run.host.match.phase == "between":
                    for s in sessions:
                        await s.next_round("continue")
                changed.clear()
                await asyncio.wait_for(changed.wait(), 5)
                continue
            action = bots[mover].choose(sessions[mover].view, ())
            before, wbefore = list(counts), list(watch_counts)
            t0 = time.perf_counter_ns()
            await sessions[mover].act(action)
            while (any(c == b for c, b in zip(counts, before, strict=True))
                   or any(c == b for c, b in zip(watch_counts, wbefore, strict=True))):
                changed.clear()
                await asyncio.wait_for(changed.wait(), 5)
            samples.append(((max(arrival + watch_arrival) - t0) / 1e6, (max(arrival) - t0) / 1e6))
        for t in consumers:
            t.cancel()
    finally:
        done.set()
        for t in watchers:
            t.cancel()
        await host.stop()
        for t in players:
            t.cancel()
    return samples[warmup:]


def _stats(data: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(data), 3), "p50": round(percentile(data, 0.5), 3),
            "p99": round(percentile(data, 0.99), 3), "max": round(max(data), 3)}


async def bench(n_actions: int, n_watchers: int, warmup: int = 30) -> dict[str, Any]:
    """``all_screens``: until the players and every spectator decoded the change (the
    spectators' decoding runs in this same process: an upper bound); ``players``: until
    the three players did (what watching costs the table's own screens)."""
    data: list[tuple[float, float]] = []
    while len(data) < n_actions:
        data += await _run(n_actions - len(data), n_watchers, warmup)
    everyone = [a for a, _p in data]
    players = [p for _a, p in data]
    return {"name": "action_to_screens", "unit": "ms", "players": 3,
            "spectators": n_watchers, "count": len(data),
            "all_screens": _stats(everyone), "players_screens": _stats(players),
            "target_p99": TARGET_P99_MS,
            "ok_players": percentile(players, 0.99) <= TARGET_P99_MS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=300)
    parser.add_argument("--spectators", type=int, default=8)
    a = parser.parse_args()

    async def both() -> list[dict[str, Any]]:
        return [await bench(a.actions, 0), await bench(a.actions, a.spectators)]

    print(json.dumps(asyncio.run(both()), indent=1))


if __name__ == "__main__":
    main()
