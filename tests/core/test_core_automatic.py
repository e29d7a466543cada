"""`core.shadow.automatic_move`: the move timer's choice, from a seat's own view, is the
one the rules' `Timeout` makes (a client that plays its own timed-out turn, as with
private dealing, plays exactly what the host would have played)."""

from __future__ import annotations

import random

from rami_lan.core import actions as A
from rami_lan.core import round as R
from rami_lan.core.cards import card_from_id
from rami_lan.core.match import MatchOptions, apply, new_match, start_round
from rami_lan.core.shadow import automatic_move
from rami_lan.core.variants import get_variant
from rami_lan.core.views import view_for


def test_the_automatic_move_is_the_timeouts_in_every_variant() -> None:
    checked = 0
    for vid in ("rami", "classique", "multi", "500", "40"):
        v = get_variant(vid)
        for seed in range(6):
            rng = random.Random(seed)
            ids = list(range(v.deck_size))
            rng.shuffle(ids)
            m = new_match(vid, 3, MatchOptions(None, False, False))
            m, _ = start_round(m, [card_from_id(i, v.n_decks, v.n_jokers) for i in ids], bytes(32))
            for _turn in range(12):
                r = m.round
                if r is None or r.phase not in ("draw", "play"):
                    break
                seat = r.turn
                assert automatic_move(view_for(m, seat)) == A.DrawStock(seat)
                m2, evs = apply(m, A.DrawStock(seat))
                drawn = evs[-1].card
                mine = automatic_move(view_for(m2, seat), drawn)
                # The rules' own choice, on the true state: the discard a Timeout makes.
                st = m2.round
                want = R._timeout_card(st, seat)
                if not st.must_use:
                    assert mine == A.Discard(seat, want), (vid, seed, mine, want)
                    checked += 1
                m, _ = apply(m2, mine if not st.must_use else A.Discard(seat, want))
    assert checked > 100


def test_no_automatic_discard_from_a_hand_with_unknown_cards() -> None:
    """Private dealing: a hand whose cards a relaunched or stopped client could not
    unmask holds nils in its view. No discard can be chosen from it (the timer's move is
    left to the table's deadline). Before, the nil was taken for the card just drawn and
    the choice raised AttributeError in the client's read loop, which then stopped
    reading: the player hung until the end (chaos, private tables, stops)."""
    from dataclasses import replace

    v = get_variant("rami")
    m = new_match("rami", 2, MatchOptions(None, False, False))
    m, _ = start_round(m, [card_from_id(i, v.n_decks, v.n_jokers) for i in range(v.deck_size)],
                       bytes(32))
    seat = m.round.turn
    m2, _evs = apply(m, A.DrawStock(seat))
    view = view_for(m2, seat)
    blind = replace(view, hand=(None, *view.hand[1:]))
    assert automatic_move(blind) is None
    assert automatic_move(blind, None) is None
    assert isinstance(automatic_move(view), A.Discard)  # a known hand still gets its discard
    assert automatic_move(replace(view, phase="draw")) == A.DrawStock(seat)
