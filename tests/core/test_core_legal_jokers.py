"""A seat to move is never stuck, with hands heavy in jokers (issue 10, a classique seat
once seen holding three jokers and no legal action).

Found and fixed: in classique a joker taken back from the table must be played the
same turn. Each recovery checked that the joker it returns could still be used, one
card at a time; two recoveries in a row could bring back two owed jokers with a
single place left for them on the table, and once one was laid the other could be
neither laid nor discarded. Now a turn owing two or more cards must be able to use one
of them by a legal action (which checks the rest the same way).

The property: random mid-round states (built with `rami_lan.core.scenario`) where the
seat to move holds one to four jokers next to cards of the table melds, walked through
whole turns with joker lay-offs and recoveries preferred; at every step the seat has
a legal action. ``RAMI_LAN_PROPERTY_EXAMPLES`` scales the number of states.
"""

from __future__ import annotations

import os
import random

import pytest
from test_core_legal import _near_cards, _try, random_table

from rami_lan import i18n
from rami_lan.cli.refusals import illegal_text
from rami_lan.core import VARIANTS
from rami_lan.core import actions as A
from rami_lan.core import events as E
from rami_lan.core import round as R
from rami_lan.core.cards import SUITS, Card, rank_text
from rami_lan.core.errors import IllegalAction
from rami_lan.core.scenario import scenario

EXAMPLES = int(os.environ.get("RAMI_LAN_PROPERTY_EXAMPLES", "30"))


def card(st: R.RoundState, seat: int, text: str) -> Card:
    return next(c for c in st.hands[seat] if str(c) == text)


def test_two_owed_jokers_with_one_place_left_is_refused() -> None:
    """Classique: lay a joker on the set of jacks, take it back with Js, then take the
    other joker back with Jc: two owed jokers, one place for them ("4s 4d *")."""
    st = scenario(
        "classique",
        hands=["* * Js 4s Ad Jc 9d", "5h 6h"],
        melds=[("Jh Jd *", 1, "set"), ("4s 4d *", 1, "set")],
        opened=[True, True],
    ).round
    joker = next(c for c in st.hands[0] if c.is_joker)
    st = R.apply(st, A.LayOff(0, joker, 0))[0]
    st = R.apply(st, A.RecoverJoker(0, 0, (card(st, 0, "Js"),)))[0]
    assert len(st.pending_must_use) == 1
    second = A.RecoverJoker(0, 0, (card(st, 0, "Jc"),))
    with pytest.raises(IllegalAction, match="must all be used this turn and could not all be") as e:
        R.apply(st, second)
    assert second not in list(R.legal_actions(st, 0))
    i18n.set_language("fr")
    try:
        assert "doivent tous être déposés" in illegal_text(e.value)
    finally:
        i18n.set_language("en")
    # the owed joker still has its place: the turn goes on
    owed = st.pending_must_use[0]
    st = R.apply(st, A.LayOff(0, owed, 1))[0]
    assert R.is_legal(st, A.Discard(0, card(st, 0, "9d")))


def test_two_owed_jokers_with_two_places_are_fine() -> None:
    """The same with a second place for a joker (the run 5h 6h 7h): both recoveries
    stand, and both jokers are laid."""
    st = scenario(
        "classique",
        hands=["* * Js 4s Ad Jc 9d", "5h 6h"],
        melds=[("Jh Jd *", 1, "set"), ("4s 4d *", 1, "set"), ("5h 6h 7h", 1, "run")],
        opened=[True, True],
    ).round
    joker = next(c for c in st.hands[0] if c.is_joker)
    st = R.apply(st, A.LayOff(0, joker, 0))[0]
    st = R.apply(st, A.RecoverJoker(0, 0, (card(st, 0, "Js"),)))[0]
    st = R.apply(st, A.RecoverJoker(0, 0, (card(st, 0, "Jc"),)))[0]
    first, second = st.pending_must_use
    st = R.apply(st, A.LayOff(0, first, 1))[0]
    st = R.apply(st, A.LayOff(0, second, 2, "high"))[0]
    assert R.is_legal(st, A.Discard(0, card(st, 0, "9d")))


def _joker_state(vid: str, rng: random.Random) -> R.RoundState:
    """A draw-phase state whose seat 0 holds one to four jokers and cards that fit the
    table melds (which often hold jokers to take back)."""
    v = VARIANTS[vid]
    all_faces = [f"{rank_text(r)}{s}" for s in SUITS for r in range(1, 14)]
    for _ in range(500):
        n, melds, texts, fresh = random_table(v, rng, max_melds=5, p_run=0.5)
        near = sorted(set(_near_cards(v, texts, rng)) - {"*"})
        hand0 = fresh(
            ["*"] * rng.randint(1, 4)
            + rng.sample(near, min(len(near), rng.randint(0, 3)))
            + rng.sample(all_faces, rng.randint(0, 1))
        )
        if not hand0:
            continue
        hands = [" ".join(hand0)]
        hands += [" ".join(fresh(rng.sample(all_faces, rng.randint(1, 6)))) for _ in range(n - 1)]
        pile = fresh(
            rng.sample(near, min(len(near), rng.randint(0, 2)))
            + rng.sample(all_faces, rng.randint(1, 3))
            + (["*"] if rng.random() < 0.2 else [])
        )
        if not pile:
            continue
        rng.shuffle(pile)
        try:
            m = scenario(
                vid, hands=hands, melds=melds, discard=" ".join(pile), stock=rng.choice([1, 2, 5, 20]),
                turn=0, phase="draw", opened=[rng.random() < 0.7 for _ in range(n)],
            )
        except ValueError:
            continue
        return m.round  # type: ignore[return-value]
    raise AssertionError("could not build a random state")


def _walk(st: R.RoundState, rng: random.Random, vid: str) -> None:
    """Random legal actions until the turn ends, joker moves preferred; never stuck."""
    seat = st.turn
    path: list[A.Action] = []
    for _ in range(40):
        if st.phase == "over" or st.turn != seat or st.phase == "draw":
            return
        acts = list(R.legal_actions(st, seat))
        assert acts, (
            f"{vid}: seat {seat} has no legal action after {path}; hand "
            f"{[str(c) for c in st.hands[seat]]} must use {[str(c) for c in st.must_use]} "
            f"melds {[str(m) for m in st.melds]}"
        )
        jokers = [
            a for a in acts
            if isinstance(a, A.RecoverJoker) or (isinstance(a, A.LayOff) and a.card.is_joker)
        ]
        a = rng.choice(jokers if jokers and rng.random() < 0.8 else acts)
        path.append(a)
        st = R.apply(st, a)[0]
    raise AssertionError("the turn does not end")


@pytest.mark.parametrize("vid", [vid for vid, v in VARIANTS.items() if v.n_jokers])
def test_a_seat_holding_jokers_is_never_stuck(vid: str) -> None:
    rng = random.Random(f"jokers-{vid}")
    walks = 0
    # classique (recovered jokers are owed) gets most of the states
    for _ in range(EXAMPLES * (5 if vid == "classique" else 2)):
        st = _joker_state(vid, rng)
        starts = [_try(st, A.DrawDiscard(0, d)) for d in range(1, len(st.discard) + 1)]
        starts.append(_try(st, A.DrawStock(0)))
        for s0 in starts:
            if s0 is None:
                continue
            for _rep in range(3):
                _walk(s0, rng, vid)
                walks += 1
    assert walks >= EXAMPLES


@pytest.mark.parametrize("vid", [vid for vid, v in VARIANTS.items() if v.n_jokers])
def test_a_seat_to_play_with_only_jokers_is_never_stuck(vid: str) -> None:
    """The states the random walk above hardly reaches: the play phase with nothing but
    two to four jokers in hand, on random tables, opened or not; every turn ends."""
    rng = random.Random(f"only-jokers-{vid}")
    v = VARIANTS[vid]
    all_faces = [f"{rank_text(r)}{s}" for s in SUITS for r in range(1, 14)]
    done = 0
    while done < EXAMPLES * 2:
        n, melds, _texts, fresh = random_table(v, rng, max_melds=4, p_run=0.5)
        jokers = fresh(["*"] * rng.randint(2, min(4, v.n_jokers)))
        if len(jokers) < 2:
            continue
        others = [" ".join(fresh(rng.sample(all_faces, rng.randint(1, 5)))) for _ in range(n - 1)]
        try:
            st = scenario(vid, hands=[" ".join(jokers), *others], melds=melds, turn=0, phase="play",
                          stock=5, opened=[rng.random() < 0.8 for _ in range(n)]).round
        except ValueError:
            continue
        _walk(st, rng, vid)
        done += 1


@pytest.mark.parametrize("places", [1, 2])
def test_a_hand_of_three_jokers_lays_them_off_and_goes_out(places: int) -> None:
    """Classique, seen in a `moyen` against `debutant` match (seed 2024): the seat to
    play holds three jokers and the table has room for one. A joker may not be discarded
    while one can be laid off, and laying one off was refused as "that would leave no
    card that may be discarded" (two jokers, one of which could still be laid): no legal
    action at all. Now the lay-offs stand; the last joker's discard goes out, or, with no
    place left for the second, one joker is discarded as a last resort."""
    # a run takes jokers at both ends; a set of three suits takes one (a set is full at 4)
    melds = [("8c 9c 10c", 1, "run")] if places == 2 else [("2s 2h 2d", 1, "set")]
    end = "high" if places == 2 else None
    st = scenario("classique", hands=["* * *", "5h 6h"], melds=melds, opened=[True, True],
                  turn=0, phase="play").round
    jokers = list(st.hands[0])
    assert not R.is_legal(st, A.Discard(0, jokers[0])), "a joker that can be laid off may not go"
    lay = A.LayOff(0, jokers[0], 0, end)
    assert lay in list(R.legal_actions(st, 0)) or R.is_legal(st, lay)
    st = R.apply(st, lay)[0]
    second = A.LayOff(0, jokers[1], 0, "low" if places == 2 else None)
    if places == 2:
        st = R.apply(st, second)[0]
        st, evs = R.apply(st, A.Discard(0, jokers[2]))
        assert st.phase == "over" and any(isinstance(e, E.RoundEnded) and e.winner == 0 for e in evs)
    else:
        assert not R.is_legal(st, second)  # the set is full
        st = R.apply(st, A.Discard(0, jokers[1]))[0]  # the last resort: no place left
        assert st.phase != "over" and st.turn == 1 and len(st.hands[0]) == 1
