"""The table host's files: the crash journal and the match record.

`TableFiles` carries out the table machine's journal effects (`JournalOpen`,
`JournalAppend`, `JournalSnapshot`, `JournalClose`: each append fsync'd before the
effects after it) and `WriteRecord` (the record as JSON, replaced atomically).
"""

from __future__ import annotations

import contextlib
import logging
from pathlib import Path
from typing import Any

from rami_lan.net.journal import Journal
from rami_lan.table import effects as F

log = logging.getLogger(__name__)

__all__ = ["TableFiles"]


class TableFiles:
    """The journal and the record of one table (``journal_dir``/``record_dir`` None: none)."""

    def __init__(self, journal_dir: str | Path | None, record_dir: str | Path | None,
                 table_id: bytes) -> None:
        self.journal_dir = journal_dir
        self.record_dir = record_dir
        self.table_id = table_id
        self.journal: Journal | None = None
        self.journal_path: Path | None = None
        self.record_path: Path | None = None

    def journal_effect(self, eff: F.JournalAppend | F.JournalSnapshot | F.JournalOpen,
                       port: int) -> None:
        """Write one journal effect; raises OSError/ValueError if the disk failed."""
        if isinstance(eff, F.JournalOpen):
            if self.journal_dir is not None and self.journal is None:
                folder = Path(self.journal_dir)
                folder.mkdir(mode=0o700, parents=True, exist_ok=True)
                self.journal_path = folder / f"{self.table_id.hex()}.journal"
                self.journal = Journal.open(self.journal_path)
        elif self.journal is None:
            return
        elif isinstance(eff, F.JournalAppend):
            self.journal.append(eff.kind, dict(eff.body), sync=eff.sync)
        else:
            body = dict(eff.body)
            body["port"] = port
            body["record_path"] = None if self.record_path is None else str(self.record_path)
            self.journal.compact(body)

    def close_journal(self, delete: bool) -> None:
        if self.journal is None:
            return
        self.journal.close()
        self.journal = None
        if delete and self.journal_path is not None:
            with contextlib.suppress(OSError):
                self.journal_path.unlink()

    def write_record(self, plain: Any, match_no: int) -> None:
        if self.record_dir is None:
            return
        from rami_lan.net.record import save_record

        try:  # the whole table id, as docs/host.md names the file; 0600 in a 0700 folder
            self.record_path = save_record(
                self.record_dir, f"rami-{self.table_id.hex()}-m{match_no}.json", plain)
        except OSError:
            log.exception("could not write the match record")
