"""`legal_actions` against `apply`: everything accepted is offered; a seat is never stuck.

Two properties over random mid-round states of all five variants (built with
`rami_lan.core.scenario`, biased towards the awkward corners: long runs next to an
ace, jokers at a run's ends, deep discard piles in 500):

- (a) every action `apply` accepts has an equivalent in `legal_actions` (same
  resulting state up to interchangeable twin cards). Candidates are sampled widely:
  every hand card on every table meld at both ends, every joker recovery, every
  discard and draw.
- (b) a seat to move always has a legal action, through a whole turn (each draw
  `apply` accepts, then random legal actions until the turn ends).

``RAMI_LAN_PROPERTY_EXAMPLES`` raises the number of random states (default 30 per
variant and property).
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from typing import Any

import pytest

from rami_lan.core import VARIANTS
from rami_lan.core import actions as A
from rami_lan.core import round as R
from rami_lan.core.cards import SUITS, Card, rank_text
from rami_lan.core.errors import IllegalAction
from rami_lan.core.melds import check_meld
from rami_lan.core.scenario import scenario
from rami_lan.core.solver import enumerate_melds

EXAMPLES = int(os.environ.get("RAMI_LAN_PROPERTY_EXAMPLES", "30"))
VARIANT_IDS = list(VARIANTS)


def _face(c: Card) -> tuple[int, str | None]:
    return c.face


def effect_key(st: R.RoundState) -> tuple:
    """A state summary in which twin cards (same face) are interchangeable, and so is
    the order of the melds on the table."""
    hand_must = tuple(sorted((_face(c) for c in st.must_use if c in st.hands[st.turn]), key=str))
    return (
        st.phase,
        st.turn,
        tuple(tuple(sorted((_face(c) for c in h), key=str)) for h in st.hands),
        # the order of melds laid together does not matter
        tuple(sorted(repr((m.kind, m.ranks, m.suits, tuple(map(str, m.cards)))) for m in st.melds)),
        tuple(_face(c) for c in st.discard),
        st.laid_points,
        st.opened,
        hand_must,
        len(st.stock),
    )


def _try(st: R.RoundState, a: A.Action) -> R.RoundState | None:
    try:
        return R.apply(st, a)[0]
    except IllegalAction:
        return None


def sampled_actions(st: R.RoundState, seat: int, rng: random.Random, openings: bool = True) -> list[A.Action]:
    """A wide sample of candidate actions, far beyond `candidate_actions`."""
    hand = st.hands[seat]
    out: list[A.Action] = [A.DrawStock(seat)]
    out += [A.DrawDiscard(seat, d) for d in range(1, len(st.discard) + 1)]
    out += [A.Discard(seat, c) for c in hand]
    for i in range(len(st.melds)):
        for c in hand:
            for end in (None, "low", "high"):
                out.append(A.LayOff(seat, c, i, end))  # type: ignore[arg-type]
        naturals = [c for c in hand if not c.is_joker]
        out += [A.RecoverJoker(seat, i, (c,)) for c in naturals]
        out += [
            A.RecoverJoker(seat, i, (a, b)) for k, a in enumerate(naturals) for b in naturals[k + 1 :]
        ]
    melds = enumerate_melds(st.variant, hand)
    if openings or st.opened[seat]:
        out += [A.LayDown(seat, (A.MeldSpec(m.cards, m.kind),)) for m in melds]
        pairs = [(a, b) for k, a in enumerate(melds) for b in melds[k + 1 :]]
        rng.shuffle(pairs)
        for a, b in pairs[:30]:
            out.append(A.LayDown(seat, (A.MeldSpec(a.cards, a.kind), A.MeldSpec(b.cards, b.kind))))
    return out


# --- random mid-round states -------------------------------------------------------


def _run_text(v, rng: random.Random) -> str | None:
    lo_b = 1 if v.ace_low else 2
    hi_b = 14 if v.ace_high else 13
    length = rng.choice([3, 3, 4, 5, 8, 11, 11, 12, 12, 13])
    length = min(length, hi_b - lo_b + 1, 13)
    start = rng.randint(lo_b, hi_b - length + 1)
    # favour runs that reach the queen or the king, or start at 2
    if rng.random() < 0.5:
        start = rng.choice([2, max(lo_b, hi_b - length), max(lo_b, 13 - length)])
        start = min(max(start, lo_b), hi_b - length + 1)
    suit = rng.choice(SUITS)
    ranks = list(range(start, start + length))
    toks = [f"{rank_text(r)}{suit}" for r in ranks]
    if v.n_jokers:
        max_j = length // 2 if v.joker_limit == "not_more_than_naturals" else length - 1
        n_j = rng.choice([0, 0, 1, 1, 2])
        spots = [0, length - 1] + list(range(length))
        for _ in range(min(n_j, max_j)):
            toks[rng.choice(spots)] = "*"
        if all(t == "*" for t in toks):
            return None
    return " ".join(toks)


def _set_text(v, rng: random.Random) -> tuple[str, str]:
    rank = rng.randint(1, 13)
    suits = rng.sample(SUITS, rng.choice([3, 3, 4]))
    toks = [f"{rank_text(rank)}{s}" for s in suits]
    if v.n_jokers and rng.random() < 0.6:
        toks[-1] = "*"
        if v.joker_limit == "at_least_one_natural" and len(toks) == 3 and rng.random() < 0.3:
            toks[-2] = "*"
    return " ".join(toks), "set"


def _near_cards(v, melds_text: list[str], rng: random.Random) -> list[str]:
    """Cards likely to interact with the table: run neighbours, aces, set ranks, jokers."""
    out = []
    for text in melds_text:
        toks = text.split()
        nat = [t for t in toks if t != "*"]
        suit = nat[0][-1]
        out.append(f"A{suit}")
        out += [f"{t[:-1]}{s}" for t in nat[:1] for s in SUITS]
        for t in nat:
            r = {"A": 1, "J": 11, "Q": 12, "K": 13}.get(t[:-1]) or int(t[:-1])
            for d in (-1, 1):
                if 1 <= r + d <= 13:
                    out.append(f"{rank_text(r + d)}{suit}")
    if v.n_jokers:
        out.append("*")
    return out


def random_table(v: Any, rng: random.Random, *, max_melds: int, p_run: float
                 ) -> tuple[int, list, list[str], Callable[[list[str]], list[str]]]:
    """A random table: the number of players, its melds ``(text, owner, kind)``, their
    texts, and ``fresh(tokens)``, which keeps only the tokens the game still has a copy of
    (and counts them as used)."""
    n = rng.choice([2, 3])
    melds: list = []
    texts: list[str] = []
    for k in range(rng.randint(1, max_melds)):
        if rng.random() < p_run:
            t = _run_text(v, rng)
            if t is None:
                continue
            melds.append((t, k % n, "run"))
        else:
            t, kind = _set_text(v, rng)
            melds.append((t, k % n, kind))
        texts.append(t)
    used: dict[str, int] = {}
    for t in texts:
        for tok in t.split():
            used[tok] = used.get(tok, 0) + 1

    def fresh(toks: list[str]) -> list[str]:
        out = []
        for tok in toks:
            have = v.n_jokers if tok == "*" else v.n_decks
            if used.get(tok, 0) < have:
                used[tok] = used.get(tok, 0) + 1
                out.append(tok)
        return out

    return n, melds, texts, fresh


def random_state(vid: str, rng: random.Random, phase: str | None = None) -> R.RoundState:
    v = VARIANTS[vid]
    for _ in range(200):
        n, melds, texts, fresh = random_table(v, rng, max_melds=4, p_run=0.65)
        near = sorted(set(_near_cards(v, texts, rng)))
        all_faces = [f"{rank_text(r)}{s}" for s in SUITS for r in range(1, 14)]
        aces = [t for t in near if t.startswith("A")]
        hand0 = fresh(
            rng.sample(aces, min(len(aces), rng.randint(0, 2)))
            + rng.sample(near, min(len(near), rng.randint(1, 5)))
            + rng.sample(all_faces, rng.randint(0, 4))
        )
        if not hand0:
            continue
        hands = [" ".join(hand0)]
        hands += [" ".join(fresh(rng.sample(all_faces, rng.randint(1, 6)))) for _ in range(n - 1)]
        ph = phase or rng.choice(["draw", "play", "play"])
        pile = fresh(
            rng.sample(aces, min(len(aces), rng.randint(0, 1)))
            + rng.sample(near, min(len(near), rng.randint(0, 3)))
            + rng.sample(all_faces, rng.randint(1, 4))
        )
        if not pile:
            continue
        rng.shuffle(pile)
        opened = [rng.random() < 0.8 for _ in range(n)]
        try:
            m = scenario(
                vid,
                hands=hands,
                melds=melds,
                discard=" ".join(pile),
                stock=rng.choice([2, 5, 20]),
                turn=0,
                phase=ph,
                opened=opened,
            )
        except ValueError:
            continue
        return m.round  # type: ignore[return-value]
    raise AssertionError("could not build a random state")


# --- the properties -----------------------------------------------------------------


@pytest.mark.parametrize("vid", VARIANT_IDS)
def test_everything_apply_accepts_is_offered(vid: str) -> None:
    rng = random.Random(f"offered-{vid}")
    checked = 0
    for _ in range(EXAMPLES):
        st = random_state(vid, rng)
        seat = st.turn
        offered = {}
        for a in R.legal_actions(st, seat):
            new = _try(st, a)
            assert new is not None, f"legal_actions offered an illegal {a}"
            offered.setdefault(effect_key(new), a)
        for a in sampled_actions(st, seat, rng):
            new = _try(st, a)
            if new is None:
                continue
            checked += 1
            if isinstance(a, A.LayDown) and len(a.melds) > 1 and _as_singles(st, a, new):
                continue
            assert effect_key(new) in offered, (
                f"{vid}: apply accepts {a} but legal_actions offers nothing equivalent\n"
                f"hand {[str(c) for c in st.hands[seat]]} melds {[str(m) for m in st.melds]} "
                f"phase {st.phase}"
            )
    assert checked > EXAMPLES


def _as_singles(st: R.RoundState, a: A.LayDown, target: R.RoundState) -> bool:
    """Is the multi-meld ``a`` the same as offered one-meld lay-downs in a row? (Only an
    opening against a points threshold has to be laid at once.)"""
    for spec in a.melds:
        want = A.LayDown(a.seat, (spec,))
        key = None
        for b in R.legal_actions(st, a.seat):
            if isinstance(b, A.LayDown) and len(b.melds) == 1:
                if [c.face for c in b.melds[0].cards] == [c.face for c in spec.cards]:
                    key = b
                    break
        if key is None:
            return False
        nxt = _try(st, key)
        if nxt is None or _try(st, want) is None:
            return False
        st = nxt
    return effect_key(st) == effect_key(target)


def _walk_turn(st: R.RoundState, rng: random.Random, vid: str) -> None:
    seat = st.turn
    for _ in range(40):
        if st.phase == "over" or st.turn != seat or st.phase == "draw":
            return
        acts = list(R.legal_actions(st, seat))
        assert acts, (
            f"{vid}: seat {seat} has no legal action; hand {[str(c) for c in st.hands[seat]]} "
            f"must use {[str(c) for c in st.must_use]} melds {[str(m) for m in st.melds]}"
        )
        st = R.apply(st, rng.choice(acts))[0]
    raise AssertionError("the turn does not end")


@pytest.mark.parametrize("vid", VARIANT_IDS)
def test_a_seat_to_move_always_has_a_legal_action(vid: str) -> None:
    rng = random.Random(f"stuck-{vid}")
    draws = 0
    for _ in range(EXAMPLES):
        st = random_state(vid, rng, phase="draw")
        assert list(R.legal_actions(st, st.turn)), "no legal draw"
        for d in range(1, len(st.discard) + 1):
            new = _try(st, A.DrawDiscard(st.turn, d))
            if new is not None:
                draws += 1
                _walk_turn(new, rng, vid)
        new = _try(st, A.DrawStock(st.turn))
        if new is not None:
            _walk_turn(new, rng, vid)
    assert draws >= EXAMPLES // 2


# --- the ace at the low end of a long run (issue 10) -----------------------------------

LONG_RUN = "2s 3s 4s 5s 6s 7s 8s 9s 10s Js Qs"
TWO_TO_KING = LONG_RUN + " Ks"


@pytest.mark.parametrize("vid", ["rami", "classique", "500"])
def test_low_ace_before_a_run_to_the_queen_is_offered(vid: str) -> None:
    st = scenario(vid, hands=["As 5c 9d", "Kh Kd"], melds=[(LONG_RUN, 1)], opened=[True, True]).round
    lay = [a for a in R.legal_actions(st, 0) if isinstance(a, A.LayOff) and a.card.face == (1, "s")]
    assert len(lay) == 1
    new = R.apply(st, lay[0])[0]
    assert new.melds[0].ranks[0] == 1


def test_multi_low_ace_before_a_long_run_is_offered() -> None:
    st = scenario("multi", hands=["As 5c 9d", "Kh Kd"], melds=[(TWO_TO_KING, 1)]).round
    assert any(isinstance(a, A.LayOff) and a.card.face == (1, "s") for a in R.legal_actions(st, 0))


@pytest.mark.parametrize("vid", ["rami", "classique", "500"])
def test_joker_standing_for_the_low_ace_is_recovered_with_the_ace(vid: str) -> None:
    st = scenario(vid, hands=["As 5c 9d", "Kh Kd"], melds=[("* " + LONG_RUN, 1)], opened=[True, True]).round
    assert st.melds[0].ranks[0] == 1
    rec = [a for a in R.legal_actions(st, 0) if isinstance(a, A.RecoverJoker)]
    assert [a.cards[0].face for a in rec] == [(1, "s")]
    new = R.apply(st, rec[0])[0]
    assert any(c.is_joker for c in new.hands[0])


def test_ace_on_two_to_king_may_go_low_or_high_500() -> None:
    """2..K takes an ace at either end; in 500 the choice is worth 1 or 11 points."""
    st = scenario("500", hands=["As 5c 9d", "Kh Kd"], melds=[(TWO_TO_KING, 1)]).round
    lays = [a for a in R.legal_actions(st, 0) if isinstance(a, A.LayOff) and a.card.face == (1, "s")]
    assert sorted(a.end for a in lays) == ["high", "low"]  # type: ignore[type-var]
    points = {a.end: R.apply(st, a)[0].laid_points[0] for a in lays}
    assert points == {"low": 1, "high": 11}


def test_500_deep_ace_that_must_be_used_leaves_a_legal_action() -> None:
    """The stuck seat of issue 10: a deep As taken to lay before 2s..Qs."""
    st = scenario(
        "500", hands=["5c 9d", "Kh Kd"], melds=[(LONG_RUN, 1)], discard="8h As Qd 7c", phase="draw"
    ).round
    st = R.apply(st, A.DrawDiscard(0, 3))[0]
    assert [str(c) for c in st.must_use] == ["As"]
    acts = list(R.legal_actions(st, 0))
    assert acts, "the seat is stuck"
    assert any(isinstance(a, A.LayOff) and a.card.face == (1, "s") for a in acts)


# --- openings: every distinct one is offered (issue 10) ---------------------------------


def _brute_openings(st: R.RoundState, seat: int) -> set:
    """Effect keys of every legal opening, by brute force over card groups and orders."""
    from itertools import combinations, permutations

    v = st.variant
    hand = list(st.hands[seat])
    keys: set = set()

    def melds_of(group: tuple[Card, ...]) -> list[A.MeldSpec]:
        out, seen = [], set()
        for perm in permutations(group):
            faces = tuple(c.face for c in perm)
            if faces in seen:
                continue
            seen.add(faces)
            for kind in ("set", "run"):
                if check_meld(v, perm, kind).valid:
                    out.append(A.MeldSpec(perm, kind))  # type: ignore[arg-type]
        return out

    def rec(rest: list[Card], specs: list[A.MeldSpec]) -> None:
        if specs:
            new = _try(st, A.LayDown(seat, tuple(specs)))
            if new is not None:
                keys.add(effect_key(new))
        if not rest:
            return
        first, others = rest[0], rest[1:]
        rec(others, specs)  # the first card stays in hand
        for size in (2, 3):
            for combo in combinations(others, size):
                group = (first, *combo)
                left = [c for c in others if c not in combo]
                for spec in melds_of(group):
                    rec(left, specs + [spec])

    rec(hand, [])
    return keys


def _opening_state(vid: str, rng: random.Random) -> R.RoundState:
    v = VARIANTS[vid]
    suits = list(SUITS)
    while True:
        toks: list[str] = []
        r = rng.randint(2 if v.open_min_points < 40 else 7, 11)
        s = rng.choice(suits)
        toks += [f"{rank_text(r + k)}{s}" for k in range(rng.choice([3, 4]))]
        q = rng.randint(8 if v.open_min_points < 40 else 10, 13)
        toks += [f"{rank_text(q)}{t}" for t in rng.sample(suits, rng.choice([2, 3]))]
        if rng.random() < 0.5:
            toks.append(toks[rng.randrange(len(toks))])  # a twin
        toks += ["*"] * rng.choice([0, 1, 1, 2])
        rng.shuffle(toks)
        toks = toks[:7]
        try:
            m = scenario(vid, hands=[" ".join(toks), "5c"], opened=[False, True], discard="2d")
        except ValueError:
            continue
        if v.open_min_points and m.round is not None:
            return m.round


@pytest.mark.parametrize("vid", ["rami", "40"])
def test_every_distinct_opening_is_offered(vid: str) -> None:
    rng = random.Random(f"openings-{vid}")
    found = 0
    for _ in range(max(6, EXAMPLES // 4)):
        st = _opening_state(vid, rng)
        offered = set()
        for a in R.legal_actions(st, 0):
            if isinstance(a, A.LayDown):
                offered.add(effect_key(R.apply(st, a)[0]))
        brute = _brute_openings(st, 0)
        found += len(brute)
        missing = brute - offered
        assert not missing, f"{vid}: {len(missing)} openings missing for {[str(c) for c in st.hands[0]]}"
    assert found > 5


def test_the_same_run_twice_with_twin_cards_opens() -> None:
    st = scenario("rami", hands=["7h 8h 9h 7h 8h 9h 5c", "5d"], opened=[False, True]).round
    downs = [a for a in R.legal_actions(st, 0) if isinstance(a, A.LayDown)]
    assert [len(a.melds) for a in downs] == [2]
    assert R.apply(st, downs[0])[0].opened[0]
