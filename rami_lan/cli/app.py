"""The interactive program: the lobby (``rami-lan`` with no command) and the table app.

`run(args)` opens the lobby; `run_table_app(session, settings)` shows one table and
returns when the player leaves it (used by ``rami-lan solo``).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rami_lan.cli.settings import Settings, load_settings, save_settings
from rami_lan.i18n import _, set_language

if TYPE_CHECKING:
    from rami_lan.net.table_session import TableSession

NO_BROWSE_ENV = "RAMI_LAN_NO_BROWSE"
"""Set to 1 to open the lobby without looking for tables (benchmarks, offline use)."""


def apply_settings_language(args: argparse.Namespace, settings: Settings) -> None:
    """``--lang`` wins; otherwise the saved language; otherwise the locale (main.py)."""
    if getattr(args, "lang", None):
        return
    if settings.lang:
        set_language(settings.lang)


NOT_A_TERMINAL = 2
"""Exit status of a full-screen command whose input is not a terminal."""


def terminal_missing() -> bool:
    """True, after saying so on stderr, when standard input is not a terminal: the
    full-screen UI would stop at once with prompt_toolkit's ``EOFError`` traceback
    (``rami-lan solo < /dev/null``, a pipe, a service). ``host`` and ``join`` have a
    line-based client for that case; the lobby, solo and replay do not."""
    try:
        tty = sys.stdin is not None and sys.stdin.isatty()
    except (ValueError, OSError):  # closed or detached stdin
        tty = False
    if not tty:
        print(_("This command shows the game full screen: run it in a terminal (its input "
                "is not one). Without a terminal: rami-lan host / join, or simulate."),
              file=sys.stderr)
    return not tty


async def run_table_screen(session: TableSession, settings: Settings,
                           intro: Sequence[str] = ()) -> int:
    """Show the table screen for ``session`` on the running event loop (the loop that
    owns the session's network tasks) until the player leaves; ``intro``: lines shown
    while waiting for the table (the host's port and join code)."""
    if terminal_missing():
        return NOT_A_TERMINAL
    from rami_lan.cli.ui.shell import Shell
    from rami_lan.cli.ui.table_screen import TableScreen

    shell = Shell()
    screen = TableScreen(session, four_colour=settings.four_colour, on_leave=shell.exit,
                         profile=_profile(), intro=intro, settings=settings,
                         save_settings=save_settings)
    shell.show(screen)
    # SIGTERM / SIGHUP leave the screen (the caller's ``finally`` then says goodbye).
    return await shell.run_async()


def _profile() -> object:
    """The local profile (nickname, player id) for "Info joueur"; None if unreadable."""
    try:
        from rami_lan.profile import load_profile

        return load_profile()
    except Exception:  # noqa: BLE001 - never stop a game for the profile
        return None


def run_table_app(session: TableSession, settings: Settings) -> int:
    if terminal_missing():
        return NOT_A_TERMINAL
    from rami_lan.cli.ui.shell import Shell
    from rami_lan.cli.ui.table_screen import TableScreen

    shell = Shell()
    screen = TableScreen(session, four_colour=settings.four_colour, on_leave=shell.exit,
                         profile=_profile(), settings=settings, save_settings=save_settings)
    shell.show(screen)
    return shell.run()


def run(args: argparse.Namespace) -> int:
    from rami_lan.cli.ui.lobby import Lobby
    from rami_lan.cli.ui.shell import Shell

    settings = load_settings()
    apply_settings_language(args, settings)
    if terminal_missing():
        return NOT_A_TERMINAL
    from rami_lan.cli.own_card import open_session_with_card

    shell = Shell()
    if os.environ.get(NO_BROWSE_ENV):  # no tables, no presence, no invitations
        lobby = Lobby(shell, settings, browser_factory=None, presence=False,
                      open_session=open_session_with_card)
    else:
        lobby = Lobby(shell, settings, open_session=open_session_with_card)
    shell.show(lobby)

    async def main() -> int:
        try:
            return await shell.run_async()
        finally:  # also after SIGTERM / SIGHUP: the table opened here says goodbye
            await lobby.aclose()

    import asyncio

    return asyncio.run(main())
