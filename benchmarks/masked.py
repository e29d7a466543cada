"""Cost of the masked deck (private dealing), in memory, 4 participants, 110-card rami deck.

1. ``shuffle``: the two-pass masked shuffle of the 110-card deck by 4 participants.
   ``total`` is every participant's work done one after the other in this process
   (compute, msgpack, strict parsing with a group check of every received point);
   ``critical_path`` is what a table waits for over a network, where the others parse
   in parallel: the work of each participant whose step the next one waits for, plus
   the last one to finish parsing. Target: <= 300 ms in total.
2. ``draw``: one card drawn from the stock. ``added_latency`` is what the drawer waits
   for beyond the draw event: the slowest releaser's key release plus the drawer's
   parsing, commitment checks and unmasking of the three keys. Target: p99 <= 10 ms.
   ``all_participants`` is the sum of everybody's work for that draw.
3. ``reveal``: a discard: the holder publishes the keys; each other participant
   checks them and unmasks (per receiving participant).
4. ``audit``: at round end, one participant recomputes every deck (the round's deck
   and one reshuffle of 40 cards) from the 4 publications. Target: <= 1 s.
5. ``round``: everything the masked deck adds to one round (shuffle, deal, 53 draws
   and discards, a reshuffle of 40 cards, the audit), all 4 participants' work summed
   (msgpack and the in-memory relay included).

Prints JSON. ``python -m benchmarks.masked [--rounds N] [--cpu]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

from benchmarks.stats import percentile
from rami_lan.masked.memory import MemoryTable
from rami_lan.masked.messages import LockPass, MaskPass
from rami_lan.masked.session import AuditComplete, Participant, Result

SEATS = (0, 1, 2, 3)
N_CARDS = 110
HAND = 14
DEAL_ORDER = (1, 2, 3, 0)
#: The clock of every measure: wall time, or this process's CPU time (``--cpu``), which
#: a machine shared with other jobs inflates much less.
CLOCK = time.perf_counter


def _summary(name: str, values: list[float], **extra: Any) -> dict[str, Any]:
    ms = [v * 1000 for v in values]
    return {
        "name": name,
        "unit": "ms",
        "count": len(ms),
        "median": round(statistics.median(ms), 3),
        "p99": round(percentile(ms, 0.99), 3),
        "max": round(max(ms), 3),
        **extra,
    }


class Timed(Participant):
    """A participant that logs how long each call took and what it produced."""

    log: list[tuple[str, float, Result]]

    def _timed(self, name: str, call: Any, *args: Any) -> Result:
        start = CLOCK()
        result = call(*args)
        self.log.append((name, CLOCK() - start, result))
        return result

    def start_deck(self, *args: Any) -> Result:  # type: ignore[override]
        return self._timed("start", super().start_deck, *args)

    def assign(self, *args: Any) -> Result:  # type: ignore[override]
        return self._timed("assign", super().assign, *args)

    def reveal(self, *args: Any) -> Result:  # type: ignore[override]
        return self._timed("reveal", super().reveal, *args)

    def receive_plain(self, plain: object) -> Result:
        return self._timed("receive", super().receive_plain, plain)

    def publish_audit(self) -> Result:
        return self._timed("publish", super().publish_audit)


def _new_table(tag: bytes) -> tuple[MemoryTable, dict[int, Timed]]:
    table = MemoryTable(tag, SEATS, 0, N_CARDS, kinds={s: Timed for s in SEATS})
    timed = {}
    for seat in SEATS:
        p = table.participants[seat]
        assert isinstance(p, Timed)
        p.log = []
        timed[seat] = p
    return table, timed


def _drain(timed: dict[int, Timed]) -> dict[int, list[tuple[str, float, Result]]]:
    out = {seat: p.log[:] for seat, p in timed.items()}
    for p in timed.values():
        p.log.clear()
    return out


def _emits_step(result: Result) -> bool:
    return any(isinstance(o.message, MaskPass | LockPass) for o in result.outgoing)


def one_round(tag: bytes) -> dict[str, list[float]]:
    table, timed = _new_table(tag)
    keys = ("total", "critical", "draw", "draw_all", "reveal", "audit", "round")
    out: dict[str, list[float]] = {k: [] for k in keys}
    round_start = start = CLOCK()
    table.start_deck(0, range(N_CARDS))
    out["total"].append(CLOCK() - start)
    logs = _drain(timed)
    stepping = sum(d for log in logs.values() for _, d, r in log if _emits_step(r))
    last_parse = max(log[-1][1] for log in logs.values())
    out["critical"].append(stepping + last_parse)

    hands: dict[int, list[int]] = {s: [] for s in SEATS}
    for k in range(HAND):
        for p, seat in enumerate(DEAL_ORDER):
            table.assign(0, k * 4 + p, seat)
            hands[seat].append(k * 4 + p)
    table.assign(0, 4 * HAND, None)
    _drain(timed)
    pile = [4 * HAND]
    turn = 0
    for position in range(4 * HAND + 1, N_CARDS):
        seat = DEAL_ORDER[turn % 4]
        turn += 1
        table.assign(0, position, seat)
        logs = _drain(timed)
        release = max(d for s, log in logs.items() if s != seat for name, d, _ in log if name == "assign")
        drawer = sum(d for _, d, _ in logs[seat])
        out["draw"].append(release + drawer)
        out["draw_all"].append(sum(d for log in logs.values() for _, d, _ in log))
        hands[seat].append(position)
        discard = hands[seat].pop(0)
        table.reveal(seat, 0, discard)
        pile.append(discard)
        logs = _drain(timed)
        out["reveal"] += [d for s, log in logs.items() if s != seat for n, d, _ in log if n == "receive"]
    back = [table.participants[0].card_at(0, j) for j in pile[:-1]][:40]
    table.start_deck(1, back)  # type: ignore[arg-type]
    _drain(timed)
    table.audit()
    logs = _drain(timed)
    for log in logs.values():
        for _, d, result in log:
            if any(isinstance(e, AuditComplete) for e in result.events):
                out["audit"].append(d)
    out["round"].append(CLOCK() - round_start)
    assert all(table.participants[s].report.fair for s in SEATS)  # type: ignore[union-attr]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cpu", action="store_true", help="measure process CPU time, not wall time")
    args = parser.parse_args()
    global CLOCK
    if args.cpu:
        CLOCK = time.process_time
    one_round(b"warm-up")
    samples: dict[str, list[float]] = {}
    for i in range(args.rounds):
        for key, values in one_round(b"bench" + bytes([i])).items():
            samples.setdefault(key, []).extend(values)
    out = {
        "participants": len(SEATS),
        "cards": N_CARDS,
        "rounds": args.rounds,
        "clock": "process_cpu" if args.cpu else "wall",
        "results": [
            _summary("shuffle.total", samples["total"], target_ms=300),
            _summary("shuffle.critical_path", samples["critical"]),
            _summary("draw.added_latency", samples["draw"], target_p99_ms=10),
            _summary("draw.all_participants", samples["draw_all"]),
            _summary("reveal.per_receiver", samples["reveal"]),
            _summary("audit.per_participant", samples["audit"], target_ms=1000),
            _summary("round.all_participants", samples["round"]),
        ],
    }
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
