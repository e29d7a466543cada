"""Benchmark: from advertising a table to a running lobby seeing it, on loopback.

A lobby (TableBrowser on 127.0.0.1, IPv4 only) is started first. Then, for each of
``--count`` distinct tables, the clock starts just before ``TableAdvertiser.start()``
(the register call) and stops when the lobby's ``on_change`` reports the table as
added (resolved and parsed). Baseline in the same run: when a bare zeroconf browser on
the lobby's instance sees the PTR record (no resolve, no parsing).

Prints one JSON object; times in ms. Target: p99 <= 500 ms.

    cd /work/main && python -m benchmarks.discovery [--count 20] [--warmup 3] [--probe]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import statistics
import time
from typing import Any

from zeroconf import IPVersion, ServiceStateChange, Zeroconf
from zeroconf.asyncio import AsyncServiceBrowser, AsyncZeroconf

from rami_lan.net.discovery import (
    SERVICE_TYPE,
    TableAd,
    TableAdvertiser,
    TableBrowser,
    TableEvent,
    TableEventKind,
)

LOOPBACK: dict[str, Any] = {"interfaces": ["127.0.0.1"], "ip_version": IPVersion.V4Only}
TARGET_MS = 500.0
SEEN_TIMEOUT_S = 5.0


def percentile(values: list[float], pct: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    rank = max(1, round(pct / 100 * len(ordered) + 0.5 - 1e-9))
    return ordered[min(rank, len(ordered)) - 1]


def summary(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    return {
        "median": round(statistics.median(values), 3),
        "p99": round(percentile(values, 99), 3),
        "max": round(max(values), 3),
        "min": round(min(values), 3),
    }


async def measure(count: int, warmup: int, probe: bool) -> dict[str, Any]:
    added_ns: dict[str, int] = {}  # table_id -> when the lobby reported it added
    removed: set[str] = set()
    ptr_ns: dict[str, int] = {}  # service name -> when zeroconf saw the PTR
    changed = asyncio.Event()

    def on_change(event: TableEvent) -> None:
        if event.kind is TableEventKind.ADDED:
            added_ns.setdefault(event.table.table_id, time.perf_counter_ns())
        elif event.kind is TableEventKind.REMOVED:
            removed.add(event.table.table_id)
        changed.set()

    def on_ptr(
        zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange
    ) -> None:
        if state_change is ServiceStateChange.Added:
            ptr_ns.setdefault(name, time.perf_counter_ns())

    async def wait_for(predicate: Any) -> bool:
        deadline = time.monotonic() + SEEN_TIMEOUT_S
        while not predicate():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            changed.clear()
            try:
                await asyncio.wait_for(changed.wait(), min(remaining, 0.05))
            except TimeoutError:
                pass
        return True

    seen_ms: list[float] = []
    baseline_ms: list[float] = []
    missed = 0
    run_id = secrets.token_hex(3)
    lobby_zc = AsyncZeroconf(**LOOPBACK)
    host_zc = AsyncZeroconf(**LOOPBACK)
    try:
        raw = AsyncServiceBrowser(lobby_zc.zeroconf, SERVICE_TYPE, handlers=[on_ptr])
        async with TableBrowser(zeroconf=lobby_zc, on_change=on_change, **LOOPBACK):
            await asyncio.sleep(0.2)  # let the lobby's first queries go out
            for i in range(warmup + count):
                ad = TableAd(
                    table_id=secrets.token_hex(8),
                    name=f"Bench {run_id} {i}",
                    host="bench",
                    variant="rami",
                    seats_taken=1,
                    seats_total=4,
                    point_limit=100,
                )
                adv = TableAdvertiser(ad, 40000 + i, zeroconf=host_zc, probe=probe, **LOOPBACK)
                start_ns = time.perf_counter_ns()
                await adv.start()
                ok = await wait_for(lambda ad=ad: ad.table_id in added_ns)
                if i >= warmup:
                    if ok:
                        seen_ms.append((added_ns[ad.table_id] - start_ns) / 1e6)
                        if adv.service_name in ptr_ns:
                            baseline_ms.append((ptr_ns[adv.service_name] - start_ns) / 1e6)
                    else:
                        missed += 1
                await adv.stop()
                await wait_for(lambda ad=ad: ad.table_id in removed or ad.table_id not in added_ns)
        await raw.async_cancel()
    finally:
        await host_zc.async_close()
        await lobby_zc.async_close()

    seen = summary(seen_ms)
    base = summary(baseline_ms)
    result: dict[str, Any] = {
        "benchmark": "discovery.advertise_to_lobby_seen",
        "unit": "ms",
        "probe": probe,
        "count": len(seen_ms),
        "missed": missed,
        "warmup": warmup,
        **seen,
        "baseline_zeroconf_ptr_seen": base,
        "ratio_median_to_baseline": (
            round(seen["median"] / base["median"], 3) if seen and base and base["median"] else None
        ),
        "target_p99": TARGET_MS,
        "meets_target": bool(seen) and missed == 0 and seen["p99"] <= TARGET_MS,
    }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument(
        "--probe", action="store_true", help="RFC 6762 probing before announcing (slower)"
    )
    args = parser.parse_args()
    print(json.dumps(asyncio.run(measure(args.count, args.warmup, args.probe))))


if __name__ == "__main__":
    main()
