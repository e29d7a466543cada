"""The one place that knows rami-lan's per-user folders, and keeps them private.

Theory of operation
-------------------
Folders come from ``platformdirs`` (XDG on Linux and other Unixes, ``~/Library/...`` on
macOS, ``AppData`` on Windows); an environment variable overrides each one (tests and
portable installs point them at a folder of their own):

============  ========================  =====================================================
folder        override                  default (Linux; see platformdirs for the others)
============  ========================  =====================================================
config        ``$RAMI_LAN_CONFIG_DIR``  ``$XDG_CONFIG_HOME/rami-lan`` (``~/.config/rami-lan``)
data          ``$RAMI_LAN_DATA_DIR``    ``$XDG_DATA_HOME/rami-lan`` (``~/.local/share/...``)
log           ``$RAMI_LAN_LOG_DIR``     ``$RAMI_LAN_DATA_DIR`` if set, else
                                        ``$XDG_STATE_HOME/rami-lan/log``
============  ========================  =====================================================

What lives where: settings, profile, the host's TLS identity (``host_tls.pem``), the
journal key (``journal.key``) and the crash journals (``tables/``) in *config*; statistics
in *data*; the log in *log*. Windows keeps *config* in the roaming profile (``APPDATA``),
*data* and *log* in ``LOCALAPPDATA``.

:func:`private_dir` makes a folder (and tightens an existing one) to mode 0700;
:func:`private_file` tightens a file to 0600. Both are no-ops where POSIX modes do not
exist. This module imports nothing from the package, so every layer may use it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Final

import platformdirs

__all__ = [
    "APP_NAME",
    "ENV_CONFIG",
    "ENV_DATA",
    "ENV_LOG",
    "config_dir",
    "data_dir",
    "journal_dir",
    "log_dir",
    "private_dir",
    "private_file",
]

APP_NAME: Final = "rami-lan"
ENV_CONFIG: Final = "RAMI_LAN_CONFIG_DIR"
ENV_DATA: Final = "RAMI_LAN_DATA_DIR"
ENV_LOG: Final = "RAMI_LAN_LOG_DIR"
JOURNALS: Final = "tables"


def _override(var: str, environ: Mapping[str, str] | None) -> Path | None:
    env = os.environ if environ is None else environ
    value = env.get(var)
    return Path(value) if value else None


def config_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Settings, profile, the host's identity and journals."""
    return _override(ENV_CONFIG, environ) or platformdirs.user_config_path(
        APP_NAME, appauthor=False, roaming=True
    )


def data_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Statistics."""
    return _override(ENV_DATA, environ) or platformdirs.user_data_path(APP_NAME, appauthor=False)


def log_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The log file (``rami-lan.log`` and its rotated copies)."""
    return (
        _override(ENV_LOG, environ)
        or _override(ENV_DATA, environ)
        or platformdirs.user_log_path(APP_NAME, appauthor=False)
    )


def journal_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where hosts keep their crash journals: ``config_dir()/tables``."""
    return config_dir(environ) / JOURNALS


def private_dir(path: Path) -> Path:
    """Create ``path`` (and missing parents) with mode 0700; tighten it if it is looser.

    Only ``path`` itself is tightened, never its parents (``~/.config`` is not ours).
    Returns ``path``.
    """
    path = Path(path)
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if os.name == "posix":
        try:
            if path.stat().st_mode & 0o077:
                os.chmod(path, 0o700)
        except OSError:
            pass
    return path


def private_file(path: Path) -> Path:
    """Tighten an existing file to mode 0600 if group or others may read it."""
    path = Path(path)
    if os.name == "posix":
        try:
            if path.stat().st_mode & 0o077:
                os.chmod(path, 0o600)
        except OSError:
            pass
    return path
