"""In-process UI tests of the player features at the table: chat, Info joueur,
connection states and the statistics recorded from a real finished match."""

from __future__ import annotations

import asyncio

import pytest
from ui_helpers import Driver, locate, running, until

from rami_lan.cli.cmd_solo import make_solo_session
from rami_lan.cli.local_session import FallbackBot, LocalTableSession
from rami_lan.cli.ui.shell import Shell
from rami_lan.cli.ui.table_screen import TableScreen
from rami_lan.net.table_session import SessionUpdate
from rami_lan.profile import Profile, new_player_id
from rami_lan.stats import StatsDB
from rami_lan.table.chat import ChatPolicy

pytestmark = pytest.mark.usefixtures("ui_env")


def table_app(session: LocalTableSession, box: list, **kw):
    def make() -> Shell:
        shell = Shell()
        screen = TableScreen(session, on_leave=shell.exit, **kw)
        shell.show(screen)
        box[:] = [shell, screen]
        return shell

    return make


async def finish_match(session: LocalTableSession) -> None:
    """Play the human seat with a simple policy until the match is over."""
    bot = FallbackBot("debutant", session.seat, 7)
    for _ in range(5000):
        if session.state.over:
            return
        v = session.view()
        if v.my_turn and v.phase in ("draw", "play"):
            await session.act(bot.choose(v, []))
        await asyncio.sleep(0)
    raise AssertionError("the match did not end")


async def click_text(d: Driver, screen: TableScreen, start: str) -> None:
    await d.settle()
    pos = locate(screen.fragments(), lambda t: t.startswith(start))
    assert pos is not None, f"{start!r} is on screen"
    d.click(*pos)


async def open_chat(d: Driver, m) -> None:
    """Press ``:`` and wait for the empty chat line."""
    d.keys(":")
    await until(lambda: m.chat_input == "", what="chat open")


def test_chat_line_limits_and_log():
    async def main() -> None:
        session = make_solo_session("rami", 2, "moyen", "chat-1", think=0.2, nickname="Tester")
        box: list = []
        async with running(table_app(session, box, stats=None), timeout=20) as d:
            shell, screen = box
            # the screen's rate limit on a clock that stands still: a loaded machine typing
            # slowly must not refill the burst between the 4th and the 5th line
            screen.chat_policy = ChatPolicy(clock=lambda: 0.0)
            m = screen.model
            await until(lambda: m.view is not None, what="deal")
            await open_chat(d, m)
            assert "Chat: _" in screen.text() and "(0/200)" in screen.text()
            d.keys("hello   world dq")  # table keys (d, q) are text while chatting
            await until(lambda: m.chat_input == "hello   world dq", what="typed")
            assert "(16/200)" in screen.text()
            d.keys("\r")
            await until(lambda: any("Tester: hello world dq" in x for x in m.log), what="echo")
            assert m.chat_input is None
            assert "Tester: hello world dq" in screen.text()
            # the size limit: the input stops at 200 characters and says so
            await open_chat(d, m)
            d.keys("x" * 205)
            await until(lambda: len(m.chat_input or "") == 200, what="200 chars")
            await until(lambda: m.error is not None, what="limit shown")
            assert "at most 200 characters" in screen.text()
            d.keys("\r")
            await until(lambda: any(x.endswith("x" * 50) for x in m.log), what="long line")
            # an empty line is refused with a message
            await open_chat(d, m)
            d.keys("   \r")
            await until(lambda: m.error == "The message is empty.", what="empty refused")
            assert "The message is empty." in screen.text()
            # the rate limit: 4 lines in a burst, the 5th is refused and the user sees why
            for i in (3, 4):
                d.keys(f":line {i}\r")
                await until(lambda i=i: any(f"Tester: line {i}" in x for x in m.log))
            d.keys(":line 5\r")
            await until(lambda: (m.error or "").startswith("Too many messages"), what="rate")
            assert "Too many messages: wait" in screen.text()
            assert not any("line 5" in x for x in m.log)
            # Esc closes the chat without sending; the table keys work again
            d.keys(":abc")
            await until(lambda: m.chat_input == "abc")
            d.keys("\x1b")
            await until(lambda: m.chat_input is None, what="closed")
            await until(lambda: session._queue.empty(), what="every update shown")
            # bots say nothing
            assert all(not x.startswith("Bot 1:") for x in m.log)
            assert not session.chat.check(1, "hi").ok
            d.keys("qq")
            await until(lambda: not shell.app.is_running, what="left")

    asyncio.run(main())


def test_an_answer_to_the_players_own_key_stays_while_the_bots_play():
    """An empty chat line is refused with a message. Bots playing fast used to wipe it
    with their next event (a fifth of a second later, so the player hardly saw it, and
    the chat test above failed now and then on a loaded machine). It now stays until the
    player's next key; a table event alone does not clear it."""
    async def main() -> None:
        # 3 players, a deal where the bots move first (0.3 s each): events come while the
        # message is shown
        session = make_solo_session("rami", 3, "moyen", "chat-4", think=0.3, nickname="Tester")
        box: list = []
        async with running(table_app(session, box, stats=None), timeout=20) as d:
            shell, screen = box
            m = screen.model
            await until(lambda: m.view is not None, what="deal")
            assert not m.view.my_turn, "this deal's first player is a bot"
            await open_chat(d, m)
            d.keys("  \r")
            await until(lambda: m.error == "The message is empty.", what="empty refused")
            seen = len(m.match_events)
            await until(lambda: len(m.match_events) > seen and m.view.my_turn, what="the bots play")
            assert m.error == "The message is empty." and m.error_local
            assert "The message is empty." in screen.text()
            d.keys(":")  # the player's next key puts it away
            await until(lambda: m.chat_input == "" and m.error is None, what="put away")
            d.keys("\x1b")
            await until(lambda: m.chat_input is None, what="closed")
            d.keys("qq")
            await until(lambda: not shell.app.is_running, what="left")

    asyncio.run(main())


def test_info_joueur_own_card_from_a_finished_match_and_opponents(tmp_path):
    async def main() -> None:
        profile = Profile(nickname="Tester", player_id=new_player_id(), lang="en")
        session = make_solo_session("rami", 3, "moyen", "info-1", limit=1, think=0,
                                    nickname="Tester")
        box: list = []
        db_path = tmp_path / "stats.sqlite3"
        make = table_app(session, box, profile=profile, stats=lambda: StatsDB(db_path))
        async with running(make, timeout=30) as d:
            shell, screen = box
            m = screen.model
            await until(lambda: m.view is not None, what="deal")
            # connection states of every opponent, from SessionUpdate.connections
            assert m.connections == {0: "you", 1: "bot", 2: "bot"}
            text = screen.text()
            assert text.count(" bot") >= 2
            await finish_match(session)
            await until(lambda: screen.recorded == [session.match_id], what="recorded")
            await until(screen.showing_result, what="result")
            # our own card, in full, from the database filled by the real match
            d.keys("i")
            await until(lambda: m.info_seat == 0, what="info open")
            lines = screen.info_lines()
            assert lines[0].startswith("Tester (" + profile.player_id[:6])
            assert "Connection: you" in lines
            won = session.state.winner == 0
            assert f"Matches: 1 played, {int(won)} won" in lines
            assert "Variant rami:" in lines
            with StatsDB(db_path) as db:
                s = db.summary("rami")
                assert s.matches_played == 1 and s.rounds_played == 1
                assert not db.record_match(0, session.state, session.match_id)  # once only
            # the next player: a bot's bare card
            d.keys("l")
            await until(lambda: m.info_seat != 0, what="next seat")
            lines = screen.info_lines()
            assert lines[0] in ("Bot 1", "Bot 2")
            assert "Connection: bot" in lines and "No statistics." in lines
            d.keys("\x1b")
            await until(lambda: m.info_seat is None, what="closed")
            # an opponent who reported a card and is reconnecting
            with StatsDB(":memory:") as other:
                other.record_match(1, session.state, "their-match")
                card = other.own_card("Bot 1", new_player_id()).to_plain()
            session._queue.put_nowait(
                SessionUpdate(connections={1: "reconnecting"}, cards={1: card})
            )
            await until(lambda: m.connections.get(1) == "reconnecting", what="state")
            await click_text(d, screen, "[Player info")  # the button, by mouse
            await until(lambda: m.info_seat is not None, what="info by click")
            await d.press_until("l", lambda: m.info_seat, 1)
            lines = screen.info_lines()
            assert "Connection: reconnecting…" in lines
            assert "Statistics reported by the player (not verified)." in lines
            assert "Matches: 1 played" in " ".join(lines)
            d.keys("\x1b")
            await until(lambda: m.info_seat is None)
            d.keys("q")
            await until(lambda: not shell.app.is_running, what="left")

    asyncio.run(main())


def test_connection_states_rendered_next_to_opponents():
    async def main() -> None:
        session = make_solo_session("rami", 4, "moyen", "conn-1", think=5, nickname="Tester")
        box: list = []
        async with running(table_app(session, box, stats=None), timeout=20):
            shell, screen = box
            m = screen.model
            await until(lambda: m.view is not None, what="deal")
            session._queue.put_nowait(SessionUpdate(
                nicknames={1: "Paul", 2: "Léa"},
                connections={1: "reconnecting", 2: "left", 3: "bot"},
            ))
            await until(lambda: m.connections.get(2) == "left", what="states")
            rows = screen.text(80, 20).split("\n")  # one line per opponent
            paul = next(r for r in rows if "Paul" in r)
            lea = next(r for r in rows if "Léa" in r)
            bot = next(r for r in rows if "Bot 4" in r)
            assert paul.rstrip().endswith("reconnecting…")
            assert lea.rstrip().endswith("left the table")
            assert bot.rstrip().endswith("bot, medium")  # a bot's level is shown
            big = screen.text(120, 40)  # boxes around the table: the same marks
            for word in ("reconnecting…", "left the table", "bot, medium"):
                assert word in big
            shell.exit(0)

    asyncio.run(main())
