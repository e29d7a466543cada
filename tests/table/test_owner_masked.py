"""The host's own player's side of private dealing: ``mk_own`` and ``mk_orders``.

The host's own seat holds no keys (they are the host participant's), so its client only
learns that a round is masked and, after the audit, the audited orders. Whatever the
host sends there, the client takes a well-formed message and refuses anything else with
one of the errors its session catches, never another exception.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rami_lan.net.client import _owner_masked
from rami_lan.table.verifier import MaskedOrders
from rami_lan.wire.masked_table import decode_for_seat

N = 110
TAG = b"rami-lan/v1" + bytes(24)


def _owner(plain: object) -> bytes | MaskedOrders:
    """As the client takes it: decoded at the edge, then read as the host's own seat."""
    return _owner_masked(decode_for_seat(plain), N)


def _orders() -> dict[str, Any]:
    return {"k": "mk_orders", "tag": TAG, "orders": [[0, list(range(N))], [1, [3, 2, 1]]],
            "gens": [[1, 1], [2, None]], "faults": ["BAD_KEY by seat 2: \x1b[31mred"]}


def test_a_well_formed_round_and_its_orders_are_taken() -> None:
    assert _owner({"k": "mk_own", "tag": TAG}) == TAG
    got = _owner(_orders())
    assert isinstance(got, MaskedOrders)
    assert got.tag == TAG and got.orders[0] == tuple(range(N)) and got.orders[1] == (3, 2, 1)
    assert got.gen_decks == {1: 1, 2: None}
    assert got.faults and "\x1b" not in got.faults[0]  # foreign text made safe for a terminal


@pytest.mark.parametrize("change", [
    {"tag": "not bytes"}, {"tag": b""}, {"orders": [[0, [N]]]}, {"orders": [[0, [-1]]]},
    {"orders": [[0, [True]]]}, {"orders": [[99, [1]]]}, {"orders": [[0]]}, {"orders": "x"},
    {"gens": [[1, "x"]]}, {"gens": [[-1, 0]]}, {"faults": [3]}, {"faults": "x"},
    {"k": "mk_deal"},
])
def test_a_malformed_message_is_refused_with_a_caught_error(change: dict[str, Any]) -> None:
    with pytest.raises((ValueError, TypeError, KeyError)):
        _owner(_orders() | change)


def test_a_missing_field_is_refused() -> None:
    for field in ("tag", "orders", "gens", "faults"):
        plain = _orders()
        del plain[field]
        with pytest.raises(ValueError, match=f"missing \\['{field}'\\]"):
            _owner(plain)


_leaf = st.one_of(st.none(), st.booleans(), st.integers(-3, 200), st.binary(max_size=40), st.text(max_size=5))
_value = st.recursive(_leaf, lambda inner: st.lists(inner, max_size=4), max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(kind=st.sampled_from(["mk_own", "mk_orders"]), tag=_value, orders=_value, gens=_value, faults=_value)
def test_any_shape_is_taken_or_refused_never_a_crash(kind: str, tag: Any, orders: Any, gens: Any,
                                                    faults: Any) -> None:
    plain = {"k": kind, "tag": tag, "orders": orders, "gens": gens, "faults": faults}
    try:
        _owner(plain)
    except (ValueError, TypeError, KeyError):
        pass
