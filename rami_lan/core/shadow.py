"""Legality from a seat's view alone: what a bot or the UI may ask without the state.

The legality of a seat's own actions depends only on what that seat sees (its hand,
the table, the top of the discard pile or the whole pile where public, the stock
*size*). `shadow_state` rebuilds a `RoundState` from a `SeatView` in which the unseen
cards (other hands, the stock, the hidden part of the pile) are placeholders. It is
only ever used to ask `is_legal` / `legal_actions` for the viewing seat; it can not
reveal anything, because it is built from the view.
"""

from __future__ import annotations

from collections.abc import Iterator

from rami_lan.core import actions as A
from rami_lan.core import round as R
from rami_lan.core.cards import Card
from rami_lan.core.variants import get_variant
from rami_lan.core.views import SeatView

_PLACEHOLDER_COPY = 1000


_POOL: tuple[Card, ...] = tuple(Card(2, "c", _PLACEHOLDER_COPY + i) for i in range(256))


def _placeholders(n: int, start: int) -> tuple[Card, ...]:
    """``n`` distinct stand-in cards (built once; a table never hides 256 cards)."""
    return _POOL[start : start + n]


def shadow_state(view: SeatView) -> R.RoundState | None:
    """A stand-in round state for the viewing seat, or None when no round is running."""
    if view.phase not in ("draw", "play") or view.seat is None or view.turn is None:
        return None
    v = get_variant(view.variant)
    n = len(view.players)
    players = tuple(p.seat for p in view.players if p.in_round)
    hands = []
    k = 0
    for p in view.players:
        if p.seat == view.seat:
            hands.append(tuple(view.hand))
        else:
            hands.append(_placeholders(p.n_cards, k))
            k += p.n_cards
    hidden = view.discard_size - len(view.discard)
    discard = _placeholders(hidden, k) + tuple(view.discard)
    k += hidden
    # built like `round.replace` (no checks in ``__init__`` to skip): a bot builds one
    # shadow state per move
    st = object.__new__(R.RoundState)
    st.__dict__.update(
        variant=v,
        players=players,
        n_seats=n,
        round_no=view.round_no,
        dealer=view.dealer if view.dealer is not None else players[0],
        seed=bytes(32),
        knock_enabled=view.knock,
        hands=tuple(hands),
        stock=_placeholders(view.stock_size, k),
        stock_gen=0,
        stock_base=view.stock_size,
        discard=discard,
        melds=tuple(view.melds),
        turn=view.turn,
        phase=view.phase,
        turn_no=view.turn_no,
        opened=tuple(p.opened for p in view.players),
        laid_before=(False,) * n,
        laid_points=tuple(p.laid_points for p in view.players),
        timeouts=(0,) * n,
        away=tuple(p.away for p in view.players),
        taken=view.taken,
        must_use=tuple(view.must_use),
        knock_window=tuple(view.knock_window),
        drawn=None,
        laid_this_turn=False,
        result=None,
    )
    return st


def is_legal_for_view(view: SeatView, action: A.Action) -> bool:
    """Would the host accept ``action`` from the viewing seat now?"""
    st = shadow_state(view)
    return st is not None and action.seat == view.seat and R.is_legal(st, action)


def legal_actions_for_view(view: SeatView) -> Iterator[A.Action]:
    """The viewing seat's legal actions (one per interchangeable card face)."""
    st = shadow_state(view)
    if st is None or view.seat is None:
        return iter(())
    return R.legal_actions(st, view.seat)


def automatic_move(view: SeatView, drawn: Card | None = None) -> A.Action | None:
    """The move the move timer makes for the viewing seat, as `Timeout` chooses it: in
    the draw phase a draw from the stock; in the play phase a discard of ``drawn`` (the
    card just drawn, if the seat knows it) unless it is a joker and another card may go,
    else of its highest-scoring natural card. For a player whose own client plays its
    timed-out turn (private dealing: the host can not see the hand). None: not its turn,
    or (play phase) a card of the hand is unknown (nil in the view)."""
    st = shadow_state(view)
    if st is None or view.seat is None or view.turn != view.seat:
        return None
    if view.phase == "draw":
        return A.DrawStock(view.seat)
    if any(c is None for c in view.hand):
        return None  # cards of our hand we do not know (private dealing): no discard to choose
    st.__dict__["drawn"] = drawn if drawn is not None and drawn in view.hand else None
    return A.Discard(view.seat, R._timeout_card(st, view.seat))

