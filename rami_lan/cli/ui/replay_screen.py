"""The replay screen: a recorded match, step by step, every hand face up.

Built from the table's render functions (players, piles, melds) over the spectator
view of `rami_lan.replay.Replay.view_all`; the record is complete, so every seat's
hand is shown below the table. Keys: → / ← (l / h) one action, PgDn / PgUp one round,
1-9 jump to a round, Home / End, ``v`` re-checks the record's fair shuffle
(``verify``), ``?`` help, ``q`` leaves.
"""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.application import get_app
from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import (
    FloatContainer,
)

from rami_lan.cli.ui.cards import card_style, face_text
from rami_lan.cli.ui.describe import describe
from rami_lan.cli.ui.model import TableModel
from rami_lan.cli.ui.render import render_melds, render_piles, render_players
from rami_lan.cli.ui.shell import Shell, popup, screen_window
from rami_lan.cli.ui.text import Fragment, Lines
from rami_lan.i18n import _
from rami_lan.replay import Replay, replay_help

SPECTATOR = -1
LOG_LINES = 3


class ReplayScreen:
    """Steps through a `Replay`; ``verify`` returns the text shown for ``v``."""

    def __init__(
        self,
        replay: Replay,
        *,
        verify: Callable[[], str] | None = None,
        four_colour: bool = False,
        on_leave: Callable[[], None] | None = None,
    ) -> None:
        self.replay = replay
        self.verify = verify
        self.four_colour = four_colour
        self.on_leave = on_leave
        self.shell: Shell | None = None
        self.message: str | None = None
        self.show_help = False
        self.goto: str | None = None  # "g": the round number being typed
        self.control, self.focus = screen_window(self.fragments)
        self.container = FloatContainer(
            content=self.focus,
            floats=[
                popup(
                    lambda: "\n".join([*replay_help(), "", _("? help · Esc close")]),
                    lambda: _("Help — Esc to close"),
                    lambda: self.show_help,
                    margin=(2, 2),
                )
            ],
        )
        self.key_bindings = self._bindings()

    def attach(self, shell: Shell) -> None:
        self.shell = shell

    # --- the model of one position ------------------------------------------------

    def model(self) -> TableModel:
        """The table model at the current position, seen by a spectator."""
        r = self.replay
        fv = r.view_all(r.position)
        m = TableModel(seat=SPECTATOR, variant=r.record.variant)
        m.nicknames = {s: r.nickname(s) for s in range(r.record.seats)}
        m.connection = "connected"
        m.view = fv.public
        m.target = -1
        for ev in fv.step.events:
            line = describe(ev, SPECTATOR, m.name)
            if line:
                m.log.append(line)
        return m

    # --- rendering ------------------------------------------------------------------

    def fragments(self) -> list[Fragment]:
        try:
            size = get_app().output.get_size()
            width, height = max(40, size.columns), max(12, size.rows)
        except Exception:  # noqa: BLE001 - no app (tests rendering directly)
            width, height = 80, 24
        return self.render(width, height)

    def render(self, width: int = 80, height: int = 24) -> list[Fragment]:
        r = self.replay
        fv = r.view_all(r.position)
        m = self.model()
        lines = Lines()
        status = " " + r.status_line()
        lines.add("class:header", status[: width - 1].ljust(width - 1))
        lines.nl()
        render_players(lines, m, width)
        render_piles(lines, m, None, self.four_colour, width)
        render_melds(lines, m, width, 4, None, self.four_colour)
        lines.add("class:label", _("Every hand:"))
        lines.nl()
        for s in range(r.record.seats):
            hand = sorted(fv.hands[s], key=lambda c: c.sort_key()) if s < len(fv.hands) else []
            name = m.name(s)[:12].ljust(13)
            lines.add("class:player", name)
            if not hand:
                lines.add("class:dim", _("(no cards in hand)"))
            for c in hand:
                if lines.col + 5 > width:
                    lines.nl()
                    lines.add("", " " * 13)
                lines.add(card_style(c, self.four_colour), face_text(c))
                lines.add("", " ")
            lines.nl()
        for line in m.log[-LOG_LINES:]:
            lines.add("class:log", line[: width - 1])
            lines.nl()
        if self.message:
            lines.add("class:warn", self.message[: width - 1])
            lines.nl()
        lines.add("class:status", _("→ ← action · PgDn PgUp round · 1-9 round · Home End · "
                                    "v verify · ? · q quit")[: width - 1])
        return lines.frags

    def text(self, width: int = 80, height: int = 24) -> str:
        return "".join(f[1] for f in self.render(width, height))

    # --- commands -------------------------------------------------------------------

    def run_verify(self) -> None:
        if self.verify is None:
            self.message = _("This record holds no fair-shuffle data to verify.")
            return
        try:
            self.message = " ".join(self.verify().split())
        except Exception as e:  # noqa: BLE001 - a damaged file is only a message
            self.message = _("Could not verify the record: {err}").format(err=e)

    def jump(self, round_no: int) -> None:
        if 1 <= round_no <= self.replay.n_rounds:
            self.replay.jump_to_round(round_no)
            self.message = None
        else:
            self.message = _("There is no round {n} (rounds: {total}).").format(
                n=round_no, total=self.replay.n_rounds)

    def goto_open(self) -> None:
        """``g``: ask for a round number (typed digits, Enter)."""
        self.goto = ""
        self._goto_message()

    def _goto_message(self) -> None:
        self.message = _("Go to round (1-{total}): {typed}_  Enter go · Esc cancel").format(
            total=self.replay.n_rounds, typed=self.goto or "")

    def goto_type(self, digit: str | None) -> None:
        if self.goto is None:
            return
        self.goto = self.goto[:-1] if digit is None else (self.goto + digit)[:4]
        self._goto_message()

    def goto_done(self) -> None:
        typed, self.goto = self.goto or "", None
        self.message = None
        if typed.isdigit():
            self.jump(int(typed))

    def goto_cancel(self) -> None:
        self.goto = None
        self.message = None

    def leave(self) -> None:
        if self.on_leave is not None:
            self.on_leave()

    def _bindings(self) -> KeyBindings:
        kb = KeyBindings()
        r = self.replay
        helping = Condition(lambda: self.show_help)
        normal = ~helping

        def bind(*keys: str, filter=normal):  # type: ignore[no-untyped-def]
            def deco(fn: Callable[[], object]) -> Callable[[], object]:
                def handler(e: KeyPressEvent, fn: Callable[[], object] = fn) -> None:
                    if fn not in (self.run_verify,):
                        self.message = None
                    fn()
                    if self.shell is not None:
                        self.shell.app.invalidate()

                for k in keys:
                    kb.add(k, filter=filter)(handler)
                return fn

            return deco

        bind("right", "l", " ")(r.forward)
        bind("left", "h")(r.back)
        bind("pagedown")(r.next_round)
        bind("pageup")(r.previous_round)
        bind("home")(lambda: r.seek(0))
        bind("end")(lambda: r.seek(r.last))
        going = Condition(lambda: self.goto is not None) & normal
        for n in range(1, 10):
            bind(str(n), filter=normal & ~going)(lambda n=n: self.jump(n))
        for n in range(10):
            bind(str(n), filter=going)(lambda n=n: self.goto_type(str(n)))
        bind("g", filter=normal & ~going)(self.goto_open)
        bind("enter", filter=going)(self.goto_done)
        bind("escape", filter=going)(self.goto_cancel)
        bind("backspace", filter=going)(lambda: self.goto_type(None))
        bind("v")(self.run_verify)
        bind("?", "f1")(lambda: setattr(self, "show_help", True))
        bind("escape", "?", "f1", "q", filter=helping)(lambda: setattr(self, "show_help", False))
        bind("q", "escape", "c-c", filter=normal & ~going)(self.leave)
        return kb
