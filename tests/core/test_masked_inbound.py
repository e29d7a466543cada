"""`rami_lan.masked.inbound`: a client's masked map decoded once at the network edge
into the typed value the table machine takes (issue 27: no plain map below the edge)."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from test_masked_messages import SAMPLES

from rami_lan.masked import kinds as MK
from rami_lan.masked.inbound import Undecoded, decode_inbound
from rami_lan.masked.messages import MaskedMessage
from rami_lan.masked.signing import SeatKey, SeatKeyAnnouncement, check_announcement


def _wire(plain: dict[str, Any]) -> Any:
    return msgpack.unpackb(msgpack.packb(plain, use_bin_type=True), raw=False)


@pytest.mark.parametrize("message", SAMPLES, ids=lambda m: type(m).__name__)
def test_a_protocol_message_decodes_to_its_typed_value(message: MaskedMessage) -> None:
    got = decode_inbound(_wire(message.to_plain()))
    assert got == message
    assert got.to_plain() == _wire(message.to_plain())  # the bytes the signatures cover


def test_a_seat_key_announcement_decodes_and_still_verifies() -> None:
    plain = _wire(SeatKey(b"\x07" * 32).announcement("t" * 16, 3))
    got = decode_inbound(plain)
    assert isinstance(got, SeatKeyAnnouncement) and got.seat == 3
    assert got.to_plain() == plain
    assert check_announcement(got.to_plain())[0] == 3
    forged = SeatKeyAnnouncement(4, got.pub, got.table, got.sig)  # another seat's name
    with pytest.raises(ValueError, match="not signed by that key"):
        check_announcement(forged.to_plain())


@pytest.mark.parametrize(("plain", "kind", "why"), [
    ({"k": MK.MASK, "deck": 0, "seat": 1}, MK.MASK, "points"),
    ({"k": MK.ROUND, "tag": b""}, MK.ROUND, "mk_round"),  # a host's kind, from a client
    ({"k": MK.SEATKEY, "seat": 1}, MK.SEATKEY, "exactly the fields"),
])
def test_what_does_not_decode_says_why_and_never_raises(plain: dict[str, Any], kind: str,
                                                        why: str) -> None:
    got = decode_inbound(plain)
    assert isinstance(got, Undecoded)
    assert got.kind == kind and why in got.reason, got
