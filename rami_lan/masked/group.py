"""Group arithmetic of the masked deck: thin wrappers over libsodium's ed25519 core.

Every operation is a call into PyNaCl's bindings (``crypto_scalarmult_ed25519_noclamp``,
``crypto_core_ed25519_*``): there is no curve code in this project. Points are the
32-byte compressed encodings of elements of the prime-order subgroup (order ``L``);
scalars are 32-byte little-endian integers in ``1 .. L-1``.

* :func:`card_point` maps a card id to its public point:
  ``from_uniform(SHA-512("rami-lan masked card v1" || u16(id))[:32])``;
* :func:`check_point` / :func:`check_scalar` are the strict gates for received data
  (a point must be canonical, on the curve, of prime order and not the identity);
* :func:`random_scalar` / :func:`random_permutation` take randomness from a
  :data:`Randomness` callable, so tests are deterministic (:class:`HashRandom`);
* :func:`mul_many` / :func:`are_points` do a whole deck's worth of multiplications or
  checks, split over the machine's cores (libsodium runs without Python's lock), in order.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from typing import TypeVar

from nacl import bindings as _na
from nacl.exceptions import CryptoError

__all__ = [
    "CARD_LABEL",
    "GROUP_ORDER",
    "MAX_CARDS",
    "POINT_SIZE",
    "SCALAR_SIZE",
    "CardTable",
    "GroupError",
    "HashRandom",
    "Randomness",
    "card_point",
    "card_table",
    "check_point",
    "check_scalar",
    "invert",
    "are_points",
    "is_point",
    "mul",
    "mul_many",
    "random_permutation",
    "random_scalar",
    "scalar_from_wide",
    "scalar_mul",
    "scalar_product",
    "system_randomness",
]

#: Domain label of the card-id -> point mapping (bump it if the mapping ever changes).
CARD_LABEL = b"rami-lan masked card v1"
POINT_SIZE = 32
SCALAR_SIZE = 32
#: Bytes of randomness reduced into one scalar (a 512-bit number mod L: bias < 2^-250).
WIDE_SIZE = 64
#: Order L of the prime-order subgroup.
GROUP_ORDER = 2**252 + 27742317777372353535851937790883648493
#: Card ids are u16 in the mapping; no deck of ours comes near.
MAX_CARDS = 65536

#: Source of randomness: ``randomness(n)`` returns ``n`` fresh bytes.
Randomness = Callable[[int], bytes]

_ONE = (1).to_bytes(SCALAR_SIZE, "little")


class GroupError(ValueError):
    """A point or scalar is malformed or outside the group (says which and why)."""


def system_randomness(n: int) -> bytes:
    """The OS CSPRNG as a :data:`Randomness` (what a real participant passes in)."""
    return secrets.token_bytes(n)


class HashRandom:
    """Deterministic :data:`Randomness`: a SHA-512 stream from a seed.

    The stream is ``SHA-512("rami-lan masked test rng v1" || seed || u64(i))`` for
    ``i = 0, 1, ...``, concatenated. With a fixed seed: tests and benchmarks. In play only
    with a secret seed of 32 bytes from the OS CSPRNG, as the host's own participant
    (`rami_lan.table.masked_host.host_randomness`), which journals that seed so that a
    restarted host makes the same secrets again.
    """

    __slots__ = ("_seed", "_counter", "_buffer")

    def __init__(self, seed: bytes) -> None:
        if not isinstance(seed, bytes):
            raise TypeError(f"seed must be bytes, not {type(seed).__name__}")
        self._seed = seed
        self._counter = 0
        self._buffer = b""

    def __call__(self, n: int) -> bytes:
        while len(self._buffer) < n:
            block = b"rami-lan masked test rng v1" + self._seed + self._counter.to_bytes(8, "big")
            self._buffer += hashlib.sha512(block).digest()
            self._counter += 1
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        return out


# --------------------------------------------------------------------------- checks


def _as_bytes(name: str, value: object, size: int) -> bytes:
    if not isinstance(value, bytes | bytearray | memoryview):
        raise GroupError(f"{name} must be bytes, not {type(value).__name__}")
    data = bytes(value)
    if len(data) != size:
        raise GroupError(f"{name} must be exactly {size} bytes, got {len(data)}")
    return data


def is_point(data: bytes) -> bool:
    """True if ``data`` encodes a valid point of the prime-order subgroup (not the identity)."""
    return (
        isinstance(data, bytes)
        and len(data) == POINT_SIZE
        and bool(_na.crypto_core_ed25519_is_valid_point(data))
    )


def check_point(value: object, name: str = "point") -> bytes:
    """Return ``value`` as a point, or raise :class:`GroupError`.

    libsodium's ``is_valid_point`` rejects non-canonical encodings, points off the
    curve, points of small order (the identity included) and points with a torsion
    component: only elements of the prime-order subgroup pass.
    """
    data = _as_bytes(name, value, POINT_SIZE)
    if not _na.crypto_core_ed25519_is_valid_point(data):
        raise GroupError(f"{name} {data.hex()} is not a point of the ed25519 prime-order group")
    return data


def check_scalar(value: object, name: str = "scalar") -> bytes:
    """Return ``value`` as a scalar, or raise :class:`GroupError`.

    A scalar is canonical (``< L``, little-endian) and not zero.
    """
    data = _as_bytes(name, value, SCALAR_SIZE)
    number = int.from_bytes(data, "little")
    if number >= GROUP_ORDER:
        raise GroupError(f"{name} is not reduced modulo the group order")
    if number == 0:
        raise GroupError(f"{name} is zero")
    return data


# --------------------------------------------------------------------------- scalars


def scalar_from_wide(wide: bytes) -> bytes:
    """Reduce 64 bytes (little-endian) modulo ``L``; raise if the result is zero."""
    data = _as_bytes("wide scalar input", wide, WIDE_SIZE)
    scalar = _na.crypto_core_ed25519_scalar_reduce(data)
    if scalar == bytes(SCALAR_SIZE):
        raise GroupError("the 64 bytes reduce to the zero scalar")
    return scalar


def random_scalar(randomness: Randomness) -> bytes:
    """A uniform non-zero scalar: 64 bytes from ``randomness`` reduced mod ``L``.

    A zero result (probability about 2^-252) is drawn again.
    """
    while True:
        try:
            return scalar_from_wide(randomness(WIDE_SIZE))
        except GroupError:
            continue


def random_permutation(randomness: Randomness, n: int) -> tuple[int, ...]:
    """A uniform permutation of ``0 .. n-1`` (Fisher-Yates from the end).

    ``j = uniform(i + 1)`` for ``i = n-1 .. 1``, each from big-endian 32-bit words with
    rejection (``limit = 2^32 - 2^32 mod m``), as in FAIR_SHUFFLE.md.
    """
    out = list(range(n))
    for i in range(n - 1, 0, -1):
        m = i + 1
        limit = 2**32 - 2**32 % m
        while True:
            word = int.from_bytes(randomness(4), "big")
            if word < limit:
                break
        j = word % m
        out[i], out[j] = out[j], out[i]
    return tuple(out)


def invert(scalar: bytes) -> bytes:
    """``scalar^-1 mod L``."""
    return _na.crypto_core_ed25519_scalar_invert(scalar)


def scalar_mul(a: bytes, b: bytes) -> bytes:
    """``a * b mod L``."""
    return _na.crypto_core_ed25519_scalar_mul(a, b)


def scalar_product(scalars: Sequence[bytes]) -> bytes:
    """The product of ``scalars`` mod ``L`` (1 for none)."""
    out = _ONE
    for s in scalars:
        out = _na.crypto_core_ed25519_scalar_mul(out, s)
    return out


# --------------------------------------------------------------------------- points


def mul(scalar: bytes, point: bytes) -> bytes:
    """``scalar * point`` (no clamping). Raises :class:`GroupError` on a bad input.

    libsodium refuses points outside the prime-order group and a result equal to the
    identity (a zero scalar), so a bad point can never be multiplied silently.
    """
    try:
        return _na.crypto_scalarmult_ed25519_noclamp(scalar, point)
    except (CryptoError, RuntimeError, TypeError, ValueError) as exc:
        raise GroupError(
            f"can not multiply point {bytes(point).hex()}: not a prime-order point, or zero scalar"
        ) from exc


_T = TypeVar("_T")
#: Below this many operations a batch runs in the calling thread (a thread hand-off costs more).
_SPLIT_AT = 24
_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _workers() -> int:
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    return max(1, min(n, 8))


def _pool() -> ThreadPoolExecutor | None:
    """The shared worker threads (None on a single core)."""
    global _POOL
    if _workers() < 2:
        return None
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=_workers(), thread_name_prefix="rami-group")
        return _POOL


def _split(items: Sequence[_T], work: Callable[[Sequence[_T]], list]) -> list:
    """``work(items)``, the items cut into one chunk per core (this thread does one)."""
    pool = _pool() if len(items) >= _SPLIT_AT else None
    if pool is None:
        return work(items)
    parts = _workers()
    size = -(-len(items) // parts)
    chunks = [items[k:k + size] for k in range(0, len(items), size)]
    futures = [pool.submit(work, c) for c in chunks[1:]]
    out = work(chunks[0])  # this thread does its share too
    for f in futures:
        out += f.result()  # re-raises a worker's GroupError here
    return out


def _mul_strict(pairs: Sequence[tuple[bytes, bytes]]) -> list[bytes]:
    return [mul(s, p) for s, p in pairs]


def _mul_lenient(pairs: Sequence[tuple[bytes, bytes]]) -> list[bytes | None]:
    out: list[bytes | None] = []
    for s, p in pairs:
        try:
            out.append(mul(s, p))
        except GroupError:
            out.append(None)
    return out


def mul_many(pairs: Iterable[tuple[bytes, bytes]], *, strict: bool = True) -> list:
    """``[s * p for (s, p) in pairs]``, in order, over the machine's cores.

    ``strict``: a bad input raises :class:`GroupError` (as :func:`mul`); otherwise its
    result is None.
    """
    return _split(list(pairs), _mul_strict if strict else _mul_lenient)


def are_points(values: Sequence[bytes]) -> list[bool]:
    """:func:`is_point` of each value, in order, over the machine's cores."""
    return _split(values, lambda items: [is_point(v) for v in items])


def card_point(card_id: int) -> bytes:
    """The public point of a card id: ``from_uniform(SHA-512(label || u16(id))[:32])``."""
    if not isinstance(card_id, int) or isinstance(card_id, bool) or not 0 <= card_id < MAX_CARDS:
        raise GroupError(f"card id must be an int in 0 .. {MAX_CARDS - 1}, got {card_id!r}")
    return _card_point(card_id)


@lru_cache(maxsize=512)
def _card_point(card_id: int) -> bytes:
    digest = hashlib.sha512(CARD_LABEL + card_id.to_bytes(2, "big")).digest()
    return _na.crypto_core_ed25519_from_uniform(digest[:32])


class CardTable:
    """The points of card ids ``0 .. n-1`` and the reverse lookup point -> id."""

    __slots__ = ("n_cards", "points", "_ids")

    def __init__(self, n_cards: int) -> None:
        if not 1 <= n_cards <= MAX_CARDS:
            raise GroupError(f"a deck holds 1 .. {MAX_CARDS} cards, got {n_cards}")
        self.n_cards = n_cards
        self.points = tuple(card_point(i) for i in range(n_cards))
        self._ids = {p: i for i, p in enumerate(self.points)}
        if len(self._ids) != n_cards:  # pragma: no cover - would need a SHA-512 collision
            raise GroupError("two card ids map to the same point")

    def card_of(self, point: bytes) -> int | None:
        """The card id whose point this is, or None."""
        return self._ids.get(point)


@lru_cache(maxsize=8)
def card_table(n_cards: int) -> CardTable:
    """A cached :class:`CardTable` for ``n_cards``."""
    return CardTable(n_cards)
