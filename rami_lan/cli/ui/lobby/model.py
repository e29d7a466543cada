"""The lobby's state, without a screen or a network: the tables listed and the row chosen,
the page shown (``mode``), the line said at the bottom, and the seats kept on disk (their
tables say "Rejoin" and come first). `rami_lan.cli.ui.lobby.Lobby` builds on it.
"""

from __future__ import annotations

import logging
from typing import Any

from rami_lan.cli.messages import level_name
from rami_lan.ids import env_interfaces
from rami_lan.textsafe import safe_text

log = logging.getLogger("rami_lan.cli.ui.lobby")
LEVELS = ("debutant", "moyen", "expert")
NO_BROWSE_ENV = "RAMI_LAN_NO_BROWSE"
MENU = ("new", "solo", "stats", "settings", "quit")
"""The lobby's entries below the tables, in order."""


def level_text(level: str) -> str:
    return level_name(level)


PROBE_INTERVAL = 2.0
"""Seconds between two reachability probes of each listed table (ghost tables leave the
list: `rami_lan.net.discovery.TableBrowser`)."""


def default_browser() -> Any:
    from rami_lan.net.discovery import TableBrowser

    return TableBrowser(interfaces=env_interfaces(), probe_interval=PROBE_INTERVAL)


def item_key(item: tuple[str, Any]) -> tuple[str, str]:
    """What a lobby row is, whatever its position: a table by its id, an entry by kind."""
    kind, ad = item
    return (kind, str(getattr(ad, "table_id", "") or getattr(ad, "service_name", ""))
            if kind == "table" else "")


class LobbyModel:
    """The list, the chosen row, the page and the kept seats."""

    def __init__(self) -> None:
        self.tables: list[Any] = []
        self.index = 0
        self.mode = "main"  # main, new, solo, settings, code, stats
        self.message: str | None = None
        self.busy = False
        self.stats_lines: list[str] = []
        self.browse_error: str | None = None  # why the network can not be searched
        from rami_lan.net.seats import SeatStore

        self.seat_store = SeatStore()
        self.kept: dict[str, Any] = {}
        """table id -> our `SeatCredentials` there (the lobby says "Rejoin")."""
        self._browsed: list[Any] = []
        self.pending_join: Any = None

    def items(self) -> list[tuple[str, Any]]:
        out: list[tuple[str, Any]] = [("table", t) for t in self.tables]
        out += [(kind, None) for kind in MENU]
        return out

    def set_tables(self, tables: list[Any]) -> None:
        """Show ``tables``; the highlight stays on the row the player chose (a table, by
        its id) when rows appear or leave above it."""
        items = self.items()
        chosen = item_key(items[self.index]) if 0 <= self.index < len(items) else None
        if not self.tables and self.index == 0:
            chosen = None  # the first row before any table: the first table once one shows
        # Our own seats first (stable sort: the browser's order otherwise).
        self.tables = sorted(tables, key=lambda t: str(getattr(t, "table_id", "")) not in self.kept)
        keys = [item_key(it) for it in self.items()]
        self.index = keys.index(chosen) if chosen in keys else min(self.index, len(keys) - 1)

    def refresh_kept(self) -> None:
        """Read the seats kept on disk (`rami_lan.net.seats`): their tables say "Rejoin"."""
        try:
            self.kept = {c.table_id: c for c in self.seat_store.all()}
        except Exception as exc:  # noqa: BLE001 - a bad seat folder never stops the lobby
            log.info("kept seats unreadable: %s", safe_text(str(exc), 120))
            self.kept = {}

    def forget_seat(self, table_id: str) -> None:
        self.seat_store.remove(table_id)
        self.kept.pop(table_id, None)
        self.set_tables(list(self.tables))

    def back(self) -> None:
        self.mode = "main"
        self.message = None
