"""Random rounds of every variant refereed from VARIANTS.md by an independent checker.

The engine plays random legal moves (tests/core_play.py); a referee written from the
page (not from the engine's code) watches the events and checks, move by move, what
the page promises: melds valid (suits, ranks, no wrap, ace per variant, joker limits),
opening thresholds, lay-offs only after opening, discard restrictions (the taken card,
classique's jokers, 500's chosen card, 40's taken card), and at the end of the round
the scores recomputed from the hands (rami sec / going rami included).
"""

from __future__ import annotations

import random

import pytest
from core_play import random_action

from rami_lan.core import (
    VARIANTS,
    Discarded,
    DiscardTaken,
    JokerRecovered,
    Knock,
    Knocked,
    LaidOff,
    MatchOptions,
    Melded,
    RoundEnded,
    TurnStarted,
    apply,
    full_deck,
    new_match,
    start_round,
)

HIGH = {"rami": 10, "classique": 11, "multi": 1, "500": 11, "40": 11}
HAND_ACE = {"rami": 15, "classique": 11, "multi": 1, "500": 15, "40": 11}
HAND_JOKER = {"rami": 30, "classique": 30, "multi": 0, "500": 15, "40": 15}
OPEN = {"rami": 30, "classique": 0, "multi": None, "500": None, "40": 40}
ACE_LOW = {"rami": True, "classique": True, "multi": True, "500": True, "40": False}
ACE_HIGH = {"rami": True, "classique": True, "multi": False, "500": True, "40": True}


def page_rank_points(vid: str, rank: int, in_set: bool) -> int:
    if rank == 14 or (rank == 1 and in_set):
        return HIGH[vid]
    if rank == 1:
        return 1
    return min(rank, 10)


def page_hand_points(vid: str, card) -> int:
    if card.is_joker:
        return HAND_JOKER[vid]
    if card.rank == 1:
        return HAND_ACE[vid]
    return min(card.rank, 10)


def check_meld_on_page(vid: str, meld) -> None:
    cards, ranks = meld.cards, meld.ranks
    naturals = [c for c in cards if not c.is_joker]
    jokers = len(cards) - len(naturals)
    assert naturals, f"{meld}: a meld needs a natural card"
    if vid == "multi":
        assert not jokers
    elif vid == "40":
        pass  # at least one natural
    else:
        assert jokers <= len(naturals), f"{meld}: more jokers than naturals"
    if meld.kind == "set":
        assert 3 <= len(cards) <= 4, f"{meld}: a set has 3 or 4 cards"
        assert len({c.rank for c in naturals}) == 1
        assert len({c.suit for c in naturals}) == len(naturals), f"{meld}: a suit twice"
        return
    assert 3 <= len(cards) <= 13
    assert len({c.suit for c in naturals}) == 1
    assert list(ranks) == list(range(ranks[0], ranks[0] + len(ranks))), f"{meld}: not consecutive"
    assert ranks[0] >= (1 if ACE_LOW[vid] else 2) and ranks[-1] <= (14 if ACE_HIGH[vid] else 13), meld
    assert not (ranks[0] == 1 and ranks[-1] == 14)
    for c, r in zip(cards, ranks, strict=True):
        if not c.is_joker:
            assert c.rank == (1 if r == 14 else r), f"{meld}: {c} does not stand at {r}"


def page_meld_points(vid: str, meld) -> int:
    return sum(page_rank_points(vid, r, meld.kind == "set") for r in meld.ranks)


def referee_round(vid: str, n: int, seed: int, knock: bool) -> RoundEnded:
    v = VARIANTS[vid]
    rng = random.Random(seed)
    m = new_match(vid, n, MatchOptions(knock=knock) if knock else None)
    deck = full_deck(v.n_decks, v.n_jokers)
    rng.shuffle(deck)
    m, _ = start_round(m, deck, rng.randbytes(32))
    opened: set[int] = set()
    laid_earlier: set[int] = set()
    laid_now = False
    taken = None  # 500 / multi: the card taken from the pile this turn
    chosen_deep = None  # 500: the chosen card of a deep take
    unopened_take = None  # 40: discard taken before opening
    seat_turn = m.round.turn
    last_discarder = None
    for _step in range(5000):
        st = m.round
        if st.phase == "over":
            break
        action = None
        if st.knock_window and rng.random() < 0.3:
            action = Knock(rng.choice(st.knock_window))
        if action is None:
            action = random_action(st, st.turn, rng)
        assert action is not None, f"{vid}: seat {st.turn} has no legal action"
        before = m
        m, evs = apply(m, action)
        for ev in evs:
            if isinstance(ev, TurnStarted):
                if laid_now:
                    laid_earlier.add(seat_turn)
                seat_turn, laid_now, taken, chosen_deep, unopened_take = ev.seat, False, None, None, None
            elif isinstance(ev, Knocked):
                # "any player other than the discarder and the next player may knock"
                assert ev.seat not in (before.round.turn, last_discarder)
                taken = ev.card
            elif isinstance(ev, DiscardTaken):
                taken = ev.cards[0]
                if ev.depth > 1:
                    assert vid == "500", "only 500 takes deep into the pile"
                    chosen_deep = ev.cards[0]
                if vid == "40" and ev.seat not in opened:
                    unopened_take = ev.cards[0]
            elif isinstance(ev, Melded):
                for mm in ev.melds:
                    check_meld_on_page(vid, mm)
                if OPEN[vid] is not None and ev.seat not in opened:
                    pts = sum(page_meld_points(vid, mm) for mm in ev.melds)
                    assert pts >= OPEN[vid], f"{vid}: opened with {pts}"
                    if unopened_take is not None:
                        assert any(unopened_take in mm.cards for mm in ev.melds), "40: open with it"
                opened.add(ev.seat)
                laid_now = True
            elif isinstance(ev, (LaidOff, JokerRecovered)):
                if OPEN[vid] is not None:
                    assert ev.seat in opened, f"{vid}: touched the table before opening"
                check_meld_on_page(vid, ev.meld)
                laid_now = True
            elif isinstance(ev, Discarded):
                hand_before = before.round.hands[ev.seat]
                last_discarder = ev.seat
                if vid in ("multi", "500") and taken is not None:
                    assert ev.card != taken, f"{vid}: discarded the card taken from the pile"
                if vid == "classique" and ev.card.is_joker:
                    assert len(hand_before) == 1 or all(c.is_joker for c in hand_before), \
                        "classique: a joker discarded while other cards could go"
                if chosen_deep is not None:
                    assert chosen_deep not in m.round.hands[ev.seat], "500: the chosen card was not used"
                if unopened_take is not None:
                    assert ev.seat in opened, "40: took the discard and did not open"
            elif isinstance(ev, RoundEnded):
                _check_scores(vid, ev, laid_earlier, before, m)
                return ev
    raise AssertionError(f"{vid}: the round did not end")


def _check_scores(vid: str, ev: RoundEnded, laid_earlier: set[int], before, after) -> None:
    v = VARIANTS[vid]
    hands = dict(ev.hands)
    hp = {s: sum(page_hand_points(vid, c) for c in h) for s, h in hands.items()}
    assert dict(ev.hand_points) == hp
    sc = dict(ev.scores)
    w = ev.winner
    if w is not None:
        assert not hands[w], "the winner has no card left"
        assert ev.rami_sec == (w not in laid_earlier), "rami sec: nothing laid in an earlier turn"
        if v.must_discard_to_go_out:
            assert after.round.discard and before.round.hands[w], "went out by a discard"
    if vid == "500":
        laid = dict(ev.laid_points)
        assert sc == {s: laid[s] - hp[s] for s in hands}
        return
    if vid == "multi":
        if w is None:
            assert all(x == 0 for x in sc.values())
            return
        won = sum(hp[s] for s in hands if s != w) * (2 if ev.rami_sec else 1)
        assert sc == {s: (won if s == w else 0) for s in hands}
        return
    for s in hands:
        if w is None:
            assert sc[s] == hp[s]
        elif s == w:
            assert sc[s] == 0
        elif vid == "rami":
            assert sc[s] == hp[s] * (2 if ev.rami_sec else 1)
        else:  # classique, 40: +25
            assert sc[s] == hp[s] + (25 if ev.rami_sec else 0)


CASES = [(vid, n, seed) for vid in ("rami", "classique", "multi", "500", "40") for n, seed in
         ((2, 1), (3, 2), (4, 3), (2, 4))]


@pytest.mark.parametrize("vid,n,seed", CASES)
def test_random_rounds_follow_the_page(vid: str, n: int, seed: int) -> None:
    referee_round(vid, n, seed, knock=VARIANTS[vid].knock_supported and seed % 2 == 0)
