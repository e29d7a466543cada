"""Deterministic deck randomness of FAIR_SHUFFLE.md (pure computation, no I/O).

The engine needs it for reshuffles during a round (the key comes from the round's
agreed seed) and for the first dealer; the network layer builds the commit-reveal
protocol on top of the same functions (`rami_lan.table.shuffle`).
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Callable, Sequence
from typing import TypeVar

from rami_lan.ids import DEALER_LABEL, RESHUFFLE_LABEL

T = TypeVar("T")


def _h(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


WORD_SPACE = 2**32


def draw_uniform(next_word: Callable[[], int], m: int) -> int:
    """An integer in ``0 .. m-1`` from 32-bit words, by rejection sampling.

    ``limit = 2^32 - (2^32 mod m)``; words ``>= limit`` are discarded.
    """
    if not isinstance(m, int) or isinstance(m, bool) or not 1 <= m <= WORD_SPACE:
        raise ValueError(f"m must be an integer in 1..2^32, got {m!r}")
    limit = WORD_SPACE - WORD_SPACE % m
    while True:
        word = next_word()
        if word < limit:
            return word % m


class KeyStream:
    """``H(k || u64(0)) || H(k || u64(1)) || ...`` read as big-endian u32 words."""

    __slots__ = ("_key", "_counter", "_words")

    def __init__(self, key: bytes) -> None:
        if not isinstance(key, bytes):
            raise TypeError(f"key must be bytes, not {type(key).__name__}")
        if len(key) != 32:
            raise ValueError(f"key must be exactly 32 bytes, got {len(key)}")
        self._key = key
        self._counter = 0
        self._words: list[int] = []

    @property
    def blocks_used(self) -> int:
        """How many 32-byte blocks have been hashed so far."""
        return self._counter

    def next_word(self) -> int:
        if not self._words:
            digest = _h(self._key + struct.pack(">Q", self._counter))
            self._counter += 1
            self._words = list(reversed(struct.unpack(">8I", digest)))
        return self._words.pop()

    def uniform(self, m: int) -> int:
        """An integer in ``0 .. m-1`` (see `draw_uniform`)."""
        return draw_uniform(self.next_word, m)


def shuffle(items: Sequence[T], key: bytes) -> list[T]:
    """Fisher-Yates from the end with the stream of ``key``; returns a new list."""
    out = list(items)
    stream = KeyStream(key)
    for i in range(len(out) - 1, 0, -1):
        j = stream.uniform(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def deck_order(seed: bytes, n_cards: int) -> list[int]:
    """The round's deck: canonical ids shuffled with ``seed``; index 0 = top of stock."""
    return shuffle(range(n_cards), seed)


def dealer_key(seed: bytes) -> bytes:
    return _h(DEALER_LABEL + seed)


def first_dealer_index(seed: bytes, n_players: int) -> int:
    """Index (0-based, among the players in seat order) of the first dealer."""
    return KeyStream(dealer_key(seed)).uniform(n_players)


def reshuffle_key(seed: bytes, r: int) -> bytes:
    return _h(RESHUFFLE_LABEL + seed + struct.pack(">I", r))


def reshuffle(seed: bytes, r: int, pile_bottom_to_top: Sequence[T]) -> list[T]:
    """The new stock of the ``r``-th reshuffle (r = 1, 2, ...), index 0 on top."""
    if r < 1:
        raise ValueError("reshuffles are numbered from 1")
    return shuffle(pile_bottom_to_top, reshuffle_key(seed, r))


def turn_over(pile_bottom_to_top: Sequence[T]) -> list[T]:
    """``multi``: the pile turned over unshuffled; its bottom card becomes the top."""
    return list(pile_bottom_to_top)
