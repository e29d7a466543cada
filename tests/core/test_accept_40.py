"""Acceptance tests for `40` (source 004), written from VARIANTS.md as an outsider would.

Two decks + 2 jokers, 13 cards, open with >= 40, ace high only (11), set-joker
recovery with both missing suits, going out only by a discard, going rami +25.
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

V = VARIANTS["40"]
FILL = "2c 4d 6s 8h 9c Jd"


def c(text: str):
    return parse_cards(text)


def test_deck_and_deal() -> None:
    assert V.deck_size == 106
    m, deck, _ = dealt("40", 4, dealer=3)
    st = m.round
    assert st.turn == 0 and all(len(st.hands[s]) == 13 for s in range(4))
    assert st.discard == (deck[52],) and len(st.stock) == 106 - 53


# --- opening: >= 40 ------------------------------------------------------------------------


def _hand(text: str, **kw):
    return scenario("40", hands=[text + " " + FILL, "2h 3s"], turn=0, phase=kw.pop("phase", "play"), **kw)


def test_exactly_40_opens_39_does_not() -> None:
    m = _hand("Qh Kh Ah 3c 3s 3h 10c Jc Qc")
    m2 = play(m, melds(m, 0, "Qh Kh Ah", "3c 3s 3h"))  # 31 + 9
    assert m2.round.opened[0]
    refused(m, melds(m, 0, "10c Jc Qc", "3c 3s 3h"))  # 30 + 9


def test_one_meld_of_40_opens() -> None:
    m = _hand("10c Jc Qc Kc")
    assert play(m, melds(m, 0, "10c Jc Qc Kc")).round.opened[0]


def test_joker_counts_as_the_card_it_stands_for_in_the_opening() -> None:
    assert check_meld(V, c("Qh Kh *")).points == 31  # the joker is the ace: 11
    m = _hand("Qh Kh * 3c 3s 3h")
    assert play(m, melds(m, 0, "Qh Kh *", "3c 3s 3h")).round.opened[0]


def test_before_opening_no_lay_off() -> None:
    m = scenario("40", hands=["10c " + FILL, "2h 3s"], melds=[("7c 8c 9c", 1)], turn=0, phase="play")
    refused(m, LayOff(0, one(m, 0, "10c"), 0))


# --- taking the discard before opening ---------------------------------------------------


def test_unopened_player_may_take_the_discard_only_to_open_with_it() -> None:
    # "A player who has not yet opened may take the top discard only if, in that same
    # turn, they open with >= 40 points (the taken card must be part of the opening)"
    m = scenario("40", hands=["Qh Kh 3c 3s 3h 9d 5c", "2h 3d"], discard="Ah", turn=0, phase="draw")
    m = play(m, DrawDiscard(0))
    refused(m, Discard(0, one(m, 0, "9d")))
    m = play(m, melds(m, 0, "Qh Kh Ah", "3c 3s 3h"), Discard(0, one(m, 0, "9d")))
    assert m.round.opened[0] and m.round.turn == 1


def test_unopened_player_may_not_take_a_discard_that_does_not_open() -> None:
    m = scenario("40", hands=["Qh Kh 3c 3s 3h 9d 5c", "2h 3d"], discard="7s", turn=0, phase="draw")
    refused(m, DrawDiscard(0))
    m = scenario("40", hands=["10c Jc Qc", "2h 3d"], discard="Kc", turn=0, phase="draw")
    refused(m, DrawDiscard(0))  # 10 J Q K = 40 but nothing would be left to discard
    m = scenario("40", hands=["10c Jc Qc 5d", "2h 3d"], discard="Kc", turn=0, phase="draw")
    assert "Kc" in hand_text(play(m, DrawDiscard(0)), 0)


def test_the_opening_must_contain_the_taken_card() -> None:
    m = scenario("40", hands=["Qh Kh 10c Jc Qc Kc 5c 7d", "2h 3d"], discard="Ah", turn=0, phase="draw")
    m = play(m, DrawDiscard(0))
    refused(m, melds(m, 0, "10c Jc Qc Kc"), "Ah")
    m = play(m, melds(m, 0, "10c Jc Qc Kc", "Qh Kh Ah"), Discard(0, one(m, 0, "5c")))
    assert m.round.opened[0]


def test_an_opened_player_takes_the_discard_freely() -> None:
    m = scenario("40", hands=["9d 5c 2s", "2h 3d"], melds=[("Kc Ks Kh", 0)], discard="7s", turn=0,
                 phase="draw")
    m = play(m, DrawDiscard(0), Discard(0, one(m, 0, "9d")))
    assert "7s" in hand_text(m, 0)


# --- aces and jokers in melds ----------------------------------------------------------------


@pytest.mark.parametrize("text,kind,valid,points", [
    ("Qh Kh Ah", None, True, 31),  # example 8
    ("Ah 2h 3h", None, False, 0),
    ("Kh Ah 2h", None, False, 0),
    ("Ac As Ah", None, True, 33),
    ("10c * *", "set", True, 30),  # a set may hold two jokers
    ("5h * *", "run", True, 18),
    ("5h * 7h *", None, True, 26),
    ("2h 3h 4h 5h 6h 7h 8h 9h 10h Jh Qh Kh Ah", None, True, 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 40 + 11),
    ("* 2h 3h", "run", True, 9),  # no low ace in 40: the joker goes high (2 3 4), docs/rules.md
])
def test_melds(text: str, kind: str | None, valid: bool, points: int) -> None:
    r = check_meld(V, c(text), kind)  # type: ignore[arg-type]
    assert r.valid is valid
    if valid:
        assert r.points == points


def test_an_ambiguous_two_joker_meld_must_be_declared() -> None:
    assert not check_meld(V, c("10c * *")).valid


def test_a_joker_may_be_added_to_any_meld_on_the_table() -> None:
    m = scenario("40", hands=["* * 2c 9d", "3d"], melds=[("7c 8c 9c", 1), ("Kc Ks Kh", 1), ("Qd Qs Qh", 0)],
                 turn=0, phase="play")
    m = play(m, LayOff(0, one(m, 0, "*"), 0))
    m = play(m, LayOff(0, one(m, 0, "*"), 1))
    assert m.round.melds[0].n_jokers == 1 and m.round.melds[1].n_jokers == 1


def test_an_ace_goes_after_a_king_only() -> None:
    m = scenario("40", hands=["Ah Ad 9c 5s", "3d"], melds=[("2h 3h 4h", 1), ("Jd Qd Kd", 1), ("Qc Qs Qh", 0)],
                 turn=0, phase="play")
    refused(m, LayOff(0, one(m, 0, "Ah"), 0))
    m = play(m, LayOff(0, one(m, 0, "Ad"), 1))
    assert str(m.round.melds[1]) == "Jd Qd Kd Ad"


# --- joker recovery ------------------------------------------------------------------------


def test_run_joker_taken_by_the_card_it_stands_for_by_anyone() -> None:
    # "Run: a player holding the card a joker represents may put it in and take the joker."
    for owner in (0, 1):
        m = scenario("40", hands=["Qh 9d 5s", "3d"], melds=[("Jh * Kh", owner), ("Qc Qs Qd", 0)],
                     turn=0, phase="play")
        m = play(m, RecoverJoker(0, 0, pick(m, 0, "Qh")))
        assert str(m.round.melds[0]) == "Jh Qh Kh" and "*" in hand_text(m, 0)


def test_set_joker_freed_by_both_missing_suits_example_10() -> None:
    m = scenario("40", hands=["10s 10d 9d 5s", "3d"], melds=[("10c 10h *", 1), ("Qc Qs Qd", 0)],
                 turn=0, phase="play")
    refused(m, RecoverJoker(0, 0, pick(m, 0, "10s")))
    m = play(m, RecoverJoker(0, 0, pick(m, 0, "10s 10d")))
    assert sorted(str(x) for x in m.round.melds[0].cards) == ["10c", "10d", "10h", "10s"]
    assert "*" in hand_text(m, 0)
    # "The freed joker goes to the player's hand and may be used elsewhere."
    m = play(m, LayOff(0, one(m, 0, "*"), 1))
    assert m.round.melds[1].n_jokers == 1


def test_one_missing_suit_closes_the_set_for_good() -> None:
    m = scenario("40", hands=["10s 10d 10d 5s", "3d"], melds=[("10c 10h *", 1), ("Qc Qs Qd", 0)],
                 turn=0, phase="play")
    m = play(m, LayOff(0, one(m, 0, "10s"), 0))
    assert sorted(str(x) for x in m.round.melds[0].cards) == ["*", "10c", "10h", "10s"]
    refused(m, RecoverJoker(0, 0, pick(m, 0, "10d")))
    refused(m, RecoverJoker(0, 0, pick(m, 0, "10d 10d")))
    refused(m, LayOff(0, one(m, 0, "10d"), 0))


def test_set_with_two_jokers_frees_one_and_closes() -> None:
    m = scenario("40", hands=["10h 10s 5s 9d", "3d"], melds=[("10c * *", 1, "set"), ("Qc Qs Qd", 0)],
                 turn=0, phase="play")
    m = play(m, RecoverJoker(0, 0, pick(m, 0, "10h 10s")))
    meld = m.round.melds[0]
    assert len(meld.cards) == 4 and meld.n_jokers == 1
    assert hand_text(m, 0).count("*") == 1


def test_only_an_opponent_frees_a_set_joker() -> None:
    # docs/rules.md, issue 10: "an opponent frees the joker by adding both missing suits"
    m = scenario("40", hands=["10s 10d 5s 9d", "3d"], melds=[("10c 10h *", 0)], turn=0, phase="play")
    refused(m, RecoverJoker(0, 0, pick(m, 0, "10s 10d")))


def test_recovery_needs_an_opened_player() -> None:
    m = scenario("40", hands=["Qh " + FILL, "3d"], melds=[("Jh * Kh", 1)], turn=0, phase="play")
    refused(m, RecoverJoker(0, 0, pick(m, 0, "Qh")))


# --- stock, going out, going rami, scoring ---------------------------------------------------


def test_empty_stock_reshuffles_the_pile_except_the_last_discard() -> None:
    m = scenario("40", hands=["2c 5d 9h", "3d 4s"], melds=[("Kc Ks Kh", 0)], discard="6c 7d 8s Jh",
                 stock="", turn=0, phase="draw")
    m = play(m, DrawStock(0))
    assert [str(x) for x in m.round.discard] == ["Jh"] and len(m.round.stock) == 2


def test_going_out_only_by_discarding_the_last_card() -> None:
    m = scenario("40", hands=["7c 8c 9c", "Ac *"], melds=[("Kc Ks Kh", 0)], turn=0, phase="play",
                 laid_before=[True, False])
    refused(m, melds(m, 0, "7c 8c 9c"))
    m = scenario("40", hands=["7c 8c 9c 2d", "Ac * 5h"], melds=[("Kc Ks Kh", 0)], turn=0, phase="play",
                 laid_before=[True, False])
    m = play(m, melds(m, 0, "7c 8c 9c"), Discard(0, one(m, 0, "2d")))
    res = m.round.result
    assert res.winner == 0 and not res.rami_sec
    assert scores(m) == {0: 0, 1: 11 + 15 + 5}


def test_hand_points_ace_11_joker_15() -> None:
    assert [hand_points(V, x) for x in c("Ac * Kd 10d 7s")] == [11, 15, 10, 10, 7]


def test_going_rami_adds_25_to_each_opponent() -> None:
    hand = "7c 8c 9c 10c Kd Ks Kh 2s 3s 4s Jh Qh Kh"
    m = scenario("40", hands=[hand, "Ac 5d", "*"], turn=0, phase="draw", stock="9d",
                 laid_before=[False, False, False])
    m = play(m, DrawStock(0))
    m = play(m, melds(m, 0, "7c 8c 9c 10c", "Kd Ks Kh", "2s 3s 4s", "Jh Qh Kh"), Discard(0, one(m, 0, "9d")))
    res = m.round.result
    assert res.winner == 0 and res.rami_sec
    assert scores(m) == {0: 0, 1: 11 + 5 + 25, 2: 15 + 25}


def test_going_rami_counts_lay_offs_too() -> None:
    # "all cards laid in one turn (melds and lay-offs) with no earlier melds that round"
    hand = "7c 8c 9c 10c Kd Ks Kh 2s 3s 4s 5s 6s 7s"
    m = scenario("40", hands=[hand, "Ac", "Qc Qs Qh"], melds=[("Qc Qs Qh", 2)], turn=0, phase="draw",
                 stock="Qd 5c", laid_before=[False, False, True])
    m = play(m, DrawStock(0), melds(m, 0, "7c 8c 9c 10c", "Kd Ks Kh", "2s 3s 4s 5s 6s"))
    m = play(m, LayOff(0, one(m, 0, "Qd"), 0), Discard(0, one(m, 0, "7s")))
    res = m.round.result
    assert res.winner == 0 and res.rami_sec and scores(m)[1] == 11 + 25


# --- match -----------------------------------------------------------------------------------


def test_default_limit_is_101_elimination() -> None:
    assert MatchOptions().resolved(V).limit == 101
    m = scenario("40", hands=["2d", "Kc"], melds=[("Qc Qs Qh", 0)], turn=0, phase="play",
                 laid_before=[True, False], totals=[0, 91])
    m = play(m, Discard(0, one(m, 0, "2d")))
    assert m.totals == (0, 101) and not m.over
    m = scenario("40", hands=["2d", "Kc Ac"], melds=[("Qc Qs Qh", 0)], turn=0, phase="play",
                 laid_before=[True, False], totals=[0, 91])
    m = play(m, Discard(0, one(m, 0, "2d")))
    assert m.over and m.winner == 0


def test_taken_discard_may_extend_a_run_that_already_made_40() -> None:
    m = scenario("40", hands=["10c Jc Qc Kc 5d 7s", "2h 3d"], discard="9c", turn=0, phase="draw")
    m = play(m, DrawDiscard(0))
    m = play(m, melds(m, 0, "9c 10c Jc Qc Kc"), Discard(0, one(m, 0, "7s")))
    assert m.round.opened[0] and len(m.round.melds[0].cards) == 5


def test_legal_actions_offer_the_discard_to_an_unopened_player_only_when_it_opens() -> None:
    from rami_lan.core import legal_actions

    m = scenario("40", hands=["Qh Kh 3c 3s 3h 9d 5c", "2h 3d"], discard="Ah", turn=0, phase="draw")
    assert DrawDiscard(0, 1) in list(legal_actions(m, 0))
    m = scenario("40", hands=["Qh Kh 3c 3s 3h 9d 5c", "2h 3d"], discard="7s", turn=0, phase="draw")
    assert DrawDiscard(0, 1) not in list(legal_actions(m, 0))


def test_run_with_two_jokers_gives_either_back_for_its_card() -> None:
    for card, left in (("6h", "5h 6h *"), ("7h", "5h * 7h")):
        m = scenario("40", hands=["6h 7h 9d 2c", "3d"], melds=[("5h * *", 1, "run"), ("Qs Qd Qh", 0)],
                     turn=0, phase="play")
        m = play(m, RecoverJoker(0, 0, pick(m, 0, card)))
        assert str(m.round.melds[0]) == left and "*" in hand_text(m, 0)


def test_a_high_ace_joker_is_taken_with_the_ace() -> None:
    m = scenario("40", hands=["Ac 9d 2c", "3d"], melds=[("Qc Kc *", 1), ("Qs Qd Qh", 0)], turn=0,
                 phase="play")
    m = play(m, RecoverJoker(0, 0, pick(m, 0, "Ac")))
    assert str(m.round.melds[0]) == "Qc Kc Ac"


def test_one_suit_on_a_two_joker_set_closes_it() -> None:
    m = scenario("40", hands=["10s 10h 9d 2c", "3d"], melds=[("10c * *", 1, "set"), ("Qs Qd Qh", 0)],
                 turn=0, phase="play")
    m = play(m, LayOff(0, one(m, 0, "10s"), 0))
    assert len(m.round.melds[0].cards) == 4 and m.round.melds[0].n_jokers == 2
    refused(m, RecoverJoker(0, 0, pick(m, 0, "10h")))
    refused(m, LayOff(0, one(m, 0, "10h"), 0))


def test_the_owner_may_close_their_own_set_with_one_suit() -> None:
    m = scenario("40", hands=["10s 9d 2c", "3d"], melds=[("10c 10h *", 0)], turn=0, phase="play")
    m = play(m, LayOff(0, one(m, 0, "10s"), 0))
    assert len(m.round.melds[0].cards) == 4


def test_the_owner_of_a_two_joker_set_may_not_free_a_joker() -> None:
    # docs/rules.md (issue 10) reads "un adversaire" as covering every 3-card set with a
    # joker, the two-joker set included (the source's example there says "un joueur").
    m = scenario("40", hands=["10h 10s 5s 9d", "3d"], melds=[("10c * *", 0, "set")], turn=0, phase="play")
    refused(m, RecoverJoker(0, 0, pick(m, 0, "10h 10s")))
