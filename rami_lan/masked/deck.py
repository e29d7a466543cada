"""One masked shuffle: the mask pass, the lock pass, key commitments and unmasking.

Notation (``docs/masked_deck.md``): a deck of ``n`` points ``D_0 = [P(c_0) .. P(c_n-1)]``
where ``P`` is :func:`~rami_lan.masked.group.card_point` and ``c`` the public card ids
(``0 .. N-1`` for a round's deck, the public pile for a reshuffle). Participants
``t_1 .. t_m`` act in the deck's order.

* Mask pass, participant ``t_i``: ``D_i[j] = r_i * D_{i-1}[perm_i[j]]`` (a round key
  ``r_i`` and a secret permutation; output position ``j`` takes input ``perm_i[j]``).
* Lock pass, participant ``t_i``: ``E_i[j] = (k_{i,j} * r_i^-1) * E_{i-1}[j]`` with
  ``E_0 = D_m``: the round key is replaced by one fresh key per position.
  Then ``E_m[j] = (prod_i k_{i,j}) * P(card at j)``.
* A position is unmasked with every participant's key for it:
  ``P = (prod_i k_{i,j})^-1 * E_m[j]``.
* Each lock output comes with commitments ``H(label || ... || k_{i,j})`` so that a
  key released later is checked on arrival and a wrong one is named at once.

Pure functions; secrets are drawn from a :data:`~rami_lan.masked.group.Randomness`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from rami_lan.masked.group import (
    GroupError,
    Randomness,
    card_point,
    check_scalar,
    invert,
    mul,
    mul_many,
    random_permutation,
    random_scalar,
    scalar_mul,
    scalar_product,
)

__all__ = [
    "KEY_LABEL",
    "MAX_DECK",
    "MAX_TAG",
    "ShuffleSecrets",
    "check_permutation",
    "check_tag",
    "deck_problems",
    "initial_points",
    "key_commitment",
    "lock_step",
    "mask_step",
    "permute_ids",
    "unmask",
]

#: Domain label of a position-key commitment.
KEY_LABEL = b"rami-lan masked key v1"
#: Largest deck a masked shuffle handles (positions are u16 on the wire, cards too).
MAX_DECK = 1024
#: Longest round tag (u8 length prefix).
MAX_TAG = 255


def check_tag(tag: object) -> bytes:
    """A round tag: 1 .. 255 bytes (the table passes FAIR_SHUFFLE.md's round tag)."""
    if not isinstance(tag, bytes) or not 1 <= len(tag) <= MAX_TAG:
        raise ValueError(f"round tag must be 1 .. {MAX_TAG} bytes")
    return tag


def check_permutation(perm: Sequence[int], n: int) -> tuple[int, ...]:
    """Return ``perm`` as a tuple if it is a permutation of ``0 .. n-1``, else raise."""
    out = tuple(perm)
    if len(out) != n or sorted(out) != list(range(n)):
        raise ValueError(f"not a permutation of 0 .. {n - 1}")
    return out


@dataclass(frozen=True, slots=True)
class ShuffleSecrets:
    """One participant's secrets for one deck: round key, permutation, position keys."""

    round_key: bytes
    permutation: tuple[int, ...]
    position_keys: tuple[bytes, ...]

    def __post_init__(self) -> None:
        n = len(self.permutation)
        check_scalar(self.round_key, "round key")
        check_permutation(self.permutation, n)
        if len(self.position_keys) != n:
            raise ValueError(f"{len(self.position_keys)} position keys for a deck of {n}")
        for j, key in enumerate(self.position_keys):
            check_scalar(key, f"position key {j}")

    @classmethod
    def generate(cls, randomness: Randomness, n: int) -> ShuffleSecrets:
        """Fresh secrets for a deck of ``n``: round key, permutation, then ``n`` position keys."""
        round_key = random_scalar(randomness)
        permutation = random_permutation(randomness, n)
        keys = tuple(random_scalar(randomness) for _ in range(n))
        return cls(round_key, permutation, keys)


def initial_points(card_ids: Sequence[int]) -> tuple[bytes, ...]:
    """``D_0``: the public points of the cards, in the given order."""
    return tuple(card_point(c) for c in card_ids)


def mask_step(points: Sequence[bytes], round_key: bytes, permutation: Sequence[int]) -> tuple[bytes, ...]:
    """Mask pass: ``out[j] = round_key * points[permutation[j]]``."""
    return tuple(mul_many((round_key, points[i]) for i in permutation))


def lock_step(points: Sequence[bytes], round_key: bytes, position_keys: Sequence[bytes]) -> tuple[bytes, ...]:
    """Lock pass: ``out[j] = (position_keys[j] * round_key^-1) * points[j]``."""
    inverse = invert(round_key)
    return tuple(mul_many((scalar_mul(k, inverse), p) for k, p in zip(position_keys, points, strict=True)))


def unmask(point: bytes, keys: Sequence[bytes]) -> bytes:
    """``(prod keys)^-1 * point``: one scalar multiplication whatever the number of keys."""
    return mul(invert(scalar_product(keys)), point)


def permute_ids(card_ids: Sequence[int], permutations: Sequence[Sequence[int]]) -> tuple[int, ...]:
    """The card order after applying the mask-pass permutations in turn."""
    order = tuple(card_ids)
    for perm in permutations:
        order = tuple(order[i] for i in perm)
    return order


def key_commitment(tag: bytes, deck_no: int, seat: int, position: int, key: bytes) -> bytes:
    """``SHA-256(label || u8(len tag) || tag || u32(deck) || u8(seat) || u16(position) || key)``."""
    data = b"".join(
        (
            KEY_LABEL,
            len(tag).to_bytes(1, "big"),
            tag,
            deck_no.to_bytes(4, "big"),
            seat.to_bytes(1, "big"),
            position.to_bytes(2, "big"),
            key,
        )
    )
    return hashlib.sha256(data).digest()


def deck_problems(points: Sequence[bytes], previous: Sequence[bytes]) -> list[str]:
    """What is visibly wrong with a shuffle output, before any key is known.

    A correct step outputs ``len(previous)`` distinct points, none of them equal to an
    input point (with a real key, a collision has probability about ``n^2 / L``). So a
    repeated point is a duplicated card and a shared point a skipped or partial step.
    Validity of each point is checked when the message is parsed.
    """
    problems: list[str] = []
    if len(points) != len(previous):
        problems.append(f"{len(points)} points for a deck of {len(previous)}")
    seen: dict[bytes, int] = {}
    for j, p in enumerate(points):
        if p in seen:
            problems.append(f"positions {seen[p]} and {j} hold the same point {p.hex()}")
        seen[p] = j
    before = set(previous)
    kept = [j for j, p in enumerate(points) if p in before]
    if kept:
        problems.append(
            f"{len(kept)} output point(s) equal input points (positions {kept[:8]}): step skipped"
        )
    return problems


# GroupError is re-exported for callers that catch deck failures in one place.
__all__ += ["GroupError"]
