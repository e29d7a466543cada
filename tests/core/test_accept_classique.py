"""Acceptance tests for `classique` (source 001), written from VARIANTS.md as an outsider would.

"As `rami`, except": any meld opens, strict joker rules, the last card must be
discarded, rami sec +25, ace 11 high.
"""

from __future__ import annotations

import pytest
from accept_helpers import dealt, hand_text, melds, one, pick, play, refused, scores

from rami_lan.core import (
    VARIANTS,
    Discard,
    DrawDiscard,
    DrawStock,
    LayOff,
    MatchOptions,
    RecoverJoker,
    check_meld,
    hand_points,
    parse_cards,
    scenario,
)

V = VARIANTS["classique"]


def c(text: str):
    return parse_cards(text)


def test_deck_and_deal_as_rami() -> None:
    assert V.deck_size == 110
    m, deck, _ = dealt("classique", 3, dealer=2)
    st = m.round
    assert st.turn == 0 and all(len(st.hands[s]) == 13 for s in range(3))
    assert list(st.hands[0]) == deck[0:39:3] and st.discard == (deck[39],)


# --- opening: any meld ---------------------------------------------------------------


def test_any_meld_opens_even_a_small_one() -> None:
    m = scenario("classique", hands=["2c 3c 4c 9d Jh", "5s"], turn=0, phase="play")
    m = play(m, melds(m, 0, "2c 3c 4c"))  # 9 points
    assert m.round.opened[0]


def test_no_lay_off_or_joker_swap_before_an_own_meld() -> None:
    # "a player must have laid at least one meld of their own (any value) before laying
    # off, swapping jokers or otherwise touching table melds"
    m = scenario("classique", hands=["10c 6h 9d Jh 2s", "5s"], melds=[("7c 8c 9c", 1), ("5h * 7h", 1)],
                 turn=0, phase="play")
    refused(m, LayOff(0, one(m, 0, "10c"), 0))
    refused(m, RecoverJoker(0, 1, pick(m, 0, "6h")))


def test_after_an_own_meld_lay_off_in_the_same_turn() -> None:
    m = scenario("classique", hands=["2d 3d 4d 10c 9s", "5s"], melds=[("7c 8c 9c", 1)], turn=0, phase="play")
    m = play(m, melds(m, 0, "2d 3d 4d"), LayOff(0, one(m, 0, "10c"), 0))
    assert str(m.round.melds[0]) == "7c 8c 9c 10c"


# --- aces and jokers ----------------------------------------------------------------------


def test_ace_low_1_high_and_set_11() -> None:
    assert check_meld(V, c("Ah 2h 3h")).points == 6
    assert check_meld(V, c("Qh Kh Ah")).points == 31
    assert check_meld(V, c("Ac As Ah")).points == 33
    assert not check_meld(V, c("Kh Ah 2h")).valid


@pytest.mark.parametrize("text,valid", [
    ("As * *", False),  # "one natural card with two jokers is refused"
    ("Ks * *", False),
    ("5h * 7h *", True),  # "in melds of 4 or more cards two jokers are allowed"
    ("5h * * 8h", True),
    ("* * 5h 6h", True),
    ("5h 5c * *", True),
    ("10c Jc Qc", True),  # example 4
])
def test_joker_limits(text: str, valid: bool) -> None:
    assert check_meld(V, c(text)).valid is valid


def test_a_joker_may_not_be_discarded() -> None:
    m = scenario("classique", hands=["* 5c 9d", "3d"], turn=0, phase="play")
    refused(m, Discard(0, one(m, 0, "*")), "joker")


def test_a_joker_may_be_discarded_as_the_last_card_that_wins() -> None:
    m = scenario("classique", hands=["*", "3d Ac"], melds=[("Kc Ks Kh", 0)], turn=0, phase="play",
                 laid_before=[True, False])
    m = play(m, Discard(0, one(m, 0, "*")))
    assert m.round.result.winner == 0 and scores(m) == {0: 0, 1: 3 + 11}


def test_two_jokers_left_one_must_be_laid_off_first() -> None:
    # docs/rules.md (issue 10): with `* *` and a meld that takes a joker, the discard of a
    # joker does not win, so it is refused; lay one off, then the last joker wins.
    m = scenario("classique", hands=["* *", "3d"], melds=[("Kc Ks Kh", 0)], turn=0, phase="play",
                 laid_before=[True, False])
    refused(m, Discard(0, one(m, 0, "*")))
    m = play(m, LayOff(0, one(m, 0, "*"), 0))
    m = play(m, Discard(0, one(m, 0, "*")))
    assert m.round.result.winner == 0


def test_recovered_joker_must_be_played_in_the_same_turn() -> None:
    # "the joker taken back must be played (melded or laid off) in the same turn; it may
    # not be kept in hand"
    m = scenario("classique", hands=["6h 9d 2c", "3d"], melds=[("5h * 7h", 1), ("Kc Ks Kh", 0)],
                 turn=0, phase="play")
    m = play(m, RecoverJoker(0, 0, pick(m, 0, "6h")))
    assert "*" in hand_text(m, 0)
    refused(m, Discard(0, one(m, 0, "9d")), "must be melded or laid off")
    m = play(m, LayOff(0, one(m, 0, "*"), 1), Discard(0, one(m, 0, "9d")))
    assert m.round.turn == 1


def test_recovered_joker_may_go_into_a_new_meld() -> None:
    m = scenario("classique", hands=["6h 9d 9s 2c", "3d"], melds=[("5h * 7h", 1), ("Kc Ks Kh", 0)],
                 turn=0, phase="play")
    m = play(m, RecoverJoker(0, 0, pick(m, 0, "6h")))
    m = play(m, melds(m, 0, "9d 9s *"), Discard(0, one(m, 0, "2c")))
    assert m.round.result.winner == 0


# --- going out: the last card must be discarded --------------------------------------


def test_laying_the_last_card_without_a_discard_is_refused() -> None:
    m = scenario("classique", hands=["7c 8c 9c", "2c"], melds=[("Kc Ks Kh", 0)], turn=0, phase="play",
                 laid_before=[True, False])
    refused(m, melds(m, 0, "7c 8c 9c"))
    m2 = scenario("classique", hands=["Kd", "2c"], melds=[("Kc Ks Kh", 0)], turn=0, phase="play",
                  laid_before=[True, False])
    refused(m2, LayOff(0, one(m2, 0, "Kd"), 0))


def test_going_out_by_discarding_the_last_card() -> None:
    m = scenario("classique", hands=["7c 8c 9c 5d", "2c Ac *"], melds=[("Kc Ks Kh", 0)], turn=0,
                 phase="play", laid_before=[True, False])
    m = play(m, melds(m, 0, "7c 8c 9c"), Discard(0, one(m, 0, "5d")))
    assert m.round.result.winner == 0 and not m.round.result.rami_sec
    assert scores(m) == {0: 0, 1: 2 + 11 + 30}


def test_hand_points_ace_11_joker_30() -> None:
    assert [hand_points(V, x) for x in c("Ac * Kd 10d 7s")] == [11, 30, 10, 10, 7]


def test_rami_sec_adds_25_to_each_other_player_instead_of_doubling() -> None:
    hand = "7c 8c 9c 10c Kd Ks Kh 2s 3s 4s Jh Qh Kh"
    m = scenario("classique", hands=[hand, "Ac 5d", "2h"], turn=0, phase="draw", stock="9d",
                 laid_before=[False, False, False])
    m = play(m, DrawStock(0))
    m = play(m, melds(m, 0, "7c 8c 9c 10c", "Kd Ks Kh", "2s 3s 4s", "Jh Qh Kh"), Discard(0, one(m, 0, "9d")))
    assert m.round.result.rami_sec
    assert scores(m) == {0: 0, 1: 11 + 5 + 25, 2: 2 + 25}


def test_draw_the_top_discard_only() -> None:
    m = scenario("classique", hands=["5c 9d 2h", "3d 4s"], discard="Kc Qd", turn=0, phase="draw")
    refused(m, DrawDiscard(0, 2))
    assert "Qd" in hand_text(play(m, DrawDiscard(0, 1)), 0)


def test_match_is_elimination_over_the_limit() -> None:
    m = scenario("classique", hands=["Kd 2c", "6c"], melds=[("Kc Ks Kh", 0)], turn=0, phase="play",
                 laid_before=[True, False], totals=[0, 94], options=MatchOptions(limit=100))
    m = play(m, LayOff(0, one(m, 0, "Kd"), 0), Discard(0, one(m, 0, "2c")))
    assert m.totals == (0, 100) and not m.over
    m = scenario("classique", hands=["Kd 2c", "7c"], melds=[("Kc Ks Kh", 0)], turn=0, phase="play",
                 laid_before=[True, False], totals=[0, 94], options=MatchOptions(limit=100))
    m = play(m, LayOff(0, one(m, 0, "Kd"), 0), Discard(0, one(m, 0, "2c")))
    assert m.over and m.winner == 0
