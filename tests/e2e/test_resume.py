"""Crash safety end to end: a real host process is SIGKILLed mid-round, restarted with
``--resume``, and the same clients (bots) reconnect by themselves and finish the match
with nothing lost: the cards, the turn and the scores they see after the restart are the
ones in the journal, and the match record verifies.

Network rule: 127.0.0.1 only (the host listens and advertises on it alone).
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from typing import Any

from aio_helpers import read_host_port as _read_port
from aio_helpers import start_host_process as _start_host
from test_rejoin_crash import _EndedEarly

from rami_lan.core import apply, view_for
from rami_lan.core.codec import action_from_plain, match_from_plain
from rami_lan.core.match import withdraw
from rami_lan.net.bot_client import BotClient
from rami_lan.net.client import open_session
from rami_lan.net.journal import replay
from rami_lan.net.record import verify_file


class Recording:
    """A session wrapper that remembers every update the bot consumes."""

    def __init__(self, session: Any) -> None:
        self._s = session
        self.log: list[Any] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._s, name)

    async def updates(self):  # type: ignore[no-untyped-def]
        async for up in self._s.updates():
            self.log.append(up)
            yield up




def _journal_state(folder: Path) -> tuple[Any, int]:
    """The match the journal holds: last snapshot plus every action after it."""
    (path,) = list(folder.glob("*.journal"))
    snap, records = replay(path)
    assert snap is not None
    m = match_from_plain(snap["match"])
    seq = snap["seq"]
    for r in records:
        if r.kind == "action":
            assert r.body["seq"] == seq + 1
            m, _ = apply(m, action_from_plain(r.body["action"], m.variant))
            seq += 1
        elif r.kind == "withdraw":
            m, _ = withdraw(m, r.body["seat"])
            seq += 1
    return m, seq


COMMON = ["--interface", "127.0.0.1", "--bot-delay", "0", "--away-delay", "20"]


def _env(tmp_path: Path) -> dict[str, str]:
    return dict(os.environ, RAMI_LAN_CONFIG_DIR=str(tmp_path / "cfg"), LANG="C.UTF-8")


async def _crash_mid_round(tmp_path: Path, deal: str) -> tuple[Path, Any, list[Recording], list[Any]]:
    """A 3-seat ``rami`` table (``deal``: ``--private-deal`` or ``--no-private-deal``) with
    three bot clients, SIGKILLed a few turns into its first round.

    A private deal is a fresh shuffle every run, and now and then it lets a bot go out
    within its first turns, before the crash: then the table is started again in a fresh
    folder (at most four tries), since a finished match has no round to resume. Returns
    that folder (the host's config and records are under it) with the rest."""
    for attempt in range(4):
        folder = tmp_path / f"try{attempt}"
        try:
            return (folder, *await _crash_once(folder, deal))
        except _EndedEarly:
            continue
    raise AssertionError("four deals in a row ended before the crash")


async def _crash_once(tmp_path: Path, deal: str) -> tuple[Any, list[Recording], list[Any]]:
    proc = _start_host(_env(tmp_path), "--name", "crash", "--seats", "3", "--variant", "rami", deal,
                       "--limit", "1", "--record-dir", str(tmp_path / "records"), *COMMON)
    port = await _read_port(proc)
    sessions = [Recording(await open_session("127.0.0.1", port, nickname=f"p{i}",
                                             backoff=0.05, max_backoff=0.5))
                for i in range(3)]
    bots = [BotClient(s, delay=0.03, seed=i) for i, s in enumerate(sessions)]
    tasks = [asyncio.create_task(b.run()) for b in bots]
    ended = False
    try:
        while not ended and not any(up.view is not None and up.view.turn_no >= 3 for up in sessions[0].log):
            for t in tasks:
                if t.done():
                    if t.exception() is None and t.result().finished:
                        ended = True
                        break
                    raise AssertionError(f"a bot stopped before the crash: {t.result()}")
            if ended:
                break
            await asyncio.sleep(0.01)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(5)
    if ended:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for s in sessions:
            await s.close()
        raise _EndedEarly
    return proc, sessions, tasks


async def _scenario(tmp_path: Path) -> None:
    # A seeded table: its resume continues the very round (a private one: below).
    tmp_path, proc, sessions, tasks = await _crash_mid_round(tmp_path, "--no-private-deal")
    env = _env(tmp_path)
    records = tmp_path / "records"
    try:
        port = sessions[0].port  # where the clients were connected
        mark = [len(s.log) for s in sessions]
        expected, _seq = _journal_state(tmp_path / "cfg" / "tables")
        assert expected.phase in ("draw", "play")

        proc = _start_host(env, "--resume", *COMMON)
        port2 = await _read_port(proc)
        assert port2 == port  # the old port was free again
        summaries = await asyncio.wait_for(asyncio.gather(*tasks), 45)
        for s, at in zip(sessions, mark, strict=True):
            after = s.log[at:]
            states = [up.connection for up in after if up.connection]
            assert "reconnecting" in states and "connected" in states
            first = next(up.view for up in after if up.view is not None)
            want = view_for(expected, s.seat)
            # Same cards, same turn, same scores: the whole view the journal implies.
            assert first == want
        assert all(sm.finished for sm in summaries)
        assert all(sm.fair for sm in summaries), [sm.fairness for sm in summaries]
        assert proc.wait(15) == 0
        (record,) = list(records.glob("*.json"))
        report = verify_file(record)
        assert report.ok, report.text()
        assert not list((tmp_path / "cfg" / "tables").glob("*.journal"))  # finished: removed
        for s in sessions:
            await s.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)


def test_sigkill_mid_round_then_resume(tmp_path: Path) -> None:
    async def guarded() -> None:
        await asyncio.wait_for(_scenario(tmp_path), 80)

    asyncio.run(guarded())


async def _private_scenario(tmp_path: Path) -> None:
    """The same crash at a private table (three human seats, masked deck): the restarted
    host makes its masked round again from its journal and the round goes on."""
    tmp_path, proc, sessions, tasks = await _crash_mid_round(tmp_path, "--private-deal")
    env = _env(tmp_path)
    records = tmp_path / "records"
    try:
        turn_at_kill = max(up.view.turn_no for up in sessions[0].log if up.view is not None)
        mark = [len(s.log) for s in sessions]
        (path,) = list((tmp_path / "cfg" / "tables").glob("*.journal"))
        snap, journaled = replay(path)
        assert snap is not None and snap["masked"] is not None
        assert any(r.kind == "private" for r in journaled)

        proc = _start_host(env, "--resume", *COMMON)
        await _read_port(proc)
        summaries = await asyncio.wait_for(asyncio.gather(*tasks), 60)
        for s, at in zip(sessions, mark, strict=True):
            after = s.log[at:]
            states = [up.connection for up in after if up.connection]
            assert "reconnecting" in states and "connected" in states
            first = next(up.view for up in after if up.view is not None)
            assert first.round_no == 1 and first.turn_no >= turn_at_kill - 1  # the same round
        assert all(sm.finished for sm in summaries)
        assert all(sm.fair for sm in summaries), [sm.fairness for sm in summaries]
        for s in sessions:
            rounds = s.fairness_rounds()
            assert [r.status for r in rounds] == ["checked"], [(r.status, r.reason) for r in rounds]
            assert "void" not in rounds[0].reason
        assert proc.wait(15) == 0
        (record,) = list(records.glob("*.json"))
        report = verify_file(record)
        assert report.ok, report.text()
        for s in sessions:
            await s.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)


def test_sigkill_mid_private_round_then_resume_goes_on(tmp_path: Path) -> None:
    async def guarded() -> None:
        await asyncio.wait_for(_private_scenario(tmp_path), 100)

    asyncio.run(guarded())
