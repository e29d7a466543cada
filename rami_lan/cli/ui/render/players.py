"""The people at the table: the header (limit, buttons), each opponent's box or line,
our own line, and the connection and seat marks they carry."""

from __future__ import annotations

from rami_lan.cli.messages import bot_mark
from rami_lan.cli.ui.layout import Row, hjoin, row_len
from rami_lan.cli.ui.model import TableModel
from rami_lan.cli.ui.render.base import Clicks, _h, _joined, cards_count, points_text
from rami_lan.cli.ui.render.hand import button_label
from rami_lan.cli.ui.text import Lines, on_click
from rami_lan.core.variants import get_variant
from rami_lan.i18n import _


def limit_text(model: TableModel) -> str:
    v = model.view
    if v is None:
        return ""
    var = get_variant(v.variant)
    if var.match_rule == "elimination":
        if v.limit <= 1:
            return _("single round")
        return _("limit {n}").format(n=v.limit)
    if v.quick:
        return _("{n} rounds").format(n=var.quick_rounds)
    return _("target {n}").format(n=v.limit)


def header_buttons(model: TableModel) -> list[tuple[str, str]]:
    """The player buttons of the header: (name, key), most important first."""
    out = [("history", "a"), ("scores", "n"), ("info", "i"), ("chat", ":")]
    if model.can_invite:
        out.append(("invite", "v"))
    out.append(("colours", "C"))  # the card colours, from the table (seed 001)
    return out


def render_header(
    lines: Lines, model: TableModel, width: int, clicks: Clicks | None = None
) -> None:
    v = model.view
    var = get_variant(model.variant)
    parts = [var.name]
    if v is not None and v.round_no:
        parts.append(_("Round {n}").format(n=v.round_no))
    parts.append(limit_text(model))
    if v is not None and v.knock:
        parts.append(_("Frapper"))
    if model.table.get("private_deal"):
        parts.append(_("Private deal"))
    left = " " + " · ".join(p for p in parts if p)
    lines.add("class:header", left)
    secs = model.seconds_left()
    clock = ""
    if secs is not None:
        clock = " " + _("⏱ {s} s").format(s=secs) + " "
    conn = ""
    if model.connection not in ("connected",):
        conn = " " + connection_text(model.connection) + " "
    right = _("? help") + " "
    room = width - len(left) - len(clock) - len(conn) - len(right) - 1
    names = header_buttons(model)
    if width < 70:  # narrow: the colours stay on their key, the others keep their room
        names = [n for n in names if n[0] != "colours"]
    # Every button with its label if they all fit, else the keys alone, else fewer.
    for k in range(len(names), -1, -1):  # the first buttons keep their labels longest
        buttons = [f"[{button_label(n)} {key}]" if i < k else f"[{key}]"
                   for i, (n, key) in enumerate(names)]
        if sum(len(b) + 1 for b in buttons) <= room:
            break
    while buttons and sum(len(b) + 1 for b in buttons) > room:
        buttons.pop()
    used = sum(len(b) + 1 for b in buttons)
    pad = max(1, width - len(left) - len(clock) - len(conn) - len(right) - used)
    lines.add("class:header", " " * pad)
    if conn:
        lines.add("class:header.warn", conn)
    if clock:
        lines.add("class:header.clock" + (".low" if secs is not None and secs <= 5 else ""), clock)
    for (name, _key), text in zip(names, buttons, strict=False):
        handler = on_click(lambda n=name: clicks.button(n)) if clicks is not None else None
        lines.add("class:button", text, handler)
        lines.add("class:header", " ")
    lines.add("class:header", right)
    lines.nl()


def connection_text(state: str) -> str:
    return {
        "connecting": _("connecting…"),
        "connected": _("connected"),
        "reconnecting": _("reconnecting…"),
        "closed": _("disconnected"),
    }.get(state, state)


def seat_connection_text(state: str) -> str:
    """connected / reconnecting… / left the table / bot (another seat's state)."""
    from rami_lan.cli.card_text import connection_label
    from rami_lan.player_card import Connection

    try:
        return connection_label(Connection(state))
    except ValueError:
        return state


CONNECTION_STYLE = {
    "bot": "class:dim",
    "reconnecting": "class:warn",
    "stand_in": "class:warn",
    "left": "class:error",
    "connected": "class:opened",
}


def seat_marks(model: TableModel, s: int, split: bool = False) -> list[tuple[str, str]]:
    """The small facts about a seat: score, opened, connection (styled words).

    ``split``: the connection / level / away mark comes as a separate last item
    (an opponent's box puts it on its own row)."""
    v = model.view
    assert v is not None
    p = v.players[s]
    out: list[tuple[str, str]] = [("class:total", points_text(p.total))]
    if p.eliminated:
        out.append(("class:eliminated", "X " + _("eliminated")))
        return out
    if get_variant(v.variant).scoring == "laid_minus_hand":
        out.append(("class:dim", _("laid {n}").format(n=p.laid_points)))
    elif get_variant(v.variant).requires_opening:
        out.append(("class:opened", "✓ " + _("opened")) if p.opened
                   else ("class:dim", _("not opened")))
    mark = connection_mark(model, s)
    if mark is not None:
        out.append(mark)
    return out


def connection_mark(model: TableModel, s: int) -> tuple[str, str] | None:
    """away / reconnecting… / left the table / bot, moyen (None for a connected player)."""
    v = model.view
    assert v is not None
    p = v.players[s]
    if p.away:
        return ("class:warn", _("away"))
    if s == model.seat:
        return None
    level = model.bot_level(s)
    if model.connections:
        state = model.seat_connection(s)
        text = seat_connection_text(state)
        if state == "bot" and level:
            text = bot_mark(level)
        return (CONNECTION_STYLE.get(state, ""), text)
    if level:
        return ("class:dim", bot_mark(level))
    return None


def seat_title(model: TableModel, s: int, clicks: Clicks | None) -> Row:
    """``→ bot 2 · dealer`` (the arrow on who plays; X when eliminated)."""
    v = model.view
    assert v is not None
    p = v.players[s]
    playing = v.turn == s and v.phase in ("draw", "play")
    who = _h(clicks, lambda: clicks.player(s))  # type: ignore[union-attr]
    row: Row = []
    if p.eliminated:
        row.append(("class:eliminated", "X "))
    elif playing:
        row.append(("class:turn.arrow", "→ "))
    else:
        row.append(("", "  "))
    if s == model.seat and playing:
        row.append(("class:turn.mine", "! "))
    name = model.name(s)[:18] + (" " + _("(you)") if s == model.seat else "")
    row.append(("class:player.me" if s == model.seat else "class:player", name, who)
               if who else ("class:player.me" if s == model.seat else "class:player", name))
    if v.dealer == s:
        row.append(("class:dim", " · " + _("dealer")))
    return row


def opponent_box(model: TableModel, s: int, width: int, clicks: Clicks | None) -> list[Row]:
    """The name, the card backs and count, the score and marks, the connection."""
    v = model.view
    assert v is not None
    p = v.players[s]
    rows = [seat_title(model, s, clicks)]
    if p.in_round and not p.eliminated:
        count = cards_count(p.n_cards)
        backs = min(p.n_cards, max(0, width - len(count) - 3))
        rows.append([("", "  "), ("class:back", "▒" * backs), ("", " " + count)])
    else:
        rows.append([("", "  ")])
    marks = seat_marks(model, s)
    mark = connection_mark(model, s) if not p.eliminated else None
    if mark is not None and mark in marks:
        marks.remove(mark)
    rows.append([("", "  "), *_joined(marks)])
    if mark is not None:
        rows.append([("", "  "), mark])
    return rows


def opponent_line(model: TableModel, s: int, clicks: Clicks | None, width: int = 200) -> Row:
    """One row: ``→ bot 2 · dealer · 13 cards · 40 pts · opened``, shortened to fit."""
    v = model.view
    assert v is not None
    p = v.players[s]
    row = seat_title(model, s, clicks)
    parts: list[tuple[str, str]] = []
    if p.in_round and not p.eliminated:
        parts.append(("", cards_count(p.n_cards)))
    parts += seat_marks(model, s)
    out = [*row, ("class:dim", " · "), *_joined(parts)]
    if row_len(out) > width:  # narrow: a bot's level and "opened" go short
        short = {("class:dim", bot_mark(model.bot_level(s))):
                 ("class:dim", seat_connection_text("bot")),
                 ("class:opened", "✓ " + _("opened")): ("class:opened", "✓")}
        parts = [short.get(x, x) for x in parts]
        parts = [(CONNECTION_STYLE["bot"], seat_connection_text("bot"))
                 if x[1] == bot_mark(model.bot_level(s)) else x for x in parts]
        out = [*row, ("class:dim", " · "), *_joined(parts)]
    return out


def opponents_rows(model: TableModel, width: int, boxes: bool, clicks: Clicks | None) -> list[Row]:
    """The other seats around the table: boxes side by side, or one line each."""
    v = model.view
    if v is None:
        return []
    seats = [p.seat for p in v.players if p.seat != model.seat]
    if not seats:
        return []
    if boxes:
        w = max(16, (width - (len(seats) - 1) * 2) // len(seats))
        if w * len(seats) + 2 * (len(seats) - 1) <= width:
            return hjoin([(opponent_box(model, s, w, clicks), w) for s in seats], gap=2)
    return [opponent_line(model, s, clicks, width) for s in seats]


def my_line(model: TableModel, clicks: Clicks | None) -> Row:
    """Our own seat: name, dealer, score, opened, the opening progress."""
    v = model.view
    if v is None or model.seat >= len(v.players):
        return []
    row = seat_title(model, model.seat, clicks)
    parts = seat_marks(model, model.seat)
    prog = model.opening_progress()
    if prog is not None:
        parts = [p for p in parts if p[1] != _("not opened")]  # the progress says it
        pts, need = prog
        parts.append(("class:opened" if pts >= need else "class:warn",
                      _("opening {pts}/{need}").format(pts=pts, need=need)))
    if model.connection not in ("connected",):
        parts.append(("class:dim", connection_text(model.connection)))
    return [*row, ("class:dim", " · "), *_joined(parts)]
