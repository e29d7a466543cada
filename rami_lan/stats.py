"""Player statistics in an embedded SQLite database (the layer above `net`: the cli reads
and writes it; the table machine and the network client never do).

Where: ``stats.sqlite3`` (mode 0600) in the data folder (:func:`data_dir`, from
:mod:`rami_lan.paths`): ``$RAMI_LAN_DATA_DIR`` when set, else the platform's
(``platformdirs``: ``$XDG_DATA_HOME/rami-lan`` or ``~/.local/share/rami-lan`` on Linux),
kept at mode 0700.

What: :meth:`StatsDB.record_match` (or :meth:`StatsDB.record_events`, for a client that
only saw events) reads a finished :class:`~rami_lan.core.MatchState`
(its ``history`` of ``RoundSummary``, ``winner``, ``totals``) from the point of view of
the local player's seat and stores one match row and one row per round that seat
played. It is idempotent per ``match_id`` (recording the same match twice is a no-op).
:meth:`StatsDB.summary` aggregates, for one variant or all of them:

* matches played / won, rounds played / won;
* average penalty: the mean round score over rounds of *penalty-scored* variants
  (rami, classique, 40); ``None`` when there are none (multi and 500 score points);
* rami secs: rounds this player won "sec" (going out in one go);
* best (and current) streak of consecutive matches won, in recording order.

Schema: versioned with ``PRAGMA user_version`` (:data:`SCHEMA_VERSION`); migrations
run in one transaction on open; a database from a newer rami-lan raises
:class:`StatsSchemaError` rather than being touched.

"Info joueur": the card is a pure value (`rami_lan.player_card`, re-exported here);
:meth:`StatsDB.own_card` makes your own, complete (every variant); :func:`card_source`
is what the cli hands a network session so that it sends it (the session never opens
the database itself). The card's translated lines are made in the cli
(`rami_lan.cli.card_text`).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Final

from rami_lan.core.events import Event, MatchEnded, RoundEnded
from rami_lan.core.match import MatchState
from rami_lan.core.variants import VARIANTS, Variant, get_variant
from rami_lan.paths import ENV_DATA, data_dir, private_dir, private_file
from rami_lan.player_card import MAX_COUNT, MAX_NICK, Connection, PlayerCard, PlayerStats

__all__ = [
    "DB_FILE",
    "ENV_DATA_DIR",
    "MAX_COUNT",
    "SCHEMA_VERSION",
    "Connection",
    "PlayerCard",
    "PlayerStats",
    "StatsDB",
    "StatsSchemaError",
    "card_source",
    "data_dir",
    "default_db_path",
]

ENV_DATA_DIR: Final = ENV_DATA
DB_FILE: Final = "stats.sqlite3"
SCHEMA_VERSION: Final = 1
MAX_MATCH_ID: Final = 128
_VARIANT_IDS: Final = tuple(VARIANTS)


def default_db_path(environ: dict[str, str] | None = None) -> Path:
    return data_dir(environ) / DB_FILE


class StatsSchemaError(RuntimeError):
    """The database was written by a newer rami-lan (or is not ours)."""


# --------------------------------------------------------------------------- database

_MIGRATIONS: Final[dict[int, tuple[str, ...]]] = {
    1: (
        """CREATE TABLE matches (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            match_id TEXT NOT NULL UNIQUE,
            variant TEXT NOT NULL,
            scoring TEXT NOT NULL,
            seat INTEGER NOT NULL,
            n_seats INTEGER NOT NULL,
            won INTEGER NOT NULL,
            final_total INTEGER NOT NULL,
            end_reason TEXT NOT NULL,
            recorded_at REAL NOT NULL
        )""",
        """CREATE TABLE rounds (
            match_id TEXT NOT NULL REFERENCES matches(match_id) ON DELETE CASCADE,
            round_no INTEGER NOT NULL,
            won INTEGER NOT NULL,
            score INTEGER NOT NULL,
            rami_sec INTEGER NOT NULL,
            PRIMARY KEY (match_id, round_no)
        )""",
        "CREATE INDEX matches_variant ON matches(variant, seq)",
    ),
}


class StatsDB:
    """The local player's statistics database. Use as a context manager or ``close()``.

    ``path=None`` opens :func:`default_db_path`; ``":memory:"`` works for throwaway use.
    ``clock`` gives the recording time (seconds since the epoch).
    """

    def __init__(
        self, path: str | os.PathLike[str] | None = None, *, clock: Callable[[], float] = time.time
    ) -> None:
        target = default_db_path() if path is None else path
        on_disk = str(target) != ":memory:"
        if on_disk:
            private_dir(Path(target).parent)
            if not Path(target).exists():  # sqlite creates it with the umask's mode
                os.close(os.open(target, os.O_WRONLY | os.O_CREAT, 0o600))
        self.path = target
        self._clock = clock
        self._db = sqlite3.connect(str(target), timeout=5.0, isolation_level=None)
        try:
            if on_disk:
                private_file(Path(target))
            self._db.execute("PRAGMA foreign_keys = ON")
            self._migrate()
        except BaseException:
            self._db.close()
            raise

    # ---- lifecycle

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> StatsDB:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    @property
    def schema_version(self) -> int:
        return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    def _migrate(self) -> None:
        with self._transaction() as db:
            version = int(db.execute("PRAGMA user_version").fetchone()[0])
            if version > SCHEMA_VERSION:
                raise StatsSchemaError(
                    f"statistics schema {version} is newer than this rami-lan ({SCHEMA_VERSION})"
                )
            for target in range(version + 1, SCHEMA_VERSION + 1):
                for statement in _MIGRATIONS[target]:
                    db.execute(statement)
                db.execute(f"PRAGMA user_version = {target:d}")

    # ---- writing

    def record_match(self, player_seat: int, match: MatchState, match_id: str) -> bool:
        """Store a finished match as seen from ``player_seat``; False if already stored.

        Raises ValueError if the match is not over, the seat is not at the table or
        ``match_id`` is empty / longer than 128 characters.
        """
        if not match.over:
            raise ValueError("only a finished match can be recorded")
        return self._record(
            player_seat,
            match.variant,
            match.n_seats,
            [(h.round_no, h.winner, h.rami_sec, h.scores) for h in match.history],
            match.winner,
            match.totals,
            match.end_reason,
            match_id,
        )

    def record_events(
        self, player_seat: int, variant: str | Variant, n_seats: int, events: Iterable[Event],
        match_id: str,
    ) -> bool:
        """Same as :meth:`record_match`, from the events a client received.

        A remote client has views, not the host's ``MatchState``; the public
        ``RoundEnded`` and ``MatchEnded`` events carry everything needed. Pass every
        event of the match (others are ignored); ValueError without ``MatchEnded``.
        """
        v = get_variant(variant)
        rounds: list[tuple[int, int | None, bool, tuple[tuple[int, int], ...]]] = []
        end: MatchEnded | None = None
        for ev in events:
            if isinstance(ev, RoundEnded):
                rounds.append((len(rounds) + 1, ev.winner, ev.rami_sec, ev.scores))
            elif isinstance(ev, MatchEnded):
                end = ev
        if end is None:
            raise ValueError("only a finished match can be recorded (no MatchEnded event)")
        totals = [0] * n_seats
        for seat, total in end.totals:
            if 0 <= seat < n_seats:
                totals[seat] = total
        return self._record(
            player_seat, v, n_seats, rounds, end.winner, tuple(totals), end.reason, match_id
        )

    def _record(
        self,
        player_seat: int,
        variant: Variant,
        n_seats: int,
        history: Sequence[tuple[int, int | None, bool, tuple[tuple[int, int], ...]]],
        winner: int | None,
        totals: Sequence[int],
        end_reason: str,
        match_id: str,
    ) -> bool:
        if not isinstance(match_id, str) or not 1 <= len(match_id) <= MAX_MATCH_ID:
            raise ValueError(f"match_id must be 1..{MAX_MATCH_ID} characters")
        if type(player_seat) is not int or not 0 <= player_seat < n_seats:
            raise ValueError(f"seat {player_seat!r} is not at this {n_seats}-seat table")
        rounds = []
        for round_no, round_winner, rami_sec, round_scores in history:
            scores = dict(round_scores)
            if player_seat not in scores:
                continue  # eliminated, or not in a tie-break round
            won = round_winner == player_seat
            rounds.append(
                (match_id, round_no, int(won), scores[player_seat], int(won and rami_sec))
            )
        with self._transaction() as db:
            cur = db.execute(
                "INSERT OR IGNORE INTO matches (match_id, variant, scoring, seat, n_seats, won,"
                " final_total, end_reason, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    match_id,
                    variant.id,
                    variant.scoring,
                    player_seat,
                    n_seats,
                    int(winner == player_seat),
                    totals[player_seat],
                    end_reason,
                    float(self._clock()),
                ),
            )
            if cur.rowcount == 0:
                return False
            db.executemany(
                "INSERT INTO rounds (match_id, round_no, won, score, rami_sec)"
                " VALUES (?, ?, ?, ?, ?)",
                rounds,
            )
        return True

    # ---- reading

    def has_match(self, match_id: str) -> bool:
        row = self._db.execute("SELECT 1 FROM matches WHERE match_id = ?", (match_id,)).fetchone()
        return row is not None

    def summary(self, variant: str | None = None) -> PlayerStats:
        """Statistics for ``variant`` (one of the five ids) or, with None, for all."""
        if variant is not None and variant not in _VARIANT_IDS:
            raise ValueError(f"unknown variant {variant!r}")
        where, args = ("WHERE m.variant = ?", (variant,)) if variant else ("", ())
        wins = [
            bool(w)
            for (w,) in self._db.execute(
                f"SELECT m.won FROM matches m {where} ORDER BY m.seq", args
            )
        ]
        best = run = 0
        for won in wins:
            run = run + 1 if won else 0
            best = max(best, run)
        row = self._db.execute(
            "SELECT COUNT(*), COALESCE(SUM(r.won), 0), COALESCE(SUM(r.rami_sec), 0),"
            " COALESCE(SUM(m.scoring = 'penalty'), 0),"
            " COALESCE(SUM(CASE WHEN m.scoring = 'penalty' THEN r.score ELSE 0 END), 0)"
            f" FROM rounds r JOIN matches m ON m.match_id = r.match_id {where}",
            args,
        ).fetchone()
        return PlayerStats(
            variant=variant,
            matches_played=len(wins),
            matches_won=sum(wins),
            rounds_played=row[0],
            rounds_won=row[1],
            rami_secs=row[2],
            penalty_rounds=row[3],
            penalty_total=max(0, row[4]),
            best_streak=best,
            current_streak=run,
        )

    def variants_played(self) -> list[str]:
        """The variants with at least one recorded match, in the usual order."""
        seen = {v for (v,) in self._db.execute("SELECT DISTINCT variant FROM matches")}
        return [v for v in _VARIANT_IDS if v in seen]

    def own_card(self, nickname: str, player_id: str | None) -> PlayerCard:
        """Your own card, in full: overall and every variant you have played."""
        return PlayerCard(
            nickname=nickname,
            player_id=player_id,
            connection=Connection.YOU,
            stats=self.summary(),
            by_variant=tuple(self.summary(v) for v in self.variants_played()),
            reported=False,
        )


def card_source(nickname: str, player_id: str | None,
                path: str | os.PathLike[str] | None = None) -> Callable[[], dict[str, Any]]:
    """What a network session calls to get our card as plain data: from the statistics
    database at ``path`` (default: :func:`default_db_path`) if it exists (joining never
    creates it), else a card without statistics. The nickname is cleaned as a card
    needs it (printable, at most 24 characters, no outer spaces)."""
    nick = "".join(ch for ch in nickname if ch.isprintable()).strip()[:MAX_NICK].strip() or "?"

    def source() -> dict[str, Any]:
        target = default_db_path() if path is None else Path(path)
        if not target.exists():
            return PlayerCard(nick, player_id, Connection.YOU).to_plain()
        with StatsDB(target) as db:
            return db.own_card(nick, player_id).to_plain()

    return source
