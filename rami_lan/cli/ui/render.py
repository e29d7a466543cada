"""Render the table model as prompt_toolkit formatted text: ``(style, text[, handler])``.

Pure functions of the model (plus optional click callbacks): no state, no I/O. Laid
out for 80x24 with four players; wider terminals get more room for the melds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from rami_lan.cli.ui.cards import card_style, chip_width, face_text, stands_text
from rami_lan.cli.ui.model import TableModel
from rami_lan.cli.ui.text import Fragment, Lines, on_click
from rami_lan.core.melds import hand_points
from rami_lan.core.variants import get_variant
from rami_lan.i18n import _
from rami_lan.net.chat import MAX_CHAT_CHARS

HAND_ROW_CARDS = 15


class Clicks(Protocol):
    """What a click on the table does (the table screen implements it)."""

    def card(self, index: int) -> None: ...
    def stock(self) -> None: ...
    def discard(self, depth: int) -> None: ...
    def meld(self, index: int) -> None: ...
    def button(self, name: str) -> None: ...
    def player(self, seat: int) -> None: ...


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


def _chip(lines: Lines, card, four: bool, extra: str = "", handler=None) -> None:  # type: ignore[no-untyped-def]
    lines.add("class:chip" + extra, "[", handler)
    lines.add(card_style(card, four) + extra, face_text(card), handler)
    lines.add("class:chip" + extra, "]", handler)


def header_buttons(model: TableModel) -> list[tuple[str, str]]:
    """The player buttons of the header: (name, key), most important first."""
    out = [("info", "i"), ("chat", ":")]
    if model.can_invite:
        out.append(("invite", "v"))
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
    buttons: list[str] = []
    for i, (name, key) in enumerate(names):
        text = f"[{button_label(name)} {key}]"
        rest = sum(len(f"[{k}]") + 1 for _n, k in names[i + 1:])
        if sum(len(b) + 1 for b in buttons) + len(text) + 1 + rest > room:
            text = f"[{key}]"  # no room for the label: the key alone
        if sum(len(b) + 1 for b in buttons) + len(text) + 1 > room:
            break
        buttons.append(text)
    used = sum(len(b) + 1 for b in buttons)
    pad = max(1, width - len(left) - len(clock) - len(conn) - len(right) - used)
    lines.add("class:header", " " * pad)
    if conn:
        lines.add("class:header.warn", conn)
    if clock:
        lines.add("class:header.clock" + (".low" if secs is not None and secs <= 5 else ""), clock)
    for (name, _key), text in zip(header_buttons(model), buttons, strict=False):
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
    "left": "class:error",
    "connected": "class:opened",
}


def render_players(
    lines: Lines, model: TableModel, width: int, clicks: Clicks | None = None
) -> None:
    v = model.view
    if v is None:
        return
    seats = [p.seat for p in v.players]
    me = model.seat
    order = [s for s in seats if s != me] + ([me] if me in seats else [])
    for s in order:
        p = v.players[s]
        playing = v.turn == s and v.phase in ("draw", "play")
        lines.add("class:turn.arrow" if playing else "", "→ " if playing else "  ")
        if s == me and playing:
            lines.add("class:turn.mine", "! ")
        else:
            lines.add("", "  ")
        label = model.name(s) + (" " + _("(you)") if s == me else "")
        if v.dealer == s:
            label += " " + _("(D)")
        who = on_click(lambda s=s: clicks.player(s)) if clicks is not None else None
        lines.add("class:player.me" if s == me else "class:player", label[:22].ljust(23), who)
        if p.eliminated:
            lines.add("class:eliminated", "X " + _("eliminated"))
            lines.add("", f"  {_('{n} pts').format(n=p.total)}")
            lines.nl()
            continue
        if p.in_round:
            lines.add("", _("{n} cards").format(n=p.n_cards).ljust(10))
        else:
            lines.add("", " " * 10)
        lines.add("", _("{n} pts").format(n=p.total).rjust(8) + "  ")
        if get_variant(v.variant).scoring == "laid_minus_hand":
            lines.add("class:dim", _("laid {n}").format(n=p.laid_points).ljust(10))
        elif p.opened:
            lines.add("class:opened", _("opened").ljust(11))
        else:
            lines.add("class:dim", _("not opened").ljust(11))
        if p.away:
            lines.add("class:warn", _("away"))
        elif s == me:
            lines.add("class:dim", connection_text(model.connection))
        elif model.connections:
            state = model.seat_connection(s)
            lines.add(CONNECTION_STYLE.get(state, ""), seat_connection_text(state))
        lines.nl()


def render_piles(lines: Lines, model: TableModel, clicks: Clicks | None, four: bool) -> None:
    v = model.view
    if v is None:
        return

    def h(fn: Callable[[], None]):  # type: ignore[no-untyped-def]
        return on_click(fn) if clicks is not None else None

    lines.add("class:label", _("Stock") + " ")
    lines.add(
        "class:stock",
        f"[▒▒ {v.stock_size}]",
        h(lambda: clicks.stock()) if clicks else None,  # type: ignore[union-attr]
    )
    lines.add("", "   ")
    lines.add("class:label", _("Discard") + " ")
    if not v.discard:
        lines.add("class:dim", _("(empty)"))
    else:
        pile = list(v.discard)
        n = len(pile)
        max_cards = 14
        shown = pile[-max_cards:]
        if n > len(shown):
            lines.add("class:dim", "… ")
        for k, card in enumerate(shown):
            depth = len(shown) - k
            extra = " class:depth" if depth <= model.depth and n > 1 and len(v.discard) > 1 else ""
            handler = h(lambda d=depth: clicks.discard(d)) if clicks else None  # type: ignore[union-attr]
            _chip(lines, card, four, extra, handler)
        if len(v.discard) > 1:
            lines.add("class:dim", " " + _("depth {n}").format(n=model.depth))
        elif v.discard_size > 1:
            lines.add("class:dim", " " + _("({n} cards)").format(n=v.discard_size))
    lines.nl()


def meld_fragments(model: TableModel, index: int, four: bool) -> list[tuple[str, str]]:
    v = model.view
    assert v is not None
    m = v.melds[index]
    out: list[tuple[str, str]] = []
    owner = model.name(m.owner)[:8] if m.owner >= 0 else "?"
    out.append(("class:meld.label", f"{index + 1}:{owner} "))
    stands = m.stands_for_text()
    for card, st in zip(m.cards, stands, strict=True):
        if card.is_joker:
            out.append(("class:card.joker", "(" + stands_text(st) + ")"))
        else:
            out.append((card_style(card, four), face_text(card)))
        out.append(("", " "))
    return out


def render_melds(
    lines: Lines, model: TableModel, width: int, max_rows: int, clicks: Clicks | None, four: bool
) -> None:
    v = model.view
    if v is None:
        return
    if not v.melds:
        lines.add("class:dim", _("No melds on the table yet."))
        lines.nl()
        return
    rows_used = 1
    for i in range(len(v.melds)):
        frs = meld_fragments(model, i, four)
        w = sum(len(t) for _s, t in frs) + 1
        if lines.col and lines.col + w > width:
            if rows_used >= max_rows:
                lines.add("class:dim", "…" + _("+{n} melds").format(n=len(v.melds) - i))
                break
            lines.nl()
            rows_used += 1
        sel = " class:meld.target" if i == model.target else ""
        handler = on_click(lambda i=i: clicks.meld(i)) if clicks is not None else None
        for style, text in frs:
            lines.add(style + sel, text, handler)
        lines.add("", " ")
    lines.nl()


def render_hand(lines: Lines, model: TableModel, clicks: Clicks | None, four: bool) -> None:
    hand = model.hand
    hinted = model.hinted()
    staged = model.staged_cards()
    if model.staged:
        lines.add("class:label", _("To lay down:") + " ")
        for g in model.staged:
            lines.add("class:staged", "[" + " ".join(face_text(c) for c in g) + "] ")
        lines.nl()
    if not hand:
        lines.add("class:dim", _("(no cards in hand)"))
        lines.nl()
        return
    for start in range(0, len(hand), HAND_ROW_CARDS):
        chunk = list(enumerate(hand))[start : start + HAND_ROW_CARDS]
        for row in ("up", "down", "marks"):
            lines.add("", " ")
            for i, card in chunk:
                w = chip_width(card)
                lifted = card in model.selected
                handler = on_click(lambda i=i: clicks.card(i)) if clicks is not None else None
                if row == "marks":
                    mark = "^" if i == model.cursor else ("=" if card in staged else " ")
                    lines.add("class:cursor.mark", mark.center(w), handler)
                    lines.add("", " ")
                    continue
                if (row == "up") != lifted:
                    lines.add("", " " * w, handler)
                    lines.add("", " ")
                    continue
                extra = ""
                if card in hinted:
                    extra += " class:hint"
                if i == model.cursor:
                    extra += " class:cursor"
                if card in staged:
                    extra += " class:staged"
                _chip(lines, card, four, extra, handler)
                lines.add("", " ")
            lines.nl()


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
    }[name]


def render_buttons(lines: Lines, model: TableModel, clicks: Clicks | None) -> None:
    v = model.view
    flags = model.legal()
    names: list[tuple[str, str]] = []
    if v is not None and v.my_turn and v.phase == "draw":
        names += [(n, k) for n, k, _l in BUTTONS_DRAW]
    else:
        names += [(n, k) for n, k, _l in BUTTONS_PLAY]
    if v is not None and v.knock:
        names.append(("knock", "f"))
    names += [("sort_suit", "s"), ("sort_rank", "r")]
    for name, key in names:
        active = flags.get(name, True) if name not in ("sort_suit", "sort_rank") else True
        style = "class:button" if active else "class:button.off"
        if name == "knock" and active:
            style = "class:button.knock"
        handler = on_click(lambda n=name: clicks.button(n)) if clicks is not None else None
        lines.add(style, f"[{button_label(name)} {key}]", handler)
        lines.add("", " ")
    lines.nl()


def chat_input_text(model: TableModel, width: int) -> str:
    """The chat line being typed, its length and the keys, cut to ``width``."""
    text = model.chat_input or ""
    tail = "  " + _("({n}/{max}) Enter send · Esc cancel").format(
        n=len(text), max=MAX_CHAT_CHARS)
    head = _("Chat:") + " "
    room = max(8, width - 1 - len(head) - len(tail) - 1)
    shown = text if len(text) <= room else "…" + text[-(room - 1):]
    return (head + shown + "_" + tail)[: width - 1]


def render_log(lines: Lines, model: TableModel, width: int) -> None:
    if model.chat_input is not None:
        if model.error:
            lines.add("class:error", model.error[: width - 1])
            lines.nl()
        lines.add("class:chat.input", chat_input_text(model, width))
    elif model.confirm:
        lines.add("class:warn", model.confirm[: width - 1])
    elif model.error:
        lines.add("class:error", (_("Refused: {why}").format(why=model.error))[: width - 1])
    elif model.log:
        lines.add("class:log", model.log[-1][: width - 1])
    lines.nl()


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
        return _("Space select · m lay down · o lay off (↑↓ meld) · c joker · x discard")
    return ""


def render_table(
    model: TableModel,
    width: int = 80,
    height: int = 24,
    clicks: Clicks | None = None,
    four_colour: bool = False,
) -> list[Fragment]:
    """The whole table screen."""
    lines = Lines()
    render_header(lines, model, width, clicks)
    render_players(lines, model, width, clicks)
    render_piles(lines, model, clicks, four_colour)
    hand_rows = 3 * max(1, -(-len(model.hand) // HAND_ROW_CARDS)) + (1 if model.staged else 0)
    fixed = lines.rows + hand_rows + 3
    render_melds(lines, model, width, max(1, height - fixed - 1), clicks, four_colour)
    pad = height - lines.rows - hand_rows - 3
    for _i in range(max(0, pad)):
        lines.nl()
    render_hand(lines, model, clicks, four_colour)
    render_buttons(lines, model, clicks)
    render_log(lines, model, width)
    lines.add("class:status", status_text(model)[: width - 1])
    return lines.frags


# --- the round result ---------------------------------------------------------------


def render_result(
    model: TableModel, width: int = 80, clicks: Clicks | None = None, four_colour: bool = False
) -> list[Fragment]:
    """Every hand with each card's points, the round scores and totals, the winner."""
    lines = Lines()
    v = model.view
    if v is None or v.last_result is None:
        return [("", _("Waiting for the table…"))]
    res = v.last_result
    var = get_variant(v.variant)
    lines.add("class:header", " " + _("End of round {n}").format(n=v.round_no).ljust(width - 1))
    lines.nl()
    if res.winner is not None:
        text = _("{who} goes out!").format(who=model.name(res.winner))
        if res.rami_sec:
            text += "  " + (_("Rami sec!") if var.rami_sec_multiplier > 1 else _("Going rami!"))
        lines.add("class:winner", text)
    else:
        from rami_lan.cli.ui.describe import reason_text

        lines.add("class:dim", _("Round over: {reason}.").format(reason=reason_text(res.reason)))
    lines.nl()
    if model.fairness is not None and not model.fairness[0]:
        lines.add("class:alarm", " " + _("FAIRNESS CHECK FAILED: {details}").format(
            details=model.fairness[1]) + " ")
        lines.nl()
    elif model.fairness is not None:
        lines.add("class:opened", _("Fair shuffle checked."))
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
                lines.add("class:total", "= " + _("{n} pts").format(n=hp.get(s, 0)))
            lines.nl()
    lines.nl()
    if v.match_over:
        if v.winner is not None:
            lines.add("class:winner", " " + _("{who} wins the match!").format(
                who=model.name(v.winner)) + " ")
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
    if can_go_on:
        h = on_click(lambda: clicks.button("continue")) if clicks is not None else None
        lines.add("class:button", "[" + _("Continue") + " ⏎]", h)
        lines.add("", "  ")
    h2 = on_click(lambda: clicks.button("leave")) if clicks is not None else None
    lines.add("class:button", "[" + _("Leave") + " q]", h2)
    lines.add("", "  ")
    for name, key in header_buttons(model):
        h3 = on_click(lambda n=name: clicks.button(n)) if clicks is not None else None
        lines.add("class:button", f"[{button_label(name)} {key}]", h3)
        lines.add("", " ")
    lines.nl()
    if model.chat_input is not None:
        lines.add("class:chat.input", chat_input_text(model, width))
    elif model.error:
        lines.add("class:error", model.error[: width - 1])
    elif model.log:
        lines.add("class:log", model.log[-1][: width - 1])
    return lines.frags
