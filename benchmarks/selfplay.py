"""Benchmark: headless self-play speed and decision times, engine cost apart.

Four ``moyen`` bots play ``rami`` rounds (single-round matches, limit 1) on one core;
target >= 100 rounds per second. The time spent inside the engine (`apply`, which
validates every action) is measured apart from the bots' decisions, and a profile of
the hottest functions is included so engine costs can be reported.

Prints one JSON object.

    cd /work/main && python -m benchmarks.selfplay [--rounds 40] [--variant rami]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import statistics
import time

from rami_lan.bots import make_bot
from rami_lan.core.match import MatchOptions
from rami_lan.core.variants import get_variant
from rami_lan.table.selfplay import play_match


def run(variant: str, rounds: int, level: str, players: int) -> dict:
    v = get_variant(variant)
    opts = MatchOptions(limit=1) if v.match_rule == "elimination" else None
    if v.match_rule == "target":
        opts = MatchOptions(quick=True)
    done = 0
    engine = 0.0
    decisions: list[float] = []
    seed = 0
    t0 = time.perf_counter()
    while done < rounds:
        bots = [make_bot(level, s, seed * 10 + s) for s in range(players)]
        res = play_match(variant, bots, seed, opts)
        done += res.rounds
        engine += res.engine_time
        for ts in res.decision_times:
            decisions.extend(ts)
        seed += 1
    elapsed = time.perf_counter() - t0
    decisions.sort()
    ms = [d * 1000 for d in decisions]
    return {
        "variant": variant,
        "level": level,
        "players": players,
        "rounds": done,
        "elapsed_s": round(elapsed, 3),
        "rounds_per_second": round(done / elapsed, 2),
        "engine_share": round(engine / elapsed, 3),
        "decisions": len(ms),
        "decision_median_ms": round(statistics.median(ms), 3),
        "decision_p99_ms": round(ms[min(len(ms) - 1, int(0.99 * len(ms)))], 3),
        "decision_max_ms": round(ms[-1], 3),
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
    p.add_argument("--rounds", type=int, default=40)
    p.add_argument("--level", default="moyen")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--profile", action="store_true", help="add the hottest functions")
    args = p.parse_args()
    out = run(args.variant, args.rounds, args.level, args.players)
    out["target_rounds_per_second"] = 100
    if args.profile:
        out["profile"] = profile(args.variant, max(5, args.rounds // 4), args.level, args.players)
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
