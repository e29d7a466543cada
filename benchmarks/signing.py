"""Cost of signed masked messages and the host's receipts (private dealing).

Per message kind, in this process: ``sign`` (the author: canonical encoding and an
Ed25519 signature), ``verify`` (a receiver: canonical encoding and the check) and, for
the host, ``receipt`` (its signed receipt for a message it takes). The messages are
those of a 4-participant 110-card ``rami`` round (`rami_lan.masked.memory`): a mask
pass (110 points), a lock pass (110 points and commitments), a key release, a reveal.
``round_estimate_ms`` multiplies the medians by the counts of one round (the others'
shuffle steps, about 130 key messages received and 100 signed by a client, about 400
verified and receipted by the host), to compare with the round's masked-deck work
(docs/masked_deck.md: about 300 ms of CPU for all four participants).

Prints JSON. ``python -m benchmarks.signing [--n N]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

import msgpack

from rami_lan.masked.group import HashRandom
from rami_lan.masked.messages import CardReveal, KeyRelease, LockPass, MaskedMessage, MaskPass
from rami_lan.masked.session import Participant
from rami_lan.masked.signing import Roster, SeatKey, Signing
from rami_lan.table.receipts import receipt_for

TAG = b"rami-lan/v1" + bytes(16) + (1).to_bytes(4, "big") + (1).to_bytes(4, "big")
SEATS = (0, 1, 2, 3)


def _messages() -> tuple[dict[str, MaskedMessage], Roster, dict[int, SeatKey]]:
    keys = {s: SeatKey(bytes([s + 1]) * 32) for s in SEATS}
    roster = Roster(TAG, 3, {s: k.public for s, k in keys.items()})
    ps = {s: Participant(TAG, s, 3, 110, HashRandom(bytes([s]))) for s in SEATS}
    for s in SEATS:
        ps[s].sign_with(Signing(roster, keys[s]))
    out: dict[str, MaskedMessage] = {}
    pending = [o for s in SEATS for o in ps[s].start_deck(0, range(110), SEATS).outgoing]
    while pending:
        m = pending.pop(0).message
        out.setdefault(m.KIND, m)
        for s in SEATS:
            if s != m.seat:
                pending += ps[s].receive(m).outgoing
    for s in SEATS:
        for o in ps[s].assign(0, 0, 1).outgoing:
            out.setdefault(o.message.KIND, o.message)
    key = out[KeyRelease.KIND]
    assert isinstance(key, KeyRelease)
    reveal = CardReveal(0, 1, 0, tuple((s, key.key) for s in SEATS), TAG, 1)
    out[CardReveal.KIND] = CardReveal(0, 1, 0, reveal.keys, TAG, 1,
                                      Signing(roster, keys[1]).sign(reveal.to_plain()))
    return ({k: out[k] for k in (MaskPass.KIND, LockPass.KIND, KeyRelease.KIND, CardReveal.KIND)},
            roster, keys)


def _time(fn: Callable[[], Any], n: int) -> dict[str, float]:
    samples = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    samples.sort()
    return {"median_ms": round(statistics.median(samples), 4),
            "p99_ms": round(samples[int(0.99 * (n - 1))], 4)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=300)
    args = ap.parse_args()
    messages, roster, keys = _messages()
    author = {k: Signing(roster, keys[m.seat]) for k, m in messages.items()}
    host = Signing(roster, keys[3])
    reader = Signing(roster, keys[0])
    rows: dict[str, Any] = {}
    for kind, m in messages.items():
        plain = m.to_plain()
        rows[kind] = {
            "bytes": len(msgpack.packb(plain, use_bin_type=True)),
            "sign": _time(lambda m=m, kind=kind: author[kind].sign(m.to_plain()), args.n),
            "verify": _time(lambda m=m: reader.valid(m.seat, m.to_plain()), args.n),
            "receipt": _time(lambda m=m: receipt_for(host, m.seat, m, (0, 1, 2)), args.n),
        }
    steps = 8 * (rows[MaskPass.KIND]["verify"]["median_ms"] + rows[LockPass.KIND]["verify"]["median_ms"]) / 2
    key = rows[KeyRelease.KIND]
    print(json.dumps({"kinds": rows, "round_estimate_ms": {
        # a client: the 6 shuffle steps of the others and about 130 key messages it receives,
        # and it signs its 2 steps and about 100 key messages
        "a_client": round(steps * 6 / 8 + 130 * key["verify"]["median_ms"]
                          + 100 * key["sign"]["median_ms"], 1),
        # the host (the relay): every client's 6 steps and about 400 key messages verified
        # and receipted
        "the_host": round(steps * 6 / 8
                          + 400 * (key["verify"]["median_ms"] + key["receipt"]["median_ms"]), 1),
    }}, indent=2))

if __name__ == "__main__":
    main()
