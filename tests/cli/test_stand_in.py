"""A's screen while the host's bot plays for B (issue 29, lan2 d): B's seat reads "away: a
bot plays for them" (English and French) once the host's bot has played for B, not
"reconnecting…" forever, and back to "connected" when B returns. Real host and clients
on loopback."""

from __future__ import annotations

import asyncio

import pytest
from aio_helpers import run, until

from rami_lan.cli.card_text import connection_label
from rami_lan.i18n import set_language
from rami_lan.net.bot_client import BotClient
from rami_lan.net.client import open_session
from rami_lan.net.host import TableConfig, TableHost
from rami_lan.player_card import Connection

pytestmark = pytest.mark.usefixtures("isolated_config", "english")




async def _scenario() -> list[str]:
    config = TableConfig(name="stand in", seats=3, headless=True, advertise=False,
                         interfaces=["127.0.0.1"], bot_delay=0.0, variant="rami", limit=None,
                         bots={2: "moyen"}, away_delay=0.1)
    host = TableHost(config)
    port = await host.start()
    seen: list[str] = []
    try:
        a = await open_session("127.0.0.1", port, nickname="alice")
        b = await open_session("127.0.0.1", port, nickname="bruno", retries=0)
        token, seat = b.token, b.seat
        runner = asyncio.create_task(BotClient(a, delay=0.0, seed=1).run())

        def state() -> str:
            s = a._connections().get(seat, "")
            if not seen or seen[-1] != s:
                seen.append(s)
            return s

        await until(lambda: a.view is not None and a.view.phase in ("draw", "play"), timeout=20,
                    what="a view")
        b.abort_transport()  # B's process dies; the host's bot plays B's turns
        await until(lambda: host.seats[seat].conn is None, timeout=20, what="B dropped")
        await until(lambda: state() == "stand_in", timeout=20, what="A reads: a bot plays for B")
        back = await open_session("127.0.0.1", port, nickname="bruno", token=token)
        assert back.seat == seat
        again = asyncio.create_task(BotClient(back, delay=0.0, seed=2).run())
        await until(lambda: state() == "connected", timeout=20, what="A reads B connected again")
        for t in (runner, again):
            t.cancel()
        for s in (a, b, back):
            await s.close()
    finally:
        await host.stop()
    return seen


def test_a_seat_the_hosts_bot_plays_says_so_and_comes_back() -> None:
    seen = run(_scenario(), 60)
    assert "stand_in" in seen and seen[-1] == "connected", seen
    assert seen.index("stand_in") < len(seen) - 1


def test_the_stand_in_mark_reads_in_english_and_french() -> None:
    assert connection_label(Connection.STAND_IN) == "away: a bot plays for them"
    set_language("fr")
    assert connection_label(Connection.STAND_IN) == "absent : un robot joue à sa place"
