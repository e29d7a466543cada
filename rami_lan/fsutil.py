"""Small filesystem helpers: fsync, atomic writes (stdlib only).

rami-lan's folders are found by :mod:`rami_lan.paths` (the one place for them).

* :func:`fsync` / :func:`fsync_dir`: flush a file (``F_FULLFSYNC`` on macOS) or a
  directory entry to disk; the latter is a no-op where a directory cannot be opened.
* :func:`write_temp` / :func:`atomic_write`: write a new temporary file (mode 0600) next
  to its destination and fsync it; rename it over the destination, so a crash never
  leaves half a file.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]


def fsync(fd: int) -> None:
    """Flush a file's data to the disk (``F_FULLFSYNC`` on macOS, where fsync does not)."""
    if sys.platform == "darwin" and fcntl is not None and hasattr(fcntl, "F_FULLFSYNC"):
        try:
            fcntl.fcntl(fd, fcntl.F_FULLFSYNC)
            return
        except OSError:
            pass
    os.fsync(fd)


def fsync_dir(directory: Path) -> None:
    """Flush a directory (a rename or a new file in it); quietly nothing if impossible."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # Windows cannot open a directory
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_temp(path: Path, data: bytes) -> Path:
    """A new temporary file (mode 0600) beside ``path`` holding ``data``, fsync'd.

    The caller renames or links it into place, and removes it if that fails.
    """
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            fsync(file.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return Path(tmp)


def atomic_write(path: Path, data: bytes | str) -> None:
    """Replace ``path`` by ``data`` (str: UTF-8) atomically: temporary file, fsync, rename."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    tmp = write_temp(path, raw)
    try:
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
