"""Two bugs the chaos test (tests/chaos.py) found, each pinned by its own test:

- the line client (``rami-lan join`` / ``host`` when stdout is not a terminal) read stdin
  in the event loop's default executor; ``asyncio.run`` waits for that thread, so at the
  end of the match, or on SIGHUP, the process stayed alive until a line was typed;
- a host whose own player's screen closed at the end of the match stopped the table at
  once, before a private table's last audit: every other player then failed that round
  ("the session ended before the round's secrets arrived") and it was not recorded.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[2]

_OVER = textwrap.dedent("""
    import asyncio
    from rami_lan.cli.cmd_join import _line_client
    from rami_lan.core.views import SeatView
    from rami_lan.net.table_session import SessionUpdate

    VIEW = SeatView(seat=0, variant="rami", phase="over", round_no=1, turn_no=1, turn=None,
                    dealer=0, hand=(), players=(), melds=(), discard=(), discard_size=0,
                    stock_size=0, knock_window=(), taken=None, must_use=(), last_result=None,
                    limit=1, quick=False, knock=False, match_over=True, winner=0, tiebreak=())

    class Over:
        seat = 0
        table: dict = {}

        async def updates(self):
            await asyncio.sleep(0.2)
            yield SessionUpdate(view=VIEW)

        async def close(self):
            pass

    print("rc", asyncio.run(_line_client(Over())), flush=True)
""")


def test_the_line_client_ends_with_the_match_while_stdin_stays_open() -> None:
    """stdin is a pipe nobody writes to or closes (a script, a terminal left alone)."""
    proc = subprocess.Popen([sys.executable, "-c", _OVER], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT), "LANG": "C.UTF-8"})
    try:
        proc.wait(20)  # not communicate(): it would close stdin
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)
        raise AssertionError("the process outlived its match") from None
    finally:
        assert proc.stdout is not None
        out = proc.stdout.read()
        if proc.stdin is not None:
            proc.stdin.close()
    assert proc.returncode == 0, out
    assert "The match is over." in out and "rc 0" in out, out


def test_the_line_client_still_reads_typed_lines_and_their_end() -> None:
    from rami_lan.cli.cmd_join import _stdin_lines

    async def scenario() -> list[str]:
        r, w = os.pipe()
        with os.fdopen(r) as reader, os.fdopen(w, "w") as writer:
            lines = _stdin_lines(asyncio.get_running_loop(), reader)
            writer.write("d\nx 5h\n")
            writer.flush()
            got = [await asyncio.wait_for(lines.get(), 5), await asyncio.wait_for(lines.get(), 5)]
            writer.close()
            got.append(await asyncio.wait_for(lines.get(), 5))
        return got

    assert asyncio.run(scenario()) == ["d\n", "x 5h\n", ""]


def _host(over: bool, audit_timeout: float = 30.0) -> SimpleNamespace:
    host = SimpleNamespace(match=SimpleNamespace(over=over), finished=asyncio.Event(),
                           config=SimpleNamespace(audit_timeout=audit_timeout))

    async def wait_finished(timeout: float | None = None) -> None:
        await asyncio.wait_for(host.finished.wait(), timeout)

    host.wait_finished = wait_finished
    return host


def test_the_host_waits_for_the_last_rounds_secrets_before_closing() -> None:
    from rami_lan.cli.cmd_host import _let_the_match_end

    async def scenario() -> float:
        host = _host(over=True)
        loop = asyncio.get_running_loop()
        loop.call_later(0.3, host.finished.set)  # the last audit completes, the record is written
        start = time.monotonic()
        await _let_the_match_end(host)
        assert host.finished.is_set()
        return time.monotonic() - start

    assert 0.25 <= asyncio.run(scenario()) < 5


def test_the_host_does_not_wait_for_a_match_left_before_its_end_nor_forever() -> None:
    from rami_lan.cli.cmd_host import _let_the_match_end

    async def scenario() -> tuple[float, float]:
        start = time.monotonic()
        await _let_the_match_end(_host(over=False))  # the owner quit mid-match
        quick = time.monotonic() - start
        start = time.monotonic()
        await _let_the_match_end(_host(over=True, audit_timeout=-4.7))  # never finishes
        bounded = time.monotonic() - start
        return quick, bounded

    quick, bounded = asyncio.run(scenario())
    assert quick < 0.1
    assert 0.2 <= bounded < 2
