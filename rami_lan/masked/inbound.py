"""A client's masked-deck message, decoded once at the network edge.

The host's connection layer (`rami_lan.net.host`) turns the plain map of a ``masked``
message into one typed value before the table machine sees it: a `MaskedMessage`
(`rami_lan.masked.messages`, every point and scalar checked), a
`SeatKeyAnnouncement` (``mk_seatkey``, its fields checked; its signature is checked
where the key is taken, `rami_lan.table.receipts`), or an `Undecoded` saying what was
wrong. An `Undecoded` is not refused here: the machine decides, as before, whether it
answers ``error bad_masked`` (a masked round is being dealt) or drops it (a plain round).
"""

from __future__ import annotations

from dataclasses import dataclass

from rami_lan.masked import kinds as MK
from rami_lan.masked.messages import MaskedMessage, MessageError, from_plain
from rami_lan.masked.signing import SeatKeyAnnouncement, SignatureError

__all__ = ["MaskedInput", "Undecoded", "decode_inbound"]


@dataclass(frozen=True, slots=True)
class Undecoded:
    """A masked-deck map that is no valid message of its kind (``reason`` says why)."""

    kind: str
    reason: str


MaskedInput = MaskedMessage | SeatKeyAnnouncement | Undecoded
"""What the table machine's ``masked`` input takes."""


def decode_inbound(plain: object) -> MaskedInput:
    """``plain`` (a ``masked`` message's ``m``) as a typed value; never raises."""
    kind = str(plain.get("k"))[:20] if isinstance(plain, dict) else "?"
    try:
        if kind == MK.SEATKEY:
            return SeatKeyAnnouncement.from_plain(plain)
        return from_plain(plain)
    except (MessageError, SignatureError) as exc:
        return Undecoded(kind, str(exc))
