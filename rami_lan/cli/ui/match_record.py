"""What a table screen keeps of a match: the local statistics (each match once, when it
ends, or played-not-won when the player leaves after a round) and the replay file (solo
tables). `TableScreen` owns one `MatchRecorder` and hands it each update; nothing here
draws or raises.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rami_lan.cli.ui.model import TableModel
from rami_lan.core import events as E
from rami_lan.i18n import _
from rami_lan.stats import StatsDB, StatsSchemaError


class MatchRecorder:
    """Statistics and replay file for one seat's session."""

    def __init__(self, session: Any, model: TableModel,
                 stats: StatsDB | Callable[[], StatsDB] | None) -> None:
        """``stats``: the statistics database or a callable opening it (None: do not
        record)."""
        self.session = session
        self.model = model
        self._stats = stats
        self._db: StatsDB | None = None
        self._db_failed = False
        self.stats_error: str | None = None
        self.recorded: list[str] = []  # match ids recorded by this screen
        self.replay_file: Path | None = None
        self._recorded_upto = 0
        self._nonce = secrets.token_hex(6)

    def on_update(self, upd: Any) -> None:
        """After the model applied ``upd``: a match that ended is recorded, and the replay
        file is written at each round's end."""
        if self.model.matches_ended > self._recorded_upto:
            self._recorded_upto = self.model.matches_ended
            self.record_match()
            self.save_replay()
        elif any(isinstance(ev, E.RoundEnded) for ev in upd.events):
            self.save_replay()

    def stats_db(self) -> StatsDB | None:
        """The statistics database, opened on first use; None when unavailable."""
        if self._db is not None or self._db_failed or self._stats is None:
            return self._db
        try:
            self._db = self._stats() if callable(self._stats) else self._stats
        except (StatsSchemaError, sqlite3.Error, OSError) as e:
            self._db_failed = True
            self.stats_error = _("Statistics unavailable: {err}").format(err=e)
        return self._db

    def close_stats(self) -> None:
        """Close the database if this screen opened it."""
        if self._db is not None and callable(self._stats):
            with contextlib.suppress(Exception):
                self._db.close()
        self._db = None

    def match_id(self) -> str:
        """Unique per match: the session's own id, else the table id and match number."""
        mid = self.session.match_id
        if mid:
            return mid
        tid = self.session.table_id.hex()
        no = self.session.match_no
        if tid and isinstance(no, int):
            return f"{tid}:{no}"
        return f"{tid or 'table'}:{self._nonce}:{self.model.matches_ended}"

    def record_match(self) -> bool:
        """Store the match that just ended in the local statistics (never raises)."""
        if self.session.bot or self._stats is None:
            return False
        db = self.stats_db()
        if db is None:
            return False
        mid = self.match_id()
        seat = self.model.seat
        state = self.session.state
        try:
            if state is not None and state.over:
                done = db.record_match(seat, state, mid)
            else:
                n_seats = len(self.model.view.players) if self.model.view is not None else (
                    max(self.model.nicknames, default=seat) + 1)
                done = db.record_events(seat, self.model.variant, n_seats,
                                        self.model.match_events, mid)
        except (ValueError, sqlite3.Error) as e:
            self.stats_error = _("Statistics unavailable: {err}").format(err=e)
            return False
        if done:
            self.recorded.append(mid)
        return done

    def record_left(self) -> bool:
        """Leaving in the middle of a match after at least one finished round: the match
        counts as played (not won) with its rounds, so the statistics do not say
        "Rounds: 0 played" after a won round. Never raises."""
        m = self.model
        if self.model.matches_ended > self._recorded_upto or not any(
                isinstance(ev, E.RoundEnded) for ev in m.match_events):
            return False
        if any(isinstance(ev, E.MatchEnded) for ev in m.match_events):
            return False
        if self.session.bot or self._stats is None or m.view is None:
            return False
        db = self.stats_db()
        if db is None:
            return False
        totals = tuple((p.seat, p.total) for p in m.view.players)
        events = [*m.match_events, E.MatchEnded(None, totals, "left")]
        try:
            done = db.record_events(m.seat, m.variant, len(m.view.players), events,
                                    self.match_id())
        except (ValueError, sqlite3.Error) as e:
            self.stats_error = _("Statistics unavailable: {err}").format(err=e)
            return False
        if done:
            self.recorded.append(self.match_id())
            self._recorded_upto = self.model.matches_ended + 1
        return done

    def replay_path(self) -> Path | None:
        """Where this match's replay goes (the data folder's ``replays``), None if unknown."""
        try:
            from rami_lan.paths import data_dir

            folder = data_dir() / "replays"
        except Exception:  # noqa: BLE001 - no data folder: no replay file
            return None
        name = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in self.match_id())
        return folder / f"{name[:80] or 'match'}.json"

    def save_replay(self) -> Path | None:
        """Write the match so far as a replay file when the session can give one (solo
        tables: `LocalTableSession.replay_record`); ``rami-lan replay FILE`` plays it."""
        record = getattr(self.session, "replay_record", None)
        if not callable(record) or self.session.bot:
            return None
        path = self.replay_path()
        if path is None:
            return None
        try:
            data = record()
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(data), encoding="utf-8")
            tmp.replace(path)
        except (OSError, TypeError, ValueError) as e:
            self.model._log(_("The replay was not saved: {err}").format(err=e))
            return None
        if self.replay_file != path:
            self.replay_file = path
            self.model._log(_("Replay saved: {path}").format(path=path))
        return path
