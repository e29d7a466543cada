"""Headless matches between bots: the engine of `rami-lan simulate` and the benchmarks.

`play_match` deals every round from a seeded `random.Random` shuffle of the full deck
(and a 32-byte seed for reshuffles and the first dealer), gives each bot its own view
and the events redacted for its seat, asks the seats in a frapper window whether they
knock, and returns the winner with per-seat statistics. A bot's illegal action is a
bug and raises.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from rami_lan.bots.base import Bot
from rami_lan.core import actions as A
from rami_lan.core.cards import full_deck
from rami_lan.core.events import Event, RoundEnded
from rami_lan.core.match import MatchOptions, apply, new_match, start_round
from rami_lan.core.variants import get_variant
from rami_lan.core.views import view_for


@dataclass
class MatchResult:
    winner: int | None
    rounds: int
    round_winners: list[int | None]
    totals: tuple[int, ...]
    decision_times: list[list[float]] = field(default_factory=list)  # per seat, seconds
    engine_time: float = 0.0
    knocks: int = 0


def deal_seed(rng: random.Random, n_cards: int) -> tuple[list[int], bytes]:
    order = list(range(n_cards))
    rng.shuffle(order)
    return order, rng.randbytes(32)


def play_match(
    variant: str,
    bots: Sequence[Bot],
    seed: int,
    options: MatchOptions | None = None,
    max_rounds: int = 200,
    clock: Callable[[], float] = time.perf_counter,
) -> MatchResult:
    """Play one match between ``bots`` (seat i = bots[i]) from ``seed``."""
    v = get_variant(variant)
    n = len(bots)
    m = new_match(v, n, options)
    rng = random.Random(seed)
    deck = full_deck(v.n_decks, v.n_jokers)
    pending: list[list[Event]] = [[] for _ in range(n)]
    times: list[list[float]] = [[] for _ in range(n)]
    round_winners: list[int | None] = []
    engine = 0.0
    knocks = 0

    def deliver(evs: Sequence[Event]) -> None:
        for ev in evs:
            if isinstance(ev, RoundEnded):
                round_winners.append(ev.winner)
            for s in range(n):
                pending[s].append(ev.for_seat(s))

    while not m.over and m.round_no < max_rounds:
        order, seed32 = deal_seed(rng, len(deck))
        m, evs = start_round(m, [deck[i] for i in order], seed32)
        deliver(evs)
        while m.round is not None and m.round.phase not in ("over",):
            r = m.round
            if r.phase == "draw" and r.knock_window:
                for s in r.knock_window:
                    if bots[s].wants_knock(view_for(m, s)):
                        t0 = clock()
                        m, evs = apply(m, A.Knock(s))
                        engine += clock() - t0
                        knocks += 1
                        deliver(evs)
                        break
                if m.round is None or m.round.phase == "over":
                    break
                r = m.round
            seat = r.turn
            view = view_for(m, seat)
            t0 = clock()
            action = bots[seat].choose(view, pending[seat])
            t1 = clock()
            pending[seat] = []
            times[seat].append(t1 - t0)
            m, evs = apply(m, action)
            engine += clock() - t1
            deliver(evs)
    return MatchResult(
        winner=m.winner,
        rounds=m.round_no,
        round_winners=round_winners,
        totals=m.totals,
        decision_times=times,
        engine_time=engine,
        knocks=knocks,
    )
