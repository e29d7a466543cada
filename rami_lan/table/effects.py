"""What the table machine asks its adapter to do: frozen effect values.

The machine never performs I/O. Every input returns a list of these, in order; the
adapter (`rami_lan.net.host` over TLS, `rami_lan.cli.local_session` in process, `table.selfplay`)
carries them out in that order.

| effect | the adapter must |
|---|---|
| `Send(conn, msg)` | send ``msg`` to connection ``conn`` (`Msg` = one wire message) |
| `Close(conn)` | close that connection after what was sent to it |
| `Wake(at)` | call ``machine.tick(now)`` once ``now >= at`` (replaces the previous wake) |
| `JournalOpen()` | open the table's journal file (the match has started) |
| `JournalAppend(kind, body)` | append one record, fsync'd, before the next effect |
| `JournalSnapshot(body)` | compact the journal to this snapshot |
| `JournalClose(delete)` | close it (delete: the match is over) |
| `WriteRecord(plain)` | write the match record (for ``rami-lan verify``) |
| `AdChange(seats_taken)` | update the table's mDNS ad |
| `Applied(events)` | nothing (test hook: the unredacted events of one change) |
| `MatchOver(winner)` | the match is over: stop the table |
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "AdChange", "Applied", "Close", "Effect", "JournalAppend", "JournalClose", "JournalOpen",
    "JournalSnapshot", "MatchOver", "Msg", "Send", "Wake", "WriteRecord",
]


@dataclass(frozen=True, slots=True)
class Msg:
    """One wire message: ``kind`` as in `rami_lan.net.protocol.KINDS`, and its fields.

    For ``view`` the field ``view`` is a `core.views.SeatView`; for ``events`` the field
    ``events`` holds core events (already redacted for the receiving seat) and plain
    ``TableNotice`` maps. The network adapter encodes them with the core codec.
    """

    kind: str
    fields: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Send:
    conn: int
    msg: Msg


@dataclass(frozen=True, slots=True)
class Close:
    conn: int


@dataclass(frozen=True, slots=True)
class Wake:
    at: float | None
    """None: no wake needed until the next input."""


@dataclass(frozen=True, slots=True)
class JournalOpen:
    pass


@dataclass(frozen=True, slots=True)
class JournalAppend:
    kind: str
    body: Mapping[str, Any]
    sync: bool = True
    """fsync before the effects after it (False: written, not forced to the disk)."""


@dataclass(frozen=True, slots=True)
class JournalSnapshot:
    body: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class JournalClose:
    delete: bool


@dataclass(frozen=True, slots=True)
class WriteRecord:
    plain: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class AdChange:
    seats_taken: int


@dataclass(frozen=True, slots=True)
class Applied:
    events: tuple[Any, ...]
    match: Any
    """The match state right after these events (messages that follow are about it)."""
    action: Any = None
    """The core action that made the change when one seat's message did (else None: a
    deal, the table's own move, a held action let through)."""
    by_seat: int | None = None
    """The seat whose connection sent ``action`` (None: the table's own move)."""


@dataclass(frozen=True, slots=True)
class MatchOver:
    winner: int | None


Effect = (Send | Close | Wake | JournalOpen | JournalAppend | JournalSnapshot | JournalClose
          | WriteRecord | AdChange | Applied | MatchOver)
