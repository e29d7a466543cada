"""A bot whose own plan fails still answers with a legal action (its fallback)."""

from __future__ import annotations

import pytest

from rami_lan.bots.moyen import Moyen
from rami_lan.core import actions as A
from rami_lan.core import parse_cards
from rami_lan.core.shadow import is_legal_for_view
from rami_lan.core.views import PlayerInfo, SeatView


class Broken(Moyen):
    """Its discard plan raises."""

    def pick_discard(self, view):  # type: ignore[no-untyped-def]
        raise RuntimeError("plan failed")


@pytest.mark.parametrize("variant", ["40", "rami"])
def test_a_failed_plan_in_the_play_phase_discards(variant: str) -> None:
    players = (PlayerInfo(0, True, 2, True, 0, False, 0, False),
               PlayerInfo(1, True, 3, True, 0, False, 0, False))
    view = SeatView(seat=0, variant=variant, phase="play", round_no=1, turn_no=20, turn=0, dealer=1,
                    hand=tuple(parse_cards("2d 9s")), players=players, melds=(),
                    discard=tuple(parse_cards("3s")), discard_size=9, stock_size=40, knock_window=(),
                    taken=None, must_use=(), last_result=None, limit=101, quick=False, knock=False,
                    match_over=False, winner=None, tiebreak=())
    action = Broken(0, 1).choose(view, [])
    assert isinstance(action, A.Discard) and action.seat == 0  # an action, never a bare card
    assert is_legal_for_view(view, action)
