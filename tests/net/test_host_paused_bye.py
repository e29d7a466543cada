"""A host that stops mid-match with its journal kept says so (``bye`` "table paused"):
its players wait for it instead of ending, and get their seats back when it is resumed
(``rami-lan host --resume``); a table closed for good (no journal) still ends them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from aio_helpers import run, until

from rami_lan.ids import BYE_TABLE_CLOSED, BYE_TABLE_PAUSED
from rami_lan.net.bot_client import BotClient
from rami_lan.net.client import open_session
from rami_lan.net.host import TableConfig, TableHost
from rami_lan.net.notices import NoticeCode

pytestmark = pytest.mark.usefixtures("isolated_config")


def _config(**kw: Any) -> TableConfig:
    return TableConfig(name="paused", seats=2, headless=True, advertise=False,
                       interfaces=["127.0.0.1"], bot_delay=0.0, variant="rami", **kw)


class _Notices:
    """Every notice code a session reports (its updates are read by its bot)."""

    def __init__(self, session: Any) -> None:
        self.codes: list[Any] = []
        put = session._queue.put_nowait

        def spy(up: Any) -> None:
            if up is not None and getattr(up.notice, "code", None) is not None:
                self.codes.append(up.notice.code)
            put(up)

        session._queue.put_nowait = spy


async def _paused_then_resumed(tmp: Path) -> tuple[list[Any], list[_Notices], TableHost]:
    import asyncio

    host = TableHost(_config(limit=100, journal_dir=tmp))
    port = await host.start()
    sessions = [await open_session("127.0.0.1", port, nickname=f"p{i}", paused_window=60.0)
                for i in range(2)]
    notices = [_Notices(s) for s in sessions]
    bots = [asyncio.create_task(BotClient(s, delay=0.01, seed=i).run()) for i, s in enumerate(sessions)]
    resumed: TableHost | None = None
    try:
        await until(lambda: host.match.round is not None and host.match.round.turn_no >= 4,
                    timeout=30, what="a round under way")
        journal = host.journal_path
        await host.stop()  # mid-match: the journal is kept, the table may be resumed
        await until(lambda: all(s.connection == "reconnecting" for s in sessions), what="waiting")
        assert not any(b.done() for b in bots), "a player ended when the host paused"
        assert all(NoticeCode.HOST_PAUSED in n.codes for n in notices)
        resumed = TableHost.resume(journal, interfaces=["127.0.0.1"], advertise=False, bot_delay=0.0)
        assert await resumed.start() == port
        await until(lambda: all(s.connection == "connected" for s in sessions), timeout=30,
                    what="both players back")
        summaries = await asyncio.wait_for(asyncio.gather(*bots), 120)
        await resumed.wait_finished(20)
        return summaries, notices, resumed
    finally:
        for s in sessions:
            await s.close()
        if resumed is not None:
            await resumed.stop()
        for b in bots:
            b.cancel()


def test_players_wait_for_a_paused_host_and_finish_the_match_when_it_is_resumed(tmp_path: Path) -> None:
    summaries, notices, resumed = run(_paused_then_resumed(tmp_path), 240)
    assert resumed.match.over
    assert all(s.finished for s in summaries), summaries
    for n in notices:
        k = n.codes.index(NoticeCode.HOST_PAUSED)
        assert NoticeCode.RECONNECTED in n.codes[k:]  # back after the pause
        assert NoticeCode.HOST_CLOSED not in n.codes[:k]


async def _closed_for_good() -> tuple[str, list[Any]]:
    host = TableHost(_config(limit=100))  # no journal: nothing to resume
    port = await host.start()
    session = await open_session("127.0.0.1", port, nickname="p0")
    other = await open_session("127.0.0.1", port, nickname="p1")
    notices = _Notices(session)
    try:
        await until(lambda: session.view is not None, what="the first view")
        await host.stop()
        await until(lambda: session.connection == "closed", what="the session ends")
        return session.connection, notices.codes
    finally:
        await session.close()
        await other.close()


def test_a_table_closed_for_good_still_ends_its_players() -> None:
    state, codes = run(_closed_for_good(), 30)
    assert state == "closed"
    assert NoticeCode.HOST_CLOSED in codes and NoticeCode.HOST_PAUSED not in codes


def test_the_two_bye_reasons_are_distinct_wire_texts() -> None:
    assert BYE_TABLE_CLOSED == "table closed" and BYE_TABLE_PAUSED == "table paused"
