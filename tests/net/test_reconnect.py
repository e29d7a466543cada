"""A client whose connection dies mid-turn reconnects with its token, gets its seat back
with the full state, and finishes the match; a new process can also come back with the
token."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from aio_helpers import run, until

from rami_lan.bots import make_bot
from rami_lan.net.bot_client import BotClient
from rami_lan.net.client import open_session
from rami_lan.net.host import TableConfig, TableHost

pytestmark = pytest.mark.usefixtures("isolated_config")


class KillOnce:
    """A policy that, on its first turn in the draw phase, kills its own connection."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self.inner = make_bot("debutant", session.seat, 1)
        self.think_delay = 0.0
        self.killed_at: tuple[int, int] | None = None

    def choose(self, view: Any, new_events: Any) -> Any:
        if self.killed_at is None and view.phase == "draw":
            self.killed_at = (view.round_no, view.turn_no)
            self.session.abort_transport()
        return self.inner.choose(view, new_events)

    def wants_knock(self, view: Any) -> bool:
        return False


def _config(**kw: Any) -> TableConfig:
    return TableConfig(name="rc", seats=3, headless=True, advertise=False,
                       interfaces=["127.0.0.1"], bot_delay=0.0, **kw)


async def _killed_mid_turn() -> tuple[TableHost, Any, list, list]:
    host = TableHost(_config(variant="rami", limit=1, away_delay=5.0))
    port = await host.start()
    try:
        sessions = [await open_session("127.0.0.1", port, nickname=f"p{i}") for i in range(3)]
        victim = sessions[0]
        states: list[str] = []
        policy = KillOnce(victim)
        bots = [BotClient(victim, policy, delay=0.0)] + [
            BotClient(s, delay=0.0, seed=i) for i, s in enumerate(sessions[1:])]

        async def watch_states() -> None:
            while victim.connection != "closed":
                if not states or states[-1] != victim.connection:
                    states.append(victim.connection)
                await asyncio.sleep(0.001)

        watcher = asyncio.create_task(watch_states())
        summaries = await asyncio.gather(*(b.run() for b in bots))
        await host.wait_finished(10)
        watcher.cancel()
        assert policy.killed_at is not None
        for s in sessions:
            await s.close()
    finally:
        await host.stop()
    return host, victim, summaries, states


def test_client_killed_mid_turn_reconnects_and_finishes() -> None:
    host, victim, summaries, states = run(_killed_mid_turn())
    assert "reconnecting" in states
    assert states.index("reconnecting") < len(states) - 1  # and connected again after
    assert host.match.over
    assert victim.seat == 0
    for s in summaries:
        assert s.finished
        assert s.fair, s.fairness
        assert len(s.fairness) == len(host.match.history)


async def _new_process_with_token() -> None:
    host = TableHost(_config(variant="rami", limit=1, bots={2: "moyen"}, away_delay=30.0))
    port = await host.start()
    try:
        a = await open_session("127.0.0.1", port, nickname="alice", retries=0)
        b = await open_session("127.0.0.1", port, nickname="bob")
        token, seat = a.token, a.seat
        # wait for the first view of the round
        async for up in a.updates():
            if up.view is not None and up.view.phase in ("draw", "play"):
                hand = up.view.hand
                break
        a.abort_transport()
        await until(lambda: host.seats[seat].conn is None)  # seat held, nobody connected
        assert host.seats[seat].token is not None
        again = await open_session("127.0.0.1", port, nickname="alice", token=token)
        assert again.seat == seat
        async for up in again.updates():
            if up.view is not None:
                assert up.view.seat == seat
                assert up.view.round_no == 1 and len(up.view.hand) >= len(hand) - 1
                break
        for s in (a, b, again):
            await s.close()
    finally:
        await host.stop()


def test_new_session_with_token_gets_the_seat_back() -> None:
    run(_new_process_with_token(), 20)
