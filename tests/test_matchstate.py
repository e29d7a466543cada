"""The match-score model: chances and the cost of a penalty point at a score."""

from __future__ import annotations

from rami_lan.bots.matchstate import penalty_weight, win_chance


def test_even_rooms_are_an_even_match_and_room_helps():
    for room in (101, 60, 20):
        assert abs(win_chance(101, room, room) - 0.5) < 1e-9
    assert win_chance(101, 101, 40) > win_chance(101, 101, 80) > 0.5
    assert win_chance(101, 40, 101) < win_chance(101, 80, 101) < 0.5
    assert win_chance(101, -1, 50) == 0.0
    assert win_chance(101, 50, -1) == 1.0
    # the chances of the two seats add up to one
    assert abs(win_chance(101, 30, 70) + win_chance(101, 70, 30) - 1.0) < 1e-9


def test_a_point_costs_nothing_when_the_hand_loses_anyway_and_most_near_the_edge():
    assert penalty_weight(101, 101, 101, 30) == 1.0
    # 60 points in hand, 20 of room: caught, the match is lost whatever it sheds
    assert penalty_weight(101, 20, 101, 60) == 0.0
    # 60 points in hand, 60 of room: shedding a few points decides the match
    assert penalty_weight(101, 60, 101, 60) > 1.1
