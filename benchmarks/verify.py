"""Benchmark: a client's verification of one round of ``rami`` at the round's end.

Honest matches of ``rami`` (3 players, limit 100, ``moyen`` bots) are simulated without
sockets (`tests/verify_sim.py`); then, for every seat and every round, the clock
measures the feed of the round's ``round_secrets`` to that seat's `SeatVerifier`: the
commitment and seed checks, the deck from the seed and the **full replay** of the round
with the rules core, compared event by event with what the seat received. The online
checks during the round (a few microseconds per message) are reported apart, per round.
Times are the process's CPU time (``time.process_time``), so a loaded machine's
preemptions do not count; the wall-clock figures are printed too.

Prints one JSON object; times in ms. Target: p99 <= 5 ms per round at its end.

    cd /work/main && python -m benchmarks.verify [--matches 4] [--seats 3]
    cd /work/main && python -m benchmarks.verify --records   # whole files: see verify_records
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from rami_lan.bots import make_bot
from rami_lan.core.views import view_for
from rami_lan.table import verifier as V

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from verify_sim import simulate_match  # noqa: E402  (the test-only honest host)

TARGET_MS = 5.0


def _chooser(seed: int) -> Any:
    bots: dict[int, Any] = {}

    def choose(m: Any, seat: int) -> Any:
        bot = bots.get(seat)
        if bot is None:
            bot = bots[seat] = make_bot("moyen", seat, seed + seat)
        return bot.choose(view_for(m, seat), ())

    return choose


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=4)
    ap.add_argument("--seats", type=int, default=3)
    ap.add_argument("--records", action="store_true",
                    help="instead: `rami-lan verify` time and peak memory on whole record files, "
                         "the largest legal one and crafted oversized ones (benchmarks.verify_records)")
    args = ap.parse_args(argv)
    if args.records:
        from benchmarks.verify_records import main as records_main

        records_main([])
        return
    end_ms: list[float] = []
    end_wall: list[float] = []
    online_ms: list[float] = []
    rounds = 0
    for k in range(args.matches):
        sim = simulate_match("rami", args.seats, random.Random(k), _chooser(k), limit=100)
        rounds += sim.rounds
        for seat in range(args.seats):
            gc.collect()  # the simulation's garbage is not the verifier's
            v = V.SeatVerifier(sim.facts_for(seat))
            online = 0.0
            for item in sim.streams[seat]:
                t, c = time.perf_counter(), time.process_time()
                found = v.feed(item)
                dt = (time.process_time() - c) * 1000
                wall = (time.perf_counter() - t) * 1000
                if isinstance(item, V.SecretsSeen):
                    end_ms.append(dt)
                    end_wall.append(wall)
                    online_ms.append(online)
                    online = 0.0
                else:
                    online += dt
                if found:
                    raise SystemExit(f"an honest round was flagged: {found[0].text()}")
            assert all(r.status is V.Status.CHECKED for r in v.rounds())
    print(json.dumps({
        "benchmark": "verify", "variant": "rami", "seats": args.seats, "rounds": rounds,
        "samples": len(end_ms),
        "round_end_median_ms": round(statistics.median(end_ms), 3),
        "round_end_p99_ms": round(_pct(end_ms, 0.99), 3),
        "round_end_max_ms": round(max(end_ms), 3),
        "round_end_wall_median_ms": round(statistics.median(end_wall), 3),
        "round_end_wall_p99_ms": round(_pct(end_wall, 0.99), 3),
        "online_per_round_median_ms": round(statistics.median(online_ms), 3),
        "online_per_round_p99_ms": round(_pct(online_ms, 0.99), 3),
        "target_p99_ms": TARGET_MS,
        "ok": _pct(end_ms, 0.99) <= TARGET_MS,
    }))


if __name__ == "__main__":
    main()
