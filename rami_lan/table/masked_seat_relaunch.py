"""A client seat's side of private dealing across a relaunch: the journal a relaunched
client needs to go on with the current masked round (`journal`, `restore`; `_Tape`
records the participant's randomness), and, relaunched, the refill that waits for its
pile to be public and the reveals made before the crash, made again once the public
game shows the card played.

Split out of `rami_lan.table.masked_seat`: `SeatRelaunch` is a mixin of
`rami_lan.table.masked_seat.MaskedSeat` (``self`` is the seat), which still offers
every name from here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rami_lan.core.events import cards_played as played
from rami_lan.masked.session import Phase
from rami_lan.masked.signing import SeatKey
from rami_lan.table.masked_seat_errors import MaskedSeatError
from rami_lan.table.seat_keys import SeatKeys

__all__ = ["SeatRelaunch"]


class SeatRelaunch:
    """Relaunch at a seat (a mixin: ``self`` is the `MaskedSeat`)."""

    def _resume_deferred(self) -> list[dict[str, Any]]:
        """A card became public: the refill that waited for it may start now (relaunched)."""
        waiting = self._deferred
        if waiting is None or self.p is None:
            return []
        out: list[dict[str, Any]] = []
        if not self._refill(waiting[0], out):
            return out
        self._deferred = None
        out += self._on_events(waiting[1])
        return out + self._retry_redo()

    def _retry_redo(self) -> list[dict[str, Any]]:
        """Events were admitted: the cards revealed before the crash that they show played."""
        if not self._redo or self.p is None or self.p.phase is not Phase.PLAYING:
            return []
        out: list[dict[str, Any]] = []
        for cid, where in sorted(self._mine.items()):
            if where in self._redo and self._played_by_us(cid):
                out += self._reveal(cid)
        return out

    def _played_by_us(self, cid: int) -> bool:
        card = self._cards[cid]
        gate = self.gate
        return gate is not None and any(getattr(ev, "seat", None) == self.seat and card in played(ev)
                                        for ev in gate.events)

    # ------------------------------------------------------------------ persistence

    def journal(self, table_id: str) -> SeatKeys | None:
        """What a relaunched client needs to go on with the current masked round (None: no
        round of ours is open): its secrets' randomness and the reveals we chose."""
        if self.p is None or self._tape is None or self.tag is None or self.host is None:
            return None
        return SeatKeys(table_id=table_id, seat=self.seat, tag=self.tag, host=self.host,
                        participants=self._round_seats,
                        tape=self._tape.recorded(),
                        reveals=(*self._revealed, *sorted(self._redo - set(self._revealed))),
                        sign=self.key.seed if self.key is not None else b"",
                        relaunches=self._relaunches)

    def restore(self, keys: SeatKeys) -> None:
        """After a relaunch: use ``keys`` when the host resyncs its round (``mk_round`` of
        the same tag, host and participants); any other round gets fresh secrets."""
        if keys.seat != self.seat:
            raise MaskedSeatError(f"the keys of seat {keys.seat}, not ours ({self.seat})")
        self._kept = keys
        if keys.sign and self.key is None:  # the key the round's roster lists for us
            self.key = SeatKey(keys.sign)


class _Tape:
    """A participant's randomness, recorded; replaying ``preset`` first (a restored round)."""

    def __init__(self, entropy: Callable[[int], bytes], preset: bytes = b"") -> None:
        self._entropy = entropy
        self._preset = preset
        self._used = 0
        self._buf = bytearray()
        self.grown = False

    def __call__(self, n: int) -> bytes:
        take = self._preset[self._used:self._used + n]
        self._used += len(take)
        out = take + (self._entropy(n - len(take)) if len(take) < n else b"")
        self._buf += out
        self.grown = self.grown or len(take) < n
        return out

    def recorded(self) -> bytes:
        """Every byte drawn so far, then what is left of ``preset`` (not drawn again yet)."""
        return bytes(self._buf) + self._preset[self._used:]
