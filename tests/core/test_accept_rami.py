"""Acceptance tests for `rami` (source 000), written from VARIANTS.md as an outsider would.

Each test quotes (or paraphrases) the sentence of the page it checks. Positions are
built with `scenario`; only the public core API is used.
"""

from __future__ import annotations

import pytest
from accept_helpers import dealt, hand_text, melds, one, pick, play, refused, scores

from rami_lan.core import (
    VARIANTS,
    Discard,
    DrawDiscard,
    DrawStock,
    Knock,
    LayOff,
    MatchOptions,
    RecoverJoker,
    check_meld,
    full_deck,
    hand_points,
    parse_cards,
    scenario,
    start_round,
)

V = VARIANTS["rami"]
FILL = "2c 4d 6s 8h 9c Jd"  # loose cards that form no meld together


def c(text: str):
    return parse_cards(text)


# --- deck, deal, first player ----------------------------------------------------


def test_deck_is_two_52_card_decks_and_six_jokers() -> None:
    assert V.deck_size == 110


@pytest.mark.parametrize("n", [2, 3, 4])
def test_thirteen_cards_each_one_at_a_time_from_left_of_dealer(n: int) -> None:
    m, deck, _ = dealt("rami", n, dealer=0)
    st = m.round
    # "the player left of the dealer plays first"; dealt clockwise starting left of the dealer
    assert st.turn == 1
    order = [(1 + k) % n for k in range(n)]
    for k, seat in enumerate(order):
        assert list(st.hands[seat]) == deck[k : 13 * n : n]
    # "After the deal the next stock card is turned face up to start the discard pile."
    assert st.discard == (deck[13 * n],)
    assert len(st.stock) == 110 - 13 * n - 1 and st.stock[0] == deck[13 * n + 1]


def test_dealer_passes_to_the_left_each_round() -> None:
    m = scenario("rami", hands=["Kd", "2c", "3c"], melds=[("Kc Ks Kh", 0)], turn=0, dealer=2,
                 laid_before=[True, False, False])
    m = play(m, LayOff(0, one(m, 0, "Kd"), 0))
    assert m.phase == "between"
    m, _ = start_round(m, full_deck(2, 6), bytes(32))
    assert m.dealer == 0 and m.round.turn == 1


# --- opening: >= 30 meld points --------------------------------------------------


def _opening(hand: str):
    m = scenario("rami", hands=[hand + " " + FILL, "2h 3s"], turn=0, phase="play")
    return m


def test_three_sevens_21_points_can_not_open() -> None:
    m = _opening("7c 7s 7h")
    refused(m, melds(m, 0, "7c 7s 7h"), "30")


def test_29_points_can_not_open_and_exactly_30_can() -> None:
    m = _opening("9h 10h Jh 10c Jc Qc")
    refused(m, melds(m, 0, "9h 10h Jh"))  # 29
    m2 = play(m, melds(m, 0, "10c Jc Qc"))  # 30
    assert m2.round.opened[0] and len(m2.round.melds) == 1


def test_set_of_aces_is_30_and_opens() -> None:
    # "ace in a set or high run is worth 10 meld points (000 says 10)"
    assert check_meld(V, c("Ac As Ah")).points == 30
    m = _opening("Ac As Ah")
    assert play(m, melds(m, 0, "Ac As Ah")).round.opened[0]


def test_high_run_q_k_a_is_30_and_opens_low_run_is_6() -> None:
    assert check_meld(V, c("Qh Kh Ah")).points == 30
    assert check_meld(V, c("Ah 2h 3h")).points == 6
    m = _opening("Qh Kh Ah")
    assert play(m, melds(m, 0, "Qh Kh Ah")).round.opened[0]
    m = _opening("Ah 2h 3h 7c 7s 7d")
    refused(m, melds(m, 0, "Ah 2h 3h", "7c 7s 7d"))  # 6 + 21 = 27


def test_opening_may_combine_several_melds_in_one_lay_down() -> None:
    # "the new melds laid in that turn must total at least 30 meld points"
    m = _opening("7c 7s 7h 2d 3d 4d")
    m2 = play(m, melds(m, 0, "7c 7s 7h", "2d 3d 4d"))  # 21 + 9
    assert m2.round.opened[0] and len(m2.round.melds) == 2


def test_jokers_count_the_card_they_stand_for_toward_the_opening() -> None:
    # "joker = the value of the card it represents"
    assert check_meld(V, c("Kc Ks *")).points == 30
    assert check_meld(V, c("Qh Kh *")).points == 30  # the joker is the high ace: 10
    assert check_meld(V, c("10h * Qh")).points == 30
    m = _opening("Kc Ks *")
    assert play(m, melds(m, 0, "Kc Ks *")).round.opened[0]
    m = _opening("8h 9h *")
    refused(m, melds(m, 0, "8h 9h *"))  # 8 9 10 = 27


def test_before_opening_no_lay_off_and_no_joker_swap() -> None:
    m = scenario("rami", hands=["10c 6h " + FILL, "2h 3s"], melds=[("7c 8c 9c", 1), ("5h * 7h", 1)],
                 turn=0, phase="play")
    refused(m, LayOff(0, one(m, 0, "10c"), 0), "opening")
    refused(m, RecoverJoker(0, 1, pick(m, 0, "6h")), "opening")


def test_lay_offs_in_the_opening_turn_do_not_count_toward_30() -> None:
    m = scenario("rami", hands=["7c 7s 7h 10c " + FILL, "2h 3s"], melds=[("Jc Qc Kc", 1)],
                 turn=0, phase="play")
    refused(m, melds(m, 0, "7c 7s 7h"))
    refused(m, LayOff(0, one(m, 0, "10c"), 0))


# --- after opening: lay off anywhere, joker recovery ----------------------------


def test_after_opening_lay_off_on_own_and_others_melds_example_6() -> None:
    # "After 7c 8c 9c is on the table, a player who has opened may add 10c, then Jc"
    m = scenario("rami", hands=["10c Jc 2h 5s Kd", "3d 4s"], melds=[("7c 8c 9c", 1), ("Kh Ks Kc", 0)],
                 turn=0, phase="play")
    m = play(m, LayOff(0, one(m, 0, "10c"), 0), LayOff(0, one(m, 0, "Jc"), 0), LayOff(0, one(m, 0, "Kd"), 1))
    assert str(m.round.melds[0]) == "7c 8c 9c 10c Jc"
    assert len(m.round.melds[1].cards) == 4


def test_lay_off_in_the_same_turn_as_opening() -> None:
    m = scenario("rami", hands=["10h Jh Qh Kh " + FILL, "2h 3s"], turn=0, phase="play")
    m = play(m, melds(m, 0, "10h Jh Qh"), LayOff(0, one(m, 0, "Kh"), 0))
    assert str(m.round.melds[0]) == "10h Jh Qh Kh"


def test_set_of_four_is_full_and_a_set_never_holds_a_suit_twice() -> None:
    m = scenario("rami", hands=["10c 10d Kd 5s", "3d 4s"],
                 melds=[("10c 10s 10h", 1), ("Kc Ks Kh Kd", 1), ("2c 2s 2h", 0)], turn=0, phase="play")
    refused(m, LayOff(0, one(m, 0, "10c"), 0), "10c")  # second ten of clubs
    refused(m, LayOff(0, one(m, 0, "Kd"), 1), "complete")
    m = play(m, LayOff(0, one(m, 0, "10d"), 0))
    assert len(m.round.melds[0].cards) == 4


def test_set_with_a_joker_refuses_a_suit_already_present() -> None:
    # "A set that contains a joker cannot later take a card of a suit already present in it."
    m = scenario("rami", hands=["10c 10d 5s", "3d 4s"], melds=[("10c 10s *", 1), ("2c 2s 2h", 0)],
                 turn=0, phase="play")
    refused(m, LayOff(0, one(m, 0, "10c"), 0))
    m = play(m, LayOff(0, one(m, 0, "10d"), 0))
    assert sorted(str(x) for x in m.round.melds[0].cards) == ["*", "10c", "10d", "10s"]


def test_opened_player_takes_a_run_joker_with_the_card_it_stands_for() -> None:
    # "a player who has opened may put the natural card a table joker represents in its
    # place and take the joker into their hand"
    m = scenario("rami", hands=["6h 6s 9d 2c", "3d 4s"], melds=[("5h * 7h", 1), ("Kc Ks Kh", 0)],
                 turn=0, phase="play")
    refused(m, RecoverJoker(0, 0, pick(m, 0, "6s")))  # wrong suit
    m = play(m, RecoverJoker(0, 0, pick(m, 0, "6h")))
    assert str(m.round.melds[0]) == "5h 6h 7h"
    assert "*" in hand_text(m, 0)
    # rami: the joker may be kept in hand (no obligation); discard something else
    m = play(m, Discard(0, one(m, 0, "2c")))
    assert "*" in hand_text(m, 0)


def test_set_joker_taken_with_a_missing_suit() -> None:
    m = scenario("rami", hands=["9d 9s 2c 5h", "3d 4s"], melds=[("9c 9h *", 1), ("Kc Ks Kh", 0)],
                 turn=0, phase="play")
    m = play(m, RecoverJoker(0, 0, pick(m, 0, "9d")))
    assert "*" in hand_text(m, 0) and all(not x.is_joker for x in m.round.melds[0].cards)


def test_joker_recovery_with_a_low_and_a_high_ace() -> None:
    m = scenario("rami", hands=["Ad As 5c 7c", "3d 4s"],
                 melds=[("* 2d 3d", 1), ("Qs Ks *", 1), ("Kc Kh Kd", 0)], turn=0, phase="play")
    m = play(m, RecoverJoker(0, 0, pick(m, 0, "Ad")), RecoverJoker(0, 1, pick(m, 0, "As")))
    assert str(m.round.melds[0]) == "Ad 2d 3d" and str(m.round.melds[1]) == "Qs Ks As"
    assert hand_text(m, 0).count("*") == 2


# --- melds ---------------------------------------------------------------------


@pytest.mark.parametrize("text,valid", [
    ("As * *", False),  # example 1: two jokers with one natural
    ("10d 10c 10d", False),  # example 2
    ("Kd Ad 2d", False),  # example 3: runs never wrap
    ("Qd Kd Ad 2d", False),
    ("8d 9d 10d Jd Qd", True),  # example 4
    ("Ad 2d 3d", True),
    ("Qd Kd Ad", True),
    ("Ad 2d 3d 4d 5d 6d 7d 8d 9d 10d Jd Qd Kd", True),  # 13 cards, low ace
    ("2d 3d 4d 5d 6d 7d 8d 9d 10d Jd Qd Kd Ad", True),  # 13 cards, high ace
    ("5h * 7h *", True),  # 4 cards, 2 jokers not adjacent
    ("5h * * 8h", True),  # 4 cards, 2 jokers adjacent
    ("5h 6h * * *", False),  # 3 jokers, 2 naturals
    ("5h 5c * *", True),  # a set of 4 with 2 jokers
    ("5h 5c 5d 5s 5h", False),  # a set has at most 4 cards
    ("5h 6h", False),  # fewer than 3 cards
    ("5h 6s 7h", False),  # one suit in a run
    ("5h 5c 6d", False),
])
def test_meld_validity(text: str, valid: bool) -> None:
    assert check_meld(V, c(text)).valid is valid


def test_two_jokers_in_a_four_card_run_count_as_what_they_stand_for() -> None:
    r = check_meld(V, c("5h * * 8h"))
    assert r.kind == "run" and r.points == 5 + 6 + 7 + 8


# --- discard, going out, rami sec -----------------------------------------------


def test_discarding_a_joker_is_allowed() -> None:
    m = scenario("rami", hands=["* 5c 9d", "3d 4s"], turn=0, phase="play")
    m = play(m, Discard(0, one(m, 0, "*")))
    assert m.round.discard[-1].is_joker


def test_going_out_by_laying_the_last_card_wins_without_a_discard() -> None:
    # "the player whose hand becomes empty wins the round, whether the last card went
    # into a meld, a lay-off, or the discard pile [chosen]"
    m = scenario("rami", hands=["Kd", "2c 9h Jd"], melds=[("Kc Ks Kh", 0)], turn=0, phase="play",
                 laid_before=[True, False])
    m = play(m, LayOff(0, one(m, 0, "Kd"), 0))
    assert m.round.result.winner == 0 and not m.round.result.rami_sec
    assert scores(m) == {0: 0, 1: 2 + 9 + 10}
    assert m.totals == (0, 21)


def test_going_out_by_meld_and_by_discard() -> None:
    m = scenario("rami", hands=["7c 8c 9c", "2c"], melds=[("Kc Ks Kh", 0)], turn=0, phase="play",
                 laid_before=[True, False])
    m = play(m, melds(m, 0, "7c 8c 9c"))
    assert m.round.result.winner == 0
    m = scenario("rami", hands=["7c", "2c"], melds=[("Kc Ks Kh", 0)], turn=0, phase="play",
                 laid_before=[True, False])
    m = play(m, Discard(0, one(m, 0, "7c")))
    assert m.round.result.winner == 0 and scores(m) == {0: 0, 1: 2}


def test_hand_points_ace_15_joker_30_faces_10() -> None:
    table = [("Ac", 15), ("*", 30), ("Kd", 10), ("Qd", 10), ("Jd", 10), ("10d", 10), ("2d", 2), ("9s", 9)]
    for text, pts in table:
        assert hand_points(V, c(text)[0]) == pts


def test_rami_sec_doubles_the_penalties() -> None:
    # all 14 cards laid in one turn, nothing laid before: opponents' penalties x2
    hand = "7c 8c 9c 10c Kd Ks Kh 2s 3s 4s 5s Ah Ad"
    m = scenario("rami", hands=[hand, "Ac * 2d", "5d 5h"], turn=0, phase="draw", stock="Ac",
                 laid_before=[False, False, False])
    m = play(m, DrawStock(0))
    m = play(m, melds(m, 0, "7c 8c 9c 10c", "Kd Ks Kh", "2s 3s 4s 5s", "Ah Ad Ac"))
    res = m.round.result
    assert res.winner == 0 and res.rami_sec
    assert scores(m) == {0: 0, 1: (15 + 30 + 2) * 2, 2: 10 * 2}


def test_rami_sec_with_a_final_discard() -> None:
    hand = "7c 8c 9c 10c Kd Ks Kh 2s 3s 4s Jh Qh Kh"
    m = scenario("rami", hands=[hand, "Ac 5d"], turn=0, phase="draw", stock="9d",
                 laid_before=[False, False])
    m = play(m, DrawStock(0))
    m = play(m, melds(m, 0, "7c 8c 9c 10c", "Kd Ks Kh", "2s 3s 4s", "Jh Qh Kh"))
    assert m.round.result is None
    m = play(m, Discard(0, one(m, 0, "9d")))
    assert m.round.result.winner == 0 and m.round.result.rami_sec
    assert scores(m) == {0: 0, 1: (15 + 5) * 2}


def test_no_rami_sec_when_the_winner_laid_in_an_earlier_turn() -> None:
    m = scenario("rami", hands=["7c 8c 9c", "Ac"], melds=[("Kc Ks Kh", 0)], turn=0, phase="play",
                 laid_before=[True, False])
    m = play(m, melds(m, 0, "7c 8c 9c"))
    assert not m.round.result.rami_sec and scores(m)[1] == 15


# --- stock exhausted ---------------------------------------------------------------


def test_empty_stock_is_refilled_from_the_discard_pile_except_its_top_card() -> None:
    m = scenario("rami", hands=["2c 5d 9h", "3d 4s"], discard="6c 7d 8s Jh", stock="", turn=0, phase="draw")
    m = play(m, DrawStock(0))
    st = m.round
    assert [str(x) for x in st.discard] == ["Jh"]
    assert len(st.stock) == 2
    drawn = set(hand_text(m, 0)) - {"2c", "5d", "9h"}
    assert sorted([*drawn, *(str(x) for x in st.stock)]) == sorted(["6c", "7d", "8s"])


# --- match: elimination -------------------------------------------------------------


def _end_with_penalty(totals: list[int], loser_hand: str, limit: int, n: int = 2):
    hands = ["Kd"] + [loser_hand] + ["2c"] * (n - 2)
    m = scenario("rami", hands=hands, melds=[("Kc Ks Kh", 0)], turn=0, phase="play",
                 laid_before=[True] + [False] * (n - 1), totals=totals, options=MatchOptions(limit=limit))
    return play(m, LayOff(0, one(m, 0, "Kd"), 0))


def test_reaching_the_limit_exactly_is_not_eliminated() -> None:
    # "a player whose total exceeds the point limit (1, 50 or 100) is eliminated"
    m = _end_with_penalty([0, 45], "5c", 50)
    assert m.totals == (0, 50) and not m.over and not m.eliminated[1]


def test_exceeding_the_limit_eliminates_and_the_last_player_wins() -> None:
    m = _end_with_penalty([0, 45], "6c", 50)
    assert m.eliminated[1] and m.over and m.winner == 0


def test_the_others_play_on_after_an_elimination() -> None:
    m = _end_with_penalty([0, 95, 0], "6c", 100, n=3)
    assert m.eliminated == (False, True, False) and not m.over
    assert m.next_players() == (0, 2)


def test_limit_one_is_a_single_round() -> None:
    m = _end_with_penalty([0, 0], "2h", 1)
    assert m.over and m.winner == 0


def test_limits_offered_are_1_50_100() -> None:
    assert set(V.point_limits) == {1, 50, 100}
    with pytest.raises(ValueError):
        MatchOptions(limit=75).resolved(V)


# --- frapper (knock) ---------------------------------------------------------------


def test_knock_window_takes_the_discard_plus_two_and_play_continues_to_the_knockers_left() -> None:
    m = scenario("rami", hands=["5c 9d 2h", "3d 4s Jc", "7h 8h 10s", "Qd Qs 6c"], turn=0, phase="play",
                 stock="Kc Kd Ks Ad", options=MatchOptions(knock=True))
    m = play(m, Discard(0, one(m, 0, "5c")))
    st = m.round
    # "any player other than the discarder and the next player may knock"
    assert set(st.knock_window) == {2, 3}
    refused(m, Knock(1))
    refused(m, Knock(0))
    m = play(m, Knock(3))
    st = m.round
    assert st.turn == 3 and st.phase == "play"
    assert hand_text(m, 3) == sorted(["Qd", "Qs", "6c", "5c", "Kc", "Kd"])
    refused(m, Knock(2))  # "the first knock ... wins"
    m = play(m, Discard(3, one(m, 3, "6c")))
    assert m.round.turn == 0  # "play then continues to the knocker's left"


def test_the_next_player_drawing_closes_the_knock_window() -> None:
    m = scenario("rami", hands=["5c 9d 2h", "3d 4s Jc", "7h 8h 10s"], turn=0, phase="play",
                 stock="Kc Kd Ks Ad", options=MatchOptions(knock=True))
    m = play(m, Discard(0, one(m, 0, "5c")))
    assert m.round.knock_window == (2,)
    m = play(m, DrawStock(1))
    refused(m, Knock(2))


def test_knocking_is_off_unless_the_table_enables_it() -> None:
    m = scenario("rami", hands=["5c 9d 2h", "3d 4s Jc", "7h 8h 10s"], turn=0, phase="play", stock="Kc Kd Ks")
    m = play(m, Discard(0, one(m, 0, "5c")))
    refused(m, Knock(2))


def test_draw_from_the_discard_pile_takes_the_top_card_only() -> None:
    m = scenario("rami", hands=["5c 9d 2h", "3d 4s"], discard="Kc Qd", turn=0, phase="draw")
    refused(m, DrawDiscard(0, 2))
    m = play(m, DrawDiscard(0, 1))
    assert "Qd" in hand_text(m, 0)


# --- more edges: jokers standing for a card already in the meld, full runs, timer ---


def test_a_set_joker_is_not_taken_with_a_twin_of_a_card_already_in_the_set() -> None:
    m = scenario("rami", hands=["10c 10d 2c", "3d"], melds=[("10c 10h *", 1), ("Kc Ks Kh", 0)],
                 turn=0, phase="play")
    refused(m, RecoverJoker(0, 0, pick(m, 0, "10c")))
    m = play(m, RecoverJoker(0, 0, pick(m, 0, "10d")))
    assert "*" in hand_text(m, 0)


def test_a_full_run_a_to_k_takes_nothing_more() -> None:
    # "Runs never wrap": A..K holds the low ace, so neither a high ace nor a joker fits.
    m = scenario("rami", hands=["Ad * 2c 5s", "3d"],
                 melds=[("Ad 2d 3d 4d 5d 6d 7d 8d 9d 10d Jd Qd Kd", 1), ("Kc Ks Kh", 0)],
                 turn=0, phase="play")
    refused(m, LayOff(0, one(m, 0, "Ad"), 0))
    refused(m, LayOff(0, one(m, 0, "*"), 0))


@pytest.mark.parametrize("end,text", [("low", "Ah 2h"), ("high", "Kh Ah")])
def test_an_ace_fits_either_end_of_2_to_k(end: str, text: str) -> None:
    m = scenario("rami", hands=["Ah 2c 5s", "3d"],
                 melds=[("2h 3h 4h 5h 6h 7h 8h 9h 10h Jh Qh Kh", 1), ("Kc Ks Kh", 0)], turn=0, phase="play")
    m = play(m, LayOff(0, one(m, 0, "Ah"), 0, end))
    assert text in str(m.round.melds[0])


def test_joker_limit_applies_to_lay_offs() -> None:
    # "never more jokers than natural cards"
    m = scenario("rami", hands=["* * 2c 5s", "3d"],
                 melds=[("5h * 7h *", 1), ("5c 6c *", 1), ("Kc Ks Kh", 0)], turn=0, phase="play")
    refused(m, LayOff(0, one(m, 0, "*"), 0))
    assert str(play(m, LayOff(0, one(m, 0, "*"), 1)).round.melds[1]) == "5c 6c * *"
    assert str(play(m, LayOff(0, one(m, 0, "*"), 2)).round.melds[2]) == "Kc Ks Kh *"


def test_move_timer_draws_from_stock_and_discards_the_drawn_card() -> None:
    from rami_lan.core import Timeout

    m = scenario("rami", hands=["2c 5s Kd", "3d"], stock="9h 4c", turn=0, phase="draw")
    m = play(m, Timeout(0))
    assert hand_text(m, 0) == ["2c", "5s", "Kd"] and str(m.round.discard[-1]) == "9h"
    assert not m.round.away[0]
    # "never a joker if another card can go"
    m = scenario("rami", hands=["2c 5s Kd", "3d"], stock="* 4c", turn=0, phase="draw")
    m = play(m, Timeout(0))
    assert "*" in hand_text(m, 0) and not m.round.discard[-1].is_joker


def test_two_timeouts_in_a_row_mark_the_player_away() -> None:
    from rami_lan.core import Timeout

    m = scenario("rami", hands=["2c 5s Kd", "3d 7h 9s"], stock="9h 4c 6d 8d", turn=0, phase="draw")
    m = play(m, Timeout(0), DrawStock(1), Discard(1, one(m, 1, "3d")), Timeout(0))
    assert m.round.away[0]


# --- FAIR_SHUFFLE.md, from the page: first dealer and the reshuffle of an empty stock ---


def _spec_stream(key: bytes):
    import hashlib
    import struct

    counter = 0
    while True:
        block = hashlib.sha256(key + struct.pack(">Q", counter)).digest()
        counter += 1
        for k in range(0, 32, 4):
            yield struct.unpack(">I", block[k : k + 4])[0]


def _spec_uniform(words, m: int) -> int:
    limit = 2**32 - (2**32 % m)
    while True:
        w = next(words)
        if w < limit:
            return w % m


def _spec_shuffle(items: list, key: bytes) -> list:
    out = list(items)
    words = _spec_stream(key)
    for i in range(len(out) - 1, 0, -1):
        j = _spec_uniform(words, i + 1)
        out[i], out[j] = out[j], out[i]
    return out


VECTOR_SEED = bytes.fromhex("b444f6212329e08819803405e912b2a38e06330fed9dd99772bf6da47e5eba76")


def test_fair_shuffle_test_vector_deck_and_first_dealer() -> None:
    import hashlib

    from rami_lan.core import new_match
    from rami_lan.core.cards import card_from_id

    ids = _spec_shuffle(list(range(110)), VECTOR_SEED)
    assert ids[:10] == [90, 73, 78, 100, 35, 51, 9, 18, 95, 62]
    dealer = _spec_uniform(_spec_stream(hashlib.sha256(b"rami-lan dealer v1" + VECTOR_SEED).digest()), 2)
    assert dealer == 0
    deck = [card_from_id(i, 2, 6) for i in ids]
    m, _ = start_round(new_match("rami", 2), deck, VECTOR_SEED)
    assert m.dealer == 0 and m.round.turn == 1
    assert list(m.round.hands[1][:3]) == [deck[0], deck[2], deck[4]]


def test_reshuffle_follows_the_fair_shuffle_page() -> None:
    import hashlib
    import struct

    m = scenario("rami", hands=["2c 5d 9h", "3d 4s"], discard="6c 7d 8s 10h Qc Jh", stock="", turn=0,
                 phase="draw", seed=VECTOR_SEED)
    pile = list(m.round.discard[:-1])
    m = play(m, DrawStock(0))
    key = hashlib.sha256(b"rami-lan reshuffle v1" + VECTOR_SEED + struct.pack(">I", 1)).digest()
    expect = _spec_shuffle(pile, key)
    assert m.round.hands[0][-1] == expect[0]
    assert list(m.round.stock) == expect[1:]


def test_two_to_four_players() -> None:
    from rami_lan.core import new_match

    for n in (1, 5):
        with pytest.raises(ValueError):
            new_match("rami", n)


def test_melds_are_never_rearranged_a_card_goes_only_at_an_end() -> None:
    # "cards are only added at the ends of runs or to sets; the only exception is joker recovery"
    m = scenario("rami", hands=["6h 9d 2c", "3d"], melds=[("5h * 7h", 1), ("Kc Ks Kh", 0)],
                 turn=0, phase="play")
    refused(m, LayOff(0, one(m, 0, "6h"), 0))


def test_no_knock_window_with_two_players() -> None:
    m = scenario("rami", hands=["5c 9d 2h", "3d 4s Jc"], turn=0, phase="play", stock="Kc Kd Ks",
                 options=MatchOptions(knock=True))
    m = play(m, Discard(0, one(m, 0, "5c")))
    assert m.round.knock_window == ()


def test_an_away_player_is_back_as_soon_as_they_act() -> None:
    from rami_lan.core import Timeout

    m = scenario("rami", hands=["2c 5s Kd", "3d 7h 9s"], stock="9h 4c 6d 8d 5h 7c", turn=0, phase="draw")
    m = play(m, Timeout(0), DrawStock(1), Discard(1, one(m, 1, "3d")), Timeout(0))
    assert m.round.away[0]
    m = play(m, DrawStock(1), Discard(1, one(m, 1, "7h")), DrawStock(0))
    assert not m.round.away[0]


def test_legal_actions_agree_with_the_rules_before_opening() -> None:
    from rami_lan.core import LayDown, RecoverJoker, legal_actions

    m = scenario("rami", hands=["7c 7s 7h 10c 6h " + FILL, "2h 3s"], melds=[("Jc Qc Kc", 1), ("5h * 7h", 1)],
                 turn=0, phase="play")
    acts = list(legal_actions(m, 0))
    assert not any(isinstance(a, (LayOff, RecoverJoker, LayDown)) for a in acts)
    assert {str(a.card) for a in acts if isinstance(a, Discard)} == set(hand_text(m, 0))


def test_both_jokers_of_a_four_card_run_come_back_one_at_a_time() -> None:
    m = scenario("rami", hands=["6h 7h 9d 2c", "3d"], melds=[("5h * * 8h", 1), ("Qs Qd Qh", 0)],
                 turn=0, phase="play")
    m = play(m, RecoverJoker(0, 0, pick(m, 0, "6h")))
    assert str(m.round.melds[0]) == "5h 6h * 8h"
    m = play(m, RecoverJoker(0, 0, pick(m, 0, "7h")))
    assert str(m.round.melds[0]) == "5h 6h 7h 8h" and hand_text(m, 0).count("*") == 2


# --- a whole match from rigged decks: rami sec, totals, dealer rotation, elimination ---


def _rigged_deck(hands: dict[int, str], dealer: int, n: int, discard: str, stock_top: str) -> list:
    """The 110 cards in an order that deals ``hands`` (dealt one at a time from the left
    of ``dealer``), then turns ``discard`` up, then puts ``stock_top`` on the stock."""
    deck = full_deck(2, 6)
    left = list(deck)

    def take(text: str) -> list:
        out = []
        for tok in text.split():
            face = parse_cards(tok)[0].face
            card = next(x for x in left if x.face == face)
            left.remove(card)
            out.append(card)
        return out

    want = {s: take(h) for s, h in hands.items()}
    top = take(discard)
    nxt = take(stock_top)
    order = [(dealer + 1 + k) % n for k in range(n)]
    dealt_cards = []
    for k in range(13 * n):
        seat = order[k % n]
        dealt_cards.append(want[seat].pop(0) if want.get(seat) else left.pop(0))
    return dealt_cards + top + nxt + left


def test_a_two_round_match_rami_sec_then_elimination() -> None:
    from rami_lan.core import new_match

    m = new_match("rami", 2, MatchOptions(limit=50))
    sec = "7c 8c 9c 10c Kd Ks Kh 2s 3s 4s Jh Qh Kh"
    loser = "Ac As * 9d 9h 5c 6d 2h 4h 8d Jd Qs 3c"  # 15+15+30+9+9+5+6+2+4+8+10+10+3 = 126
    m, _ = start_round(m, _rigged_deck({0: sec, 1: loser}, 1, 2, "5s", "9s"), bytes(32), dealer=1)
    assert m.round.turn == 0 and hand_text(m, 1) == sorted(loser.split())
    m = play(m, DrawStock(0), melds(m, 0, "7c 8c 9c 10c", "Kd Ks Kh", "2s 3s 4s", "Jh Qh Kh"))
    m = play(m, Discard(0, one(m, 0, "9s")))
    assert m.round.result.rami_sec and m.totals == (0, 252)
    # 252 > 50: seat 1 is eliminated, seat 0 is the last player left
    assert m.over and m.winner == 0 and m.eliminated == (False, True)


def test_totals_add_up_over_rounds_and_the_dealer_moves_left() -> None:
    from rami_lan.core import new_match

    m = new_match("rami", 3, MatchOptions(limit=100))
    out = "7c 8c 9c 10c Kd Ks Kh 2s 3s 4s Jh Qh Kh"
    m, _ = start_round(m, _rigged_deck({1: out}, 0, 3, "5s", "9s"), bytes(32), dealer=0)
    assert m.round.turn == 1
    # seat 1 lays out over two turns (no rami sec): melds first, then out next turn
    m = play(m, DrawStock(1), melds(m, 1, "7c 8c 9c 10c", "Kd Ks Kh", "2s 3s 4s"))
    m = play(m, Discard(1, one(m, 1, "9s")))
    m = play(m, DrawStock(2), Discard(2, m.round.hands[2][-1]))
    m = play(m, DrawStock(0), Discard(0, m.round.hands[0][-1]))
    m = play(m, DrawStock(1))
    drawn = m.round.hands[1][-1]
    m = play(m, melds(m, 1, "Jh Qh Kh"), Discard(1, drawn))
    res = m.round.result
    assert res.winner == 1 and not res.rami_sec
    h0, h2 = dict(res.hand_points)[0], dict(res.hand_points)[2]
    assert h0 == sum(hand_points(V, x) for x in m.round.hands[0])
    assert m.totals == (h0, 0, h2)
    assert (h0, h2) == (86, 112)  # the rigged deck's leftovers: seat 2 goes over 100
    assert m.eliminated == (False, False, True) and not m.over
    m2, _ = start_round(m, full_deck(2, 6), bytes(32))
    # the dealer moves one seat left among the players still in: 0 -> 1; seat 0 plays first
    assert m2.dealer == 1 and m2.round.players == (0, 1) and m2.round.turn == 0
