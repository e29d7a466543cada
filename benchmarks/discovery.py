"""Benchmark: how soon a lobby lists tables, beside another mDNS stack, on loopback.

Every run has two tables (each with its own zeroconf instance, as two host processes
would), a lobby (``TableBrowser``) and an **independent responder** (a third zeroconf
instance bound to 127.0.0.1:5353 with a service of its own, standing for avahi-daemon
or another rami-lan). Two orders are measured:

* ``lobby_first``: the lobby runs, then both tables start; time from each table's
  ``start()`` to the lobby reporting it added (resolved and parsed);
* ``tables_first``: both tables run, then a fresh lobby starts (as ``rami-lan list``
  or ``join NAME`` does); time from the lobby's start to each table listed.

Baseline in the same run: the ``tables_first`` order with python-zeroconf's default
first question (QU, unicast answers), which the kernel hands to only one of the
sockets bound to port 5353 (``--baseline-count`` runs; 0 to skip).

Prints one JSON object; times in ms. Target: p99 <= 500 ms in both orders (20 runs).

    /work/rt python -m benchmarks.discovery [--count 20] [--warmup 2] [--baseline-count 5]
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
from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

from rami_lan.net import mdns
from rami_lan.net.discovery import TableAd, TableAdvertiser, TableBrowser, TableEvent

LOOPBACK: dict[str, Any] = {"interfaces": ["127.0.0.1"], "ip_version": IPVersion.V4Only}
TARGET_MS = 500.0
SEEN_TIMEOUT_S = 6.0


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
        "n": len(values),
    }


def _ad(run_id: str, i: int, k: int) -> TableAd:
    return TableAd(table_id=secrets.token_hex(8), name=f"Bench {run_id} {i}-{k}", host="bench",
                   variant="rami", seats_taken=1, seats_total=4, point_limit=100)


async def one_run(run_id: str, i: int, lobby_first: bool) -> tuple[list[float], int]:
    """Times (ms) until each of the two tables is listed, and how many were missed."""
    ads = [_ad(run_id, i, k) for k in range(2)]
    seen: dict[str, int] = {}

    def on_change(event: TableEvent) -> None:
        seen.setdefault(event.table.table_id, time.perf_counter_ns())

    advertisers = [TableAdvertiser(ad, 41000 + k, **LOOPBACK) for k, ad in enumerate(ads)]
    browser = TableBrowser(**LOOPBACK, on_change=on_change)
    starts: dict[str, int] = {}
    try:
        if lobby_first:
            await browser.start()
            await asyncio.sleep(0.2)  # the lobby has been open a moment
            for ad, adv in zip(ads, advertisers, strict=True):
                starts[ad.table_id] = time.perf_counter_ns()
                await adv.start()
        else:
            for adv in advertisers:
                await adv.start()
            await asyncio.sleep(1.5)  # the tables have been open a while (announcements over)
            t0 = time.perf_counter_ns()
            starts = {ad.table_id: t0 for ad in ads}
            await browser.start()
        deadline = time.monotonic() + SEEN_TIMEOUT_S
        while len(seen) < len(ads) and time.monotonic() < deadline:
            await asyncio.sleep(0.005)
    finally:
        await browser.stop()
        for adv in advertisers:
            await adv.stop()
    times = [(seen[a.table_id] - starts[a.table_id]) / 1e6 for a in ads if a.table_id in seen]
    return times, len(ads) - len(times)


async def measure(count: int, warmup: int, baseline_count: int) -> dict[str, Any]:
    run_id = secrets.token_hex(3)
    other = AsyncZeroconf(**LOOPBACK)  # the independent responder on port 5353
    noise = AsyncServiceInfo("_http._tcp.local.", f"noise {run_id}._http._tcp.local.", port=8080,
                             properties={"x": "1"}, server="noise.local.",
                             parsed_addresses=["127.0.0.1"])
    await other.async_register_service(noise, cooperating_responders=True)
    result: dict[str, Any] = {"benchmark": "discovery.listed_beside_another_mdns_stack",
                              "unit": "ms", "tables_per_run": 2}
    try:
        for order, lobby_first in (("lobby_first", True), ("tables_first", False)):
            times: list[float] = []
            missed = 0
            for i in range(warmup + count):
                got, lost = await one_run(run_id, i, lobby_first)
                if i >= warmup:
                    times += got
                    missed += lost
            result[order] = {**summary(times), "missed": missed}
        if baseline_count:
            saved = mdns.QUESTION_TYPE
            mdns.QUESTION_TYPE = None  # type: ignore[misc]  # zeroconf's default: QU first
            try:
                base: list[float] = []
                base_missed = 0
                for i in range(baseline_count):
                    got, lost = await one_run(run_id, 1000 + i, False)
                    base += got
                    base_missed += lost
            finally:
                mdns.QUESTION_TYPE = saved  # type: ignore[misc]
            result["baseline_qu_tables_first"] = {**summary(base), "missed": base_missed}
            if base and result["tables_first"].get("median"):
                result["ratio_median_to_baseline"] = round(
                    result["tables_first"]["median"] / statistics.median(base), 3)
    finally:
        await other.async_close()
    result["target_p99"] = TARGET_MS
    result["meets_target"] = all(
        result[o].get("p99", 1e9) <= TARGET_MS and result[o]["missed"] == 0
        for o in ("lobby_first", "tables_first"))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--baseline-count", type=int, default=5)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(measure(args.count, args.warmup, args.baseline_count))))


if __name__ == "__main__":
    main()
