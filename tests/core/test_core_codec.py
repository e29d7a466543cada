"""Plain-data codecs (actions, events, views) and legality from a view."""

from __future__ import annotations

import random

import msgpack
import pytest
from core_play import deck_for, random_action
from hypothesis import given, settings
from hypothesis import strategies as st

from rami_lan.core import (
    VARIANTS,
    DrawDiscard,
    LayDown,
    LayOff,
    MalformedAction,
    MatchOptions,
    MeldSpec,
    RecoverJoker,
    action_from_plain,
    action_to_plain,
    apply,
    legal_actions,
    new_match,
    parse_cards,
    start_round,
    view_for,
    view_from_plain,
    view_to_plain,
)
from rami_lan.core.shadow import legal_actions_for_view


def test_actions_round_trip() -> None:
    c = parse_cards("10h Jh Qh * 5d")
    for a in (
        DrawDiscard(1, 3),
        LayDown(0, (MeldSpec(tuple(c[:4]), "run"), MeldSpec(tuple(c[:3])))),
        LayOff(2, c[3], 4, "low"),
        RecoverJoker(3, 0, (c[4],)),
    ):
        plain = msgpack.unpackb(msgpack.packb(action_to_plain(a, "rami")))
        assert action_from_plain(plain, "rami") == a


@pytest.mark.parametrize(
    "bad",
    [
        None,
        [],
        {"kind": "fly", "seat": 0},
        {"kind": "discard", "seat": 0},
        {"kind": "discard", "seat": 0, "card": 999},
        {"kind": "discard", "seat": 0, "card": True},
        {"kind": "discard", "seat": "0", "card": 3},
        {"kind": "discard", "seat": 0, "card": 3, "extra": 1},
        {"kind": "lay_down", "seat": 0, "melds": []},
        {"kind": "lay_down", "seat": 0, "melds": [{"cards": [1, 2], "kind": "pair"}]},
        {"kind": "lay_off", "seat": 0, "card": 1, "target": 0, "end": "middle"},
        {"kind": "draw_discard", "seat": 0, "depth": 0},
    ],
)
def test_malformed_actions_are_refused(bad: object) -> None:
    with pytest.raises(MalformedAction):
        action_from_plain(bad, "rami")


@settings(max_examples=300, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=5),
        lambda ch: st.lists(ch, max_size=4) | st.dictionaries(st.text(max_size=6), ch, max_size=4),
    )
)
def test_random_plain_data_never_crashes_the_decoder(data: object) -> None:
    try:
        action_from_plain(data, "500")
    except MalformedAction:
        pass


@pytest.mark.parametrize("vid", list(VARIANTS))
def test_view_legality_equals_full_legality(vid: str) -> None:
    rng = random.Random(11)
    m = new_match(vid, 3, MatchOptions(knock=VARIANTS[vid].knock_supported))
    m, _ = start_round(m, deck_for(m, rng), rng.randbytes(32))
    steps = 0
    while m.round.phase != "over" and steps < 120:
        for seat in range(3):
            full = sorted(map(repr, legal_actions(m, seat)))
            from_view = sorted(map(repr, legal_actions_for_view(view_for(m, seat))))
            assert full == from_view
        m, _ = apply(m, random_action(m.round, m.round.turn, rng))
        steps += 1
        v = view_for(m, 0)
        assert view_from_plain(msgpack.unpackb(msgpack.packb(view_to_plain(v)))) == v
