"""Defences of a host against hostile input: rates, caps, join-attempt delays, deadlines.

Theory of operation
-------------------
Small, synchronous classes that only count and compare times; the asyncio host asks them
questions at the right moments (see ``docs/security.md``, "Integration") and acts on the
answers (refuse, close, wait). None of them sleeps or reads a clock by itself: every one
takes a ``clock`` (default :func:`time.monotonic`), so tests drive time by hand.

- :class:`TokenBucket` — the classic rate limit: ``rate`` tokens a second, at most
  ``burst`` saved up. :class:`RateLimiter` holds two (messages and bytes) for one
  connection.
- :class:`ConnectionLimiter` — at most so many open connections in all and per address.
- :class:`JoinAttempts` — failed join-code attempts per address: each failure doubles the
  wait before the next attempt is accepted, ``lockout_after`` failures lock the address
  out for ``lockout`` seconds, and a global cap bounds guessing from many addresses.
- :class:`Deadline` — a fixed point in time, for "the hello must arrive within 10 s".
- :class:`HostGuard` — all of the above for one host, built from one :class:`GuardConfig`.

Addresses are keys made by :func:`address_key`: an IPv4 address as is (IPv4-mapped IPv6
unwrapped), an IPv6 address reduced to its /64, since one machine can hold a whole /64.
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "HANDSHAKE_DEADLINE",
    "HELLO_DEADLINE",
    "IDLE_TIMEOUT",
    "PING_INTERVAL",
    "READ_CHUNK",
    "TLS_HANDSHAKE_TIMEOUT",
    "WRITE_TIMEOUT",
    "Clock",
    "ConnectionLimiter",
    "Deadline",
    "GuardConfig",
    "HostGuard",
    "JoinAttempts",
    "RateLimiter",
    "TokenBucket",
    "address_key",
]

Clock = Callable[[], float]

TLS_HANDSHAKE_TIMEOUT: Final = 10.0
"""Seconds for the TLS handshake after the TCP accept (``ssl_handshake_timeout``)."""
HELLO_DEADLINE: Final = 10.0
"""Seconds from the end of the TLS handshake until a complete ``hello`` has arrived."""
HANDSHAKE_DEADLINE: Final = 30.0
"""Seconds from the end of the TLS handshake until ``welcome`` is sent (join-code exchange
included); past it the host sends ``refused`` and closes."""
IDLE_TIMEOUT: Final = 90.0
"""Seconds without a single byte from an established peer before it is dropped (read
timeout); peers send ``ping`` every :data:`PING_INTERVAL` seconds when idle."""
PING_INTERVAL: Final = 20.0
WRITE_TIMEOUT: Final = 10.0
"""Seconds a ``drain()`` may take before the peer is deemed not to read and is dropped."""
READ_CHUNK: Final = 65_536
"""Bytes asked of ``reader.read()`` at a time (the frame cap bounds what is buffered)."""


def _check_positive(name: str, value: float) -> None:
    if not (isinstance(value, int | float) and not isinstance(value, bool)) or not value > 0:
        raise ValueError(f"{name} must be a positive number, not {value!r}")
    if math.isinf(value) or math.isnan(value):
        raise ValueError(f"{name} must be finite, not {value!r}")


# --------------------------------------------------------------------------- rates


class TokenBucket:
    """``rate`` tokens per second, at most ``burst`` banked; starts full."""

    def __init__(self, rate: float, burst: float, clock: Clock = time.monotonic) -> None:
        _check_positive("rate", rate)
        _check_positive("burst", burst)
        self.rate = float(rate)
        self.burst = float(burst)
        self._clock = clock
        self._tokens = float(burst)
        self._last = clock()

    def _refill(self) -> None:
        now = self._clock()
        if now > self._last:
            self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
        self._last = max(self._last, now)  # a clock going backwards never adds tokens

    @property
    def tokens(self) -> float:
        self._refill()
        return self._tokens

    def allow(self, cost: float = 1.0) -> bool:
        """Take ``cost`` tokens if there are enough, and say whether there were.

        A cost over ``burst`` can never be paid and is always refused.
        """
        self._refill()
        if cost <= self._tokens:
            self._tokens -= cost
            return True
        return False

    def retry_after(self, cost: float = 1.0) -> float:
        """Seconds until ``allow(cost)`` would succeed (``inf`` if ``cost > burst``)."""
        if cost > self.burst:
            return math.inf
        self._refill()
        return max(0.0, (cost - self._tokens) / self.rate)


class RateLimiter:
    """Per-connection limit on received messages and bytes (two token buckets)."""

    def __init__(
        self,
        messages_per_s: float,
        message_burst: float,
        bytes_per_s: float,
        byte_burst: float,
        clock: Clock = time.monotonic,
    ) -> None:
        self.messages = TokenBucket(messages_per_s, message_burst, clock)
        self.bytes = TokenBucket(bytes_per_s, byte_burst, clock)

    def allow(self, messages: int = 1, size: int = 0) -> bool:
        """Count ``messages`` received messages totalling ``size`` bytes (one read's worth:
        ``len(session.receive_data(data))`` and ``len(data)``); False if over either limit.

        Both buckets are checked before either is charged, so a refusal costs nothing.
        """
        if self.messages.tokens < messages or self.bytes.tokens < size:
            return False
        self.messages.allow(messages)
        self.bytes.allow(size)
        return True


# --------------------------------------------------------------------------- addresses


def address_key(peer: Any) -> str:
    """The key by which connections from one machine are counted.

    ``peer`` is ``writer.get_extra_info("peername")`` (a tuple whose first item is the
    address) or an address string. IPv4-mapped IPv6 becomes IPv4; other IPv6 addresses
    are cut to their /64 (``"fd00:1::/64"``); anything unparsable is kept as text (and
    ``None`` is ``"?"``, all such peers sharing one key).
    """
    if isinstance(peer, tuple | list):
        peer = peer[0] if peer else None
    if peer is None:
        return "?"
    text = str(peer).split("%", 1)[0]  # drop an IPv6 zone (fe80::1%eth0)
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return text[:100]
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


# --------------------------------------------------------------------------- connections


class ConnectionLimiter:
    """At most ``max_total`` open connections, and ``max_per_address`` from one address."""

    def __init__(self, max_total: int, max_per_address: int) -> None:
        if max_total < 1 or max_per_address < 1:
            raise ValueError("connection caps must be at least 1")
        self.max_total = max_total
        self.max_per_address = max_per_address
        self._open: dict[str, int] = {}
        self._total = 0

    @property
    def total(self) -> int:
        return self._total

    def count(self, address: str) -> int:
        return self._open.get(address, 0)

    def refusal(self, address: str) -> str | None:
        """Why a new connection from ``address`` would be refused now, or None."""
        if self._total >= self.max_total:
            return f"the table already has {self._total} connections"
        if self.count(address) >= self.max_per_address:
            return f"{self.count(address)} connections from this address already"
        return None

    def admit(self, address: str) -> bool:
        """Count a new connection from ``address`` if the caps allow it; say whether."""
        if self.refusal(address) is not None:
            return False
        self._open[address] = self.count(address) + 1
        self._total += 1
        return True

    def release(self, address: str) -> None:
        """Forget one admitted connection from ``address`` (call once per ``admit``)."""
        n = self._open.get(address, 0)
        if n <= 0:
            raise ValueError(f"no open connection from {address!r} to release")
        if n == 1:
            del self._open[address]
        else:
            self._open[address] = n - 1
        self._total -= 1


# --------------------------------------------------------------------------- join attempts


@dataclass
class _Failures:
    count: int
    last: float
    not_before: float


class JoinAttempts:
    """Failed join-code attempts, per address and in all, with growing delays.

    After the n-th failure in a row from an address, its next attempt is accepted only
    ``min(base_delay * 2**(n-1), max_delay)`` seconds later; at ``lockout_after`` failures
    it is locked out for ``lockout`` seconds. An address's record is forgotten
    ``forget_after`` seconds after its last failure (if not locked) or on a success. In
    all, at most ``global_max`` failures are accepted per ``global_window`` seconds, from
    any mix of addresses; beyond, every address waits. At most ``max_addresses`` records
    are kept (the stalest go first), so spoofed addresses cannot fill the memory.
    """

    def __init__(
        self,
        *,
        base_delay: float = 1.0,
        max_delay: float = 60.0,
        lockout_after: int = 10,
        lockout: float = 900.0,
        forget_after: float = 900.0,
        global_max: int = 60,
        global_window: float = 60.0,
        max_addresses: int = 4096,
        clock: Clock = time.monotonic,
    ) -> None:
        for name, value in (
            ("base_delay", base_delay),
            ("max_delay", max_delay),
            ("lockout", lockout),
            ("forget_after", forget_after),
            ("global_window", global_window),
        ):
            _check_positive(name, value)
        if lockout_after < 1 or global_max < 1 or max_addresses < 1:
            raise ValueError("lockout_after, global_max and max_addresses must be at least 1")
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.lockout_after = lockout_after
        self.lockout = lockout
        self.forget_after = forget_after
        self.global_max = global_max
        self.global_window = global_window
        self.max_addresses = max_addresses
        self._clock = clock
        self._by_address: OrderedDict[str, _Failures] = OrderedDict()
        self._recent: deque[float] = deque()

    def _expire(self, now: float) -> None:
        while self._recent and self._recent[0] <= now - self.global_window:
            self._recent.popleft()
        stale = [
            address
            for address, record in self._by_address.items()
            if now >= record.not_before and now - record.last >= self.forget_after
        ]
        for address in stale:
            del self._by_address[address]

    def failures(self, address: str) -> int:
        """Failures in a row still remembered for ``address``."""
        self._expire(self._clock())
        record = self._by_address.get(address)
        return record.count if record else 0

    def locked_out(self, address: str) -> bool:
        record = self._by_address.get(address)
        return (
            record is not None
            and record.count >= self.lockout_after
            and self._clock() < record.not_before
        )

    def retry_after(self, address: str) -> float:
        """Seconds before an attempt from ``address`` may be accepted (0.0: now)."""
        now = self._clock()
        self._expire(now)
        wait = 0.0
        record = self._by_address.get(address)
        if record is not None:
            wait = max(wait, record.not_before - now)
        if len(self._recent) >= self.global_max:
            wait = max(wait, self._recent[0] + self.global_window - now)
        return max(0.0, wait)

    def delay_after(self, count: int) -> float:
        """The wait imposed after ``count`` failures in a row."""
        if count >= self.lockout_after:
            return self.lockout
        return min(self.base_delay * 2 ** (count - 1), self.max_delay)

    def failure(self, address: str) -> float:
        """Record a failed attempt from ``address``; return the wait it now has."""
        now = self._clock()
        self._expire(now)
        record = self._by_address.pop(address, None)
        count = (record.count if record else 0) + 1
        wait = self.delay_after(count)
        self._by_address[address] = _Failures(count, now, now + wait)  # now the newest
        while len(self._by_address) > self.max_addresses:
            self._by_address.popitem(last=False)
        self._recent.append(now)
        while len(self._recent) > self.global_max:
            self._recent.popleft()
        return wait

    def success(self, address: str) -> None:
        """A correct code from ``address``: forget its failures."""
        self._by_address.pop(address, None)


# --------------------------------------------------------------------------- deadlines


class Deadline:
    """A point ``seconds`` after creation; ``remaining()`` is what ``wait_for`` needs."""

    def __init__(self, seconds: float, clock: Clock = time.monotonic) -> None:
        _check_positive("seconds", seconds)
        self._clock = clock
        self.at = clock() + seconds

    def remaining(self) -> float:
        return max(0.0, self.at - self._clock())

    @property
    def expired(self) -> bool:
        return self._clock() >= self.at


# --------------------------------------------------------------------------- all together


@dataclass(frozen=True)
class GuardConfig:
    """Every limit of a host, with the defaults a real table uses.

    Tests of a live host (many connections from 127.0.0.1) may raise the caps.
    """

    max_connections: int = 32
    max_connections_per_address: int = 8
    messages_per_s: float = 100.0  # a bot seat playing with no think delay stays under it
    message_burst: float = 400.0
    bytes_per_s: float = 256 * 1024
    byte_burst: float = 1024 * 1024
    join_base_delay: float = 1.0
    join_max_delay: float = 60.0
    join_lockout_after: int = 10
    join_lockout: float = 900.0
    join_global_max: int = 60
    join_global_window: float = 60.0
    tls_handshake_timeout: float = TLS_HANDSHAKE_TIMEOUT
    hello_deadline: float = HELLO_DEADLINE
    handshake_deadline: float = HANDSHAKE_DEADLINE
    idle_timeout: float = IDLE_TIMEOUT
    write_timeout: float = WRITE_TIMEOUT


class HostGuard:
    """The guards of one host: connection caps and join attempts, shared by every
    connection, and a factory of per-connection rate limiters and deadlines."""

    def __init__(self, config: GuardConfig | None = None, clock: Clock = time.monotonic) -> None:
        self.config = config = config or GuardConfig()
        self.clock = clock
        self.connections = ConnectionLimiter(
            config.max_connections, config.max_connections_per_address
        )
        self.join_attempts = JoinAttempts(
            base_delay=config.join_base_delay,
            max_delay=config.join_max_delay,
            lockout_after=config.join_lockout_after,
            lockout=config.join_lockout,
            global_max=config.join_global_max,
            global_window=config.join_global_window,
            clock=clock,
        )

    def rate_limiter(self) -> RateLimiter:
        """A new limiter for one connection."""
        c = self.config
        return RateLimiter(c.messages_per_s, c.message_burst, c.bytes_per_s, c.byte_burst, self.clock)

    def hello_deadline(self) -> Deadline:
        return Deadline(self.config.hello_deadline, self.clock)

    def handshake_deadline(self) -> Deadline:
        return Deadline(self.config.handshake_deadline, self.clock)
