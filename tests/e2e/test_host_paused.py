"""A host that stops running for a while (``SIGSTOP``, a debugger, a paused VM) does not
time a player out for its own pause (chaos, private tables: a host stopped past a
player's deadline voided the round naming that player, who had sent all it owed).

Real processes on loopback: a headless host with a 2 s move timer and two ``join --bot``
players; the host is stopped three times for 3 s each, mid-round, while a player's move
is on its way. The players answer within a fraction of a second, so every ``TimedOut``
in the record would be the host's pause counted as the player's time."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
from pathlib import Path

from aio_helpers import read_host_port, run, start_host_process
from test_rejoin_crash import _env, _join, _line


async def _paused_match(tmp_path: Path) -> tuple[list[dict[str, object]], int]:
    records = tmp_path / "records"
    host = start_host_process(_env(tmp_path / "host"), "--name", "Paused", "--seats", "2",
                              "--variant", "rami", "--limit", "1", "--no-private-deal",
                              "--no-advertise", "--interface", "127.0.0.1", "--timer", "2",
                              "--bot-delay", "0.05", "--record-dir", str(records))
    procs: list[subprocess.Popen[str]] = []
    try:
        port = await read_host_port(host)
        for who in ("ana", "ben"):
            # the players think 0.25 s a move so that the one round outlasts the first pause
            p = _join(tmp_path / who, port, "--bot", "moyen", "--bot-delay", "0.25")
            procs.append(p)
            await _line(p, "Seated at seat", 20)
        await asyncio.sleep(0.5)  # the round is being played
        pauses = 0
        for _ in range(3):
            if host.poll() is not None:
                break
            os.kill(host.pid, signal.SIGSTOP)
            await asyncio.sleep(3.0)  # longer than the move timer
            os.kill(host.pid, signal.SIGCONT)
            pauses += 1
            await asyncio.sleep(0.4)
        loop = asyncio.get_running_loop()
        for p in procs:
            await loop.run_in_executor(None, lambda p=p: p.wait(120))
        await loop.run_in_executor(None, lambda: host.wait(30))
        [record] = records.glob("*.json")
        data = json.loads(record.read_text())
        return [e for r in data["rounds"] for e in r["events"]], pauses
    finally:
        for p in [*procs, host]:
            if p.poll() is None:
                os.kill(p.pid, signal.SIGCONT)
                p.kill()
            p.communicate(timeout=10)


def test_a_paused_host_does_not_time_players_out_for_its_own_pause(tmp_path: Path) -> None:
    events, pauses = run(_paused_match(tmp_path), 200)
    assert pauses >= 1, "the match ended before the host could be paused"
    assert len(events) > 10
    timed_out = [e for e in events if e.get("type") == "TimedOut"]
    assert timed_out == [], timed_out
