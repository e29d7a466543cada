"""What the table UI talks to: one seat's live connection to a table.

The UI never changes game state; it reads `SessionUpdate`s and sends actions. Two
implementations exist behind this interface: the network client (a remote or
loopback host) and, for tests, an in-process table. Both deliver views built by the
core for this seat only.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from rami_lan.core.actions import Action
from rami_lan.core.events import Event
from rami_lan.core.match import MatchState
from rami_lan.core.reasons import Reason
from rami_lan.core.views import SeatView
from rami_lan.net.notices import Notice

ConnectionState = Literal["connecting", "connected", "reconnecting", "closed"]


@dataclass(frozen=True)
class SessionUpdate:
    """One change seen by the seat. Fields that did not change are None / empty."""

    view: SeatView | None = None
    events: tuple[Event, ...] = ()  # already redacted for this seat
    error: Notice | Reason | str | None = None
    """Our last action or line was refused: a `Notice` from the client, the table's coded
    reason (`rami_lan.core.reasons.Reason`), or text (an older host's English, a sentence
    made for the player); `rami_lan.cli.messages.error_text` words it."""
    notice: Notice | str | None = None
    """Connection / table news for the log line: a `Notice`, or text made by the table
    (`rami_lan.cli.messages.session_text` gives the player's sentence)."""
    fairness: tuple[bool, str] | None = None
    """(ok, the verifier's English reason) after each round's check; the sentence for
    the player comes from ``fairness_round`` (`rami_lan.cli.messages.fairness_details`)."""
    fairness_round: Any = None
    """`rami_lan.net.fairness.FairnessRound` whose state just changed: ``round_no``,
    ``status`` (pending/checked/partial/unchecked/failed), ``reason``, ``evidence``."""
    fairness_rounds: tuple[Any, ...] = ()
    """Every round's `FairnessRound` so far, when one changed (for the result screen)."""
    deadline: float | None = None  # time.monotonic() when the current move timer ends
    connection: ConnectionState | None = None
    nicknames: dict[int, str] = field(default_factory=dict)  # seat -> nickname, when changed
    connections: dict[int, str] = field(default_factory=dict)
    """seat -> "you" / "connected" / "reconnecting" / "left" / "bot", when changed."""
    chat: tuple[tuple[int, str], ...] = ()  # new chat lines: (seat, text)
    cards: dict[int, dict] = field(default_factory=dict)
    """seat -> a player's "Info joueur" card as plain data (`rami_lan.stats.PlayerCard`)."""
    table: dict | None = None
    """Table facts when they change: name, fingerprint (short form), who may sit, ..."""


class TableSession(Protocol):
    """A seat at a table, as the UI sees it: everything the UI reads or calls.

    Two implementations: `rami_lan.net.client.RemoteTableSession` (a host over TLS,
    loopback included) and `rami_lan.cli.local_session.LocalTableSession` (the table
    machine in this process). `tests/table/test_table_session.py` checks both list all of it.
    """

    seat: int
    variant: str
    table_id: bytes
    """The table's id (b"" until seated; an in-process table has none)."""
    match_no: int
    bot: bool
    """A bot plays this seat: the UI records no statistics for it."""
    table: dict[str, Any]
    """Table facts (name, timer, fingerprint...), as the host described them."""

    @property
    def started(self) -> bool:
        """The session delivers updates (a local table waits for `start`)."""

    @property
    def match_id(self) -> str:
        """Names the current match the same way for every player ("" if unknown)."""

    @property
    def state(self) -> MatchState | None:
        """The whole match (only a table held in this process has it; else None)."""

    async def start(self) -> None:
        """Connect (or start the local table) and begin producing updates."""

    def updates(self) -> AsyncIterator[SessionUpdate]:
        """Updates in order, until the session closes."""

    async def act(self, action: Action) -> None:
        """Send an action of this seat (errors come back as an update)."""

    async def next_round(self, choice: Literal["continue", "leave"]) -> None:
        """Between rounds: play on or leave the match."""

    async def close(self) -> None:
        """Leave the table and release every resource."""

    async def send_chat(self, text: str) -> None:
        """Say something at the table (the host applies the chat limits)."""
