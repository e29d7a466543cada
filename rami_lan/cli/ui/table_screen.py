"""The table screen: layout, keys and mouse, and the session reader.

The reader runs as a background task: it applies each `SessionUpdate` to the model
and invalidates the app. Keys and clicks build actions from the model and send them
to the session; the host (or the local table) judges them with the core.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from prompt_toolkit.application import get_app
from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import (
    ConditionalContainer,
    Float,
    FloatContainer,
    FormattedTextControl,
    Window,
)
from prompt_toolkit.widgets import Frame

from rami_lan.cli.ui.help import help_lines
from rami_lan.cli.ui.model import TableModel
from rami_lan.cli.ui.render import render_result, render_table
from rami_lan.cli.ui.shell import Shell
from rami_lan.core.actions import Action
from rami_lan.i18n import _
from rami_lan.net.table_session import TableSession


class TableScreen:
    """One seat at one table, on screen."""

    def __init__(
        self,
        session: TableSession,
        *,
        four_colour: bool = False,
        on_leave: Callable[[], None] | None = None,
    ) -> None:
        self.session = session
        self.four_colour = four_colour
        self.model = TableModel(seat=session.seat, variant=session.variant)
        self.on_leave = on_leave
        self.shell: Shell | None = None
        self.reader: asyncio.Task[None] | None = None
        self._quit_armed = False
        self.sent: list[Action] = []
        self.control = FormattedTextControl(self.fragments, focusable=True, show_cursor=False)
        self.focus = Window(self.control, wrap_lines=False, always_hide_cursor=True)
        help_body = Window(
            FormattedTextControl(lambda: "\n".join(help_lines(self.model.variant))),
            wrap_lines=True,
            style="class:help",
        )
        self.container = FloatContainer(
            content=self.focus,
            floats=[
                Float(
                    ConditionalContainer(
                        Frame(help_body, title=lambda: _("Help — Esc to close")),
                        filter=Condition(lambda: self.model.show_help),
                    ),
                    left=1,
                    right=1,
                    top=1,
                    bottom=1,
                )
            ],
        )
        self.key_bindings = self._bindings()

    # --- life cycle ---------------------------------------------------------------

    def attach(self, shell: Shell) -> None:
        self.shell = shell
        self.reader = shell.app.create_background_task(self._read())

    async def _read(self) -> None:
        try:
            # open_session() returns a started session; a local table waits for us.
            if not getattr(self.session, "started", True):
                await self.session.start()
            async for upd in self.session.updates():
                self.model.apply(upd)
                self._invalidate()
        except Exception as e:  # noqa: BLE001 - show it instead of crashing the UI
            self.model.error = _("Connection lost: {err}").format(err=e)
            self.model.connection = "closed"
            self._invalidate()

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
        async def go() -> None:
            try:
                await self.session.next_round("leave")
            finally:
                await self.session.close()
                if self.on_leave is not None:
                    self.on_leave()

        self._task(go())

    # --- what is on screen -----------------------------------------------------------

    def showing_result(self) -> bool:
        v = self.model.view
        return v is not None and v.phase in ("between", "over") and v.last_result is not None

    def size(self) -> tuple[int, int]:
        try:
            s = get_app().output.get_size()
            return max(40, s.columns), max(12, s.rows)
        except Exception:  # noqa: BLE001 - no app (tests rendering directly)
            return 80, 24

    def fragments(self):  # type: ignore[no-untyped-def]
        width, height = self.size()
        if self.showing_result():
            return render_result(self.model, width, self, self.four_colour)
        return render_table(self.model, width, height, self, self.four_colour)

    def text(self, width: int = 80, height: int = 24) -> str:
        """The screen as plain text (tests)."""
        if self.showing_result():
            frs = render_result(self.model, width, None, self.four_colour)
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

    # --- keys -----------------------------------------------------------------------

    def _bindings(self) -> KeyBindings:
        kb = KeyBindings()
        m = self.model
        helping = Condition(lambda: m.show_help)
        result = Condition(self.showing_result) & ~helping
        table = ~Condition(self.showing_result) & ~helping
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

        @kb.add("?", filter=~helping)
        @kb.add("f1", filter=~helping)
        def _help(e: KeyPressEvent) -> None:
            m.show_help = True

        @kb.add("escape", filter=helping)
        @kb.add("?", filter=helping)
        @kb.add("f1", filter=helping)
        @kb.add("q", filter=helping)
        def _close_help(e: KeyPressEvent) -> None:
            m.show_help = False

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
        bind("enter", filter=table)(self.enter)
        bind("enter", "c", filter=result)(self.enter)
        bind("q", "t", filter=result)(lambda: self.do("leave"))
        bind("q", filter=table)(self._quit)
        bind("c-c", filter=Condition(lambda: True))(lambda: self.do("leave"))
        return kb

    def _key(self, fn: Callable[[], None]) -> None:
        if fn != self._quit:
            self._quit_armed = False
            self.model.confirm = None
        fn()
        self._invalidate()

    def _quit(self) -> None:
        if self._quit_armed:
            self.do("leave")
            return
        self._quit_armed = True
        self.model.confirm = _("Press q again to leave the table.")
