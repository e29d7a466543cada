"""Make text that came from the network safe for a terminal or a log line.

One home for the rule every layer applies to foreign strings (nicknames, TXT values,
table names, exception texts, protocol errors): no control characters or escape
sequences, and a hard length cap, computed in O(limit) whatever the input size.
It imports nothing from the package, so ``core``, ``table``, ``net`` and ``cli`` may
all use it.
"""

from __future__ import annotations

from reprlib import Repr

__all__ = ["clip", "safe_text", "safe_name"]

#: Default cap for one piece of foreign text in a log line or on screen.
DEFAULT_LIMIT = 200
_ELLIPSIS = "…"


def safe_text(value: object, limit: int = DEFAULT_LIMIT, *, replacement: str = " ") -> str:
    """Return ``value`` as printable text of at most ``limit`` characters.

    Non-strings are shown with ``repr`` (bytes included), control and other
    non-printable characters become ``replacement``, and a longer text is cut with an
    ellipsis. Only the first ``limit + 1`` characters of the input are ever looked at
    (a ``repr`` of a huge object is cut before cleaning too).
    """
    if limit <= 0:
        return ""
    text = value if isinstance(value, str) else _short_repr(value, limit)
    head = text[: limit + 1]
    cleaned = "".join(ch if ch.isprintable() else replacement for ch in head)
    if len(cleaned) > limit:
        return cleaned[: max(0, limit - 1)] + _ELLIPSIS
    return cleaned


def safe_name(value: object, limit: int = 24, fallback: str = "?") -> str:
    """A printable, stripped name (nickname, table name) or ``fallback`` when empty."""
    if not isinstance(value, str):
        return fallback
    text = "".join(ch for ch in value[: limit * 4] if ch.isprintable()).strip()[:limit].strip()
    return text or fallback


def clip(value: object, limit: int = DEFAULT_LIMIT) -> str:
    """Alias of :func:`safe_text` for log call sites: ``log.info("bad frame: %s", clip(err))``."""
    return safe_text(value, limit)


def _short_repr(value: object, limit: int) -> str:
    if isinstance(value, bytes | bytearray | memoryview):
        data = bytes(value[: limit])
        return repr(data) + ("…" if len(value) > limit else "")
    try:  # reprlib bounds containers and depth: a huge object is never fully rendered
        return _REPR.repr(value)[: limit + 1]
    except Exception:  # a hostile __repr__ must not break logging
        return f"<{type(value).__name__}>"


_REPR = Repr()
_REPR.maxstring = 400
_REPR.maxother = 400
_REPR.maxlevel = 3
