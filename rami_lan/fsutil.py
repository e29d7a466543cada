"""Small filesystem helpers: rami-lan's folders, fsync, atomic writes (stdlib only).

* :func:`app_dir`: the platform's usual per-user folder for rami-lan (config or data),
  used by :func:`rami_lan.cli.settings.config_dir` and :func:`rami_lan.stats.data_dir`.
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
from collections.abc import Mapping
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

APP_NAME = "rami-lan"


def app_dir(
    override_var: str,
    windows: tuple[str, str],
    xdg: tuple[str, str],
    *,
    xdg_first: bool = False,
    environ: Mapping[str, str] | None = None,
    platform: str | None = None,
) -> Path:
    """rami-lan's per-user folder of one kind on this platform.

    ``$override_var`` wins when set. ``windows`` is ``(variable, fallback under
    AppData)``, e.g. ``("APPDATA", "Roaming")``; ``xdg`` is ``(variable, fallback under
    the home folder)``, e.g. ``("XDG_CONFIG_HOME", ".config")``, used on Linux and other
    Unixes (on every platform when ``xdg_first`` and the variable is set). macOS uses
    ``~/Library/Application Support``.
    """
    env = os.environ if environ is None else environ
    plat = sys.platform if platform is None else platform
    if env.get(override_var):
        return Path(env[override_var])
    xdg_var, xdg_fallback = xdg
    if xdg_first and env.get(xdg_var):
        return Path(env[xdg_var]) / APP_NAME
    home = Path(env.get("HOME") or env.get("USERPROFILE") or Path.home())
    if plat.startswith("win"):
        win_var, win_fallback = windows
        base = env.get(win_var)
        return Path(base) / APP_NAME if base else home / "AppData" / win_fallback / APP_NAME
    if plat == "darwin":
        return home / "Library" / "Application Support" / APP_NAME
    base = env.get(xdg_var)
    return (Path(base) if base else home / xdg_fallback) / APP_NAME


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
