"""The table screen as a whole: `render_table` lays the header, opponents, piles, melds,
hand, buttons and messages out for the terminal's size (80x24 with four players; wider
terminals get more room for the melds); and the pieces the replay screen reuses
(`render_players`, `render_piles`, `render_melds`)."""

from __future__ import annotations

from rami_lan.cli.ui.layout import Row, hjoin, join_rows, row_len, split_rows, wrap_text
from rami_lan.cli.ui.model import TableModel
from rami_lan.cli.ui.render.base import Clicks, _h
from rami_lan.cli.ui.render.board import melds_box_rows, melds_rows, piles_rows
from rami_lan.cli.ui.render.hand import buttons_rows, fan_fits, hand_chip_rows, hand_fan_rows, staged_row
from rami_lan.cli.ui.render.panels import history_width, log_rows, message_rows, render_panel, status_text
from rami_lan.cli.ui.render.players import my_line, opponents_rows, render_header
from rami_lan.cli.ui.text import Fragment, Lines
from rami_lan.i18n import _


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
