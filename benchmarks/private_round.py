"""A whole ``rami`` round over loopback, with and without private dealing.

A `TableHost` (TLS on 127.0.0.1, no mDNS ad) runs in this process, and its owner's
seat is played by a bot client in the same process, over loopback, as ``rami-lan host``
plays the host's own seat: the host is one of the **four participants** of the masked
deck (the issue's shuffle target is for four). The three other bot clients (`BotClient`
over `RemoteTableSession`, ``moyen``) run in **their own processes**, as the players'
machines do on a LAN, so each participant's masked-deck work (its shuffle steps, key
releases, its audit) runs beside the others' instead of one after the other.
``--headless``: a dedicated host that plays no seat and four remote bot clients (the
host is then a fifth participant). Single-round matches (limit 1). A run is timed at the host, from
the moment the fourth client is seated to the moment the round is over **and**, with
private dealing, the round's audit is complete at the host (every participant's
secrets in and checked): the masked shuffle, every key release and the audit are
inside the measure. Runs alternate between the two settings so load hits both alike.

``--delay`` is the bots' think time per move (0: as fast as they can; a real table has
seconds per move). Target (issue 15): a private round takes at most twice as long as
a plain one.

Prints JSON: per setting, median / p90 / each run in seconds, and the ratio of medians;
and the CPU time the round cost all processes together (the host's process from the last
seat taken to the end, plus each client process from its connection to its exit).
``cpu_floor_ratio`` is what the ratio would be if the private round's extra CPU ran
perfectly spread over this machine's cores with no waiting at all: a lower bound.

    python -m benchmarks.private_round [--runs 6] [--delay 0] [--variant rami]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from benchmarks.stats import percentile
from rami_lan.net.bot_client import BotClient
from rami_lan.net.client import open_session
from rami_lan.net.host import TableConfig, TableHost

PHASES: dict[str, list[dict[str, float]]] = {}
CPU: dict[str, list[float]] = {}
HOST_CPU: dict[str, list[float]] = {}


async def client(port: int, seed: int, delay: float, token: bytes | None = None) -> int:
    """One bot player (run in its own process, or the owner's in the host's): 0 when it
    finished and every round checked."""
    cpu0 = time.process_time()
    session = await open_session("127.0.0.1", port, nickname=f"b{seed}", token=token)
    try:
        summary = await BotClient(session, delay=delay, seed=seed).run()
        if token is None:  # a client process: its CPU for this round, for the host to add up
            print(json.dumps({"cpu_s": time.process_time() - cpu0}), flush=True)
        ok = summary.finished and all(r.status == "checked" for r in session.fairness_rounds())
        if not ok:
            print("client", seed, summary.finished, session.fairness_rounds(), file=sys.stderr)
        return 0 if ok else 1
    finally:
        await session.close()


async def one_round(variant: str, private: bool, seed: int, delay: float, headless: bool = False) -> float:
    host = TableHost(TableConfig(
        name="bench", variant=variant, seats=4, limit=1, headless=headless, advertise=False,
        interfaces=["127.0.0.1"], bot_delay=0.0, private_deal=private, commit_timeout=20,
        reveal_timeout=20, host_nickname="b0"))
    port = await host.start()
    owner: asyncio.Task[int] | None = None
    if not headless:
        owner = asyncio.create_task(client(port, seed * 10, delay, token=host.owner_token))
    procs = [subprocess.Popen([sys.executable, "-m", "benchmarks.private_round", "--client",
                               str(port), str(seed * 10 + i), str(delay)], stdout=subprocess.PIPE, text=True)
             for i in range(4 - (not headless))]
    m = host.machine
    try:
        while not m.started:
            await asyncio.sleep(0.001)
        t0, cpu0 = time.perf_counter(), time.process_time()
        marks: dict[str, float] = {}
        while not (m.over and (not private or m.masked_reports)):
            await asyncio.sleep(0.001)
            now = time.perf_counter() - t0
            if "dealt" not in marks and m.match.round is not None:
                marks["dealt"] = now
            if "ended" not in marks and m.over:
                marks["ended"] = now
            if now > 300:
                raise RuntimeError("the round did not end in 300 s")
        elapsed, cpu = time.perf_counter() - t0, time.process_time() - cpu0
        marks.setdefault("ended", elapsed)
        PHASES.setdefault("private" if private else "plain", []).append(marks)
        outs = [await asyncio.to_thread(p.communicate, None, 60) for p in procs]
        codes = [p.returncode for p in procs]
        HOST_CPU.setdefault("private" if private else "plain", []).append(cpu)
        cpu += sum(json.loads(line)["cpu_s"] for out, _ in outs
                   for line in out.splitlines() if "cpu_s" in line)
        if owner is not None:
            codes.append(await asyncio.wait_for(owner, 60))
        if any(codes) or (private and not all(r.fair for r in m.masked_reports)):
            raise RuntimeError(f"a client failed: exit codes {codes}")
        CPU.setdefault("private" if private else "plain", []).append(cpu)
        return elapsed
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
        if owner is not None and not owner.done():
            owner.cancel()
        await host.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=6)
    parser.add_argument("--variant", default="rami")
    parser.add_argument("--delay", type=float, default=0.0, help="bots' think time per move (s)")
    parser.add_argument("--headless", action="store_true",
                        help="a dedicated host (no seat of its own) and four remote bot clients")
    parser.add_argument("--client", nargs=3, metavar=("PORT", "SEED", "DELAY"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("RAMI_LAN_CONFIG_DIR", tempfile.mkdtemp(prefix="rami-bench-"))
    if args.client:
        port, seed, delay = args.client
        sys.exit(asyncio.run(client(int(port), int(seed), float(delay))))
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    times: dict[str, list[float]] = {"plain": [], "private": []}
    for k in range(args.runs):
        for name in (("plain", "private") if k % 2 == 0 else ("private", "plain")):
            times[name].append(asyncio.run(one_round(args.variant, name == "private", k, args.delay,
                                                      args.headless)))
    out: dict[str, object] = {"variant": args.variant, "runs": args.runs, "bot_delay_s": args.delay,
                              "host": ("dedicated, 5 participants" if args.headless
                                       else "plays a seat, 4 participants"),
                              "load": round(os.getloadavg()[0], 2), "cores": cores}
    for name, ts in times.items():
        marks = PHASES.get(name, [])
        out[name] = {"median_s": round(statistics.median(ts), 3),
                     "p90_s": round(percentile(ts, 0.9), 3), "runs_s": [round(t, 3) for t in ts],
                     "median_dealt_s": round(statistics.median(x.get("dealt", 0) for x in marks), 3),
                     "median_round_over_s": round(statistics.median(x["ended"] for x in marks), 3),
                     "median_cpu_s": round(statistics.median(CPU[name]), 3),
                     "median_host_process_cpu_s": round(statistics.median(HOST_CPU[name]), 3)}
    out["ratio_of_medians"] = round(
        statistics.median(times["private"]) / statistics.median(times["plain"]), 2)
    extra_cpu = statistics.median(CPU["private"]) - statistics.median(CPU["plain"])
    plain = statistics.median(times["plain"])
    out["extra_cpu_s"] = round(extra_cpu, 3)
    out["cpu_floor_ratio"] = round((plain + extra_cpu / cores) / plain, 2)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
