"""Player statistics in an embedded SQLite database, and the "Info joueur" card.

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

"Info joueur": a :class:`PlayerCard` is a nickname, a player id, a connection state and
statistics. Your own card comes from your database, complete (every variant); another
player's card carries the statistics *they reported* (``reported=True``: unverifiable,
shown as such). :meth:`PlayerCard.to_plain` / :meth:`PlayerCard.from_plain` are the
plain-data (msgpack-ready) encoding; decoding is strict, since it comes off the wire.
:func:`card_lines` renders a card as translated text lines for the UI.
"""

from __future__ import annotations

import contextlib
import enum
import os
import re
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Final

from rami_lan.core.events import Event, MatchEnded, RoundEnded
from rami_lan.core.match import MatchState
from rami_lan.core.variants import VARIANTS, Variant, get_variant
from rami_lan.i18n import _, language
from rami_lan.paths import ENV_DATA, data_dir, private_dir, private_file

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
    "card_lines",
    "card_title",
    "connection_label",
    "data_dir",
    "default_db_path",
]

ENV_DATA_DIR: Final = ENV_DATA
DB_FILE: Final = "stats.sqlite3"
SCHEMA_VERSION: Final = 1
MAX_COUNT: Final = 10**9
"""Upper bound of every counter accepted from another player's report."""
MAX_MATCH_ID: Final = 128
_VARIANT_IDS: Final = tuple(VARIANTS)
_PLAYER_ID_RE: Final = re.compile(r"[0-9a-f]{32}")
_MAX_NICK: Final = 24


def default_db_path(environ: dict[str, str] | None = None) -> Path:
    return data_dir(environ) / DB_FILE


class StatsSchemaError(RuntimeError):
    """The database was written by a newer rami-lan (or is not ours)."""


# --------------------------------------------------------------------------- values


def _check_count(name: str, value: object) -> int:
    if type(value) is not int or not 0 <= value <= MAX_COUNT:
        raise ValueError(f"{name} must be an int in 0..{MAX_COUNT}, got {value!r}")
    return value


_PENALTY_TOTAL_MAX: Final = 1000 * MAX_COUNT


@dataclass(frozen=True)
class PlayerStats:
    """Aggregated statistics for one variant (``variant``) or all (``variant=None``).

    Construction checks consistency (won <= played, ...), so a report from another
    player that does not add up is refused by :meth:`from_plain`.
    """

    variant: str | None = None
    matches_played: int = 0
    matches_won: int = 0
    rounds_played: int = 0
    rounds_won: int = 0
    penalty_rounds: int = 0
    """Rounds played in penalty-scored variants (the average penalty's denominator)."""
    penalty_total: int = 0
    rami_secs: int = 0
    best_streak: int = 0
    current_streak: int = 0

    def __post_init__(self) -> None:
        if self.variant is not None and self.variant not in _VARIANT_IDS:
            raise ValueError(f"unknown variant {self.variant!r}")
        for f in fields(self):
            if f.name not in ("variant", "penalty_total"):
                _check_count(f.name, getattr(self, f.name))
        if type(self.penalty_total) is not int or not 0 <= self.penalty_total <= _PENALTY_TOTAL_MAX:
            raise ValueError("penalty_total out of range")
        checks = (
            (self.matches_won <= self.matches_played, "matches_won > matches_played"),
            (self.rounds_won <= self.rounds_played, "rounds_won > rounds_played"),
            (self.penalty_rounds <= self.rounds_played, "penalty_rounds > rounds_played"),
            (self.rami_secs <= self.rounds_won, "rami_secs > rounds_won"),
            (self.best_streak <= self.matches_won, "best_streak > matches_won"),
            (self.current_streak <= self.best_streak, "current_streak > best_streak"),
            (self.penalty_rounds > 0 or self.penalty_total == 0, "penalty without rounds"),
        )
        for ok, why in checks:
            if not ok:
                raise ValueError(f"inconsistent statistics: {why}")

    @property
    def average_penalty(self) -> float | None:
        """Mean penalty per round in penalty-scored variants, None without such rounds."""
        return self.penalty_total / self.penalty_rounds if self.penalty_rounds else None

    @property
    def win_rate(self) -> float | None:
        return self.matches_won / self.matches_played if self.matches_played else None

    def to_plain(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_plain(cls, data: object) -> PlayerStats:
        """Strict decoding: exactly the known keys, ints in range, consistent values."""
        if not isinstance(data, dict):
            raise ValueError("statistics are a map")
        names = {f.name for f in fields(cls)}
        if set(data) != names:
            raise ValueError(f"statistics must have exactly the keys {sorted(names)}")
        return cls(**data)


class Connection(enum.StrEnum):
    """Connection state shown on a player card."""

    YOU = "you"
    CONNECTED = "connected"
    RECONNECTING = "reconnecting"
    STAND_IN = "stand_in"
    """Not connected, and the host's bot plays for them until they are back."""
    LEFT = "left"
    BOT = "bot"


@dataclass(frozen=True)
class PlayerCard:
    """What "Info joueur" shows about one player."""

    nickname: str
    player_id: str | None
    """32 hex digits, or None (bots, players who reported nothing)."""
    connection: Connection
    stats: PlayerStats | None = None
    """All variants together; None when nothing is known."""
    by_variant: tuple[PlayerStats, ...] = ()
    reported: bool = False
    """True for another player's self-reported statistics (not verifiable)."""

    def __post_init__(self) -> None:
        nick = self.nickname
        if (
            not isinstance(nick, str)
            or not 1 <= len(nick) <= _MAX_NICK
            or not nick.isprintable()
            or nick != nick.strip()
        ):
            raise ValueError("nickname must be 1..24 printable characters without outer spaces")
        if self.player_id is not None and (
            not isinstance(self.player_id, str) or not _PLAYER_ID_RE.fullmatch(self.player_id)
        ):
            raise ValueError("player_id must be 32 lowercase hex digits or None")
        object.__setattr__(self, "connection", Connection(self.connection))
        if self.stats is not None and (
            not isinstance(self.stats, PlayerStats) or self.stats.variant is not None
        ):
            raise ValueError("stats must be overall PlayerStats (variant=None) or None")
        per = tuple(self.by_variant)
        if any(not isinstance(s, PlayerStats) or s.variant is None for s in per):
            raise ValueError("by_variant holds per-variant PlayerStats")
        if len({s.variant for s in per}) != len(per):
            raise ValueError("by_variant names a variant twice")
        object.__setattr__(self, "by_variant", per)
        if not isinstance(self.reported, bool):
            raise ValueError("reported must be a bool")

    def to_plain(self) -> dict[str, Any]:
        """The card as plain data; this is also what a player reports about themself."""
        return {
            "nick": self.nickname,
            "id": self.player_id,
            "conn": str(self.connection),
            "stats": None if self.stats is None else self.stats.to_plain(),
            "variants": [s.to_plain() for s in self.by_variant],
        }

    @classmethod
    def from_plain(
        cls, data: object, *, reported: bool = True, connection: Connection | str | None = None
    ) -> PlayerCard:
        """Strict decoding of :meth:`to_plain`. Raises ValueError on anything else.

        A card received from the network is ``reported`` (the default). The receiver
        knows the connection state better than the sender: pass it as ``connection``.
        """
        if not isinstance(data, dict):
            raise ValueError("a player card is a map")
        if set(data) != {"nick", "id", "conn", "stats", "variants"}:
            raise ValueError("a player card has exactly nick, id, conn, stats, variants")
        variants = data["variants"]
        if not isinstance(variants, list | tuple) or len(variants) > len(_VARIANT_IDS):
            raise ValueError("variants must be a list of at most one entry per variant")
        stats = data["stats"]
        conn = data["conn"] if connection is None else connection
        if conn not in {c.value for c in Connection}:
            raise ValueError(f"unknown connection state {conn!r}")
        return cls(
            nickname=data["nick"],
            player_id=data["id"],
            connection=Connection(conn),
            stats=None if stats is None else PlayerStats.from_plain(stats),
            by_variant=tuple(PlayerStats.from_plain(v) for v in variants),
            reported=reported,
        )


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


# --------------------------------------------------------------------------- display


def card_title() -> str:
    """The translated title of the panel ("Info joueur")."""
    return _("Player info")


def connection_label(connection: Connection) -> str:
    """The translated name of a connection state."""
    labels = {
        Connection.YOU: _("you"),
        Connection.CONNECTED: _("connected"),
        Connection.RECONNECTING: _("reconnecting…"),
        Connection.STAND_IN: _("away: a bot plays for them"),
        Connection.LEFT: _("left the table"),
        Connection.BOT: _("bot"),
    }
    return labels[connection]


def _stats_lines(stats: PlayerStats) -> list[str]:
    lines = [
        _("Matches: {played} played, {won} won").format(
            played=stats.matches_played, won=stats.matches_won
        ),
        _("Rounds: {played} played, {won} won").format(
            played=stats.rounds_played, won=stats.rounds_won
        ),
    ]
    avg = stats.average_penalty
    if avg is not None:
        shown = f"{avg:.1f}"
        if language() == "fr":
            shown = shown.replace(".", ",")
        lines.append(_("Average penalty: {avg} points").format(avg=shown))
    lines.append(_("Rami secs: {n}").format(n=stats.rami_secs))
    lines.append(_("Best streak: {best} (current: {current})").format(
        best=stats.best_streak, current=stats.current_streak
    ))
    return lines


def card_lines(card: PlayerCard, *, variants: Sequence[str] | None = None) -> list[str]:
    """The card as translated text lines, for the "Info joueur" panel.

    ``variants`` limits the per-variant sections (e.g. to the table's variant);
    None shows all of them.
    """
    title = card.nickname if card.player_id is None else f"{card.nickname} ({card.player_id[:6]})"
    lines = [title, _("Connection: {state}").format(state=connection_label(card.connection))]
    if card.stats is None:
        lines.append(_("No statistics."))
        return lines
    if card.reported:
        lines.append(_("Statistics reported by the player (not verified)."))
    lines += _stats_lines(card.stats)
    for stats in card.by_variant:
        if variants is not None and stats.variant not in variants:
            continue
        lines.append(_("Variant {variant}:").format(variant=stats.variant))
        lines += ["  " + line for line in _stats_lines(stats)]
    return lines
