"""A table screen showing a snapshot scene (`ui_scenes`), for mouse tests.

The scene is a seeded table in the middle of a round, our turn, play phase: at the
``rami`` scene the 8♠ in the hand goes at the low end of table meld 2 (``9♠ 10♠ (J♠)
Q♠``). `SceneSession` records the actions the screen sends (and, run as a script for
tmux, writes them to a file), so a test can check what a drag did.

    python tests/ui_drag_scene.py ACTIONS_FILE [variant]
"""

from __future__ import annotations

import asyncio
import copy
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ui_scenes  # noqa: E402


class SceneSession:
    """Just enough of a `TableSession` for a screen showing a fixed scene."""

    def __init__(self, model: Any, log: Path | None = None) -> None:
        self.seat = model.seat
        self.variant = model.variant
        self.table_id = b""
        self.match_no = 1
        self.bot = False
        self.table = dict(model.table)
        self.acts: list[Any] = []
        self.log = log
        self._done: asyncio.Event | None = None

    @property
    def started(self) -> bool:
        return True

    @property
    def match_id(self) -> str:
        return "scene"

    @property
    def state(self) -> None:
        return None

    async def start(self) -> None:
        return None

    async def updates(self):  # type: ignore[no-untyped-def]
        self._done = self._done or asyncio.Event()
        await self._done.wait()
        return
        yield  # an async generator that gives nothing until closed

    async def act(self, action: Any) -> None:
        self.acts.append(action)
        if self.log is not None:
            with self.log.open("a", encoding="utf-8") as f:
                f.write(repr(action) + "\n")

    async def next_round(self, choice: str) -> None:
        return None

    async def close(self) -> None:
        if self._done is not None:
            self._done.set()

    async def send_chat(self, text: str) -> None:
        return None


def scene_screen(variant: str = "rami", lang: str = "en", log: Path | None = None):  # type: ignore[no-untyped-def]
    """(shell, screen, session): a table screen showing the scene of ``variant``."""
    from rami_lan.cli.ui.shell import Shell
    from rami_lan.cli.ui.table_screen import TableScreen
    from rami_lan.i18n import set_language

    scene = copy.deepcopy(ui_scenes.table_model(variant, lang))
    set_language(lang)
    session = SceneSession(scene, log)
    shell = Shell()
    screen = TableScreen(session, on_leave=shell.exit, stats=None)
    screen.model.__dict__.update(scene.__dict__)
    shell.show(screen)
    return shell, screen, session


def main() -> int:
    log = Path(sys.argv[1])
    variant = sys.argv[2] if len(sys.argv) > 2 else "rami"
    shell, _screen, _session = scene_screen(variant, "en", log)
    return shell.run()


if __name__ == "__main__":
    raise SystemExit(main())
