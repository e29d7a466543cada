"""Headless matches between bots: the engine of `rami-lan simulate` and the benchmarks.

`play_match` runs the table machine itself with every seat a bot (in-process seats, no
connection, no clock): each round is dealt from a seeded `random.Random` shuffle of the
full deck (and a 32-byte seed for reshuffles and the first dealer), each bot gets its
own view and the events redacted for its seat, the seats in a frapper window are asked
whether they knock, and the winner comes back with per-seat statistics. A bot's
illegal action is a bug and raises.
"""

from __future__ import annotations

import functools
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rami_lan.core import actions as A
from rami_lan.core.cards import Card, full_deck
from rami_lan.core.errors import IllegalAction
from rami_lan.core.events import Event, RoundEnded
from rami_lan.core.match import MatchOptions, MatchState
from rami_lan.core.reasons import Reason
from rami_lan.core.variants import get_variant
from rami_lan.table.config import TableConfig
from rami_lan.table.fairround import RoundCtx
from rami_lan.table.machine import TableMachine

__all__ = ["MatchResult", "deal_seed", "play_match"]


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


@functools.lru_cache(maxsize=8)
def _deck_fields(n_decks: int, n_jokers: int) -> tuple[tuple[int, str | None, int], ...]:
    return tuple((c.rank, c.suit, c.copy) for c in full_deck(n_decks, n_jokers))


def _fresh_cards(n_decks: int, n_jokers: int) -> list[Card]:
    """New card objects for one match, copied field by field from checked cards (what
    `Card()` builds, without checking the same fields again for every match)."""
    new, put = object.__new__, object.__setattr__
    out = []
    for rank, suit, copy in _deck_fields(n_decks, n_jokers):
        c = new(Card)
        put(c, "rank", rank)
        put(c, "suit", suit)
        put(c, "copy", copy)
        out.append(c)
    return out


def _no_entropy(n: int) -> bytes:
    return bytes(n)  # self-play draws its deals from its own seeded rng


class _SelfPlayTable(TableMachine):
    """The table machine with seeded deals, timed decisions and strict bots."""

    def __init__(self, config: TableConfig, bots: Sequence[Any], seed: int, max_rounds: int,
                 clock: Callable[[], float]) -> None:
        self._bots = list(bots)
        super().__init__(config, _no_entropy)
        self.emit_applied = False
        self._rng = random.Random(seed)
        self._order: list[int] = []
        self._max_rounds = max_rounds
        self._clock = clock
        self.times: list[list[float]] = [[] for _ in bots]
        self.round_winners: list[int | None] = []
        self.engine = 0.0
        self.knocks = 0

    def make_policy(self, level: str, seat: int) -> Any:
        return self._bots[seat]

    def round_seed(self, ctx: RoundCtx) -> bytes:
        self._order, seed32 = deal_seed(self._rng, self.variant.deck_size)
        return seed32

    def deck_for_round(self, seed: bytes, n_cards: int) -> list[int]:
        return self._order

    def card_objects(self) -> list[Card]:
        return _fresh_cards(self.variant.n_decks, self.variant.n_jokers)

    def choose(self, seat: int, policy: Any, view: Any, new_events: list[Event]) -> Any:
        t0 = self._clock()
        action = policy.choose(view, new_events)
        self.times[seat].append(self._clock() - t0)
        return action

    def apply_core(self, m: MatchState, action: A.Action) -> tuple[MatchState, list[Event]]:
        t0 = self._clock()
        out = super().apply_core(m, action)
        self.engine += self._clock() - t0
        if isinstance(action, A.Knock):
            self.knocks += 1
        for ev in out[1]:
            if isinstance(ev, RoundEnded):
                self.round_winners.append(ev.winner)
        return out

    def bot_failed(self, seat: int, exc: Exception | None) -> None:
        if exc is not None:
            raise exc
        raise IllegalAction(seat, self.match.phase, Reason.of("bot_illegal"))

    def may_continue(self) -> bool:
        return self.match.round_no < self._max_rounds


def play_match(
    variant: str,
    bots: Sequence[Any],
    seed: int,
    options: MatchOptions | None = None,
    max_rounds: int = 200,
    clock: Callable[[], float] = time.perf_counter,
) -> MatchResult:
    """Play one match between ``bots`` (seat i = bots[i]) from ``seed``."""
    v = get_variant(variant)
    o = options or MatchOptions()
    config = TableConfig(name="self-play", variant=v.id, seats=len(bots),
                         bots={s: "moyen" for s in range(len(bots))}, limit=o.limit,
                         quick=o.quick, knock=o.knock, headless=True, advertise=False,
                         bot_delay=0.0)
    table = _SelfPlayTable(config, bots, seed, max_rounds, clock)
    table.start(0.0)
    while not table.over:
        table.tick(0.0, max_steps=1 << 30)
    m = table.match
    return MatchResult(
        winner=m.winner,
        rounds=m.round_no,
        round_winners=table.round_winners,
        totals=m.totals,
        decision_times=table.times,
        engine_time=table.engine,
        knocks=table.knocks,
    )
