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
