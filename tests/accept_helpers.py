"""Helpers for the acceptance tests written from the rules pages (tests/test_accept_*.py).

They drive the public core API only: `scenario` builds a position, `apply` plays actions,
and cards are named by their short text form (``"10h Jh *"``), picked from a hand.
"""

from __future__ import annotations

import pytest

from rami_lan.core import (
    VARIANTS,
    Card,
    IllegalAction,
    LayDown,
    MatchState,
    MeldSpec,
    apply,
    full_deck,
    is_legal,
    new_match,
    parse_card,
    start_round,
)
from rami_lan.core.match import MatchOptions


def _take(hand: list[Card], seat: int, text: str) -> tuple[Card, ...]:
    """Remove from ``hand`` (a list) one physical card per face in ``text``."""
    out = []
    for tok in text.split():
        face = parse_card(tok).face
        c = next((c for c in hand if c.face == face), None)
        assert c is not None, f"{tok} is not in seat {seat}'s hand {[str(x) for x in hand]}"
        hand.remove(c)
        out.append(c)
    return tuple(out)


def pick(m: MatchState, seat: int, text: str) -> tuple[Card, ...]:
    """Physical cards of ``seat``'s hand for the faces in ``text`` (each used once)."""
    assert m.round is not None
    return _take(list(m.round.hands[seat]), seat, text)


def one(m: MatchState, seat: int, text: str) -> Card:
    return pick(m, seat, text)[0]


def melds(m: MatchState, seat: int, *specs: str | tuple[str, str]) -> LayDown:
    """A LayDown of the melds written as ``"7c 8c 9c"`` or ``("5h * *", "run")``."""
    out = []
    hand_left = list(m.round.hands[seat])  # type: ignore[union-attr]
    for spec in specs:
        text, kind = (spec, None) if isinstance(spec, str) else spec
        out.append(MeldSpec(_take(hand_left, seat, text), kind))  # type: ignore[arg-type]
    return LayDown(seat, tuple(out))


def play(m: MatchState, *actions: object) -> MatchState:
    for a in actions:
        m, _ = apply(m, a)  # type: ignore[arg-type]
    return m


def refused(m: MatchState, action: object, match: str | None = None) -> None:
    """``action`` is refused with an IllegalAction (whose text matches ``match``)."""
    assert not is_legal(m, action)  # type: ignore[arg-type]
    with pytest.raises(IllegalAction, match=match):
        apply(m, action)  # type: ignore[arg-type]


def hand_text(m: MatchState, seat: int) -> list[str]:
    return sorted(str(c) for c in m.round.hands[seat])  # type: ignore[union-attr]


def scores(m: MatchState) -> dict[int, int]:
    assert m.round is not None and m.round.result is not None, "the round is not over"
    return dict(m.round.result.scores)


def dealt(vid: str, n: int, dealer: int, seed: bytes = bytes(32), options: MatchOptions | None = None):
    """A match whose first round is dealt from the canonical (unshuffled) deck."""
    v = VARIANTS[vid]
    m = new_match(v, n, options)
    deck = full_deck(v.n_decks, v.n_jokers)
    m, evs = start_round(m, deck, seed, dealer)
    return m, deck, evs
