"""The sixth pass (issue 26): `expert_v2` kept for measurement, the ``500`` play-out model
(`rami_lan.bots.rollout500`) and the expert's determinized search (deals from a random
source derived from the game state, so a seeded match replays exactly)."""

from __future__ import annotations

import hashlib
from dataclasses import replace

from rami_lan.bots import MEASURE_LEVELS, make_bot
from rami_lan.bots.expert import Expert
from rami_lan.bots.expert_v2 import ExpertV2
from rami_lan.bots.rollout500 import Round500
from rami_lan.core import parse_cards
from rami_lan.core.match import MatchOptions
from rami_lan.core.shadow import is_legal_for_view
from rami_lan.core.variants import get_variant
from rami_lan.table.selfplay import play_match

V500 = get_variant("500")


def test_expert_v2_is_a_measurement_level_and_the_expert_builds_on_it():
    assert MEASURE_LEVELS["expert_v2"] is ExpertV2
    assert make_bot("expert_v2", 0, 1).level == "expert_v2"
    assert isinstance(make_bot("expert", 0, 1), ExpertV2)
    # the search is built but off (measured: it loses, docs/bots.md "Sixth pass")
    assert not Expert.pimc_variants


def test_expert_v2_plays_the_fifth_pass_match():
    """`expert_v2` is today's expert unchanged: the fifth pass's pinned 40 match
    (tests/core/test_search.py) is played action for action by it too."""

    class Tap:
        def __init__(self, bot, digest):
            self.bot, self.digest = bot, digest

        def choose(self, view, events):
            action = self.bot.choose(view, events)
            self.digest.update(repr(action).encode())
            return action

        def wants_knock(self, view, events=()):
            return self.bot.wants_knock(view, events)

    digest = hashlib.sha256()
    res = play_match("40", [Tap(ExpertV2(0, 3), digest), make_bot("expert_v1", 1, 3)], 2027)
    assert (res.winner, res.rounds, res.totals, digest.hexdigest()[:24]) == (
        0, 8, (32, 144), "86c244f0eb95c11e84b965d6")


def test_round500_scores_laid_points_minus_hands_both_sides():
    """Seat 0 has drawn: it lays 5h 6h 7h (18 points) and goes out by discarding Kc;
    seat 1 is left with Qs Qd 2c (22 points against it): 18 - (0 - 22) = 40."""
    game = Round500(V500, ())
    hands = {0: parse_cards("5h 6h 7h Kc"), 1: parse_cards("Qs Qd 2c")}
    stock = parse_cards("3d 4d 9s 9c")
    assert game.playout(0, [0, 1], hands, stock, [], first_draw=False) == 40.0
    # seen from seat 1, the same round is the opposite
    assert game.playout(1, [0, 1], hands, stock, [], first_draw=False) == -40.0


def test_round500_takes_the_pile_card_that_melds_and_not_a_useless_one():
    game = Round500(V500, ())
    hand = parse_cards("6h 7h Kc 2s")
    assert game.draw_choice(hand, parse_cards("3c 8h"), set()) == 1  # 6h 7h 8h: 21 points
    assert game.draw_choice(hand, parse_cards("8h 3c"), set()) == 2  # deep: 8h under 3c
    assert game.draw_choice(hand, parse_cards("9d 3c"), set()) == 0  # nothing melds: the stock


def _view_500():
    """A 500 view in the draw phase from a real match (seat 0, a few turns in)."""
    seen = []

    class Grab:
        def __init__(self, bot):
            self.bot = bot

        def choose(self, view, events):
            if view.phase == "draw" and len(view.discard) >= 3 and not seen:
                seen.append(view)
            return self.bot.choose(view, events)

        def wants_knock(self, view, events=()):
            return False

    play_match("500", [Grab(make_bot("expert", 0, 1)), make_bot("moyen", 1, 2)], 5,
               MatchOptions(quick=True))
    return seen[0]


def test_state_rng_depends_on_the_state_only():
    view = _view_500()
    a, b = Expert(0, 7), Expert(0, 7)
    a.rng.random()  # the bot's own random source is not what the search uses
    assert a.state_rng(view).random() == b.state_rng(view).random()
    assert a.state_rng(view).random() != a.state_rng(replace(view, turn_no=view.turn_no + 1)).random()
    assert a.state_rng(view).random() != Expert(0, 8).state_rng(view).random()


def test_the_500_search_is_legal_and_replays_exactly(monkeypatch):
    monkeypatch.setattr(Expert, "pimc_variants", frozenset({"500"}))
    monkeypatch.setattr(Expert, "pimc_worlds", 4)
    view = _view_500()
    first = Expert(0, 3).choose(view, [])
    assert is_legal_for_view(view, first)
    assert all(Expert(0, 3).choose(view, []) == first for _ in range(3))
    play = replace(view, phase="play")
    bot = Expert(0, 3)
    card = bot.pick_discard(play)
    assert card in view.hand and Expert(0, 3).pick_discard(play) == card

    def digest() -> str:
        h = hashlib.sha256()

        class Tap:
            def __init__(self, bot):
                self.bot = bot

            def choose(self, v, events):
                action = self.bot.choose(v, events)
                h.update(repr(action).encode())
                return action

            def wants_knock(self, v, events=()):
                return False

        play_match("500", [Tap(Expert(0, 4)), Tap(make_bot("expert_v2", 1, 5))], 9,
                   MatchOptions(quick=True))
        return h.hexdigest()

    assert digest() == digest()


def _play500(hand, opp_cards, table=()):
    """Seat 0's play phase in a heads-up 500 round (it has drawn)."""
    from rami_lan.core.views import PlayerInfo, SeatView

    players = (PlayerInfo(0, True, len(hand), True, 0, False, 0, False),
               PlayerInfo(1, True, opp_cards, True, 0, False, 0, False))
    return SeatView(
        seat=0, variant="500", phase="play", round_no=1, turn_no=6, turn=0, dealer=1,
        hand=tuple(hand), players=players, melds=tuple(table), discard=(), discard_size=4,
        stock_size=30, knock_window=(), taken=None, must_use=(), last_result=None,
        limit=500, quick=False, knock=False, match_over=False, winner=None, tiebreak=(),
    )


def test_expert_500_holds_its_melds_until_an_opponent_is_close():
    """500: a meld laid is a lay-off target that scores for the opponent. With the
    opponent on seven cards the expert keeps 2c 3c 4c and 9h 9s 9c in hand and
    discards (expert_v2 lays them); with the opponent on three cards it lays them; it
    still lays off on the table while holding; and it lays everything when the hand
    goes out this turn (here: melds, the 8s laid off, the Qh discarded)."""
    from rami_lan.core import actions as A
    from rami_lan.core.melds import build_run

    hand = parse_cards("2c 3c 4c 9h 9s 9c Qh 8s")
    far, close = _play500(hand, 7), _play500(hand, 3)
    assert isinstance(make_bot("expert_v2", 0, 1).choose(far, []), A.LayDown)
    held = make_bot("expert", 0, 1).choose(far, [])
    assert isinstance(held, A.Discard) and held.card in parse_cards("Qh 8s")
    assert isinstance(make_bot("expert", 0, 1).choose(close, []), A.LayDown)
    table = (build_run(V500, parse_cards("5s 6s 7s"), 1),)
    longer = parse_cards("2c 3c 4c 9h 9s 9c Qh Kd 8s")  # cannot go out this turn
    lay_off = make_bot("expert", 0, 1).choose(_play500(longer, 7, table), [])
    assert isinstance(lay_off, A.LayOff) and lay_off.card == parse_cards("8s")[0]
    assert isinstance(make_bot("expert", 0, 1).choose(_play500(hand, 7, table), []), A.LayDown)
