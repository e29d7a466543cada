"""Deterministic screens of the UI (lobby, tables, panels, result) as plain text.

Shared by the snapshot tests (`test_ui_snapshots.py`, golden files in
``tests/snapshots/``) and the README capture test. Every scene is built from a seeded
local table, so the same code gives the same screens.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import cache

from rami_lan.cli.ui.model import TableModel
from rami_lan.cli.ui.render import render_result, render_table
from rami_lan.cli.ui.text import fragments_text
from rami_lan.core import actions as A
from rami_lan.core.match import MatchOptions
from rami_lan.i18n import _ as tr
from rami_lan.i18n import set_language

SIZES = ((60, 18), (80, 24), (120, 40), (200, 50), (200, 60))
LANGS = ("en", "fr")
VARIANTS = ("rami", "classique", "multi", "500", "40")
SEATS = {"rami": 4, "classique": 3, "multi": 2, "500": 3, "40": 4}
MOVES = {"rami": 6, "classique": 6, "multi": 4, "500": 6, "40": 6}


def play(variant: str, seats: int, seed: str, moves: int, until_over: bool = False,
         **options) -> TableModel:  # type: ignore[no-untyped-def]
    """A model fed by a local table where the bots and a simple human played."""
    from rami_lan.cli.local_session import LocalTableSession
    from rami_lan.core.shadow import legal_actions_for_view

    async def main() -> TableModel:
        names = {0: "Camille", 1: "Bot 1", 2: "Bot 2", 3: "Bot 3"}
        s = LocalTableSession(variant, seats, 0, {i: "moyen" for i in range(1, seats)},
                              MatchOptions(**options), seed=seed,
                              nicknames={k: v for k, v in names.items() if k < seats})
        m = TableModel(seat=0, variant=variant)
        m.table["bots"] = {i: "moyen" for i in range(1, seats)}
        m.table["fingerprint"] = "5EA1-07C3-9B42-D810"
        await s.start()

        def drain() -> None:
            while not s._queue.empty():
                u = s._queue.get_nowait()
                if u is not None:
                    m.apply(u)

        done = 0
        for _ in range(4000):
            drain()
            v = s.view()
            if v.phase in ("between", "over"):
                if until_over:
                    break
                raise AssertionError(f"{variant}/{seed}: the round ended before move {moves}")
            if not until_over and done >= moves and v.my_turn:
                break
            if v.my_turn:
                acts = [a for a in legal_actions_for_view(v) if not isinstance(a, A.Knock)]
                lays = [a for a in acts if isinstance(a, A.LayDown)]
                await s.act(lays[0] if lays else acts[-1])
                done += 1
            await asyncio.sleep(0)
        drain()
        await s.close()
        m.deadline = None
        return m

    return asyncio.run(main())


@cache
def table_model(variant: str, lang: str) -> TableModel:
    set_language(lang)
    return play(variant, SEATS[variant], f"snap-{variant}", MOVES[variant])


@cache
def result_model(lang: str) -> TableModel:
    set_language(lang)
    return play("rami", 3, "snap-result", 0, until_over=True, limit=50)


def screen_text(frags: list) -> str:
    return "\n".join(line.rstrip() for line in fragments_text(frags).split("\n")) + "\n"


def _table(variant: str, lang: str, panel: str | None = None) -> Callable[[int, int], str]:
    def render(w: int, h: int) -> str:
        m = table_model(variant, lang)
        set_language(lang)
        m.panel, m.panel_scroll = panel, (-1 if panel == "history" else 0)
        try:
            return screen_text(render_table(m, w, h))
        finally:
            m.panel = None

    return render


def _result(lang: str, panel: str | None = None) -> Callable[[int, int], str]:
    def render(w: int, h: int) -> str:
        m = result_model(lang)
        set_language(lang)
        m.panel, m.panel_scroll = panel, 0
        try:
            return screen_text(render_result(m, w, None, False, h))
        finally:
            m.panel = None

    return render


def _lobby(lang: str, mode: str = "main") -> Callable[[int, int], str]:
    def render(w: int, h: int) -> str:
        from rami_lan.cli.settings import Settings
        from rami_lan.cli.ui.lobby import Lobby
        from rami_lan.cli.ui.shell import Shell
        from rami_lan.net.discovery import TableAd

        set_language(lang)
        lobby = Lobby(Shell(), Settings(nickname="Camille"), browser_factory=None,
                      presence=False, profile=_Profile())
        lobby.browser_factory = object  # as if browsing: the list below is what it found
        lobby.tables = [TableAd(table_id="3fa2c1d4e5f60718", name="Chez Marie", host="Marie",
                                variant="40", seats_taken=1, seats_total=3, point_limit=101,
                                code_required=True)]
        if mode == "solo":
            lobby.open_solo()
        return "\n".join(r.rstrip() for r in lobby.text(w, h).split("\n")) + "\n"

    return render


def _waiting(lang: str) -> Callable[[int, int], str]:
    """The host's screen before the match: two of four seats taken (issue 25)."""
    def render(w: int, h: int) -> str:
        from rami_lan.net.table_session import SessionUpdate

        set_language(lang)
        m = TableModel(seat=0, variant="rami")
        m.intro = [tr("Join code: {code} (give it to the players you expect)").format(
            code="K7WQ-22PX")]
        m.apply(SessionUpdate(
            connection="connected", nicknames={0: "Camille", 2: "Bot 3"},
            connections={0: "you", 2: "bot"},
            table={"seats": 4, "host_seat": 0, "fingerprint": "5EA1-07C3-9B42-D810",
                   "bots": [[2, "expert"]], "name": "Chez Camille", "variant": "rami"}))
        return screen_text(render_table(m, w, h))

    return render


class _Profile:
    nickname = "Camille"
    player_id = "0" * 32
    lang = "en"

    def renamed(self, nick: str) -> _Profile:
        return self

    def with_lang(self, lang: str) -> _Profile:
        return self


def scenes() -> dict[str, Callable[[int, int], str]]:
    """name -> render(width, height) for every snapshot scene, in both languages."""
    out: dict[str, Callable[[int, int], str]] = {}
    for lang in LANGS:
        out[f"lobby-{lang}"] = _lobby(lang)
        out[f"solo-form-{lang}"] = _lobby(lang, "solo")
        for v in VARIANTS:
            out[f"table-{v}-{lang}"] = _table(v, lang)
        out[f"help-{lang}"] = _table("rami", lang, "help")
        out[f"history-{lang}"] = _table("rami", lang, "history")
        out[f"scores-{lang}"] = _result(lang, "scores")
        out[f"result-{lang}"] = _result(lang)
        out[f"waiting-{lang}"] = _waiting(lang)
    return out
