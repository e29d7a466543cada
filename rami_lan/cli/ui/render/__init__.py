"""Render the table model as prompt_toolkit formatted text: ``(style, text[, handler])``.

Pure functions of the model (plus optional click callbacks): no state, no I/O. Laid
out for 80x24 with four players; wider terminals get more room for the melds.

One module per job: `base` (the click and drag protocols, shared small pieces),
`players` (header, opponents, our line), `board` (piles and melds), `hand` (the hand
and the buttons), `panels` (messages, history, fairness, status, help and score sheet
panels), `table` (`render_table`, and the pieces the replay screen reuses) and `result`
(`render_result`). Every name stays importable from here.
"""

from __future__ import annotations

from rami_lan.cli.ui.render.base import (
    Clicks,
    Drags,
    cards_count,
    drag_target,
    points_text,
)
from rami_lan.cli.ui.render.board import (
    chip,
    meld_box,
    meld_item,
    melds_box_rows,
    melds_rows,
    piles_rows,
)
from rami_lan.cli.ui.render.hand import (
    BUTTONS_DRAW,
    BUTTONS_PLAY,
    CARD_FULL,
    CARD_W,
    FAN_MAX_STRIP,
    button_label,
    buttons_rows,
    fan_card_height,
    fan_fits,
    fan_strip,
    hand_chip_rows,
    hand_fan_rows,
    has_elimination,
    has_joker_recovery,
    mark_cells,
    staged_row,
)
from rami_lan.cli.ui.render.panels import (
    PANEL_TITLES,
    chat_input_text,
    dealing_rows,
    fairness_rows,
    history_width,
    log_rows,
    message_rows,
    panel_lines,
    render_panel,
    score_sheet_rows,
    status_text,
)
from rami_lan.cli.ui.render.players import (
    CONNECTION_STYLE,
    connection_mark,
    connection_text,
    header_buttons,
    limit_text,
    my_line,
    opponent_box,
    opponent_line,
    opponents_rows,
    render_header,
    seat_connection_text,
    seat_marks,
    seat_title,
)
from rami_lan.cli.ui.render.result import (
    render_result,
)
from rami_lan.cli.ui.render.table import (
    render_melds,
    render_piles,
    render_players,
    render_table,
)

__all__ = [
    "BUTTONS_DRAW",
    "BUTTONS_PLAY",
    "CARD_FULL",
    "CARD_W",
    "CONNECTION_STYLE",
    "Clicks",
    "Drags",
    "FAN_MAX_STRIP",
    "PANEL_TITLES",
    "button_label",
    "buttons_rows",
    "cards_count",
    "chat_input_text",
    "chip",
    "connection_mark",
    "connection_text",
    "dealing_rows",
    "drag_target",
    "fairness_rows",
    "fan_card_height",
    "fan_fits",
    "fan_strip",
    "hand_chip_rows",
    "hand_fan_rows",
    "has_elimination",
    "has_joker_recovery",
    "header_buttons",
    "history_width",
    "limit_text",
    "log_rows",
    "mark_cells",
    "meld_box",
    "meld_item",
    "melds_box_rows",
    "melds_rows",
    "message_rows",
    "my_line",
    "opponent_box",
    "opponent_line",
    "opponents_rows",
    "panel_lines",
    "piles_rows",
    "points_text",
    "render_header",
    "render_melds",
    "render_panel",
    "render_piles",
    "render_players",
    "render_result",
    "render_table",
    "score_sheet_rows",
    "seat_connection_text",
    "seat_marks",
    "seat_title",
    "staged_row",
    "status_text",
]
