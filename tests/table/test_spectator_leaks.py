"""Spectators of a tournament see only public information, at plain and private tables.

An in-process organiser (`TournamentHost`) with four registered bot players at tables of
two (two first-stage tables, then a final the two players who are out watch), and a
spectator connected from the start. Every ``t_watch`` the spectator receives is checked
against the tables' own match records (written once the secrets are out, unredacted):
each card it names must be public at that point of its table (a first discard, a
discard, a meld, a lay-off, a joker taken back, a refilled pile, or a hand shown at the
round's end); a card dealt or drawn is never in it. Attacker's test: a relay that sends
the view of seat 0 instead of the view for no seat is caught by the same check.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from aio_helpers import run, until

from rami_lan.cli.tournament_join import join_tournament
from rami_lan.net import tls
from rami_lan.net import tournament_protocol as T
from rami_lan.net.bot_client import BotClient
from rami_lan.net.tournament_host import TournamentHost
from rami_lan.tournament.machine import TournamentConfig

pytestmark = pytest.mark.usefixtures("isolated_config")

PRIVATE_TYPES = {"CardsDealt", "StockDrawn"}


def card_ids(value: Any) -> set[int]:
    """Every card id in a plain structure (a card is ``{"card": id}``)."""
    out: set[int] = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            if type(v.get("card")) is int and len(v) == 1:
                out.add(v["card"])
            stack.extend(v.values())
        elif isinstance(v, list | tuple):
            stack.extend(v)
    return out


async def spectate(port: int, got: list[T.TWatch], done: asyncio.Event,
                   welcomed: asyncio.Event) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=tls.client_context())
    session = T.TSession("client")
    writer.write(session.send(T.THello(nick="spectator", lang="en", watch=True)))
    try:
        while not done.is_set():
            data = await reader.read(65536)
            if not data:
                return
            for msg in session.receive_data(data):
                if isinstance(msg, T.TWelcome):
                    welcomed.set()  # the organiser counts us as a spectator now
                if isinstance(msg, T.TWatch):
                    got.append(msg)
                if isinstance(msg, T.TStandings) and msg.over:
                    return
    finally:
        writer.close()


async def tournament(tmp: Path, private: bool, relay: Any = None) -> tuple[TournamentHost, list[T.TWatch]]:
    cfg = TournamentConfig(name="leaks", table_size=2, limit=1, private_deal=private)
    host = TournamentHost(cfg, interfaces=["127.0.0.1"], advertise=False, record_dir=tmp,
                          start_at=4, join_wait=20, table_tuning={"bot_delay": 0.0})
    if relay is not None:
        host._public = relay.__get__(host)  # type: ignore[method-assign]
    port = await host.start()
    got: list[T.TWatch] = []
    done, welcomed = asyncio.Event(), asyncio.Event()
    watcher = asyncio.create_task(spectate(port, got, done, welcomed))
    # the spectator is registered (its welcome came) before any seat joins
    await until(lambda: welcomed.is_set() or watcher.done(), what="the spectator's welcome")
    assert welcomed.is_set(), watcher

    async def seat(session: Any) -> int:
        summary = await BotClient(session, level="moyen", delay=0.0).run()
        return 0 if summary.finished else 1

    args = argparse.Namespace(bot="moyen", bot_delay=0.0)
    players = [asyncio.create_task(join_tournament("127.0.0.1", port, args, f"p{i}", None, seat))
               for i in range(4)]
    try:
        rcs = await asyncio.wait_for(asyncio.gather(*players), 120)
        await asyncio.wait_for(host.finished.wait(), 20)
        assert rcs == [0, 0, 0, 0]
    finally:
        done.set()
        watcher.cancel()
        await host.stop()
    return host, got


def check_messages(tmp: Path, host: TournamentHost, got: list[T.TWatch]) -> int:
    """Every card of every spectator message is public at its point; returns the cards seen."""
    record = json.loads(host.record_path.read_text())
    flat: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for states in record["stages"]:
        for t in states:
            table = json.loads((tmp / t["record_file"]).read_text())
            flat[(t["stage"], t["table"])] = [e for r in table["rounds"] for e in r["events"]]
    counts = dict.fromkeys(flat, 0)
    seen = 0
    for msg in got:
        label = (msg.stage, msg.table)
        counts[label] += len(msg.events)
        public: set[int] = set()
        for e in flat[label][:counts[label]]:
            if e.get("type") not in PRIVATE_TYPES:
                public |= card_ids(e)
        for e in msg.events:
            if e.get("type") == "CardsDealt":
                assert e.get("cards") is None, e
            if e.get("type") == "StockDrawn":
                assert e.get("card") is None, e
        named = card_ids(msg.events) | card_ids(msg.view)
        leaked = named - public
        assert not leaked, f"table {label}: hidden cards {sorted(leaked)} sent to a spectator"
        assert msg.view.get("hand") in ([], None)
        seen += len(named)
    assert set(counts) == {(1, 1), (1, 2), (2, 1)} and all(counts.values())
    return seen


@pytest.mark.parametrize("private", [False, True], ids=["plain", "private"])
def test_a_spectator_sees_no_hidden_card(tmp_path: Path, private: bool) -> None:
    host, got = run(tournament(tmp_path, private), timeout=150)
    assert host.machine.phase == "over"
    assert len(got) > 20
    assert check_messages(tmp_path, host, got) > 10  # it did see the public cards


def test_the_check_catches_a_relay_that_sends_a_seats_view(tmp_path: Path) -> None:
    from rami_lan.core.codec import view_to_plain
    from rami_lan.core.views import view_for

    def leaky(self: TournamentHost, label: Any, table: Any, events: Any,
              match: Any = None) -> T.TWatch:
        honest = TournamentHost._public(self, label, table, events, match)
        view = view_to_plain(view_for(table.match if match is None else match, 0))  # the cheat
        return T.TWatch(stage=honest.stage, table=honest.table, events=honest.events,
                        view=view, players=honest.players)

    host, got = run(tournament(tmp_path, False, leaky), timeout=150)
    with pytest.raises(AssertionError, match="hidden cards|hand"):
        check_messages(tmp_path, host, got)
