"""Helpers for the in-process UI tests: run the app on a pipe, send keys and clicks."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from aio_helpers import until
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from rami_lan.cli.ui.shell import Shell


@dataclass
class Driver:
    shell: Shell
    inp: object

    def keys(self, text: str) -> None:
        self.inp.send_text(text)  # type: ignore[attr-defined]

    async def settle(self) -> None:
        """Wait for a fresh frame, so clicks hit what the model shows now."""
        app = self.shell.app
        seen = app.render_counter
        app.invalidate()
        await until(lambda: app.render_counter > seen, 5, "a new frame")

    async def press_until(self, key: str, read: Callable[[], object], target: object,
                          tries: int = 6) -> None:
        """Press ``key`` one at a time, each time waiting until what ``read`` returns
        changes, until it is ``target`` (at most ``tries`` presses)."""
        for _ in range(tries):
            before = read()
            if before == target:
                return
            self.keys(key)
            await until(lambda b=before: read() != b, 5, f"{key!r} to change {before!r}")
        assert read() == target, f"{tries} presses of {key!r} did not reach {target!r}"

    def click(self, row: int, col: int) -> None:
        """SGR mouse press + release at 0-based ``row``, ``col``."""
        self.keys(f"\x1b[<0;{col + 1};{row + 1}M\x1b[<0;{col + 1};{row + 1}m")


def locate(frags: list, pred: Callable[[str], bool]) -> tuple[int, int] | None:
    """(row, col) of the first fragment whose text satisfies ``pred``."""
    row = col = 0
    for f in frags:
        text = f[1]
        if pred(text):
            return row, col
        for ch in text:
            if ch == "\n":
                row, col = row + 1, 0
            else:
                col += 1
    return None


def locate_style(frags: list, cls: str) -> tuple[int, int] | None:
    """(row, col) of the first fragment whose style holds the class ``cls``."""
    return _find(frags, lambda f: cls in f[0].split())


def _find(frags: list, pred: Callable[[tuple], bool]) -> tuple[int, int] | None:
    row = col = 0
    for f in frags:
        if pred(f) and f[1].strip():
            return row, col
        for ch in f[1]:
            if ch == "\n":
                row, col = row + 1, 0
            else:
                col += 1
    return None


@contextlib.asynccontextmanager
async def running(make: Callable[[], Shell], timeout: float = 30.0) -> AsyncIterator[Driver]:
    """Build the app with ``make()`` on a pipe input and a dummy output; run it."""
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        shell = make()
        task = asyncio.ensure_future(asyncio.wait_for(shell.app.run_async(), timeout))
        await until(lambda: shell.app.is_running, 5, "app start")
        try:
            yield Driver(shell, inp)
        finally:
            if not task.done():
                shell.exit(0)
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait_for(task, 5)
