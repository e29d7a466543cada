"""Deterministic deck randomness of FAIR_SHUFFLE.md (pure computation, no I/O).

The engine needs it for reshuffles during a round (the key comes from the round's
agreed seed) and for the first dealer; the network layer builds the commit-reveal
protocol on top of the same functions (`rami_lan.net.shuffle`).
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")

DEALER_LABEL = b"rami-lan dealer v1"
RESHUFFLE_LABEL = b"rami-lan reshuffle v1"


def _h(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


class ByteStream:
    """``H(k || u64(0)) || H(k || u64(1)) || ...`` consumed as big-endian u32 words."""

    def __init__(self, key: bytes) -> None:
        if len(key) != 32:
            raise ValueError(f"a stream key is 32 bytes, not {len(key)}")
        self._key = key
        self._words: Iterator[int] = self._gen()

    def _gen(self) -> Iterator[int]:
        block = 0
        while True:
            digest = _h(self._key + struct.pack(">Q", block))
            block += 1
            yield from struct.unpack(">8I", digest)

    def word(self) -> int:
        return next(self._words)

    def uniform(self, m: int) -> int:
        """An integer in ``0 .. m-1`` by rejection sampling."""
        if m < 1:
            raise ValueError("uniform(m) needs m >= 1")
        limit = 2**32 - (2**32 % m)
        while True:
            w = self.word()
            if w < limit:
                return w % m


def shuffle(items: Sequence[T], key: bytes) -> list[T]:
    """Fisher-Yates from the end with the stream of ``key``; returns a new list."""
    out = list(items)
    stream = ByteStream(key)
    for i in range(len(out) - 1, 0, -1):
        j = stream.uniform(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def deck_order(seed: bytes, n_cards: int) -> list[int]:
    """The round's deck: canonical ids shuffled with ``seed``; index 0 = top of stock."""
    return shuffle(range(n_cards), seed)


def first_dealer_index(seed: bytes, n_players: int) -> int:
    """Index (0-based, among the players in seat order) of the first dealer."""
    return ByteStream(_h(DEALER_LABEL + seed)).uniform(n_players)


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
