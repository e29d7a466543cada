"""Public API details: phases and end reasons are StrEnums, the one lay-down helper."""

from __future__ import annotations

import random

from core_play import deck_for, play_match

from rami_lan.core import (
    MatchEnd,
    Phase,
    RoundEnd,
    apply,
    match_to_plain,
    new_match,
    parse_cards,
    start_round,
    view_for,
    view_to_plain,
)
from rami_lan.core import actions as A
from rami_lan.core.questions import best_lay_down
from rami_lan.net.protocol import check_plain


def test_phases_are_str_enums_and_travel_as_plain_strings() -> None:
    assert Phase.DRAW == "draw" and "play" == Phase.PLAY and f"{Phase.OVER}" == "over"
    rng = random.Random(1)
    m = new_match("rami", 2)
    assert m.phase is Phase.WAITING
    m, _ = start_round(m, deck_for(m, rng), bytes(32))
    assert m.phase is Phase.DRAW and m.round is not None and m.round.phase is Phase.DRAW
    m, _ = apply(m, A.DrawStock(m.round.turn))
    assert m.phase is Phase.PLAY
    plain = view_to_plain(view_for(m, 0))
    assert type(plain["phase"]) is str and plain["phase"] == "play"
    check_plain(plain)
    snap = match_to_plain(m)
    assert type(snap["round"]["phase"]) is str
    check_plain(snap)


def test_round_and_match_end_reasons_are_enums() -> None:
    m = play_match(new_match("multi", 2), random.Random(4))
    assert m.over and isinstance(m.end_reason, MatchEnd)
    assert all(isinstance(h.reason, RoundEnd) for h in m.history)
    assert type(match_to_plain(m)["end_reason"]) is str


def test_best_lay_down_keeps_a_card_and_melds_the_obligation() -> None:
    hand = parse_cards("5h 6h 7h 8h 9c 9d 9s")
    # classique: the last card must be discarded, so one card stays in hand
    part = best_lay_down("classique", hand)
    assert part is not None and [str(c) for c in part.leftover] == ["5h"] and part.points == 48
    assert best_lay_down("rami", hand).leftover == []  # type: ignore[union-attr]
    # the obligation is melded, or there is no lay-down at all
    seven = hand[2]
    part = best_lay_down("classique", hand, [seven])
    assert part is not None and any(seven in m for m in part.melds)
    assert best_lay_down("classique", parse_cards("5h 6h 7h"), [parse_cards("5h 6h 7h")[0]]) is None
