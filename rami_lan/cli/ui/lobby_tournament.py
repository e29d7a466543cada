"""The lobby's tournament entry: register at a tournament listed in the lobby, play its
tables in the table screen, read the standings and watch the final from the lobby.

A tournament is advertised like a table (docs/tournament.md); joining it from the lobby
is refused with code ``tournament``, and the lobby hands the ad to `register` here. The
registration runs in the background (`rami_lan.cli.tournament_join.join_tournament`,
the same checks of the draw as ``rami-lan join``); its lines become the lobby's message
(the last ones, most recent last); each table it is sent to opens the ordinary table
screen, with the standings so far as the screen's intro, and the tournament goes on
when the player leaves that screen at the match's end.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from rami_lan.i18n import _

__all__ = ["register"]

KEEP_LINES = 6


def register(lobby: Any, ad: Any, code: str | None) -> None:
    """Register at the tournament of ``ad`` from ``lobby`` (in the background)."""
    lobby.message = _("This is a tournament: registering...")

    async def guarded() -> None:
        try:
            await _run(lobby, ad, code)
        except Exception as exc:  # noqa: BLE001 - a failed tournament must not crash the lobby
            lobby.message = _("That did not work: {err}").format(err=exc)
        lobby._invalidate()

    lobby.shell.app.create_background_task(guarded())


async def _run(lobby: Any, ad: Any, code: str | None) -> None:
    from rami_lan.cli.tournament_join import join_tournament
    from rami_lan.net.tournament_store import TournamentStore

    lines: list[str] = []

    def out(text: str) -> None:
        lines.extend(text.splitlines() or [""])
        del lines[:-KEEP_LINES]
        lobby.message = " | ".join(line.strip() for line in lines if line.strip())
        lobby._invalidate()

    async def seat(session: Any) -> int:
        lobby._show_table(session, intro=list(lines))
        while lobby.session is session:  # until the player leaves the table screen
            await asyncio.sleep(0.2)
        return 0

    args = argparse.Namespace(bot=None, bot_delay=None, code=code)
    await join_tournament(ad.addresses[0], ad.port, args, lobby.settings.nickname,
                          getattr(ad, "fingerprint", None) or None, seat,
                          store=TournamentStore(), seat_store=lobby.seat_store, out=out)
