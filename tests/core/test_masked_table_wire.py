"""The host-to-seat masked table messages (`rami_lan.wire.masked_table`): each kind's wire
form goes through ``from_plain`` unchanged, a wrong shape is refused saying what was
wrong, and the seat's edge (`decode_for_seat`) never raises on any map."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rami_lan.masked.messages import KeyRelease
from rami_lan.masked.signing import Receipt
from rami_lan.wire import masked_table as MT

TAG = b"rami-lan/v1" + bytes(24)

SAMPLES: list[Any] = [
    MT.MkRound(TAG, 255, (0, 1, 255), 110, b"r" * 8, {"hkey": b"k" * 32, "keys": [{"seat": 0}]}),
    MT.MkRound(TAG, 255, (0, 1, 255), 110),
    MT.MkDeal(0, (1, 0, 255, None)),
    MT.MkHand(((0, 3), None, (1, 7))),
    MT.MkShow(({"type": "Discarded", "seat": 1},), "out", 1),
    MT.MkShow((), "", None),
    MT.MkSync(({"type": "RoundStarted"},)),
    MT.MkTimeout(12),
    MT.MkClose(),
    MT.MkOwn(TAG),
    MT.MkOrders(TAG, ((0, (2, 0, 1)), (1, (5,))), ((1, 1), (2, None)), ("BAD_KEY by seat 2: x",)),
]


@pytest.mark.parametrize("msg", SAMPLES, ids=lambda m: type(m).__name__)
def test_each_kind_goes_through_its_wire_form_unchanged(msg: Any) -> None:
    wire = msgpack.unpackb(msgpack.packb(msg.to_plain(), use_bin_type=True), raw=False)
    assert wire["k"] == msg.KIND
    assert MT.parse_table_message(wire) == msg
    assert MT.decode_for_seat(wire) == msg


@pytest.mark.parametrize(("plain", "says"), [
    ({"k": "mk_round", "tag": TAG, "host": 255, "participants": [0, 255]}, "missing ['n']"),
    ({"k": "mk_round", "tag": "x", "host": 255, "participants": [0, 255], "n": 110}, "tag"),
    ({"k": "mk_round", "tag": TAG, "host": 256, "participants": [0, 255], "n": 110}, "host"),
    ({"k": "mk_round", "tag": TAG, "host": 255, "participants": [0, True], "n": 110}, "participant"),
    ({"k": "mk_deal", "deck": 0, "seats": [0], "extra": 1}, "unexpected ['extra']"),
    ({"k": "mk_deal", "deck": -1, "seats": []}, "deck"),
    ({"k": "mk_hand", "pos": [[0]]}, "position"),
    ({"k": "mk_hand", "pos": [[0, 1 << 16]]}, "index"),
    ({"k": "mk_show"}, "missing"),
    ({"k": "mk_show", "events": [1], "reason": "", "winner": None}, "events"),
    ({"k": "mk_show", "events": [], "reason": "x" * 33, "winner": None}, "reason"),
    ({"k": "mk_sync", "events": "x"}, "events"),
    ({"k": "mk_timeout", "turn": "1"}, "turn"),
    ({"k": "mk_close", "x": 1}, "unexpected"),
    ({"k": "mk_own", "tag": b""}, "tag"),
    ({"k": "mk_orders", "tag": TAG, "orders": [[0]], "gens": [], "faults": []}, "pair"),
    ({"k": "mk_orders", "tag": TAG, "orders": [], "gens": [[0, 64]], "faults": []}, "deck"),
    ({"k": "mk_orders", "tag": TAG, "orders": [], "gens": [], "faults": [3]}, "faults"),
    ({"k": "mk_nothing"}, "not a table message"),
    ("mk_round", "not a table message"),
])
def test_a_wrong_shape_is_refused_saying_what_was_wrong(plain: Any, says: str) -> None:
    with pytest.raises(MT.TableMessageError, match=f".*{says[:12]}".replace("[", r"\[")):
        MT.parse_table_message(plain)
    got = MT.decode_for_seat(plain)
    if isinstance(plain, dict) and plain.get("k") != "mk_nothing":
        assert isinstance(got, MT.Unparsed) and got.plain is plain and got.reason
        assert MT.kind_of(got) == plain["k"] and MT.plain_of(got) is plain


def test_the_seat_edge_also_types_the_masked_decks_own_messages() -> None:
    key = KeyRelease(seat=1, deck=0, position=3, to=2, key=(7).to_bytes(32, "little"), n=4, tag=TAG)
    assert MT.decode_for_seat(key.to_plain()) == key
    receipt = {"k": Receipt.KIND, "seat": 255}  # no receipt: refused, kept as evidence
    got = MT.decode_for_seat(receipt)
    assert isinstance(got, MT.Unparsed) and got.kind == Receipt.KIND


_leaf = st.one_of(st.none(), st.booleans(), st.integers(-3, 70000), st.binary(max_size=40),
                  st.text(max_size=5))
_value = st.recursive(_leaf, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=3), inner, max_size=3), max_leaves=12)


@settings(max_examples=400, deadline=None)
@given(kind=st.sampled_from(sorted(MT._TABLE) + ["mk_key", "mk_receipt", "mk_?"]),
       fields=st.dictionaries(st.sampled_from(["tag", "host", "participants", "n", "rid", "deck", "seats",
                                               "pos", "events", "reason", "winner", "turn", "orders",
                                               "gens", "faults", "keys", "hkey"]), _value, max_size=6))
def test_any_map_is_typed_or_unparsed_never_a_crash(kind: str, fields: dict[str, Any]) -> None:
    plain = {"k": kind, **fields}
    got = MT.decode_for_seat(plain)
    if isinstance(got, MT.Unparsed):
        assert got.kind == kind and got.reason
    else:
        assert got.KIND == kind
