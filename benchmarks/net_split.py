"""Network benchmark with one process per machine role: action -> every client updated.

`benchmarks/net.py` runs the host and its three clients in one process, so the three
clients' decoding is serialised on one core and counted in every sample. Here the host
and each client are separate processes on loopback, as on a LAN (where every client has
its own machine). Clients play a limit-1 ``rami`` match with moyen bots and no think
delay over TLS 1.3. The acting client stamps each action just before sending it; every
client stamps each ``view`` message (by the host's state version ``seq``) once decoded.
Clocks are comparable across processes (``time.perf_counter_ns`` is CLOCK_MONOTONIC on
Linux). A sample is: the latest arrival of the next state version at any of the three
clients, minus the send stamp. Target: p99 <= 5 ms.

``python -m benchmarks.net_split [--matches N]`` prints one JSON object. Loopback only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.stats import percentile

HOST_SCRIPT = """
import asyncio, sys
from rami_lan.net.host import TableConfig, TableHost

async def main():
    host = TableHost(TableConfig(name="bench", variant="rami", limit=1, seats=3,
                                 headless=True, advertise=False, interfaces=["127.0.0.1"],
                                 between_timeout=2.0))
    port = await host.start()
    print(port, flush=True)
    await host.wait_finished(300)
    await host.stop()

asyncio.run(main())
"""


async def _client(port: int, index: int, out: Path) -> None:
    from rami_lan.net import protocol as P
    from rami_lan.net.bot_client import BotClient
    from rami_lan.net.client import open_session

    session = await open_session("127.0.0.1", port, nickname=f"bench{index}")
    arrivals: dict[int, int] = {}
    sends: list[tuple[int, int]] = []
    last_seq = [0]
    handle = session._handle  # the client's message handler: stamp views once decoded

    async def stamped(msg: Any) -> None:
        await handle(msg)
        if isinstance(msg, P.View):
            now = time.perf_counter_ns()
            arrivals.setdefault(msg.seq, now)
            last_seq[0] = max(last_seq[0], msg.seq)

    session._handle = stamped  # type: ignore[method-assign]
    act = session.act

    async def timed_act(action: Any) -> None:
        sends.append((last_seq[0], time.perf_counter_ns()))
        await act(action)

    session.act = timed_act  # type: ignore[method-assign]
    await BotClient(session, level="moyen", seed=index, delay=0.0).run()
    await session.close()
    out.write_text(json.dumps({"arrivals": arrivals, "sends": sends}))


def run_match(folder: Path) -> list[float]:
    env = dict(os.environ)
    host = subprocess.Popen([sys.executable, "-c", HOST_SCRIPT], stdout=subprocess.PIPE,
                            text=True, env=env)
    try:
        port = int(host.stdout.readline())  # type: ignore[union-attr]
        outs = [folder / f"client{i}.json" for i in range(3)]
        clients = [
            subprocess.Popen([sys.executable, "-m", "benchmarks.net_split", "--client",
                              str(port), str(i), str(outs[i])], env=env)
            for i in range(3)
        ]
        for c in clients:
            c.wait(timeout=300)
        host.wait(timeout=30)
    finally:
        if host.poll() is None:
            host.kill()
    data = [json.loads(o.read_text()) for o in outs]
    arrivals = [{int(k): v for k, v in d["arrivals"].items()} for d in data]
    samples = []
    for d in data:
        for seen, sent in d["sends"]:
            # the first state version after the one the sender acted on
            later = [s for s in arrivals[0] if s > seen]
            if not later:
                continue
            seq = min(later)
            if all(seq in a for a in arrivals):
                samples.append((max(a[seq] for a in arrivals) - sent) / 1e6)
    return samples


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--client":
        port, index, out = int(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4])
        asyncio.run(_client(port, index, out))
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=5)
    args = ap.parse_args()
    samples: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.matches):
            samples += run_match(Path(tmp))
    samples = [s for s in samples if s >= 0]
    print(json.dumps({
        "name": "action_to_all_clients_split_processes",
        "unit": "ms",
        "clients": 3,
        "count": len(samples),
        "p50": round(percentile(samples, 0.5), 3),
        "p99": round(percentile(samples, 0.99), 3),
        "max": round(max(samples), 3),
        "target_p99": 5.0,
        "ok": percentile(samples, 0.99) <= 5.0,
    }))


if __name__ == "__main__":
    main()
