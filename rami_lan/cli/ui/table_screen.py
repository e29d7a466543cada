"""The table screen: layout, keys and mouse, and the session reader.

The reader runs as a background task: it applies each `SessionUpdate` to the model
and invalidates the app. Keys and clicks build actions from the model and send them
to the session; the host (or the local table) judges them with the core.

Player features: ``i`` opens "Info joueur" (your card in full from the statistics
database, the others' reported cards and connection states), ``:`` opens the chat
line, ``v`` the "Inviter" panel when the screen was given an `Inviter`. The Info panel
also shows the table fingerprint (``SessionUpdate.table["fingerprint"]``) that players
compare with the host's. When a match
ends the screen records it in the local statistics (`rami_lan.stats.StatsDB`) through its
`rami_lan.cli.ui.match_record.MatchRecorder`; dragging cards is
`rami_lan.cli.ui.table_drag`.
"""

from __future__ import annotations

import asyncio
import math
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import (
    FloatContainer,
    Window,
)

from rami_lan.cli.card_text import card_lines
from rami_lan.cli.messages import chat_refusal_text, level_name, player_status_text, quit_confirmation
from rami_lan.cli.ui.match_record import MatchRecorder
from rami_lan.cli.ui.model import TableModel
from rami_lan.cli.ui.render import has_joker_recovery, render_result, render_table
from rami_lan.cli.ui.shell import Shell, popup
from rami_lan.cli.ui.table_drag import CardDragging, DragControl
from rami_lan.cli.ui.text import screen_size
from rami_lan.core.actions import Action
from rami_lan.i18n import _
from rami_lan.net.chat import MAX_CHAT_CHARS, ChatPolicy
from rami_lan.net.table_session import TableSession
from rami_lan.player_card import Connection, PlayerCard
from rami_lan.stats import StatsDB

CONNECTIONS = {c.value for c in Connection}


class Inviter(Protocol):
    """What the "Inviter" panel needs: the players seen on the LAN and a way to invite."""

    def players(self) -> Sequence[Any]:
        """`rami_lan.net.presence.PlayerAd`s (only ``invitable`` ones can be invited)."""

    async def invite(self, player: Any) -> str:
        """Send an invitation; returns the line for the log (sent, accepted, refused...)."""


def safe_nick(name: str) -> str:
    """A nickname a `PlayerCard` accepts (1-24 printable characters, no outer spaces)."""
    text = "".join(ch for ch in str(name) if ch.isprintable()).strip()[:24].strip()
    return text or "?"


class TableScreen(CardDragging):
    """One seat at one table, on screen."""

    def __init__(
        self,
        session: TableSession,
        *,
        four_colour: bool = False,
        on_leave: Callable[[], None] | None = None,
        profile: Any = None,
        stats: StatsDB | Callable[[], StatsDB] | None = StatsDB,
        inviter: Inviter | None = None,
        intro: Sequence[str] = (),
        settings: Any = None,
        save_settings: Callable[[Any], object] | None = None,
    ) -> None:
        """``profile``: the local `Profile` (nickname, player id); ``stats``: the
        statistics database or a callable opening it (None: do not record);
        ``inviter``: enables the "Inviter" panel (the table's owner); ``intro``: lines
        shown while waiting for the table (`TableModel.intro`); ``settings`` and
        ``save_settings``: the player's `Settings` and how to save them (the card
        colours changed at the table are remembered; None: not saved)."""
        self.session = session
        self.four_colour = four_colour if settings is None else bool(settings.four_colour)
        self.settings = settings
        self.save_settings = save_settings
        self.model = TableModel(seat=session.seat, variant=session.variant)
        self.model.table.update(session.table)  # facts known before the first update (bots too)
        self.model.intro = list(intro)
        self.on_leave = on_leave
        self.profile = profile
        self.recorder = MatchRecorder(session, self.model, stats)
        self.inviter = inviter
        self.model.can_invite = inviter is not None
        self.chat_policy = ChatPolicy()
        self.shell: Shell | None = None
        self.reader: asyncio.Task[None] | None = None
        self.ticker: asyncio.Task[None] | None = None
        self._quit_armed = False
        self.sent: list[Action] = []
        self.control = DragControl(self, self.fragments)
        self.focus = Window(self.control, wrap_lines=False, always_hide_cursor=True)
        self.container = FloatContainer(
            content=self.focus,
            floats=[
                popup(
                    lambda: "\n".join(self.info_box_lines()),
                    lambda: _("Player info — ← → player · Esc to close"),
                    lambda: self.model.info_seat is not None,
                    fit=True,
                ),
                popup(
                    self.invite_fragments,
                    lambda: _("Invite — ↑ ↓ choose · Enter invite · Esc close"),
                    lambda: self.model.invite_open,
                    wrap_lines=False,
                ),
            ],
        )
        self.key_bindings = self._bindings()

    # --- life cycle ---------------------------------------------------------------

    def attach(self, shell: Shell) -> None:
        self.shell = shell
        self.reader = shell.app.create_background_task(self._read())
        self.ticker = shell.app.create_background_task(self._tick())

    async def _tick(self) -> None:
        """Redraw when the move timer's shown second changes (and only then)."""
        while self.shell is not None and self.shell.screen is self:
            deadline = self.model.deadline
            if deadline is None:
                await asyncio.sleep(0.25)
                continue
            left = deadline - time.monotonic()
            # sleep to just past the next whole-second boundary of the countdown
            await asyncio.sleep(max(0.02, left - math.floor(left) + 0.005) if left > 0 else 0.25)
            self._invalidate()

    async def _read(self) -> None:
        try:
            # open_session() returns a started session; a local table waits for us.
            if not self.session.started:
                await self.session.start()
            async for upd in self.session.updates():
                self.model.apply(upd)
                self.recorder.on_update(upd)
                self._invalidate()
        except Exception as e:  # noqa: BLE001 - show it instead of crashing the UI
            self.model.error = _("Connection lost: {err}").format(err=e)
            self.model.connection = "closed"
            self._invalidate()

    # --- statistics and replay (`MatchRecorder`) ---------------------------------------

    def stats_db(self) -> StatsDB | None:
        """The statistics database, opened on first use; None when unavailable."""
        return self.recorder.stats_db()

    def close_stats(self) -> None:
        self.recorder.close_stats()

    def match_id(self) -> str:
        return self.recorder.match_id()

    def record_match(self) -> bool:
        return self.recorder.record_match()

    def record_left(self) -> bool:
        return self.recorder.record_left()

    def replay_path(self) -> Path | None:
        return self.recorder.replay_path()

    def save_replay(self) -> Path | None:
        return self.recorder.save_replay()

    @property
    def recorded(self) -> list[str]:
        """Match ids recorded by this screen."""
        return self.recorder.recorded

    @property
    def replay_file(self) -> Path | None:
        return self.recorder.replay_file

    @property
    def stats_error(self) -> str | None:
        return self.recorder.stats_error

    @stats_error.setter
    def stats_error(self, text: str | None) -> None:
        self.recorder.stats_error = text


    # --- Info joueur ---------------------------------------------------------------

    def player_card(self, seat: int) -> PlayerCard:
        """The card shown for ``seat``: ours in full, the others' as reported."""
        m = self.model
        nick = safe_nick(m.name(seat))
        if seat == m.seat:
            if self.profile is not None:
                nick = safe_nick(getattr(self.profile, "nickname", nick))
            pid = getattr(self.profile, "player_id", None)
            db = self.stats_db()
            if db is not None:
                try:
                    return db.own_card(nick, pid)
                except (sqlite3.Error, ValueError) as e:
                    self.stats_error = _("Statistics unavailable: {err}").format(err=e)
            return PlayerCard(nick, pid, Connection.YOU)
        conn = m.seat_connection(seat)
        state = Connection(conn) if conn in CONNECTIONS else Connection.CONNECTED
        if state is Connection.YOU:
            state = Connection.CONNECTED
        plain = m.cards.get(seat)
        if state is not Connection.BOT and plain is not None:
            try:
                return PlayerCard.from_plain(plain, connection=state)
            except (ValueError, TypeError):
                pass
        return PlayerCard(nick, None, state)

    def info_lines(self) -> list[str]:
        seat = self.model.info_seat
        if seat is None:
            return []
        card = self.player_card(seat)
        lines = card_lines(card, variants=None if seat == self.model.seat else [self.model.variant])
        level = self.model.bot_level(seat)
        if level:
            lines.insert(1, _("Bot level: {lv}").format(lv=level_name(level)))
        if seat == self.model.seat and self.stats_error:
            lines.append(self.stats_error)
        fp = self.model.table.get("fingerprint")
        if isinstance(fp, str) and fp:
            # Players compare it aloud with the host's screen (docs/security.md).
            lines += ["", _("Table fingerprint: {fp}").format(fp=fp)]
        return lines

    def info_box_lines(self) -> list[str]:
        """The Info joueur lines, at least as wide as the box's title (a fitted box)."""
        lines = self.info_lines()
        title = _("Player info — ← → player · Esc to close")
        width = max([len(title) + 4, *(len(x) for x in lines)])
        return [x.ljust(width) for x in lines]

    def show_info(self, seat: int | None = None) -> None:
        m = self.model
        seats = m.seats()
        if seat is None:
            seat = m.seat if m.seat in seats or not seats else seats[0]
        m.info_seat = seat
        self._invalidate()

    def info_move(self, delta: int) -> None:
        m = self.model
        seats = m.seats()
        if not seats or m.info_seat is None:
            return
        i = seats.index(m.info_seat) if m.info_seat in seats else 0
        m.info_seat = seats[(i + delta) % len(seats)]

    # --- chat ----------------------------------------------------------------------

    def open_chat(self) -> None:
        self.model.chat_input = ""
        self.model.error = None

    def chat_type(self, text: str) -> None:
        m = self.model
        if m.chat_input is None:
            return
        clean = "".join(ch for ch in text if ch.isprintable())
        room = MAX_CHAT_CHARS - len(m.chat_input)
        if len(clean) > room:
            m.error = _("A message holds at most {n} characters.").format(n=MAX_CHAT_CHARS)
            clean = clean[: max(0, room)]
        m.chat_input += clean

    def send_chat(self) -> None:
        """Check the line with the chat policy (the user sees the limits), then send."""
        m = self.model
        text, m.chat_input = m.chat_input or "", None
        verdict = self.chat_policy.check(m.seat, text)
        if not verdict.ok:
            m.error = chat_refusal_text(verdict)
            self._invalidate()
            return
        if verdict.truncated:
            m.notice = _("A message holds at most {n} characters.").format(n=MAX_CHAT_CHARS)
        send = self.session.send_chat
        m.error = None

        async def go() -> None:
            try:
                await send(verdict.text)
            except Exception as e:  # noqa: BLE001 - show it, keep playing
                m.error = _("The message was not sent: {err}").format(err=e)
                self._invalidate()

        self._task(go())

    # --- Inviter -------------------------------------------------------------------

    def invite_players(self) -> list[Any]:
        if self.inviter is None:
            return []
        try:
            return list(self.inviter.players())
        except Exception:  # noqa: BLE001 - presence not available
            return []

    def invite_fragments(self):  # type: ignore[no-untyped-def]
        players = self.invite_players()
        if not players:
            return [("class:dim", _("(nobody seen on the network yet)"))]
        out: list[tuple[str, str]] = []
        for i, ad in enumerate(players):
            cur = i == self.model.invite_index
            ok = getattr(ad, "invitable", False)
            style = "class:lobby.current" if cur else ("" if ok else "class:dim")
            status = player_status_text(ad.status) if hasattr(ad, "status") else ""
            out.append((style, f" {ad.nickname[:24]:<24} {status}"))
            out.append(("", "\n"))
        return out

    def open_invite(self) -> None:
        if self.inviter is None:
            return
        self.model.invite_open = True
        self.model.invite_index = 0

    def invite_move(self, delta: int) -> None:
        n = len(self.invite_players())
        if n:
            self.model.invite_index = (self.model.invite_index + delta) % n

    def invite_selected(self) -> None:
        players = self.invite_players()
        m = self.model
        if not players or self.inviter is None:
            return
        ad = players[min(m.invite_index, len(players) - 1)]
        m.invite_open = False
        if not getattr(ad, "invitable", False):
            m.error = _("{nick} can not be invited now.").format(nick=ad.nickname)
            return
        inviter = self.inviter

        async def go() -> None:
            try:
                line = await inviter.invite(ad)
            except Exception as e:  # noqa: BLE001 - a failed invitation is only a message
                m.error = _("The invitation failed: {err}").format(err=e)
            else:
                m._log(line)
            self._invalidate()

        self._task(go())

    def _invalidate(self) -> None:
        if self.shell is not None:
            self.shell.app.invalidate()

    def _task(self, coro) -> None:  # type: ignore[no-untyped-def]
        if self.shell is not None:
            self.shell.app.create_background_task(coro)
        else:  # pragma: no cover - only without an app
            asyncio.ensure_future(coro)

    def send(self, action: Action | None) -> None:
        if action is None:
            return
        self.sent.append(action)
        self._task(self.session.act(action))

    def leave(self) -> None:
        self.record_left()
        self.save_replay()

        async def go() -> None:
            try:
                await self.session.next_round("leave")
            finally:
                await self.session.close()
                self.close_stats()
                if self.on_leave is not None:
                    self.on_leave()

        self._task(go())

    # --- what is on screen -----------------------------------------------------------

    def showing_result(self) -> bool:
        v = self.model.view
        return v is not None and v.phase in ("between", "over") and v.last_result is not None

    def size(self) -> tuple[int, int]:
        return screen_size()

    def fragments(self):  # type: ignore[no-untyped-def]
        width, height = self.size()
        if self.showing_result():
            return render_result(self.model, width, self, self.four_colour, height)
        return render_table(self.model, width, height, self, self.four_colour)

    def text(self, width: int = 80, height: int = 24) -> str:
        """The screen as plain text (tests)."""
        if self.showing_result():
            frs = render_result(self.model, width, None, self.four_colour, height)
        else:
            frs = render_table(self.model, width, height, None, self.four_colour)
        return "".join(f[1] for f in frs)

    # --- commands (keys, buttons and clicks share them) -------------------------------

    def do(self, name: str) -> None:
        m = self.model
        self._quit_armed = False
        if name == "draw":
            self.send(m.draw_stock())
        elif name == "take":
            self.send(m.take_discard())
        elif name == "lay":
            a = m.lay_action()
            if a is None:
                if not m.stage_hints():
                    m.error = _("select the cards of a meld first")
                else:
                    m.error = None
            else:
                self.send(a)
        elif name == "stage":
            if not m.stage():
                m.error = _("select the cards of a meld first")
        elif name == "layoff":
            a = m.layoff_action()
            if a is None:
                m.error = _("select one card and a meld on the table")
            self.send(a)
        elif name == "recover" and not has_joker_recovery(m.variant):
            m.why = _("This variant has no joker to take back.")
        elif name == "recover":
            a = m.recover_action()
            if a is None:
                m.error = _("select a card and a meld holding a joker")
            self.send(a)
        elif name == "discard":
            a = m.discard_action()
            if a is None:
                m.error = _("select exactly one card to discard")
            self.send(a)
        elif name == "knock":
            self.send(m.knock_action())
        elif name == "sort_suit":
            m.sort("suit")
        elif name == "sort_rank":
            m.sort("rank")
        elif name == "continue":
            self._task(self.session.next_round("continue"))
        elif name == "leave":
            self.leave()
        elif name == "info":
            self.show_info()
        elif name == "chat":
            self.open_chat()
        elif name == "invite":
            self.open_invite()
        elif name in ("history", "scores", "help"):
            self.open_panel(name)
        elif name == "close":
            m.panel = None
        elif name == "colours":
            self.toggle_colours()
        self._invalidate()

    def open_panel(self, name: str) -> None:
        """Open a full-screen panel (help, history, score sheet); history opens at its end."""
        m = self.model
        m.panel = name
        m.panel_scroll = -1 if name == "history" else 0
        m.show_help = name == "help"

    def scroll_panel(self, delta: int) -> None:
        m = self.model
        m.panel_scroll = max(0, m.panel_scroll + delta)

    def out_of_turn(self, key: str) -> None:
        """A game key pressed when it can do nothing: say why instead of ignoring it."""
        m = self.model
        v = m.view
        if v is None:
            m.why = _("Waiting for the table…")
        elif v.phase not in ("draw", "play"):
            m.why = _("The round is over.")
        elif not v.my_turn:
            if key == "f":
                m.why = _("Frapper is possible only just after another player's discard.")
            else:
                m.why = _("Not your turn: {who} is playing.").format(who=m.name(v.turn))
        elif v.phase == "draw":
            m.why = _("Draw first: d from the stock, t from the discard pile.")
        else:
            m.why = _("You have drawn already: lay down, lay off or discard.")

    def meld_end(self, index: int, end: str) -> None:
        m = self.model
        m.target = index
        m.end = "low" if end == "low" else "high"
        if len(m.selected) == 1:
            self.do("layoff")
        self._invalidate()

    def enter(self) -> None:
        m = self.model
        v = m.view
        if v is None:
            return
        if self.showing_result():
            me = v.players[m.seat] if m.seat < len(v.players) else None
            if v.match_over or me is None or me.eliminated:
                self.do("leave")
            else:
                self.do("continue")
            return
        if not v.my_turn:
            if v.can_knock:
                self.do("knock")
            return
        if v.phase == "draw":
            self.do("draw")
        elif m.staged or len(m.selected) > 1:
            self.do("lay")
        elif len(m.selected) == 1:
            self.do("discard")

    def toggle_colours(self) -> None:
        """Two-colour <-> four-colour deck, from the table; remembered in the settings."""
        self.four_colour = not self.four_colour
        m = self.model
        text = _("Cards in four colours (C: two).") if self.four_colour else _(
            "Cards in two colours (C: four).")
        if self.settings is not None:
            self.settings.four_colour = self.four_colour
            if self.save_settings is not None:
                try:
                    self.save_settings(self.settings)
                except OSError as e:
                    m.error = _("Could not save the settings: {err}").format(err=e)
                    m.error_local = True
                    return
        m.why = text

    # mouse (render.Clicks)
    def card(self, index: int) -> None:
        self.model.toggle(index)
        self._invalidate()

    def stock(self) -> None:
        self.do("draw")

    def discard(self, depth: int) -> None:
        self.model.depth = depth
        self.do("take")

    def meld(self, index: int) -> None:
        self.model.target = index
        if len(self.model.selected) == 1:
            self.do("layoff")
        self._invalidate()

    def button(self, name: str) -> None:
        self.do(name)

    def scroll(self, delta: int) -> None:
        self.scroll_panel(delta)
        self._invalidate()

    def player(self, seat: int) -> None:
        self.show_info(seat)

    # --- keys -----------------------------------------------------------------------

    def _bindings(self) -> KeyBindings:
        kb = KeyBindings()
        m = self.model
        helping = Condition(lambda: m.panel is not None)
        info = Condition(lambda: m.info_seat is not None) & ~helping
        inviting = Condition(lambda: m.invite_open) & ~helping
        chatting = Condition(lambda: m.chat_input is not None) & ~helping
        panel = helping | info | inviting | chatting
        result = Condition(self.showing_result) & ~panel
        table = ~Condition(self.showing_result) & ~panel
        free = ~panel
        my_turn = Condition(lambda: m.view is not None and m.view.my_turn)
        draw = table & my_turn & Condition(lambda: m.view is not None and m.view.phase == "draw")
        play = table & my_turn & Condition(lambda: m.view is not None and m.view.phase == "play")
        knock = table & Condition(lambda: m.view is not None and m.view.can_knock)

        def bind(*keys: str, filter=table):  # type: ignore[no-untyped-def]
            def deco(fn: Callable[[], None]) -> Callable[[], None]:
                for k in keys:
                    kb.add(k, filter=filter)(lambda e, fn=fn: self._key(fn))
                return fn

            return deco

        @kb.add("?", filter=~helping & ~chatting)
        @kb.add("f1", filter=~helping)
        def _help(e: KeyPressEvent) -> None:
            self.open_panel("help")

        @kb.add("escape", filter=helping)
        @kb.add("?", filter=helping)
        @kb.add("f1", filter=helping)
        @kb.add("q", filter=helping)
        @kb.add("a", filter=helping & Condition(lambda: m.panel == "history"))
        @kb.add("n", filter=helping & Condition(lambda: m.panel == "scores"))
        def _close_help(e: KeyPressEvent) -> None:
            m.panel = None
            m.show_help = False

        def page() -> int:
            return max(1, self.size()[1] - 3)

        bind("up", "k", filter=helping)(lambda: self.scroll_panel(-1))
        bind("down", "j", filter=helping)(lambda: self.scroll_panel(1))
        bind("pageup", "b", filter=helping)(lambda: self.scroll_panel(-page()))
        bind("pagedown", " ", filter=helping)(lambda: self.scroll_panel(page()))
        bind("home", "g", filter=helping)(lambda: setattr(m, "panel_scroll", 0))
        bind("end", "G", filter=helping)(lambda: setattr(m, "panel_scroll", 10**6))
        bind("a", filter=~helping & ~chatting & ~info & ~inviting)(lambda: self.do("history"))
        bind("n", filter=~helping & ~chatting & ~info & ~inviting)(lambda: self.do("scores"))

        bind("left", "h")(lambda: m.move_cursor(-1))
        bind("right", "l")(lambda: m.move_cursor(1))
        bind("s-left", "H", "<")(lambda: m.move_card(-1))
        bind("s-right", "L", ">")(lambda: m.move_card(1))
        bind("space")(lambda: m.toggle())
        bind("escape")(m.clear_selection)
        bind("up", "k")(lambda: m.set_target(-1))
        bind("down", "j")(lambda: m.set_target(1))
        for i, key in enumerate("1234567890"):
            bind(key)(lambda i=i: m.jump(i))
        bind("s")(lambda: self.do("sort_suit"))
        bind("r")(lambda: self.do("sort_rank"))
        bind("d", "p", filter=draw)(lambda: self.do("draw"))
        bind("t", filter=draw)(lambda: self.do("take"))
        bind("+", "=", filter=draw)(lambda: m.set_depth(1))
        bind("-", filter=draw)(lambda: m.set_depth(-1))
        bind("m", filter=play)(lambda: self.do("lay"))
        bind("g", filter=play)(lambda: self.do("stage"))
        bind("o", filter=play)(lambda: self.do("layoff"))
        bind("c", filter=play)(lambda: self.do("recover"))
        bind("x", filter=play)(lambda: self.do("discard"))
        bind("f", filter=knock)(lambda: self.do("knock"))
        bind("e", filter=table)(lambda: setattr(m, "end", "low" if m.end == "high" else "high"))
        bind("C", filter=free)(self.toggle_colours)  # card colours, at any time (seed 001)
        for key in "dptmgocxf":
            bind(key, filter=table & ~draw & ~play & ~knock)(
                lambda key=key: self.out_of_turn(key))
        for key in "mgocx":
            bind(key, filter=draw)(lambda key=key: self.out_of_turn(key))
        for key in "dpt":
            bind(key, filter=play)(lambda key=key: self.out_of_turn(key))
        bind("enter", filter=table)(self.enter)
        bind("enter", "c", filter=result)(self.enter)
        bind("q", "t", filter=result)(lambda: self.do("leave"))
        bind("q", filter=table)(self._quit)
        bind("c-c", filter=Condition(lambda: True))(lambda: self.do("leave"))
        # Info joueur, chat, Inviter (on the table and on the round result)
        bind("i", filter=free)(lambda: self.do("info"))
        bind(":", filter=free)(lambda: self.do("chat"))
        bind("v", filter=free & Condition(lambda: self.inviter is not None))(
            lambda: self.do("invite"))
        bind("escape", "i", "q", "enter", filter=info)(lambda: setattr(m, "info_seat", None))
        bind("left", "h", "s-tab", filter=info)(lambda: self.info_move(-1))
        bind("right", "l", "tab", filter=info)(lambda: self.info_move(1))
        bind("escape", "q", "v", filter=inviting)(lambda: setattr(m, "invite_open", False))
        bind("up", "k", filter=inviting)(lambda: self.invite_move(-1))
        bind("down", "j", filter=inviting)(lambda: self.invite_move(1))
        bind("enter", filter=inviting)(self.invite_selected)
        bind("escape", filter=chatting)(lambda: setattr(m, "chat_input", None))
        bind("enter", filter=chatting)(self.send_chat)
        bind("backspace", "c-h", filter=chatting)(
            lambda: setattr(m, "chat_input", (m.chat_input or "")[:-1]))

        @kb.add(Keys.Any, filter=chatting)
        def _type(e: KeyPressEvent) -> None:
            self._key(lambda: self.chat_type(e.data))

        return kb

    def _key(self, fn: Callable[[], None]) -> None:
        m = self.model
        if fn != self._quit:
            self._quit_armed = False
            m.confirm = None
        if m.error_local:  # the player's next key puts away what answered their last one
            m.error, m.error_local = None, False
        before = m.error
        fn()
        if m.error is not None and m.error != before:  # this key's own answer: it stays
            m.error_local = True
        self._invalidate()

    def _quit(self) -> None:
        if self._quit_armed:
            self.do("leave")
            return
        self._quit_armed = True
        self.model.confirm = quit_confirmation(self.model)
