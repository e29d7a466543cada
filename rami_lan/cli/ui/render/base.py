"""What the table's renderers share: the `Clicks` and `Drags` protocols the table screen
implements, the mouse handler of a drop target, and the small words (cards, points)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from prompt_toolkit.mouse_events import MouseEvent, MouseEventType

from rami_lan.cli.ui.layout import Row
from rami_lan.cli.ui.model import TableModel
from rami_lan.cli.ui.text import on_click
from rami_lan.i18n import ngettext


class Clicks(Protocol):
    """What a click on the table does (the table screen implements it)."""

    def card(self, index: int) -> None: ...
    def stock(self) -> None: ...
    def discard(self, depth: int) -> None: ...
    def meld(self, index: int) -> None: ...
    def button(self, name: str) -> None: ...
    def player(self, seat: int) -> None: ...
    def meld_end(self, index: int, end: str) -> None: ...
    def scroll(self, delta: int) -> None: ...


class Drags(Protocol):
    """Dragging with the mouse (the table screen implements it next to `Clicks`).

    A target is ``("card", i)``, ``("meld", i, end)`` (``end``: "low" / "high" / None
    for the meld's body) or ``("discard", depth)`` (0: the pile as a whole)."""

    def press(self, target: tuple) -> None: ...
    def hover(self, target: tuple) -> bool: ...
    def release(self, target: tuple) -> None: ...


def _dragged_over(model: TableModel, kind: str, index: int) -> bool:
    """A card is being dragged over this meld (or discard pile, index 0)."""
    over = model.drag_over
    return model.drag_index is not None and over is not None and over[0] == kind and (
        kind == "discard" or over[1] == index)


def drag_target(clicks: Clicks | None, target: tuple, click: Callable[[], None] | None):  # type: ignore[no-untyped-def]
    """A mouse handler for something a card can be dragged from or dropped on.

    Without drag support (``clicks`` has no ``press``) it is a plain click on mouse-up.
    The handler carries ``drop_target`` so the screen tells it from other handlers."""
    if clicks is None:
        return None
    if not callable(getattr(type(clicks), "press", None)):  # a Clicks without drags
        return on_click(click) if click is not None else None
    press = clicks.press  # type: ignore[attr-defined]

    def handler(ev: MouseEvent) -> object:
        t = ev.event_type
        if t == MouseEventType.MOUSE_DOWN:
            press(target)
            return None
        if t == MouseEventType.MOUSE_MOVE:
            return None if clicks.hover(target) else NotImplemented  # type: ignore[attr-defined]
        if t == MouseEventType.MOUSE_UP:
            clicks.release(target)  # type: ignore[attr-defined]
            return None
        return NotImplemented

    handler.drop_target = target  # type: ignore[attr-defined]
    return handler


def _h(clicks: Clicks | None, fn: Callable[[], None]):  # type: ignore[no-untyped-def]
    return on_click(fn) if clicks is not None else None


def cards_count(n: int) -> str:
    return ngettext("{n} card", "{n} cards", n).format(n=n)


def points_text(n: int) -> str:
    return ngettext("{n} pt", "{n} pts", n).format(n=n)


def _joined(parts: list[tuple[str, str]], sep: str = " · ") -> Row:
    row: Row = []
    for i, (style, text) in enumerate(parts):
        if i:
            row.append(("class:dim", sep))
        row.append((style, text))
    return row
