"""Private dealing over loopback: a connected client that withholds its key releases no
longer blocks the table (issue 24: it blocked it forever, ``--timer 5`` too).

The real asyncio host (TLS, sockets), three `join --bot`-style clients and a host bot;
one client drops every ``mk_key`` it would send. The table's deadline (the move timer,
2 s here) names it, voids the round it spoils, takes it out of the private deal after
its second miss, and the match reaches its end; the honest clients fail no round.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from rami_lan.net import protocol as P
from rami_lan.net.bot_client import BotClient
from rami_lan.net.client import open_session
from rami_lan.net.host import TableConfig, TableHost

pytestmark = pytest.mark.usefixtures("isolated_config")


async def _grief(tmp_path: Path) -> tuple[TableHost, Any, list]:
    host = TableHost(TableConfig(
        name="grief", variant="rami", seats=4, bots={3: "moyen"}, limit=50, timer=2,
        headless=True, advertise=False, interfaces=["127.0.0.1"], bot_delay=0.0,
        private_deal=True, record_dir=tmp_path, away_delay=0.01))
    port = await host.start()
    try:
        sessions = [await open_session("127.0.0.1", port, nickname=n) for n in ("ana", "bo", "cy")]
        griefer = sessions[1]
        send = griefer._send

        async def no_keys(*msgs: P.Message) -> None:
            await send(*(m for m in msgs if not (isinstance(m, P.Masked) and m.m.get("k") == "mk_key")))

        griefer._send = no_keys  # type: ignore[method-assign]
        bots = [BotClient(s, delay=0.0, seed=i) for i, s in enumerate(sessions)]
        tasks = [asyncio.create_task(b.run()) for b in bots]
        await asyncio.wait_for(host.wait_finished(), 150)
        rounds = [s.fairness_rounds() for s in sessions if s is not griefer]
        for t in tasks:
            t.cancel()
        for s in sessions:
            await s.close()
    finally:
        await host.stop()
    return host, griefer, rounds


def test_a_client_that_withholds_its_keys_can_not_block_the_table(tmp_path: Path) -> None:
    host, griefer, rounds = asyncio.run(_grief(tmp_path))
    m = host.machine
    assert m.match.over
    seat = griefer.seat
    assert seat in m.standing.out and len(m.standing.strikes[seat]) == 2
    assert all(r.named <= {seat} for r in m.masked_reports), [r.faults for r in m.masked_reports]
    for per_seat in rounds:
        assert per_seat and all(r.status != "failed" for r in per_seat), [
            (r.round_no, r.status, r.reason) for r in per_seat]
