"""Benchmark: headless self-play speed and decision times, engine cost apart.

Four ``moyen`` bots play ``rami`` rounds (single-round matches, limit 1) through the
table machine (`rami_lan.table.selfplay`) on one core; target >= 200 rounds per second.
Speed is measured in CPU time of this process (`time.process_time`), so other load on
a shared machine inflates it less than wall time; the wall-clock figure is printed too.
The same rounds are played ``--runs`` times (after a short warm-up) and each run's
rate is listed with their median. The time spent inside the engine (`apply`, which
validates every action) is measured apart from the bots' decisions (both with the
wall clock, `time.perf_counter`, which costs less to read per move), and
``--profile`` adds the hottest functions.

Prints one JSON object.

    python -m benchmarks.selfplay [--rounds 200] [--runs 3] [--variant rami] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import statistics
import time

from benchmarks.stats import percentile
from rami_lan.bots import make_bot
from rami_lan.core.match import MatchOptions
from rami_lan.core.variants import get_variant
from rami_lan.table.selfplay import play_match

TARGET_ROUNDS_PER_SECOND = 200


def run(variant: str, rounds: int, level: str, players: int) -> dict:
    v = get_variant(variant)
    opts = MatchOptions(limit=1) if v.match_rule == "elimination" else None
    if v.match_rule == "target":
        opts = MatchOptions(quick=True)
    done = 0
    engine = 0.0
    decisions: list[float] = []
    seed = 0
    t0, c0 = time.perf_counter(), time.process_time()
    while done < rounds:
        bots = [make_bot(level, s, seed * 10 + s) for s in range(players)]
        res = play_match(variant, bots, seed, opts)
        done += res.rounds
        engine += res.engine_time
        for ts in res.decision_times:
            decisions.extend(ts)
        seed += 1
    cpu = time.process_time() - c0
    elapsed = time.perf_counter() - t0
    ms = [d * 1000 for d in decisions]
    return {
        "rounds": done,
        "cpu_s": round(cpu, 3),
        "elapsed_s": round(elapsed, 3),
        "rounds_per_second": round(done / cpu, 2),
        "rounds_per_wall_second": round(done / elapsed, 2),
        "engine_share": round(engine / elapsed, 3),
        "decisions": len(ms),
        "decision_median_ms": round(statistics.median(ms), 3),
        "decision_p99_ms": round(percentile(ms, 0.99), 3),
        "decision_max_ms": round(max(ms), 3),
    }


def profile(variant: str, rounds: int, level: str, players: int, top: int = 12) -> list[str]:
    prof = cProfile.Profile()
    prof.enable()
    run(variant, rounds, level, players)
    prof.disable()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(top)
    lines = [ln.strip() for ln in buf.getvalue().splitlines() if "(" in ln and "/" in ln]
    return lines[:top]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--variant", default="rami")
    p.add_argument("--rounds", type=int, default=200, help="rounds per run")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--level", default="moyen")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--profile", action="store_true", help="add the hottest functions")
    args = p.parse_args()
    run(args.variant, min(20, args.rounds), args.level, args.players)  # warm-up
    runs = [run(args.variant, args.rounds, args.level, args.players) for _ in range(max(1, args.runs))]
    rates = [r["rounds_per_second"] for r in runs]
    best = max(runs, key=lambda r: r["rounds_per_second"])
    out = {
        "variant": args.variant,
        "level": args.level,
        "players": args.players,
        "clock": "process_time",
        "runs_rounds_per_second": rates,
        "rounds_per_second": statistics.median(rates),
        "target_rounds_per_second": TARGET_ROUNDS_PER_SECOND,
        "best_run": best,
    }
    if args.profile:
        out["profile"] = profile(args.variant, max(5, args.rounds // 4), args.level, args.players)
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
