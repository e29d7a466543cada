"""Cost of the hostile inputs of issue 13, after hardening.

1. ``big_hello``: the host session receiving one unseated ``hello`` of ~117 KB with 16,000
   unknown keys (decode, schema check, the error text and the ``refused`` reply); before
   the fix the error text alone was a 149 KB join of every key.
2. ``log_flood``: 10,000 ``protocol error from %s: %s`` lines with that error through the
   real log handler (clip, flood filter, rotating file): time per line and bytes written.
3. ``admission``: ``AdmissionLimiter.begin`` + ``end`` for a flood from 1,000 addresses.
4. ``journal_open``: opening (and authenticating) a journal of 1,000 action records.

Prints JSON. ``python -m benchmarks.harden [--n N]``.
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack

from rami_lan import logsetup
from rami_lan.net import guard as G
from rami_lan.net import protocol as P
from rami_lan.net.journal import Journal


def _stats(samples_ms: list[float]) -> dict[str, float]:
    samples_ms = sorted(samples_ms)
    p99 = samples_ms[min(len(samples_ms) - 1, int(len(samples_ms) * 0.99))]
    return {"median_ms": round(statistics.median(samples_ms), 3), "p99_ms": round(p99, 3)}


def _time(fn: Callable[[], Any], n: int) -> list[float]:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


def big_hello_frame() -> bytes:
    wire: dict[str, Any] = {"k": "hello", "v": 1, "nick": "n", "lang": "en"}
    for i in range(16_000):
        wire[f"u{i}"] = None
    body = msgpack.packb(wire, use_bin_type=True)
    return P._HEADER.pack(len(body)) + body


def bench_big_hello(n: int) -> dict[str, Any]:
    frame = big_hello_frame()
    texts: list[int] = []

    def once() -> None:
        session = P.Session("host")
        try:
            session.receive_data(frame)
        except P.RemoteProtocolError as exc:
            reply = session.error_reply(exc)
            texts.append(len(str(exc)) + len(getattr(reply, "message", "")))

    return {"frame_bytes": len(frame), **_stats(_time(once, n)), "error_chars": max(texts)}


def bench_log_flood(n: int) -> dict[str, Any]:
    session = P.Session("host")
    try:
        session.receive_data(big_hello_frame())
    except P.RemoteProtocolError as exc:
        error = exc
    with tempfile.TemporaryDirectory() as tmp:
        handler = logsetup.file_handler(Path(tmp))
        log = logging.getLogger("rami_lan.bench_harden")
        log.propagate = False
        log.setLevel(logging.INFO)
        log.addHandler(handler)
        try:
            samples = _time(lambda: log.info("protocol error from %s: %s", "('10.0.0.9', 1)",
                                             error), n)
        finally:
            log.removeHandler(handler)
            handler.close()
        written = sum(p.stat().st_size for p in Path(tmp).iterdir())
    return {"lines": n, **_stats(samples), "bytes_written": written}


def bench_admission(n: int) -> dict[str, Any]:
    gate = G.AdmissionLimiter(G.AdmissionConfig())
    now = [0.0]

    def once() -> None:
        now[0] += 0.001
        r = gate.begin(f"10.0.{int(now[0] * 1000) % 1000 // 250}.{int(now[0] * 1000) % 250}",
                       G.KIND_CODE, now[0])
        if isinstance(r, G.Ticket):
            gate.end(r, ok=False, now=now[0])

    return {"attempts": n, **_stats(_time(once, n)), "refusals": dict(gate.refusals)}


def bench_journal_open(n: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.journal"
        with Journal.open(path, sync=False) as journal:
            for i in range(1000):
                journal.append("action", {"seq": i, "seat": i % 4, "action": {"kind": "draw_stock"}})

        def once() -> None:
            Journal.open(path, sync=False).close()

        return {"records": 1000, **_stats(_time(once, n))}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=30)
    args = parser.parse_args()
    print(json.dumps({
        "big_hello": bench_big_hello(args.n),
        "log_flood": bench_log_flood(10_000),
        "admission": bench_admission(10_000),
        "journal_open": bench_journal_open(max(5, args.n // 3)),
    }, indent=1))


if __name__ == "__main__":
    main()
