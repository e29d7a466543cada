"""A seat's credentials on the player's disk, so a relaunched client gets its seat back.

A client killed mid-match (a frozen terminal, a crash, a closed lid) used to lose its
reconnect token with its process: relaunched, it was a newcomer at a running table
("The match has already started at this table."). Now, once seated, the client writes
what it needs to come back in one small file per table: the table id, the certificate
fingerprint it pinned, the reconnect token, the address it reached the table at, its
seat and nickname, and the join code or invitation ticket it proved (a reconnect at a
code table runs the join-code exchange again: docs/protocol.md, section 5).

Files: ``data_dir()/seats/<table id>.json``, folder 0700, file 0600, written atomically
(temporary file, fsync, rename). Removed when the match ends (``MatchEnded``), when the
player leaves it on purpose (``next_round leave``), and when the host no longer knows the
token (``refused bad_token``). A file older than :data:`MAX_AGE` is stale and removed when
the folder is read; an unreadable or malformed one is skipped (and removed): a file
never stops ``join`` or the lobby.

`rami-lan join TABLE` and the lobby look the table up here (by table id, or by the name
or ``HOST:PORT`` the player typed) and reconnect with the token; the lobby marks such a
table "Rejoin" and lists it first.

A seat in use is not offered: the live session holds an exclusive ``flock`` on
``<table id>.lock`` beside its file (:meth:`SeatStore.hold`), which the kernel drops when
the process dies; :meth:`SeatStore.all` and :meth:`SeatStore.find` leave out a seat
whose lock is held, so a second ``rami-lan join`` of the same player at the same table
joins as a newcomer instead of taking the first one's seat over.

At a private table the seat's masked-deck secrets for the round being played are kept
beside it, in ``<table id>.keys`` (0600, written atomically with fsync when the round's
secrets or the reveals we chose change: `rami_lan.table.seat_keys`), so a relaunched
client goes on with the round instead of stalling it. That file goes with the seat file
(removed with it), and when no masked round of ours is open any more.

What the seat's verifier has checked is kept beside it too, in ``<table id>.checks``
(0600, atomic, JSON of at most :data:`MAX_CHECKS_BYTES`; `SeatVerifier.checkpoint`):
every judged round's verdict and the match as checked at the start of the round being
played. A relaunched client's verifier goes on from it (`SeatVerifier.restore`), so every
later round is checked in full again instead of "only partly checked: match continuity
lost" (``join`` exit 5). Written when the verifier's state changes (a round dealt, ended,
judged; our commit), removed with the seat file.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Final

try:
    import fcntl
except ImportError:  # Windows: no seat locks (a second client could take the seat over)
    fcntl = None  # type: ignore[assignment]

__all__ = ["MAX_AGE", "MAX_CHECKS_BYTES", "SeatCredentials", "SeatStore"]

log = logging.getLogger(__name__)

MAX_AGE: Final = 2 * 24 * 3600.0
"""Seconds after which a seat file is stale (no match lasts two days)."""
MAX_FILE_BYTES: Final = 4096
MAX_CHECKS_BYTES: Final = 64 * 1024
"""A verifier checkpoint larger than this is not read (a match's state is a few KB)."""
SEATS_DIR: Final = "seats"
_TABLE_ID = re.compile(r"[0-9a-f]{8,32}")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_HEX32 = re.compile(r"[0-9a-f]{32}")


@dataclass(frozen=True, kw_only=True)
class SeatCredentials:
    """What a client needs to take its own seat again. Construction validates."""

    table_id: str
    """Lowercase hex (``welcome.table_id``)."""
    fingerprint: str
    """The table certificate's SHA-256, 64 lowercase hex digits (pinned)."""
    token: bytes
    """The reconnect token (16 bytes)."""
    host: str
    port: int
    seat: int
    nickname: str
    table_name: str = ""
    code: str | None = None
    """The join code or invitation ticket the seat was won with (a reconnect proves it
    again)."""
    invitation: str | None = None
    saved_at: float = 0.0

    def __post_init__(self) -> None:
        if not isinstance(self.table_id, str) or not _TABLE_ID.fullmatch(self.table_id):
            raise ValueError("table_id: 8 to 32 lowercase hex digits expected")
        if not isinstance(self.fingerprint, str) or not _HEX64.fullmatch(self.fingerprint):
            raise ValueError("fingerprint: 64 lowercase hex digits expected")
        if not isinstance(self.token, bytes) or len(self.token) != 16:
            raise ValueError("token: 16 bytes expected")
        if not isinstance(self.host, str) or not 0 < len(self.host) <= 255:
            raise ValueError("host: an address expected")
        if type(self.port) is not int or not 1 <= self.port <= 65535:
            raise ValueError("port: 1 to 65535 expected")
        if type(self.seat) is not int or not 0 <= self.seat <= 3:
            raise ValueError("seat: 0 to 3 expected")
        for name in ("nickname", "table_name"):
            value = getattr(self, name)
            if not isinstance(value, str) or len(value) > 64:
                raise ValueError(f"{name}: text of at most 64 characters expected")
        if self.code is not None and (not isinstance(self.code, str) or not 0 < len(self.code) <= 64):
            raise ValueError("code: text of 1 to 64 characters expected")
        if self.invitation is not None and (not isinstance(self.invitation, str)
                                            or not _HEX32.fullmatch(self.invitation)):
            raise ValueError("invitation: 32 lowercase hex digits expected")
        if not isinstance(self.saved_at, int | float):
            raise ValueError("saved_at: a time expected")

    def to_json(self) -> str:
        data = asdict(self)
        data["token"] = self.token.hex()
        return json.dumps(data, ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> SeatCredentials:
        """Parse a seat file; ValueError on anything malformed."""
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("a JSON object expected")
        token = data.get("token")
        if not isinstance(token, str) or not _HEX32.fullmatch(token):
            raise ValueError("token: 32 hex digits expected")
        known = {"table_id", "fingerprint", "host", "port", "seat", "nickname", "table_name",
                 "code", "invitation", "saved_at"}
        fields = {k: v for k, v in data.items() if k in known}
        try:
            return cls(token=bytes.fromhex(token), **fields)
        except TypeError as exc:  # a missing field
            raise ValueError(str(exc)) from None

    def matches(self, wanted: str) -> bool:
        """Whether ``wanted`` (as typed after ``rami-lan join``) names this table: the
        start of its id, its name (any case), or the ``HOST:PORT`` it was reached at."""
        want = wanted.strip().casefold()
        if not want:
            return False
        return (self.table_id.startswith(want) or self.table_name.casefold() == want
                or want in (f"{self.host}:{self.port}".casefold(),
                            f"[{self.host}]:{self.port}".casefold()))


class SeatStore:
    """The seat files of this player (``folder``: default ``data_dir()/seats``)."""

    def __init__(self, folder: Path | None = None, clock: Callable[[], float] = time.time) -> None:
        if folder is None:
            from rami_lan.paths import data_dir

            folder = data_dir() / SEATS_DIR
        self.folder = Path(folder)
        self._clock = clock
        self._held: dict[str, int] = {}
        """table id -> the open lock file this process holds (`hold`)."""

    def _path(self, table_id: str) -> Path:
        if not _TABLE_ID.fullmatch(table_id):
            raise ValueError("table_id: 8 to 32 lowercase hex digits expected")
        return self.folder / f"{table_id}.json"

    def save(self, cred: SeatCredentials) -> None:
        """Write (or replace) the seat file of ``cred.table_id``, mode 0600."""
        from rami_lan.fsutil import atomic_write
        from rami_lan.paths import private_dir

        private_dir(self.folder)
        atomic_write(self._path(cred.table_id), replace(cred, saved_at=self._clock()).to_json())

    def remove(self, table_id: str) -> None:
        with contextlib.suppress(OSError, ValueError):
            self._path(table_id).unlink()
        self.remove_keys(table_id)
        self.remove_checks(table_id)
        self.release(table_id)

    # ---- what the seat's verifier has checked (`SeatVerifier.checkpoint`)

    def save_checks(self, table_id: str, data: dict[str, Any] | None) -> None:
        """Write (or, with None, remove) the verifier checkpoint of ``table_id``, 0600."""
        if data is None:
            self.remove_checks(table_id)
            return
        from rami_lan.fsutil import atomic_write
        from rami_lan.paths import private_dir

        text = json.dumps(data, separators=(",", ":"), sort_keys=True)
        if len(text) > MAX_CHECKS_BYTES:
            log.warning("verifier checkpoint of table %s not kept: too large", table_id[:32])
            self.remove_checks(table_id)
            return
        private_dir(self.folder)
        atomic_write(self._path(table_id).with_suffix(".checks"), text)

    def load_checks(self, table_id: str) -> dict[str, Any] | None:
        """The kept verifier checkpoint (None: none, unreadable, too large or not JSON; the
        verifier validates the rest)."""
        try:
            with self._path(table_id).with_suffix(".checks").open("rb") as f:
                raw = f.read(MAX_CHECKS_BYTES + 1)
        except (OSError, ValueError):
            return None
        if len(raw) > MAX_CHECKS_BYTES:
            log.warning("verifier checkpoint of table %s ignored: too large", table_id[:32])
            return None
        try:
            data = json.loads(raw.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            log.warning("verifier checkpoint of table %s ignored: not JSON", table_id[:32])
            return None
        return data if isinstance(data, dict) else None

    def remove_checks(self, table_id: str) -> None:
        with contextlib.suppress(OSError, ValueError):
            self._path(table_id).with_suffix(".checks").unlink()

    # ---- the private-deal keys journal (`rami_lan.table.seat_keys`)

    def save_keys(self, table_id: str, data: bytes | None) -> None:
        """Write (or, with None, remove) the keys journal of ``table_id``, mode 0600."""
        if data is None:
            self.remove_keys(table_id)
            return
        from rami_lan.fsutil import atomic_write
        from rami_lan.paths import private_dir

        private_dir(self.folder)
        atomic_write(self._path(table_id).with_suffix(".keys"), data)

    def load_keys(self, table_id: str) -> bytes | None:
        """The kept keys journal's bytes (None: none, unreadable or too large: the seat
        machine validates the rest)."""
        from rami_lan.table.seat_keys import MAX_KEYS_BYTES

        try:
            with self._path(table_id).with_suffix(".keys").open("rb") as f:
                raw = f.read(MAX_KEYS_BYTES + 1)
        except (OSError, ValueError):
            return None
        if len(raw) > MAX_KEYS_BYTES:
            log.warning("keys file of table %s ignored: too large", table_id[:32])
            return None
        return raw

    def remove_keys(self, table_id: str) -> None:
        with contextlib.suppress(OSError, ValueError):
            self._path(table_id).with_suffix(".keys").unlink()

    def hold(self, table_id: str) -> None:
        """This process plays the seat: take its lock (kept until `release` or death)."""
        if table_id in self._held or fcntl is None:
            return
        try:
            fd = os.open(self._path(table_id).with_suffix(".lock"), os.O_RDWR | os.O_CREAT, 0o600)
        except (OSError, ValueError):
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return
        self._held[table_id] = fd

    def release(self, table_id: str) -> None:
        fd = self._held.pop(table_id, None)
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)

    def in_use(self, table_id: str) -> bool:
        """Whether another process (or another session here) holds the seat's lock."""
        if table_id in self._held:
            return True
        if fcntl is None:
            return False
        try:
            fd = os.open(self._path(table_id).with_suffix(".lock"), os.O_RDONLY)
        except (OSError, ValueError):
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return True
        finally:
            os.close(fd)
        return False

    def get(self, table_id: str) -> SeatCredentials | None:
        try:
            path = self._path(table_id)
        except ValueError:
            return None
        return self._read(path)

    def all(self) -> list[SeatCredentials]:
        """Every valid, fresh seat file whose seat is not in use, newest first (stale or
        bad ones are removed)."""
        try:
            paths = list(self.folder.glob("*.json"))
        except OSError:
            return []
        found = [c for c in (self._read(p) for p in paths[:256])
                 if c is not None and not self.in_use(c.table_id)]
        return sorted(found, key=lambda c: c.saved_at, reverse=True)

    def find(self, wanted: str) -> SeatCredentials | None:
        """The newest seat at the table ``wanted`` names (see `SeatCredentials.matches`)."""
        return next((c for c in self.all() if c.matches(wanted)), None)

    def _read(self, path: Path) -> SeatCredentials | None:
        try:
            with path.open("rb") as f:
                raw = f.read(MAX_FILE_BYTES + 1)
        except OSError:
            return None
        try:
            if len(raw) > MAX_FILE_BYTES:
                raise ValueError("too large")
            cred = SeatCredentials.from_json(raw.decode("utf-8"))
            if path.stem != cred.table_id:
                raise ValueError("file name and table id differ")
        except (ValueError, UnicodeDecodeError) as exc:
            log.info("seat file %s skipped: %s", path.name[:60], str(exc)[:120])
            with contextlib.suppress(OSError):
                path.unlink()
            with contextlib.suppress(OSError):
                path.with_suffix(".keys").unlink()
            with contextlib.suppress(OSError):
                path.with_suffix(".checks").unlink()
            return None
        if self._clock() - cred.saved_at > MAX_AGE:
            with contextlib.suppress(OSError):
                path.unlink()
            self.remove_keys(cred.table_id)
            self.remove_checks(cred.table_id)
            return None
        return cred


def credentials_of(session: Any) -> SeatCredentials | None:
    """A seated `RemoteTableSession`'s credentials (None before ``welcome`` or without
    what a reconnect needs)."""
    try:
        return SeatCredentials(
            table_id=session.table_id.hex(), fingerprint=session.fingerprint or "",
            token=session.token, host=session.host, port=session.port, seat=session.seat,
            nickname=str(session.nickname)[:64],
            table_name=str(session.table.get("name") or "")[:64],
            code=session.code or None, invitation=session.invitation)
    except (ValueError, AttributeError, TypeError):
        return None
