"""Hypothesis properties of the rules core over random legal games.

For every variant and 2-4 players: cards are conserved at every step, no view (nor
redacted event) ever holds a card of another seat's hand or of the stock, every round
and match ends, round scores follow the variant's rule, and a snapshot restored
mid-round (through msgpack) plays on identically.

The number of random games per variant is ``RAMI_LAN_PROPERTY_EXAMPLES`` (default 30:
150 rounds in CI). ``RAMI_LAN_PROPERTY_EXAMPLES=400 pytest tests/core/test_core_properties.py``
plays thousands of rounds.
"""

from __future__ import annotations

import os
import random

import msgpack
import pytest
from core_play import check_conservation, deck_for, play_match, play_round, random_action
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rami_lan.core import (
    VARIANTS,
    MatchOptions,
    apply,
    match_from_plain,
    match_to_plain,
    new_match,
    start_round,
    view_for,
    view_to_plain,
)
from rami_lan.core import events as E
from rami_lan.core.cards import Card, card_id
from rami_lan.core.codec import event_to_plain
from rami_lan.core.melds import hand_points

EXAMPLES = int(os.environ.get("RAMI_LAN_PROPERTY_EXAMPLES", "30"))
PROP = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
VARIANT_IDS = list(VARIANTS)


def _options(vid: str, rng: random.Random) -> MatchOptions:
    v = VARIANTS[vid]
    return MatchOptions(knock=v.knock_supported and rng.random() < 0.7)


def _card_ids(plain: object, out: set[int]) -> None:
    """Every card id inside an encoded view/event (cards are encoded {"card": id})."""
    if isinstance(plain, dict):
        if set(plain) == {"card"} and plain["card"] is not None:
            out.add(plain["card"])
        for k, v in plain.items():
            if k == "c" and isinstance(v, list):  # meld cards
                out.update(x for x in v if isinstance(x, int))
            else:
                _card_ids(v, out)
    elif isinstance(plain, list | tuple):
        for v in plain:
            _card_ids(v, out)


def _no_leak_checker(vid: str):
    v = VARIANTS[vid]

    def check(m, action, evs) -> None:
        r = m.round
        check_conservation(r)
        if r.phase == "over":
            return
        for seat in range(m.n_seats):
            hidden: set[Card] = set(r.stock)
            for other in r.players:
                if other != seat:
                    hidden.update(r.hands[other])
            hidden_ids = {card_id(c, v.n_decks) for c in hidden}
            view = view_for(m, seat)
            seen: set[int] = set()
            _card_ids(view_to_plain(view), seen)
            assert not seen & hidden_ids, f"view of seat {seat} leaks {seen & hidden_ids}"
            if seat in r.players:
                assert view.hand == r.hands[seat]
            for ev in evs:
                ids: set[int] = set()
                red = ev.for_seat(seat)
                _card_ids(event_to_plain(red, v), ids)
                if isinstance(red, E.StockDrawn) and red.seat != seat:
                    assert red.card is None
                if isinstance(red, E.StockRefilled):
                    # the pile that goes back was public card by card; only its new
                    # order is secret, and the event does not carry it
                    assert red.pile != r.stock or not red.shuffled
                    continue
                # no stock card is ever shown
                assert not ids & {card_id(c, v.n_decks) for c in r.stock}

    return check


def _expected_scores(vid: str, res: E.RoundEnded) -> dict[int, int]:
    """Round scores written straight from VARIANTS.md, independent of the engine."""
    v = VARIANTS[vid]
    hp = {s: sum(hand_points(v, c) for c in h) for s, h in res.hands}
    w = res.winner
    sec = res.rami_sec
    if vid in ("rami", "classique", "40"):
        if w is None:
            return hp
        mult = 2 if (sec and vid == "rami") else 1
        bonus = 25 if (sec and vid in ("classique", "40")) else 0
        return {s: 0 if s == w else hp[s] * mult + bonus for s in hp}
    if vid == "multi":
        won = sum(p for s, p in hp.items() if s != w) * (2 if sec else 1)
        return {s: (won if s == w else 0) for s in hp}
    laid = dict(res.laid_points)
    return {s: laid[s] - hp[s] for s in hp}


@pytest.mark.parametrize("vid", VARIANT_IDS)
@PROP
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 4))
def test_random_rounds_conserve_cards_and_never_leak(vid: str, seed: int, n: int) -> None:
    rng = random.Random(seed)
    m = new_match(vid, n, _options(vid, rng))
    m, evs = start_round(m, deck_for(m, rng), rng.randbytes(32))
    check_conservation(m.round)
    m = play_round(m, rng, _no_leak_checker(vid))
    res = m.history[-1] if m.history else None
    assert m.round.phase == "over" and m.round.result is not None
    r = m.round.result
    assert dict(r.scores) == _expected_scores(vid, r)
    if r.winner is not None:
        assert dict(r.hands)[r.winner] == ()
    assert res is not None and res.scores == r.scores


@pytest.mark.parametrize("vid", VARIANT_IDS)
@settings(max_examples=max(3, EXAMPLES // 6), deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 4))
def test_whole_matches_end_with_the_variants_rule(vid: str, seed: int, n: int) -> None:
    rng = random.Random(seed)
    v = VARIANTS[vid]
    limit = rng.choice(v.point_limits) if v.match_rule == "elimination" else None
    if vid == "rami" and limit == 100:
        limit = 50  # keep the test quick
    m = new_match(vid, n, MatchOptions(limit=limit))
    m = play_match(m, rng)
    assert m.over and m.winner is not None
    totals = m.totals
    # totals are the sum of the rounds' scores
    for s in range(n):
        assert totals[s] == sum(dict(h.scores).get(s, 0) for h in m.history)
    if v.match_rule == "elimination":
        lim = m.options.limit
        if lim == 1:
            assert len(m.history) == 1
        else:
            alive = [s for s in range(n) if not m.eliminated[s]]
            assert alive == [m.winner] or (not alive)
            assert all(totals[s] > lim for s in range(n) if m.eliminated[s])
    elif v.match_rule == "first_to":
        assert totals[m.winner] >= 100
        assert totals[m.winner] == max(totals)
    else:
        assert totals[m.winner] >= m.options.limit
        assert totals[m.winner] == max(totals)


@pytest.mark.parametrize("vid", VARIANT_IDS)
@settings(max_examples=max(3, EXAMPLES // 3), deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 4), cut=st.integers(0, 120))
def test_snapshot_restored_mid_round_plays_on_identically(vid: str, seed: int, n: int, cut: int) -> None:
    rng = random.Random(seed)
    m = new_match(vid, n, _options(vid, rng))
    m, _ = start_round(m, deck_for(m, rng), rng.randbytes(32))
    for _ in range(cut):
        if m.round.phase == "over":
            break
        m, _ = apply(m, random_action(m.round, m.round.turn, rng))
    blob = msgpack.packb(match_to_plain(m))
    restored = match_from_plain(msgpack.unpackb(blob))
    assert restored == m
    rng2 = random.Random()
    rng2.setstate(rng.getstate())
    a = play_round(m, rng)
    b = play_round(restored, rng2)
    assert a == b
    assert match_to_plain(a) == match_to_plain(b)
