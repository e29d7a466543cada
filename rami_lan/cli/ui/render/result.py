"""The round's result: every hand with each card's points, the round scores and totals,
the winner, the fairness verdict and the score sheet, with the buttons always on screen."""

from __future__ import annotations

from rami_lan.cli.messages import rami_sec_note
from rami_lan.cli.ui.cards import card_style, face_text
from rami_lan.cli.ui.layout import Row, join_rows, row_len, split_rows, wrap_items
from rami_lan.cli.ui.model import TableModel
from rami_lan.cli.ui.render.base import Clicks, points_text
from rami_lan.cli.ui.render.hand import button_label
from rami_lan.cli.ui.render.panels import chat_input_text, fairness_rows, render_panel, score_sheet_rows
from rami_lan.cli.ui.render.players import header_buttons
from rami_lan.cli.ui.text import Fragment, Lines, on_click
from rami_lan.core.melds import hand_points
from rami_lan.core.variants import get_variant
from rami_lan.i18n import _


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
