"""Joining a table again after a ``rate_limited`` refusal, within a window of time.

Used by ``rami-lan join`` and the lobby: the host's refusal carries its retry delay as
data (``JoinRefused.retry_after``, docs/protocol.md "Admission and retries")."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["RETRY_WINDOW", "join_retrying"]

RETRY_WINDOW = 10.0
"""Seconds (beyond ``--timeout``) in which a ``rate_limited`` refusal is waited out and the
join tried again (docs/protocol.md, "Admission and retries")."""


async def join_retrying(connect: Callable[[], Awaitable[Any]], window: float,
                        clock: Callable[[], float] = time.monotonic) -> Any:
    """``await connect()``; after a ``rate_limited`` refusal, wait the delay the host gave
    (``JoinRefused.retry_after``; 1 s if it gave none) and try again, as long as that wait
    ends within ``window`` seconds of the first attempt. Any other outcome is the
    caller's (the last refusal is raised when the window is spent)."""
    from rami_lan.net.client import JoinRefused

    end = clock() + window
    while True:
        try:
            return await connect()
        except JoinRefused as exc:
            wait = exc.retry_after if exc.retry_after is not None else 1.0
            if exc.code != "rate_limited" or clock() + wait > end:
                raise
        await asyncio.sleep(wait)
