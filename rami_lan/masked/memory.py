"""In-memory multi-party driver of the masked deck, for tests and benchmarks.

:class:`MemoryTable` holds one :class:`~rami_lan.masked.session.Participant` per seat
and plays the relay (the host's router) between them: every message is encoded with
msgpack, recorded, and parsed strictly by its recipient, exactly as over the wire.
It records every byte the relay handles (``relay_log``: what a spying host sees) and
every byte each participant sends or receives (``seen_by``: what a spying client
sees). ``drop`` lets a test make the relay lose chosen messages.

It stands in for the table machine: the public events (deal, draw, discard) become
calls made on every participant in the same order.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence

import msgpack

from rami_lan.masked.group import HashRandom, Randomness
from rami_lan.masked.messages import MaskedMessage, MessageError
from rami_lan.masked.session import (
    Event,
    MaskedProtocolError,
    Outgoing,
    Participant,
    Result,
)

__all__ = ["MemoryTable", "RelayRecord", "deal"]

#: (sender, addressed to (None: everyone), delivered to, bytes)
RelayRecord = tuple[int, int | None, int, bytes]


class MemoryTable:
    """Participants of one round and the relay between them, in one process."""

    def __init__(
        self,
        tag: bytes,
        seats: Sequence[int],
        relay: int,
        n_cards: int,
        *,
        randomness: Mapping[int, Randomness] | None = None,
        kinds: Mapping[int, type[Participant]] | None = None,
    ) -> None:
        self.tag = tag
        self.order = tuple(sorted(seats))
        self.relay = relay
        self.participants: dict[int, Participant] = {}
        for s in self.order:
            rand = randomness[s] if randomness else HashRandom(tag + bytes([s]))
            cls = (kinds or {}).get(s, Participant)
            self.participants[s] = cls(tag, s, relay, n_cards, rand)
        self.events: dict[int, list[Event]] = {s: [] for s in self.order}
        self.relay_log: list[RelayRecord] = []
        self.seen_by: dict[int, list[bytes]] = {s: [] for s in self.order}
        self.errors: list[tuple[int, int, Exception]] = []  # (sender, recipient, error)
        self.gone: set[int] = set()
        self.drop: Callable[[int, int, MaskedMessage], bool] | None = None
        self._queue: deque[tuple[int, int, bytes, MaskedMessage | None]] = deque()

    @property
    def live(self) -> tuple[int, ...]:
        return tuple(s for s in self.order if s not in self.gone)

    # ------------------------------------------------------------------ public events

    def start_deck(self, deck: int, card_ids: Sequence[int]) -> None:
        for s in self.live:
            self._handle(s, self.participants[s].start_deck(deck, card_ids, self.live))
        self.pump()

    def assign(self, deck: int, position: int, seat: int | None) -> None:
        for s in self.live:
            self._handle(s, self.participants[s].assign(deck, position, seat))
        self.pump()

    def reveal(self, seat: int, deck: int, position: int) -> None:
        self._handle(seat, self.participants[seat].reveal(deck, position))
        self.pump()

    def hand_over(self, seat: int) -> None:
        result = self.participants[seat].hand_over()
        self.gone.add(seat)
        self._handle(seat, result)
        self.pump()

    def audit(self) -> None:
        for s in self.live:
            self._handle(s, self.participants[s].publish_audit())
        self.pump()

    # ------------------------------------------------------------------ relay

    def _handle(self, seat: int, result: Result) -> None:
        self.events[seat].extend(result.events)
        for out in result.outgoing:
            self._send(seat, out)

    def _send(self, sender: int, out: Outgoing) -> None:
        data = msgpack.packb(out.message.to_plain(), use_bin_type=True)
        self.seen_by[sender].append(data)
        if out.to is None and sender != self.relay and self.relay not in self.gone:
            # As the host does: the relay takes a broadcast first, and passes it on only
            # once its own participant accepted it.
            self._route(sender, None, self.relay, data, out.message, forward=True)
            return
        targets = [out.to] if out.to is not None else [s for s in self.order if s != sender]
        for target in targets:
            self._route(sender, out.to, target, data, out.message)

    def _route(
        self, sender: int, to: int | None, target: int, data: bytes, message: MaskedMessage,
        forward: bool = False,
    ) -> None:
        if target in self.gone:
            return
        self.relay_log.append((sender, to, target, data))
        if self.drop is not None and self.drop(sender, target, message):
            return
        self._queue.append((sender, target, data, message if forward else None))

    def pump(self) -> None:
        """Deliver queued messages (and those they cause) until none is left."""
        while self._queue:
            sender, target, data, forward = self._queue.popleft()
            self.seen_by[target].append(data)
            plain = msgpack.unpackb(data, raw=False, strict_map_key=True)
            try:
                result = self.participants[target].receive_plain(plain)
            except (MaskedProtocolError, MessageError) as exc:
                self.errors.append((sender, target, exc))
                continue
            if forward is not None:
                for other in self.order:
                    if other not in (sender, target):
                        self._route(sender, None, other, data, forward)
            self._handle(target, result)


def deal(table: MemoryTable, seats_in_deal_order: Sequence[int], hand_size: int, deck: int = 0) -> int:
    """Deal ``hand_size`` cards one at a time round the table, then turn one up.

    Position ``k * n + p`` goes to the ``p``-th seat (FAIR_SHUFFLE.md's layout); the
    next position is the first discard, public. Returns the first stock position.
    """
    n = len(seats_in_deal_order)
    for k in range(hand_size):
        for p, seat in enumerate(seats_in_deal_order):
            table.assign(deck, k * n + p, seat)
    table.assign(deck, n * hand_size, None)
    return n * hand_size + 1
