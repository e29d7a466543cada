"""One prompt_toolkit Application showing one screen at a time (lobby, form, table).

A screen has a ``container``, ``key_bindings``, a focusable ``focus`` window and an
``attach(shell)`` hook called when it is shown (to start its background tasks).
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any, Protocol

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import DynamicKeyBindings, KeyBindings
from prompt_toolkit.layout import (
    ConditionalContainer,
    DynamicContainer,
    Float,
    FormattedTextControl,
    Layout,
    Window,
)
from prompt_toolkit.layout.containers import Container
from prompt_toolkit.widgets import Frame

from rami_lan.cli.ui.styles import STYLE

ESC_WAIT = 0.05


class Screen(Protocol):
    container: Container
    key_bindings: KeyBindings
    focus: Window

    def attach(self, shell: Shell) -> None: ...


def screen_window(fragments: Callable[[], Any]) -> tuple[FormattedTextControl, Window]:
    """A screen's focusable full-size window drawing ``fragments()``, and its control."""
    control = FormattedTextControl(fragments, focusable=True, show_cursor=False)
    return control, Window(control, wrap_lines=False, always_hide_cursor=True)


def popup(
    content: Callable[[], Any],
    title: Callable[[], str],
    visible: Callable[[], bool],
    *,
    margin: tuple[int, int] = (4, 2),
    wrap_lines: bool = True,
    fit: bool = False,
) -> Float:
    """A framed text window over a screen, shown while ``visible()``.

    ``content()`` gives its text (or fragments); ``margin`` is (left and right, top and
    bottom) in cells. ``fit``: the box takes the size of its content, centred.
    """
    side, top = margin
    if fit:
        return Float(
            ConditionalContainer(
                Frame(
                    Window(FormattedTextControl(content), wrap_lines=wrap_lines,
                           style="class:help", dont_extend_width=True,
                           dont_extend_height=True),
                    title=title,
                ),
                filter=Condition(visible),
            ),
        )
    return Float(
        ConditionalContainer(
            Frame(
                Window(FormattedTextControl(content), wrap_lines=wrap_lines, style="class:help"),
                title=title,
            ),
            filter=Condition(visible),
        ),
        left=side,
        right=side,
        top=top,
        bottom=top,
    )


GC_THRESHOLD = (50_000, 50, 1000)
"""The full-screen UI's garbage-collector thresholds. With the defaults (700, 10, 10) a
collection of the older generations lands on a key every few dozen frames and was the
whole p99 of key -> frame (70-90 ms against a 17-21 ms median, benchmarks/ui.py; 21 ms
with the collector off). Almost everything is freed by reference counting; the rare
cycles wait a little longer."""


def tune_gc() -> None:
    """Move what the program built so far (modules, catalogues, the card table) out of
    the collector's sight (`gc.freeze`) and collect less often: once per process."""
    if gc.get_threshold() != GC_THRESHOLD:
        gc.freeze()
        gc.set_threshold(*GC_THRESHOLD)


class Shell:
    """The application: ``show(screen)`` switches what is on screen."""

    def __init__(self) -> None:
        tune_gc()
        self.screen: Screen | None = None
        self.result: int = 0
        self._empty = Window()
        self._pending: Screen | None = None
        self.app: Application[int] = Application(
            layout=Layout(DynamicContainer(self._container)),
            key_bindings=DynamicKeyBindings(self._bindings),
            full_screen=True,
            mouse_support=True,
            style=STYLE,
            refresh_interval=None,  # screens with a clock invalidate when it changes
        )
        # Esc alone is read after this pause (an escape sequence arrives at once): the
        # default half second made Esc feel slow.
        self.app.ttimeoutlen = ESC_WAIT

    def _container(self) -> Container:
        return self.screen.container if self.screen is not None else self._empty

    def _bindings(self) -> KeyBindings | None:
        return self.screen.key_bindings if self.screen is not None else None

    def show(self, screen: Screen) -> None:
        """Put ``screen`` on display (its tasks start once the app runs)."""
        self.screen = screen
        self._pending = screen
        if self.app.is_running:
            self._attach()
        elif self._attach not in self.app.pre_run_callables:
            self.app.pre_run_callables.append(self._attach)
        try:
            self.app.layout.focus(screen.focus)
        except ValueError:
            pass
        self.app.invalidate()

    def _attach(self) -> None:
        screen, self._pending = self._pending, None
        if screen is not None:
            screen.attach(self)

    def run(self) -> int:
        """Run the screens until they exit; SIGTERM/SIGHUP leave as a key press would
        (the lobby's presence ad and a table's connection then say goodbye)."""
        return int(self.app.run(pre_run=self._on_start) or 0)

    async def run_async(self) -> int:
        return int(await self.app.run_async(pre_run=self._on_start) or 0)

    def _on_start(self) -> None:
        import asyncio

        from rami_lan.net.signals import install_shutdown

        try:
            install_shutdown(asyncio.get_running_loop(), stop=lambda: self.exit(130))
        except (RuntimeError, ValueError):  # not the main thread (tests): keep defaults
            pass

    def exit(self, code: int = 0) -> None:
        if self.app.is_running and not self.app.future.done():  # type: ignore[union-attr]
            self.app.exit(result=code)
