"""The clock the table's deadlines run on: the time the host process was running.

A host whose process was stopped (``SIGSTOP``, a debugger, a paused VM) or whose event
loop was blocked comes back with every deadline that fell in the pause already passed:
its first tick would void the round naming a player who was waiting for the host, not
the other way round (chaos runs found exactly that). The players' messages sent meanwhile
are in the socket buffers, but the overdue timer fires before they are read.

`AwakeClock` keeps the event loop's clock, minus every pause it sees: a gap of more than
`STALL` seconds between two readings (a heartbeat reads it every `BEAT` seconds) counts
only `BEAT`. So the table machine's time stands still while the host was not running,
and never goes back. `since_stall` lets the host give what came during a pause
`GRACE` seconds of running time to be read before a deadline is judged.

(A suspended laptop needs none of this: the monotonic clock stops with the machine.)
"""

from __future__ import annotations

import logging
from collections.abc import Callable

log = logging.getLogger(__name__)

BEAT = 0.25
"""Seconds between two heartbeat readings of the clock."""
STALL = 1.0
"""A gap longer than this between two readings is a pause of the host."""
GRACE = 0.5
"""Running time given, after a pause, to what came during it before a deadline is judged."""


class AwakeClock:
    """Loop time minus the pauses seen (see the module docstring)."""

    def __init__(self, real: Callable[[], float]) -> None:
        self._real = real
        self._last = real()
        self.paused = 0.0
        """Seconds of pauses taken out so far."""
        self.stalls = 0
        self._stall_at: float | None = None

    def now(self) -> float:
        """The table's time now (call it for every reading: each one notices a pause)."""
        t = self._real()
        gap = t - self._last
        if gap > STALL:
            self.paused += gap - BEAT
            self.stalls += 1
            self._stall_at = t
            log.info("the host did not run for %.1f s (stopped or frozen): the table's "
                     "deadlines do not count it", gap)
        self._last = max(self._last, t)
        return t - self.paused

    def real_at(self, table_time: float) -> float:
        """The loop time at which the table's clock reads ``table_time`` (no pause between)."""
        return table_time + self.paused

    def since_stall(self) -> float | None:
        """Loop seconds since the last pause ended (None: none seen)."""
        return None if self._stall_at is None else self._real() - self._stall_at
