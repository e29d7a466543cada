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
        clean = "".join(ch for ch in text if ch.isprintable())
        self.values[f.key] = (str(self.values.get(f.key, "")) + clean)[: f.max_len]

    def backspace(self) -> None:
        f = self.current()
        if f is not None and f.choices is None:
            self.values[f.key] = str(self.values.get(f.key, ""))[:-1]

    def value_text(self, f: Field) -> str:
        val = self.values.get(f.key)
        if f.choices is None:
            return str(val or "")
        for v, t in f.choices():
            if v == val:
                return t
        return str(val)
