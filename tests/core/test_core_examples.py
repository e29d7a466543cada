"""The worked examples of VARIANTS.md, and the basics of cards and melds."""

from __future__ import annotations

import pytest

from rami_lan.core import (
    VARIANTS,
    Card,
    LayDown,
    LayOff,
    MeldSpec,
    RecoverJoker,
    card_from_id,
    card_id,
    check_meld,
    full_deck,
    parse_cards,
)
from rami_lan.core import round as R
from rami_lan.core.melds import Meld, build_set, lay_off, recover_joker


def cards(text: str) -> list[Card]:
    return parse_cards(text)


# --- cards -----------------------------------------------------------------------


def test_text_form_round_trips() -> None:
    text = "10h Jh Qh * Ac 2s Kd"
    assert " ".join(str(c) for c in parse_cards(text)) == text


def test_canonical_ids_follow_the_shuffle_spec() -> None:
    two = full_deck(2, 6)
    assert [str(c) for c in (two[0], two[12], two[13], two[51], two[52], two[103])] == [
        "Ac",
        "Kc",
        "As",
        "Kd",
        "Ac",
        "Kd",
    ]
    assert two[52].copy == 1 and two[104].is_joker
    for i, c in enumerate(two):
        assert card_id(c, 2) == i and card_from_id(i, 2, 6) == c


def test_repeated_faces_are_distinct_physical_cards() -> None:
    a, b, c = parse_cards("10d 10c 10d")
    assert a.face == c.face and a != c


@pytest.mark.parametrize("bad", ["1h", "11h", "Xh", "10x", "h", ""])
def test_bad_card_text_is_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_cards(bad) if bad else parse_cards("Zz")


# --- worked examples ---------------------------------------------------------------


@pytest.mark.parametrize("vid", ["rami", "classique"])
def test_ex1_ace_with_two_jokers_is_never_a_meld(vid: str) -> None:
    for kind in (None, "set", "run"):
        r = check_meld(vid, cards("As * *"), kind)
        assert not r.valid and r.reason


def test_ex2_same_card_twice_is_not_a_set() -> None:
    r = check_meld("rami", cards("10d 10c 10d"))
    assert not r.valid and "same suit" in r.reason


@pytest.mark.parametrize("vid", list(VARIANTS))
def test_ex3_runs_never_wrap(vid: str) -> None:
    r = check_meld(vid, cards("Kd Ad 2d"))
    assert not r.valid and r.reason


def test_ex4_runs() -> None:
    r = check_meld("rami", cards("8d 9d 10d Jd Qd"))
    assert r.valid and r.kind == "run" and r.points == 8 + 9 + 10 + 10 + 10
    r = check_meld("classique", cards("10c Jc Qc"))
    assert r.valid and r.kind == "run" and r.points == 30


def test_ex5_three_sevens_can_not_open_in_rami() -> None:
    st = _round_with_hand("rami", "7c 7s 7h 2d 4d 9s Jc Kh 3c 5h 8d Qs 6c")
    seat = st.turn
    st, _ = R.apply(st, R.A.DrawStock(seat))
    sevens = tuple(c for c in st.hands[seat] if c.rank == 7)
    with pytest.raises(ValueError, match="needs 30"):
        R.apply(st, LayDown(seat, (MeldSpec(sevens, "set"),)))


def test_ex6_lay_off_on_a_run_twice() -> None:
    v = VARIANTS["rami"]
    m = check_meld(v, cards("7c 8c 9c")).meld
    assert m is not None
    m = lay_off(v, m, cards("10c")[0])
    m = lay_off(v, m, cards("Jc")[0])
    assert str(m) == "7c 8c 9c 10c Jc"


def test_ex6_in_a_game_after_opening() -> None:
    st = _round_with_hand("rami", "7c 8c 9c Kh Kd Ks 10c Jc 2d 4s 6h 8s 3d")
    seat = st.turn
    st, _ = R.apply(st, R.A.DrawStock(seat))
    h = st.hands[seat]
    pick = lambda t: next(c for c in h if str(c) == t)  # noqa: E731
    run = MeldSpec(tuple(pick(t) for t in ("7c", "8c", "9c")), "run")
    kings = MeldSpec(tuple(pick(t) for t in ("Kh", "Kd", "Ks")), "set")
    st, _ = R.apply(st, LayDown(seat, (run, kings)))
    st, _ = R.apply(st, LayOff(seat, pick("10c"), 0))
    st, _ = R.apply(st, LayOff(seat, pick("Jc"), 0))
    assert str(st.melds[0]) == "7c 8c 9c 10c Jc"


def test_ex7_multi_low_end_lay_off() -> None:
    v = VARIANTS["multi"]
    m = check_meld(v, cards("3s 4s 5s")).meld
    assert m is not None
    assert str(lay_off(v, m, cards("2s")[0])) == "2s 3s 4s 5s"


def test_ex8_forty_ace_is_high_only() -> None:
    r = check_meld("40", cards("Qh Kh Ah"))
    assert r.valid and r.points == 31
    assert not check_meld("40", cards("Ah 2h 3h")).valid


def test_ex9_five_hundred_low_ace_counts_one() -> None:
    r = check_meld("500", cards("Ah 2h 3h"))
    assert r.valid and r.points == 1 + 2 + 3
    assert check_meld("500", cards("Qh Kh Ah")).points == 10 + 10 + 11


def test_ex10_forty_joker_recovery_from_sets() -> None:
    v = VARIANTS["40"]
    s = build_set(v, cards("10c 10h *"))
    freed, joker = recover_joker(v, s, cards("10s 10d"))
    assert joker.is_joker and freed.n_jokers == 0 and len(freed.cards) == 4
    closed = lay_off(v, s, cards("10s")[0])
    assert str(closed) == "10c 10s 10h *"
    with pytest.raises(ValueError):
        recover_joker(v, closed, cards("10d"))
    two = build_set(v, cards("10c * *"))
    left, j = recover_joker(v, two, cards("10h 10s"))
    assert j.is_joker and left.n_jokers == 1 and len(left.cards) == 4


def test_ex10_a_single_suit_does_not_free_a_joker_in_forty() -> None:
    v = VARIANTS["40"]
    s = build_set(v, cards("10c 10h *"))
    with pytest.raises(ValueError):
        recover_joker(v, s, cards("10s"))


@pytest.mark.parametrize("n,size", [(2, 10), (3, 7), (4, 7)])
def test_ex11_multi_hand_sizes(n: int, size: int) -> None:
    v = VARIANTS["multi"]
    st, _ = R.deal(v, range(n), n, full_deck(1, 0), bytes(32), 0)
    assert all(len(st.hands[s]) == size for s in range(n))


# --- more meld rules -----------------------------------------------------------------


def test_joker_placement_follows_the_given_order() -> None:
    assert check_meld("rami", cards("5h 6h *")).meld.stands_for_text() == ["5h", "6h", "7h"]
    assert check_meld("rami", cards("* 5h 6h")).meld.stands_for_text() == ["4h", "5h", "6h"]


def test_ambiguous_meld_must_be_declared() -> None:
    r = check_meld("40", cards("5h * *"))
    assert not r.valid and "set or a run" in r.reason
    assert check_meld("40", cards("5h * *"), "set").valid
    assert check_meld("40", cards("5h * *"), "run").valid
    assert not check_meld("rami", cards("5h * *"), "run").valid


def test_ace_values_per_variant() -> None:
    assert check_meld("rami", cards("Ac As Ah")).points == 30
    assert check_meld("classique", cards("Ac As Ah")).points == 33
    assert check_meld("multi", cards("Ac As Ah")).points == 3
    assert check_meld("rami", cards("Ah 2h 3h")).points == 6


def test_joker_limits() -> None:
    assert check_meld("rami", cards("5h * 7h *")).valid  # 2 jokers in 4 cards
    assert not check_meld("rami", cards("5h * * 8h *")).valid
    assert check_meld("40", cards("10c * *"), "set").valid  # 40: a set with two jokers
    assert not check_meld("multi", cards("5h 6h *")).valid  # no jokers in multi


def test_set_with_joker_refuses_a_suit_already_present() -> None:
    v = VARIANTS["rami"]
    s = build_set(v, cards("10c 10h *"))
    with pytest.raises(ValueError):
        lay_off(v, s, cards("10c")[0])


def test_rami_joker_recovery_by_the_card_it_stands_for() -> None:
    v = VARIANTS["rami"]
    m = check_meld(v, cards("5h * 7h")).meld
    assert isinstance(m, Meld)
    new, j = recover_joker(v, m, cards("6h"))
    assert j.is_joker and str(new) == "5h 6h 7h"
    with pytest.raises(ValueError):
        recover_joker(v, m, cards("6s"))


def test_recover_joker_action_refused_before_opening() -> None:
    st = _round_with_hand("rami", "6h 2c 3c 4d 9s Jc Kh 3h 5c 8d Qs 6c 9d")
    v = VARIANTS["rami"]
    m = check_meld(v, cards("5h * 7h"), owner=9).meld
    st = R.replace(st, melds=(m,))
    seat = st.turn
    st, _ = R.apply(st, R.A.DrawStock(seat))
    six = next(c for c in st.hands[seat] if str(c) == "6h")
    with pytest.raises(ValueError, match="before opening"):
        R.apply(st, RecoverJoker(seat, 0, (six,)))


# --- helpers ---------------------------------------------------------------------------


def _round_with_hand(vid: str, text: str, n: int = 2) -> R.RoundState:
    """A round where the first player holds exactly ``text`` (rest of deck shuffled)."""
    v = VARIANTS[vid]
    want = parse_cards(text)
    deck = full_deck(v.n_decks, v.n_jokers)
    for c in want:
        deck.remove(c)
    hs = v.cards_per_player(n)
    # dealer 1: seat 0 receives deck positions 0, 2, 4, ...
    order: list[Card] = []
    rest = iter(deck)
    mine = iter(want)
    for k in range(hs * n):
        order.append(next(mine) if k % n == 0 else next(rest))
    order.extend(rest)
    st, _ = R.deal(v, range(n), n, order, bytes(32), dealer=n - 1)
    assert sorted(st.hands[0]) == sorted(want) and st.turn == 0
    return st
