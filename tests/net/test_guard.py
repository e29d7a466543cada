"""Tests of rami_lan.net.guard, with a hand-driven clock (nothing sleeps)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rami_lan.net import guard
from rami_lan.net.guard import (
    ConnectionLimiter,
    Deadline,
    GuardConfig,
    HostGuard,
    RateLimiter,
    TokenBucket,
    address_key,
)


class FakeClock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


# --------------------------------------------------------------------------- token bucket


def test_bucket_starts_full_then_refills_at_rate() -> None:
    clock = FakeClock()
    bucket = TokenBucket(rate=2, burst=5, clock=clock)
    assert [bucket.allow() for _ in range(6)] == [True] * 5 + [False]
    assert bucket.retry_after() == pytest.approx(0.5)
    clock.advance(0.49)
    assert not bucket.allow()
    clock.advance(0.01)
    assert bucket.allow() and not bucket.allow()
    clock.advance(100)
    assert bucket.tokens == 5  # never more than the burst


def test_bucket_costs_and_impossible_costs() -> None:
    clock = FakeClock()
    bucket = TokenBucket(rate=1, burst=10, clock=clock)
    assert bucket.allow(7) and not bucket.allow(4) and bucket.allow(3)
    assert not bucket.allow(11) and bucket.retry_after(11) == math.inf


def test_bucket_ignores_a_clock_going_backwards() -> None:
    clock = FakeClock()
    bucket = TokenBucket(rate=1, burst=2, clock=clock)
    bucket.allow(2)
    clock.advance(-50)
    assert bucket.tokens == 0
    clock.advance(50.5)
    assert bucket.tokens == pytest.approx(0.5)


@pytest.mark.parametrize("bad", [0, -1, math.inf, math.nan, True, "1"])
def test_bucket_arguments(bad: object) -> None:
    with pytest.raises(ValueError):
        TokenBucket(bad, 1)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        TokenBucket(1, bad)  # type: ignore[arg-type]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 5), st.integers(1, 3)), max_size=60))
def test_bucket_never_allows_more_than_burst_plus_rate_times_time(
    steps: list[tuple[float, int]],
) -> None:
    clock = FakeClock()
    bucket = TokenBucket(rate=3, burst=4, clock=clock)
    allowed = 0.0
    elapsed = 0.0
    for dt, cost in steps:
        clock.advance(dt)
        elapsed += dt
        if bucket.allow(cost):
            allowed += cost
        assert allowed <= 4 + 3 * elapsed + 1e-9


def test_rate_limiter_counts_messages_and_bytes() -> None:
    clock = FakeClock()
    limiter = RateLimiter(10, 3, 100, 250, clock)
    assert limiter.allow(size=100) and limiter.allow(size=100)
    assert not limiter.allow(size=100)  # bytes exhausted (50 left); refusal charges nothing
    assert limiter.messages.tokens == 1
    assert limiter.allow(size=50)
    assert not limiter.allow(size=1)  # messages exhausted
    clock.advance(1)
    assert limiter.allow(size=100)
    assert not limiter.allow(messages=4)  # more than the burst in one read
    assert limiter.allow(messages=0, size=0)


# --------------------------------------------------------------------------- addresses


@pytest.mark.parametrize(
    ("peer", "key"),
    [
        (("127.0.0.1", 5000), "127.0.0.1"),
        ("192.168.1.20", "192.168.1.20"),
        (("::ffff:10.0.0.7", 1, 0, 0), "10.0.0.7"),
        (("fd00:1:2:3:aaaa:bbbb:cccc:dddd", 1, 0, 0), "fd00:1:2:3::/64"),
        (("fe80::1%eth0", 1, 0, 2), "fe80::/64"),
        (None, "?"),
        ((), "?"),
        ("not an address", "not an address"),
    ],
)
def test_address_key(peer: object, key: str) -> None:
    assert address_key(peer) == key


def test_one_machine_with_many_ipv6_addresses_is_one_key() -> None:
    keys = {address_key(f"2001:db8:1:2::{i:x}") for i in range(100)}
    assert keys == {"2001:db8:1:2::/64"}


# --------------------------------------------------------------------------- connections


def test_connection_caps() -> None:
    limiter = ConnectionLimiter(max_total=4, max_per_address=2)
    assert limiter.admit("a") and limiter.admit("a")
    assert not limiter.admit("a") and "from this address" in (limiter.refusal("a") or "")
    assert limiter.admit("b") and limiter.admit("c")
    assert not limiter.admit("d") and "4 connections" in (limiter.refusal("d") or "")
    assert limiter.total == 4 and limiter.count("a") == 2
    limiter.release("a")
    assert limiter.admit("d") and not limiter.admit("e")
    for address in ("a", "b", "c", "d"):
        limiter.release(address)
    assert limiter.total == 0 and limiter.count("a") == 0
    with pytest.raises(ValueError):
        limiter.release("a")
    with pytest.raises(ValueError):
        ConnectionLimiter(0, 1)


# --------------------------------------------------------------------------- deadlines


def test_deadline() -> None:
    clock = FakeClock()
    deadline = Deadline(guard.HELLO_DEADLINE, clock)
    assert deadline.remaining() == guard.HELLO_DEADLINE and not deadline.expired
    clock.advance(guard.HELLO_DEADLINE - 1)
    assert deadline.remaining() == 1
    clock.advance(5)
    assert deadline.remaining() == 0 and deadline.expired
    with pytest.raises(ValueError):
        Deadline(0, clock)


def test_constants_are_sane() -> None:
    assert 0 < guard.TLS_HANDSHAKE_TIMEOUT <= guard.HANDSHAKE_DEADLINE
    assert 0 < guard.HELLO_DEADLINE <= guard.HANDSHAKE_DEADLINE
    assert guard.PING_INTERVAL * 3 <= guard.IDLE_TIMEOUT
    assert guard.WRITE_TIMEOUT > 0 and guard.READ_CHUNK >= 4096


# --------------------------------------------------------------------------- host guard


def test_host_guard_wires_the_config() -> None:
    clock = FakeClock()
    config = GuardConfig(max_connections=3, max_connections_per_address=1, message_burst=2)
    host = HostGuard(config, clock)
    assert host.connections.admit("a") and not host.connections.admit("a")
    limiter = host.rate_limiter()
    assert limiter.allow(size=10) and limiter.allow(size=10) and not limiter.allow(size=10)
    other = host.rate_limiter()  # each connection has its own
    assert other.allow(size=10)
    deadline = host.hello_deadline()
    clock.advance(config.hello_deadline)
    assert deadline.expired and not host.handshake_deadline().expired
    assert isinstance(host.admission.begin("a", guard.KIND_HELLO), guard.Ticket)
    assert host.admission.config == config.admission
    assert HostGuard().config == GuardConfig()


# --------------------------------------------------------------------------- admission


from rami_lan.net.guard import (  # noqa: E402
    KIND_CODE,
    KIND_HELLO,
    KIND_TOKEN,
    AdmissionConfig,
    AdmissionLimiter,
    Refusal,
    Ticket,
)


def limiter(**overrides: object) -> tuple[AdmissionLimiter, FakeClock]:
    clock = FakeClock()
    return AdmissionLimiter(AdmissionConfig(**overrides), clock), clock  # type: ignore[arg-type]


def test_parallel_guesses_from_one_address_are_not_all_admitted() -> None:
    # Finding: 8 parallel guesses from one address got through at once.
    gate, _clock = limiter()
    results = [gate.begin("10.0.0.9", KIND_CODE) for _ in range(8)]
    assert sum(isinstance(r, Ticket) for r in results) == 1
    assert gate.refusals == {"address:code": 7}
    assert all(r.scope == "address" for r in results if isinstance(r, Refusal))


def test_the_delay_applies_before_the_attempt_and_doubles() -> None:
    gate, clock = limiter()
    ticket = gate.begin("a", KIND_CODE)
    assert isinstance(ticket, Ticket)
    gate.end(ticket, ok=False)
    refused = gate.begin("a", KIND_CODE)
    assert isinstance(refused, Refusal) and refused.retry_after == pytest.approx(1.0)
    assert "try again in 1 s" in refused.message
    clock.advance(1.0)
    second = gate.begin("a", KIND_CODE)
    assert isinstance(second, Ticket)
    gate.end(second, ok=False)
    assert gate.retry_after("a") == pytest.approx(2.0)
    clock.advance(2.0)
    third = gate.begin("a", KIND_CODE)
    assert isinstance(third, Ticket)
    gate.end(third, ok=True)
    assert gate.failures("a") == 0 and gate.retry_after("a") == 0.0


def test_bad_tokens_are_delayed_like_wrong_codes() -> None:
    # Finding: one address sent 70 bad tokens in 0.3 s, none delayed.
    gate, clock = limiter()
    admitted = 0
    for _ in range(70):
        clock.advance(0.3 / 70)
        r = gate.begin("6.6.6.6", KIND_TOKEN)
        if isinstance(r, Ticket):
            admitted += 1
            gate.end(r, ok=False)  # the token matched no seat
    assert admitted == 1


def test_a_flood_from_one_address_never_locks_out_others() -> None:
    gate, clock = limiter(base_delay=0.001, max_delay=0.001, lockout_after=10**6)
    for _ in range(5000):  # as fast as it can: every admitted attempt fails
        clock.advance(0.01)
        r = gate.begin("6.6.6.6", KIND_CODE)
        if isinstance(r, Ticket):
            gate.end(r, ok=False)
    newcomer = gate.begin("10.0.0.2", KIND_CODE)
    assert isinstance(newcomer, Ticket), newcomer
    assert gate.retry_after("10.0.0.2") == 0.0


def test_a_valid_token_is_never_refused_by_the_global_caps() -> None:
    gate, clock = limiter(global_max=5, global_share=1)
    for i in range(5):  # five addresses fill the global failure cap
        r = gate.begin(f"10.1.0.{i}", KIND_CODE)
        assert isinstance(r, Ticket)
        gate.end(r, ok=False)
    newcomer = gate.begin("10.2.0.1", KIND_CODE)
    assert isinstance(newcomer, Refusal) and newcomer.scope == "global"
    # An unproven token from a fresh address is held too ...
    assert isinstance(gate.begin("10.2.0.2", KIND_TOKEN), Refusal)
    # ... but the seated player's valid token is admitted, from any address, every time.
    for _ in range(20):
        seated = gate.begin("10.1.0.3", KIND_TOKEN, proven=True)
        assert isinstance(seated, Ticket) and seated.proven
        gate.end(seated, ok=True)
    clock.advance(60.0)
    assert isinstance(gate.begin("10.2.0.1", KIND_CODE), Ticket)


def test_global_pake_concurrency_and_hello_rates() -> None:
    gate, clock = limiter(global_max_in_flight=3, hello_rate=1.0, hello_burst=2.0,
                          global_hello_rate=5.0, global_hello_burst=5.0)
    tickets = [gate.begin(f"a{i}", KIND_CODE) for i in range(4)]
    assert [isinstance(t, Ticket) for t in tickets] == [True, True, True, False]
    assert gate.in_flight == 3
    gate.end(tickets[0], ok=True)  # type: ignore[arg-type]
    gate.end(tickets[0], ok=True)  # type: ignore[arg-type]  # twice: a no-op
    assert gate.in_flight == 2
    # A plain hello: the address's rate, then the global one.
    assert isinstance(gate.begin("h", KIND_HELLO), Ticket)
    assert isinstance(gate.begin("h", KIND_HELLO), Ticket)
    assert isinstance(gate.begin("h", KIND_HELLO), Refusal)
    assert gate.refusals["address:hello"] == 1
    # 3 codes and 2 hellos spent the global burst of 5: another address waits.
    assert isinstance(gate.begin("g", KIND_HELLO), Refusal)
    assert gate.refusals["global:hello"] == 1
    clock.advance(1.0)
    assert isinstance(gate.begin("h", KIND_HELLO), Ticket)
    assert isinstance(gate.begin("g", KIND_HELLO), Ticket)


def test_lockout_and_memory_bound() -> None:
    gate, clock = limiter(lockout_after=3, lockout=100.0, max_addresses=10)
    for _ in range(3):
        clock.advance(100.0)
        r = gate.begin("x", KIND_CODE)
        assert isinstance(r, Ticket)
        gate.end(r, ok=False)
    assert gate.retry_after("x") == pytest.approx(100.0)
    for i in range(50):  # spoofed addresses cannot grow the memory
        r = gate.begin(f"s{i}", KIND_HELLO)
        if isinstance(r, Ticket):
            gate.end(r, ok=True)
    assert len(gate._addresses) <= 11
    with pytest.raises(ValueError):
        gate.begin("x", "nope")
    with pytest.raises(ValueError):
        gate.begin("x", KIND_CODE, proven=True)


def test_host_guard_has_an_admission_limiter() -> None:
    clock = FakeClock()
    hg = HostGuard(GuardConfig(admission=AdmissionConfig(max_in_flight=2)), clock)
    assert hg.admission.config.max_in_flight == 2
    assert isinstance(hg.admission.begin("a", KIND_CODE), Ticket)
