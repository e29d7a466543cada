"""Dragging a card with the mouse: `DragControl`, the table's text control (a button
released over nothing a card can be dropped on ends the drag), and `CardDragging`, the
`rami_lan.cli.ui.render.Drags` half of `TableScreen` (press on a hand card, hover, drop
in the hand, on a meld or one of its ends, or on the discard pile).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from prompt_toolkit.layout import FormattedTextControl
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType

from rami_lan.core import actions as A


class DragControl(FormattedTextControl):
    """The table's text control: a mouse button released over nothing a card can be
    dropped on (a blank cell, a button) ends a drag without doing anything there."""

    def __init__(self, screen: CardDragging, fragments: Callable[[], Any]) -> None:
        super().__init__(fragments, focusable=True, show_cursor=False)
        self.screen = screen

    def _handler_at(self, ev: MouseEvent) -> Any:
        try:
            from prompt_toolkit.formatted_text.utils import split_lines

            line = list(split_lines(self._fragments or []))[ev.position.y]
        except IndexError:
            return None
        count = 0
        for item in line:
            count += len(item[1])
            if count > ev.position.x:
                return item[2] if len(item) >= 3 else None
        return None

    def mouse_handler(self, mouse_event: MouseEvent) -> Any:
        screen = self.screen
        if mouse_event.event_type == MouseEventType.MOUSE_DOWN and getattr(
                self._handler_at(mouse_event), "drop_target", None) is None:
            screen.model.drag_index = screen.model.drag_over = None  # a stale drag ends
        if screen.model.drag_index is not None and mouse_event.event_type in (
                MouseEventType.MOUSE_UP, MouseEventType.MOUSE_MOVE):
            if getattr(self._handler_at(mouse_event), "drop_target", None) is None:
                if mouse_event.event_type == MouseEventType.MOUSE_UP:
                    screen.drag_cancel()
                    return None
                if screen.model.drag_over is not None:  # left a target: redraw once
                    screen.model.drag_over = None
                    return None
                return NotImplemented  # nothing changed: no new frame
        return super().mouse_handler(mouse_event)


class CardDragging:
    """Mouse drags for `TableScreen` (which gives ``model``, ``send``, ``out_of_turn``,
    the clicks and ``_invalidate``)."""

    model: Any
    _quit_armed: bool

    if TYPE_CHECKING:  # given by `TableScreen`
        def send(self, action: A.Action | None) -> None: ...
        def out_of_turn(self, key: str) -> None: ...
        def card(self, index: int) -> None: ...
        def meld(self, index: int) -> None: ...
        def meld_end(self, index: int, end: str) -> None: ...
        def discard(self, depth: int) -> None: ...
        def _invalidate(self) -> None: ...

    def press(self, target: tuple) -> None:
        """Mouse button down: on a hand card it may start a drag."""
        m = self.model
        m.drag_index = target[1] if target[0] == "card" and 0 <= target[1] < len(m.hand) else None
        m.drag_over = target if m.drag_index is not None else None

    def hover(self, target: tuple) -> bool:
        """The mouse moves over ``target``: True when the screen must be redrawn."""
        m = self.model
        if m.drag_index is None or m.drag_over == target:
            return False
        m.drag_over = target
        return True

    def drag_cancel(self) -> None:
        self.model.drag_index = None
        self.model.drag_over = None
        self._invalidate()

    def release(self, target: tuple) -> None:
        """Mouse button up over ``target``: a click there, or the drop of a dragged card
        (another place in the hand, a table meld or one of its ends, the discard pile)."""
        m = self.model
        src, m.drag_index, m.drag_over = m.drag_index, None, None
        kind = target[0]
        if src is None or (kind == "card" and target[1] == src):
            self._click(target)
            return
        card = m.hand[src] if 0 <= src < len(m.hand) else None
        if card is None:
            return
        self._quit_armed = False
        m.confirm = None
        if m.error_local:
            m.error, m.error_local = None, False
        v = m.view
        if kind == "card":
            m.move_to(src, target[1])
        elif kind == "meld":
            if v is None or not v.my_turn or v.phase != "play":
                self.out_of_turn("o")
            else:
                m.target = target[1]
                if target[2] in ("low", "high"):
                    m.end = target[2]
                self.send(m.layoff_at(card, target[1], target[2]))
        elif kind == "discard":
            if v is None or not v.my_turn or v.phase != "play":
                self.out_of_turn("x")
            else:
                self.send(A.Discard(m.seat, card))
        self._invalidate()

    def _click(self, target: tuple) -> None:
        kind = target[0]
        if kind == "card":
            self.card(target[1])
        elif kind == "meld":
            if target[2] is None:
                self.meld(target[1])
            else:
                self.meld_end(target[1], target[2])
        elif kind == "discard" and target[1] > 0:
            self.discard(target[1])
        self._invalidate()
