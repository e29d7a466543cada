"""Rules of the round engine: illegal actions are refused with a clear reason and no
state change; stock exhaustion, frapper, timeouts, going out and rami sec per variant."""

from __future__ import annotations

import pytest
from rigged import card, cards_of, rigged_match, rigged_round

from rami_lan.core import (
    Card,
    Discard,
    DrawDiscard,
    DrawStock,
    IllegalAction,
    Knock,
    LayDown,
    LayOff,
    MatchOptions,
    MeldSpec,
    RecoverJoker,
    Timeout,
    apply,
    match_to_plain,
)
from rami_lan.core import round as R


def refused(st: R.RoundState, action, *fragments: str) -> str:
    """Assert ``action`` is refused, the state unchanged, the reason clear."""
    before = st
    with pytest.raises(IllegalAction) as exc:
        R.apply(st, action)
    assert st == before
    msg = str(exc.value)
    assert f"seat {action.seat}" in msg and f"({st.phase})" in msg
    for f in fragments:
        assert f in msg, msg
    assert not R.is_legal(st, action)
    return msg


HAND = "7c 7s 7h 8d 9d 10d 2c 4h Js Qh Kc 5d 3s"


def test_out_of_turn() -> None:
    st = rigged_round("rami", {0: HAND})
    refused(st, DrawStock(1), "seat 0's turn")


def test_wrong_phase() -> None:
    st = rigged_round("rami", {0: HAND})
    refused(st, Discard(0, card(st, 0, "2c")), "not allowed in the draw phase")
    st, _ = R.apply(st, DrawStock(0))
    refused(st, DrawStock(0), "not allowed in the play phase")


def test_card_not_held() -> None:
    st = rigged_round("rami", {0: HAND})
    st, _ = R.apply(st, DrawStock(0))
    other = st.hands[1][0]
    refused(st, Discard(0, other), f"does not hold {other}")


def test_invalid_meld() -> None:
    st = rigged_round("rami", {0: HAND})
    st, _ = R.apply(st, DrawStock(0))
    spec = MeldSpec(cards_of(st, 0, "2c 4h Js"))
    refused(st, LayDown(0, (spec,)), "is not a valid meld")


def test_opening_under_thirty() -> None:
    st = rigged_round("rami", {0: HAND})
    st, _ = R.apply(st, DrawStock(0))
    refused(st, LayDown(0, (MeldSpec(cards_of(st, 0, "7c 7s 7h")),)), "21 points", "needs 30")
    ok = (MeldSpec(cards_of(st, 0, "7c 7s 7h")), MeldSpec(cards_of(st, 0, "8d 9d 10d")))
    st2, evs = R.apply(st, LayDown(0, ok))
    assert st2.opened[0] and evs[0].opened


def test_opening_under_forty() -> None:
    st = rigged_round("40", {0: "Qh Kh Ah 5c 6c 7c 2d 9s 3h Jd 4s 8c 2s"})
    st, _ = R.apply(st, DrawStock(0))
    refused(st, LayDown(0, (MeldSpec(cards_of(st, 0, "Qh Kh Ah")),)), "31 points", "needs 40")
    both = (MeldSpec(cards_of(st, 0, "Qh Kh Ah")), MeldSpec(cards_of(st, 0, "5c 6c 7c")))
    st2, _ = R.apply(st, LayDown(0, both))
    assert st2.opened[0] and st2.laid_points[0] == 31 + 18


def test_lay_off_before_opening() -> None:
    st = rigged_round("rami", {0: HAND, 1: "Jh Jd Jc Qd Kd Ad 4c 5c 6c 2h 3h 9s 8s"})
    st, _ = R.apply(st, DrawStock(0))
    st, _ = R.apply(st, Discard(0, card(st, 0, "2c")))
    st, _ = R.apply(st, DrawStock(1))
    st, _ = R.apply(
        st, LayDown(1, (MeldSpec(cards_of(st, 1, "Jh Jd Jc")), MeldSpec(cards_of(st, 1, "Qd Kd Ad"))))
    )
    st, _ = R.apply(st, Discard(1, card(st, 1, "9s")))
    st, _ = R.apply(st, DrawStock(0))
    msg = refused(st, LayOff(0, card(st, 0, "Js"), 0), "may not lay off before opening")
    assert "needs 30 points" in msg


def test_classique_lay_off_needs_a_meld_of_ones_own() -> None:
    st = rigged_round("classique", {0: HAND, 1: "Jh Jd Jc 2h 4c 6c 8c 10c Qc 3d 5d 9s 8s"})
    st, _ = R.apply(st, DrawStock(0))
    st, _ = R.apply(st, Discard(0, card(st, 0, "2c")))
    st, _ = R.apply(st, DrawStock(1))
    st, _ = R.apply(st, LayDown(1, (MeldSpec(cards_of(st, 1, "Jh Jd Jc")),)))  # any value opens
    st, _ = R.apply(st, Discard(1, card(st, 1, "9s")))
    st, _ = R.apply(st, DrawStock(0))
    refused(st, LayOff(0, card(st, 0, "Js"), 0), "before opening", "meld of their own")


def test_classique_joker_may_not_be_discarded() -> None:
    st = rigged_round("classique", {0: "* 7s 7h 8d 9d 10d 2c 4h Js Qh Kc 5d 3s"})
    st, _ = R.apply(st, DrawStock(0))
    joker = next(c for c in st.hands[0] if c.is_joker)
    refused(st, Discard(0, joker), "may not discard a joker")
    st_rami = rigged_round("rami", {0: "* 7s 7h 8d 9d 10d 2c 4h Js Qh Kc 5d 3s"})
    st_rami, _ = R.apply(st_rami, DrawStock(0))
    j = next(c for c in st_rami.hands[0] if c.is_joker)
    assert R.is_legal(st_rami, Discard(0, j))


def test_multi_card_taken_from_pile_can_not_be_discarded() -> None:
    st = rigged_round("multi", {0: "2c 4h 6s 8d 10c Qh Ks 3d 5c 7h"}, discard="9s")
    st, _ = R.apply(st, DrawDiscard(0))
    refused(st, Discard(0, card(st, 0, "9s")), "just taken from the discard pile")
    assert R.is_legal(st, Discard(0, card(st, 0, "2c")))


def test_500_deep_card_must_be_used() -> None:
    st = rigged_round("500", {0: "5h 6h 2c 9s Jd 4c 3d", 1: "Ac 4s 8d Qs 10c 2h 7c"}, discard="Ks")
    # build a pile: Ks (first discard), then seat 0 and 1 discard
    st, _ = R.apply(st, DrawStock(0))
    st, _ = R.apply(st, Discard(0, card(st, 0, "2c")))
    st, _ = R.apply(st, DrawStock(1))
    seven = card(st, 1, "7c")
    st, _ = R.apply(st, Discard(1, seven))
    # seat 0 takes from the 7h? no: pile is Ks 2c 7c; take depth 3 (Ks and all above)
    refused(st, DrawDiscard(0, 3), "can not be melded")  # Ks can not be used by seat 0
    st2 = rigged_round("500", {0: "5h 6h 2c 9s Jd Kc 3d"}, discard="7h")
    st2, _ = R.apply(st2, DrawStock(0))
    st2, _ = R.apply(st2, Discard(0, card(st2, 0, "2c")))
    st2, _ = R.apply(st2, DrawStock(1))
    st2, _ = R.apply(st2, Discard(1, st2.hands[1][0]))
    st2, _ = R.apply(st2, DrawDiscard(0, 3))  # 7h and the two above
    seven_h = next(c for c in st2.hands[0] if str(c) == "7h")
    assert st2.must_use == (seven_h,)
    keep = next(c for c in st2.hands[0] if str(c) == "9s")
    refused(st2, Discard(0, keep), "7h must be melded or laid off")
    st3, _ = R.apply(st2, LayDown(0, (MeldSpec(cards_of(st2, 0, "5h 6h 7h")),)))
    assert st3.pending_must_use == () and R.is_legal(st3, Discard(0, keep))
    assert st3.laid_points[0] == 18


def test_500_top_card_may_be_kept_but_not_discarded() -> None:
    st = rigged_round("500", {0: "5h 6h 2c 9s Jd Kc 3d"}, discard="4d")
    st, _ = R.apply(st, DrawDiscard(0, 1))
    refused(st, Discard(0, card(st, 0, "4d")), "just taken")
    assert R.is_legal(st, Discard(0, card(st, 0, "9s")))


def test_only_top_card_outside_500() -> None:
    st = rigged_round("rami", {0: HAND})
    refused(st, DrawDiscard(0, 2), "no card at depth 2")


def test_forty_unopened_take_needs_an_opening_with_it() -> None:
    hand = "Qh Kh 5c 6c 7c 2d 9s 3h Jd 4s 8c 2s 10d"
    st = rigged_round("40", {0: hand}, discard="Ah")
    st2, _ = R.apply(st, DrawDiscard(0))  # Qh Kh Ah (31) + 5c 6c 7c 8c (26) opens
    ah = next(c for c in st2.hands[0] if str(c) == "Ah")
    refused(st2, Discard(0, card(st2, 0, "2d")), "Ah must be melded")
    without = (MeldSpec(cards_of(st2, 0, "5c 6c 7c 8c")), MeldSpec(cards_of(st2, 0, "2d")))
    assert not R.is_legal(st2, LayDown(0, without))
    run = MeldSpec(cards_of(st2, 0, "Qh Kh") + (ah,))
    st3, _ = R.apply(st2, LayDown(0, (run, MeldSpec(cards_of(st2, 0, "5c 6c 7c 8c")))))
    assert st3.opened[0]
    st4 = rigged_round("40", {0: hand}, discard="9c")
    refused(st4, DrawDiscard(0), "only to open with it")


def _classique_joker_on_table(hand1: str) -> tuple[R.RoundState, Card]:
    """Classique: seat 0 opens with ``5h * 7h``; seat 1 (holding ``hand1``) has drawn."""
    st = rigged_round("classique", {0: "5h * 7h Kc Kd Ks 2c 3s 4h 9c Jd 6s 8s", 1: hand1})
    st, _ = R.apply(st, DrawStock(0))
    joker = next(c for c in st.hands[0] if c.is_joker)
    run = MeldSpec(cards_of(st, 0, "5h") + (joker,) + cards_of(st, 0, "7h"))
    st, _ = R.apply(st, LayDown(0, (run,)))
    st, _ = R.apply(st, Discard(0, card(st, 0, "2c")))
    st, _ = R.apply(st, DrawStock(1))
    return st, joker


def test_classique_recovered_joker_must_be_played() -> None:
    st, joker = _classique_joker_on_table("6h 2d 3d 4d 5s Jc Qs 10s 8d 9s 4s 8c 9c")
    refused(st, RecoverJoker(1, 0, cards_of(st, 1, "6h")), "before opening")
    st, _ = R.apply(st, LayDown(1, (MeldSpec(cards_of(st, 1, "2d 3d 4d")),)))
    st, evs = R.apply(st, RecoverJoker(1, 0, cards_of(st, 1, "6h")))
    assert str(st.melds[0]) == "5h 6h 7h" and st.must_use == (joker,)
    refused(st, Discard(1, card(st, 1, "Jc")), "must be melded or laid off")
    st, _ = R.apply(st, LayOff(1, joker, 1, "high"))
    assert str(st.melds[1]) == "2d 3d 4d *"
    assert R.is_legal(st, Discard(1, card(st, 1, "Jc")))


def test_stock_exhaustion_reshuffles_rami() -> None:
    st = rigged_round("rami", {0: HAND})
    # empty the stock by moving it into the pile (as if discarded), keep conservation
    st = R.replace(st, discard=st.discard + st.stock, stock=())
    top = st.discard[-1]
    st2, evs = R.apply(st, DrawStock(0))
    kinds = [type(e).__name__ for e in evs]
    assert kinds[0] == "StockRefilled" and evs[0].shuffled and evs[0].kept == top
    assert st2.discard == (top,) and st2.stock_gen == 1
    drawn = evs[1]
    assert drawn.reshuffle == 1 and drawn.position == 0


def test_stock_exhaustion_turns_over_in_multi() -> None:
    st = rigged_round("multi", {0: "2c 4h 6s 8d 10c Qh Ks 3d 5c 7h"})
    pile = st.discard + st.stock
    st = R.replace(st, discard=pile, stock=())
    st2, evs = R.apply(st, DrawStock(0))
    assert not evs[0].shuffled
    assert evs[1].card == pile[0]  # the bottom of the pile is the new top of the stock
    assert st2.discard == (pile[-1],)


def test_500_round_ends_when_the_stock_is_empty_after_a_turn() -> None:
    st = rigged_round("500", {0: "5h 6h 2c 9s Jd Kc 3d"})
    st = R.replace(st, discard=st.discard + st.stock[1:], stock=st.stock[:1])
    st, _ = R.apply(st, DrawStock(0))
    st, evs = R.apply(st, Discard(0, card(st, 0, "2c")))
    assert st.phase == "over" and st.result.reason == "stock" and st.result.winner is None


def test_rami_going_out_without_discard_and_rami_sec_doubles() -> None:
    hand = "7c 7s 7h 8d 9d 10d Jd Qh Qs Qc 2s 3s 4s"
    st = rigged_round("rami", {0: hand}, stock="5s")
    st, _ = R.apply(st, DrawStock(0))
    melds = tuple(
        MeldSpec(cards_of(st, 0, t)) for t in ("7c 7s 7h", "8d 9d 10d Jd", "Qh Qs Qc", "2s 3s 4s 5s")
    )
    st, evs = R.apply(st, LayDown(0, melds))
    res = st.result
    assert st.phase == "over" and res.winner == 0 and res.rami_sec and res.reason == "out"
    hp = dict(res.hand_points)
    assert dict(res.scores) == {0: 0, 1: 2 * hp[1]}


def test_classique_must_discard_last_card_and_rami_sec_plus_25() -> None:
    hand = "7c 7s 7h 8d 9d 10d Jd Qh Qs Qc 2s 3s 4s"
    st = rigged_round("classique", {0: hand}, stock="Kc")
    st, _ = R.apply(st, DrawStock(0))
    all_four = tuple(
        MeldSpec(cards_of(st, 0, t)) for t in ("7c 7s 7h", "8d 9d 10d Jd", "Qh Qs Qc", "2s 3s 4s")
    )
    # laying every card but one is fine; the last one must be discarded
    st2, _ = R.apply(st, LayDown(0, all_four))
    st3, _ = R.apply(st2, Discard(0, card(st2, 0, "Kc")))
    res = st3.result
    assert res.winner == 0 and res.rami_sec
    hp = dict(res.hand_points)
    assert dict(res.scores)[1] == hp[1] + 25


def test_must_discard_variants_refuse_emptying_the_hand_by_melding() -> None:
    hand = "7c 7s 7h 8d 9d 10d Jd Qh Qs Qc 2s 3s 4s"
    st = rigged_round("classique", {0: hand}, stock="5s")
    st, _ = R.apply(st, DrawStock(0))
    melds = tuple(
        MeldSpec(cards_of(st, 0, t)) for t in ("7c 7s 7h", "8d 9d 10d Jd", "Qh Qs Qc", "2s 3s 4s 5s")
    )
    refused(st, LayDown(0, melds), "must keep a card to discard")


def test_knock_takes_discard_and_two_stock_cards_and_play_continues_left() -> None:
    st = rigged_round("rami", {0: HAND}, n=3, knock=True, stock="Ac 2d 3d 4d")
    st, _ = R.apply(st, DrawStock(0))
    st, _ = R.apply(st, Discard(0, card(st, 0, "2c")))
    assert st.knock_window == (2,)  # not the discarder (0), not the next player (1)
    refused(st, Knock(1), "may not knock now")
    st2, evs = R.apply(st, Knock(2))
    assert st2.turn == 2 and st2.phase == "play" and len(st2.hands[2]) == 13 + 3
    assert [type(e).__name__ for e in evs][:3] == ["Knocked", "StockDrawn", "StockDrawn"]
    st3, _ = R.apply(st2, Discard(2, st2.hands[2][0]))
    assert st3.turn == 0  # the knocker's left
    # the next player's draw closes the window
    st4, _ = R.apply(st, DrawStock(1))
    assert st4.knock_window == ()
    refused(st4, Knock(2), "not allowed in the play phase")


def test_knock_disabled() -> None:
    st = rigged_round("rami", {0: HAND}, n=3)
    st, _ = R.apply(st, DrawStock(0))
    st, _ = R.apply(st, Discard(0, card(st, 0, "2c")))
    refused(st, Knock(2), "not enabled")


def test_timeout_draws_and_discards_the_drawn_card_then_marks_away() -> None:
    st = rigged_round("rami", {0: HAND}, stock="9h Kd")
    st2, evs = R.apply(st, Timeout(0))
    assert st2.discard[-1] == next(c for c in st.stock[:1])
    assert st2.turn == 1 and st2.timeouts[0] == 1 and not st2.away[0]
    st3, _ = R.apply(st2, Timeout(1))
    st4, _ = R.apply(st3, Timeout(0))
    assert st4.away[0] and st4.timeouts[0] == 2
    st5, _ = R.apply(st4, DrawStock(1))
    st5, _ = R.apply(st5, Discard(1, st5.hands[1][0]))
    st6, _ = R.apply(st5, DrawStock(0))
    assert not st6.away[0] and st6.timeouts[0] == 0


def test_timeout_never_discards_a_joker_if_another_card_can_go() -> None:
    st = rigged_round("rami", {0: HAND}, stock="*")
    st2, _ = R.apply(st, Timeout(0))
    assert not st2.discard[-1].is_joker
    assert any(c.is_joker for c in st2.hands[0])


def test_illegal_match_action_leaves_the_match_unchanged() -> None:
    m = rigged_match("rami", {0: HAND}, options=MatchOptions(limit=50))
    snap = match_to_plain(m)
    with pytest.raises(IllegalAction):
        apply(m, Discard(0, m.round.hands[0][0]))
    assert match_to_plain(m) == snap


def test_a_must_use_joker_is_offered_even_with_a_twin_in_hand() -> None:
    """Two jokers in hand, one of them recovered this turn (classique): the legal
    actions must offer laying off the recovered one, not only its twin."""
    st, joker = _classique_joker_on_table("6h * 2d 3d 4d 5s Jc Qs 10s 8d 9s 4s 8c")
    st, _ = R.apply(st, LayDown(1, (MeldSpec(cards_of(st, 1, "2d 3d 4d")),)))
    st, _ = R.apply(st, RecoverJoker(1, 0, cards_of(st, 1, "6h")))
    assert st.must_use == (joker,)
    legal = list(R.legal_actions(st, 1))
    assert any(isinstance(a, LayOff) and a.card == joker for a in legal)
    assert not any(isinstance(a, Discard) for a in legal)
