"""No leak: every message the host sends to a seat, during whole matches, is decoded and
its cards compared with the host's true state at send time. No card of another seat's
hand (unless it got there publicly, from the discard pile or a meld) and no stock card
may appear before the rules reveal it (the end of the round); round secrets (which fix
the stock order) only go out once the round is over.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import msgpack
import pytest
from aio_helpers import run

from rami_lan.core.cards import Card, card_id
from rami_lan.core.codec import event_from_plain, view_from_plain
from rami_lan.core.events import DiscardTaken, Event, JokerRecovered, Knocked, RoundStarted, StockRefilled
from rami_lan.net import protocol as P
from rami_lan.net.bot_client import BotClient
from rami_lan.net.client import open_session
from rami_lan.net.host import TABLE_NOTICE, HostObserver, TableConfig, TableHost

pytestmark = pytest.mark.usefixtures("isolated_config")


class Spy(HostObserver):
    """Records every frame a host sends, with the set of card ids the seat may not know
    then (injected into the host: ``TableHost(config, observer=Spy())``)."""

    def __init__(self) -> None:
        self.host: Any = None
        self.frames: list[tuple[int | None, bytes, frozenset[int], bool]] = []
        self.public_in_hand: dict[int, set[int]] = {}

    def _cid(self, host: Any, card: Card) -> int:
        return card_id(card, host.variant.n_decks)

    def applied(self, host: Any, change: Any) -> None:
        for ev in change.events:
            if isinstance(ev, RoundStarted):
                self.public_in_hand = {s: set() for s in range(host.config.seats)}
            elif isinstance(ev, DiscardTaken):
                self.public_in_hand[ev.seat].update(self._cid(host, c) for c in ev.cards)
            elif isinstance(ev, Knocked):
                self.public_in_hand[ev.seat].add(self._cid(host, ev.card))
            elif isinstance(ev, JokerRecovered):
                self.public_in_hand[ev.seat].add(self._cid(host, ev.joker))

    def hidden_for(self, host: Any, seat: int | None) -> frozenset[int]:
        r = host.match.round
        if r is None or r.phase == "over":
            return frozenset()
        hidden = {self._cid(host, c) for c in r.stock}
        for t in range(host.config.seats):
            if t != seat:
                hidden |= {self._cid(host, c) for c in r.hands[t]} - self.public_in_hand.get(t, set())
        return frozenset(hidden)

    def sent(self, host: Any, seat: int | None, msg: P.Message, data: bytes) -> None:
        r = host.match.round
        round_over = r is None or r.phase == "over"
        self.frames.append((seat, bytes(data), self.hidden_for(host, seat), round_over))


def _cards_in(value: Any) -> list[Card]:
    out: list[Card] = []
    if isinstance(value, Card):
        out.append(value)
    elif isinstance(value, tuple | list):
        for x in value:
            out += _cards_in(x)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            out += _cards_in(getattr(value, f.name))
    return out


def _check_frames(spy: Spy) -> tuple[int, int]:
    n_decks = spy.host.variant.n_decks
    variant = spy.host.variant.id
    frames = cards_seen = 0
    for seat, data, hidden, round_over in spy.frames:
        length = int.from_bytes(data[:4], "big")
        assert length == len(data) - 4
        msg = P.Message.from_wire(msgpack.unpackb(data[4:], raw=False, strict_map_key=True))
        frames += 1
        cards: list[Card] = []
        if isinstance(msg, P.View):
            view = view_from_plain(msg.view)
            assert view.seat == seat, "a view of another seat was sent"
            cards = _cards_in(view)
        elif isinstance(msg, P.Events):
            for plain in msg.events:
                if plain.get("type") == TABLE_NOTICE:
                    continue
                ev: Event = event_from_plain(plain, variant)
                if isinstance(ev, StockRefilled):
                    # The pile going back to the stock was public card by card (every
                    # discard is seen); the event lists it in pile order, and only the
                    # new, shuffled order is secret (`multi` turns it over openly).
                    cards += [ev.kept] if ev.kept is not None else []
                    continue
                cards += _cards_in(ev)
        elif isinstance(msg, P.RoundSecrets):
            assert round_over, "round secrets sent while the round was running"
        elif isinstance(msg, P.Reveal):
            raise AssertionError("the host relayed a reveal")
        ids = {card_id(c, n_decks) for c in cards}
        cards_seen += len(ids)
        leaked = ids & hidden
        assert not leaked, f"seat {seat} was sent hidden cards {sorted(leaked)} in {msg.KIND}"
    return frames, cards_seen


async def _spy_match(**table: Any) -> Spy:
    seats = table.pop("seats", 3)
    config = TableConfig(name="spy", seats=seats, headless=True, advertise=False,
                         interfaces=["127.0.0.1"], bot_delay=0.0, **table)
    spy = Spy()
    host = spy.host = TableHost(config, observer=spy)
    port = await host.start()
    try:
        humans = seats - len(config.bots)
        sessions = [await open_session("127.0.0.1", port, nickname=f"p{i}")
                    for i in range(humans)]
        await asyncio.gather(*(BotClient(s, delay=0.0, seed=i).run()
                               for i, s in enumerate(sessions)))
        await host.wait_finished(10)
        for s in sessions:
            await s.close()
    finally:
        await host.stop()
    return spy


@pytest.mark.parametrize(
    "table",
    [
        {"variant": "rami", "limit": 1, "knock": True, "seats": 4, "bots": {3: "moyen"}},
        {"variant": "500", "quick": True},
        {"variant": "40", "limit": 50, "seats": 2},
    ],
)

def test_no_card_leaks_to_any_seat(table: dict) -> None:
    spy = run(_spy_match(**dict(table)))
    assert spy.host.match.over
    frames, cards = _check_frames(spy)
    assert frames > 100 and cards > 100


def test_spy_detects_a_leak() -> None:
    """The checker itself: a frame naming a hidden card (here: as a discard) is caught."""
    spy = run(_spy_match(variant="rami", limit=1))
    seat, _data, hidden, over = next(x for x in spy.frames if x[2] and x[0] is not None)
    other = (seat + 1) % spy.host.config.seats
    fake = P.Events(seq=1, events=[{"type": "Discarded", "seat": other,
                                    "card": {"card": min(hidden)}}])
    spy.frames = [(seat, _frame(fake), hidden, over)]
    with pytest.raises(AssertionError, match="hidden cards"):
        _check_frames(spy)


def _frame(msg: P.Message) -> bytes:
    body = msgpack.packb(msg.to_wire(), use_bin_type=True)
    return len(body).to_bytes(4, "big") + body
