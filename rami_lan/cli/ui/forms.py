"""A small keyboard form: fields with choices or free text (new table, settings).

Labels and choice texts are callables so they follow the current language.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Choices = Callable[[], list[tuple[Any, str]]]


@dataclass
class Field:
    key: str
    label: Callable[[], str]
    choices: Choices | None = None  # None: a text field
    visible: Callable[[], bool] = lambda: True
    max_len: int = 24
    on_change: Callable[[], None] | None = None
    """Called after the value changed (e.g. a new variant resets the options it has not)."""


@dataclass
class Form:
    title: Callable[[], str]
    fields: list[Field]
    values: dict[str, Any] = field(default_factory=dict)
    index: int = 0
    submit_label: Callable[[], str] = lambda: "OK"
    cursor: int | None = None
    """Where typing goes in the current text field (None: at its end); ← → Home End move it."""

    def shown(self) -> list[Field]:
        return [f for f in self.fields if f.visible()]

    @property
    def on_submit(self) -> bool:
        """The cursor is on the submit button (after the last field)."""
        return self.index >= len(self.shown())

    def current(self) -> Field | None:
        fs = self.shown()
        return fs[self.index] if self.index < len(fs) else None

    def move(self, delta: int) -> None:
        n = len(self.shown()) + 1
        self.index = (self.index + delta) % n
        self.cursor = None

    def on_last_field(self) -> bool:
        """The cursor is on the last field shown (Enter there submits a short form)."""
        return self.index == len(self.shown()) - 1

    def _text(self) -> str:
        f = self.current()
        return str(self.values.get(f.key, "") or "") if f is not None else ""

    def text_cursor(self) -> int:
        """The typing position in the current text field."""
        n = len(self._text())
        return n if self.cursor is None else max(0, min(self.cursor, n))

    def move_text(self, delta: int) -> None:
        """← →: move the typing position in a text field."""
        if self.editing_text():
            self.cursor = max(0, min(len(self._text()), self.text_cursor() + delta))

    def text_home(self) -> None:
        if self.editing_text():
            self.cursor = 0

    def text_end(self) -> None:
        if self.editing_text():
            self.cursor = None

    def delete(self) -> None:
        """Delete: the character under the typing position."""
        f = self.current()
        if f is not None and f.choices is None:
            text, i = self._text(), self.text_cursor()
            self.values[f.key] = text[:i] + text[i + 1:]
            self.cursor = i

    def change(self, delta: int) -> None:
        f = self.current()
        if f is None or f.choices is None:
            return
        opts = [v for v, _t in f.choices()]
        if not opts:
            return
        cur = self.values.get(f.key)
        i = opts.index(cur) if cur in opts else 0
        self.values[f.key] = opts[(i + delta) % len(opts)]
        if f.on_change is not None:
            f.on_change()
        self.fix()

    def fix(self) -> None:
        """Values no longer offered (after another field changed) fall back to the first."""
        for f in self.fields:
            if f.choices is not None:
                opts = [v for v, _t in f.choices()]
                if opts and self.values.get(f.key) not in opts:
                    self.values[f.key] = opts[0]
        self.index = min(self.index, len(self.shown()))

    def editing_text(self) -> bool:
        f = self.current()
        return f is not None and f.choices is None

    def type_text(self, text: str) -> None:
        f = self.current()
        if f is None or f.choices is not None:
            return
        if text.startswith("\x1b"):
            return  # a key's escape sequence (one without a binding) is not text
        clean = "".join(ch for ch in text if ch.isprintable())
        cur, i = self._text(), self.text_cursor()
        room = max(0, f.max_len - len(cur))
        clean = clean[:room]
        self.values[f.key] = cur[:i] + clean + cur[i:]
        self.cursor = None if self.cursor is None else i + len(clean)

    def backspace(self) -> None:
        f = self.current()
        if f is not None and f.choices is None:
            text, i = self._text(), self.text_cursor()
            if i > 0:
                self.values[f.key] = text[: i - 1] + text[i:]
                self.cursor = None if self.cursor is None else i - 1

    def value_text(self, f: Field) -> str:
        val = self.values.get(f.key)
        if f.choices is None:
            return str(val or "")
        for v, t in f.choices():
            if v == val:
                return t
        return str(val)
