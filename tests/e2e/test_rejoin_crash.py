"""Back in after a client crash (issue 29 item 1, plain tables): a seat's credentials are
kept on the player's disk (0600, per table) while the match runs, so ``kill -9`` of a
client mid-round and relaunching ``rami-lan join`` with the same data folder takes the
same seat again within 5 s and the match goes on; the file is gone once the match ends.
Real processes on loopback."""

from __future__ import annotations

import asyncio
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from aio_helpers import DEADLINE_SCALE, read_host_port, run, start_host_process

from rami_lan.net.seats import MAX_AGE, SeatCredentials, SeatStore

ROOT = Path(__file__).resolve().parents[2]


def _cred(**kw: object) -> SeatCredentials:
    base: dict = dict(table_id="ab" * 8, fingerprint="cd" * 32, token=b"t" * 16, host="127.0.0.1",
                      port=4242, seat=1, nickname="Bruno", table_name="Chez Anne")
    return SeatCredentials(**{**base, **kw})


def test_the_store_keeps_one_private_file_per_table(tmp_path: Path) -> None:
    now = [1000.0]
    store = SeatStore(tmp_path / "seats", clock=lambda: now[0])
    store.save(_cred(code="TULI-PE42"))
    path = tmp_path / "seats" / f"{'ab' * 8}.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    got = store.get("ab" * 8)
    assert got is not None and got.token == b"t" * 16 and got.code == "TULI-PE42"
    assert store.find("chez anne") == got and store.find("127.0.0.1:4242") == got
    assert store.find("abab") == got and store.find("other") is None
    store.save(_cred(table_id="ef" * 8, port=4343))
    assert [c.table_id for c in store.all()] == ["ab" * 8, "ef" * 8] or len(store.all()) == 2
    store.remove("ab" * 8)
    assert store.get("ab" * 8) is None and not path.exists()
    now[0] += MAX_AGE + 1  # stale: removed when read
    assert store.all() == []


@pytest.mark.parametrize("content", [b"", b"{", b"[]", b'{"token": "zz"}', b"x" * 10000,
                                     b'{"table_id": "abababababababab", "token": "' + b"00" * 16 + b'"}'])
def test_a_bad_seat_file_is_skipped_and_removed(tmp_path: Path, content: bytes) -> None:
    folder = tmp_path / "seats"
    folder.mkdir()
    bad = folder / f"{'ab' * 8}.json"
    bad.write_bytes(content)
    store = SeatStore(folder)
    assert store.all() == [] and store.find("abab") is None
    assert not bad.exists()


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "LANG": "C",
            "RAMI_LAN_CONFIG_DIR": str(home / "cfg"), "RAMI_LAN_DATA_DIR": str(home / "data"),
            "RAMI_LAN_LOG_DIR": str(home / "logs")}


def _join(home: Path, port: int, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "rami_lan.cli.main", "join", f"127.0.0.1:{port}", "--bot", "debutant",
         *extra], env=_env(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


async def _line(proc: subprocess.Popen[str], pattern: str, timeout: float) -> tuple[str, float]:
    loop = asyncio.get_running_loop()
    start = time.monotonic()
    assert proc.stdout is not None
    while True:
        left = timeout - (time.monotonic() - start)
        assert left > 0, f"{pattern!r} not printed within {timeout} s"
        line = await asyncio.wait_for(loop.run_in_executor(None, proc.stdout.readline), left)
        if not line:
            err = proc.stderr.read() if proc.stderr else ""
            raise AssertionError(f"{pattern!r} never printed; stderr: {err}")
        if pattern in line:
            return line, time.monotonic() - start


def _exit_code(proc: subprocess.Popen[str], within: float = 10.0) -> int | None:
    """The process's exit status once it has ended, or None if still running after WITHIN s."""
    try:
        return proc.wait(within)
    except subprocess.TimeoutExpired:
        return None


class _EndedEarly(Exception):
    """The match ended before the kill (a bot went out within its first turns)."""


async def _kill_and_relaunch(tmp_path: Path, code: str | None = None) -> dict[str, object]:
    """`_kill_and_relaunch_once`, started again in a fresh folder (at most three tries)
    when the deal let the match end before the kill: the crash needs a match in play."""
    for attempt in range(3):
        try:
            return await _kill_and_relaunch_once(tmp_path / f"try{attempt}", code)
        except _EndedEarly:
            continue
    raise AssertionError("three matches in a row ended before the kill")


async def _kill_and_relaunch_once(tmp_path: Path, code: str | None = None) -> dict[str, object]:
    coded = ("--code", code) if code else ()
    host = start_host_process(_env(tmp_path / "host"), "--name", "Crash", "--seats", "2",
                              "--no-private-deal", "--no-advertise",
                              "--interface", "127.0.0.1", "--away-delay", "30", *coded)
    procs: list[subprocess.Popen[str]] = []
    try:
        port = await read_host_port(host)
        ana, ben = tmp_path / "ana", tmp_path / "ben"
        a = _join(ana, port, *coded)
        procs.append(a)
        seated, _t = await _line(a, "Seated at seat", 20)
        b = _join(ben, port, *coded)
        procs.append(b)
        await _line(b, "Seated at seat", 20)
        files = list((ana / "data" / "seats").glob("*.json"))
        mode = stat.S_IMODE(files[0].stat().st_mode) if files else None
        await asyncio.sleep(1.0)  # the match started when both were seated: mid-round now
        if a.poll() == 0:
            raise _EndedEarly  # a deal that let a bot go out at once: no match to crash in
        assert a.poll() is None, "still playing"
        a.send_signal(signal.SIGKILL)
        a.wait(10)
        again = _join(ana, port)
        procs.append(again)
        # (alone about 0.8 s, the 5 s of issue 29; the deadline allows for four test workers
        # sharing two cores, where the relaunched process alone can take seconds to start)
        try:
            back, took = await _line(again, "Back in your seat", 15)
        except AssertionError:
            # refused because the match ended just before the kill and the host is leaving
            if await asyncio.get_running_loop().run_in_executor(None, _exit_code, host) == 0:
                raise _EndedEarly from None
            raise
        print(f"relaunched client back in its seat in {took:.2f} s")
        rounds, _t = await _line(again, "Rounds played:", 240)
        loop = asyncio.get_running_loop()
        status = await loop.run_in_executor(None, lambda: again.wait(30))
        await loop.run_in_executor(None, lambda: b.wait(30))
        return {"seated": seated, "back": back, "took": took, "rounds": rounds, "status": status,
                "mode": mode, "left": list((ana / "data" / "seats").glob("*.json"))}
    finally:
        for p in [*procs, host]:
            if p.poll() is None:
                p.kill()
            p.communicate(timeout=10)


@pytest.mark.parametrize("code", [None, "kept"])
def test_a_killed_client_relaunched_is_back_in_its_seat(tmp_path: Path, code: str | None) -> None:
    # "kept": a code table, relaunched without --code: the kept code runs SPAKE2 again.
    from rami_lan.net.pake import generate_code

    out = run(_kill_and_relaunch(tmp_path, generate_code() if code else None), 300)
    seat = str(out["seated"]).split("seat ")[1].split(";")[0]
    assert f"(seat {seat})" in str(out["back"])  # the same seat
    assert float(out["took"]) < 5 * DEADLINE_SCALE  # type: ignore[arg-type]  # 5 s alone; load scales it
    assert out["mode"] == 0o600
    assert "Rounds played: " in str(out["rounds"])
    assert out["status"] in (0, 5)  # the match finished (5: a round not fully checked)
    assert out["left"] == []  # the match ended: the credentials are removed


def test_a_seat_in_use_is_not_offered_to_a_second_client(tmp_path: Path) -> None:
    """A live session holds its seat's lock: a second ``join`` of the same player (same
    data folder) is not handed that seat (it would take it over); once the holder is
    gone (a crash drops the lock), the seat is offered again."""
    store = SeatStore(tmp_path / "seats")
    store.save(_cred())
    store.hold("ab" * 8)
    other = SeatStore(tmp_path / "seats")  # another process's view of the folder
    assert other.in_use("ab" * 8) and other.find("127.0.0.1:4242") is None
    code = (
        "import fcntl, os, sys, time\n"
        f"fd = os.open({str(tmp_path / 'seats' / ('ef' * 8 + '.lock'))!r}, os.O_RDWR | os.O_CREAT)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(60)\n")
    store.save(_cred(table_id="ef" * 8, port=4343))
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert other.find("127.0.0.1:4343") is None
        holder.send_signal(signal.SIGKILL)
        holder.wait(10)
        found = other.find("127.0.0.1:4343")
        assert found is not None and found.table_id == "ef" * 8
    finally:
        if holder.poll() is None:
            holder.kill()
        holder.communicate(timeout=10)
    store.release("ab" * 8)
    assert other.find("127.0.0.1:4242") is not None
