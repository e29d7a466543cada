"""What the table machine asks its adapter to do: frozen effect values.

The machine never performs I/O. Every input returns a list of these, in order; the
adapter (`rami_lan.net.host` over TLS, `rami_lan.cli.local_session` in process, `table.selfplay`)
carries them out in that order.

| effect | the adapter must |
|---|---|
| `Send(conn, msg)` | send ``msg`` to connection ``conn`` (`Msg`: one typed wire message) |
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
from typing import Any, ClassVar

from rami_lan.core.codec import event_to_plain, view_to_plain
from rami_lan.ids import TABLE_NOTICE
from rami_lan.wire.messages import Events, Message, View

__all__ = [
    "AdChange", "Applied", "Close", "Effect", "EventsMsg", "JournalAppend", "JournalClose",
    "JournalOpen", "JournalSnapshot", "MatchOver", "Msg", "SeatViewMsg", "Send", "TableNotice",
    "Wake", "WriteRecord", "wire_message",
]


@dataclass(frozen=True, slots=True)
class TableNotice:
    """A table notice for the players (rides in an ``events`` message among core events).

    ``players`` is the table's players list (`TableMachine.players_info`); ``text`` the
    English notice, if any; ``code`` and ``data`` the fact the client words itself
    (`rami_lan.net.notices`). On the wire it is a plain map (`to_plain`).
    """

    players: Any
    text: str | None = None
    code: str | None = None
    data: Mapping[str, Any] | None = None

    def to_plain(self) -> dict[str, Any]:
        """Today's wire map: ``type``, ``players``, then ``text``, ``code`` and ``data``
        when set (in that order: the bytes stay the same)."""
        plain: dict[str, Any] = {"type": TABLE_NOTICE, "players": self.players}
        if self.text is not None:
            plain["text"] = self.text
        if self.code is not None:
            plain["code"], plain["data"] = self.code, dict(self.data or {})
        return plain

    @classmethod
    def from_plain(cls, plain: Mapping[str, Any]) -> TableNotice:
        """A received notice map, read leniently (it is the host's word, for display): a
        field of the wrong type is left out (players: only the maps of its list)."""
        players = plain.get("players")
        text, code, data = plain.get("text"), plain.get("code"), plain.get("data")
        return cls([p for p in players if isinstance(p, dict)] if isinstance(players, list) else None,
                   text if isinstance(text, str) else None, code if isinstance(code, str) else None,
                   data if isinstance(data, dict) else None)


@dataclass(frozen=True, slots=True)
class SeatViewMsg:
    """``view`` as the machine holds it: the seat's `core.views.SeatView`; the network
    adapter encodes it (`rami_lan.wire.messages.View`)."""

    KIND: ClassVar[str] = "view"
    seq: int
    view: Any


@dataclass(frozen=True, slots=True)
class EventsMsg:
    """``events`` as the machine holds it: core events (already redacted for the
    receiving seat) and `TableNotice` values; the network adapter encodes them
    (`rami_lan.wire.messages.Events`), each event once per batch."""

    KIND: ClassVar[str] = "events"
    seq: int
    events: tuple[Any, ...]


Msg = Message | SeatViewMsg | EventsMsg
"""One wire message: a `rami_lan.wire.messages` dataclass, or for ``view`` and
``events`` the machine's typed forms above (core objects the adapter encodes)."""


def wire_message(msg: Msg, variant: Any, cache: dict[int, Any] | None = None) -> Message:
    """The wire dataclass for ``msg``: ``view`` and ``events`` encoded with the core codec
    (each event once per ``cache``, by id: one batch's events go to several seats)."""
    if isinstance(msg, SeatViewMsg):
        return View(seq=msg.seq, view=view_to_plain(msg.view))
    if isinstance(msg, EventsMsg):
        cache = {} if cache is None else cache
        out = []
        for e in msg.events:
            if isinstance(e, TableNotice):
                out.append(e.to_plain())
                continue
            plain = cache.get(id(e))
            if plain is None:
                plain = cache[id(e)] = event_to_plain(e, variant)
            out.append(plain)
        return Events(seq=msg.seq, events=out)
    return msg


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
