"""The three rules issue 10 found doubtful, as settled in docs/rules.md, and the 40 trap.

- 40 (004): "le Joker peut être libéré si un adversaire le remplace": the owner of a
  set can not free its joker; an opponent can (runs: any player).
- classique (001): "Il n'est pas possible de se défausser d'un Joker, sauf si la
  défausse du Joker vous permet de remporter la partie": with only jokers in hand, one
  that can be laid off must be; the discard of a joker is a last resort.
- 500 (003): the deep card "doit être utilisée ... au même tour": a deep joker laid
  and taken back by a recovery is owed again.
"""

from __future__ import annotations

import pytest

from rami_lan import i18n
from rami_lan.cli.refusals import illegal_text
from rami_lan.core import IllegalAction
from rami_lan.core import actions as A
from rami_lan.core import round as R
from rami_lan.core.cards import Card
from rami_lan.core.scenario import scenario


def card(st: R.RoundState, seat: int, text: str) -> Card:
    return next(c for c in st.hands[seat] if str(c) == text)


def cards(st: R.RoundState, seat: int, text: str) -> tuple[Card, ...]:
    hand = list(st.hands[seat])
    out = []
    for t in text.split():
        c = next(c for c in hand if str(c) == t)
        hand.remove(c)
        out.append(c)
    return tuple(out)


def refused(st: R.RoundState, action: A.Action, words: str) -> None:
    with pytest.raises(IllegalAction) as e:
        R.apply(st, action)
    assert words in str(e.value), str(e.value)
    assert action not in list(R.legal_actions(st, action.seat))
    i18n.set_language("fr")
    try:
        assert illegal_text(e.value) != str(e.value)
    finally:
        i18n.set_language("en")


# --- 40: only an opponent frees a set joker ------------------------------------------


@pytest.mark.parametrize("meld", ["10c 10h *", "10c * *"])
def test_40_owner_may_not_free_the_joker_of_their_own_set(meld: str) -> None:
    st = scenario(
        "40", hands=["10s 10d 5c 6d", "10s 10d 5h"], melds=[(meld, 0, "set")], opened=[True, True]
    ).round
    refused(st, A.RecoverJoker(0, 0, cards(st, 0, "10s 10d")), "only an opponent may free the joker")


@pytest.mark.parametrize("meld", ["10c 10h *", "10c * *"])
def test_40_an_opponent_frees_the_joker_of_a_set(meld: str) -> None:
    st = scenario(
        "40", hands=["10s 10d 5c 6d", "10s 10d 5h"], melds=[(meld, 0, "set")], opened=[True, True], turn=1
    ).round
    action = A.RecoverJoker(1, 0, cards(st, 1, "10s 10d"))
    assert action in list(R.legal_actions(st, 1))
    new = R.apply(st, action)[0]
    assert sum(c.is_joker for c in new.hands[1]) == 1
    assert len(new.melds[0].cards) == 4


def test_40_owner_may_take_back_the_joker_of_their_own_run() -> None:
    """Runs: "un joueur qui détient la carte que le Joker représente" -- any player."""
    st = scenario("40", hands=["7h 5c 6d", "5h"], melds=[("5h 6h * 8h", 0)], opened=[True, True]).round
    action = A.RecoverJoker(0, 0, (card(st, 0, "7h"),))
    assert action in list(R.legal_actions(st, 0))


def test_40_set_rule_does_not_switch_off_run_joker_recovery_in_meld_fits() -> None:
    """The trap of issue 10: `set_joker_recovery_needs_two` is about sets only."""
    st = scenario("40", hands=["7h 5c 6d", "5h"], melds=[("5h 6h * 8h", 1)], opened=[True, True]).round
    assert R._meld_fits(st, 0, card(st, 0, "7h"))
    st = scenario("40", hands=["10s 10d 5c", "5h"], melds=[("10c 10h *", 1, "set")], opened=[1, 1]).round
    assert R._meld_fits(st, 0, card(st, 0, "10s"))


# --- classique: a joker is discarded only to win ---------------------------------------


def test_classique_two_jokers_one_can_be_laid_off_so_no_joker_discard() -> None:
    st = scenario("classique", hands=["* *", "5h 9c"], melds=[("4s 5s 6s", 0)], opened=[True, True]).round
    refused(st, A.Discard(0, st.hands[0][0]), "may not discard a joker")
    acts = list(R.legal_actions(st, 0))
    assert acts and all(isinstance(a, A.LayOff) for a in acts)
    st = R.apply(st, acts[0])[0]
    assert R.is_legal(st, A.Discard(0, st.hands[0][0]))  # the last card: the discard wins
    assert R.apply(st, A.Discard(0, st.hands[0][0]))[0].phase == "over"


def test_classique_only_jokers_that_can_not_be_laid_may_be_discarded() -> None:
    """[chosen] The last resort: nothing else can end the turn."""
    st = scenario("classique", hands=["* *", "5h 9c"], melds=[("4s 5s 6s", 1)], opened=[False, True]).round
    assert R.is_legal(st, A.Discard(0, st.hands[0][0]))


def test_classique_joker_with_a_natural_in_hand_is_never_discarded() -> None:
    st = scenario("classique", hands=["* 9d", "5h 9c"], opened=[False, False]).round
    refused(st, A.Discard(0, st.hands[0][0]), "may not discard a joker")
    assert R.is_legal(st, A.Discard(0, card(st, 0, "9d")))


# --- 500: the deep card must end the turn on the table ---------------------------------


def _deep_joker() -> R.RoundState:
    st = scenario(
        "500", hands=["7s 9d 2c", "Kh Kd"], melds=[("4s 5s 6s", 1)], discard="8h * Qd 7c", phase="draw"
    ).round
    st = R.apply(st, A.DrawDiscard(0, 3))[0]
    assert [str(c) for c in st.pending_must_use] == ["*"]
    return st


def test_500_deep_joker_laid_then_recovered_is_owed_again() -> None:
    st = _deep_joker()
    joker = st.pending_must_use[0]
    st = R.apply(st, A.LayOff(0, joker, 0, "high"))[0]
    assert st.pending_must_use == ()
    st = R.apply(st, A.RecoverJoker(0, 0, (card(st, 0, "7s"),)))[0]
    assert joker in st.hands[0] and st.pending_must_use == (joker,)
    refused(st, A.Discard(0, card(st, 0, "9d")), "must be melded or laid off this turn")
    st = R.apply(st, A.LayOff(0, joker, 0, "high"))[0]
    assert R.is_legal(st, A.Discard(0, card(st, 0, "9d")))


def test_500_recovery_that_would_strand_the_deep_joker_is_refused() -> None:
    """The set is full once the joker is back in hand: the joker could not be used."""
    st = scenario(
        "500", hands=["Ks 9d 2c", "5h 6h"], melds=[("Kc Kh Kd", 1, "set")], discard="8h * 3d 7c", phase="draw"
    ).round
    st = R.apply(st, A.DrawDiscard(0, 3))[0]
    joker = st.pending_must_use[0]
    st = R.apply(st, A.LayOff(0, joker, 0))[0]
    refused(st, A.RecoverJoker(0, 0, (card(st, 0, "Ks"),)), "must be used this turn and could no longer be")
