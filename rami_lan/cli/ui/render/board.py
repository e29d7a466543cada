"""The middle of the table: the stock and the discard pile, and the melds laid down (as
lines, or boxes on wide screens), with their drop targets and lay-off arrows."""

from __future__ import annotations

from rami_lan.cli.ui.cards import card_style, face_text, stands_text
from rami_lan.cli.ui.layout import Row, hjoin, row_len, wrap_items
from rami_lan.cli.ui.model import TableModel
from rami_lan.cli.ui.render.base import Clicks, _dragged_over, _h, drag_target
from rami_lan.cli.ui.text import Fragment
from rami_lan.core.cards import Card
from rami_lan.i18n import _


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
