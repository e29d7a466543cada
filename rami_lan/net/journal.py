"""Crash-safe host journal: an append-only file of checksummed records, fsync'd each time.

Theory of operation
-------------------
The host writes what it needs to rebuild a match after a crash (``kill -9``, a closed
laptop lid, a power cut): a full ``snapshot`` now and then (the core's
``match_to_plain`` plus host metadata: seats, tokens, table config, state version), every
accepted ``action`` since (the core's ``action_to_plain`` and its ``seq``), and each
``round`` start (deck ids, seed, commitments...). Bodies are any plain-data map
(``rami_lan.net.protocol.check_plain``, deeper and larger limits); kinds are identifiers,
these three being the standard ones.

File layout::

    b"RLJOURN1"                                   8-byte magic (format version 1)
    record*:
        u32 n | u32 crc32(body) | u32 crc32(the previous 8 bytes)   big-endian header
        body: n bytes of msgpack {"kind": str, "body": map}

:meth:`Journal.append` writes a record with one ``write`` and then ``fsync``s the file
(``F_FULLFSYNC`` on macOS), so once it returns the record survives a crash. Creating the
file and compacting it also ``fsync`` the directory.

Reading (:func:`replay`) stops at the first damaged record: incomplete, a header or body
checksum that does not match, or a body that does not decode. What happens then depends
on what follows it:

- **no valid record after it: a torn tail.** That is what a crash in the middle of an
  append leaves (a prefix of the record, or zeros). It is ignored silently: the journal
  is the records before it, and :meth:`Journal.open` truncates it away before appending.
- **a valid record after it: corruption** (the disk changed data that was once synced).
  :func:`replay` and :meth:`Journal.open` raise :class:`JournalCorruptError`, whose
  ``offset`` is where the damage starts and whose ``replay`` holds the consistent prefix
  before it, so the caller can decide (``rami-lan host --resume`` reports it and stops;
  resuming from the prefix is a deliberate choice, never automatic).

Compaction (:meth:`Journal.compact`) starts a new file holding a single snapshot: written
to a temporary file, fsync'd, renamed over the journal (atomic), directory fsync'd. A
crash at any point leaves either the old journal or the new one, both complete.
"""

from __future__ import annotations

import os
import re
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, NamedTuple

import msgpack

from rami_lan.fsutil import fsync, fsync_dir
from rami_lan.net.protocol import check_plain

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "KIND_ACTION",
    "KIND_ROUND",
    "KIND_SNAPSHOT",
    "MAGIC",
    "MAX_RECORD",
    "Journal",
    "JournalCorruptError",
    "JournalError",
    "JournalLockedError",
    "Record",
    "Replay",
    "replay",
]

MAGIC: Final = b"RLJOURN1"
MAX_RECORD: Final = 64 * 1024 * 1024
"""Largest record body, in bytes."""
MAX_DEPTH: Final = 32
MAX_ITEMS: Final = 1_000_000
KIND_SNAPSHOT: Final = "snapshot"
KIND_ACTION: Final = "action"
KIND_ROUND: Final = "round"

_HEADER = struct.Struct(">III")
_KIND = re.compile(r"[a-z][a-z0-9_]{0,31}")


class JournalError(Exception):
    """Base of the journal's errors."""


class JournalCorruptError(JournalError):
    """The journal is damaged before its end (or is not a journal at all).

    ``offset`` is where the damage starts; ``replay`` is the consistent prefix before it.
    """

    def __init__(self, path: Path, offset: int, problem: str, prefix: Replay) -> None:
        if offset < len(MAGIC):
            text = f"{path}: {problem}"
        else:
            text = (
                f"{path}: damaged record at byte {offset} ({problem}) with valid records "
                f"after it; the {prefix.total} records before it are intact"
            )
        super().__init__(text)
        self.path = path
        self.offset = offset
        self.problem = problem
        self.replay = prefix


class JournalLockedError(JournalError):
    """Another process has this journal open."""


class Record(NamedTuple):
    kind: str
    body: dict[str, Any]
    offset: int
    """Byte offset of the record's header in the file."""


@dataclass(frozen=True)
class Replay:
    """What a journal holds: the last snapshot and the records after it.

    Unpacks as ``snapshot, records = replay(path)``.
    """

    snapshot: dict[str, Any] | None
    """Body of the last ``snapshot`` record, or None if there is none."""
    records: list[Record]
    """Every record after that snapshot (all records if there is none), in order."""
    total: int = 0
    """Valid records in the file, the snapshot included."""
    end: int = 0
    """Offset just past the last valid record (the file size once a torn tail is cut)."""
    torn: int = 0
    """Bytes of torn tail that were ignored (0 if the file ended cleanly)."""
    snapshot_offset: int | None = field(default=None)

    def __iter__(self) -> Iterator[Any]:
        return iter((self.snapshot, self.records))


# --------------------------------------------------------------------------- encoding


def _encode(kind: str, body: dict[str, Any]) -> bytes:
    if type(kind) is not str or not _KIND.fullmatch(kind):
        raise ValueError(f"a record kind is an identifier like 'action', not {kind!r}")
    if type(body) is not dict:
        raise ValueError(f"a record body is a dict, not {type(body).__name__}")
    check_plain(body, max_depth=MAX_DEPTH, max_items=MAX_ITEMS)
    data = msgpack.packb({"kind": kind, "body": body}, use_bin_type=True)
    if len(data) > MAX_RECORD:
        raise ValueError(f"record of {len(data)} bytes, limit {MAX_RECORD}")
    crc = zlib.crc32(data)
    head = struct.pack(">II", len(data), crc)
    return head + struct.pack(">I", zlib.crc32(head)) + data


def _decode(data: bytes | memoryview) -> tuple[str, dict[str, Any]]:
    value = msgpack.unpackb(data, raw=False, strict_map_key=True, use_list=True)
    if type(value) is not dict or set(value) != {"kind", "body"}:
        raise ValueError("not a record map")
    kind, body = value["kind"], value["body"]
    if type(kind) is not str or not _KIND.fullmatch(kind) or type(body) is not dict:
        raise ValueError("bad kind or body")
    return kind, body


def _read_at(data: bytes, pos: int) -> tuple[Record | None, int, str]:
    """The record at ``pos``: (record, its end, "") or (None, end or -1, problem)."""
    if len(data) - pos < _HEADER.size:
        return None, -1, "incomplete header"
    n, crc, head_crc = _HEADER.unpack_from(data, pos)
    if zlib.crc32(data[pos : pos + 8]) != head_crc:
        return None, -1, "header checksum mismatch"
    if not 1 <= n <= MAX_RECORD:
        return None, -1, f"bad record length {n}"
    end = pos + _HEADER.size + n
    if end > len(data):
        return None, -1, "incomplete record"
    body = data[pos + _HEADER.size : end]
    if zlib.crc32(body) != crc:
        return None, end, "body checksum mismatch"
    try:
        kind, plain = _decode(body)
    except Exception as exc:  # noqa: BLE001 - a damaged body is data, not a bug
        return None, end, f"undecodable body: {exc}"
    return Record(kind, plain, pos), end, ""


def _valid_record_after(data: bytes, pos: int) -> bool:
    for start in range(pos + 1, len(data) - _HEADER.size + 1):
        if _read_at(data, start)[0] is not None:
            return True
    return False


def _build(records: list[Record], end: int, size: int) -> Replay:
    last = None
    for i in range(len(records) - 1, -1, -1):
        if records[i].kind == KIND_SNAPSHOT:
            last = i
            break
    if last is None:
        return Replay(None, list(records), len(records), end, size - end)
    return Replay(
        records[last].body,
        records[last + 1 :],
        len(records),
        end,
        size - end,
        records[last].offset,
    )


def _scan(path: Path, data: bytes) -> Replay:
    if len(data) < len(MAGIC):
        if MAGIC.startswith(data):
            return Replay(None, [], 0, 0, len(data))  # crashed while being created
        raise JournalCorruptError(path, 0, "not a rami-lan journal", Replay(None, []))
    if not data.startswith(MAGIC):
        raise JournalCorruptError(path, 0, "not a rami-lan journal", Replay(None, []))
    records: list[Record] = []
    pos = len(MAGIC)
    while pos < len(data):
        record, end, problem = _read_at(data, pos)
        if record is None:
            if _valid_record_after(data, pos):
                raise JournalCorruptError(path, pos, problem, _build(records, pos, pos))
            break  # a torn tail
        records.append(record)
        pos = end
    return _build(records, pos, len(data))


def replay(path: str | os.PathLike[str]) -> Replay:
    """Read a journal: ``snapshot, records = replay(path)``.

    A torn tail is ignored (``Replay.torn`` says how many bytes); damage before the end
    raises :class:`JournalCorruptError`. A missing file raises ``FileNotFoundError``.
    """
    path = Path(path)
    return _scan(path, path.read_bytes())


# --------------------------------------------------------------------------- writing


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _lock(fd: int, path: Path) -> None:
    if fcntl is None:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        raise JournalLockedError(f"{path} is open in another process") from None


_OPEN_FLAGS = os.O_WRONLY | os.O_APPEND | getattr(os, "O_BINARY", 0)


class Journal:
    """An open journal, for appending. Use :meth:`open`; close it (or use ``with``)."""

    def __init__(self, path: Path, fd: int, size: int, replayed: Replay, sync: bool) -> None:
        self.path = path
        self._fd: int | None = fd
        self._size = size
        self._sync = sync
        self.replayed = replayed
        """What the file held when it was opened (empty for a new journal)."""

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, sync: bool = True) -> Journal:
        """Open ``path`` for appending, creating it if needed.

        An existing journal is checked first: a torn tail is cut off (and the cut synced),
        damage before the end raises :class:`JournalCorruptError` and changes nothing.
        The file is locked (POSIX ``flock``) against a second host:
        :class:`JournalLockedError`. ``sync=False`` skips every fsync (benchmarks only).
        """
        path = Path(path)
        try:
            fd = os.open(path, _OPEN_FLAGS | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            fd = os.open(path, _OPEN_FLAGS)
            try:
                _lock(fd, path)
                found = replay(path)
                if found.end < len(MAGIC):  # empty or torn magic: start afresh
                    os.ftruncate(fd, 0)
                    _write_all(fd, MAGIC)
                    size = len(MAGIC)
                else:
                    size = found.end
                    if found.torn:
                        os.ftruncate(fd, found.end)
                if sync and (found.torn or found.end < len(MAGIC)):
                    fsync(fd)
            except BaseException:
                os.close(fd)
                raise
            return cls(path, fd, size, found, sync)
        try:
            _lock(fd, path)
            _write_all(fd, MAGIC)
            if sync:
                fsync(fd)
                fsync_dir(path.parent)
        except BaseException:
            os.close(fd)
            raise
        return cls(path, fd, len(MAGIC), Replay(None, [], 0, len(MAGIC)), sync)

    @property
    def size(self) -> int:
        """Bytes in the file (all of it valid)."""
        return self._size

    @property
    def closed(self) -> bool:
        return self._fd is None

    def _require_open(self) -> int:
        if self._fd is None:
            raise JournalError(f"{self.path} is closed")
        return self._fd

    def append(self, kind: str, body: dict[str, Any]) -> int:
        """Write one record and fsync it; return its offset.

        ``body`` must be plain data (``ValueError`` otherwise, nothing written). If the
        write itself fails (disk full), the partial record is cut off before raising.
        """
        fd = self._require_open()
        record = _encode(kind, body)
        offset = self._size
        try:
            _write_all(fd, record)
            if self._sync:
                fsync(fd)
        except OSError:
            try:
                os.ftruncate(fd, offset)
            except OSError:
                pass  # replay will see a torn tail
            raise
        self._size += len(record)
        return offset

    def compact(self, snapshot: dict[str, Any]) -> None:
        """Replace the journal, atomically, by a new one holding only ``snapshot``."""
        self._require_open()
        record = _encode(KIND_SNAPSHOT, snapshot)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.compact")
        fd = os.open(tmp, _OPEN_FLAGS | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            _lock(fd, tmp)
            _write_all(fd, MAGIC + record)
            if self._sync:
                fsync(fd)
            os.replace(tmp, self.path)
        except BaseException:
            os.close(fd)
            tmp.unlink(missing_ok=True)
            raise
        if self._sync:
            fsync_dir(self.path.parent)
        old, self._fd = self._fd, fd
        self._size = len(MAGIC) + len(record)
        if old is not None:
            os.close(old)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
