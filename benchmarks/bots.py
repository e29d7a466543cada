"""Benchmark: per-decision time of each bot level, in every variant (process time).

Heads-up matches of ``expert`` against each opponent (``expert_v3``, ``expert_v2``,
``expert_v1``, ``conceal``, ``moyen``) and of ``moyen`` against ``debutant`` are played per variant; every
`choose` call of the measured bots is timed with `time.process_time` (CPU time of this
process, so other load on the machine does not inflate it). Targets: ``expert``
median <= 50 ms and p99 <= 250 ms per decision; ``moyen`` as fast as before
(median ~0.1 ms, p99 ~1 ms).

Prints one JSON object: per level, overall and per variant, median / p99 / max in ms
and the number of decisions.

    python -m benchmarks.bots [--matches 4] [--variants rami,classique,multi,500,40] [--search]

``--search`` switches on the expert's determinized searches (off by default, see
docs/bots.md) in every variant they apply to, to time them: the end-game discard
search in ``40``, the race searches (draw and discard) in ``rami``, the ``500``
draw and discard search (`Expert.pimc_variants`) and the solo race search in
``classique`` (`Expert.race_variants_mc`).
"""

from __future__ import annotations

import argparse
import json
import time

from rami_lan.bots import make_bot
from rami_lan.table.selfplay import play_match

VARIANTS = ("rami", "classique", "multi", "500", "40")
PAIRS = (
    ("expert", "expert_v3"), ("expert", "expert_v2"), ("expert", "expert_v1"), ("expert", "conceal"),
    ("expert", "moyen"), ("moyen", "debutant"),
)


def _stats(ms: list[float]) -> dict[str, float | int]:
    if not ms:
        return {"decisions": 0}
    s = sorted(ms)
    return {
        "decisions": len(s),
        "median_ms": round(s[len(s) // 2], 3),
        "p99_ms": round(s[min(len(s) - 1, int(0.99 * len(s)))], 3),
        "max_ms": round(s[-1], 3),
    }


SEARCH = {
    "search_variants": frozenset({"40"}),
    "race_variants": frozenset({"rami"}),
    "race_draw_variants": frozenset({"rami"}),
    "pimc_variants": frozenset({"500"}),
    "race_variants_mc": frozenset({"classique"}),
}


def run(variants: list[str], matches: int, search: bool = False) -> dict:
    from rami_lan.bots.expert import Expert

    saved = {k: getattr(Expert, k) for k in SEARCH}
    if search:
        for k, val in SEARCH.items():
            setattr(Expert, k, val)
    try:
        out = _run(variants, matches)
    finally:
        for k, val in saved.items():
            setattr(Expert, k, val)
    out["search"] = search
    return out


def _run(variants: list[str], matches: int) -> dict:
    times: dict[str, dict[str, list[float]]] = {}
    for variant in variants:
        for a, b in PAIRS:
            for k in range(matches):
                levels = (a, b) if k % 2 == 0 else (b, a)  # seat-swapped
                bots = [make_bot(lv, s, 100 * k + s) for s, lv in enumerate(levels)]
                res = play_match(variant, bots, seed=k // 2, clock=time.process_time)
                for s, lv in enumerate(levels):
                    if lv in ("expert", "moyen"):
                        per = times.setdefault(lv, {}).setdefault(variant, [])
                        per.extend(1000 * t for t in res.decision_times[s])
    out: dict = {"matches_per_pairing": matches, "variants": variants, "clock": "process_time"}
    for lv, per in times.items():
        every = [t for ts in per.values() for t in ts]
        out[lv] = {"all": _stats(every), **{v: _stats(ts) for v, ts in per.items()}}
    out["targets"] = {"expert": {"median_ms": 50, "p99_ms": 250}}
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--matches", type=int, default=4, help="matches per pairing and variant")
    p.add_argument("--variants", default=",".join(VARIANTS))
    p.add_argument("--search", action="store_true", help="switch on the expert's searches")
    args = p.parse_args()
    variants = [v for v in args.variants.split(",") if v]
    print(json.dumps(run(variants, args.matches, args.search), sort_keys=True))


if __name__ == "__main__":
    main()
