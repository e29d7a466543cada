"""What a client seat refuses at private dealing: `MaskedSeatError` (a host message
that does not fit the public game) and `Refusal` (the record of one, naming the host).

Split out of `rami_lan.table.masked_seat`, which still offers both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["MaskedSeatError", "Refusal"]


class MaskedSeatError(ValueError):
    """The host's masked-deck message does not fit the public game (evidence in the text)."""


@dataclass(frozen=True, slots=True)
class Refusal:
    """A host message this seat refused: it gave nothing for it, and the round fails
    naming the host (every message reaches us through the host).

    ``kind``: the message's kind (``mk_show``, ``mk_sync``, ``mk_deal``, ``events``...);
    ``reason``: why (English); ``evidence``: the message itself, as received (plain)."""

    tag: bytes | None
    kind: str
    reason: str
    evidence: Any = None
