"""Masked deck messages: plain forms round-trip, and parsing is strict."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest

from rami_lan.masked.group import GROUP_ORDER, card_point
from rami_lan.masked.messages import (
    AuditPublication,
    CardReveal,
    DeckSecretsRecord,
    Handover,
    KeyRelease,
    LockPass,
    MaskedMessage,
    MaskPass,
    MessageError,
    SentRecord,
    from_plain,
)

P = (card_point(0), card_point(1), card_point(2))
K = (2).to_bytes(32, "little")
K3 = (3).to_bytes(32, "little")
C = bytes(range(32))

SAMPLES: list[MaskedMessage] = [
    MaskPass(0, 1, P),
    LockPass(2, 3, P, (C, C, C)),
    KeyRelease(0, 1, 2, 40, K),
    KeyRelease(1, 1, None, 0, K),
    CardReveal(0, 2, 7, ((0, K), (1, K3), (2, K))),
    Handover(3, ((0, 60, K), (1, 2, K3))),
    Handover(3, ((0, 60, K),), ((0, K, (1, 2, 0)), (1, K3, (0,)))),
    AuditPublication(
        0,
        (DeckSecretsRecord(0, K, (2, 0, 1), (K, K3, K)),),
        (SentRecord("mk_key", 0, 1, 2), SentRecord("mk_reveal", 0, 4, None)),
        b"rami-lan/v1 round tag",
    ),
]


def _wire(plain: dict[str, Any]) -> Any:
    return msgpack.unpackb(msgpack.packb(plain, use_bin_type=True), raw=False, strict_map_key=True)


@pytest.mark.parametrize("message", SAMPLES, ids=lambda m: type(m).__name__)
def test_round_trip_through_msgpack(message: MaskedMessage) -> None:
    assert from_plain(_wire(message.to_plain())) == message


def _mutated(message: MaskedMessage, **changes: Any) -> dict[str, Any]:
    plain = _wire(message.to_plain())
    for key, value in changes.items():
        if value is ...:
            del plain[key]
        else:
            plain[key] = value
    return plain


IDENTITY = bytes([1]) + bytes(31)


@pytest.mark.parametrize(
    ("plain", "problem"),
    [
        ([], "map"),
        ({"k": "nope"}, "unknown"),
        (_mutated(SAMPLES[0], extra=1), "unexpected"),
        (_mutated(SAMPLES[0], seat=...), "missing"),
        (_mutated(SAMPLES[0], seat=256), "seat"),
        (_mutated(SAMPLES[0], seat=True), "seat"),
        (_mutated(SAMPLES[0], deck=-1), "deck"),
        (_mutated(SAMPLES[0], points=[]), "points"),
        (_mutated(SAMPLES[0], points=[IDENTITY]), "prime-order"),
        (_mutated(SAMPLES[0], points=[P[0][:31]]), "32 bytes"),
        (_mutated(SAMPLES[1], commits=[C, C]), "commits"),
        (_mutated(SAMPLES[1], commits=[C, C, C[:31]]), "commitment"),
        (_mutated(SAMPLES[2], key=bytes(32)), "zero"),
        (_mutated(SAMPLES[2], key=GROUP_ORDER.to_bytes(32, "little")), "reduced"),
        (_mutated(SAMPLES[2], pos=1024), "position"),
        (_mutated(SAMPLES[2], to="all"), "to"),
        (_mutated(SAMPLES[4], keys=[[0, K], [0, K3]]), "twice"),
        (_mutated(SAMPLES[4], keys=[[0, K, 1]]), "key pair"),
        (_mutated(SAMPLES[5], keys=[[0, 60, K], [0, 60, K3]]), "twice"),
        (_mutated(SAMPLES[6], decks=[[0, K, [2, 1, 0]], [0, K, [0]]]), "deck is handed over twice"),
        (_mutated(SAMPLES[6], decks=[[0, bytes(32), [0]]]), "zero"),
        (_mutated(SAMPLES[7], decks=[[0, K, [0, 0, 1], [K, K, K]]]), "twice"),
        (_mutated(SAMPLES[7], decks=[[0, K, [0, 1, 2], [K, K]]]), "position keys"),
        (_mutated(SAMPLES[7], decks=[[0, K, [0, 1, 3], [K, K, K]]]), "permutation entry"),
        (_mutated(SAMPLES[7], sent=[["mk_mask", 0, 1, 2]]), "kind"),
    ],
)
def test_strict_parsing_says_what_is_wrong(plain: Any, problem: str) -> None:
    with pytest.raises(MessageError, match=problem):
        from_plain(plain)
