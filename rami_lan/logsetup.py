"""rami-lan's log: one private, size-capped file, with foreign text clipped and floods damped.

Theory of operation
-------------------
A peer on the LAN can make the host log (a bad frame, a wrong code, a reconnect...). Three
things keep what it can write small, whatever it sends:

- :class:`ClipFilter` rewrites every record before it is formatted: each argument that is
  not a number goes through :func:`rami_lan.textsafe.clip` (printable, at most
  :data:`MAX_ARG` characters, computed in O(limit)), and the template itself is cut at
  :data:`MAX_TEMPLATE`. :class:`CappedFormatter` cuts the formatted line (traceback
  included) at :data:`MAX_LINE` characters.
- :class:`FloodFilter` lets at most :data:`LINES_PER_WINDOW` lines per
  :data:`WINDOW` seconds through *per message template* (``record.msg`` before the
  arguments, so "protocol error from %s: %s" is one template whoever sends it); the rest
  are dropped and counted, and the next line of that template let through says
  ``[k similar lines suppressed]``. At most :data:`MAX_TEMPLATES` templates are tracked
  (the oldest forgotten first). Warnings and errors are damped the same way.
- :func:`file_handler` is a :class:`logging.handlers.RotatingFileHandler` of
  :data:`MAX_BYTES` per file and :data:`BACKUPS` old files (so at most
  ``MAX_BYTES * (BACKUPS + 1)`` bytes on disk), created 0600 in a 0700 folder.

:func:`setup` installs all of it on the root logger once per process (``rami-lan``'s
``main`` calls it); tests build the pieces directly.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Final

from rami_lan.textsafe import clip

__all__ = [
    "BACKUPS",
    "LINES_PER_WINDOW",
    "LOG_FILE",
    "MAX_ARG",
    "MAX_BYTES",
    "MAX_LINE",
    "WINDOW",
    "CappedFormatter",
    "ClipFilter",
    "FloodFilter",
    "file_handler",
    "setup",
]

LOG_FILE: Final = "rami-lan.log"
MAX_BYTES: Final = 1024 * 1024
"""Size of one log file before it is rotated."""
BACKUPS: Final = 3
"""Rotated files kept (``rami-lan.log.1`` .. ``.3``): at most 4 MiB of log in all."""
MAX_ARG: Final = 200
"""Characters kept of one argument of a log line (a nickname, an error text...)."""
MAX_TEMPLATE: Final = 500
MAX_LINE: Final = 8192
"""Characters kept of one formatted line, traceback included."""
LINES_PER_WINDOW: Final = 20
WINDOW: Final = 60.0
MAX_TEMPLATES: Final = 1024

_MARK = "_rami_lan"


class ClipFilter(logging.Filter):
    """Clips every non-numeric argument of a record, and its template, in O(limit)."""

    def __init__(self, limit: int = MAX_ARG) -> None:
        super().__init__()
        self.limit = limit

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "_rami_clipped", False):
            return True
        args = record.args
        if isinstance(args, tuple):
            record.args = tuple(self._clip(a) for a in args[:50])
        elif isinstance(args, dict):
            record.args = {k: self._clip(v) for k, v in list(args.items())[:50]}
        msg = record.msg
        if not isinstance(msg, str):
            record.msg = clip(msg, MAX_TEMPLATE)
        elif len(msg) > MAX_TEMPLATE:
            # A long template (not from the network): merge it now and cut the result.
            try:
                text = record.getMessage()
            except Exception:  # noqa: BLE001 - a bad template must not break logging
                text = msg
            record.msg, record.args = text[: MAX_TEMPLATE - 1] + "…", None
        record._rami_clipped = True  # type: ignore[attr-defined]
        return True

    def _clip(self, value: object) -> object:
        if type(value) in (int, float, bool) or value is None:
            return value
        return clip(value, self.limit)


class FloodFilter(logging.Filter):
    """At most ``lines`` records per ``window`` seconds per message template.

    Synchronous and clock-injectable (``clock`` defaults to :func:`time.monotonic`).
    """

    def __init__(
        self,
        lines: int = LINES_PER_WINDOW,
        window: float = WINDOW,
        *,
        max_templates: int = MAX_TEMPLATES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        if lines < 1 or not window > 0 or max_templates < 1:
            raise ValueError("lines, window and max_templates must be positive")
        self.lines = lines
        self.window = window
        self.max_templates = max_templates
        self._clock = clock
        # template -> [window start, lines let through in it, lines suppressed since]
        self._seen: OrderedDict[tuple[str, str], list[float]] = OrderedDict()
        self.suppressed_total = 0

    def filter(self, record: logging.LogRecord) -> bool:
        msg = getattr(record, "_rami_template", None)
        if msg is None:
            msg = record.msg if isinstance(record.msg, str) else type(record.msg).__name__
            record._rami_template = msg  # type: ignore[attr-defined]
        key = (record.name, msg[:MAX_TEMPLATE])
        now = self._clock()
        state = self._seen.get(key)
        if state is None:
            state = [now, 0.0, 0.0]
            self._seen[key] = state
            while len(self._seen) > self.max_templates:
                self._seen.popitem(last=False)
        else:
            self._seen.move_to_end(key)
        if now - state[0] >= self.window:
            state[0], state[1] = now, 0.0
        if state[1] >= self.lines:
            state[2] += 1
            self.suppressed_total += 1
            return False
        state[1] += 1
        if state[2]:
            record.msg = f"[{int(state[2])} similar lines suppressed] {msg}"
            state[2] = 0.0
        return True


class CappedFormatter(logging.Formatter):
    """A formatter whose output (traceback included) is at most ``limit`` characters."""

    def __init__(self, fmt: str | None = None, limit: int = MAX_LINE) -> None:
        super().__init__(fmt or "%(asctime)s %(levelname)s %(name)s: %(message)s")
        self.limit = limit

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        if len(text) > self.limit:
            text = text[: self.limit - 1] + "…"
        return text


class _PrivateRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """A rotating file handler whose files are created (and kept) with mode 0600."""

    def _open(self):  # type: ignore[no-untyped-def]
        fd = os.open(self.baseFilename, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        if os.name == "posix":
            try:
                os.fchmod(fd, 0o600)
            except OSError:
                pass
        return os.fdopen(fd, "a", encoding=self.encoding, errors=self.errors)


def file_handler(
    folder: Path, *, max_bytes: int = MAX_BYTES, backups: int = BACKUPS
) -> logging.Handler:
    """A handler writing ``folder/rami-lan.log`` (0600, ``folder`` 0700), rotated at
    ``max_bytes`` with ``backups`` old files, with :class:`ClipFilter`,
    :class:`FloodFilter` and :class:`CappedFormatter` installed."""
    from rami_lan.paths import private_dir

    private_dir(folder)
    handler = _PrivateRotatingFileHandler(
        folder / LOG_FILE, maxBytes=max_bytes, backupCount=backups, encoding="utf-8",
        delay=True,
    )
    install_filters(handler)
    return handler


def install_filters(handler: logging.Handler) -> logging.Handler:
    """Put the clip and flood filters and the capped formatter on ``handler``."""
    handler.addFilter(ClipFilter())
    handler.addFilter(FloodFilter())
    handler.setFormatter(CappedFormatter())
    return handler


def setup(full_screen: bool, folder: Path | None = None) -> None:
    """Log to the log folder; warnings also to stderr unless the full-screen UI owns the
    terminal (a stray line would tear the screen apart). Once per process."""
    root = logging.getLogger()
    if any(getattr(h, _MARK, False) for h in root.handlers):
        return  # configured already (main() called twice in one process, as in tests)
    root.setLevel(logging.INFO)
    try:
        from rami_lan.paths import log_dir

        handler = file_handler(folder if folder is not None else log_dir())
        setattr(handler, _MARK, True)
        root.addHandler(handler)
    except OSError:
        pass
    if full_screen:
        logging.lastResort = None
    else:
        err = logging.StreamHandler()
        err.setLevel(logging.WARNING)
        install_filters(err)
        setattr(err, _MARK, True)
        root.addHandler(err)
