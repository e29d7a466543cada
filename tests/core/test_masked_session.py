"""Masked deck participant: phases, bot seats held by the host, journal round trips."""

from __future__ import annotations

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rami_lan.masked.group import HashRandom
from rami_lan.masked.memory import MemoryTable, deal
from rami_lan.masked.messages import KeyRelease
from rami_lan.masked.session import (
    CardPublic,
    CardReceived,
    MaskedProtocolError,
    MaskedStateError,
    Participant,
    Phase,
)

TAG = b"rami-lan/v1" + bytes(16) + (1).to_bytes(4, "big") + (4).to_bytes(4, "big")
N = 12


def test_bot_seats_are_dealt_to_the_host_only() -> None:
    # Seats 0 (host) and 2 are humans; seats 1 and 3 are bots held by the host.
    table = MemoryTable(TAG, (0, 2), 0, N)
    table.start_deck(0, range(N))
    deal(table, (1, 2, 3, 0), 2)
    host = [e for e in table.events[0] if isinstance(e, CardReceived)]
    client = [e for e in table.events[2] if isinstance(e, CardReceived)]
    assert sorted({e.seat for e in host}) == [0, 1, 3]  # the host sees its bots' cards
    assert {e.seat for e in client} == {2}
    bot_positions = [e.position for e in host if e.seat in (1, 3)]
    assert all(table.participants[2].card_at(0, j) is None for j in bot_positions)
    table.reveal(0, 0, bot_positions[0])  # the host plays a bot's card
    assert table.participants[2].card_at(0, bot_positions[0]) is not None
    table.audit()
    assert table.participants[2].report is not None and table.participants[2].report.fair


def test_local_calls_out_of_phase_are_refused_and_change_nothing() -> None:
    p = Participant(TAG, 1, 0, N, HashRandom(b"p"))
    assert p.phase is Phase.IDLE
    with pytest.raises(MaskedStateError, match="assign"):
        p.assign(0, 0, 1)
    with pytest.raises(MaskedStateError, match="hand over"):
        p.hand_over()
    with pytest.raises(MaskedStateError, match="audit"):
        p.publish_audit()
    with pytest.raises(MaskedStateError, match="every card id"):
        p.start_deck(0, range(N - 1), (0, 1))
    with pytest.raises(MaskedStateError, match="ours"):
        p.start_deck(0, range(N), (0, 2))
    with pytest.raises(MaskedStateError, match="ascending"):
        p.start_deck(0, range(N), (1, 0))
    assert p.phase is Phase.IDLE
    before = p.snapshot()
    result = p.start_deck(0, range(N), (0, 1))
    assert result.outgoing == ()  # seat 0 shuffles first
    assert p.phase is Phase.SHUFFLING
    with pytest.raises(MaskedStateError, match="shuffling"):
        p.assign(0, 0, 1)
    assert before["decks"] == []


def test_messages_out_of_turn_are_refused() -> None:
    table = MemoryTable(TAG, (0, 1, 2), 0, N)
    table.start_deck(0, range(N))
    deal(table, (1, 2, 0), 2)
    p = table.participants[1]
    before = p.snapshot()
    with pytest.raises(MaskedProtocolError, match="not for us"):
        # seat 2's key for a position dealt to seat 0 never comes to seat 1
        key = table.participants[2].snapshot()["decks"][0]["secrets"][2][2]
        p.receive(KeyRelease(0, 2, 0, 2, key))
    assert p.snapshot() == before
    with pytest.raises(MaskedStateError, match="already assigned"):
        p.assign(0, 0, 1)
    with pytest.raises(MaskedStateError, match="not a card we hold"):
        p.reveal(0, 1)


def test_journal_round_trips_in_every_phase() -> None:
    table = MemoryTable(TAG, (0, 1, 2), 0, N)

    def check() -> None:
        for p in table.participants.values():
            wire = msgpack.packb(p.snapshot(), use_bin_type=True)
            plain = msgpack.unpackb(wire, raw=False, strict_map_key=True)
            again = Participant.restore(plain, HashRandom(b"unused"))
            assert again.snapshot() == p.snapshot()
            assert again.phase is p.phase
            if p.report is not None:
                assert again.report == p.report

    check()
    table.start_deck(0, range(N))
    check()
    deal(table, (1, 2, 0), 2)
    table.assign(0, 7, 1)
    table.reveal(1, 0, 7)
    check()
    table.audit()
    check()
    with pytest.raises(ValueError, match="version"):
        Participant.restore({"v": 99}, HashRandom(b""))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n_participants=st.integers(1, 5),
    n_cards=st.integers(1, 16),
    seed=st.binary(min_size=1, max_size=6),
    draws=st.lists(st.one_of(st.none(), st.integers(0, 6)), max_size=16),
)
def test_any_small_honest_table_deals_the_audited_order(
    n_participants: int, n_cards: int, seed: bytes, draws: list[int | None]
) -> None:
    seats = tuple(range(0, 2 * n_participants, 2))  # odd seats are bots held by the host
    rand = {s: HashRandom(seed + bytes([s])) for s in seats}
    table = MemoryTable(TAG, seats, seats[0], n_cards, randomness=rand)
    table.start_deck(0, range(n_cards))
    assigned = list(zip(range(n_cards), draws, strict=False))
    for position, seat in assigned:
        table.assign(0, position, seat)
    table.audit()
    reports = [table.participants[s].report for s in seats]
    assert all(r is not None and r.fair for r in reports)
    order = reports[0].orders[0]  # type: ignore[union-attr]
    assert sorted(order) == list(range(n_cards))
    assert all(r.orders == {0: order} for r in reports)  # type: ignore[union-attr]
    for s in seats:
        for e in table.events[s]:
            if isinstance(e, CardReceived | CardPublic):
                assert order[e.position] == e.card_id
    for position, seat in assigned:  # who learnt each card: the seat (or its holder), or all
        knowers = {s for s in seats if table.participants[s].card_at(0, position) is not None}
        if seat is None:
            assert knowers == set(seats)
        else:
            assert knowers == {seat if seat in seats else seats[0]}
