"""Opening lay-downs: every distinct way a seat may open now (`opening_lay_downs`, lazy,
complete) and the solver's best one (split out of `rami_lan.core.round`, whose
`legal_actions` lists them; it re-exports every name).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from rami_lan.core import actions as A
from rami_lan.core.cards import Card
from rami_lan.core.melds import Meld
from rami_lan.core.questions import best_lay_down
from rami_lan.core.round_state import RoundState
from rami_lan.core.solver import enumerate_melds
from rami_lan.core.variants import Variant

MAX_LISTED_OPENINGS = 200
"""How many openings `legal_actions` lists for a seat facing a points threshold (the
best one first). `opening_lay_downs` generates all of them, without a cap."""


def _face_of(c: Card) -> tuple[int, str | None] | None:
    return None if c.is_joker else c.face


def _assign(
    faces: Sequence[tuple[int, str | None] | None], hand: Sequence[Card], prefer: Sequence[Card] = ()
) -> tuple[Card, ...]:
    """Physical cards of ``hand`` for ``faces`` (in order), cards in ``prefer`` first."""
    pools: dict = {}
    for c in list(prefer) + [c for c in hand if c not in prefer]:
        pools.setdefault(_face_of(c), []).append(c)
    used: dict = {}
    out = []
    for f in faces:
        i = used.get(f, 0)
        used[f] = i + 1
        out.append(pools[f][i])
    return tuple(out)


def _distinct_melds(v: Variant, hand: Sequence[Card]) -> list[Meld]:
    """Every meld the hand can form, once per table result (kind, ranks, faces)."""
    out, seen = [], set()
    for m in enumerate_melds(v, hand, canonical=False):
        key = (m.kind, m.ranks, m.suits, tuple(_face_of(c) for c in m.cards))
        if key not in seen:
            seen.add(key)
            out.append(m)
    return out


def opening_lay_downs(st: RoundState, seat: int) -> Iterator[A.LayDown]:
    """Every distinct opening lay-down for ``seat`` now, lazily (complete, no cap).

    An opening is a multiset of melds the hand can form together (the same meld may be
    laid twice with twin cards) reaching the opening threshold, leaving a card to
    discard where the variant needs one, and containing the cards the turn obliges to
    use. Distinct means different melds on the table; twin cards are interchangeable
    (a card the turn obliges to use is placed first). Melds are tried by decreasing
    points, so openings built from the strongest melds come first. Each lay-down is
    a candidate: `apply` has the last word (`legal_actions` checks each one).
    """
    v = st.variant
    hand = st.hands[seat]
    need = v.open_min_points
    keep = 1 if v.must_discard_to_go_out else 0
    must = [c for c in st.must_use if c in hand]
    must_need: dict = {}
    for c in must:
        must_need[_face_of(c)] = must_need.get(_face_of(c), 0) + 1
    have: dict = {}
    for c in hand:
        have[_face_of(c)] = have.get(_face_of(c), 0) + 1
    melds = sorted(_distinct_melds(v, hand), key=lambda m: -m.points(v))
    uses = []
    for m in melds:
        u: dict = {}
        for c in m.cards:
            u[_face_of(c)] = u.get(_face_of(c), 0) + 1
        uses.append(u)
    pts = [m.points(v) for m in melds]
    max_cards = len(hand) - keep
    chosen: list[int] = []

    def walk(start: int, left: dict, points: int, n_cards: int) -> Iterator[A.LayDown]:
        if chosen and points >= need and all(
            have[f] - left[f] >= k for f, k in must_need.items()
        ):
            faces = [_face_of(c) for i in chosen for c in melds[i].cards]
            cards = _assign(faces, hand, must)
            specs, k = [], 0
            for i in chosen:
                size = len(melds[i].cards)
                specs.append(A.MeldSpec(cards[k : k + size], melds[i].kind))
                k += size
            yield A.LayDown(seat, tuple(specs))
        for i in range(start, len(melds)):
            size = len(melds[i].cards)
            if n_cards + size > max_cards:
                continue
            u = uses[i]
            if any(left[f] < k for f, k in u.items()):
                continue
            for f, k in u.items():
                left[f] -= k
            chosen.append(i)
            yield from walk(i, left, points + pts[i], n_cards + size)
            chosen.pop()
            for f, k in u.items():
                left[f] += k

    yield from walk(0, dict(have), 0, 0)


def _best_opening(st: RoundState, seat: int) -> A.LayDown | None:
    """The solver's best opening (most points), the first opening a bot would try."""
    v = st.variant
    part = best_lay_down(v, st.hands[seat], [c for c in st.must_use if c in st.hands[seat]])
    if part is None or part.points < v.open_min_points or not part.meld_objects:
        return None
    return A.LayDown(seat, tuple(A.MeldSpec(m.cards, m.kind) for m in part.meld_objects))
