"""Formatted-text building blocks shared by every screen, and the screen size (no rules
imports: fast)."""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.application import get_app
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType

Fragment = tuple  # (style, text) or (style, text, mouse handler)


def screen_size() -> tuple[int, int]:
    """The running application's screen (columns, rows), at least 40 x 12; 80 x 24 when
    there is none (tests rendering directly)."""
    try:
        s = get_app().output.get_size()
        return max(40, s.columns), max(12, s.rows)
    except Exception:  # noqa: BLE001 - no app (tests rendering directly)
        return 80, 24


def on_click(fn: Callable[[], None]) -> Callable[[MouseEvent], object]:
    """A mouse handler acting on mouse-up (press is swallowed)."""
    return _mouse_handler(fn, None)


def on_click_or_scroll(
    fn: Callable[[], None] | None, scroll: Callable[[int], None]
) -> Callable[[MouseEvent], object]:
    """Mouse-up runs ``fn`` (if any); the wheel calls ``scroll(-1)`` / ``scroll(1)``."""
    return _mouse_handler(fn, scroll)


def _mouse_handler(
    fn: Callable[[], None] | None, scroll: Callable[[int], None] | None
) -> Callable[[MouseEvent], object]:
    """Mouse-up runs ``fn`` (if any), a press is swallowed; with ``scroll``, the wheel
    calls it (-3 up, 3 down); anything else is NotImplemented (passed on)."""

    def handler(ev: MouseEvent) -> object:
        if scroll is not None and ev.event_type == MouseEventType.SCROLL_UP:
            scroll(-3)
            return None
        if scroll is not None and ev.event_type == MouseEventType.SCROLL_DOWN:
            scroll(3)
            return None
        if ev.event_type == MouseEventType.MOUSE_UP and fn is not None:
            fn()
            return None
        if ev.event_type == MouseEventType.MOUSE_DOWN:
            return None
        return NotImplemented

    return handler


class Lines:
    """Accumulates fragments line by line and tracks the current width."""

    def __init__(self) -> None:
        self.frags: list[Fragment] = []
        self.col = 0
        self.rows = 0

    def add(
        self, style: str, text: str, handler: Callable[[MouseEvent], object] | None = None
    ) -> None:
        if not text:
            return
        self.frags.append((style, text, handler) if handler else (style, text))
        self.col += len(text)

    def nl(self) -> None:
        self.frags.append(("", "\n"))
        self.col = 0
        self.rows += 1


def fragments_text(frags: list[Fragment]) -> str:
    """The plain text of fragments (for tests and tmux-like assertions)."""
    return "".join(f[1] for f in frags)
