"""Masked deck: a whole 4-participant rami round in memory, watched by spies.

The round: the 110-card ``rami`` deck is shuffled by the host (seat 0) and three
clients, 14 cards are dealt to each, one is turned up, the players draw and discard
until the stock is empty, the discard pile is re-masked by a new shuffle, play goes
on, the hands are shown and every participant audits the round.

A spying host records every byte it relays (``relay_log``: all messages, the private
key releases between clients included) and a spying client every byte it sends or
receives. At checkpoints during play, each spy tries to name every card of another
seat's hand and of the stock that is not yet public, with everything it holds: its
own journal (round keys, permutations, position keys) and every key found in the
bytes it recorded. Each attempt (every subset of the keys it has for that position)
must give no card point, and the holder's own key must never appear in its bytes.
Besides, right before any card is shown (each discard, each hand at round end), every
spy but its holder tries once more to name it, with all it has at that moment.
Positive controls show the same attack does name the cards the spy may know.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

import msgpack
import pytest

from rami_lan.masked.deck import unmask
from rami_lan.masked.group import card_table
from rami_lan.masked.memory import MemoryTable, deal
from rami_lan.masked.messages import CardReveal, Handover, KeyRelease, LockPass, MaskedMessage, from_plain
from rami_lan.masked.session import (
    AuditComplete,
    CardPublic,
    CardReceived,
    DeckReady,
    FaultFound,
    Participant,
    Phase,
)

TAG = b"rami-lan/v1" + bytes(range(16)) + (1).to_bytes(4, "big") + (1).to_bytes(4, "big")
HOST = 0
SEATS = (0, 1, 2, 3)
N_CARDS = 110
HAND = 14
DEAL_ORDER = (1, 2, 3, 0)  # seat 0 deals; the seat on its left is served first

Slot = tuple[int, int]  # (deck, position)
#: Keys per position, the last lock output per deck, and all recorded bytes.
Knowledge = tuple[dict[Slot, dict[int, bytes]], dict[int, tuple[bytes, ...]], bytes]


class Spy:
    """What one participant can know: its own journal plus the bytes it recorded."""

    def __init__(self, table: MemoryTable, seat: int) -> None:
        self.table = table
        self.seat = seat
        self._parsed: dict[bytes, MaskedMessage] = {}
        self.last_moment_checks = 0

    def log(self) -> list[bytes]:
        if self.seat == self.table.relay:
            return [data for _, _, _, data in self.table.relay_log] + self.table.seen_by[self.seat]
        return self.table.seen_by[self.seat]

    def knowledge(self) -> Knowledge:
        """Everything the spy holds, read from its bytes and its own journal."""
        keys: dict[Slot, dict[int, bytes]] = {}
        finals: dict[int, tuple[bytes, ...]] = {}
        log = self.log()
        for data in dict.fromkeys(log):  # a broadcast is relayed once per recipient
            msg = self._parsed.get(data)
            if msg is None:
                msg = from_plain(msgpack.unpackb(data, raw=False, strict_map_key=True))
                self._parsed[data] = msg
            if isinstance(msg, KeyRelease):
                keys.setdefault((msg.deck, msg.position), {})[msg.seat] = msg.key
            elif isinstance(msg, CardReveal):
                keys.setdefault((msg.deck, msg.position), {}).update(dict(msg.keys))
            elif isinstance(msg, Handover):
                for deck, position, key in msg.keys:
                    keys.setdefault((deck, position), {})[msg.seat] = key
            elif isinstance(msg, LockPass):
                finals[msg.deck] = msg.points  # lock passes arrive in order: the last one stays
        journal = self.table.participants[self.seat].snapshot()
        for d in journal["decks"]:
            finals[d["deck"]] = tuple(d["locks"][-1])
            own_keys = d["secrets"][2]
            for j, key in enumerate(own_keys):
                keys.setdefault((d["deck"], j), {})[self.seat] = key
        return keys, finals, b"".join(log)

    def can_name(self, slot: Slot, known: Knowledge | None = None) -> int | None:
        """Try every subset of the keys held for ``slot``; the card id if one works."""
        keys, finals, _ = known if known is not None else self.knowledge()
        point = finals[slot[0]][slot[1]]
        held = list(keys.get(slot, {}).values())
        cards = card_table(N_CARDS)
        for size in range(len(held) + 1):
            for subset in combinations(held, size):
                candidate = unmask(point, subset) if subset else point
                card = cards.card_of(candidate)
                if card is not None:
                    return card
        return None


class Round:
    """Play a scripted rami round on a MemoryTable, tracking who holds what."""

    def __init__(self, table: MemoryTable) -> None:
        self.t = table
        self.hands: dict[int, list[Slot]] = {s: [] for s in SEATS}
        self.public: set[Slot] = set()
        self.pile: list[Slot] = []
        self.stock: list[Slot] = []
        self.decks = 0
        self.spies: list[Spy] = []
        self.shown: list[tuple[int, Slot]] = []

    def card(self, slot: Slot) -> int:
        card = self.t.participants[HOST].card_at(*slot)
        assert card is not None
        return card

    def start(self) -> None:
        self.t.start_deck(0, range(N_CARDS))
        first = deal(self.t, DEAL_ORDER, HAND)
        for k in range(HAND):
            for p, seat in enumerate(DEAL_ORDER):
                self.hands[seat].append((0, k * len(DEAL_ORDER) + p))
        self.pile = [(0, first - 1)]
        self.public.add((0, first - 1))
        self.stock = [(0, j) for j in range(first, N_CARDS)]
        self.decks = 1

    def turn(self, seat: int) -> None:
        slot = self.stock.pop(0)
        self.t.assign(*slot, seat)
        self.hands[seat].append(slot)
        discard = self.hands[seat].pop(0)
        self.show(seat, discard)
        self.pile.append(discard)

    def show(self, seat: int, slot: Slot) -> None:
        """Make a card public; at the last moment before, no spy but its holder knows it."""
        for spy in self.spies:
            if spy.seat != seat:
                assert spy.can_name(slot) is None, f"spy {spy.seat} names {slot} before it is shown"
                spy.last_moment_checks += 1
        self.t.reveal(seat, *slot)
        self.public.add(slot)
        self.shown.append((seat, slot))

    def reshuffle(self) -> None:
        back = self.pile[:-1]
        ids = [self.card(s) for s in back]
        deck = self.decks
        self.t.start_deck(deck, ids)
        self.decks += 1
        self.pile = self.pile[-1:]
        self.stock = [(deck, j) for j in range(len(ids))]

    def hidden_from(self, seat: int) -> list[Slot]:
        """Slots ``seat`` may not know: others' hands and the stock, minus public ones."""
        others = [s for other, slots in self.hands.items() if other != seat for s in slots]
        return [s for s in others + self.stock if s not in self.public]


def _assert_spy_blind(spy: Spy, game: Round) -> int:
    known = spy.knowledge()
    recorded = known[2]
    hidden = game.hidden_from(spy.seat)
    assert hidden
    holders = {slot: seat for seat, slots in game.hands.items() for slot in slots}
    journals = {
        seat: game.t.participants[seat].snapshot()["decks"] for seat in game.t.live if seat != spy.seat
    }
    for slot in hidden:
        assert spy.can_name(slot, known) is None, f"spy {spy.seat} names the card at {slot}"
        journal_keys = {seat: decks[slot[0]]["secrets"][2][slot[1]] for seat, decks in journals.items()}
        holder = holders.get(slot)
        must_miss = [holder] if holder is not None else list(journal_keys)
        for seat in must_miss:
            if seat in journal_keys:
                assert journal_keys[seat] not in recorded, f"key of seat {seat} for {slot} leaked"
    return len(hidden)


def _assert_spy_sees_own(spy: Spy, game: Round) -> None:
    """Positive control: the same attack names the spy's own cards and public ones."""
    known = spy.knowledge()
    for slot in game.hands[spy.seat][:3]:
        assert spy.can_name(slot, known) == game.t.participants[spy.seat].card_at(*slot)
    for slot in sorted(game.public)[:3]:
        assert spy.can_name(slot, known) == game.card(slot)
    # Positive control of the blindness check: the keys the spy lacks for a hidden
    # card are exactly what keeps it blind (for the host: the holder's key alone).
    holder = DEAL_ORDER[0] if DEAL_ORDER[0] != spy.seat else DEAL_ORDER[1]
    slot = next(s for s in game.hidden_from(spy.seat) if s in game.hands[holder])
    missing = {
        seat: game.t.participants[seat].snapshot()["decks"][slot[0]]["secrets"][2][slot[1]]
        for seat in SEATS
        if seat not in known[0].get(slot, {})
    }
    if spy.seat == HOST:
        assert set(missing) == {holder}
    leaked = dict(known[0])
    leaked[slot] = {**leaked.get(slot, {}), **missing}
    assert spy.can_name(slot, (leaked, known[1], known[2])) == game.t.participants[holder].card_at(*slot)


@pytest.fixture(scope="module")
def played() -> tuple[Round, dict[str, int]]:
    table = MemoryTable(TAG, SEATS, HOST, N_CARDS)
    game = Round(table)
    spies = [Spy(table, HOST), Spy(table, 2)]
    game.spies = spies
    checked: dict[str, int] = {}
    game.start()
    for spy in spies:
        checked[f"deal/{spy.seat}"] = _assert_spy_blind(spy, game)
        _assert_spy_sees_own(spy, game)
    seats = list(DEAL_ORDER)
    turns = 0
    while game.stock:
        game.turn(seats[turns % 4])
        turns += 1
        if turns == 25:
            for spy in spies:
                checked[f"mid/{spy.seat}"] = _assert_spy_blind(spy, game)
    game.reshuffle()
    for _ in range(6):
        game.turn(seats[turns % 4])
        turns += 1
    for spy in spies:
        checked[f"reshuffled/{spy.seat}"] = _assert_spy_blind(spy, game)
        _assert_spy_sees_own(spy, game)
    for seat in SEATS:  # round end: hands shown
        for slot in game.hands[seat]:
            game.show(seat, slot)
    table.audit()
    return game, checked


def test_spies_could_name_no_hidden_card(played: tuple[Round, dict[str, int]]) -> None:
    game, checked = played
    # Each checkpoint really looked at many cards (others' hands and the stock).
    assert checked["deal/0"] == 3 * HAND + N_CARDS - 4 * HAND - 1
    assert checked["deal/2"] == checked["deal/0"]
    assert all(count > 20 for count in checked.values())
    # And every card of another seat's hand was tried once more right before it was shown.
    for spy in game.spies:
        shown_by_others = [slot for seat, slot in game.shown if seat != spy.seat]
        assert spy.last_moment_checks == len(shown_by_others) > 60
    assert game.t.errors == []


def test_every_participant_dealt_its_hand_and_agrees_on_public_cards(
    played: tuple[Round, dict[str, int]],
) -> None:
    game, _ = played
    for seat in SEATS:
        received = {(e.deck, e.position) for e in game.t.events[seat] if isinstance(e, CardReceived)}
        assert len([s for s in received if s[0] == 0]) >= HAND
        assert not [e for e in game.t.events[seat] if isinstance(e, FaultFound)]
    for slot in game.public:
        cards = {game.t.participants[s].card_at(*slot) for s in SEATS}
        assert len(cards) == 1 and None not in cards
    ready = [e for e in game.t.events[1] if isinstance(e, DeckReady)]
    assert [e.deck for e in ready] == [0, 1]


def test_audit_is_fair_and_recomputes_the_deal(played: tuple[Round, dict[str, int]]) -> None:
    game, _ = played
    reports = []
    for seat in SEATS:
        p = game.t.participants[seat]
        assert p.phase is Phase.COMPLETE
        report = p.report
        assert report is not None and report.fair, report.faults if report else None
        done = [e for e in game.t.events[seat] if isinstance(e, AuditComplete)]
        assert len(done) == 1 and done[0].report == report
        reports.append(report)
    orders = reports[0].orders
    assert all(r.orders == orders for r in reports)
    assert sorted(orders[0]) == list(range(N_CARDS))
    for slot in game.public:
        assert orders[slot[0]][slot[1]] == game.card(slot)
    # The reshuffled deck holds exactly the pile cards that went back.
    assert sorted(orders[1]) == sorted(game.t.participants[HOST].snapshot()["decks"][1]["cards"])


def test_public_events_name_the_holder(played: tuple[Round, dict[str, int]]) -> None:
    game, _ = played
    publics = [e for e in game.t.events[3] if isinstance(e, CardPublic)]
    turned = [e for e in publics if e.seat is None]
    assert len(turned) == 1 and (turned[0].deck, turned[0].position) == (0, 4 * HAND)
    assert {e.seat for e in publics} >= {0, 1, 2, None}


def _bytes_through(log: Iterable[bytes]) -> int:
    return sum(len(b) for b in log)


def test_snapshot_restores_a_participant_mid_round() -> None:
    table = MemoryTable(TAG, SEATS, HOST, N_CARDS)
    game = Round(table)
    game.start()
    for seat in DEAL_ORDER:
        game.turn(seat)
    plain = msgpack.unpackb(
        msgpack.packb(table.participants[2].snapshot(), use_bin_type=True), raw=False, strict_map_key=True
    )
    restored = Participant.restore(plain, table.participants[2]._randomness)
    assert restored.snapshot() == table.participants[2].snapshot()
    table.participants[2] = restored  # a reconnect: play goes on from the journal
    for seat in DEAL_ORDER:
        game.turn(seat)
    assert restored.card_at(*game.hands[2][-1]) is not None
    table.audit()
    assert all(table.participants[s].report.fair for s in SEATS)  # type: ignore[union-attr]
    assert _bytes_through(table.seen_by[2]) > 0
