"""Acceptance tests for `multi` (source 002), written from VARIANTS.md as an outsider would.

One 52-card deck, no jokers, 10 cards (2 players) or 7, no opening, ace low only,
the winner collects the others' hands, first to 100.
"""

from __future__ import annotations

import pytest
from accept_helpers import dealt, hand_text, melds, one, play, refused, scores

from rami_lan.core import (
    VARIANTS,
    Discard,
    DrawDiscard,
    DrawStock,
    LayOff,
    MatchOptions,
    check_meld,
    full_deck,
    hand_points,
    parse_cards,
    scenario,
    start_round,
)

V = VARIANTS["multi"]


def c(text: str):
    return parse_cards(text)


# --- deck and deal -------------------------------------------------------------------


def test_one_deck_no_jokers() -> None:
    assert V.deck_size == 52 and V.n_jokers == 0
    assert not check_meld(V, c("5h 6h *")).valid


@pytest.mark.parametrize("n,size", [(2, 10), (3, 7), (4, 7)])
def test_hand_size_depends_on_the_number_of_players_example_11(n: int, size: int) -> None:
    m, deck, _ = dealt("multi", n, dealer=n - 1)
    st = m.round
    assert st.turn == 0  # left of the dealer plays first
    for seat in range(n):
        assert list(st.hands[seat]) == deck[seat : size * n : n]
    assert st.discard == (deck[size * n],)
    assert len(st.stock) == 52 - size * n - 1


def test_the_next_dealer_is_left_of_the_previous_one() -> None:
    m = scenario("multi", hands=["2c 3c 4c", "Kd", "Qd"], turn=0, phase="play", dealer=2)
    m = play(m, melds(m, 0, "2c 3c 4c"))
    m, _ = start_round(m, full_deck(1, 0), bytes(32))
    assert m.dealer == 0 and m.round.turn == 1


# --- drawing and discarding -------------------------------------------------------------


def test_a_card_taken_from_the_discard_pile_may_not_be_discarded_that_turn() -> None:
    m = scenario("multi", hands=["2c 9d Jh", "5s 6s"], discard="Kc", turn=0, phase="draw")
    m = play(m, DrawDiscard(0))
    refused(m, Discard(0, one(m, 0, "Kc")), "taken")
    m = play(m, Discard(0, one(m, 0, "9d")))
    assert str(m.round.discard[-1]) == "9d" and "Kc" in hand_text(m, 0)


def test_a_card_drawn_from_the_stock_may_be_discarded() -> None:
    m = scenario("multi", hands=["2c 9d Jh", "5s 6s"], stock="Kc", turn=0, phase="draw")
    m = play(m, DrawStock(0))
    m = play(m, Discard(0, one(m, 0, "Kc")))
    assert str(m.round.discard[-1]) == "Kc"


def test_only_the_top_discard_may_be_taken() -> None:
    m = scenario("multi", hands=["2c 9d Jh", "5s 6s"], discard="Kc Qd", turn=0, phase="draw")
    refused(m, DrawDiscard(0, 2))


# --- no opening: lay off at any time ------------------------------------------------------


def test_lay_off_before_ever_melding_example_7() -> None:
    # "Any player may lay off on any meld at any time in their turn, even before melding"
    m = scenario("multi", hands=["2s 9d Jh", "5c 6c"], melds=[("3s 4s 5s", 1)], turn=0, phase="play",
                 opened=[False, True], laid_before=[False, True])
    m = play(m, LayOff(0, one(m, 0, "2s"), 0))
    assert str(m.round.melds[0]) == "2s 3s 4s 5s"


def test_any_meld_of_any_value_may_be_laid() -> None:
    m = scenario("multi", hands=["Ac 2c 3c 9d", "5s 6s"], turn=0, phase="play")
    m = play(m, melds(m, 0, "Ac 2c 3c"))  # 6 points
    assert len(m.round.melds) == 1


# --- aces: low only --------------------------------------------------------------------


@pytest.mark.parametrize("text,valid,points", [
    ("As 2s 3s", True, 6),
    ("Qs Ks As", False, 0),
    ("Ks As 2s", False, 0),
    ("Ac As Ah", True, 3),
    ("As 2s 3s 4s 5s 6s 7s 8s 9s 10s Js Qs Ks", True, 85),
])
def test_ace_is_low_only_and_worth_1(text: str, valid: bool, points: int) -> None:
    r = check_meld(V, c(text))
    assert r.valid is valid
    if valid:
        assert r.points == points


def test_an_ace_goes_below_a_two_not_above_a_king() -> None:
    m = scenario("multi", hands=["Ah Ad 9c", "5s 6s"], melds=[("2h 3h 4h", 1), ("Jd Qd Kd", 1)],
                 turn=0, phase="play", opened=[False, True])
    refused(m, LayOff(0, one(m, 0, "Ad"), 1))
    m = play(m, LayOff(0, one(m, 0, "Ah"), 0))
    assert str(m.round.melds[0]) == "Ah 2h 3h 4h"


# --- going out and scoring -------------------------------------------------------------------


def test_going_out_by_melding_without_a_discard_winner_collects() -> None:
    # "the winner scores the sum of the other players' hands (J Q K 10, A 1, others face value)"
    m = scenario("multi", hands=["7c 8c 9c", "Kd Ad 7d", "Qs 2h"], melds=[("2d 3d 4d", 0)], turn=0,
                 phase="play", laid_before=[True, False, False])
    m = play(m, melds(m, 0, "7c 8c 9c"))
    res = m.round.result
    assert res.winner == 0 and not res.rami_sec
    assert scores(m) == {0: (10 + 1 + 7) + (10 + 2), 1: 0, 2: 0}
    assert m.totals == (30, 0, 0)


def test_going_out_by_lay_off_or_by_discard() -> None:
    m = scenario("multi", hands=["5d", "Kd"], melds=[("2d 3d 4d", 0)], turn=0, phase="play",
                 laid_before=[True, False])
    assert play(m, LayOff(0, one(m, 0, "5d"), 0)).round.result.winner == 0
    m = scenario("multi", hands=["9h", "Kd"], melds=[("2d 3d 4d", 0)], turn=0, phase="play",
                 laid_before=[True, False])
    m = play(m, Discard(0, one(m, 0, "9h")))
    assert m.round.result.winner == 0 and scores(m) == {0: 10, 1: 0}


def test_hand_points() -> None:
    assert [hand_points(V, x) for x in c("Ac Kc Qc Jc 10c 2c")] == [1, 10, 10, 10, 10, 2]


def test_rami_sec_doubles_what_the_winner_collects() -> None:
    # rami sec: every card laid in one turn, nothing laid in an earlier turn
    m = scenario("multi", hands=["2c 3c 4c 5c 9h 9s 9d Jd Qd Kd", "Kh Ac"], turn=0, phase="draw",
                 stock="9c", laid_before=[False, False])
    m = play(m, DrawStock(0))
    m = play(m, melds(m, 0, "2c 3c 4c 5c", "9h 9s 9d 9c", "Jd Qd Kd"))
    assert m.round.result.rami_sec and scores(m) == {0: (10 + 1) * 2, 1: 0}


def test_rami_sec_ending_with_a_discard() -> None:
    m = scenario("multi", hands=["2c 3c 4c 5c 9h 9s 9d Jd Qd Kd", "Kh Ac"], turn=0, phase="draw",
                 stock="7h", laid_before=[False, False])
    m = play(m, DrawStock(0))
    m = play(m, melds(m, 0, "2c 3c 4c 5c", "9h 9s 9d", "Jd Qd Kd"))
    assert m.round.result is None
    m = play(m, Discard(0, one(m, 0, "7h")))
    assert m.round.result.rami_sec and scores(m) == {0: 22, 1: 0}


def test_no_rami_sec_after_laying_in_an_earlier_turn() -> None:
    m = scenario("multi", hands=["9h", "Kh Ac"], melds=[("2c 3c 4c", 0)], turn=0, phase="play",
                 laid_before=[True, False])
    m = play(m, Discard(0, one(m, 0, "9h")))
    assert not m.round.result.rami_sec and scores(m) == {0: 11, 1: 0}


# --- stock exhausted: turned over without shuffling -----------------------------------


def test_empty_stock_turns_the_pile_over_without_shuffling() -> None:
    # "that top card is set aside, the rest of the discard pile is turned over without
    # shuffling to form the new stock, and the set-aside card starts the new discard pile"
    m = scenario("multi", hands=["2c 5d 9h", "3d 4s"], discard="6c 7d 8s Jh", stock="", turn=0, phase="draw")
    m = play(m, DrawStock(0))
    st = m.round
    assert [str(x) for x in st.discard] == ["Jh"]
    # the pile turned over: its bottom card (the first discarded) is now on top
    assert "6c" in hand_text(m, 0)
    assert [str(x) for x in st.stock] == ["7d", "8s"]


def test_empty_stock_the_player_may_take_the_top_discard_instead() -> None:
    m = scenario("multi", hands=["2c 5d 9h", "3d 4s"], discard="6c 7d 8s Jh", stock="", turn=0, phase="draw")
    m = play(m, DrawDiscard(0))
    assert "Jh" in hand_text(m, 0) and [str(x) for x in m.round.discard] == ["6c", "7d", "8s"]


# --- match: first to 100 ---------------------------------------------------------------------


@pytest.mark.parametrize("before,over", [(90, True), (89, False)])
def test_the_first_to_reach_100_wins(before: int, over: bool) -> None:
    m = scenario("multi", hands=["9h", "Kh"], melds=[("2c 3c 4c", 0)], turn=0, phase="play",
                 laid_before=[True, False], totals=[before, 50])
    m = play(m, Discard(0, one(m, 0, "9h")))
    assert m.totals == (before + 10, 50)
    assert m.over is over
    if over:
        assert m.winner == 0


def test_the_match_is_played_to_100() -> None:
    assert MatchOptions().resolved(V).limit == 100


def test_legal_actions_never_offer_the_taken_card_as_a_discard() -> None:
    from rami_lan.core import legal_actions

    m = scenario("multi", hands=["2c 9d Jh", "5s 6s"], discard="Kc", turn=0, phase="draw")
    m = play(m, DrawDiscard(0))
    offered = {str(a.card) for a in legal_actions(m, 0) if isinstance(a, Discard)}
    assert offered == {"2c", "9d", "Jh"}
