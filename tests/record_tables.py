"""Tables that keep their match record, in process (for the record and journal tests).

`RecordingTable` is `masked_table.MaskedTable` (plain or private dealing, remote wire
clients, no sockets) with a `rami_lan.net.record.MatchRecord`: ``record`` is the last
record the machine asked to write (its JSON round trip, as `rami-lan verify` reads it).
`journal_file` writes what the machine journaled to a real, authenticated journal file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from masked_table import MaskedTable

from rami_lan.net.journal import Journal
from rami_lan.net.record import MatchRecord
from rami_lan.table import effects as F


class RecordingTable(MaskedTable):
    """A `MaskedTable` whose machine builds the match record."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.record_plain: dict[str, Any] | None = None
        self.records_written = 0
        self._attach_record()

    def _attach_record(self) -> None:
        if self.machine.record is None:
            self.machine.record = MatchRecord.new(self.machine, self.config)

    def feed(self, effects: list[F.Effect]) -> None:
        for eff in effects:
            if isinstance(eff, F.WriteRecord):
                self.record_plain = eff.plain
                self.records_written += 1
        super().feed(effects)

    def crash_and_resume(self) -> None:
        """As `MaskedTable.crash_and_resume`, the record rebuilt from the journal as
        `TableHost.resume` does (an empty `MatchRecord` filled by `restore`)."""
        from masked_table import Entropy

        self.inbox.clear()
        old = self.machine
        self.machine = type(old).restore(self.journal_snap, self.journal_records, self.config,
                                         Entropy(b"host, restarted"), now=self.now,
                                         record=MatchRecord({}, None))
        self.feed(self.machine.resumed(self.now))
        clients = list(self.clients.values())
        self.clients = {}
        for c in clients:
            if c.owner:
                c.token = self.machine.owner_token
            self.rejoin(c)

    @property
    def record(self) -> dict[str, Any]:
        assert self.record_plain is not None, "no record was written"
        return json.loads(json.dumps(self.record_plain))


def journal_file(table: MaskedTable, folder: Path, name: str = "t.journal") -> Path:
    """The table's journal (its last snapshot and the records after it) as a real,
    authenticated journal file in ``folder`` (key: ``folder/journal.key``)."""
    path = folder / name
    with Journal.open(path, sync=False) as j:
        j.append("snapshot", table.journal_snap)
        for r in table.journal_records:
            j.append(r.kind, r.body)
    return path
