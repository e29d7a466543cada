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

    b"RLJOURN2"                                   8-byte magic (format version 2)
    record*:
        u32 n | u32 crc32(body) | tag[16] | u32 crc32(the previous 24 bytes)   header
        body: n bytes of msgpack {"kind": str, "body": map}

    tag = HMAC-SHA256(key, "rami-lan journal v2" 0x00 || previous tag || u32 n || body)[:16]

The journal is **authenticated**: each record's ``tag`` is an HMAC under a 32-byte key
kept in ``journal.key`` (mode 0600) in the journal's folder (``config_dir()/tables``,
beside the host's identity), made on first use. Tags are chained (the first record's
"previous tag" is 16 zero bytes; compaction starts a new chain), so a record cannot be
edited, removed from the middle, reordered or copied from another journal without the
key: such a journal is refused with :class:`JournalTamperedError`, even when its CRCs
were recomputed. (Records cut from the *end* leave a valid shorter journal: the
journal is a crash log, and a cut tail is what a crash leaves.) A version-1 journal
(``RLJOURN1``, unauthenticated) is refused the same way. CRCs still tell a torn tail
(a crash mid-append) from damage.

Bounds: a body is decoded with at most ``MAX_ITEMS`` values in all (counted while it is
decoded); a ``snapshot`` body's host fields are checked before the host uses any of them
(:func:`check_snapshot`: ``port`` 0..65535, ``seq``, ``match_no``, seat numbers, the
table's seats and timer, the embedded match record), so a crafted journal is refused
with a :class:`JournalInvalidError` naming the field instead of raising deep inside
the host.

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

import hashlib
import hmac
import os
import re
import secrets
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, NamedTuple

import msgpack

from rami_lan.fsutil import fsync, fsync_dir, write_temp
from rami_lan.net.protocol import check_plain
from rami_lan.paths import private_dir, private_file

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
    "JournalInvalidError",
    "JournalLockedError",
    "JournalTamperedError",
    "Record",
    "Replay",
    "check_snapshot",
    "journal_key",
    "prune_journals",
    "replay",
]

MAGIC: Final = b"RLJOURN2"
OLD_MAGIC: Final = b"RLJOURN1"
KEY_FILE: Final = "journal.key"
GRACE: Final = 7 * 24 * 3600.0
"""Seconds a journal left behind (a table that crashed and was never resumed) is kept
after its last write; :func:`prune_journals` removes older ones."""
KEY_SIZE: Final = 32
TAG_SIZE: Final = 16
_TAG_LABEL: Final = b"rami-lan journal v2\x00"
MAX_RECORD: Final = 64 * 1024 * 1024
"""Largest record body, in bytes."""
MAX_DEPTH: Final = 32
MAX_ITEMS: Final = 1_000_000
KIND_SNAPSHOT: Final = "snapshot"
KIND_ACTION: Final = "action"
KIND_ROUND: Final = "round"

_HEADER = struct.Struct(">II16sI")
_HEAD_CRC_SPAN = 24  # bytes covered by the header's own CRC
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


class JournalTamperedError(JournalError):
    """A record's authentication tag does not match: the journal was edited (or written
    under another key, or by a rami-lan without authentication). Never resumed."""


class JournalInvalidError(JournalError):
    """A record is authentic but holds a value out of bounds (a crafted or buggy body)."""


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


def _tag(key: bytes, previous: bytes, data: bytes) -> bytes:
    message = _TAG_LABEL + previous + struct.pack(">I", len(data)) + data
    return hmac.digest(key, message, hashlib.sha256)[:TAG_SIZE]


def _encode(kind: str, body: dict[str, Any], key: bytes, previous: bytes) -> tuple[bytes, bytes]:
    """The record's bytes and its tag (the next record's ``previous``)."""
    if type(kind) is not str or not _KIND.fullmatch(kind):
        raise ValueError(f"a record kind is an identifier like 'action', not {kind!r}")
    if type(body) is not dict:
        raise ValueError(f"a record body is a dict, not {type(body).__name__}")
    check_plain(body, max_depth=MAX_DEPTH, max_items=MAX_ITEMS)
    data = msgpack.packb({"kind": kind, "body": body}, use_bin_type=True)
    if len(data) > MAX_RECORD:
        raise ValueError(f"record of {len(data)} bytes, limit {MAX_RECORD}")
    tag = _tag(key, previous, data)
    head = struct.pack(">II16s", len(data), zlib.crc32(data), tag)
    return head + struct.pack(">I", zlib.crc32(head)) + data, tag


class _TooMany(ValueError):
    pass


def _decode(data: bytes | memoryview) -> tuple[str, dict[str, Any]]:
    """A record body, decoded with bounds: at most :data:`MAX_ITEMS` values in all (counted
    as each container is built, so a crafted body of millions of nils is refused before it
    costs their memory), as `check_plain` allows when it is written."""
    left = [MAX_ITEMS]

    def count(container: Any) -> Any:
        left[0] -= len(container) + 1
        if left[0] < 0:
            raise _TooMany(f"more than {MAX_ITEMS} values")
        return container

    value = msgpack.unpackb(data, raw=False, strict_map_key=True, use_list=True,
                            max_array_len=MAX_ITEMS, max_map_len=MAX_ITEMS,
                            list_hook=count, object_hook=count)
    if type(value) is not dict or set(value) != {"kind", "body"}:
        raise ValueError("not a record map")
    kind, body = value["kind"], value["body"]
    if type(kind) is not str or not _KIND.fullmatch(kind) or type(body) is not dict:
        raise ValueError("bad kind or body")
    return kind, body


def _read_at(data: bytes, pos: int) -> tuple[Record | None, int, str]:
    """The record at ``pos``: (record, its end, "") or (None, end or -1, problem).

    Checks the CRCs and the decoding only; the tag is checked by :func:`_scan`."""
    if len(data) - pos < _HEADER.size:
        return None, -1, "incomplete header"
    n, crc, _tag_bytes, head_crc = _HEADER.unpack_from(data, pos)
    if zlib.crc32(data[pos : pos + _HEAD_CRC_SPAN]) != head_crc:
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


def _scan(path: Path, data: bytes, key: bytes) -> tuple[Replay, bytes]:
    """The journal in ``data``, and the tag of its last valid record (the chain's end)."""
    if len(data) < len(MAGIC):
        if MAGIC.startswith(data):
            return Replay(None, [], 0, 0, len(data)), bytes(TAG_SIZE)  # crashed while created
        raise JournalCorruptError(path, 0, "not a rami-lan journal", Replay(None, []))
    if data.startswith(OLD_MAGIC):
        raise JournalTamperedError(
            f"{path}: written by an older rami-lan, without authentication: not resumed")
    if not data.startswith(MAGIC):
        raise JournalCorruptError(path, 0, "not a rami-lan journal", Replay(None, []))
    records: list[Record] = []
    previous = bytes(TAG_SIZE)
    pos = len(MAGIC)
    while pos < len(data):
        record, end, problem = _read_at(data, pos)
        if record is None and problem.startswith("undecodable"):
            # Both CRCs hold, so the whole record was written: not a torn tail.
            tag = _HEADER.unpack_from(data, pos)[2]
            if not hmac.compare_digest(tag, _tag(key, previous, data[pos + _HEADER.size : end])):
                raise JournalTamperedError(
                    f"{path}: the record at byte {pos} is not authentic (the journal was "
                    f"edited, or written with another key): not resumed")
            raise JournalCorruptError(path, pos, problem, _build(records, pos, pos))
        if record is None:
            if _valid_record_after(data, pos):
                raise JournalCorruptError(path, pos, problem, _build(records, pos, pos))
            break  # a torn tail
        tag = _HEADER.unpack_from(data, pos)[2]
        body = data[pos + _HEADER.size : end]
        if not hmac.compare_digest(tag, _tag(key, previous, body)):
            raise JournalTamperedError(
                f"{path}: the record at byte {pos} is not authentic (the journal was edited, "
                f"or written with another key): not resumed")
        if record.kind == KIND_SNAPSHOT:
            try:
                check_snapshot(record.body)
            except ValueError as exc:
                raise JournalInvalidError(f"{path}: snapshot at byte {pos}: {exc}") from None
        previous = tag
        records.append(record)
        pos = end
    return _build(records, pos, len(data)), previous


def replay(path: str | os.PathLike[str], *, key: bytes | None = None) -> Replay:
    """Read a journal: ``snapshot, records = replay(path)``.

    A torn tail is ignored (``Replay.torn`` says how many bytes); damage before the end
    raises :class:`JournalCorruptError`; a record that is not authentic under ``key``
    (default: :func:`journal_key` of the journal's folder) raises
    :class:`JournalTamperedError`; a snapshot out of bounds :class:`JournalInvalidError`.
    A missing file raises ``FileNotFoundError``.
    """
    path = Path(path)
    data = path.read_bytes()
    if key is None:
        key = journal_key(path.parent)
    return _scan(path, data, key)[0]


# --------------------------------------------------------------------------- bounds


def _bounded_int(body: dict[str, Any], name: str, low: int, high: int, where: str = "") -> None:
    if name in body:
        value = body[name]
        if type(value) is not int or not low <= value <= high:
            raise ValueError(
                f"{where}{name} must be an int in {low}..{high}, not {_short(value)}")


def _short(value: object) -> str:
    text = repr(value) if not isinstance(value, dict | list) else type(value).__name__
    return text if len(text) <= 40 else text[:39] + "…"


def check_snapshot(body: dict[str, Any]) -> None:
    """Check the host fields of a ``snapshot`` body that are present; ``ValueError`` if
    one is out of bounds. Fields are optional here (the host checks what it needs); any
    present one must have its type and range."""
    _bounded_int(body, "v", 1, 1000)
    _bounded_int(body, "seq", 0, 2**53)
    _bounded_int(body, "port", 0, 65535)
    _bounded_int(body, "match_no", 0, 10**6)
    _bounded_int(body, "host_seat", 0, 255)
    if "table_id" in body and (type(body["table_id"]) is not bytes or len(body["table_id"]) != 16):
        raise ValueError("table_id must be 16 bytes")
    table = body.get("table")
    if table is not None:
        if type(table) is not dict:
            raise ValueError("table must be a map")
        _bounded_int(table, "seats", 2, 4, "table.")
        _bounded_int(table, "timer", 0, 24 * 3600, "table.")
        if table.get("limit") is not None:
            _bounded_int(table, "limit", 1, 100_000, "table.")
        bots = table.get("bots")
        if bots is not None and (type(bots) is not list or len(bots) > 4):
            raise ValueError("table.bots must be a list of at most 4 seats")
        for name in ("name", "variant", "join_code", "who_may_sit", "host_nickname"):
            value = table.get(name)
            if value is not None and (type(value) is not str or len(value) > 256):
                raise ValueError(f"table.{name} must be a short str")
    seats = body.get("seats")
    if seats is not None:
        if type(seats) is not list or len(seats) > 8:
            raise ValueError("seats must be a list of at most 8 seats")
        for seat in seats:
            if type(seat) is not dict:
                raise ValueError("every seat is a map")
            _bounded_int(seat, "seat", 0, 7, "seats[].")
    record = body.get("record")
    if record is not None:
        if type(record) is not dict:
            raise ValueError("record must be a map")
        from rami_lan.net.record import check_record, check_round_entry

        data = record.get("data")
        if data is not None:
            try:
                check_record(data)
            except ValueError as exc:
                raise ValueError(f"record.data: {exc}") from None
        current = record.get("current")
        if current is not None:
            if type(data) is not dict:
                raise ValueError("record.current without record.data")
            from rami_lan.core.variants import get_variant

            check_round_entry(current, "record.current", get_variant(data["variant"]), data["seats"])


# --------------------------------------------------------------------------- cleanup


def prune_journals(
    folder: str | os.PathLike[str], *, grace: float = GRACE, now: float | None = None
) -> list[Path]:
    """Remove the ``*.journal`` files of ``folder`` not written for ``grace`` seconds
    (abandoned tables: they hold the table's join code and seats), and stale temporary
    compaction files; a journal open in a running host (locked) is never touched.
    Returns what was removed. Errors are skipped quietly (best effort)."""
    import time

    folder = Path(folder)
    now = time.time() if now is None else now
    removed: list[Path] = []
    try:
        candidates = list(folder.glob("*.journal")) + list(folder.glob(".*.compact"))
    except OSError:
        return removed
    for path in candidates:
        try:
            if now - path.stat().st_mtime < grace:
                continue
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            _lock(fd, path)  # raises if a running host holds it
            path.unlink()
            removed.append(path)
        except (JournalLockedError, OSError):
            pass
        finally:
            os.close(fd)
    return removed


# --------------------------------------------------------------------------- key


def journal_key(folder: str | os.PathLike[str]) -> bytes:
    """The 32-byte key authenticating the journals of ``folder``: ``folder/journal.key``
    (0600, the folder 0700), made atomically on first use."""
    folder = private_dir(Path(folder))
    path = folder / KEY_FILE
    if not path.exists():
        tmp = write_temp(path, secrets.token_bytes(KEY_SIZE))
        try:
            os.link(tmp, path)  # fails if another host made it first: use that one
        except FileExistsError:
            pass
        except OSError:  # no hard links here
            if not path.exists():
                os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
        fsync_dir(folder)
    private_file(path)
    key = path.read_bytes()
    if len(key) != KEY_SIZE:
        raise JournalError(f"{path} is not a journal key ({len(key)} bytes)")
    return key


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

    def __init__(
        self, path: Path, fd: int, size: int, replayed: Replay, sync: bool, key: bytes,
        previous: bytes,
    ) -> None:
        self.path = path
        self._fd: int | None = fd
        self._size = size
        self._sync = sync
        self._key = key
        self._previous = previous
        self.replayed = replayed
        """What the file held when it was opened (empty for a new journal)."""

    @classmethod
    def open(
        cls, path: str | os.PathLike[str], *, sync: bool = True, key: bytes | None = None
    ) -> Journal:
        """Open ``path`` for appending, creating it if needed.

        ``key`` authenticates the records (default: :func:`journal_key` of the folder).
        An existing journal is checked first: a torn tail is cut off (and the cut synced),
        damage before the end raises :class:`JournalCorruptError`, a record that is not
        authentic :class:`JournalTamperedError`; both change nothing.
        The file is locked (POSIX ``flock``) against a second host:
        :class:`JournalLockedError`. ``sync=False`` skips every fsync (benchmarks only).
        """
        path = Path(path)
        if key is None:
            key = journal_key(path.parent)
        try:
            fd = os.open(path, _OPEN_FLAGS | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            fd = os.open(path, _OPEN_FLAGS)
            try:
                _lock(fd, path)
                private_file(path)
                found, previous = _scan(path, path.read_bytes(), key)
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
            return cls(path, fd, size, found, sync, key, previous)
        try:
            _lock(fd, path)
            _write_all(fd, MAGIC)
            if sync:
                fsync(fd)
                fsync_dir(path.parent)
        except BaseException:
            os.close(fd)
            raise
        return cls(path, fd, len(MAGIC), Replay(None, [], 0, len(MAGIC)), sync, key,
                   bytes(TAG_SIZE))

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

    def append(self, kind: str, body: dict[str, Any], *, sync: bool = True) -> int:
        """Write one record and fsync it (``sync=False``: written, not fsync'd; a later
        fsync'd record covers it); return its offset.

        ``body`` must be plain data (``ValueError`` otherwise, nothing written). If the
        write itself fails (disk full), the partial record is cut off before raising.
        """
        fd = self._require_open()
        record, tag = _encode(kind, body, self._key, self._previous)
        offset = self._size
        try:
            _write_all(fd, record)
            if self._sync and sync:
                fsync(fd)
        except OSError:
            try:
                os.ftruncate(fd, offset)
            except OSError:
                pass  # replay will see a torn tail
            raise
        self._size += len(record)
        self._previous = tag
        return offset

    def compact(self, snapshot: dict[str, Any]) -> None:
        """Replace the journal, atomically, by a new one holding only ``snapshot``."""
        self._require_open()
        record, tag = _encode(KIND_SNAPSHOT, snapshot, self._key, bytes(TAG_SIZE))
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
        self._previous = tag
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
