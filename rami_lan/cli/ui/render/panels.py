"""The words around the cards: the message line (chat being typed, a refusal, a
question), the table's history, the dealing and fairness verdicts, the status line, and
the full-screen panels (help, history, score sheet)."""

from __future__ import annotations

from rami_lan.cli.messages import fairness_details
from rami_lan.cli.ui.cards import face_text
from rami_lan.cli.ui.layout import Row, join_rows, pad, wrap_text
from rami_lan.cli.ui.model import TableModel
from rami_lan.cli.ui.render.base import Clicks, _h
from rami_lan.cli.ui.render.hand import has_elimination, has_joker_recovery
from rami_lan.cli.ui.render.players import limit_text
from rami_lan.cli.ui.text import Fragment, on_click_or_scroll
from rami_lan.i18n import _, ngettext
from rami_lan.net.chat import MAX_CHAT_CHARS


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
