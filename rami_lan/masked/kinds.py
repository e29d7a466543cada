"""The masked deck's message kind names: the one home of every ``mk_*`` string on the wire.

A ``masked`` wire message carries a plain map whose ``"k"`` is one of these. The protocol
kinds (seat to seat, relayed by the host) are typed in :mod:`rami_lan.masked.messages`;
the table-level kinds (host to seats, and the seat-key announcement) are sent by
:mod:`rami_lan.table`. The values are wire bytes: never change one.
"""
from __future__ import annotations

from typing import Final

# The masked deck's own protocol messages (see docs/masked_deck.md).
MASK: Final = "mk_mask"
LOCK: Final = "mk_lock"
KEY: Final = "mk_key"
REVEAL: Final = "mk_reveal"
GIVE: Final = "mk_give"
HANDOVER: Final = "mk_handover"
AUDIT: Final = "mk_audit"
PROTEST: Final = "mk_protest"

# Seat to host: a seat's signing key, and the signed receipts of what it received.
SEATKEY: Final = "mk_seatkey"
RECEIPT: Final = "mk_receipt"

# Host to seats: the table's side of a masked round (see docs/protocol.md).
ROUND: Final = "mk_round"
DEAL: Final = "mk_deal"
SHOW: Final = "mk_show"
HAND: Final = "mk_hand"
SYNC: Final = "mk_sync"
TIMEOUT: Final = "mk_timeout"
CLOSE: Final = "mk_close"
OWN: Final = "mk_own"
ORDERS: Final = "mk_orders"

TABLE_KINDS: Final = frozenset({ROUND, DEAL, SHOW, HAND, SYNC, TIMEOUT, CLOSE, OWN, ORDERS, SEATKEY, RECEIPT})
"""Kinds the table adds to the masked deck's own (``rami_lan.masked.messages.KINDS``)."""
