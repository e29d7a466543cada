"""The lobby's view: what the lobby screen shows (the tables and players found, the menu,
a form, an invitation, the statistics) as prompt_toolkit fragments, clicks included. It
reads the lobby and calls its actions; it decides nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys

from rami_lan.cli.messages import invitation_prompt, player_status_text
from rami_lan.cli.ui.forms import Field, Form
from rami_lan.cli.ui.text import Lines, on_click, screen_size
from rami_lan.i18n import _
from rami_lan.textsafe import safe_text

if TYPE_CHECKING:
    from rami_lan.cli.ui.lobby import Lobby


def short_fp(fp: str) -> str:
    """A certificate fingerprint the way players compare it aloud (``3F2A-91BC-…``)."""
    try:
        from rami_lan.net.tls import short_fingerprint

        return short_fingerprint(fp)
    except (ImportError, ValueError):
        return safe_text(fp, 16)


class LobbyView:
    """Renders one `Lobby`."""

    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby
        self._w = 80

    def size(self) -> tuple[int, int]:
        return screen_size()

    def text(self, width: int = 80, height: int = 24) -> str:
        """The screen as plain text at ``width`` x ``height`` (tests, snapshots)."""
        frags = self.fragments(width)
        rows = "".join(f[1] for f in frags).split("\n")
        return "\n".join(row[:width] for row in rows[:height])

    def fragments(self, width: int | None = None):  # type: ignore[no-untyped-def]
        self._w = width or self.size()[0]
        lines = Lines()
        title = " rami-lan — " + _("Lobby")
        who = _("Nickname: {nick}").format(nick=self.lobby.settings.nickname) + " "
        lines.add("class:lobby.title",
                  (title + " " * max(1, self._w - len(title) - len(who)) + who)[: self._w])
        lines.nl()
        lines.nl()
        form = self.lobby.form()
        if self.lobby.invites:
            self._render_invite(lines)
        elif form is not None:
            self._render_form(lines, form)
        elif self.lobby.mode == "stats":
            self._render_stats(lines)
        else:
            self._render_main(lines)
        lines.nl()
        if self.lobby.busy:
            lines.add("class:warn", _("Please wait…"))
        elif self.lobby.message:
            lines.add("class:error", self.lobby.message[: self._w - 1])
        lines.nl()
        return lines.frags

    def _render_main(self, lines: Lines) -> None:
        lines.add("class:label", _("Tables on the network"))
        lines.nl()
        if not self.lobby.tables:
            if self.lobby.browser_factory is None:
                note = _("(the network is not searched: browsing is off)")
            elif self.lobby.browse_error is not None:
                note = _("(no network: no table can be found)")
            else:
                note = _("(no table found yet — looking…)")
            lines.add("class:dim", "  " + note)
            lines.nl()
        any_private = any(getattr(t, "private_deal", False) for t in self.lobby.tables)
        for i, (kind, ad) in enumerate(self.lobby.items()):
            if kind != "table":
                continue
            style = "class:lobby.current" if i == self.lobby.index else "class:lobby.item"
            seats = _("{taken}/{total} seats").format(taken=ad.seats_taken, total=ad.seats_total)
            code = _("code") if ad.code_required else ""
            nw, hw = ((18, 10) if any_private else (20, 12)) if self._w >= 80 else (10, 7)
            private = " " + _("private") if getattr(ad, "private_deal", False) else ""
            text = (f"  {ad.name[:nw]:<{nw}} {ad.host[:hw]:<{hw}} {ad.variant:<9} "
                    f"{seats:<10} {code:<5} {_('limit {n}').format(n=ad.point_limit)}{private}")
            if str(getattr(ad, "table_id", "")) in self.lobby.kept:  # our own seat, kept on disk
                text = "  " + _("Rejoin") + " · " + text[2:]
            lines.add(style, text[: self._w - 1], on_click(lambda i=i: self.lobby.activate(i)))
            lines.nl()
        if self.lobby.presence:
            lines.add("class:label", _("Players on the network"))
            lines.nl()
            if not self.lobby.players:
                lines.add("class:dim", "  " + _("(nobody seen yet)"))
                lines.nl()
            for ad in self.lobby.players[:6]:
                style = "class:lobby.item" if ad.invitable else "class:dim"
                lines.add(style, f"  {ad.nickname[:24]:<24} {player_status_text(ad.status)}"[: self._w - 1])
                lines.nl()
        lines.nl()
        labels = {
            "new": _("New table — open a table on the network"),
            "solo": _("Solo — play at once against bots"),
            "stats": _("Statistics — your matches, per variant"),
            "settings": _("Settings — nickname, language, colours"),
            "quit": _("Quit"),
        }
        keys = {"new": "n", "solo": "s", "stats": "t", "settings": "o", "quit": "q"}
        for i, (kind, _ad) in enumerate(self.lobby.items()):
            if kind == "table":
                continue
            style = "class:lobby.current" if i == self.lobby.index else "class:lobby.item"
            lines.add(style, f"  [{keys[kind]}] {labels[kind]}  ",
                      on_click(lambda i=i: self.lobby.activate(i)))
            lines.nl()
        lines.nl()
        self._status(lines, _("↑ ↓ choose · Enter: join / open · n s t o q · ? rules in game"))
        lines.nl()

    def _status(self, lines: Lines, text: str) -> None:
        """A key reminder, wrapped between words on narrow terminals."""
        from rami_lan.cli.ui.layout import wrap_text

        for i, part in enumerate(wrap_text(text, self._w - 1)):
            if i:
                lines.nl()
            lines.add("class:status", part)

    def _render_form(self, lines: Lines, form: Form) -> None:
        lines.add("class:label", form.title())
        lines.nl()
        lines.nl()
        for i, f in enumerate(form.shown()):
            cur = i == form.index
            style = "class:lobby.current" if cur else "class:lobby.item"

            def click(i: int = i, f: Field = f) -> None:
                form.index = i
                form.change(1)

            lines.add(style, f"  {f.label():<22}", on_click(click))
            val = form.value_text(f)
            if f.choices is None:
                lines.add("class:lobby.value", " ")
                if cur:  # the typing position, shown on the character it is on
                    i = form.text_cursor()
                    lines.add("class:lobby.value", val[:i])
                    lines.add("class:lobby.value reverse", val[i:i + 1] or " ")
                    lines.add("class:lobby.value", val[i + 1:])
                else:
                    lines.add("class:lobby.value", val)
            else:
                lines.add("class:lobby.value", f" ‹ {val} ›", on_click(click))
            lines.nl()
        lines.nl()
        style = "class:lobby.current" if form.on_submit else "class:button"
        lines.add(style, f"  [ {form.submit_label()} ]  ", on_click(self.lobby.submit))
        lines.add("", "  ")
        lines.add("class:button.off", "[ " + _("Back (Esc)") + " ]", on_click(self.lobby.back))
        lines.nl()
        lines.nl()
        self._status(lines, _("↑ ↓ field · ← → change · type text · Enter confirm · Esc back"))
        lines.nl()

    def _render_invite(self, lines: Lines) -> None:
        inv = self.lobby.invites[-1]
        lines.add("class:label", _("Invitation"))
        lines.nl()
        lines.nl()
        lines.add("class:winner", " " + invitation_prompt(inv)[: self._w - 3] + " ")
        lines.nl()
        host = f"{inv.addresses[0]}:{inv.port}" if inv.addresses else "?"
        lines.add("", "  " + _("Table: {table} · host {host}").format(
            table=inv.table_name, host=host)[: self._w - 3])
        lines.nl()
        fp = short_fp(inv.fingerprint) if inv.fingerprint else _("none (no TLS yet)")
        lines.add("class:dim", "  " + _("Fingerprint: {fp}").format(fp=fp)[: self._w - 3])
        lines.nl()
        if inv.needs_typed_code:
            lines.add("class:warn", "  " + _("This table needs a join code: you will type it."))
            lines.nl()
        lines.nl()
        lines.add("class:button", "  [ " + _("Join (Enter)") + " ]  ", on_click(self.lobby.accept_invite))
        lines.add("class:button.off", "[ " + _("Decline (Esc)") + " ]",
                  on_click(self.lobby.decline_invite))
        lines.nl()

    def _render_stats(self, lines: Lines) -> None:
        lines.add("class:label", _("Statistics"))
        lines.nl()
        lines.nl()
        for line in self.lobby.stats_lines[:16]:
            lines.add("", "  " + line[: self._w - 3])
            lines.nl()
        lines.nl()
        lines.add("class:button.off", "  [ " + _("Back (Esc)") + " ]", on_click(self.lobby.back))
        lines.nl()


def lobby_bindings(lobby: Lobby) -> KeyBindings:
    """The lobby's keys: the list, the forms, an invitation, the statistics."""
    kb = KeyBindings()
    inviting = Condition(lambda: bool(lobby.invites))
    stats = Condition(lambda: lobby.mode == "stats") & ~inviting
    main = Condition(lambda: lobby.mode == "main") & ~inviting
    in_form = Condition(lambda: lobby.mode not in ("main", "stats")) & ~inviting
    text = in_form & Condition(lambda: lobby.form() is not None and lobby.form().editing_text())  # type: ignore[union-attr]

    def items_move(d: int) -> None:
        lobby.index = (lobby.index + d) % len(lobby.items())

    def act(fn: Callable[[], None]) -> Callable[[KeyPressEvent], None]:
        def handler(e: KeyPressEvent) -> None:
            lobby.message = None  # "Settings saved." answers one key, not the next screens
            fn()
            lobby._invalidate()

        return handler

    kb.add("up", filter=main)(act(lambda: items_move(-1)))
    kb.add("k", filter=main)(act(lambda: items_move(-1)))
    kb.add("down", filter=main)(act(lambda: items_move(1)))
    kb.add("j", filter=main)(act(lambda: items_move(1)))
    kb.add("enter", filter=main)(act(lobby.activate))
    kb.add("n", filter=main)(act(lambda: setattr(lobby, "mode", "new")))
    kb.add("s", filter=main)(act(lobby.open_solo))
    kb.add("o", filter=main)(act(lambda: lobby.activate(len(lobby.items()) - 2)))
    kb.add("t", filter=main)(act(lobby.show_stats))
    kb.add("escape", filter=stats)(act(lobby.back))
    kb.add("q", filter=stats)(act(lobby.back))
    kb.add("enter", filter=stats)(act(lobby.back))
    kb.add("enter", filter=inviting)(act(lobby.accept_invite))
    kb.add("y", filter=inviting)(act(lobby.accept_invite))
    kb.add("escape", filter=inviting)(act(lobby.decline_invite))
    kb.add("n", filter=inviting)(act(lobby.decline_invite))
    kb.add("q", filter=main)(act(lobby.quit))
    kb.add("c-c")(act(lobby.quit))

    def form_do(fn: Callable[[Form], None]) -> Callable[[], None]:
        return lambda: fn(lobby.form()) if lobby.form() is not None else None  # type: ignore[arg-type]

    kb.add("up", filter=in_form)(act(form_do(lambda f: f.move(-1))))
    kb.add("s-tab", filter=in_form)(act(form_do(lambda f: f.move(-1))))
    kb.add("down", filter=in_form)(act(form_do(lambda f: f.move(1))))
    kb.add("tab", filter=in_form)(act(form_do(lambda f: f.move(1))))
    kb.add("left", filter=in_form & ~text)(act(form_do(lambda f: f.change(-1))))
    kb.add("right", filter=in_form & ~text)(act(form_do(lambda f: f.change(1))))
    kb.add("left", filter=text)(act(form_do(lambda f: f.move_text(-1))))
    kb.add("right", filter=text)(act(form_do(lambda f: f.move_text(1))))
    kb.add("home", filter=text)(act(form_do(lambda f: f.text_home())))
    kb.add("end", filter=text)(act(form_do(lambda f: f.text_end())))
    kb.add("c-a", filter=text)(act(form_do(lambda f: f.text_home())))
    kb.add("c-e", filter=text)(act(form_do(lambda f: f.text_end())))
    kb.add("delete", filter=text)(act(form_do(lambda f: f.delete())))
    kb.add("space", filter=in_form & ~text)(act(form_do(lambda f: f.change(1))))
    kb.add("escape", filter=in_form)(act(lobby.back))

    def enter() -> None:
        f = lobby.form()
        if f is None:
            return
        # a short form (the join code, the settings) is saved by Enter on its last
        # field, as by its button
        if f.on_submit or lobby.mode == "code" or (lobby.mode == "settings" and f.on_last_field()):
            lobby.submit()
        else:
            f.move(1)

    kb.add("enter", filter=in_form)(act(enter))
    kb.add("backspace", filter=text)(act(form_do(lambda f: f.backspace())))

    @kb.add(Keys.Any, filter=text)
    def _type(e: KeyPressEvent) -> None:
        lobby.message = None
        f = lobby.form()
        if f is not None:
            f.type_text(e.data)
        lobby._invalidate()

    return kb
