"""A seat's private-deal secrets as a small journal, so a relaunched client goes on with the round.

Sans-I/O: bytes in, bytes out (the client writes them to ``seats/<table id>.keys``,
`rami_lan.net.seats.SeatStore`). A client killed mid-round used to lose its masked-deck
participant with its process: the round then waited for keys nobody had any more. What
the seat journals is exactly what can not be rebuilt from the host's resync:

* the **entropy tape**: every random byte the round's participant drew (its shuffle
  secrets for deck 0 and each re-masked refill: round key, permutation, position keys).
  Replayed into a new participant, it makes the very same secrets, so the same mask and
  lock passes and the same key for each position;
* the seed of its **signing key** (`rami_lan.masked.signing`), so what it sends again is
  signed with the key the round's roster lists for it;
* the **reveals** it chose to make (the cards its own actions put on the table):
  (deck, position) each. Everything else it sent (its shuffle steps, each key release, the
  show of its hand, its audit) follows from the host's messages by the rules, and the host
  sends them all again on a reconnect (the masked log, ``mk_sync``), each checked again by
  the seat's own replay (`rami_lan.table.seat_gate.PublicReplay`) before anything leaves.

* how many times the round was **relaunched** already: each relaunched process numbers
  its masked messages from a range of its own (``relaunches`` x 2^24), since the numbers
  a dead process used are unknown and a receiver refuses any number it has seen (a
  second relaunch in the same round took the first one's range, and its messages were
  refused as replayed).

It is bound to one table, seat and round (tag, host, participants): `decode` refuses a
file of another table or seat, a malformed or oversized one (``ValueError``, never
another exception). It is the seat's own secret: it never leaves the player's machine.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

import msgpack

__all__ = ["MAX_KEYS_BYTES", "MAX_RELAUNCHES", "SeatKeys", "decode", "encode"]

VERSION: Final = 1
MAX_KEYS_BYTES: Final = 256 * 1024
"""A keys file larger than this is refused before it is parsed."""
MAX_TAPE: Final = 192 * 1024
MAX_DECKS: Final = 64
MAX_RELAUNCHES: Final = 255
"""A round relaunched more often than this reuses the last range (255 x 2^24 < 2^32)."""
_TABLE_ID = re.compile(r"[0-9a-f]{8,32}")


@dataclass(frozen=True, slots=True)
class SeatKeys:
    """What one seat needs to continue its masked round (module docstring). Construction
    validates (``ValueError``)."""

    table_id: str
    seat: int
    tag: bytes
    host: int
    participants: tuple[int, ...]
    tape: bytes
    reveals: tuple[tuple[int, int], ...] = ()
    sign: bytes = b""
    """The seed of the seat's Ed25519 signing key (`rami_lan.masked.signing`; empty: none):
    a relaunched client signs with the key the round's roster lists for it."""
    relaunches: int = 0
    """How many relaunched processes took this round up already (0: the first process)."""

    def __post_init__(self) -> None:
        if not isinstance(self.table_id, str) or not _TABLE_ID.fullmatch(self.table_id):
            raise ValueError("table_id: 8 to 32 lowercase hex digits expected")
        for name in ("seat", "host"):
            value = getattr(self, name)
            if type(value) is not int or not 0 <= value <= 255:
                raise ValueError(f"{name}: a seat 0 .. 255 expected")
        if not isinstance(self.tag, bytes) or not 1 <= len(self.tag) <= 255:
            raise ValueError("tag: 1 to 255 bytes expected")
        seats = self.participants
        if (not isinstance(seats, tuple) or not 2 <= len(seats) <= 8 or len(set(seats)) != len(seats)
                or any(type(s) is not int or not 0 <= s <= 255 for s in seats)
                or self.seat not in seats or self.host not in seats):
            raise ValueError("participants: distinct seats, ours and the host's among them, expected")
        if not isinstance(self.tape, bytes) or len(self.tape) > MAX_TAPE:
            raise ValueError(f"tape: at most {MAX_TAPE} bytes expected")
        if (not isinstance(self.reveals, tuple) or len(self.reveals) > 4096
                or any(not isinstance(r, tuple) or len(r) != 2
                       or any(type(x) is not int or not 0 <= x < 1 << 16 for x in r)
                       or r[0] >= MAX_DECKS for r in self.reveals)):
            raise ValueError("reveals: (deck, position) pairs expected")
        if not isinstance(self.sign, bytes) or len(self.sign) not in (0, 32):
            raise ValueError("sign: a 32-byte key seed (or nothing) expected")
        if type(self.relaunches) is not int or not 0 <= self.relaunches <= MAX_RELAUNCHES:
            raise ValueError(f"relaunches: 0 .. {MAX_RELAUNCHES} expected")


def encode(keys: SeatKeys) -> bytes:
    return msgpack.packb({"v": VERSION, "table": keys.table_id, "seat": keys.seat, "tag": keys.tag,
                          "host": keys.host, "participants": list(keys.participants),
                          "tape": keys.tape, "reveals": [list(r) for r in keys.reveals],
                          "relaunches": keys.relaunches, **({"sign": keys.sign} if keys.sign else {})},
                         use_bin_type=True)


def decode(raw: bytes, *, table_id: str, seat: int) -> SeatKeys:
    """The journal in ``raw``, if it is a well-formed one of this table and seat; else
    ``ValueError`` saying why (nothing else escapes)."""
    if not isinstance(raw, bytes) or len(raw) > MAX_KEYS_BYTES:
        raise ValueError("not a keys file (or too large)")
    try:
        data: Any = msgpack.unpackb(raw, raw=False, strict_map_key=True, max_bin_len=MAX_TAPE,
                                    max_str_len=256, max_array_len=8192, max_map_len=16)
    except Exception as exc:  # noqa: BLE001 - msgpack raises many kinds on crafted input
        raise ValueError(f"not a keys file: {type(exc).__name__}") from None
    if not isinstance(data, dict) or data.get("v") != VERSION:
        raise ValueError("not a keys file of this version")
    try:
        keys = SeatKeys(table_id=data.get("table"), seat=data.get("seat"), tag=data.get("tag"),
                        host=data.get("host"),
                        participants=tuple(data.get("participants") or ()),
                        tape=data.get("tape"),
                        reveals=tuple(tuple(r) if isinstance(r, list) else r
                                      for r in (data.get("reveals") or ())),
                        sign=data.get("sign", b""),
                        relaunches=data.get("relaunches", 0))
    except TypeError as exc:
        raise ValueError(str(exc)) from None
    if keys.table_id != table_id:
        raise ValueError("the keys of another table")
    if keys.seat != seat:
        raise ValueError(f"the keys of seat {keys.seat}, not of our seat {seat}")
    return keys
