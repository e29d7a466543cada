"""Masked deck, group layer: pinned test vectors, strict point and scalar gates."""

from __future__ import annotations

import hashlib

import pytest
from nacl import bindings

from rami_lan.masked.deck import key_commitment, unmask
from rami_lan.masked.group import (
    CARD_LABEL,
    GROUP_ORDER,
    GroupError,
    HashRandom,
    are_points,
    card_point,
    card_table,
    check_point,
    check_scalar,
    invert,
    is_point,
    mul,
    mul_many,
    random_permutation,
    random_scalar,
    scalar_from_wide,
    scalar_mul,
)

TAG = b"rami-lan/v1" + bytes(range(16)) + (1).to_bytes(4, "big") + (1).to_bytes(4, "big")

# Pinned in docs/fair_shuffle.md (chapter "Private dealing"): an outsider recomputes these.
CARD_VECTORS = {
    0: (
        "25826d286c3277c04e09d0c3cea2c9d4dc0b17958581d70ca7db14b8ad8d92fb",
        "46a1636bc8515d6a6d6ea7bace2a749db39eefc526f48c9e1f3602342384497c",
    ),
    1: (
        "c902475024360d7e2a907fc3ab6e65ee901bf6b7ad7596d0dd83d8fff62c6b3f",
        "47f0044df2949617bdb168cbfa015eb0ac23c9d9435f6bb1873aa66a7f5ea741",
    ),
    51: (
        "07bba3c0063a9e4215620afeba49ff488558c7904a22a8ace9fa8847fd6b2af2",
        "8d45c58d38cb40564759f135f860a7b32ad20a2b1781db11efca63c32eccac3f",
    ),
    109: (
        "45d1eea97b1f75698c488dd32642768d37cddd21cadaaf57c2f7c7bb8344fef7",
        "97b954701dd661649517768e2615efc4600fb59e716960c8843431a06933590e",
    ),
}
ALL_110 = "64e5607e72431a499e9734bc4a056d81faf604144812bb1da923e0a58bcf6f68"
WIDE = (
    "5993003953e83ae81a174fff65ad45224d33027f4066c1fe59c747ebc36575909b81e3e872456e277b01a3d4ab55401d"
    "d231812b5dc177fae1e7bdd66076cf5e"
)
SCALAR = "31dda53a09dd932279c58b66e77c34ba37c3ffc9c8a57716269b0b33bbab3805"
MASKED_CARD_0 = "fff5bd30106dfd4fd09c052281b373df42ef54290cfc64676dde8ba8b3f44d96"
COMMITMENT = "e373721689ee2737109029ebd0f162bc84bf2a4b354d6b2c9b7482c4d24a2f9b"

# A point of order 8 (torsion) and the identity: both must be refused.
TORSION = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")
IDENTITY = bytes([1]) + bytes(31)


@pytest.mark.parametrize("card_id", sorted(CARD_VECTORS))
def test_card_point_vectors(card_id: int) -> None:
    uniform, point = CARD_VECTORS[card_id]
    digest = hashlib.sha512(CARD_LABEL + card_id.to_bytes(2, "big")).digest()
    assert digest[:32].hex() == uniform
    assert card_point(card_id).hex() == point
    assert is_point(card_point(card_id))


def test_all_card_points_of_the_rami_deck() -> None:
    points = card_table(110).points
    assert hashlib.sha256(b"".join(points)).hexdigest() == ALL_110
    assert len(set(points)) == 110
    assert all(is_point(p) for p in points)
    assert [card_table(110).card_of(p) for p in points] == list(range(110))
    assert card_table(110).card_of(mul(bytes.fromhex(SCALAR), points[0])) is None


def test_scalar_vector_is_the_wide_number_mod_l() -> None:
    wide = HashRandom(b"vector")(64)
    assert wide.hex() == WIDE
    scalar = scalar_from_wide(wide)
    assert scalar.hex() == SCALAR
    # Recomputed without libsodium: little-endian 512-bit number mod L.
    assert int.from_bytes(scalar, "little") == int.from_bytes(wide, "little") % GROUP_ORDER


def test_mask_and_commitment_vectors() -> None:
    scalar = bytes.fromhex(SCALAR)
    masked = mul(scalar, card_point(0))
    assert masked.hex() == MASKED_CARD_0
    assert unmask(masked, [scalar]) == card_point(0)
    assert key_commitment(TAG, 0, 2, 17, scalar).hex() == COMMITMENT


def test_masking_commutes_and_inverts() -> None:
    rand = HashRandom(b"commute")
    a, b = random_scalar(rand), random_scalar(rand)
    p = card_point(7)
    assert mul(a, mul(b, p)) == mul(b, mul(a, p)) == mul(scalar_mul(a, b), p)
    assert mul(invert(a), mul(a, p)) == p
    assert unmask(mul(a, mul(b, p)), [b, a]) == p


def test_permutation_is_fisher_yates_from_the_end() -> None:
    assert random_permutation(HashRandom(b"vector"), 5) == (1, 4, 2, 0, 3)
    seen = {random_permutation(HashRandom(bytes([i])), 3) for i in range(200)}
    assert len(seen) == 6


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        (IDENTITY, "identity"),
        (TORSION, "small order"),
        (bindings.crypto_core_ed25519_add(card_point(3), TORSION), "torsion component"),
        (bytes.fromhex("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"), "non-canonical"),
        (bytes([2]) + bytes(31), "not on the curve"),
        (bytes(31), "short"),
        ("00" * 32, "not bytes"),
    ],
)
def test_invalid_points_are_refused(bad: object, why: str) -> None:
    assert not is_point(bad)  # type: ignore[arg-type]
    with pytest.raises(GroupError):
        check_point(bad)
    if isinstance(bad, bytes) and len(bad) == 32:
        with pytest.raises(GroupError):
            mul(bytes.fromhex(SCALAR), bad)


def test_scalars_are_canonical_and_never_zero() -> None:
    assert check_scalar(bytes.fromhex(SCALAR)) == bytes.fromhex(SCALAR)
    with pytest.raises(GroupError, match="zero"):
        check_scalar(bytes(32))
    with pytest.raises(GroupError, match="reduced"):
        check_scalar(GROUP_ORDER.to_bytes(32, "little"))
    with pytest.raises(GroupError, match="zero"):
        scalar_from_wide(GROUP_ORDER.to_bytes(64, "little"))
    with pytest.raises(GroupError):
        check_scalar(b"\x01" * 31)
    # A source that first yields a multiple of L: the zero is drawn again.
    chunks = [GROUP_ORDER.to_bytes(64, "little"), WIDE_BYTES]
    assert random_scalar(lambda n: chunks.pop(0)) == bytes.fromhex(SCALAR)


WIDE_BYTES = bytes.fromhex(WIDE)


def test_card_ids_are_u16() -> None:
    with pytest.raises(GroupError):
        card_point(65536)
    with pytest.raises(GroupError):
        card_point(-1)


def test_a_deck_of_multiplications_over_the_cores_is_the_same_in_order() -> None:
    """`mul_many` / `are_points` split a deck's work over threads: same results, same
    order as one at a time; a bad point raises (strict) or gives None (lenient) at its
    own position."""
    points = [card_point(i) for i in range(110)]
    keys = [scalar_from_wide(hashlib.sha512(b"k%d" % i).digest()) for i in range(110)]
    assert mul_many(zip(keys, points, strict=True)) == [mul(k, p) for k, p in zip(keys, points, strict=True)]
    bad = list(points)
    bad[77] = bindings.crypto_core_ed25519_add(card_point(3), TORSION)
    with pytest.raises(GroupError):
        mul_many(zip(keys, bad, strict=True))
    lenient = mul_many(zip(keys, bad, strict=True), strict=False)
    assert [j for j, x in enumerate(lenient) if x is None] == [77]
    assert lenient[:77] == [mul(k, p) for k, p in zip(keys[:77], points[:77], strict=True)]
    assert [j for j, ok in enumerate(are_points(bad)) if not ok] == [77]
