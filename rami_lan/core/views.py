"""Per-seat views: exactly what one seat may know, built only here.

A view holds the seat's own hand, the public table (melds, discard pile per the
variant's visibility, stock size, hand counts, who opened, totals) and, once a round
is over, its result (which reveals every hand, as the rules do). It never holds
another seat's hand in a running round nor the order of the stock. Bots and clients
receive views, so they can not cheat by construction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from rami_lan.core.cards import Card
from rami_lan.core.events import RoundEnded
from rami_lan.core.match import MatchState
from rami_lan.core.melds import Meld

_T = TypeVar("_T")


@dataclass(frozen=True)
class PlayerInfo:
    seat: int
    in_round: bool
    n_cards: int
    opened: bool
    total: int
    eliminated: bool
    laid_points: int
    away: bool


@dataclass(frozen=True)
class SeatView:
    seat: int | None  # None: a spectator's (or the public) view
    variant: str
    phase: str  # waiting, draw, play, between, over
    round_no: int
    turn_no: int
    turn: int | None
    dealer: int | None
    hand: tuple[Card, ...]
    players: tuple[PlayerInfo, ...]
    melds: tuple[Meld, ...]
    discard: tuple[Card, ...]  # bottom to top; only the top card unless the pile is public
    discard_size: int
    stock_size: int
    knock_window: tuple[int, ...]
    taken: Card | None
    must_use: tuple[Card, ...]
    last_result: RoundEnded | None
    limit: int
    quick: bool
    knock: bool
    match_over: bool
    winner: int | None
    tiebreak: tuple[int, ...]

    @property
    def my_turn(self) -> bool:
        return self.seat is not None and self.turn == self.seat and self.phase in ("draw", "play")

    @property
    def can_knock(self) -> bool:
        return self.seat is not None and self.seat in self.knock_window


def _fast(cls: type[_T], **fields: object) -> _T:
    """``cls(**fields)`` for a frozen dataclass without checks in ``__init__``: filling the
    field dict directly is equivalent and several times cheaper (a view is built for
    every move of every bot)."""
    obj = object.__new__(cls)
    object.__setattr__(obj, "__dict__", fields)  # the fresh keyword dict becomes the field dict
    return obj


_PLAYERS: dict[tuple[int, bool, int, bool, int, bool, int, bool], PlayerInfo] = {}


def view_for(m: MatchState, seat: int | None) -> SeatView:
    """What ``seat`` may see of the match now."""
    r = m.round
    v = m.variant
    players = []
    for s in range(m.n_seats):
        in_round = r is not None and s in r.players
        key = (
            s,
            in_round,
            len(r.hands[s]) if r is not None else 0,
            bool(r is not None and r.opened[s]),
            m.totals[s],
            bool(m.eliminated[s]),
            r.laid_points[s] if r is not None else 0,
            bool(r is not None and r.away[s]),
        )
        info = _PLAYERS.get(key)
        if info is None:  # immutable: the same facts share one object
            if len(_PLAYERS) >= 4096:
                _PLAYERS.clear()
            info = _PLAYERS[key] = _fast(
                PlayerInfo, seat=key[0], in_round=key[1], n_cards=key[2], opened=key[3],
                total=key[4], eliminated=key[5], laid_points=key[6], away=key[7])
        players.append(info)
    if r is None:
        discard: tuple[Card, ...] = ()
    elif v.discard_pile_visible:
        discard = r.discard
    else:
        discard = r.discard[-1:]
    mine = r is not None and seat is not None and seat in r.players
    playing = r is not None and r.phase != "over"
    return _fast(
        SeatView,
        seat=seat,
        variant=v.id,
        phase=m.phase,
        round_no=m.round_no,
        turn_no=r.turn_no if r else 0,
        turn=r.turn if playing and r else None,
        dealer=m.dealer,
        hand=r.hands[seat] if mine and r is not None and seat is not None else (),
        players=tuple(players),
        melds=r.melds if r else (),
        discard=discard,
        discard_size=len(r.discard) if r else 0,
        stock_size=len(r.stock) if r else 0,
        knock_window=r.knock_window if playing and r else (),
        taken=r.taken if mine and r is not None and r.turn == seat else None,
        must_use=r.must_use if mine and r is not None and r.turn == seat else (),
        last_result=r.result if r else None,
        limit=m.options.limit or v.default_limit,
        quick=m.options.quick,
        knock=m.options.knock,
        match_over=m.over,
        winner=m.winner,
        tiebreak=m.tiebreak,
    )
