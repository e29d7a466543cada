"""Masked deck: every message a participant sends is bound to its round and numbered
(issue 24, item 5: "every masked message and audit is bound to the round tag and a
sequence number").

- every message sent carries the round tag and its author's sequence number, one count
  per channel (everyone, or the one recipient), increasing in the order sent;
- a message of another round (a late reveal, a late key) is refused as such: never
  taken as this round's, so never a ``BAD_REVEAL``/``WRONG_KEY`` that frames its author;
- a replayed message (its number not above the last taken from its author on its
  channel) is refused as late or replayed;
- forms without the stamp (an older client, a record written before it) parse exactly
  as before; a malformed stamp is refused; a participant's journal keeps its counts.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

import msgpack
import pytest

from rami_lan.masked.memory import MemoryTable, deal
from rami_lan.masked.messages import CardReveal, HandGift, KeyRelease, MaskPass, MessageError, from_plain
from rami_lan.masked.session import MaskedProtocolError, Participant


def _tag(n: int) -> bytes:
    return b"rami-lan/v1" + bytes(16) + (1).to_bytes(4, "big") + n.to_bytes(4, "big")


def _table(round_no: int) -> MemoryTable:
    t = MemoryTable(_tag(round_no), (0, 1, 2), 0, 12)
    t.start_deck(0, range(12))
    deal(t, (1, 2, 0), 2)
    return t


def _held(t: MemoryTable, seat: int) -> int:
    """A position of deck 0 that ``seat`` holds (its card known to it)."""
    return min(j for (d, j), s in _holders(t).items() if s == seat and d == 0)


def _holders(t: MemoryTable) -> dict[tuple[int, int], int]:
    p = t.participants[0]
    return {(0, j): s for j, s in p._decks[0].assigned.items() if s is not None}


def test_every_message_sent_carries_the_round_tag_and_a_growing_number_per_channel() -> None:
    t = _table(1)
    t.reveal(1, 0, _held(t, 1))
    t.audit()
    seen: dict[tuple[int, int], list[int]] = defaultdict(list)
    sent = [(sender, data) for sender, s in t.seen_by.items() for data in s]
    assert sent
    for sender, data in (t.relay_log and [(s, d) for s, _to, _tg, d in t.relay_log]):
        msg = from_plain(msgpack.unpackb(data, raw=False, strict_map_key=True))
        assert msg.seat == sender and msg.tag == _tag(1) and msg.n is not None, msg.KIND
        channel = msg.to if isinstance(msg, KeyRelease) and msg.to is not None else (
            0 if isinstance(msg, HandGift) else -1)
        seen[(sender, channel)].append(msg.n)
    for numbers in seen.values():
        distinct = list(dict.fromkeys(numbers))  # a broadcast is relayed once per recipient
        assert distinct == sorted(distinct) and len(set(distinct)) == len(distinct), numbers
    assert {s for s, _c in seen} == {0, 1, 2}
    assert not t.errors, t.errors


def test_a_reveal_of_another_round_is_refused_and_frames_nobody() -> None:
    """Seat 1's reveal from round 1 delivered late into round 2: refused as another
    round's. Unstamped, it was checked against round 2's commitments and named seat 1
    (``BAD_REVEAL``), an honest seat."""
    old, new = _table(1), _table(2)
    late = old.participants[1].reveal(0, _held(old, 1)).outgoing[0].message
    assert isinstance(late, CardReveal) and late.tag == _tag(1)
    receiver = new.participants[2]
    with pytest.raises(MaskedProtocolError, match="another round"):
        receiver.receive(late)
    assert not receiver.faults


def test_a_key_of_another_round_is_refused_by_the_relay_before_it_goes_on() -> None:
    old, new = _table(1), _table(2)
    holders = _holders(old)
    j = min(j for (_d, j), s in holders.items() if s == 2)
    p1 = old.participants[1]
    key = KeyRelease(0, 1, 2, j, p1._decks[0].secrets.position_keys[j], _tag(1), 0)
    with pytest.raises(MaskedProtocolError, match="another round"):
        new.participants[0].check_relayed_key(key)


def test_a_replayed_message_is_refused_as_late_or_replayed() -> None:
    t = _table(1)
    first = next(from_plain(msgpack.unpackb(d, raw=False, strict_map_key=True))
                 for s, _to, target, d in t.relay_log if s == 1 and target == 2)
    assert first.n == 0
    with pytest.raises(MaskedProtocolError, match="late or replayed"):
        t.participants[2].receive(first)


def test_forms_without_the_stamp_parse_as_before_and_a_bad_stamp_is_refused() -> None:
    t = _table(1)
    mask = next(m for _s, _to, _tg, d in t.relay_log
                if isinstance(m := from_plain(msgpack.unpackb(d, raw=False, strict_map_key=True)), MaskPass))
    bare = replace(mask, tag=b"", n=None)
    plain = bare.to_plain()
    assert set(plain) == {"k", "deck", "seat", "points"}
    assert from_plain(plain) == bare
    stamped = replace(mask, n=7).to_plain()
    assert stamped["tag"] == _tag(1) and stamped["n"] == 7 and from_plain(stamped).n == 7
    for bad in ({"n": -1}, {"n": True}, {"n": 2**32}, {"tag": b""}, {"tag": "x"}, {"extra": 1}):
        with pytest.raises(MessageError):
            from_plain({**plain, **bad})


def test_the_journal_keeps_the_numbers() -> None:
    t = _table(1)
    p = t.participants[1]
    snap = msgpack.unpackb(msgpack.packb(p.snapshot(), use_bin_type=True), raw=False, strict_map_key=True)
    again = Participant.restore(snap, p._randomness)
    assert again._next_n == p._next_n and again._last_n == p._last_n and p._next_n
    mine = again.reveal(0, _held(t, 1)).outgoing[0].message
    assert mine.n == p._next_n[-1]
