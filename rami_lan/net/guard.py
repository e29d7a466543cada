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
- :class:`AdmissionLimiter` — the one gate for every way in (a plain ``hello``, a
  reconnect token, a join-code PAKE): ``begin`` before the work, ``end`` after it. See its
  docstring for the order of the checks: each failure (wrong code, unknown token) doubles
  the address's wait, ``lockout_after`` failures lock it out, and a global cap that one
  address cannot fill bounds guessing from many addresses.
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
from dataclasses import dataclass, field
from typing import Any, Final

__all__ = [
    "KIND_CODE",
    "KIND_HELLO",
    "KIND_TOKEN",
    "HANDSHAKE_DEADLINE",
    "HELLO_DEADLINE",
    "IDLE_TIMEOUT",
    "PING_INTERVAL",
    "READ_CHUNK",
    "TLS_HANDSHAKE_TIMEOUT",
    "WRITE_TIMEOUT",
    "AdmissionConfig",
    "AdmissionLimiter",
    "Clock",
    "ConnectionLimiter",
    "Deadline",
    "GuardConfig",
    "HostGuard",
    "RateLimiter",
    "Refusal",
    "Ticket",
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


# --------------------------------------------------------------------------- admission

KIND_HELLO: Final = "hello"
"""A ``hello`` that proves nothing (an open table): cheap, only rate-limited."""
KIND_TOKEN: Final = "token"
"""A ``hello`` with a reconnect token (and the PAKE that may follow it on a code table)."""
KIND_CODE: Final = "code"
"""A ``hello`` that starts a join-code (or invitation) PAKE: one online guess."""
_KINDS: Final = (KIND_HELLO, KIND_TOKEN, KIND_CODE)


@dataclass(frozen=True)
class AdmissionConfig:
    """The numbers of :class:`AdmissionLimiter` (``docs/security.md`` lists them)."""

    hello_rate: float = 2.0
    """Hellos a second from one address (any kind), after a burst of ``hello_burst``."""
    hello_burst: float = 10.0
    global_hello_rate: float = 50.0
    """Hellos a second from all addresses together (a valid token is never held by it)."""
    global_hello_burst: float = 100.0
    max_in_flight: int = 1
    """Unproven attempts (code, bad token) from one address at a time."""
    global_max_in_flight: int = 8
    """Join-code PAKEs running at once from all addresses together."""
    base_delay: float = 1.0
    """Wait after the first failure from an address; doubles with each failure in a row."""
    max_delay: float = 60.0
    lockout_after: int = 10
    lockout: float = 900.0
    forget_after: float = 900.0
    global_max: int = 60
    """Failures accepted per ``global_window`` seconds from all addresses together ..."""
    global_window: float = 60.0
    global_share: int = 3
    """... of which one address counts for at most this many, so a flood from one
    address never fills the global cap for everyone else."""
    max_addresses: int = 4096
    """Addresses remembered at most (the stalest idle ones are forgotten first)."""


@dataclass(frozen=True)
class Ticket:
    """An admitted attempt; hand it back to :meth:`AdmissionLimiter.end` exactly once."""

    address: str
    kind: str
    started: float
    proven: bool
    """True for a valid reconnect token: no failure cap applies."""
    serial: int


@dataclass(frozen=True)
class Refusal:
    """Why an attempt is not admitted now. ``scope`` is ``"address"`` (this address must
    wait) or ``"global"`` (everyone without a valid token must wait)."""

    code: str
    reason: str
    retry_after: float
    scope: str

    @property
    def message(self) -> str:
        """The English text for the peer (``Refused.message``)."""
        return f"{self.reason}, try again in {max(1, math.ceil(self.retry_after))} s"

    @property
    def retry_ms(self) -> int:
        """The wait as data for the peer (``Refused.retry_ms``): milliseconds, rounded up,
        at least 1 and at most an hour."""
        return min(3_600_000, max(1, math.ceil(self.retry_after * 1000)))


@dataclass
class _Address:
    failures: int = 0
    last_failure: float = -math.inf
    not_before: float = -math.inf
    in_flight: int = 0
    hellos: float = 0.0
    hello_at: float = -math.inf
    share: deque[float] = field(default_factory=deque)


class AdmissionLimiter:
    """One gate for every way into a table: per address and global, before the work.

    Call :meth:`begin` when a ``hello`` arrives, *before* any expensive or secret-checking
    work (starting a PAKE), and :meth:`end` when the attempt is decided (the PAKE
    confirmed or failed, the token accepted or refused, the connection lost mid-way).
    The slot is reserved at ``begin``, so parallel attempts count at once.

    Order of the checks in :meth:`begin`:

    1. ``proven`` (a reconnect token that matches a seat, checked by the caller in
       constant time first: a 128-bit secret cannot be guessed): admitted at once, and
       counted nowhere. Neither a flood from another address nor the global caps can keep
       a seated player out.
    2. The address's own hello rate (``hello_rate``/``hello_burst``).
    3. For unproven secrets (``code``, a ``token`` that matches no seat): the address's
       failure delay or lockout, then its in-flight cap (``max_in_flight``).
    4. Global: the hello rate of all addresses, and for ``code`` the PAKEs in flight and
       the failure cap per window (``global_max``, one address counting at most
       ``global_share`` times, so one address can never exhaust it).

    A refusal at the address level charges nothing globally. ``end(ticket, ok=False)``
    of a ``code`` or ``token`` attempt records a failure for its address (doubling its
    wait: ``base_delay * 2**(n-1)`` up to ``max_delay``, ``lockout`` seconds after
    ``lockout_after`` in a row) and, within its share, for the global window;
    ``ok=True`` clears the address's failures.

    Synchronous; time comes from ``now`` arguments or ``clock``.
    """

    def __init__(self, config: AdmissionConfig | None = None, clock: Clock = time.monotonic) -> None:
        self.config = c = config or AdmissionConfig()
        for name in ("hello_rate", "hello_burst", "global_hello_rate", "global_hello_burst",
                     "base_delay", "max_delay", "lockout", "forget_after", "global_window"):
            _check_positive(name, getattr(c, name))
        for name in ("max_in_flight", "global_max_in_flight", "lockout_after", "global_max",
                     "global_share", "max_addresses"):
            if type(getattr(c, name)) is not int or getattr(c, name) < 1:
                raise ValueError(f"{name} must be an int >= 1")
        self._clock = clock
        self._addresses: OrderedDict[str, _Address] = OrderedDict()
        self._global_failures: deque[float] = deque()
        self._global_hellos = float(c.global_hello_burst)
        self._global_hello_at = -math.inf
        self._in_flight = 0
        self._serial = 0
        self._open: set[int] = set()
        self.refusals: dict[str, int] = {}
        """Refusals so far, by ``"<scope>:<kind>"`` (for tests and the status line)."""

    # ---- queries

    @property
    def in_flight(self) -> int:
        """Unproven code attempts running now (all addresses)."""
        return self._in_flight

    def failures(self, address: str) -> int:
        record = self._addresses.get(address)
        return record.failures if record else 0

    def retry_after(self, address: str, now: float | None = None) -> float:
        """Seconds before an unproven attempt from ``address`` could be admitted."""
        now = self._now(now)
        wait = 0.0
        record = self._addresses.get(address)
        if record is not None:
            wait = max(wait, record.not_before - now)
        self._expire_global(now)
        if len(self._global_failures) >= self.config.global_max:
            wait = max(wait, self._global_failures[0] + self.config.global_window - now)
        return max(0.0, wait)

    # ---- the gate

    def begin(
        self, address: str, kind: str, now: float | None = None, *, proven: bool = False
    ) -> Ticket | Refusal:
        """Admit an attempt of ``kind`` from ``address`` (a :func:`address_key`), or say why
        not. ``proven``: only for a ``token`` that matches a seat."""
        if kind not in _KINDS:
            raise ValueError(f"kind must be one of {_KINDS}, not {kind!r}")
        if proven and kind != KIND_TOKEN:
            raise ValueError("only a reconnect token can be proven")
        now = self._now(now)
        c = self.config
        if proven:
            return self._admit(address, kind, now, proven=True, record=None)
        record = self._record(address, now)
        # 2. this address's hello rate
        record.hellos = min(c.hello_burst, record.hellos + max(0.0, now - record.hello_at) * c.hello_rate)
        record.hello_at = max(record.hello_at, now)
        if record.hellos < 1.0:
            return self._refuse(kind, "address", "too many connections from this address",
                                (1.0 - record.hellos) / c.hello_rate)
        secret = kind != KIND_HELLO
        # 3. this address's failures and attempts in flight
        if secret:
            if now < record.not_before:
                return self._refuse(kind, "address", "too many wrong codes or tokens",
                                    record.not_before - now, charge=record)
            if record.in_flight >= c.max_in_flight:
                return self._refuse(kind, "address", "an attempt from this address is running",
                                    1.0, charge=record)
        # 4. global
        self._global_hellos = min(
            c.global_hello_burst,
            self._global_hellos + max(0.0, now - self._global_hello_at) * c.global_hello_rate,
        )
        self._global_hello_at = max(self._global_hello_at, now)
        if self._global_hellos < 1.0:
            return self._refuse(kind, "global", "the table is busy",
                                (1.0 - self._global_hellos) / c.global_hello_rate, charge=record)
        if secret:
            self._expire_global(now)
            if len(self._global_failures) >= c.global_max:
                return self._refuse(
                    kind, "global", "too many wrong codes at this table",
                    self._global_failures[0] + c.global_window - now, charge=record)
            if kind == KIND_CODE and self._in_flight >= c.global_max_in_flight:
                return self._refuse(kind, "global", "the table is busy", 1.0, charge=record)
        record.hellos -= 1.0
        self._global_hellos -= 1.0
        return self._admit(address, kind, now, proven=False, record=record)

    def end(self, ticket: Ticket, ok: bool, now: float | None = None) -> None:
        """The attempt of ``ticket`` is over: ``ok`` (code confirmed, token valid) or not.

        Ending a ticket twice is a no-op, so a ``finally`` may always call it.
        """
        if ticket.serial not in self._open:
            return
        self._open.discard(ticket.serial)
        if ticket.proven:
            return
        now = self._now(now)
        secret = ticket.kind != KIND_HELLO
        record = self._addresses.get(ticket.address)
        if secret:
            if record is not None:
                record.in_flight = max(0, record.in_flight - 1)
            if ticket.kind == KIND_CODE:
                self._in_flight = max(0, self._in_flight - 1)
        if not secret:
            return
        if record is None:
            record = self._record(ticket.address, now)
        if ok:
            record.failures, record.not_before = 0, -math.inf
            return
        c = self.config
        record.failures += 1
        record.last_failure = now
        wait = c.lockout if record.failures >= c.lockout_after else min(
            c.base_delay * 2 ** (record.failures - 1), c.max_delay)
        record.not_before = now + wait
        self._addresses.move_to_end(ticket.address)
        while record.share and record.share[0] <= now - c.global_window:
            record.share.popleft()
        if len(record.share) < c.global_share:
            record.share.append(now)
            self._global_failures.append(now)

    # ---- internals

    def _now(self, now: float | None) -> float:
        return self._clock() if now is None else float(now)

    def _admit(
        self, address: str, kind: str, now: float, *, proven: bool, record: _Address | None
    ) -> Ticket:
        self._serial += 1
        if not proven and kind != KIND_HELLO:
            assert record is not None
            record.in_flight += 1
            if kind == KIND_CODE:
                self._in_flight += 1
        self._open.add(self._serial)
        return Ticket(address, kind, now, proven, self._serial)

    def _refuse(
        self, kind: str, scope: str, reason: str, wait: float, charge: _Address | None = None
    ) -> Refusal:
        if charge is not None:  # a refused attempt still spends the address's hello rate
            charge.hellos = max(0.0, charge.hellos - 1.0)
        key = f"{scope}:{kind}"
        self.refusals[key] = self.refusals.get(key, 0) + 1
        return Refusal("rate_limited", reason, max(0.0, wait), scope)

    def _expire_global(self, now: float) -> None:
        while self._global_failures and self._global_failures[0] <= now - self.config.global_window:
            self._global_failures.popleft()

    def _record(self, address: str, now: float) -> _Address:
        record = self._addresses.get(address)
        if record is None:
            record = _Address(hellos=self.config.hello_burst, hello_at=now)
            self._addresses[address] = record
            self._forget(now)
        return record

    def _forget(self, now: float) -> None:
        c = self.config
        if len(self._addresses) <= c.max_addresses:
            return
        for address in list(self._addresses):
            if len(self._addresses) <= c.max_addresses:
                break
            r = self._addresses[address]
            idle = r.in_flight == 0 and now >= r.not_before
            if idle and (r.failures < c.lockout_after or now - r.last_failure >= c.forget_after):
                del self._addresses[address]


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
    messages_per_s: float = 200.0  # a bot seat playing with no think delay stays under it,
    message_burst: float = 800.0  # private dealing's key releases included (~70 a round)
    bytes_per_s: float = 256 * 1024
    byte_burst: float = 1024 * 1024
    admission: AdmissionConfig = field(default_factory=AdmissionConfig)
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
        self.admission = AdmissionLimiter(config.admission, clock)
        """The gate for every hello (see :class:`AdmissionLimiter`)."""

    def rate_limiter(self) -> RateLimiter:
        """A new limiter for one connection."""
        c = self.config
        return RateLimiter(c.messages_per_s, c.message_burst, c.bytes_per_s, c.byte_burst, self.clock)

    def hello_deadline(self) -> Deadline:
        return Deadline(self.config.hello_deadline, self.clock)

    def handshake_deadline(self) -> Deadline:
        return Deadline(self.config.handshake_deadline, self.clock)
