"""Tests for rami_lan.stats: statistics from real finished matches, player cards.

Every match here is played with the rules core (random legal actions from a seeded
``random.Random``, decks from ``full_deck`` shuffled); nothing is inserted by hand.
:func:`play_recorded_match` also records the match (decks, seeds, dealers, plain
actions) so tests/cli/test_replay.py can replay it.
"""

from __future__ import annotations

import functools
import itertools
import os
import random
import sqlite3
import stat
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from rami_lan.cli.card_text import card_lines
from rami_lan.core import (
    Knock,
    LayDown,
    LayOff,
    MatchOptions,
    MatchState,
    RecoverJoker,
    action_to_plain,
    apply,
    card_id,
    full_deck,
    legal_actions,
    new_match,
    start_round,
    withdraw,
)
from rami_lan.i18n import set_language
from rami_lan.stats import (
    SCHEMA_VERSION,
    Connection,
    PlayerCard,
    PlayerStats,
    StatsDB,
    StatsSchemaError,
    data_dir,
    default_db_path,
)

LAY = (LayDown, LayOff, RecoverJoker)
PID = "0123456789abcdef0123456789abcdef"


# --------------------------------------------------------------------------- playing


@dataclass
class Played:
    final: MatchState
    states: list[MatchState]
    """Every state in replay order: new match, after each deal/action/withdrawal."""
    record: dict[str, Any]
    """A rami_lan.replay record (plain data)."""


def _choose(m: MatchState, rng: random.Random, knock_rate: float) -> Any:
    rnd = m.round
    assert rnd is not None
    if rnd.knock_window and rng.random() < knock_rate:
        seat = rng.choice(rnd.knock_window)
        knocks = [a for a in legal_actions(m, seat) if isinstance(a, Knock)]
        if knocks:
            return knocks[0]
    options = list(itertools.islice(legal_actions(m, rnd.turn), 300))
    assert options, f"seat {rnd.turn} has no legal action"
    laying = [a for a in options if isinstance(a, LAY)]
    if laying and rng.random() < 0.85:
        return rng.choice(laying)
    return rng.choice(options)


def play_recorded_match(
    variant: str,
    seats: int,
    options: MatchOptions | None,
    seed: int,
    *,
    withdraw_after: dict[int, int] | None = None,
    knock_rate: float = 0.3,
    max_actions: int = 20_000,
) -> Played:
    """Play a whole match with random legal actions, recording it as it goes.

    ``withdraw_after`` maps a round number to a seat that leaves after that round.
    """
    rng = random.Random(seed)
    m = new_match(variant, seats, options)
    states = [m]
    rounds: list[dict[str, Any]] = []
    n_actions = 0
    while not m.over:
        deck = full_deck(m.variant.n_decks, m.variant.n_jokers)
        rng.shuffle(deck)
        round_seed = rng.randbytes(32)
        m, _ = start_round(m, deck, round_seed)
        states.append(m)
        assert m.round is not None and m.dealer is not None
        rec: dict[str, Any] = {
            "deck": [card_id(c, m.variant.n_decks) for c in deck],
            "seed": round_seed.hex(),
            "dealer": m.dealer,
            "actions": [],
            "withdrawals": [],
        }
        rounds.append(rec)
        while m.round is not None and m.round.phase != "over":
            action = _choose(m, rng, knock_rate)
            m, _ = apply(m, action)
            states.append(m)
            rec["actions"].append(action_to_plain(action, m.variant))
            n_actions += 1
            assert n_actions < max_actions, "match does not end"
        leaver = (withdraw_after or {}).get(m.round_no)
        if leaver is not None and not m.over and not m.eliminated[leaver]:
            m, _ = withdraw(m, leaver)
            states.append(m)
            rec["withdrawals"].append(leaver)
    o = m.options
    record = {
        "format": "rami-lan-replay",
        "version": 1,
        "variant": variant,
        "seats": seats,
        "options": {"limit": o.limit, "quick": o.quick, "knock": o.knock},
        "nicknames": [f"joueur{s}" for s in range(seats)],
        "rounds": rounds,
    }
    return Played(m, states, record)


# Matches are a few tenths of a second each: play each one once per session.
@functools.cache
def played(variant: str, seats: int, limit: int | None, quick: bool, knock: bool, seed: int) -> Played:
    return play_recorded_match(variant, seats, MatchOptions(limit, quick, knock), seed)


MATCHES = [
    # (variant, seats, limit, quick, knock, seed)
    ("rami", 2, 1, False, False, 11),
    ("rami", 3, 50, False, True, 12),
    ("40", 2, 1, False, False, 13),
    ("classique", 2, 1, False, False, 14),
    ("500", 2, None, True, False, 15),
    ("rami", 2, 1, False, False, 16),
    ("40", 3, 1, False, False, 17),
    ("multi", 2, None, False, False, 18),
]
# From whose seat the local player saw each match: the winner's (W) or another (L).
PATTERN = "WWLWWWLW"


def perspective(m: MatchState, outcome: str) -> int:
    assert m.winner is not None
    if outcome == "W":
        return m.winner
    return next(s for s in range(m.n_seats) if s != m.winner)


def expected(
    games: list[tuple[MatchState, int]], variant: str | None
) -> PlayerStats:
    """What the statistics must be, computed directly from the matches' histories."""
    sel = [(m, s) for m, s in games if variant is None or m.variant.id == variant]
    rounds_played = rounds_won = rami_secs = pen_rounds = pen_total = 0
    best = run = 0
    for m, seat in sel:
        for summary in m.history:
            scores = dict(summary.scores)
            if seat not in scores:
                continue
            rounds_played += 1
            if summary.winner == seat:
                rounds_won += 1
                rami_secs += summary.rami_sec
            if m.variant.scoring == "penalty":
                pen_rounds += 1
                pen_total += scores[seat]
        run = run + 1 if m.winner == seat else 0
        best = max(best, run)
    return PlayerStats(
        variant=variant,
        matches_played=len(sel),
        matches_won=sum(m.winner == s for m, s in sel),
        rounds_played=rounds_played,
        rounds_won=rounds_won,
        penalty_rounds=pen_rounds,
        penalty_total=pen_total,
        rami_secs=rami_secs,
        best_streak=best,
        current_streak=run,
    )


@pytest.fixture
def games() -> list[tuple[MatchState, int]]:
    out = []
    for spec, outcome in zip(MATCHES, PATTERN, strict=True):
        m = played(*spec).final
        assert m.over and m.winner is not None
        out.append((m, perspective(m, outcome)))
    return out


# --------------------------------------------------------------------------- database


def test_stats_from_real_matches(tmp_path: Path, games: list[tuple[MatchState, int]]) -> None:
    ticks = itertools.count(1_700_000_000)
    with StatsDB(tmp_path / "stats.sqlite3", clock=lambda: float(next(ticks))) as db:
        for n, (m, seat) in enumerate(games):
            assert db.record_match(seat, m, f"match-{n}") is True
        overall = db.summary()
        assert overall == expected(games, None)
        assert overall.matches_played == len(MATCHES)
        assert overall.matches_won == PATTERN.count("W")
        assert overall.best_streak == 3 and overall.current_streak == 1
        assert overall.rounds_played >= len(MATCHES)
        assert overall.average_penalty is not None
        for variant in ("rami", "classique", "multi", "500", "40"):
            assert db.summary(variant) == expected(games, variant), variant
        assert db.summary("multi").average_penalty is None  # points, not penalties
        assert db.summary("500").average_penalty is None
        assert db.variants_played() == ["rami", "classique", "multi", "500", "40"]


def test_record_is_idempotent_and_persistent(tmp_path: Path, games: list[tuple[MatchState, int]]) -> None:
    path = tmp_path / "sub" / "stats.sqlite3"
    m, seat = games[1]
    with StatsDB(path) as db:
        assert db.record_match(seat, m, "t1:1")
        before = db.summary()
        assert db.record_match(seat, m, "t1:1") is False
        # Even from another seat, the same match id is the same match.
        assert db.record_match((seat + 1) % m.n_seats, m, "t1:1") is False
        assert db.summary() == before
        assert db.has_match("t1:1") and not db.has_match("t1:2")
    with StatsDB(path) as db:
        assert db.summary() == before == expected([games[1]], None)
        assert db.schema_version == SCHEMA_VERSION


def test_record_refuses_unfinished_match_and_bad_arguments(tmp_path: Path) -> None:
    p = played(*MATCHES[1])
    mid = next(s for s in p.states if s.round is not None and s.round.phase == "play")
    with StatsDB(tmp_path / "s.db") as db:
        with pytest.raises(ValueError, match="finished"):
            db.record_match(0, mid, "x")
        with pytest.raises(ValueError, match="seat"):
            db.record_match(5, p.final, "x")
        with pytest.raises(ValueError, match="seat"):
            db.record_match(True, p.final, "x")  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="match_id"):
            db.record_match(0, p.final, "")
        with pytest.raises(ValueError, match="variant"):
            db.summary("poker")
        assert db.summary() == PlayerStats()


def test_eliminated_player_rounds_are_not_counted(tmp_path: Path) -> None:
    p = played(*MATCHES[1])  # 3 seats to 50: someone is eliminated before the end
    m = p.final
    loser = next(s for s in range(m.n_seats) if m.eliminated[s])
    with StatsDB(tmp_path / "s.db") as db:
        db.record_match(loser, m, "elim")
        stats = db.summary()
    in_rounds = sum(loser in dict(h.scores) for h in m.history)
    assert stats.rounds_played == in_rounds
    assert stats.matches_won == 0


def test_schema_is_versioned(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    StatsDB(path).close()
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    tables = {r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"matches", "rounds"} <= tables
    raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    raw.commit()
    raw.close()
    with pytest.raises(StatsSchemaError):
        StatsDB(path)


def test_data_dir_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    import platformdirs

    assert data_dir({"RAMI_LAN_DATA_DIR": "/d", "XDG_DATA_HOME": "/x"}) == Path("/d")
    monkeypatch.delenv("RAMI_LAN_DATA_DIR", raising=False)
    assert data_dir() == platformdirs.user_data_path("rami-lan", appauthor=False)
    if sys.platform.startswith("linux"):
        monkeypatch.setenv("XDG_DATA_HOME", "/x")
        assert data_dir() == Path("/x/rami-lan")
        monkeypatch.delenv("XDG_DATA_HOME")
        monkeypatch.setenv("HOME", "/h")
        assert data_dir() == Path("/h/.local/share/rami-lan")
    assert default_db_path({"RAMI_LAN_DATA_DIR": "/d"}) == Path("/d/stats.sqlite3")


def test_database_file_is_private(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    os.chmod(folder, 0o755)
    with StatsDB(folder / "stats.sqlite3"):
        pass
    if os.name == "posix":
        assert stat.S_IMODE((folder / "stats.sqlite3").stat().st_mode) == 0o600
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700


# --------------------------------------------------------------------------- cards


def test_own_card_is_full_and_round_trips(tmp_path: Path, games: list[tuple[MatchState, int]]) -> None:
    with StatsDB(tmp_path / "s.db") as db:
        for n, (m, seat) in enumerate(games):
            db.record_match(seat, m, f"m{n}")
        card = db.own_card("Marie", PID)
    assert card.connection is Connection.YOU and not card.reported
    assert card.stats == expected(games, None)
    assert [s.variant for s in card.by_variant] == ["rami", "classique", "multi", "500", "40"]
    plain = card.to_plain()
    # What others receive: the same statistics, flagged as reported, with their own
    # knowledge of the connection.
    theirs = PlayerCard.from_plain(plain, connection="connected")
    assert theirs == replace(card, connection=Connection.CONNECTED, reported=True)
    assert PlayerCard.from_plain(plain, reported=False) == card


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.update(extra=1),
        lambda d: d.pop("variants"),
        lambda d: d.update(id="XYZ"),
        lambda d: d.update(nick=" x"),
        lambda d: d.update(nick="a" * 25),
        lambda d: d.update(nick="a\x1bb"),
        lambda d: d.update(conn="hacker"),
        lambda d: d["stats"].update(matches_won=d["stats"]["matches_played"] + 1),
        lambda d: d["stats"].update(rounds_played=True),
        lambda d: d["stats"].update(rami_secs=-1),
        lambda d: d["stats"].update(best_streak=10**10),
        lambda d: d["stats"].update(variant="rami"),  # overall stats name no variant
        lambda d: d["stats"].pop("rami_secs"),
        lambda d: d.update(variants=[d["variants"][0], d["variants"][0]]),
        lambda d: d.update(variants=[{**d["variants"][0], "variant": "poker"}]),
        lambda d: d.update(variants="rami"),
        lambda d: d.update(stats=[1, 2]),
    ],
)
def test_card_from_plain_is_strict(mutate: Any) -> None:
    stats = PlayerStats(None, 3, 2, 10, 4, 10, 57, 1, 2, 1)
    per = PlayerStats("rami", 3, 2, 10, 4, 10, 57, 1, 2, 1)
    good = PlayerCard("Marie", PID, Connection.CONNECTED, stats, (per,)).to_plain()
    PlayerCard.from_plain(good)
    bad = {**good, "stats": dict(good["stats"]), "variants": [dict(v) for v in good["variants"]]}
    mutate(bad)
    with pytest.raises(ValueError):
        PlayerCard.from_plain(bad)


def test_card_lines_in_both_languages() -> None:
    stats = PlayerStats(None, 4, 3, 12, 6, 12, 60, 1, 2, 2)
    mine = PlayerCard("Marie", PID, Connection.YOU, stats, (replace(stats, variant="rami"),))
    theirs = replace(mine, connection=Connection.RECONNECTING, reported=True)
    bot = PlayerCard("Robot", None, Connection.BOT)
    try:
        set_language("en")
        en = card_lines(theirs)
        assert en[0] == "Marie (012345)"
        assert "Connection: reconnecting…" in en
        assert "Statistics reported by the player (not verified)." in en
        assert "Matches: 4 played, 3 won" in en
        assert "Average penalty: 5.0 points" in en
        assert "Best streak: 2 (current: 2)" in en
        assert "Variant rami:" in en
        assert "Variant rami:" not in card_lines(theirs, variants=["500"])
        assert "Statistics reported by the player (not verified)." not in card_lines(mine)
        assert card_lines(bot) == ["Robot", "Connection: bot", "No statistics."]
        set_language("fr")
        fr = card_lines(theirs)
        assert "Connexion : reconnexion…" in fr
        assert "Parties : 4 jouées, 3 gagnées" in fr
        assert "Pénalité moyenne : 5,0 points" in fr
        assert "Statistiques déclarées par le joueur (non vérifiées)." in fr
        assert card_lines(bot) == ["Robot", "Connexion : robot", "Aucune statistique."]
    finally:
        set_language("en")


def test_record_events_matches_record_match(tmp_path: Path) -> None:
    """A remote client only has the events: the same statistics come out of them."""
    from rami_lan.replay import replay_from_plain

    for spec, seat in ((MATCHES[1], 0), (MATCHES[4], 1), (MATCHES[7], 0)):
        p = played(*spec)
        replay = replay_from_plain(p.record)
        events = [ev for i in range(len(replay)) for ev in replay.step_at(i).events]
        with StatsDB(tmp_path / f"a{spec[-1]}.db") as a, StatsDB(tmp_path / f"b{spec[-1]}.db") as b:
            assert a.record_match(seat, p.final, "m")
            assert b.record_events(seat, spec[0], spec[1], events, "m")
            assert b.record_events(seat, spec[0], spec[1], events, "m") is False
            assert a.summary() == b.summary() == expected([(p.final, seat)], None)
    with StatsDB(tmp_path / "c.db") as db, pytest.raises(ValueError, match="MatchEnded"):
        db.record_events(0, "rami", 2, events[:-1], "x")
