"""The table layer's typed messages: a `TableNotice` is today's wire map, key for key and
in order (the msgpack bytes stay the same), and `effects.wire_message` encodes ``view`` /
``events`` once per batch and hands every other message through as it is."""

from __future__ import annotations

import msgpack

from rami_lan.core.events import RoundVoided
from rami_lan.net import protocol as P
from rami_lan.table import effects as F

PLAYERS = [{"seat": 0, "nick": "Kit", "kind": "human", "connected": True, "left": False}]


def test_a_players_notice_is_the_old_map() -> None:
    plain = F.TableNotice(PLAYERS).to_plain()
    assert list(plain.items()) == [("type", "TableNotice"), ("players", PLAYERS)]


def test_a_coded_notice_keeps_its_keys_in_order() -> None:
    plain = F.TableNotice(PLAYERS, "seat 2 left", "seat_left", {"seat": 1}).to_plain()
    assert list(plain) == ["type", "players", "text", "code", "data"]
    assert plain["data"] == {"seat": 1} and plain["text"] == "seat 2 left"
    old = {"type": "TableNotice", "players": PLAYERS, "text": "seat 2 left",
           "code": "seat_left", "data": {"seat": 1}}
    assert msgpack.packb(plain) == msgpack.packb(old)


def test_events_are_encoded_once_per_batch_and_notices_as_maps() -> None:
    ev = RoundVoided(3, None, "host_restarted")
    note = F.TableNotice(PLAYERS, "hello")
    cache: dict[int, object] = {}
    a = F.wire_message(F.EventsMsg(seq=7, events=(ev, note)), "rami", cache)
    b = F.wire_message(F.EventsMsg(seq=7, events=(ev,)), "rami", cache)
    assert isinstance(a, P.Events) and a.seq == 7 and a.events[1] == note.to_plain()
    assert len(cache) == 1 and a.events[0] is b.events[0]
    assert P.Message.from_wire(a.to_wire()) == a  # it goes on the wire as it is


def test_a_wire_message_goes_through_unchanged() -> None:
    msg = P.ChatMsg(seat=0, text="bonjour")
    assert F.wire_message(msg, "rami") is msg


def test_a_card_that_does_not_decode_is_refused_at_the_machine_as_before() -> None:
    from rami_lan.net.host import _player_card
    from rami_lan.table.config import TableConfig
    from rami_lan.table.machine import TableMachine

    assert _player_card("not a card") is None  # the host's decoding at the edge
    config = TableConfig(name="x", seats=3, headless=True, advertise=False)
    machine = TableMachine(config, lambda n: bytes(n))
    machine.joined(1, 0.0, nick="a")
    machine.joined(2, 0.0, nick="robot", bot=True)
    out = machine.card(1, None, 0.0)
    errors = [e.msg for e in out if isinstance(e, F.Send) and isinstance(e.msg, P.Error)]
    assert [(m.code, m.message) for m in errors] == [("bad_card", "the player card does not decode")]
    assert not [e for e in machine.card(2, None, 0.0) if isinstance(e, F.Send)]  # a bot: no answer

def test_a_received_notice_is_read_back_as_a_table_notice_and_a_wrong_field_is_left_out() -> None:
    note = F.TableNotice(PLAYERS, "seat 2 left", "seat_left", {"seat": 1})
    assert F.TableNotice.from_plain(note.to_plain()) == note
    assert F.TableNotice.from_plain(F.TableNotice(PLAYERS).to_plain()) == F.TableNotice(PLAYERS)
    odd = {"type": "TableNotice", "players": [PLAYERS[0], 3], "text": 5, "code": ["x"], "data": "y"}
    assert F.TableNotice.from_plain(odd) == F.TableNotice(PLAYERS)
    assert F.TableNotice.from_plain({"type": "TableNotice"}).players is None
