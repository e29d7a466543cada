"""Tests for rami_lan.replay: a whole recorded match walked forward and back.

Matches are played with the rules core by ``test_stats.play_recorded_match`` (random
legal actions from a seeded ``random.Random``), which records each round's deck,
seed, dealer and accepted actions as it goes.
"""

from __future__ import annotations

import copy
import json
from collections import Counter

import pytest
from test_stats import Played, play_recorded_match

from rami_lan.core import MatchOptions, full_deck, match_to_plain, new_match
from rami_lan.i18n import set_language
from rami_lan.replay import Replay, ReplayError, ReplayRecord, replay_from_plain, replay_help


@pytest.fixture(scope="module")
def game() -> Played:
    # 3 players to 50 with frapper; seat 2 leaves after round 1 if still in.
    return play_recorded_match("rami", 3, MatchOptions(limit=50, knock=True), 41,
                               withdraw_after={1: 2})


@pytest.fixture(scope="module")
def replay(game: Played) -> Replay:
    # Through JSON, as a record file on disk.
    return Replay(ReplayRecord.from_plain(json.loads(json.dumps(game.record))))


def test_walk_forward_to_the_end_and_back_to_the_start(game: Played, replay: Replay) -> None:
    assert len(replay) == len(game.states)
    assert replay.n_rounds == len(game.record["rounds"]) >= 2
    assert any(r["withdrawals"] for r in game.record["rounds"]) or game.final.round_no == 1
    assert replay.at_start() and replay.state == new_match("rami", 3, MatchOptions(50, False, True))
    seen = [replay.state]
    while not replay.at_end():
        seen.append(replay.forward())
    assert replay.position == replay.last
    assert replay.state == game.final == replay.final_state
    assert replay.state.over and replay.state.winner == game.final.winner
    assert match_to_plain(replay.state) == match_to_plain(game.final)
    assert seen == game.states  # every intermediate state, too
    back = [replay.state]
    while not replay.at_start():
        back.append(replay.back())
    assert back[::-1] == seen
    assert replay.forward(10**9) == game.final and replay.back(10**9) == seen[0]


def test_jump_to_round_and_round_bounds(replay: Replay) -> None:
    for n in range(1, replay.n_rounds + 1):
        m = replay.jump_to_round(n)
        assert m.round_no == n and m.round is not None and m.round.phase != "over"
        assert replay.step_at(replay.position).kind == "deal"
        assert replay.round_at(replay.position) == n
        end = replay.round_end(n)
        assert replay.state_at(end).round is not None
        assert replay.state_at(end).round.phase == "over"  # type: ignore[union-attr]
        assert replay.round_at(end) == n
    assert replay.round_at(0) == 0
    replay.jump_to_round(1)
    assert replay.next_round().round_no == min(2, replay.n_rounds)
    replay.seek(replay.round_start(1) + 1)
    assert replay.previous_round().round_no == 1
    assert replay.previous_round() == replay.state_at(0)
    with pytest.raises(IndexError):
        replay.jump_to_round(0)
    with pytest.raises(IndexError):
        replay.jump_to_round(replay.n_rounds + 1)
    with pytest.raises(IndexError):
        replay.state_at(len(replay))
    assert replay.state_at(-1) == replay.final_state


def test_view_all_shows_every_hand(replay: Replay) -> None:
    n_checked = 0
    for i in range(0, len(replay), 7):
        full = replay.view_all(i)
        m = replay.state_at(i)
        if m.round is None:
            assert full.hands == ((),) * 3 and full.stock == ()
            continue
        rnd = m.round
        for s in range(3):
            assert full.hands[s] == rnd.hands[s]
            assert full.views[s].seat == s
            if s in rnd.players:
                assert full.views[s].hand == rnd.hands[s]
        assert full.public.seat is None and full.public.hand == ()
        # The record is complete: hands + stock + discard + melds are the whole deck.
        cards = [c for h in full.hands for c in h] + list(full.stock) + list(rnd.discard)
        cards += [c for meld in rnd.melds for c in meld.cards]
        assert Counter(cards) == Counter(full_deck(m.variant.n_decks, m.variant.n_jokers))
        n_checked += 1
    assert n_checked > 10
    last = replay.view_all(-1)
    assert last.step.kind in ("action", "withdraw") and last.public.match_over


def test_record_round_trips(game: Played) -> None:
    record = ReplayRecord.from_plain(game.record)
    assert record.to_plain() == game.record
    assert ReplayRecord.from_plain(record.to_plain()) == record
    assert replay_from_plain(game.record).final_state == game.final


def _tamper(game: Played, fn) -> dict:  # type: ignore[no-untyped-def]
    data = copy.deepcopy(game.record)
    fn(data)
    return data


@pytest.mark.parametrize(
    ("mutate", "where"),
    [
        (lambda d: d["rounds"][0]["actions"].insert(0, {"kind": "discard", "seat": 0, "card": 0}),
         "round 1, action 1"),
        (lambda d: d["rounds"][0]["actions"].__setitem__(3, {"kind": "fly"}), "round 1, action 4"),
        (lambda d: d["rounds"][0]["deck"].pop(), "round 1"),
        (lambda d: d["rounds"][0]["deck"].__setitem__(0, d["rounds"][0]["deck"][1]), "round 1"),
        (lambda d: d["rounds"][0].update(dealer=3), "round 1"),
        (lambda d: d["rounds"][0]["withdrawals"].append(0) or d["rounds"][0]["actions"].pop(),
         "round 1"),
    ],
)
def test_a_record_that_does_not_replay_is_refused(game: Played, mutate, where: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ReplayError, match=where):
        replay_from_plain(_tamper(game, mutate))


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.update(format="other"),
        lambda d: d.update(version=9),
        lambda d: d.update(variant="poker"),
        lambda d: d.update(seats=5),
        lambda d: d.update(options={"limit": 50, "speed": 1}),
        lambda d: d.update(options={"limit": 50, "quick": "no"}),
        lambda d: d.update(rounds="x"),
        lambda d: d["rounds"][0].update(seed="zz"),
        lambda d: d["rounds"][0].update(seed="00" * 31),
        lambda d: d["rounds"][0].update(deck=[True]),
        lambda d: d["rounds"][0].update(actions=[1]),
        lambda d: d["rounds"][0].update(dealer="0"),
        lambda d: d.update(options={"limit": 75}),  # not a rami limit: bad table
    ],
)
def test_malformed_records_are_refused(game: Played, mutate) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ReplayError):
        replay_from_plain(_tamper(game, mutate))


def test_other_variants_replay_too() -> None:
    for variant, opts in (("500", MatchOptions(quick=True)), ("40", MatchOptions(limit=1))):
        g = play_recorded_match(variant, 2, opts, 7)
        r = replay_from_plain(json.loads(json.dumps(g.record)))
        assert r.seek(r.last) == g.final and r.back(r.last) == g.states[0]


def test_texts_in_both_languages(replay: Replay) -> None:
    try:
        set_language("en")
        assert replay.status_line(0).startswith("Replay — round 0 of")
        assert replay.nickname(1) == "joueur1"
        set_language("fr")
        assert replay.status_line(replay.round_start(1)).startswith("Relecture — manche 1 sur")
        assert replay_help()[0] == "→ / ← (l / h, Espace) : action suivante / précédente"
        empty = Replay(ReplayRecord("rami", 2))
        assert empty.nickname(0) == "Place 1" and len(empty) == 1
    finally:
        set_language("en")
