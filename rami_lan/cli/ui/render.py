"""Render the table model as prompt_toolkit formatted text: ``(style, text[, handler])``.

Pure functions of the model (plus optional click callbacks): no state, no I/O. Laid
out for 80x24 with four players; wider terminals get more room for the melds.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import groupby
from typing import Protocol

from prompt_toolkit.mouse_events import MouseEvent, MouseEventType

from rami_lan.cli.messages import bot_mark, fairness_details, rami_sec_note
from rami_lan.cli.ui.cards import card_style, chip_width, face_text, stands_text
from rami_lan.cli.ui.layout import Row, hjoin, join_rows, pad, row_len, split_rows, wrap_items, wrap_text
from rami_lan.cli.ui.model import TableModel
from rami_lan.cli.ui.text import Fragment, Lines, on_click, on_click_or_scroll
from rami_lan.core.cards import Card
from rami_lan.core.melds import hand_points
from rami_lan.core.variants import get_variant
from rami_lan.i18n import _, ngettext
from rami_lan.net.chat import MAX_CHAT_CHARS


class Clicks(Protocol):
    """What a click on the table does (the table screen implements it)."""

    def card(self, index: int) -> None: ...
    def stock(self) -> None: ...
    def discard(self, depth: int) -> None: ...
    def meld(self, index: int) -> None: ...
    def button(self, name: str) -> None: ...
    def player(self, seat: int) -> None: ...
    def meld_end(self, index: int, end: str) -> None: ...
    def scroll(self, delta: int) -> None: ...


class Drags(Protocol):
    """Dragging with the mouse (the table screen implements it next to `Clicks`).

    A target is ``("card", i)``, ``("meld", i, end)`` (``end``: "low" / "high" / None
    for the meld's body) or ``("discard", depth)`` (0: the pile as a whole)."""

    def press(self, target: tuple) -> None: ...
    def hover(self, target: tuple) -> bool: ...
    def release(self, target: tuple) -> None: ...


def _dragged_over(model: TableModel, kind: str, index: int) -> bool:
    """A card is being dragged over this meld (or discard pile, index 0)."""
    over = model.drag_over
    return model.drag_index is not None and over is not None and over[0] == kind and (
        kind == "discard" or over[1] == index)


def drag_target(clicks: Clicks | None, target: tuple, click: Callable[[], None] | None):  # type: ignore[no-untyped-def]
    """A mouse handler for something a card can be dragged from or dropped on.

    Without drag support (``clicks`` has no ``press``) it is a plain click on mouse-up.
    The handler carries ``drop_target`` so the screen tells it from other handlers."""
    if clicks is None:
        return None
    if not callable(getattr(type(clicks), "press", None)):  # a Clicks without drags
        return on_click(click) if click is not None else None
    press = clicks.press  # type: ignore[attr-defined]

    def handler(ev: MouseEvent) -> object:
        t = ev.event_type
        if t == MouseEventType.MOUSE_DOWN:
            press(target)
            return None
        if t == MouseEventType.MOUSE_MOVE:
            return None if clicks.hover(target) else NotImplemented  # type: ignore[attr-defined]
        if t == MouseEventType.MOUSE_UP:
            clicks.release(target)  # type: ignore[attr-defined]
            return None
        return NotImplemented

    handler.drop_target = target  # type: ignore[attr-defined]
    return handler


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
    from rami_lan.stats import Connection, connection_label

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


def _h(clicks: Clicks | None, fn: Callable[[], None]):  # type: ignore[no-untyped-def]
    return on_click(fn) if clicks is not None else None


def cards_count(n: int) -> str:
    return ngettext("{n} card", "{n} cards", n).format(n=n)


def points_text(n: int) -> str:
    return ngettext("{n} pt", "{n} pts", n).format(n=n)


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


def _joined(parts: list[tuple[str, str]], sep: str = " · ") -> Row:
    row: Row = []
    for i, (style, text) in enumerate(parts):
        if i:
            row.append(("class:dim", sep))
        row.append((style, text))
    return row


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


def chip(card: Card, four: bool, extra: str = "", handler=None) -> Row:  # type: ignore[no-untyped-def]
    def f(style: str, text: str) -> Fragment:
        return (style, text, handler) if handler else (style, text)

    return [f("class:chip" + extra, "["), f(card_style(card, four) + extra, face_text(card)),
            f("class:chip" + extra, "]")]


def piles_rows(model: TableModel, width: int, max_rows: int, clicks: Clicks | None,
               four: bool) -> list[Row]:
    """The stock and the discard pile (500: the whole pile, wrapped, with the depth)."""
    v = model.view
    if v is None:
        return []
    stock_h = _h(clicks, lambda: clicks.stock())  # type: ignore[union-attr]
    pile_h = drag_target(clicks, ("discard", 0), None)  # a card dropped on the label goes there too
    label = _("Discard pile") + " "
    lstyle = "class:label" + (" class:drag" if _dragged_over(model, "discard", 0) else "")
    head: Row = [("class:label", _("Stock") + " "),
                 ("class:stock", f"[▒▒ {v.stock_size}]", stock_h) if stock_h
                 else ("class:stock", f"[▒▒ {v.stock_size}]"),
                 ("", "   "), (lstyle, label, pile_h) if pile_h else (lstyle, label)]
    if not v.discard:
        empty = _("(empty)")
        return [[*head, ("class:dim", empty, pile_h) if pile_h else ("class:dim", empty)]]
    pile = list(v.discard)
    n = len(pile)
    if n == 1:
        row = head + chip(pile[0], four, "", drag_target(
            clicks, ("discard", 1), lambda: clicks.discard(1)))  # type: ignore[union-attr]
        if v.discard_size > 1:
            row.append(("class:dim", " " + _("({n} cards)").format(n=v.discard_size)))
        return [row]
    depth = max(1, min(model.depth, n))
    head.append(("class:dim", _("depth {d}/{n}").format(d=depth, n=n) + " "))
    indent = 2
    first_room = width - row_len(head)
    per_row = max(1, (width - indent) // 5)
    cap = max(1, (first_room // 5) + per_row * max(0, max_rows - 1))

    def item(k: int) -> Row:
        d = n - k
        extra = " class:depth" if d <= depth else ""
        return chip(pile[k], four, extra, drag_target(
            clicks, ("discard", d), lambda d=d: clicks.discard(d)))  # type: ignore[union-attr]

    # The window holds the card at the chosen depth and, as far as room allows, every
    # card above it up to the top (the cards taken together).
    if n <= cap:
        lo, hi = 0, n
    else:
        hi_top = n
        lo = max(0, min(n - depth, n - (cap - 1)))
        hi = min(hi_top, lo + cap - 1)
    items: list[Row] = []
    if lo > 0:
        items.append([("class:dim", f"…{lo}")])
    items += [item(k) for k in range(lo, hi)]
    if hi < n:
        items.append([("class:dim", f"+{n - hi}…")])
    rows = wrap_items([head + items[0], *items[1:]], width, 1, indent)
    return rows[:max_rows]


def meld_item(model: TableModel, index: int, four: bool, clicks: Clicks | None) -> Row:
    """``3[7♣ (8♣) 9♣]``. Blue arrows mark the ends where the selected (or dragged) card
    can go, from the core's legal lay-offs; the chosen run always has both (grey where
    the card can not go), the joker's end underlined."""
    v = model.view
    assert v is not None
    m = v.melds[index]
    chosen = index == model.target
    sel = " class:meld.target" if chosen else ""
    if _dragged_over(model, "meld", index):
        sel = " class:drag"
    body_h = drag_target(clicks, ("meld", index, None),
                         lambda: clicks.meld(index))  # type: ignore[union-attr]

    def f(style: str, text: str, h=body_h) -> Fragment:  # type: ignore[no-untyped-def]
        return (style, text, h) if h else (style, text)

    run = m.kind == "run"
    ends = model.layoff_ends().get(index, frozenset())

    def arrow(end: str, text: str) -> Fragment | None:
        if not ((chosen and run) or end in ends):
            return None
        style = "class:meld.end"
        if end in ends:
            style += " class:meld.end.ok"
        if chosen and run and model.end == end:
            style += " class:meld.end.on"
        h = drag_target(clicks, ("meld", index, end),
                        lambda: clicks.meld_end(index, end))  # type: ignore[union-attr]
        return f(style, text, h)

    row: Row = []
    lo = arrow("low", "◀") if run else None
    if lo is not None:
        row.append(lo)
    row.append(f("class:meld.label" + sel, f"{index + 1}["))
    for k, (card, st) in enumerate(zip(m.cards, m.stands_for_text(), strict=True)):
        if k:
            row.append(f(sel.strip(), " "))
        if card.is_joker:
            row.append(f("class:card.joker" + sel, "(" + stands_text(st) + ")"))
        else:
            row.append(f(card_style(card, four) + sel, face_text(card)))
    row.append(f("class:meld.label" + sel, "]"))
    hi = arrow("high", "▶")
    if hi is not None:
        row.append(hi)
    return row


def melds_rows(model: TableModel, width: int, max_rows: int, clicks: Clicks | None,
               four: bool) -> list[Row]:
    """The melds on the table, grouped by owner, wrapping; the chosen one kept in view."""
    v = model.view
    if v is None:
        return []
    if not v.melds:
        return [[("class:dim", _("No melds on the table yet."))]]
    owners: list[int] = []
    for m in v.melds:
        if m.owner not in owners:
            owners.append(m.owner)
    label_w = min(12, max(len(model.name(o)[:10]) for o in owners) + 1)
    rows: list[Row] = []
    target_row = 0
    for o in owners:
        idx = [i for i, m in enumerate(v.melds) if m.owner == o]
        name = model.name(o)[:10] if o >= 0 else "?"
        items = [meld_item(model, i, four, clicks) for i in idx]
        first = len(rows)
        grown = wrap_items(items, max(10, width - label_w - 1), 2)
        for k, r in enumerate(grown):
            label = name if k == 0 else ""
            style = "class:player.me" if o == model.seat else "class:meld.owner"
            rows.append([(style, label.ljust(label_w)), ("", " "), *r])
        if model.target in idx:
            # which wrapped row holds it
            col_items = 0
            for k, r in enumerate(grown):
                col_items += sum(1 for fr in r if fr[1].endswith("[") and "meld.label" in fr[0])
                if col_items > idx.index(model.target):
                    target_row = first + k
                    break
    if len(rows) <= max_rows:
        return rows
    max_rows = max(1, max_rows)
    start = min(max(0, target_row - max_rows + 2), len(rows) - max_rows + 1)
    shown = rows[start:start + max_rows - 1]
    more = len(rows) - start - len(shown)
    note = _("… {n} more rows of melds (↑ ↓ choose a meld)").format(n=len(rows) - len(shown))
    if more <= 0 and start > 0:
        shown = rows[start - 1:start - 1 + max_rows - 1]
    return [*shown, [("class:dim", note)]]


def meld_box(model: TableModel, index: int, four: bool, clicks: Clicks | None) -> list[Row]:
    """A table meld as a row of card faces in a box (tall terminals), 3 rows::

         ┌──┬──┬───┐
        ◀2│8♥│9♥│10♥│▶
         └──┴──┴───┘

    The arrows' cells are always kept (blank where no arrow), so nothing moves when a
    card is selected; arrows and clicks as `meld_item`."""
    v = model.view
    assert v is not None
    m = v.melds[index]
    chosen = index == model.target
    run = m.kind == "run"
    ends = model.layoff_ends().get(index, frozenset())
    body = drag_target(clicks, ("meld", index, None), lambda: clicks.meld(index))  # type: ignore[union-attr]

    def f(style: str, text: str, h=body) -> Fragment:  # type: ignore[no-untyped-def]
        return (style, text, h) if h else (style, text)

    def arrow(end: str, text: str) -> Fragment:
        if not ((chosen and run) or end in ends) or (end == "low" and not run):
            return f("", " ")
        style = "class:meld.end" + (" class:meld.end.ok" if end in ends else "")
        if chosen and run and model.end == end:
            style += " class:meld.end.on"
        h = drag_target(clicks, ("meld", index, end), lambda: clicks.meld_end(index, end))  # type: ignore[union-attr]
        return f(style, text, h)

    frame = "class:meld.frame" + (" class:meld.frame.on" if chosen else "")
    num = str(index + 1)
    faces = []
    for card, st in zip(m.cards, m.stands_for_text(), strict=True):
        if card.is_joker:
            faces.append(("class:card.joker", "(" + stands_text(st) + ")"))
        else:
            faces.append((card_style(card, four), face_text(card)))
    pad_l = " " * (1 + len(num))
    top: Row = [f("", pad_l), f(frame, "┌" + "┬".join("─" * len(t) for _s, t in faces) + "┐"),
                f("", " ")]
    over = " class:drag" if _dragged_over(model, "meld", index) else ""
    mid: Row = [arrow("low", "◀"), f("class:meld.label" + (" class:meld.target" if chosen else "")
                                     + over, num)]
    for style, text in faces:
        mid += [f(frame, "│"), f(style, text)]
    mid += [f(frame, "│"), arrow("high", "▶")]
    bot: Row = [f("", pad_l), f(frame, "└" + "┴".join("─" * len(t) for _s, t in faces) + "┘"),
                f("", " ")]
    return [top, mid, bot]


def melds_box_rows(model: TableModel, width: int, max_rows: int, clicks: Clicks | None,
                   four: bool) -> list[Row] | None:
    """The melds as boxes of card faces, grouped by owner (a blank row between owners),
    wrapping; None when they do not fit in ``max_rows`` (the one-line melds then)."""
    v = model.view
    if v is None or not v.melds:
        return None
    owners: list[int] = []
    for m in v.melds:
        if m.owner not in owners:
            owners.append(m.owner)
    label_w = min(12, max(len(model.name(o)[:10]) for o in owners) + 1)
    room = width - label_w - 1
    rows: list[Row] = []
    for k, o in enumerate(owners):
        if k:
            rows.append([])
        boxes = [meld_box(model, i, four, clicks) for i, m in enumerate(v.melds) if m.owner == o]
        lines: list[list[list[Row]]] = [[]]
        col = 0
        for b in boxes:
            w = row_len(b[1])
            if lines[-1] and col + 2 + w > room:
                lines.append([])
                col = 0
            lines[-1].append(b)
            col += w + (2 if col else 0)
        for n, line in enumerate(lines):
            joined = hjoin([(b, row_len(b[1])) for b in line], gap=2)
            name = model.name(o)[:10] if o >= 0 and n == 0 else ""
            style = "class:player.me" if o == model.seat else "class:meld.owner"
            for r, row in enumerate(joined):
                label = name if r == 1 else ""
                rows.append([(style, label.ljust(label_w)), ("", " "), *row])
        if len(rows) > max_rows:
            return None
    return rows


def _hand_style(model: TableModel, card: Card, i: int, hinted: dict, staged: set) -> str:
    extra = f" class:hand.{i}"
    if card in hinted:
        extra += " class:hint"
    if card in model.fresh:
        extra += " class:fresh"
    if i == model.cursor:
        extra += " class:cursor"
    if card in staged:
        extra += " class:staged"
    if model.drag_index == i:
        extra += " class:drag"
    return extra


def _mark(model: TableModel, card: Card, i: int, staged: set) -> tuple[str, str]:
    """The sign under a card and its style: ``^`` the cursor, ``=`` put aside, ``+`` new."""
    if i == model.cursor:
        return "^", "class:mark class:mark.cursor"
    if card in staged:
        return "=", "class:mark class:mark.staged"
    if card in model.fresh:
        return "+", "class:mark class:mark.fresh"
    return "", "class:mark"


def mark_cells(model: TableModel, i: int, w: int, at: int, hinted: dict, staged: set,
               joined: bool) -> list[tuple[str, str]]:
    """The ``w`` cells under card ``i``: the seed's blue line when the card belongs to a
    meld the hand makes (``joined``: the next card is of the same meld, the line goes
    on), and its mark (cursor, put aside, new) at cell ``at``. Never the cursor's
    reverse video: the mark row has its own classes."""
    card = model.hand[i]
    line = card in hinted
    cells = [("class:meldline", "━") if line else ("class:mark", " ") for _k in range(w)]
    if line and not joined and w > 1:
        cells[-1] = ("class:mark", " ")
    sign, style = _mark(model, card, i, staged)
    if sign:
        cells[min(at, w - 1)] = (style, sign)
    return cells


def _same_meld_next(model: TableModel, i: int, hinted: dict) -> bool:
    hand = model.hand
    return i + 1 < len(hand) and hand[i] in hinted and hinted.get(hand[i + 1]) == hinted[hand[i]]


def _cells_to_row(cells: list[tuple]) -> Row:
    """Cells ``(style, char, handler or None)`` -> fragments (neighbours alike merged)."""
    row: Row = []
    for (style, h), group in groupby(cells, key=lambda c: (c[0], c[2])):
        text = "".join(c[1] for c in group)
        row.append((style, text, h) if h is not None else (style, text))
    return row


CARD_W = 4  # a card's visible strip in the fan (the narrowest)
CARD_FULL = 6  # the last card, whole
FAN_MAX_STRIP = 8


def fan_strip(model: TableModel, width: int) -> int:
    """The widest strip (4 to 8 cells) that fans the hand over at most three quarters
    of the width (4 when only that fits); 0: the fan does not fit at all."""
    n = len(model.hand)
    if n <= 0 or 1 + CARD_W * (n - 1) + CARD_FULL > width:
        return 0
    for s in range(FAN_MAX_STRIP, CARD_W, -1):
        if 1 + s * (n - 1) + s + 2 <= width * 3 // 4:
            return s
    return CARD_W


def fan_fits(model: TableModel, width: int) -> bool:
    return fan_strip(model, width) > 0


def fan_card_height(height: int) -> int:
    """5 rows, 7 on tall terminals (45 rows and more)."""
    return 7 if height >= 45 else 5


def hand_fan_rows(model: TableModel, clicks: Clicks | None, four: bool, width: int = 80,
                  height: int = 30) -> list[Row]:
    """The hand as overlapping card shapes, centred: rank and suit corners, selected
    cards lifted, the blue line under cards that make a meld, the marks below.

    Each card is drawn whole in order onto a grid of cells, the next card over it, as
    cards lie on a table: a lifted card's hidden corner shows above its neighbour and
    the neighbour's border goes on under it, never a border cut in the middle."""
    hand = model.hand
    n = len(hand)
    hinted = model.hinted()
    staged = model.staged_cards()
    strip = max(CARD_W, fan_strip(model, width))
    full = strip + 2
    ch = fan_card_height(height)
    total = 1 + strip * (n - 1) + full
    left = max(1, (width - total) // 2 + 1)
    grid_w = strip * (n - 1) + full  # the cards' cells; the left margin is one fragment
    rows_n = ch + 1
    grid: list[list[tuple]] = [[("", " ", None)] * grid_w for _r in range(rows_n)]
    handlers = [drag_target(clicks, ("card", i), lambda i=i: clicks.card(i))  # type: ignore[union-attr]
                for i in range(n)]
    for i, card in enumerate(hand):
        x0 = strip * i
        y0 = 0 if card in model.selected else 1
        h = handlers[i]
        extra = _hand_style(model, card, i, hinted, staged)
        frame = "class:cardframe" + extra
        inner = card_style(card, four) + extra
        face = face_text(card)
        for r in range(ch):
            y = y0 + r
            if r == 0:
                text = "┌" + "─" * (full - 2) + "┐"
            elif r == ch - 1:
                text = "└" + "─" * (full - 2) + "┘"
            else:
                text = "│" + " " * (full - 2) + "│"
            for k, c in enumerate(text):
                grid[y][x0 + k] = (frame if c != " " else inner, c, h)
        for k, c in enumerate(face):
            grid[y0 + 1][x0 + 1 + k] = (inner, c, h)
        if i == n - 1:  # the last card is whole: its bottom-right corner too
            for k, c in enumerate(face):
                grid[y0 + ch - 2][x0 + full - 1 - len(face) + k] = (inner, c, h)
        # the card's own columns take its clicks where no card is drawn (above, below)
        for y in range(rows_n):
            for x in range(x0, x0 + (full if i == n - 1 else strip)):
                if grid[y][x][0] == "" and grid[y][x][2] is None:
                    grid[y][x] = ("", " ", h)
    margin = ("", " " * left)
    rows = [[margin, *_cells_to_row(r)] for r in grid]
    marks: list[tuple] = []
    for i in range(n):
        w = full if i == n - 1 else strip
        for style, c in mark_cells(model, i, w, 1, hinted, staged, _same_meld_next(model, i, hinted)):
            marks.append((style, c, handlers[i]))
    rows.append([margin, *_cells_to_row(marks)])
    return rows


def hand_chip_rows(model: TableModel, width: int, clicks: Clicks | None, four: bool) -> list[Row]:
    """The hand as chips ``[10♥]``, wrapped to the width: 3 rows per line of cards (the
    lifted selection, the others, the blue meld line and the marks)."""
    hand = model.hand
    hinted = model.hinted()
    staged = model.staged_cards()
    out: list[Row] = []
    lines_of: list[list[int]] = [[]]
    col = 1
    for i, card in enumerate(hand):
        w = chip_width(card) + 1
        if lines_of[-1] and col + w > width:
            lines_of.append([])
            col = 1
        lines_of[-1].append(i)
        col += w
    for chunk in lines_of:
        up: Row = [("", " ")]
        down: Row = [("", " ")]
        marks: list[tuple] = [("", " ", None)]
        for k, i in enumerate(chunk):
            card = hand[i]
            w = chip_width(card)
            h = drag_target(clicks, ("card", i), lambda i=i: clicks.card(i))  # type: ignore[union-attr]
            blank = ("", " " * w, h) if h else ("", " " * w)
            c = chip(card, four, _hand_style(model, card, i, hinted, staged), h)
            if card in model.selected:
                up += c
                down.append(blank)
            else:
                up.append(blank)
                down += c
            joined = _same_meld_next(model, i, hinted) and k + 1 < len(chunk)
            cells = mark_cells(model, i, w + 1, w // 2, hinted, staged, joined)
            marks += [(st, ch_, h) for st, ch_ in cells]
            for r in (up, down):
                r.append(("", " "))
        out += [up, down, _cells_to_row(marks)]
    return out


def staged_row(model: TableModel) -> Row:
    row: Row = [("class:label", _("To lay down:") + " ")]
    for g in model.staged:
        row.append(("class:staged", "[" + " ".join(face_text(c) for c in g) + "] "))
    return row


BUTTONS_PLAY = (
    ("lay", "m", "Lay down"),
    ("layoff", "o", "Lay off"),
    ("recover", "c", "Joker"),
    ("discard", "x", "Discard"),
)
BUTTONS_DRAW = (("draw", "d", "Draw"), ("take", "t", "Take"))


def button_label(name: str) -> str:
    return {
        "lay": _("Lay down"),
        "layoff": _("Lay off"),
        "recover": _("Joker"),
        "discard": _("Discard"),
        "draw": _("Draw"),
        "take": _("Take"),
        "knock": _("Frapper"),
        "continue": _("Continue"),
        "leave": _("Leave"),
        "sort_suit": _("Sort ♣♥"),
        "sort_rank": _("Sort 7-8"),
        "info": _("Player info"),
        "chat": _("Chat"),
        "invite": _("Invite"),
        "history": _("History"),
        "stage": _("Put aside"),
        "scores": _("Scores"),
        "help": _("Help"),
        "colours": _("Colours"),
    }[name]


def has_joker_recovery(variant: str) -> bool:
    """The variant has jokers and lets one be taken back from the table (multi: none)."""
    var = get_variant(variant)
    return var.n_jokers > 0 and var.joker_recovery != "none"


def has_elimination(variant: str) -> bool:
    """Players over the limit leave the match (rami, classique, 40; not multi, 500)."""
    return get_variant(variant).match_rule == "elimination"


def buttons_rows(model: TableModel, width: int, clicks: Clicks | None) -> list[Row]:
    """The action buttons, wrapped so that none is ever cut."""
    v = model.view
    flags = model.legal()
    names: list[tuple[str, str]] = []
    if v is not None and v.my_turn and v.phase == "draw":
        names += [(n, k) for n, k, _l in BUTTONS_DRAW]
    else:
        names += [(n, k) for n, k, _l in BUTTONS_PLAY
                  if n != "recover" or has_joker_recovery(model.variant)]
        if v is not None and v.my_turn and len(model.selected) >= 2:
            names.insert(1, ("stage", "g"))  # put the selection aside as one meld
    if v is not None and v.knock:
        names.append(("knock", "f"))
    names += [("sort_suit", "s"), ("sort_rank", "r")]
    prog = model.opening_progress()
    items: list[Row] = []
    for name, key in names:
        active = flags.get(name, True) if name not in ("sort_suit", "sort_rank") else True
        style = "class:button" if active else "class:button.off"
        if name == "knock" and active:
            style = "class:button.knock"
        h = _h(clicks, lambda n=name: clicks.button(n))  # type: ignore[union-attr]
        label = button_label(name)
        if name == "lay" and prog is not None:
            label += f" {prog[0]}/{prog[1]}"
        text = f"[{label} {key}]"
        items.append([(style, text, h) if h else (style, text)])
    return wrap_items(items, width, 1)


def chat_input_text(model: TableModel, width: int) -> str:
    """The chat line being typed, its length and the keys, cut to ``width``."""
    text = model.chat_input or ""
    tail = "  " + _("({n}/{max}) Enter send · Esc cancel").format(
        n=len(text), max=MAX_CHAT_CHARS)
    head = _("Chat:") + " "
    room = max(8, width - 1 - len(head) - len(tail) - 1)
    shown = text if len(text) <= room else "…" + text[-(room - 1):]
    return (head + shown + "_" + tail)[: width - 1]


def message_rows(model: TableModel, width: int) -> list[Row]:
    """The lines that answer the player's last key: chat, a question, a refusal, why."""
    if model.chat_input is not None:
        rows = [[("class:error", model.error)]] if model.error else []
        return [*rows, [("class:chat.input", chat_input_text(model, width))]]
    failed = model.fairness_failed()
    if failed:  # loud until the player leaves: the host cheated or broke the rules
        text = _("FAIRNESS CHECK FAILED in round {n}: {why}").format(
            n=failed[0].round_no, why=failed[0].reason)
        return [[("class:alarm", " " + text[: max(1, width - 3)] + " ")]]
    if model.confirm:
        return [[("class:warn", model.confirm)]]
    if model.drag_index is not None and 0 <= model.drag_index < len(model.hand):
        text = _("Moving {card}: drop it in your hand, on a blue arrow or on the discard "
                 "pile.").format(card=face_text(model.hand[model.drag_index]))
        return [[("class:drag", part)] for part in wrap_text(text, width - 1)[:2]]
    if model.error:
        text = _("Refused: {why}").format(why=model.error)
        return [[("class:error", part)] for part in wrap_text(text, width - 1)[:2]]
    if model.why:
        return [[("class:warn", model.why)]]
    return []


def log_rows(model: TableModel, width: int, n: int) -> list[Row]:
    """The last ``n`` lines of the table's history (what the others just did)."""
    if n <= 0:
        return []
    out: list[Row] = []
    for line in reversed(model.log):
        wrapped = wrap_text(line, width - 2)
        for k, part in enumerate(reversed(wrapped)):
            lead = "• " if k == len(wrapped) - 1 else "  "
            out.append([("class:log", lead + part)])
            if len(out) >= n:
                break
        if len(out) >= n:
            break
    return list(reversed(out))


def dealing_rows(model: TableModel, width: int) -> list[Row]:
    """Who could see the cards: with private dealing, only their holders (and the host
    its bots' cards); without it, the host could see the whole deck (not said at a table
    in this process: alone with bots, nobody else could look)."""
    t = model.table
    if t.get("private_deal"):
        text = _("Private dealing: nobody saw a card before the game gave it to them or "
                 "showed it; the host saw only its own and its bots' cards.")
        return [[("class:opened", p)] for p in wrap_text(text, width - 1)]
    if t and "host_seat" in t and t.get("host_seat") != model.seat and not t.get("local"):
        text = _("Private dealing was off: the host could see the whole deck.")
        return [[("class:dim", p)] for p in wrap_text(text, width - 1)]
    return []


def fairness_rows(model: TableModel, width: int) -> list[Row]:
    """The fairness verdict for the result screen: every FAILED round with its reason and
    evidence file, else how many rounds were fully checked, and why others were not."""
    failed = model.fairness_failed()
    rows: list[Row] = dealing_rows(model, width)
    if failed:
        for r in failed:
            for part in fairness_details(r, model.nicknames).splitlines():
                rows += [[("class:alarm", " " + p + " ")] for p in wrap_text(part, width - 3)]
        return rows
    if model.fairness_rounds:
        checked, judged = model.fairness_summary()
        if judged:
            rows.append([("class:opened", ngettext(
                "Fair shuffle and rulings checked: {n} of {m} round.",
                "Fair shuffle and rulings checked: {n} of {m} rounds.", judged)
                .format(n=checked, m=judged))])
        for _n, r in sorted(model.fairness_rounds.items()):
            if r.status in ("partial", "unchecked"):
                text = fairness_details(r, model.nicknames)
                rows += [[("class:warn", p)] for p in wrap_text(text, width - 1)]
        return rows
    if model.fairness is not None and not model.fairness[0]:
        return [[("class:alarm", " " + _("FAIRNESS CHECK FAILED: {details}").format(
            details=model.fairness[1]) + " ")]]
    if model.fairness is not None:
        return [[("class:opened", _("Fair shuffle checked."))]]
    return rows


def status_text(model: TableModel) -> str:
    v = model.view
    if v is None:
        return _("Waiting for the table…")
    if v.phase in ("draw", "play") and v.turn is not None and v.turn != model.seat:
        if v.can_knock:
            return _("{who} is playing — f: frapper!").format(who=model.name(v.turn))
        return _("{who} is playing…").format(who=model.name(v.turn))
    if v.my_turn and v.phase == "draw":
        return _("Your turn: d draw from the stock, t take the discard.")
    if v.my_turn:
        prog = model.opening_progress()
        if has_joker_recovery(v.variant):
            text = _("Space select · m lay down · o lay off (↑↓ meld) · c joker · x discard")
        else:
            text = _("Space select · m lay down · o lay off (↑↓ meld) · x discard")
        if prog is not None and prog[0] < prog[1]:
            text = _("Opening: your melds make {pts}/{need} points.").format(
                pts=prog[0], need=prog[1]) + " " + text
        return text
    return ""


def history_width(width: int) -> int:
    """The history column's width on wide screens (a third of the screen, 35 to 60)."""
    return max(35, min(60, width // 3))


def render_table(
    model: TableModel,
    width: int = 80,
    height: int = 24,
    clicks: Clicks | None = None,
    four_colour: bool = False,
) -> list[Fragment]:
    """The whole table screen, laid out for ``width`` x ``height``."""
    if model.panel is not None:
        return render_panel(model, width, height, clicks)
    width = max(20, width)
    height = max(8, height)
    head = Lines()
    render_header(head, model, width, clicks)
    header = split_rows(head.frags)
    v = model.view
    if v is None:
        # Until the match starts: what the opener printed, then what happened (an
        # invitation sent or answered, a player's chat line) as far as the screen holds.
        from rami_lan.cli.ui.waiting import waiting_rows

        waiting = waiting_rows(model, width)  # the seats as they fill, code, fingerprint
        room = height - len(header) - 1 - len(waiting)
        log = log_rows(model, width, room) if model.log else []
        gap: list[Row] = [[]] if log else []
        return join_rows([*header, *waiting, *gap, *log], width)
    status = [[("class:status", part)] for part in wrap_text(status_text(model), width - 1)[:2]]
    msg_rows = message_rows(model, width)
    buttons = buttons_rows(model, width, clicks)
    me = [my_line(model, clicks)]
    staged = [staged_row(model)] if model.staged else []
    n_opp = len(v.players) - 1
    # Choose the richest layout that leaves room for the melds and a line of history.
    fan = fan_fits(model, width) and height >= 28
    boxes = height >= 22 and n_opp > 0
    for _attempt in range(3):
        hand = (hand_fan_rows(model, clicks, four_colour, width, height) if fan
                else hand_chip_rows(model, width, clicks, four_colour)) if model.hand else [
                [("class:dim", _("(no cards in hand)"))]]
        opp = opponents_rows(model, width, boxes, clicks)
        fixed = len(header) + len(opp) + len(me) + len(staged) + len(hand) + len(buttons) + \
            len(msg_rows) + len(status)
        spare = height - fixed
        if spare >= 4 or (not fan and not boxes):
            break
        if fan:
            fan = False
        else:
            boxes = False
    pile_max = 1 if v.discard is None or len(v.discard) <= 1 else max(1, min(4, (spare - 2) // 2))
    piles = piles_rows(model, width, pile_max, clicks, four_colour)
    fp = model.table.get("fingerprint")
    if isinstance(fp, str) and fp and piles:
        # the table's fingerprint, to compare aloud with the host's screen
        tag = _("fingerprint {fp}").format(fp=fp[:23] if width >= 120 else fp[:19])
        room = (width - history_width(width) - 1 if width >= 110 else width) - \
            row_len(piles[0]) - 2
        info = _h(clicks, lambda: clicks.button("info"))  # type: ignore[union-attr]
        if len(tag) <= room:
            piles[0] = [*piles[0], ("", " " * (room - len(tag) + 1)),
                        ("class:dim", tag, info) if info else ("class:dim", tag)]
    spare -= len(piles)
    side = width >= 110 and spare >= 3
    hist_w = history_width(width)
    centre_w = width - hist_w - 1 if side else width
    meld_room = max(1, spare - (0 if side else 1))
    boxed = melds_box_rows(model, centre_w, meld_room - 1, clicks, four_colour) \
        if height >= 45 and side else None
    melds = [[], *boxed] if boxed else melds_rows(model, centre_w, meld_room, clicks, four_colour)
    spare -= 0 if side else len(melds)
    if side:
        middle_h = max(len(piles) + len(melds), spare)
        title = [("class:label", _("History") + " "), ("class:dim", "(a)")]
        hist = [title, *log_rows(model, hist_w, middle_h - 1)]
        centre = [*piles, *melds]
        centre += [[] for _k in range(middle_h - len(centre))]
        middle = hjoin([(centre, centre_w - 1), ([[("class:dim", "│")]] * middle_h, 1),
                        (hist, hist_w - 1)], gap=1)
        spare = 0
    else:
        logs = log_rows(model, width, max(0 if msg_rows else 1, min(spare, 6)))
        spare -= len(logs)
        middle = [*piles, *melds, *([[]] * max(0, spare)), *logs]
    rows = [*header, *opp, *middle, *staged, *me, *hand, *buttons, *msg_rows, *status]
    if len(rows) > height:
        # never cut the bottom: the hand, the buttons and the answer line stay
        over = len(rows) - height
        keep_top = len(header)
        cut_from = rows[keep_top:keep_top + len(opp) + len(middle)]
        cut_from = cut_from[: max(0, len(cut_from) - over)]
        rows = [*rows[:keep_top], *cut_from, *rows[keep_top + len(opp) + len(middle):]]
        rows = rows[-height:] if len(rows) > height else rows
    return join_rows(rows, width)


PANEL_TITLES = {
    "help": "Help",
    "history": "History",
    "scores": "Score sheet",
}


def panel_lines(model: TableModel, width: int) -> list[Row]:
    """The open panel's content as rows (wrapped at word boundaries)."""
    from rami_lan.cli.ui.help import help_lines

    rows: list[Row] = []
    if model.panel == "help":
        for line in help_lines(model.variant, model):
            for part in wrap_text(line, width - 2):
                rows.append([("", part)])
    elif model.panel == "history":
        if not model.log:
            rows.append([("class:dim", _("Nothing happened yet."))])
        for line in model.log:
            wrapped = wrap_text(line, width - 4)
            for k, part in enumerate(wrapped):
                rows.append([("class:log", ("• " if k == 0 else "  ") + part)])
    elif model.panel == "scores":
        rows = score_sheet_rows(model, width)
    return rows


def score_sheet_rows(model: TableModel, width: int) -> list[Row]:
    """Every round so far: each seat's score, the totals, the winner and eliminations."""
    v = model.view
    if v is None:
        return [[("class:dim", _("No round played yet."))]]
    seats = [p.seat for p in v.players]
    col = max(7, min(12, (width - 10) // max(1, len(seats))))
    head: Row = [("class:label", _("Round").ljust(8))]
    for s in seats:
        head.append(("class:player.me" if s == model.seat else "class:label",
                     model.name(s)[: col - 1].rjust(col)))
    rows: list[Row] = [head]
    if not model.rounds:
        rows.append([("class:dim", _("No round played yet."))])
    for line in model.rounds:
        row: Row = [("", str(line.round_no).ljust(8))]
        for s in seats:
            sc = line.scores.get(s)
            text = "" if sc is None else f"{sc:+d}"
            if line.winner == s:
                text = "★ " + text
            if s in line.eliminated:
                text = "X " + text
            row.append(("class:winner" if line.winner == s else
                        "class:eliminated" if s in line.eliminated else "", text.rjust(col)))
        rows.append(row)
    total: Row = [("class:total", _("Total").ljust(8))]
    for p in v.players:
        total.append(("class:eliminated" if p.eliminated else "class:total",
                      (("X " if p.eliminated else "") + str(p.total)).rjust(col)))
    rows.append([("class:dim", "─" * min(width - 1, 8 + col * len(seats)))])
    rows.append(total)
    if has_elimination(model.variant) or any(p.eliminated for p in v.players):
        legend = _("★ won the round · X eliminated · {limit}")
    else:
        legend = _("★ won the round · {limit}")
    rows.append([("class:dim", legend.format(limit=limit_text(model)))])
    return rows


def render_panel(model: TableModel, width: int, height: int, clicks: Clicks | None) -> list[Fragment]:
    """A full-screen panel (help, history, score sheet) that scrolls with ↑ ↓."""
    name = model.panel or "help"
    title = {"help": _("Help"), "history": _("History"), "scores": _("Score sheet")}[name]
    content = panel_lines(model, width)
    room = max(1, height - 2)
    top = max(0, min(model.panel_scroll, len(content) - room))
    if name == "history" and model.panel_scroll < 0:
        top = max(0, len(content) - room)  # opened on the latest lines
    model.panel_scroll = top
    shown = content[top:top + room]
    more = ""
    if len(content) > room:
        more = " " + _("lines {a}-{b} of {n}").format(a=top + 1, b=top + len(shown), n=len(content))
    close = _h(clicks, lambda: clicks.button("close"))  # type: ignore[union-attr]
    head: Row = [("class:header", " " + title + more)]
    esc = _("[Esc ×]")  # the key's name in the player's language: [Échap ×]
    head = pad(head, width - len(esc) - 1, "class:header")
    head.append(("class:button", esc, close) if close else ("class:button", esc))
    foot: Row = [("class:status", _("↑ ↓ PgUp PgDn scroll · Esc close"))]
    rows = [head, *shown, *([[]] * (room - len(shown))), foot]
    if clicks is not None:
        # the mouse wheel scrolls the panel anywhere on it
        wheel = on_click_or_scroll(None, clicks.scroll)
        rows = [[(f[0], f[1], f[2] if len(f) > 2 else wheel) for f in pad(r, width)]
                for r in rows]
    return join_rows(rows, width)


# --- the round result ---------------------------------------------------------------


def render_result(
    model: TableModel, width: int = 80, clicks: Clicks | None = None, four_colour: bool = False,
    height: int | None = None,
) -> list[Fragment]:
    """Every hand with each card's points, the round scores and totals, the winner, and
    the score sheet of every round so far; the buttons always stay on screen."""
    if model.panel is not None:
        return render_panel(model, width, height or 24, clicks)
    lines = Lines()
    v = model.view
    if v is None or v.last_result is None:
        return [("", _("Waiting for the table…"))]
    res = v.last_result
    var = get_variant(v.variant)
    lines.add("class:header", " " + _("End of round {n}").format(n=v.round_no).ljust(width - 1))
    lines.nl()
    if res.winner is not None:
        text = (_("You go out!") if res.winner == model.seat
                else _("{who} goes out!").format(who=model.name(res.winner)))
        if res.rami_sec:
            text += "  " + (_("Rami sec!") if var.rami_sec_multiplier > 1 else _("Going rami!"))
        lines.add("class:winner", text)
    else:
        from rami_lan.cli.ui.describe import reason_text

        lines.add("class:dim", _("Round over: {reason}.").format(reason=reason_text(res.reason)))
    lines.nl()
    for row in fairness_rows(model, width):
        lines.add(*row[0])
        lines.nl()
    lines.nl()
    hands = dict(res.hands)
    scores = dict(res.scores)
    laid = dict(res.laid_points)
    hp = dict(res.hand_points)
    for p in v.players:
        s = p.seat
        name = model.name(s)[:16].ljust(17)
        lines.add("class:player.me" if s == model.seat else "class:player", name)
        if s in scores:
            sc = scores[s]
            lines.add("", _("round {sc:+d}").format(sc=sc).ljust(12))
        else:
            lines.add("", " " * 12)
        lines.add("class:total", _("total {n}").format(n=p.total).ljust(12))
        if var.scoring == "laid_minus_hand" and s in laid:
            lines.add("class:dim", _("laid {n}").format(n=laid[s]) + "  ")
        if p.eliminated:
            lines.add("class:eliminated", "X " + _("eliminated"))
        lines.nl()
        if s in hands:
            lines.add("", "   ")
            cards = hands[s]
            if not cards:
                lines.add("class:dim", _("(empty hand)"))
            for c in cards:
                if lines.col + 8 > width:
                    lines.nl()
                    lines.add("", "   ")
                lines.add(card_style(c, four_colour), face_text(c))
                lines.add("class:points", f"·{hand_points(var, c)} ")
            if cards:
                total = "= " + points_text(hp.get(s, 0))
                if res.rami_sec and s != res.winner:  # why the round score is not the hand's
                    total += " " + rami_sec_note(var.rami_sec_multiplier, var.rami_sec_bonus)
                if lines.col + len(total) > width:
                    lines.nl()
                    lines.add("", "   ")
                lines.add("class:total", total)
            lines.nl()
    top = split_rows(lines.frags)
    lines = Lines()
    if v.match_over:
        if v.winner is not None:
            won = (_("You win the match!") if v.winner == model.seat
                   else _("{who} wins the match!").format(who=model.name(v.winner)))
            lines.add("class:winner", " " + won + " ")
        else:
            lines.add("class:winner", _("The match is over."))
        lines.nl()
    elif v.tiebreak:
        lines.add("class:warn", _("Tie: a deciding round between {names}.").format(
            names=", ".join(model.name(s) for s in v.tiebreak)))
        lines.nl()
    lines.nl()
    me = v.players[model.seat] if model.seat < len(v.players) else None
    can_go_on = not v.match_over and me is not None and not me.eliminated
    items: list[Row] = []
    named = [("continue", "[" + _("Continue") + " ⏎]")] if can_go_on else []
    named.append(("leave", "[" + _("Leave") + " q]"))
    named += [(name, f"[{button_label(name)} {key}]") for name, key in header_buttons(model)]
    for name, text in named:
        h = on_click(lambda n=name: clicks.button(n)) if clicks is not None else None
        items.append([("class:button", text, h) if h else ("class:button", text)])
    # the buttons wrap (never cut): Continue and Leave first, a gap after them
    first = 2 if can_go_on else 1
    wrapped = wrap_items(items[:first], width, 2)
    rest = wrap_items(items[first:], width, 1)
    if wrapped and rest and row_len(wrapped[-1]) + 2 + row_len(rest[0]) <= width:
        wrapped[-1] = [*wrapped[-1], ("", "  "), *rest[0]]
        rest = rest[1:]
    for row in [*wrapped, *rest]:
        for fr in row:
            lines.add(fr[0], fr[1], fr[2] if len(fr) > 2 else None)
        lines.nl()
    if model.chat_input is not None:
        lines.add("class:chat.input", chat_input_text(model, width))
    elif model.error:
        lines.add("class:error", model.error[: width - 1])
    elif model.log:
        lines.add("class:log", model.log[-1][: width - 1])
    bottom = split_rows(lines.frags)
    sheet: list[Row] = []
    if model.rounds:
        sheet = [[("class:label", _("Score sheet") + " "), ("class:dim", "(n)")],
                 *score_sheet_rows(model, width)]
    gap: list[Row] = [[]] if sheet else []
    if height is not None:
        room = height - len(bottom) - len(gap)
        if len(top) + len(sheet) > room:
            sheet = sheet[: max(0, room - len(top))]
        if not sheet:
            gap, room = [], height - len(bottom)
        if len(top) > room:
            top = top[: max(1, room)]
        bottom = bottom[: height - len(top) - len(sheet) - len(gap)]
    return join_rows([*top, *sheet, *gap, *bottom], width)


# --- the pieces other screens reuse (the replay screen) -------------------------------


def _add_rows(lines: Lines, rows: list[Row]) -> None:
    for row in rows:
        for f in row:
            lines.add(f[0], f[1], f[2] if len(f) > 2 else None)
        lines.nl()


def render_players(lines: Lines, model: TableModel, width: int,
                   clicks: Clicks | None = None) -> None:
    """Every seat other than ``model.seat`` on one line each (a spectator sees all)."""
    _add_rows(lines, opponents_rows(model, width, False, clicks))


def render_piles(lines: Lines, model: TableModel, clicks: Clicks | None, four: bool,
                 width: int = 80) -> None:
    _add_rows(lines, piles_rows(model, width, 3, clicks, four))


def render_melds(lines: Lines, model: TableModel, width: int, max_rows: int,
                 clicks: Clicks | None, four: bool) -> None:
    _add_rows(lines, melds_rows(model, width, max_rows, clicks, four))
