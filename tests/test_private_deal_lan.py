"""Private dealing through the real asyncio host on loopback (TLS, sockets, bot clients).

Three `join --bot`-style clients (`BotClient` over `RemoteTableSession`) and one bot
seat held by the host play a whole match of ``rami`` with private dealing. Every client
holds its own keys, plays from the hand its keys reveal, proves each card it plays, and
replays every round with the rules from the audited deck order: all rounds check, every
audit is fair, and the host never held a card of a remote seat before it was public.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from rami_lan.net.bot_client import BotClient
from rami_lan.net.client import open_session
from rami_lan.net.host import TableConfig, TableHost

pytestmark = pytest.mark.usefixtures("isolated_config")


async def _match(tmp_path: Path) -> tuple[TableHost, list, list]:
    host = TableHost(TableConfig(
        name="private", variant="rami", seats=4, bots={3: "moyen"}, limit=50,
        headless=True, advertise=False, interfaces=["127.0.0.1"], bot_delay=0.0,
        private_deal=True, record_dir=tmp_path))
    port = await host.start()
    try:
        sessions = [await open_session("127.0.0.1", port, nickname=n) for n in ("ana", "bo", "cy")]
        bots = [BotClient(s, delay=0.0, seed=i) for i, s in enumerate(sessions)]
        summaries = await asyncio.wait_for(asyncio.gather(*(b.run() for b in bots)), 120)
        await host.wait_finished(20)
        rounds = [s.fairness_rounds() for s in sessions]
        for s in sessions:
            assert s.masked is not None and not s.masked.faults and not s.masked.problems
            await s.close()
    finally:
        await host.stop()
    return host, summaries, rounds


def test_a_whole_match_with_private_dealing_over_loopback(tmp_path: Path) -> None:
    host, summaries, rounds = asyncio.run(_match(tmp_path))
    assert host.match.over and host.match.round_no >= 2
    assert all(s.finished for s in summaries), summaries
    for per_seat in rounds:
        assert [r.status for r in per_seat] == ["checked"] * host.match.round_no, per_seat
    reports = host.machine.masked_reports
    assert len(reports) == host.match.round_no and all(r.fair for r in reports)


class DropsOnce:
    """A bot that kills its own connection once, on its first draw of round 1; the
    session reconnects by itself with its token and the same keys."""

    def __init__(self, session: object, seat: int) -> None:
        from rami_lan.bots import make_bot

        self.session = session
        self.inner = make_bot("moyen", seat, 5)
        self.think_delay = 0.0
        self.dropped = False

    def choose(self, view: object, new_events: object) -> object:
        if not self.dropped and view.phase == "draw":  # type: ignore[attr-defined]
            self.dropped = True
            self.session.abort_transport()  # type: ignore[attr-defined]
        return self.inner.choose(view, new_events)

    def wants_knock(self, view: object, new_events: object = ()) -> bool:
        return False


async def _dropping_match(tmp_path: Path) -> tuple[TableHost, list, list, DropsOnce]:
    host = TableHost(TableConfig(
        name="private", variant="rami", seats=4, bots={3: "moyen"}, limit=1,
        headless=True, advertise=False, interfaces=["127.0.0.1"], bot_delay=0.0,
        private_deal=True, record_dir=tmp_path))
    port = await host.start()
    try:
        sessions = [await open_session("127.0.0.1", port, nickname=n) for n in ("ana", "bo", "cy")]
        dropper = DropsOnce(sessions[0], sessions[0].seat)
        bots = [BotClient(sessions[0], dropper, delay=0.0)] + [
            BotClient(s, delay=0.0, seed=i) for i, s in enumerate(sessions[1:])]
        summaries = await asyncio.wait_for(asyncio.gather(*(b.run() for b in bots)), 120)
        await host.wait_finished(20)
        rounds = [s.fairness_rounds() for s in sessions]
        for s in sessions:
            await s.close()
    finally:
        await host.stop()
    return host, summaries, rounds, dropper


def test_a_dropped_connection_comes_back_and_the_private_round_goes_on(tmp_path: Path) -> None:
    host, summaries, rounds, dropper = asyncio.run(_dropping_match(tmp_path))
    assert dropper.dropped and host.match.over
    assert all(s.finished for s in summaries), summaries
    assert host.machine.masked_reports and all(r.fair for r in host.machine.masked_reports)
    assert [r.status for r in rounds[1]] == [r.status for r in rounds[2]] == ["checked"]
    assert rounds[0][0].status in ("partial", "checked")
