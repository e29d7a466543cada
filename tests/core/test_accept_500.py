"""Acceptance tests for `500` (source 003), written from VARIANTS.md as an outsider would.

One deck + 2 jokers, 7 cards, take deep into the discard pile (the chosen card must be
used that turn), every card laid scores, score = laid - hand, to 500.
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
    view_for,
)

V = VARIANTS["500"]


def c(text: str):
    return parse_cards(text)


# --- deck and deal ---------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4])
def test_one_deck_two_jokers_seven_cards_each(n: int) -> None:
    assert V.deck_size == 54
    m, deck, _ = dealt("500", n, dealer=0)
    st = m.round
    assert st.turn == 1
    assert all(len(st.hands[s]) == 7 for s in range(n))
    assert st.discard == (deck[7 * n],) and len(st.stock) == 54 - 7 * n - 1


def test_the_whole_discard_pile_is_visible_to_everyone_in_order() -> None:
    m = scenario("500", hands=["2c 9d Jh", "5s 6s"], discard="Kc Qd 4h", turn=0, phase="draw")
    for seat in (0, 1):
        assert [str(x) for x in view_for(m, seat).discard] == ["Kc", "Qd", "4h"]


# --- drawing deep into the pile ------------------------------------------------------------


def test_taking_deep_takes_every_card_above_and_the_chosen_card_must_be_used() -> None:
    # "any card of the discard pile together with every card above it. When more than
    # one card is taken, the deepest card taken (the one chosen) must be used in a meld,
    # a lay-off or a joker replacement in that same turn."
    m = scenario("500", hands=["8c 9c 2d 5s", "5h 6h"], discard="3s 10c Qd 4h", turn=0, phase="draw")
    m = play(m, DrawDiscard(0, 3))
    assert sorted(hand_text(m, 0)) == sorted(["8c", "9c", "2d", "5s", "10c", "Qd", "4h"])
    assert [str(x) for x in m.round.discard] == ["3s"]
    refused(m, Discard(0, one(m, 0, "2d")))  # 10c not used yet
    refused(m, Discard(0, one(m, 0, "10c")))
    m = play(m, melds(m, 0, "8c 9c 10c"))
    # the other cards taken may be discarded
    m = play(m, Discard(0, one(m, 0, "Qd")))
    assert str(m.round.discard[-1]) == "Qd"


def test_a_deep_card_that_can_not_be_used_may_not_be_taken() -> None:
    m = scenario("500", hands=["8c 2d 5s", "5h 6h"], discard="3s Kh Qd 4h", turn=0, phase="draw")
    refused(m, DrawDiscard(0, 3))


def test_the_deep_card_may_be_laid_off_or_replace_a_joker() -> None:
    m = scenario("500", hands=["2d 5s 9h", "5h 6h"], discard="3s 10c Qd", melds=[("7c 8c 9c", 1)],
                 turn=0, phase="draw", opened=[False, True], laid_before=[False, True])
    m = play(m, DrawDiscard(0, 2))
    m = play(m, LayOff(0, one(m, 0, "10c"), 0), Discard(0, one(m, 0, "Qd")))
    assert str(m.round.melds[0]) == "7c 8c 9c 10c"
    m = scenario("500", hands=["2d 5s 9h", "5h 6h"], discard="3s 6c Qd", melds=[("5c * 7c", 1)],
                 turn=0, phase="draw")
    m = play(m, DrawDiscard(0, 2))
    m = play(m, RecoverJoker(0, 0, pick(m, 0, "6c")), Discard(0, one(m, 0, "Qd")))
    assert str(m.round.melds[0]) == "5c 6c 7c" and "*" in hand_text(m, 0)


def test_the_top_card_alone_may_be_kept_but_not_discarded() -> None:
    # "When only the top card is taken it may be kept, but not discarded in that turn."
    m = scenario("500", hands=["2d 5s 9h", "5h 6h"], discard="3s Qd", turn=0, phase="draw")
    m = play(m, DrawDiscard(0, 1))
    refused(m, Discard(0, one(m, 0, "Qd")))
    m = play(m, Discard(0, one(m, 0, "9h")))
    assert "Qd" in hand_text(m, 0)


# --- no opening, every card laid scores ----------------------------------------------------


def test_lay_off_before_melding_scores_for_the_player() -> None:
    m = scenario("500", hands=["10c 2d 5s", "5h 6h"], melds=[("7c 8c 9c", 1)], turn=0, phase="play",
                 opened=[False, True], laid_before=[False, True], laid_points=[0, 24])
    m = play(m, LayOff(0, one(m, 0, "10c"), 0))
    assert m.round.laid_points == (10, 24)


@pytest.mark.parametrize("text,points", [
    ("Ah 2h 3h", 6),  # example 9: the ace before 2 3 counts 1
    ("Qh Kh Ah", 31),
    ("Ac As Ah", 33),
    ("* 2h 3h", 6),  # the joker is the low ace
    ("Qh Kh *", 31),  # the joker is the high ace
    ("Kc Ks *", 30),
    ("5h * 7h *", 26),
])
def test_meld_points(text: str, points: int) -> None:
    r = check_meld(V, c(text))
    assert r.valid and r.points == points


@pytest.mark.parametrize("text", ["As * *", "Kd Ad 2d", "10d 10c 10d", "5h * * * 9h"])
def test_invalid_melds(text: str) -> None:
    assert not check_meld(V, c(text)).valid


def test_ace_laid_off_low_scores_1_high_scores_11() -> None:
    m = scenario("500", hands=["Ah Ad 5s 9c", "5h 6h"], melds=[("2h 3h 4h", 1), ("Jd Qd Kd", 1)],
                 turn=0, phase="play", opened=[False, True])
    m = play(m, LayOff(0, one(m, 0, "Ah"), 0))
    assert m.round.laid_points[0] == 1
    m = play(m, LayOff(0, one(m, 0, "Ad"), 1))
    assert m.round.laid_points[0] == 12


def test_joker_recovery_joker_to_hand_and_the_natural_scores() -> None:
    m = scenario("500", hands=["6c 2d 5s", "5h 6h"], melds=[("5c * 7c", 1)], turn=0, phase="play",
                 opened=[False, True])
    m = play(m, RecoverJoker(0, 0, pick(m, 0, "6c")))
    assert "*" in hand_text(m, 0) and m.round.laid_points[0] == 6
    m = play(m, Discard(0, one(m, 0, "2d")))  # the joker may be kept
    assert "*" in hand_text(m, 0)


# --- going out, stock empty, scoring --------------------------------------------------------


def test_going_out_needs_the_last_card_discarded() -> None:
    m = scenario("500", hands=["7c 8c 9c", "Ah *"], turn=0, phase="play")
    refused(m, melds(m, 0, "7c 8c 9c"))
    m = scenario("500", hands=["7c 8c 9c 2d", "Ah * 4s"], turn=0, phase="play", laid_points=[10, 30])
    m = play(m, melds(m, 0, "7c 8c 9c"), Discard(0, one(m, 0, "2d")))
    res = m.round.result
    assert res.winner == 0 and res.reason == "out"
    # "meld points of all cards they laid this round minus the hand points ... A = 15
    # and joker = 15"
    assert scores(m) == {0: 10 + 24, 1: 30 - (15 + 15 + 4)}


def test_scores_can_be_negative() -> None:
    m = scenario("500", hands=["2d", "Ah * Kc"], turn=0, phase="play")
    m = play(m, Discard(0, one(m, 0, "2d")))
    assert scores(m) == {0: 0, 1: -40}


def test_hand_points_ace_15_joker_15() -> None:
    assert [hand_points(V, x) for x in c("Ac * Kd 10d 7s")] == [15, 15, 10, 10, 7]


def test_round_ends_when_the_stock_is_empty_at_the_end_of_a_turn() -> None:
    m = scenario("500", hands=["7c 9d 2s", "Ah 5h"], stock="Kc", discard="3s", turn=0, phase="draw",
                 laid_points=[20, 5])
    m = play(m, DrawStock(0))
    assert m.round.result is None and not m.round.stock
    m = play(m, Discard(0, one(m, 0, "Kc")))
    res = m.round.result
    assert res.reason == "stock" and res.winner is None
    assert scores(m) == {0: 20 - (7 + 9 + 2), 1: 5 - (15 + 5)}


# --- match: to 500, ties, quick ------------------------------------------------------------


def _finish_round(totals: list[int], laid: list[int], options: MatchOptions | None = None, n: int = 2):
    hands = ["2d", "4s", "5s", "6s"][:n]
    m = scenario("500", hands=hands, turn=0, phase="play", laid_points=laid, totals=totals, options=options)
    return play(m, Discard(0, one(m, 0, "2d")))


def test_first_to_reach_500_wins() -> None:
    m = _finish_round([480, 400], [20, 0])
    assert m.totals == (500, 396) and m.over and m.winner == 0


def test_below_500_the_match_goes_on() -> None:
    m = _finish_round([470, 400], [29, 0])
    assert m.totals == (499, 396) and not m.over


def test_several_reach_the_target_the_highest_wins() -> None:
    m = _finish_round([480, 490], [40, 24])
    assert m.totals == (520, 510) and m.over and m.winner == 0


def test_a_tie_at_the_top_is_broken_by_more_rounds_between_the_tied() -> None:
    m = _finish_round([480, 490, 100], [30, 24, 0], n=3)
    assert m.totals == (510, 510, 95)
    assert not m.over and set(m.next_players()) == {0, 1}


def test_quick_match_is_three_rounds_highest_total_wins() -> None:
    opts = MatchOptions(quick=True)
    m = scenario("500", hands=["2d", "4s"], turn=0, phase="play", laid_points=[50, 0], totals=[0, 100],
                 options=opts, round_no=2)
    m = play(m, Discard(0, one(m, 0, "2d")))
    assert not m.over
    m = scenario("500", hands=["2d", "4s"], turn=0, phase="play", laid_points=[50, 0], totals=[0, 100],
                 options=opts, round_no=3)
    m = play(m, Discard(0, one(m, 0, "2d")))
    assert m.over and m.winner == 1 and m.totals == (50, 96)


def test_the_target_is_500_by_default_and_chosen_at_the_table() -> None:
    assert MatchOptions().resolved(V).limit == 500
    assert MatchOptions(limit=300).resolved(V).limit == 300


def test_tie_break_round_is_played_by_the_tied_players_only_and_decides() -> None:
    from dataclasses import replace

    from rami_lan.core import full_deck, start_round

    m = _finish_round([480, 490, 100], [30, 24, 0], n=3)
    assert m.tiebreak == (0, 1)
    m, _ = start_round(m, full_deck(1, 2), bytes(32))
    assert m.round.players == (0, 1)
    # the tie-break round itself: seat 1 lays 12 points and goes out, seat 0 holds a 4
    tb = scenario("500", hands=["4s", "2d", ""], players=[0, 1], turn=1, phase="play",
                  laid_points=[0, 12, 0], totals=[510, 510, 95])
    tb = replace(tb, tiebreak=(0, 1))
    tb = play(tb, Discard(1, one(tb, 1, "2d")))
    assert tb.totals == (506, 522, 95) and tb.over and tb.winner == 1


def test_a_tie_after_a_tie_break_round_plays_another() -> None:
    from dataclasses import replace

    tb = scenario("500", hands=["4s", "2d", ""], players=[0, 1], turn=1, phase="play",
                  laid_points=[4, 2, 0], totals=[510, 510, 95])
    tb = replace(tb, tiebreak=(0, 1))
    tb = play(tb, Discard(1, one(tb, 1, "2d")))
    assert tb.totals == (510, 512, 95) and tb.winner == 1
    tb = scenario("500", hands=["4s", "2d", ""], players=[0, 1], turn=1, phase="play",
                  laid_points=[4, 0, 0], totals=[510, 510, 95])
    tb = replace(tb, tiebreak=(0, 1))
    tb = play(tb, Discard(1, one(tb, 1, "2d")))
    assert tb.totals == (510, 510, 95) and not tb.over and tb.next_players() == (0, 1)


def test_legal_pile_draws_list_only_usable_depths() -> None:
    from rami_lan.core import legal_actions

    m = scenario("500", hands=["2d 5s", "5h 6h"], discard="3s 8c 9c 10c", turn=0, phase="draw")
    assert {a.depth for a in legal_actions(m, 0) if isinstance(a, DrawDiscard)} == {1, 3}
    m = play(m, DrawDiscard(0, 3))
    assert [type(a).__name__ for a in legal_actions(m, 0)] == ["LayDown"]
