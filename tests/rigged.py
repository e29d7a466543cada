"""Test helper: deal a round with chosen hands, first discard and stock top."""

from __future__ import annotations

from rami_lan.core import VARIANTS, Card, full_deck, parse_cards
from rami_lan.core import round as R
from rami_lan.core.match import MatchOptions, MatchState, new_match, start_round


def rigged_deck(
    vid: str,
    hands: dict[int, str],
    n: int = 2,
    discard: str | None = None,
    stock: str = "",
    dealer: int | None = None,
) -> list[Card]:
    """A deck order giving ``hands[seat]`` (partial hands are filled from the rest)."""
    v = VARIANTS[vid]
    deck = full_deck(v.n_decks, v.n_jokers)
    wanted: dict[int, list[Card]] = {}
    used: list[Card] = []

    def take(text: str) -> list[Card]:
        out = []
        for c in parse_cards(text):
            pick = next(x for x in deck if x.face == c.face and x not in used)
            used.append(pick)
            out.append(pick)
        return out

    for s, t in hands.items():
        wanted[s] = take(t)
    top = take(discard) if discard else []
    stk = take(stock) if stock else []
    rest = [c for c in deck if c not in used]
    rest.reverse()  # deterministic but not canonical
    hs = v.cards_per_player(n)
    dealer = n - 1 if dealer is None else dealer
    order_seats = [(dealer + 1 + k) % n for k in range(n)]
    order: list[Card] = []
    for k in range(hs * n):
        s = order_seats[k % n]
        lst = wanted.get(s, [])
        order.append(lst.pop(0) if lst else rest.pop())
    order.append(top[0] if top else rest.pop())
    order.extend(stk)
    order.extend(rest)
    return order


def rigged_round(vid: str, hands: dict[int, str], n: int = 2, **kw) -> R.RoundState:
    v = VARIANTS[vid]
    dealer = kw.pop("dealer", n - 1)
    knock = kw.pop("knock", False)
    deck = rigged_deck(vid, hands, n, dealer=dealer, **kw)
    st, _ = R.deal(v, range(n), n, deck, bytes(32), dealer, knock_enabled=knock)
    return st


def rigged_match(
    vid: str, hands: dict[int, str], n: int = 2, options: MatchOptions | None = None, **kw
) -> MatchState:
    m = new_match(vid, n, options)
    deck = rigged_deck(vid, hands, n, dealer=n - 1, **kw)
    m, _ = start_round(m, deck, bytes(32), dealer=n - 1)
    return m


def card(st: R.RoundState, seat: int, text: str) -> Card:
    return next(c for c in st.hands[seat] if str(c) == text)


def cards_of(st: R.RoundState, seat: int, text: str) -> tuple[Card, ...]:
    out: list[Card] = []
    for t in text.split():
        out.append(next(c for c in st.hands[seat] if str(c) == t and c not in out))
    return tuple(out)
