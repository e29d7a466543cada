"""The lobby in-process: live tables, Nouvelle table options, settings, Solo, join."""

from __future__ import annotations

import asyncio
import json
import socket

import pytest
from ui_helpers import running, until

from rami_lan.cli.settings import Settings, save_settings
from rami_lan.cli.ui.lobby import Lobby
from rami_lan.cli.ui.shell import Shell
from rami_lan.cli.ui.table_screen import TableScreen
from rami_lan.cli.ui.text import fragments_text
from rami_lan.i18n import set_language
from rami_lan.net.discovery import TableAd


@pytest.fixture(autouse=True)
def no_browse_ui(ui_env, monkeypatch):
    monkeypatch.setenv("RAMI_LAN_NO_BROWSE", "1")  # no presence on the real interface


class FakeBrowser:
    def __init__(self, ads: list[TableAd]) -> None:
        self.ads = ads
        self.stopped = False

    async def start(self) -> None:
        pass

    async def stop(self) -> None:
        self.stopped = True

    def snapshot(self) -> list[TableAd]:
        return list(self.ads)


def closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


AD = TableAd(table_id="3fa2c1d4e5f60718", name="Chez Marie", host="Marie", variant="40",
             seats_taken=1, seats_total=3, point_limit=101, code_required=True)


def lobby_app(browser: FakeBrowser, box: list):
    def make() -> Shell:
        shell = Shell()
        lobby = Lobby(shell, Settings(nickname="Tester"), browser_factory=lambda: browser,
                      solo_think=0)
        shell.show(lobby)
        box[:] = [shell, lobby]
        return shell

    return make


def text(lobby: Lobby) -> str:
    return fragments_text(lobby.fragments())


def test_lobby_lists_tables_live_and_new_table_options():
    async def main():
        browser = FakeBrowser([])
        box: list = []
        async with running(lobby_app(browser, box), timeout=20) as d:
            shell, lobby = box
            await until(lambda: "looking" in text(lobby))
            browser.ads.append(AD)  # a table appears on the LAN
            await until(lambda: "Chez Marie" in text(lobby), what="live table")
            line = next(x for x in text(lobby).splitlines() if "Chez Marie" in x)
            for part in ("Marie", "40", "1/3 seats", "code", "limit 101"):
                assert part in line
            # Nouvelle table: every option; the variant changes what is offered
            d.keys("n")
            await until(lambda: lobby.mode == "new")
            t = text(lobby)
            for label in ("Table name", "Variant", "Seats", "Seat 2", "Who may sit", "Points",
                          "Move timer", "Frapper"):
                assert label in t
            d.keys("\t")  # to Variant
            d.keys("\x1b[C\x1b[C")  # rami -> classique -> multi
            await until(lambda: lobby.new_form.values["variant"] == "multi")
            assert "Frapper" not in text(lobby)  # multi has no frapper
            assert lobby.new_form.values["limit"] == 100
            d.keys("\x1b[C\x1b[C")  # -> 500 -> 40
            await until(lambda: lobby.new_form.values["variant"] == "40")
            assert lobby.new_form.values["limit"] in (1, 50, 100, 101)
            d.keys("\t\x1b[C\x1b[C")  # seats 2 -> 3 -> 4
            await until(lambda: lobby.new_form.values["seats"] == 4)
            assert "Seat 4" in text(lobby)
            # join code: choose "with a join code", then type it
            for _ in range(3):
                d.keys("\t")
            d.keys("\t\x1b[C")
            await until(lambda: lobby.new_form.values["who"] == "code")
            d.keys("\t")
            d.keys("ab12")
            await until(lambda: lobby.new_form.values["code"] == "ab12", what="typed code")
            d.keys("\x1b")
            await until(lambda: lobby.mode == "main", what="back")
            d.keys("q")
            await until(lambda: not shell.app.is_running)
        assert browser.stopped

    asyncio.run(main())


def test_settings_are_saved_and_switch_language(tmp_path):
    async def main():
        box: list = []
        async with running(lobby_app(FakeBrowser([]), box), timeout=20) as d:
            shell, lobby = box
            d.keys("o")
            await until(lambda: lobby.mode == "settings")
            d.keys("\x7f" * 10 + "Zoé")
            await until(lambda: lobby.settings_form.values["nickname"] == "Zoé")
            d.keys("\t\x1b[C\x1b[C")  # auto -> fr? (auto, fr, en): one step is fr
            await until(lambda: lobby.settings_form.values["lang"] in ("fr", "en"))
            await d.press_until("\x1b[C", lambda: lobby.settings_form.values["lang"], "fr")
            d.keys("\t ")  # four colours on
            await until(lambda: lobby.settings_form.values["four"] is True)
            d.keys("\t\r")  # the Save button
            await until(lambda: lobby.mode == "main", what="saved")
            assert "Salon" in text(lobby) and "Pseudo : Zoé" in text(lobby)
            d.keys("q")
        data = json.loads((tmp_path / "settings.json").read_text(encoding="utf-8"))
        assert data == {"nickname": "Zoé", "lang": "fr", "four_colour": True}

    asyncio.run(main())


def test_solo_from_the_lobby_and_back():
    async def main():
        box: list = []
        async with running(lobby_app(FakeBrowser([]), box), timeout=30) as d:
            shell, lobby = box
            d.keys("s")  # the Solo form, in sight, the cursor on "Play"
            await until(lambda: lobby.mode == "solo", what="solo form")
            t = text(lobby)
            for label in ("Variant", "Seats", "Seat 2", "Points", "[ Play ]"):
                assert label in t
            d.keys("\r")
            await until(lambda: isinstance(shell.screen, TableScreen), what="table screen")
            screen = shell.screen
            await until(lambda: screen.model.view is not None and screen.model.hand)
            assert screen.model.nicknames[0] == "Tester"
            assert "Round 1" in screen.text()
            d.keys("q")
            await until(lambda: screen.model.confirm is not None)
            assert "q again" in screen.model.confirm
            assert "q again" in screen.text()
            d.keys("q")
            await until(lambda: shell.screen is lobby, what="back to the lobby")
            assert screen.session.connection == "closed" and lobby.host is None  # host stopped too
            d.keys("q")

    asyncio.run(main())


def test_join_failure_is_shown_not_raised():
    async def main():
        ad = TableAd(table_id="aabbccdd00112233", name="Nowhere", host="Ghost", variant="rami",
                     seats_taken=1, seats_total=2, point_limit=100,
                     addresses=("127.0.0.1",), port=closed_port())
        box: list = []
        async with running(lobby_app(FakeBrowser([ad]), box), timeout=20) as d:
            shell, lobby = box
            await until(lambda: "Nowhere" in text(lobby))
            lobby.index = 0
            d.keys("\r")
            await until(lambda: lobby.message is not None and not lobby.busy, 10, "message")
            assert shell.screen is lobby and shell.app.is_running
            d.keys("q")

    asyncio.run(main())


def test_saved_language_is_used(tmp_path):
    save_settings(Settings(nickname="A", lang="fr"))
    from argparse import Namespace

    from rami_lan.cli.app import apply_settings_language
    from rami_lan.cli.settings import load_settings
    from rami_lan.i18n import language

    apply_settings_language(Namespace(lang=None), load_settings())
    assert language() == "fr"
    set_language("en")
    apply_settings_language(Namespace(lang="en"), load_settings())
    assert language() == "en"


def test_lobby_statistics_page_and_profile_in_sync(tmp_path):
    from rami_lan.profile import load_profile

    async def main():
        box: list = []
        async with running(lobby_app(FakeBrowser([]), box), timeout=10) as d:
            shell, lobby = box
            assert lobby.profile.nickname == "Tester"  # the settings' nickname wins
            assert load_profile().nickname == "Tester"
            assert not lobby.presence  # RAMI_LAN_NO_BROWSE: no presence at all
            d.keys("t")
            await until(lambda: lobby.mode == "stats", what="stats page")
            assert "Matches: 0 played, 0 won" in text(lobby)
            d.keys("\x1b")
            await until(lambda: lobby.mode == "main")
            shell.exit(0)

    asyncio.run(main())
