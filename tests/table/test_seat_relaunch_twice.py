"""A seat relaunched twice in the same private round (lan2 f): each relaunched process
numbers its masked messages from a range of its own (the journal counts the relaunches).
Before, every relaunch numbered from 2^24: the second relaunch's messages carried the
numbers the first one had already sent, and every receiver refused them as replayed."""

from __future__ import annotations

from typing import Any

import pytest
from masked_table import Entropy, MaskedTable
from test_seat_keys import ROUND, TABLE, _at, _Kept, _swap_in

from rami_lan.core import events as E
from rami_lan.core.variants import get_variant
from rami_lan.table.masked_seat import RELAUNCH_SEQ_BASE
from rami_lan.table.seat_keys import MAX_RELAUNCHES, SeatKeys, decode, encode
from rami_lan.table.seat_machine import SeatMachine
from rami_lan.wire.masked_table import decode_for_seat


def test_each_relaunch_numbers_from_a_range_of_its_own() -> None:
    kept: list[bytes | None] = []
    first = SeatMachine(0, get_variant("rami"), Entropy(b"first process"), table_id=TABLE,
                        keep=kept.append, sign=False)
    sent = first.receive(decode_for_seat(ROUND)).send
    assert decode(kept[-1], table_id=TABLE, seat=0).relaunches == 0
    numbers: list[list[int]] = [[m.get("n", 0) for m in sent]]
    journal = kept[-1]
    for k in (1, 2, 3):
        again: list[bytes | None] = []
        sm = SeatMachine(0, get_variant("rami"), Entropy(b"relaunch %d" % k), table_id=TABLE,
                         keep=again.append, sign=False)
        assert journal is not None and sm.restore(journal)
        resent = sm.receive(decode_for_seat(ROUND)).send
        assert resent, "the relaunched seat sends its step again"
        assert all(m["n"] >= k * RELAUNCH_SEQ_BASE for m in resent)
        # the count is kept before anything leaves (write-ahead): a crash right after the
        # send still makes the next relaunch take the next range
        assert again and decode(again[-1], table_id=TABLE, seat=0).relaunches == k
        assert min(m["n"] for m in resent) > max(max(ns) for ns in numbers)
        numbers.append([m["n"] for m in resent])
        journal = again[-1]


def test_the_relaunch_count_is_validated_and_optional_on_read() -> None:
    base: dict[str, Any] = dict(table_id=TABLE, seat=0, tag=ROUND["tag"], host=ROUND["host"],
                                participants=(0, 1, ROUND["host"]), tape=b"\x01" * 10)
    for bad in (-1, MAX_RELAUNCHES + 1, 1.5, "2", True):
        with pytest.raises(ValueError):
            SeatKeys(**base, relaunches=bad)
    keys = SeatKeys(**base, relaunches=7)
    assert decode(encode(keys), table_id=TABLE, seat=0) == keys
    import msgpack

    older = msgpack.unpackb(encode(SeatKeys(**base)), raw=False)
    del older["relaunches"]  # a journal written before the count existed
    assert decode(msgpack.packb(older, use_bin_type=True), table_id=TABLE, seat=0).relaunches == 0


def test_a_client_crashed_twice_in_one_round_goes_on() -> None:
    """The same client is killed mid-round, relaunched from its journal, plays on, and is
    killed again in the same round and relaunched again: the round is played to its end,
    nothing is refused, every audit is fair. (A regression guard: here the second
    relaunch re-sends the first one's messages in the same order, so the numbers happened
    to line up even with one shared range; the unit test above is the one that fails
    without a range of its own per relaunch.)"""
    _Kept.store = {}
    t = MaskedTable(bots={3: "moyen"}, variant="rami", limit=None)
    _swap_in(t)
    t.start()
    conn = 2
    t.run(until=lambda: _at("dealt", t.clients.get(conn)))
    old = t.clients[conn]
    tag, seat = old.ms.tag, old.seat
    for k in (1, 2):
        t.drop(conn)  # kill -9
        new = _Kept(t, conn, old.nick, old.level, old.seed + 100 * k, restore=_Kept.store[seat])
        new.entropy = Entropy(b"relaunched process %d" % k)
        new.token = old.token
        t.rejoin(new)
        conn = new.conn
        # play on until this process has sent masked messages of the round
        t.run(until=lambda n=new: n.ms is not None and n.ms.tag == tag and n.ms.p is not None
              and bool(n.ms.p._next_n) and not t.inbox)
        assert new.ms.tag == tag and new.ms.restored
        old = new
    t.run()
    stayed = t.clients[1]
    assert not [e for e in stayed.events + stayed.pending if isinstance(e, E.RoundVoided)]
    assert not old.ms.problems and not old.ms.faults, (old.ms.problems[:2], old.ms.faults[:2])
    assert not stayed.ms.problems and not stayed.ms.faults, (stayed.ms.problems[:2], stayed.ms.faults[:2])
    assert tag in stayed.ms.reports and stayed.ms.reports[tag].fair
    assert all(r.fair for r in t.machine.masked_reports)
