"""The table screen before the match starts: the seats as they fill, how to come in.

The host's player (the lobby's New table, ``rami-lan host``) reads here who has sat
down, the join code to give and the fingerprint to compare aloud; everyone else reads
who is there and who is still awaited. What ``q q`` does is said (the owner closes the
table for everyone).
"""

from __future__ import annotations

from typing import Any

from rami_lan.cli.messages import bot_mark, quit_confirmation
from rami_lan.cli.ui.layout import wrap_text
from rami_lan.i18n import _, ngettext

Row = list[tuple[str, str]]


def _bot_levels(table: dict[str, Any]) -> dict[int, str]:
    out: dict[int, str] = {}
    for b in table.get("bots") or []:
        if isinstance(b, list | tuple) and len(b) == 2 and isinstance(b[0], int):
            out[b[0]] = str(b[1])
    return out


def seat_lines(model: Any) -> list[tuple[str, str, bool]]:
    """(style, text) for every seat of the table, in seat order: the player, the
    others who sat down, the bots with their level, the free seats."""
    table = model.table or {}
    try:
        total = int(table.get("seats") or 0)
    except (TypeError, ValueError):
        total = 0
    bots = _bot_levels(table)
    known = set(model.nicknames) | set(bots) | {model.seat}
    total = max(total, (max(known) + 1) if known else 0)
    out: list[tuple[str, str, bool]] = []
    for s in range(total):
        nick = model.nicknames.get(s, "")
        state = model.connections.get(s, "")
        if s == model.seat:
            out.append(("class:player.me", _("{nick} (you)").format(nick=nick) if nick else _("you"),
                        True))
        elif s in bots or state == "bot":
            mark = bot_mark(bots.get(s))
            out.append(("class:dim", f"{nick} · {mark}" if nick else mark, True))
        elif nick and state not in ("left",):
            out.append(("class:player", nick, True))
        else:
            out.append(("class:dim", _("(free seat: waiting for a player)"), False))
    return out


def waiting_rows(model: Any, width: int) -> list[Row]:
    """The rows under the header until the match starts."""
    seats = seat_lines(model)
    rows: list[Row] = []
    if seats:
        n = sum(1 for _s, _t, taken in seats if taken)
        rows.append([("class:status", ngettext(
            "Waiting for the table: {n} of {m} seat taken.",
            "Waiting for the table: {n} of {m} seats taken.", len(seats)).format(
                n=n, m=len(seats))[: max(1, width - 1)])])
        for style, text, _taken in seats:
            rows.append([("", "  • "), (style, text[: max(1, width - 5)])])
    else:
        rows.append([("class:status", _("Waiting for the table…"))])
    fp = (model.table or {}).get("fingerprint")
    intro = list(model.intro)
    if isinstance(fp, str) and fp and not any(fp in line for line in intro):
        intro.append(_("Table fingerprint: {fp}").format(fp=fp))
    if intro:
        rows.append([])
    for text in intro:
        rows += [[("", line)] for line in wrap_text(text, width - 1)]
    rows.append([])
    rows.append([("class:dim", _("q q: {what}").format(what=quit_what(model)))])
    return rows


def quit_what(model: Any) -> str:
    """What ``q q`` does on this screen, in a few words."""
    if quit_confirmation(model) == _("Press q again to close the table for everyone."):
        return _("close the table for everyone")
    return _("leave the table")
