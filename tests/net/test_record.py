"""The match record and `verify`: a recorded match checks; tampering is reported."""

from __future__ import annotations

import argparse
import asyncio
import copy
import json
from pathlib import Path
from typing import Any

import pytest
from aio_helpers import run

from rami_lan.cli import cmd_verify
from rami_lan.net import guard as G
from rami_lan.net.bot_client import BotClient
from rami_lan.net.client import open_session
from rami_lan.net.host import TableConfig, TableHost
from rami_lan.net.record import load_record, verify

pytestmark = pytest.mark.usefixtures("isolated_config")


async def _record(tmp_path: Path, **table: Any) -> dict[str, Any]:
    # The client plays with no think delay: lift the message-rate limit, or it may be
    # cut off, reconnect, and miss a round's commitments (then the assertions below,
    # which expect its secret in every round, would not hold).
    roomy = G.GuardConfig(messages_per_s=10_000, message_burst=10_000)
    host = TableHost(TableConfig(name="rec", seats=2, headless=True, advertise=False,
                                 interfaces=["127.0.0.1"], record_dir=tmp_path,
                                 bot_delay=0.0, guard=roomy, **table))
    port = await host.start()
    try:
        s = await open_session("127.0.0.1", port, nickname="solo")
        host_bots = await asyncio.gather(BotClient(s, delay=0.0).run(), host.wait_finished(30))
        assert host_bots[0].finished
        await s.close()
    finally:
        await host.stop()
    assert host.record_path is not None
    return load_record(host.record_path)


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    # variant 40 to 50 points: several rounds, the stock may be reshuffled. A match that
    # ends in one round is played again, so the rotation and tag cases always run.
    rec: dict[str, Any] = {}
    for _attempt in range(6):
        rec = run(_record(tmp_path_factory.mktemp("rec"), variant="40", limit=50,
                          bots={1: "moyen"}))
        if len(rec["rounds"]) >= 2:
            break
    return rec


def test_record_holds_every_round(record: dict[str, Any]) -> None:
    assert record["format"] == "rami-lan-record"
    assert record["result"]["winner"] in (0, 1)
    for rnd in record["rounds"]:
        # one remote client on seat 0; the dedicated host covers the bot with seat 255
        assert set(rnd["commitments"]) == {"0", "255"} == set(rnd["secrets"])
        assert rnd["host_seat"] == 255
        assert len(rnd["deck"]) == 106
        assert rnd["events"][0]["type"] == "RoundStarted"
    report = verify(record)
    assert report.ok, report.text()


def _tampered(record: dict[str, Any], how: str) -> dict[str, Any]:
    rec = copy.deepcopy(record)
    rnd = rec["rounds"][0]
    if how == "secret":
        rnd["secrets"]["0"] = "00" * 32
    elif how == "commitment":
        rnd["commitments"]["255"] = "11" * 32
    elif how == "deck":
        rnd["deck"][5], rnd["deck"][6] = rnd["deck"][6], rnd["deck"][5]
    elif how == "draw":
        ev = next(e for e in rnd["events"] if e["type"] == "StockDrawn")
        ev["card"] = {"card": (ev["card"]["card"] + 1) % 106}
    elif how == "position":
        ev = next(e for e in rnd["events"] if e["type"] == "StockDrawn")
        ev["position"] += 1
    elif how == "dealt":
        ev = next(e for e in rnd["events"] if e["type"] == "CardsDealt")
        ev["cards"][0], ev["cards"][1] = ev["cards"][1], ev["cards"][0]
    elif how == "first_discard":
        rnd["events"][0]["first_discard"] = {"card": (rnd["deck"][0])}
    elif how == "tag":
        rnd["round_tag"] = rnd["round_tag"][:-2] + "ff"
    elif how == "dealer":
        ev = rnd["events"][0]
        other = next(p for p in ev["players"] if p != ev["dealer"])
        ev["dealer"] = other
    return rec


@pytest.mark.parametrize(
    "how",
    ["secret", "commitment", "deck", "draw", "position", "dealt", "first_discard", "tag",
     "dealer"],
)

def test_tampering_is_reported(record: dict[str, Any], how: str) -> None:
    report = verify(_tampered(record, how))
    assert not report.ok
    assert report.problems


def test_verify_command(record: dict[str, Any], tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    good = tmp_path / "good.json"
    good.write_text(json.dumps(record))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_tampered(record, "draw")))
    junk = tmp_path / "junk.json"
    junk.write_text("{not json")
    ns = argparse.Namespace
    assert cmd_verify.run(ns(record=str(good), json=False)) == 0
    assert "OK" in capsys.readouterr().out
    assert cmd_verify.run(ns(record=str(bad), json=True)) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] is False and out["problems"]
    assert cmd_verify.run(ns(record=str(junk), json=False)) == 2
    assert cmd_verify.run(ns(record=str(tmp_path / "missing.json"), json=False)) == 2


def test_empty_record_is_not_ok() -> None:
    rec = {"format": "rami-lan-record", "table_id": "00" * 16, "variant": "rami",
           "rounds": []}
    assert not verify(rec).ok


def _offline(record: dict[str, Any], how: str) -> dict[str, Any]:
    rec = copy.deepcopy(record)
    rounds = rec["rounds"]
    if how == "rotation":  # round 2's dealer is not the next seat after round 1's
        ev = rounds[1]["events"][0]
        ev["dealer"] = rounds[0]["events"][0]["dealer"]
    elif how == "reused_tag":
        rounds[1]["round_tag"] = rounds[0]["round_tag"]
    elif how == "score":
        ev = next(e for e in rounds[0]["events"] if e["type"] == "RoundEnded")
        ev["scores"][0][1] += 7
    elif how == "meld":
        ev = next(e for r in rounds for e in r["events"] if e["type"] == "Melded")
        ev["melds"][0]["c"] = ev["melds"][0]["c"][:2]  # two cards: no meld
    elif how == "first_dealer":
        ev = rounds[0]["events"][0]
        ev["dealer"] = next(p for p in ev["players"] if p != ev["dealer"])
    return rec


@pytest.mark.parametrize("how, words", [
    ("rotation", "rotation"), ("reused_tag", "tag"), ("score", "scores"),
    ("meld", "Melded"), ("first_dealer", "dealer"),
])
def test_offline_replay_catches_rulings_rotation_and_tags(record: dict[str, Any], how: str,
                                                          words: str) -> None:
    assert len(record["rounds"]) >= 2, "the fixture plays until a match has two rounds"
    report = verify(_offline(record, how))
    assert not report.ok
    assert any(words in p for p in report.problems), report.problems
