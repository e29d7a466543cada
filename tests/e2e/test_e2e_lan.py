"""End to end on loopback: a host advertises on 127.0.0.1, three clients browse for it,
join, and bots play whole matches; every fairness check passes and the record verifies.

Network rule: zeroconf only on 127.0.0.1 with IPv4; sockets only on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

import pytest
from aio_helpers import run
from zeroconf import IPVersion

from rami_lan.cli import cmd_verify
from rami_lan.net.bot_client import BotClient
from rami_lan.net.client import open_session
from rami_lan.net.discovery import TableAd, TableBrowser
from rami_lan.net.host import TableConfig, TableHost
from rami_lan.net.record import load_record, verify, verify_file

pytestmark = pytest.mark.usefixtures("isolated_config")


LOOPBACK = ["127.0.0.1"]


async def browse_for(name: str, timeout: float = 5.0) -> TableAd:
    """Find the table called ``name`` with a real mDNS browser bound to loopback."""
    browser = TableBrowser(interfaces=LOOPBACK, ip_version=IPVersion.V4Only)
    await browser.start()
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            for ad in browser.snapshot():
                if ad.name == name and ad.port:
                    return ad
            await asyncio.sleep(0.02)
        raise AssertionError(f"table {name!r} not seen by browsing")
    finally:
        await browser.stop()


async def play_lan_match(tmp_path: Path, name: str, **table: object) -> tuple[TableHost, list]:
    config = TableConfig(
        name=name, seats=3, headless=True, advertise=True, interfaces=LOOPBACK,
        record_dir=tmp_path, bot_delay=0.0, host_nickname="hote", **table,  # type: ignore[arg-type]
    )
    host = TableHost(config)
    await host.start()
    try:
        ads = await asyncio.gather(*(browse_for(name) for _ in range(3)))
        sessions = []
        for i, ad in enumerate(ads):
            assert ad.seats_total == 3 and ad.variant == config.variant
            sessions.append(await open_session(ad.addresses[0], ad.port, nickname=f"joueur{i}"))
        bots = [BotClient(s, delay=0.0, seed=i) for i, s in enumerate(sessions)]
        summaries = await asyncio.gather(*(b.run() for b in bots))
        await host.wait_finished(10)
        for s in sessions:
            await s.close()
    finally:
        await host.stop()
    return host, summaries


@pytest.mark.parametrize(
    ("variant", "options"),
    [("rami", {"limit": 1, "knock": True}), ("500", {"quick": True})],
)

def test_full_match_over_loopback(tmp_path: Path, variant: str, options: dict) -> None:
    host, summaries = run(play_lan_match(tmp_path, f"e2e {variant}", variant=variant, **options))
    assert host.match.over
    rounds = len(host.match.history)
    if variant == "500":
        assert rounds >= 3  # a quick 500 match is three rounds (plus tie-breaks)
    for s in summaries:
        assert s.finished
        assert s.rounds == rounds
        assert len(s.fairness) == rounds
        assert all(ok for ok, _ in s.fairness), s.fairness
        assert s.winner == host.match.winner
    assert host.record_path is not None
    report = verify_file(host.record_path)
    assert report.ok, report.text()
    assert report.rounds == rounds
    assert report.checked_cards > 0
    record = load_record(host.record_path)
    assert record["table_id"] == host.table_id.hex()
    assert len(record["rounds"]) == rounds
    assert verify(record).ok
    assert cmd_verify.run(argparse.Namespace(record=str(host.record_path), json=False)) == 0
