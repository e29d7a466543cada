"""Running and polling coroutines in tests, with hard time limits."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any


def _deadline_scale() -> float:
    """How much longer a deadline in this suite is than written: 3 in an xdist worker (the
    suite's four workers share two cores with the host and client processes the end-to-end
    tests start), 1 in one process; ``RAMI_TEST_DEADLINE_SCALE`` overrides. Only deadlines
    scale: a wait still ends the moment its condition holds, so a pass costs nothing more,
    and a latency a test reports is the one measured (the numbers are in ``benchmarks/``)."""
    env = os.environ.get("RAMI_TEST_DEADLINE_SCALE")
    if env:
        return max(1.0, float(env))
    return 3.0 if os.environ.get("PYTEST_XDIST_WORKER") else 1.0


DEADLINE_SCALE = _deadline_scale()


def run(coro: Awaitable[Any], timeout: float = 60.0) -> Any:
    """Run ``coro`` in a new event loop; fail (TimeoutError) after ``timeout`` seconds
    (times :data:`DEADLINE_SCALE`)."""

    async def guarded() -> Any:
        return await asyncio.wait_for(coro, timeout * DEADLINE_SCALE)

    return asyncio.run(guarded())


async def until(predicate: Callable[[], bool], timeout: float = 5.0, what: str = "") -> float:
    """The suite's one condition wait: poll ``predicate`` every 5 ms until true and return
    the seconds it took; fail at the deadline (``timeout`` times :data:`DEADLINE_SCALE`)
    saying what was awaited."""
    start = time.monotonic()
    timeout *= DEADLINE_SCALE
    while not predicate():
        if time.monotonic() - start > timeout:
            raise AssertionError(f"not within {timeout} s: {what or predicate}")
        await asyncio.sleep(0.005)
    return time.monotonic() - start


async def poll_until(predicate: Callable[[], bool], what: str, timeout: float) -> float:
    """:func:`until` with the arguments in the order the older tests give them."""
    return await until(predicate, timeout, what)


async def pump(src: asyncio.StreamReader, dst: asyncio.StreamWriter, captured: bytearray) -> None:
    """Forward ``src`` to ``dst`` until either side ends, recording every byte in ``captured``;
    a connection error (``ssl.SSLError`` included) just ends it. Closes ``dst``."""
    try:
        while data := await src.read(65536):
            captured += data
            dst.write(data)
            await dst.drain()
    except OSError:
        pass
    finally:
        with contextlib.suppress(Exception):
            dst.close()


def start_host_process(env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    """``rami-lan host --headless ARGS`` in a child process (its stdout names the port)."""
    return subprocess.Popen(
        [sys.executable, "-m", "rami_lan.cli.main", "host", "--headless", *args],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


async def read_host_port(proc: subprocess.Popen[str], timeout: float = 15.0) -> int:
    """The port a host child process prints, or fail with its stderr."""
    loop = asyncio.get_running_loop()
    assert proc.stdout is not None
    end = loop.time() + timeout
    while loop.time() < end:
        line = await asyncio.wait_for(loop.run_in_executor(None, proc.stdout.readline), timeout)
        m = re.search(r"port (\d+)", line)
        if m:
            return int(m.group(1))
        if not line and proc.poll() is not None:
            break
    raise AssertionError(f"the host did not start: {proc.stderr.read() if proc.stderr else ''}")
