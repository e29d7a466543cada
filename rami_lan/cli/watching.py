"""Watching a tournament's table: the lines a spectator reads of each ``t_watch``.

A ``t_watch`` carries public events (redacted for no seat) and the view for no seat;
this turns them into the table log's own lines (`rami_lan.cli.ui.describe`, as seen by
nobody: seat -1) and, when a round or the match ends, a line of the totals. Anything
malformed gives no line (the organiser is not trusted to send well-formed data).
"""

from __future__ import annotations

from typing import Any

from rami_lan.i18n import _
from rami_lan.textsafe import safe_name, safe_text

__all__ = ["watch_lines"]

NOBODY = -1
"""The seat a spectator describes events as (no event is "yours")."""


def watch_lines(msg: Any) -> list[str]:
    """The lines of one ``t_watch`` message."""
    from rami_lan.cli.ui.describe import describe
    from rami_lan.core.codec import event_from_plain, view_from_plain

    names = {int(p["seat"]): safe_name(str(p.get("nick", "")), 24)
             for p in msg.players if isinstance(p.get("seat"), int)}

    def name(seat: int) -> str:
        return names.get(seat) or _("Seat {n}").format(n=seat + 1)

    out: list[str] = []
    try:
        view = view_from_plain(msg.view)
    except Exception:  # noqa: BLE001 - a malformed view: no line
        return out
    for plain in msg.events:
        try:
            line = describe(event_from_plain(plain, view.variant), NOBODY, name)
        except Exception:  # noqa: BLE001 - an event we can not read: skipped
            line = None
        if line:
            out.append(f"[{msg.stage}.{msg.table}] " + safe_text(line, 300))
    if view.phase in ("between", "over") and any(
            isinstance(p, dict) and p.get("type") in ("RoundEnded", "MatchEnded")
            for p in msg.events):
        totals = ", ".join(f"{name(p.seat)} {p.total}" for p in view.players)
        out.append(f"[{msg.stage}.{msg.table}] " + _("Totals: {totals}").format(totals=totals))
    return out
