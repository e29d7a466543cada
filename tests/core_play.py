"""Test helpers: play random legal games with the core, checking invariants."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

from rami_lan.core import actions as A
from rami_lan.core import round as R
from rami_lan.core.cards import Card, full_deck
from rami_lan.core.match import MatchState, apply, start_round

LAY = (A.LayDown, A.LayOff, A.RecoverJoker)


def random_action(st: R.RoundState, seat: int, rng: random.Random, lay_bias: float = 0.8):
    """A random legal action for ``seat``: prefers laying cards so rounds end."""
    cands = list(R.candidate_actions(st, seat))
    rng.shuffle(cands)
    if rng.random() < lay_bias:
        cands.sort(key=lambda a: 0 if isinstance(a, LAY) else 1)
    for a in cands:
        if R.is_legal(st, a):
            return a
    return None


def deck_for(m: MatchState, rng: random.Random) -> list[Card]:
    d = full_deck(m.variant.n_decks, m.variant.n_jokers)
    rng.shuffle(d)
    return d


def all_cards(st: R.RoundState) -> list[Card]:
    out = [c for h in st.hands for c in h]
    out += list(st.stock) + list(st.discard)
    out += [c for m in st.melds for c in m.cards]
    return out


def check_conservation(st: R.RoundState) -> None:
    cards = all_cards(st)
    counts = Counter(cards)
    dup = [c for c, n in counts.items() if n > 1]
    assert not dup, f"cards in two places: {dup}"
    assert set(cards) == set(full_deck(st.variant.n_decks, st.variant.n_jokers))


def play_round(
    m: MatchState,
    rng: random.Random,
    on_step: Callable[[MatchState, object, list], None] | None = None,
    knock_rate: float = 0.3,
    max_steps: int = 20000,
) -> MatchState:
    steps = 0
    while m.round is not None and m.round.phase != "over":
        st = m.round
        action = None
        if st.knock_window and rng.random() < knock_rate:
            action = A.Knock(rng.choice(st.knock_window))
        if action is None:
            action = random_action(st, st.turn, rng)
        assert action is not None, f"seat {st.turn} has no legal action in {st.phase}"
        m, evs = apply(m, action)
        if on_step:
            on_step(m, action, evs)
        steps += 1
        assert steps < max_steps, "round does not end"
    return m


def play_match(m: MatchState, rng: random.Random, on_step=None, max_rounds: int = 200) -> MatchState:
    rounds = 0
    while not m.over:
        m, _ = start_round(m, deck_for(m, rng), rng.randbytes(32))
        m = play_round(m, rng, on_step)
        rounds += 1
        assert rounds <= max_rounds, "match does not end"
    return m
