"""The long chaos run (issue 29 item 7): N seeds of `tests/chaos.py`, plain and private
tables, real ``rami-lan`` processes on 127.0.0.1 killed (``-9``), hung up (SIGHUP),
stopped (SIGSTOP longer than the move timer) and restarted (the host with
``--resume``) about ten times a match. Prints one JSON object: events by kind and by
kind:target, rounds played / void, matches finished, seats handed to the bot because
a restarted player could not regain its seat, and every failure (by the kind of the
last event before it, and in full per match).

    python -m benchmarks.chaos --seeds 20            # seeds 1..20, plain and private
    python -m benchmarks.chaos --seeds 5 --private   # private tables only
    python -m benchmarks.chaos --seed 7 --plain --keep /tmp/chaos7   # one match, kept
    python -m benchmarks.chaos --seeds 2 --across    # each participant in its own netns
    python -m benchmarks.chaos --summarize /tmp/runs  # sum up the result.json files kept

Run it with ``nice -n 15``; one match takes 30-150 s on 2 cores (a private match in which
a player is killed waits out the 60 s masked-deck deadline).
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from chaos import KINDS, TARGETS, ChaosConfig, ChaosResult, run_match  # noqa: E402


def summarize(matches: list[dict[str, Any]]) -> dict[str, Any]:
    """The counts of many matches (each `ChaosResult.counts()` with its ``events_list``,
    as ``result.json`` holds it)."""
    events: Counter[str] = Counter()
    by_target: Counter[str] = Counter()
    failures_by_kind: Counter[str] = Counter()
    failures_by_event: Counter[str] = Counter()
    problems_by_kind: Counter[str] = Counter()
    played = void = finished = handed = 0
    for c in matches:
        events.update(c["events"])
        by_target.update(c["events_by_target"])
        played += c["rounds_played"]
        void += c["rounds_void"]
        finished += int(c["finished"])
        handed += len(c["handed_to_bot"])
        if c["problems"]:
            listed = c.get("events_list") or []
            for k in {e["kind"] for e in listed} or {"none"}:
                failures_by_kind[k] += 1
            for k in {f"{e['kind']}:{e['target']}" for e in listed}:
                failures_by_event[k] += 1
            for p in c["problems"]:
                problems_by_kind[p.split(":")[0][:80]] += 1
    return {
        "matches": len(matches), "matches_finished": finished,
        "matches_failed": sum(1 for m in matches if m["problems"]),
        "events": dict(events), "events_by_target": dict(by_target),
        "rounds_played": played, "rounds_void": void, "seats_handed_to_bot": handed,
        "failed_matches_with_event_kind": dict(failures_by_kind),
        "failed_matches_with_event": dict(failures_by_event),
        "problems_by_kind": dict(problems_by_kind),
        "per_match": matches,
    }


def _counts(res: ChaosResult) -> dict[str, Any]:
    return {**res.counts(), "events_list": [e.to_plain() for e in res.events]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10, help="seeds 1..N (default 10)")
    ap.add_argument("--seed", type=int, action="append", help="this seed (repeatable)")
    kind = ap.add_mutually_exclusive_group()
    kind.add_argument("--plain", action="store_true", help="plain tables only")
    kind.add_argument("--private", action="store_true", help="private tables only")
    ap.add_argument("--events", type=int, default=10, help="events a match (default 10)")
    ap.add_argument("--kinds", default=",".join(KINDS), help="event kinds (kill,hup,stop)")
    ap.add_argument("--targets", default=",".join(TARGETS), help="targets (host,p1,p2)")
    ap.add_argument("--timer", type=int, default=1, help="move timer, seconds (default 1)")
    ap.add_argument("--across", action="store_true",
                    help="root: host and players in namespaces of their own on a bridge")
    ap.add_argument("--keep", type=Path, default=None, help="keep every match's files here")
    ap.add_argument("--summarize", type=Path, default=None,
                    help="no run: sum up the result.json files kept under this folder")
    args = ap.parse_args(argv)
    if args.summarize is not None:
        kept = [json.loads(p.read_text()) for p in sorted(args.summarize.glob("**/result.json"))]
        print(json.dumps(summarize(kept), indent=1))
        return 0
    seeds = args.seed or list(range(1, args.seeds + 1))
    privates = [False] if args.plain else [True] if args.private else [False, True]
    base = args.keep or Path(tempfile.mkdtemp(prefix="rami-chaos-"))
    results = []
    start = time.monotonic()

    def on_signal(signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")  # the driver's finally ends its processes

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    for seed in seeds:
        for private in privates:
            cfg = ChaosConfig(seed=seed, private=private, events=args.events, timer=args.timer,
                              kinds=tuple(args.kinds.split(",")), across=args.across,
                              targets=tuple(args.targets.split(",")))
            res = run_match(cfg, base / f"{seed}-{'private' if private else 'plain'}")
            results.append(res)
            c = res.counts()
            print(json.dumps({"seed": seed, "private": private, "finished": c["finished"],
                              "events": c["events"], "problems": len(c["problems"]),
                              "elapsed_s": c["elapsed_s"]}), file=sys.stderr, flush=True)
    out = summarize([_counts(r) for r in results])
    out["elapsed_s"] = round(time.monotonic() - start, 1)
    out["files"] = str(base) if args.keep else None
    print(json.dumps(out, indent=1, sort_keys=False))
    if args.keep is None:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
