"""A cheating host (it swaps two cards of the deck after the shuffle) is caught by the
clients' end-of-round check and by ``rami-lan verify``."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

import pytest
from aio_helpers import run

from rami_lan.cli import cmd_verify
from rami_lan.net.bot_client import BotClient
from rami_lan.net.client import open_session
from rami_lan.net.host import TableConfig, TableHost
from rami_lan.net.record import verify_file
from rami_lan.net.shuffle import deck_order

pytestmark = pytest.mark.usefixtures("isolated_config")


class CheatingHost(TableHost):
    """Deals the agreed deck with its first two cards swapped."""

    def _deck_for_round(self, seed: bytes, n_cards: int) -> list[int]:
        deck = super()._deck_for_round(seed, n_cards)
        deck[0], deck[1] = deck[1], deck[0]
        return deck


async def _play(tmp_path: Path) -> tuple[TableHost, list]:
    host = CheatingHost(TableConfig(name="cheat", variant="rami", limit=1, seats=3,
                                    headless=True, advertise=False, interfaces=["127.0.0.1"],
                                    record_dir=tmp_path, bot_delay=0.0))
    port = await host.start()
    try:
        sessions = [await open_session("127.0.0.1", port, nickname=f"p{i}") for i in range(3)]
        summaries = await asyncio.gather(*(BotClient(s, delay=0.0).run() for s in sessions))
        await host.wait_finished(10)
        for s in sessions:
            await s.close()
    finally:
        await host.stop()
    return host, summaries, sessions  # type: ignore[return-value]


def test_cheating_host_is_caught(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    host, summaries, sessions = run(_play(tmp_path))
    failed = [s for s in summaries if not s.fair]
    # Positions 0 and 1 are dealt to the first two players served: both see it.
    assert len(failed) >= 2
    for s in failed:
        ok, details = next(f for f in s.fairness if not f[0])
        assert "FAILED" in details and "dealt card" in details
    assert any(m.position in (0, 1) for sess in sessions for m in sess.mismatches)

    assert host.record_path is not None
    report = verify_file(host.record_path)
    assert not report.ok
    assert any("deck used is not deck_order" in p for p in report.problems)
    assert any("dealt card" in p for p in report.problems)
    capsys.readouterr()
    assert cmd_verify.run(argparse.Namespace(record=str(host.record_path), json=False)) == 1
    assert "MISMATCH" in capsys.readouterr().out

    # Even a record whose "deck" was rewritten to the honest one is caught by its log.
    data = json.loads(host.record_path.read_text())
    for rnd in data["rounds"]:
        rnd["deck"] = deck_order(bytes.fromhex(rnd["seed"]), rnd["n_cards"])
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(data))
    report = verify_file(forged)
    assert not report.ok
    assert all("deck used" not in p for p in report.problems)
    assert any("dealt card" in p for p in report.problems)
