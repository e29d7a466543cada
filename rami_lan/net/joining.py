"""Joining a table again after a ``rate_limited`` refusal, within a window.

The host's admission limits count per address (docs/protocol.md, "Admission and
retries"): two players behind one address joining a code table a moment apart, or a
player right after a wrong code, are refused ``rate_limited`` with the wait as data
(``refused.retry_ms``, `JoinRefused.retry_after`). `join_retrying` waits it out and tries
again; ``rami-lan join`` and the lobby use it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, Final

__all__ = ["RETRY_WINDOW", "join_retrying"]

RETRY_WINDOW: Final = 10.0
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
