"""The byte-exact hashes of FAIR_SHUFFLE.md that a round verifier needs (pure, no I/O).

``round_tag``, ``commitment`` and ``seed_from_secrets`` are the protocol's hashes,
written here only (the constants are `rami_lan.ids`'); the deck, dealer and reshuffle
functions live in the rules core (`rami_lan.core.deckrng`), which the engine itself
uses. `rami_lan.table.shuffle` checks its arguments and calls these, for the host's
commit-reveal state machine.

Card ids (FAIR_SHUFFLE.md): for each deck copy ``d = 0 .. D-1``, suits ``c s h d``,
ranks ``A 2 .. 10 J Q K``, then the jokers: ``id = 52*d + 13*suit + (rank-1)`` for a
natural card, ``52*D + j`` for joker ``j`` (see `rami_lan.core.cards.card_id`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from rami_lan.ids import COMMIT_LABEL, DEDICATED_HOST_SEAT, ROUND_TAG_PREFIX, SEED_LABEL

__all__ = [
    "COMMIT_LABEL",
    "DEDICATED_HOST_SEAT",
    "ROUND_TAG_PREFIX",
    "SEED_LABEL",
    "commitment",
    "round_tag",
    "seed_from_secrets",
]



def round_tag(table_id: bytes, match_no: int, round_no: int) -> bytes:
    """``"rami-lan/v1" || table_id || u32(match_no) || u32(round_no)``."""
    return ROUND_TAG_PREFIX + bytes(table_id) + match_no.to_bytes(4, "big") + round_no.to_bytes(4, "big")


def commitment(tag: bytes, seat: int, secret: bytes) -> bytes:
    """``H("rami-lan commit v1" || tag || u8(seat) || secret)``."""
    return hashlib.sha256(COMMIT_LABEL + bytes(tag) + seat.to_bytes(1, "big") + bytes(secret)).digest()


def seed_from_secrets(tag: bytes, secrets: Mapping[int, bytes]) -> bytes:
    """``H("rami-lan seed v1" || tag || s_a || s_b || ...)``, secrets in ascending seat order."""
    parts = [bytes(secrets[seat]) for seat in sorted(secrets)]
    return hashlib.sha256(SEED_LABEL + bytes(tag) + b"".join(parts)).digest()
