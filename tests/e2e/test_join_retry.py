"""Join-code retries (issue 29 item 4): a ``rate_limited`` refusal carries its delay as
data (``refused.retry_ms``), ``rami-lan join`` waits it out and tries again within its
window, and two players behind one address joining a code table both get in."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from aio_helpers import read_host_port, run, start_host_process

from rami_lan.net import guard as G
from rami_lan.net import protocol as P
from rami_lan.net.client import JoinRefused, open_session
from rami_lan.net.host import TableConfig, TableHost
from rami_lan.net.joining import join_retrying
from rami_lan.net.pake import generate_code

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.usefixtures("isolated_config")


def test_refused_carries_the_retry_delay_as_data() -> None:
    refusal = G.AdmissionLimiter().begin("1.2.3.4", G.KIND_CODE)
    assert isinstance(refusal, G.Ticket)
    again = G.AdmissionLimiter(G.AdmissionConfig(max_in_flight=1))
    again.begin("1.2.3.4", G.KIND_CODE)
    second = again.begin("1.2.3.4", G.KIND_CODE)
    assert isinstance(second, G.Refusal) and second.retry_ms == 1000
    msg = P.Refused(code="rate_limited", message=second.message, retry_ms=second.retry_ms)
    wire = P.Session("host").send(msg)
    client = P.Session("client")
    client.send(P.Hello(nick="x", lang="en"))
    (back,) = client.receive_data(wire)
    assert isinstance(back, P.Refused) and back.retry_ms == 1000
    with pytest.raises(P.LocalProtocolError):
        P.Session("host").send(P.Refused(code="rate_limited", message="", retry_ms=-1))


def test_join_retrying_waits_the_hosts_delay_within_its_window() -> None:
    now = [0.0]
    calls: list[float] = []

    async def connect() -> str:
        calls.append(now[0])
        if len(calls) < 3:
            raise JoinRefused("rate_limited", "an attempt from this address is running, try again in 1 s",
                              retry_after=0.01)
        return "seated"

    assert run(join_retrying(connect, 1.0, clock=lambda: now[0])) == "seated"
    assert len(calls) == 3

    async def always() -> str:
        now[0] += 0.5
        raise JoinRefused("rate_limited", "...", retry_after=0.6)

    with pytest.raises(JoinRefused):  # past the window: the refusal is the caller's
        run(join_retrying(always, 1.0, clock=lambda: now[0]))

    async def wrong() -> str:
        raise JoinRefused("bad_code", "wrong join code")

    with pytest.raises(JoinRefused):  # only rate_limited is retried
        run(join_retrying(wrong, 10.0))


async def _wrong_code_then_two_players() -> list[Any]:
    code = generate_code()
    host = TableHost(TableConfig(name="rt", seats=3, headless=True, advertise=False,
                                 interfaces=["127.0.0.1"], join_code=code, bot_delay=0.0))
    port = await host.start()
    try:
        with pytest.raises(JoinRefused):  # a wrong code first: the address now waits 1 s
            await open_session("127.0.0.1", port, nickname="oops", code="WRNG-CODE")
        sessions = await asyncio.gather(*(join_retrying(
            lambda n=n: open_session("127.0.0.1", port, nickname=n, code=code), 10.0)
            for n in ("ana", "ben")))
        seats = sorted(s.seat for s in sessions)
        for s in sessions:
            await s.close()
        return seats
    finally:
        await host.stop()


def test_two_players_behind_one_address_both_get_in() -> None:
    assert run(_wrong_code_then_two_players(), 30) == [0, 1]


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "LANG": "C",
            "RAMI_LAN_CONFIG_DIR": str(tmp_path / "cfg"), "RAMI_LAN_DATA_DIR": str(tmp_path / "data")}


async def _cli_two_players(tmp_path: Path) -> list[tuple[int | None, str, str]]:
    code = generate_code()
    host = start_host_process(_env(tmp_path), "--name", "Retry", "--seats", "2", "--code", code,
                              "--no-advertise", "--interface", "127.0.0.1")
    procs: list[subprocess.Popen[str]] = []
    try:
        port = await read_host_port(host)
        loop = asyncio.get_running_loop()

        def join(nick: str, with_code: str) -> subprocess.Popen[str]:
            return subprocess.Popen(
                [sys.executable, "-m", "rami_lan.cli.main", "join", f"127.0.0.1:{port}",
                 "--bot", "debutant", "--nick", nick, "--code", with_code],
                env=_env(tmp_path / nick), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

        oops = join("oops", "WRNG-CODE")  # a wrong code: this address must wait 1 s
        await loop.run_in_executor(None, lambda: oops.wait(20))
        procs = [join("ana", code)]
        await asyncio.sleep(0.3)  # the second player about a moment later, same address
        procs.append(join("ben", code))

        async def seated(p: subprocess.Popen[str]) -> str:
            assert p.stdout is not None
            line = await asyncio.wait_for(loop.run_in_executor(None, p.stdout.readline), 20)
            return line

        lines = [await seated(p) for p in procs]
        return [(p.poll(), line, "") for p, line in zip(procs, lines, strict=True)]
    finally:
        for p in [*procs, host]:
            if p.poll() is None:
                p.kill()
            p.communicate(timeout=10)


def test_rami_lan_join_waits_and_retries_when_rate_limited(tmp_path: Path) -> None:
    results = run(_cli_two_players(tmp_path), 60)
    assert all("Seated at seat" in line for _status, line, _err in results), results
