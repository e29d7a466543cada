"""The machine's whole-match scenario again, through the asyncio host on loopback.

Four seats: two of the host's bots, two remote clients. Seat 0 says a chat line and
kills its own connection on its first draw (it reconnects with its token by itself);
seat 1 lets its first turn run out (the move timer plays a timeout). The match ends,
every client verified every round, and the record shows who played what.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from rami_lan.bots import make_bot
from rami_lan.core import actions as A
from rami_lan.net.bot_client import BotClient
from rami_lan.net.client import open_session
from rami_lan.net.host import TableConfig, TableHost
from rami_lan.net.record import verify_file

pytestmark = pytest.mark.usefixtures("isolated_config")


class Scripted:
    """A bot that breaks its connection once (``kill``) or idles one turn (``idle``)."""

    def __init__(self, session: Any, what: str) -> None:
        self.session = session
        self.what = what
        self.inner = make_bot("debutant", session.seat, 3)
        self.think_delay = 0.0
        self.done_at: tuple[int, int] | None = None

    def choose(self, view: Any, new_events: Any) -> Any:
        if self.done_at is None and view.phase == "draw":
            self.done_at = (view.round_no, view.turn_no)
            if self.what == "idle":
                return A.Timeout(view.seat)  # BotClient sends nothing: the timer runs out
            self.session.abort_transport()
        return self.inner.choose(view, new_events)

    def wants_knock(self, view: Any) -> bool:
        return False


async def _scenario(tmp_path: Path) -> tuple[TableHost, list, list]:
    host = TableHost(TableConfig(
        name="loop", variant="rami", seats=4, bots={2: "moyen", 3: "moyen"}, limit=1,
        timer=1, headless=True, advertise=False, interfaces=["127.0.0.1"], bot_delay=0.0,
        away_delay=5.0, record_dir=tmp_path))
    port = await host.start()
    try:
        sessions = [await open_session("127.0.0.1", port, nickname=n) for n in ("ana", "bo")]
        await sessions[0].send_chat("bonjour")
        policies = [Scripted(sessions[0], "kill"), Scripted(sessions[1], "idle")]
        bots = [BotClient(s, p, delay=0.0) for s, p in zip(sessions, policies, strict=True)]
        summaries = await asyncio.wait_for(asyncio.gather(*(b.run() for b in bots)), 40)
        await host.wait_finished(10)
        chat = [list(s.chat_log) for s in sessions]
        assert all(p.done_at is not None for p in policies)
        for s in sessions:
            await s.close()
    finally:
        await host.stop()
    return host, summaries, chat


def test_the_machine_scenario_through_the_asyncio_host(tmp_path: Path) -> None:
    host, summaries, chat = asyncio.run(_scenario(tmp_path))
    assert host.match.over
    assert all(s.finished and s.fair for s in summaries), [s.fairness for s in summaries]
    assert chat[0] == chat[1] == [(0, "bonjour")]
    report = verify_file(host.record_path)
    assert report.ok, report.text()
    import json

    record = json.loads(Path(host.record_path).read_text(encoding="utf-8"))
    played_by = [b for r in record["rounds"] for b in r["played_by"]]
    assert "timer" in played_by and "bot" in played_by and "player" in played_by
    assert {p["seat"]: p["kind"] for p in record["players"]} == {
        0: "human", 1: "human", 2: "bot", 3: "bot"}
