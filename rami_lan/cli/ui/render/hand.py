"""Our hand (a fan of overlapping cards, or chips on narrow screens), the cards staged
for a meld, and the action buttons under it."""

from __future__ import annotations

from itertools import groupby

from rami_lan.cli.ui.cards import card_style, chip_width, face_text
from rami_lan.cli.ui.layout import Row, wrap_items
from rami_lan.cli.ui.model import TableModel
from rami_lan.cli.ui.render.base import Clicks, _h, drag_target
from rami_lan.cli.ui.render.board import chip
from rami_lan.core.cards import Card
from rami_lan.core.variants import get_variant
from rami_lan.i18n import _


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
