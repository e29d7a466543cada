"""Match rules: elimination limits, first to 100, 500 target / quick / tie-breaks,
dealer rotation, eliminated players skipped, withdrawal."""

from __future__ import annotations

import random

import pytest
from core_play import deck_for

from rami_lan.core import IllegalAction, MatchOptions, new_match, start_round, withdraw
from rami_lan.core import events as E
from rami_lan.core import match as M


def _result(scores: dict[int, int], winner: int | None = 0) -> E.RoundEnded:
    return E.RoundEnded(
        winner=winner,
        rami_sec=False,
        reason="out",
        hands=tuple((s, ()) for s in scores),
        hand_points=tuple((s, 0) for s in scores),
        laid_points=tuple((s, 0) for s in scores),
        scores=tuple(sorted(scores.items())),
    )


def _play(m: M.MatchState, scores: dict[int, int], winner: int | None = 0) -> M.MatchState:
    m = M.replace(m, round_no=m.round_no + 1)
    m, _ = M._score_round(m, _result(scores, winner))
    return m


def test_elimination_when_total_exceeds_the_limit() -> None:
    m = new_match("rami", 3, MatchOptions(limit=50))
    m = _play(m, {0: 0, 1: 50, 2: 30})
    assert m.eliminated == (False, False, False)  # 50 is not over 50
    m = _play(m, {0: 0, 1: 1, 2: 10})
    assert m.eliminated == (False, True, False) and not m.over
    assert m.next_players() == (0, 2)
    m = _play(m, {0: 0, 2: 15})
    assert m.over and m.winner == 0 and m.end_reason == "last_player"


def test_limit_one_is_a_single_round() -> None:
    m = new_match("classique", 4, MatchOptions(limit=1))
    m = _play(m, {0: 12, 1: 0, 2: 40, 3: 3}, winner=1)
    assert m.over and m.winner == 1


def test_forty_default_limit_is_101() -> None:
    m = new_match("40", 2)
    assert m.options.limit == 101
    with pytest.raises(ValueError):
        new_match("rami", 2, MatchOptions(limit=101))


def test_multi_first_to_100() -> None:
    m = new_match("multi", 2)
    m = _play(m, {0: 60, 1: 0})
    assert not m.over
    m = _play(m, {0: 0, 1: 99}, winner=1)
    assert not m.over
    m = _play(m, {0: 45, 1: 0})
    assert m.over and m.winner == 0 and m.totals == (105, 99)


def test_500_target_highest_total_wins_and_ties_play_tiebreaks() -> None:
    m = new_match("500", 3)
    m = _play(m, {0: 480, 1: 300, 2: 490})
    assert not m.over
    m = _play(m, {0: 30, 1: 10, 2: 20})  # 510, 310, 510: tie between 0 and 2
    assert not m.over and m.tiebreak == (0, 2) and m.next_players() == (0, 2)
    m = _play(m, {0: 5, 2: -10})
    assert m.over and m.winner == 0


def test_500_quick_match_is_three_rounds() -> None:
    m = new_match("500", 2, MatchOptions(quick=True))
    m = _play(m, {0: 50, 1: 20})
    m = _play(m, {0: 10, 1: 20})
    assert not m.over
    m = _play(m, {0: -5, 1: 30})
    assert m.over and m.winner == 1


def test_options_are_checked_against_the_variant() -> None:
    with pytest.raises(ValueError):
        new_match("multi", 2, MatchOptions(knock=True))
    with pytest.raises(ValueError):
        new_match("rami", 2, MatchOptions(quick=True))
    with pytest.raises(ValueError):
        new_match("rami", 5)


def test_dealer_rotates_left_and_skips_eliminated_players() -> None:
    rng = random.Random(7)
    m = new_match("rami", 4, MatchOptions(limit=50))
    m, evs = start_round(m, deck_for(m, rng), rng.randbytes(32), dealer=1)
    started = evs[0]
    assert isinstance(started, E.RoundStarted) and started.first_player == 2
    m = M.replace(m, eliminated=(False, False, True, False), round=M.replace(m.round, phase="over"))
    m, evs = start_round(m, deck_for(m, rng), rng.randbytes(32))
    assert m.dealer == 3 and evs[0].players == (0, 1, 3) and evs[0].first_player == 0


def test_first_dealer_comes_from_the_seed() -> None:
    from rami_lan.core.deckrng import first_dealer_index

    rng = random.Random(3)
    seed = rng.randbytes(32)
    m = new_match("rami", 3)
    m, _ = start_round(m, deck_for(m, rng), seed)
    assert m.dealer == first_dealer_index(seed, 3)


def test_withdraw_between_rounds_only() -> None:
    rng = random.Random(1)
    m = new_match("rami", 3)
    m, _ = start_round(m, deck_for(m, rng), rng.randbytes(32))
    with pytest.raises(IllegalAction):
        withdraw(m, 1)
    m = M.replace(m, round=M.replace(m.round, phase="over"))
    m, evs = withdraw(m, 1)
    assert m.eliminated[1] and not m.over
    m, evs = withdraw(m, 2)
    assert m.over and m.winner == 0 and isinstance(evs[-1], E.MatchEnded)
