"""The client seat's private-dealing decisions, without sockets or an event loop.

`SeatMachine` (rami_lan.table.seat_machine) is what `RemoteTableSession` and the wire
clients of `tests/masked_table.py` run: every private-deal test drives it. These tests
drive it directly: the hold queue and the order of what it reports, a refused host
message reported once, the timed-out automatic move (once per view, never while a card
is on its way), and leaving mid-round with its deadline.
"""

from __future__ import annotations

from typing import Any

from masked_table import Entropy, MaskedTable

from rami_lan.core import actions as A
from rami_lan.core.variants import get_variant
from rami_lan.table.seat_machine import SeatMachine, SeatStep
from rami_lan.wire.masked_table import decode_for_seat

HOST = 255
TAG = b"rami-lan/v1" + bytes(16) + (1).to_bytes(4, "big") + (1).to_bytes(4, "big")


def _machine() -> SeatMachine:
    return SeatMachine(1, get_variant("rami"), Entropy(b"seat machine"),
                       expect=lambda: (0, 1, 2), sign=False)  # (hand-made, unsigned rounds)


def _round(sm: SeatMachine) -> SeatStep:
    return sm.receive(decode_for_seat(
        {"k": "mk_round", "tag": TAG, "host": HOST, "participants": [0, 1, HOST], "n": 110}))


def test_a_round_begins_and_is_told_once_and_other_messages_go_on_in_order() -> None:
    sm = _machine()
    step = _round(sm)
    assert step.rounds == [TAG] and step.send == [] and not step.refusals
    assert sm.receive("a view").ready == ["a view"]  # nothing of ours on its way: at once
    again = sm.receive(decode_for_seat(
        {"k": "mk_round", "tag": TAG, "host": HOST, "participants": [0, 1, HOST], "n": 110}))
    assert not again  # the same message again (a reconnect): nothing new


def test_a_refused_host_message_is_reported_once_and_gives_nothing() -> None:
    sm = _machine()
    _round(sm)
    step = sm.receive(decode_for_seat({"k": "mk_show"}))
    assert step.send == [] and [r.kind for r in step.refusals] == ["mk_show"]
    assert step.refusals[0].tag == TAG and step.refusals[0].evidence == {"k": "mk_show"}
    assert not sm.receive("a view").refusals  # told once
    layout = [(1, 2, HOST, 0)[k % 4] for k in range(4 * 13)] + [None]  # the host deals itself in
    step = sm.receive(decode_for_seat({"k": "mk_deal", "deck": 0, "seats": layout}))
    assert step.send == [] and "round's players" in step.refusals[0].reason


def _mid_round() -> tuple[MaskedTable, Any]:
    t = MaskedTable(bots={3: "moyen"}, variant="rami", limit=None)
    t.start()

    def draw_turn() -> bool:
        c = t.clients[1]
        v = c.view
        return (not t.inbox and v is not None and v.my_turn and v.phase == "draw" and v.turn_no >= 4
                and c.ms.complete())

    t.run(until=draw_turn)
    return t, t.clients[1]


def test_the_timed_out_move_is_the_rules_one_once_per_view() -> None:
    t, c = _mid_round()
    sm, view = c.sm, c.view
    assert sm.timeout_move(view, None) is None  # no mk_timeout: the player plays
    sm.receive(decode_for_seat({"k": "mk_timeout", "turn": view.turn_no - 1}))
    assert sm.timeout_move(view, None) is None  # another turn's timer
    sm.receive(decode_for_seat({"k": "mk_timeout", "turn": view.turn_no}))
    action = sm.timeout_move(view, None)
    assert isinstance(action, A.DrawStock) and action.seat == c.seat
    assert sm.timeout_move(view, None) is None  # once per view


def test_leaving_waits_for_a_card_on_its_way_until_its_deadline() -> None:
    t, c = _mid_round()
    sm = c.sm
    real = sm.masked.hand_over
    sm.masked.hand_over = lambda: None  # type: ignore[method-assign]  # a card of ours on its way
    assert sm.leave(100.0, wait=3.0) is None
    assert sm.tick(102.0) is None
    assert sm.tick(103.5) == []  # gave up: the table waits for us, then voids the round
    sm.masked.hand_over = real  # type: ignore[method-assign]
    outs = sm.leave(200.0)
    assert outs and {m["k"] for m in outs} == {"mk_give", "mk_handover"}
    assert sm.tick(201.0) == []  # nothing more to do


def test_audited_orders_wait_for_the_messages_held_before_them() -> None:
    """A round's orders go to the verifier only once every host message before them went
    on: the verifier must see the round's end first."""
    t, c = _mid_round()
    t.run(until=lambda: bool(c.ms.reports))
    sm = c.sm
    # Everything told already (the harness reports each step as it comes).
    assert not sm._progress(SeatStep()).orders
    tag = next(iter(c.ms.reports))
    sm._orders_given.discard(tag)
    c.ms.hold("a held message")
    assert not sm._progress(SeatStep()).orders  # held: not yet
    step = sm.receive("next")
    assert step.ready == ["a held message", "next"] and [o.tag for o in step.orders] == [tag]
    assert not sm._progress(SeatStep()).orders  # told once
