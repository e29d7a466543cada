"""A seat's private-deal secrets survive a client crash (issue 29 item 1, private part).

The seat machine journals what it needs to go on with the masked round being played (its
participant's randomness, so its very secrets, and the reveals it chose) through its
``keep`` sink, the client writes it to ``seats/<table id>.keys`` (0600); a relaunched
client loads it and, on the host's resync, continues the round. Sans-I/O here (the seat
machine, the store, an in-process table); the real-process test is
tests/e2e/test_rejoin_private_crash.py.
"""

from __future__ import annotations

import logging
import stat
from pathlib import Path
from typing import Any

import msgpack
import pytest
from masked_table import Entropy, MaskedTable, WireClient, masked_round, unpack

from rami_lan.bots.debutant import Debutant
from rami_lan.core import events as E
from rami_lan.core.variants import get_variant
from rami_lan.net import protocol as P
from rami_lan.net.fairness import FairnessTracker, facts_from_welcome
from rami_lan.net.seats import SeatStore
from rami_lan.table.masked_seat import RELAUNCH_SEQ_BASE, MaskedSeatError
from rami_lan.table.seat_keys import SeatKeys, decode, encode
from rami_lan.table.seat_machine import SeatMachine
from rami_lan.wire.masked_table import decode_for_seat

HOST = 255
TAG = b"rami-lan/v1" + bytes(16) + (1).to_bytes(4, "big") + (1).to_bytes(4, "big")
TABLE = "ab" * 8
ROUND = {"k": "mk_round", "tag": TAG, "host": HOST, "participants": [0, 1, HOST], "n": 110}


def _keys(**kw: Any) -> SeatKeys:
    base: dict[str, Any] = dict(table_id=TABLE, seat=0, tag=TAG, host=HOST, participants=(0, 1, HOST),
                                tape=b"\x01" * 100, reveals=((0, 3), (1, 7)))
    return SeatKeys(**{**base, **kw})


def test_the_journal_round_trips_and_is_bound_to_its_table_and_seat() -> None:
    keys = _keys()
    assert decode(encode(keys), table_id=TABLE, seat=0) == keys
    with pytest.raises(ValueError, match="another table"):
        decode(encode(keys), table_id="cd" * 8, seat=0)
    with pytest.raises(ValueError, match="seat 0"):
        decode(encode(keys), table_id=TABLE, seat=1)


def _crafted() -> list[bytes]:
    good = msgpack.unpackb(encode(_keys()))
    out = [b"", b"\xc1", b"\x92\x01", b"x" * 300_000, msgpack.packb([1, 2]), msgpack.packb({"v": 2}),
           msgpack.packb({1: 2})]
    for field, bad in [("seat", "0"), ("seat", 300), ("tag", "t"), ("tag", b""), ("host", None),
                       ("participants", 5), ("participants", [0, 0]), ("participants", [1, HOST]),
                       ("tape", "x"), ("tape", b"x" * 200_000), ("reveals", [[1]]), ("reveals", 7),
                       ("reveals", [["a", 1]]), ("reveals", [[-1, 2]]), ("table", 12)]:
        out.append(msgpack.packb({**good, field: bad}, use_bin_type=True))
    return out


@pytest.mark.parametrize("raw", _crafted())
def test_a_crafted_keys_file_is_refused_with_a_value_error_only(raw: bytes) -> None:
    with pytest.raises(ValueError):
        decode(raw, table_id=TABLE, seat=0)


def test_the_seat_machine_ignores_a_bad_journal_with_a_log_line(caplog: pytest.LogCaptureFixture) -> None:
    sm = SeatMachine(0, get_variant("rami"), Entropy(b"s"), table_id=TABLE, sign=False)
    with caplog.at_level(logging.WARNING):
        assert sm.restore(b"\x00garbage") is False
        assert sm.restore(encode(_keys(table_id="cd" * 8))) is False
    assert sum("kept keys file is ignored" in r.getMessage() for r in caplog.records) == 2
    assert sm.restore(encode(_keys())) is True


def test_the_store_keeps_the_keys_0600_beside_the_seat_and_removes_them_with_it(tmp_path: Path) -> None:
    store = SeatStore(tmp_path / "seats")
    store.save_keys(TABLE, b"secret")
    path = tmp_path / "seats" / f"{TABLE}.keys"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and store.load_keys(TABLE) == b"secret"
    store.save_keys(TABLE, None)
    assert not path.exists() and store.load_keys(TABLE) is None
    store.save_keys(TABLE, b"secret")
    store.remove(TABLE)  # the seat is forgotten (match over, left, token refused): keys too
    assert not path.exists()
    path.write_bytes(b"x" * 300_000)
    assert store.load_keys(TABLE) is None  # too large: not even read whole


def test_a_relaunched_seat_makes_the_same_shuffle_step_from_its_journal() -> None:
    """Seat 0 shuffles first: its mask pass comes from its secrets. A new process (other
    entropy) restored from the journal makes the very same pass; without it, another."""
    kept: list[bytes | None] = []
    first = SeatMachine(0, get_variant("rami"), Entropy(b"first process"), table_id=TABLE,
                        keep=kept.append, sign=False)
    sent = first.receive(decode_for_seat(ROUND)).send
    assert [m["k"] for m in sent] == ["mk_mask"] and kept and kept[-1] is not None
    saves = len(kept)
    first.receive("a view")
    assert len(kept) == saves  # nothing of the secrets changed: no write
    again = SeatMachine(0, get_variant("rami"), Entropy(b"relaunched"), table_id=TABLE, sign=False)
    assert again.restore(kept[-1])
    resent = again.receive(decode_for_seat(ROUND)).send
    # the same step, numbered on from far above (the dead process's numbers are unknown)
    assert [{k: v for k, v in m.items() if k != "n"} for m in resent] == \
        [{k: v for k, v in m.items() if k != "n"} for m in sent]
    assert all(m["n"] >= RELAUNCH_SEQ_BASE > o.get("n", 0) for m, o in zip(resent, sent, strict=True))
    fresh = SeatMachine(0, get_variant("rami"), Entropy(b"relaunched"), table_id=TABLE, sign=False)
    assert fresh.receive(decode_for_seat(ROUND)).send != sent
    other = dict(ROUND, tag=TAG[:-1] + b"\x02")  # another round: fresh secrets, not the kept ones
    third = SeatMachine(0, get_variant("rami"), Entropy(b"relaunched"), table_id=TABLE, sign=False)
    assert third.restore(kept[-1]) and third.receive(decode_for_seat(other)).send != sent


class _Kept(WireClient):
    """A wire client whose seat machine keeps its journal (as `RemoteTableSession` does)."""

    store: dict[int, bytes | None] = {}

    def __init__(self, *a: Any, restore: bytes | None = None, relaunched: bool = False, **kw: Any) -> None:
        super().__init__(*a, **kw)
        self._restore = restore
        self.relaunched = relaunched

    def receive(self, wire: bytes) -> None:
        msg = unpack(wire)
        super().receive(wire)
        if isinstance(msg, P.Welcome) and self.sm is not None and self.sm.table_id == "":
            if self._restore is not None:  # a relaunched client knows it rejoins (as `join` does)
                self.tracker = FairnessTracker(facts_from_welcome(msg.table_id, msg.table, msg.seat,
                                                                  rejoin=True), self.t.evidence_dir)
            sm = SeatMachine(msg.seat, self.t.variant, self.entropy,
                             expect=self.tracker.verifier.expected_players,
                             table_id=msg.table_id.hex(),
                             keep=lambda data: _Kept.store.__setitem__(msg.seat, data),
                             relaunched=self._restore is not None or self.relaunched)
            if self._restore is not None:
                assert sm.restore(self._restore)
            self.sm, self.ms = sm, sm.masked


    def process(self, item: Any) -> None:
        try:
            super().process(item)
        except MaskedSeatError:  # as `RemoteTableSession` does: a bad view is logged, dropped
            pass


def _swap_in(t: MaskedTable) -> None:
    for conn, c in list(t.clients.items()):
        t.clients[conn] = _Kept(t, conn, c.nick, c.level, c.seed)


@pytest.mark.parametrize("keep", [True, False])
def test_a_client_crashed_mid_round_goes_on_with_the_round_from_its_journal(keep: bool) -> None:
    _Kept.store = {}
    t = MaskedTable(bots={3: "moyen"}, variant="rami", limit=None)
    _swap_in(t)
    t.start()
    conn = 2

    def mid_round() -> bool:
        c = t.clients.get(conn)
        return (c is not None and c.view is not None and c.view.turn_no >= 6 and not t.inbox
                and c.ms is not None and c.ms.complete() and bool(c.ms._revealed))

    t.run(until=mid_round)
    old = t.clients[conn]
    seat, tag = old.seat, old.ms.tag
    journal = _Kept.store[seat]
    assert journal is not None and decode(journal, table_id=old.sm.table_id, seat=seat).tag == tag
    t.drop(conn)  # kill -9: the process and its memory are gone
    new = _Kept(t, conn, old.nick, old.level, old.seed + 100, restore=journal if keep else None,
                 relaunched=True)
    new.entropy = Entropy(b"the relaunched process")
    new.token = old.token
    t.rejoin(new)
    if keep:
        # The cards it had revealed before the crash are revealed again (the same messages,
        # in its audit's "sent" list) as soon as the resync brings their keys in.
        before = set(decode(journal, table_id=old.sm.table_id, seat=seat).reveals)
        assert before
        t.run(until=lambda: not t.inbox and new.ms.complete())
        assert new.view is not None and new.view.round_no == old.view.round_no  # the same round
        assert before <= set(new.ms._revealed) and new.ms.tag == tag
        assert all(j in new.ms.p._decks[d].public for d, j in before)
        t.run()
    else:  # it stalls (the host waits for keys nobody has), or the round is lost
        t.run(max_steps=t.steps + 20_000, until=lambda: t.machine.over)
    stayed = t.clients[1]
    voids = [e for e in stayed.events + stayed.pending if isinstance(e, E.RoundVoided)]
    ended = [e for e in stayed.events + stayed.pending if isinstance(e, E.RoundEnded)]
    reports = t.machine.masked_reports
    if keep:
        assert not voids and ended and t.machine.over
        assert not new.ms.problems and not new.ms.faults, (new.ms.problems, new.ms.faults)
        assert tag in new.ms.reports and new.ms.reports[tag].fair  # the round went on, audited
        assert tag in stayed.ms.reports and stayed.ms.reports[tag].fair
        assert reports and all(r.fair for r in reports), reports
        assert _Kept.store[seat] is None or new.ms.tag != tag  # the next round's, or gone
    else:
        # Without its keys the relaunched seat can not go on: that round is lost.
        assert voids or not t.machine.over or tag not in stayed.ms.reports
        assert tag not in new.ms.reports


def test_a_host_resumed_and_a_client_relaunched_both_go_on_with_the_private_round(tmp_path: Path) -> None:
    """Issue 24 item 7 with issue 29: the host and one client die in the same round. The
    host resumes from its journal (its own participant's secrets from its journaled seed),
    the other clients come back (same processes), and the relaunched client comes back
    from its keys file: the round being played goes on, nothing void, every audit fair."""
    _Kept.store = {}
    t = MaskedTable(bots={3: "moyen"}, variant="rami", limit=None, journal=True, evidence_dir=tmp_path)
    _swap_in(t)
    t.start()
    conn = 2

    def mid_round() -> bool:
        c = t.clients.get(conn)
        return (c is not None and c.view is not None and c.view.turn_no >= 6 and not t.inbox
                and c.ms is not None and c.ms.complete() and bool(c.ms._revealed))

    t.run(until=mid_round)
    old = t.clients[conn]
    seat, tag, round_no = old.seat, old.ms.tag, old.view.round_no
    journal = _Kept.store[seat]
    assert journal is not None
    t.drop(conn)  # the client dies...
    t.crash_and_resume()  # ...and so does the host, which resumes from its journal
    assert masked_round(t.machine) is not None and t.machine.match.round_no == round_no
    new = _Kept(t, conn, old.nick, old.level, old.seed + 100, restore=journal)
    new.entropy = Entropy(b"the relaunched process")
    new.token = old.token
    t.rejoin(new)
    t.run()
    stayed = next(c for c in t.clients.values() if c is not new)
    evs = stayed.events + stayed.pending
    assert not [e for e in evs if isinstance(e, E.RoundVoided)] and t.machine.over
    assert new.ms.restored or new.ms.tag != tag
    assert tag in new.ms.reports and new.ms.reports[tag].fair
    assert tag in stayed.ms.reports and stayed.ms.reports[tag].fair
    assert all(r.fair for r in t.machine.masked_reports), [r.faults for r in t.machine.masked_reports]
    assert not new.ms.problems and not stayed.ms.problems


def test_a_reveal_journaled_but_never_sent_is_not_made_after_the_relaunch() -> None:
    """A crash between the journal's write and the reveal's sending: the card was never
    played. The relaunched seat reveals again only the cards the public game shows it
    played; that one stays hidden in its hand (the rules do not give it away)."""
    _Kept.store = {}
    t = MaskedTable(bots={3: "moyen"}, variant="rami", limit=None)
    _swap_in(t)
    t.start()
    conn = 2

    def mid_round() -> bool:
        c = t.clients.get(conn)
        return (c is not None and c.view is not None and c.view.turn_no >= 6 and not t.inbox
                and c.ms is not None and c.ms.complete() and bool(c.ms._revealed))

    t.run(until=mid_round)
    old = t.clients[conn]
    kept = decode(_Kept.store[old.seat], table_id=old.sm.table_id, seat=old.seat)
    held = sorted(old.ms._mine.values())[0]  # a card still in the hand
    journal = encode(SeatKeys(**{**{f: getattr(kept, f) for f in kept.__slots__},
                                 "reveals": (*kept.reveals, held)}))
    t.drop(conn)
    new = _Kept(t, conn, old.nick, old.level, old.seed + 100, restore=journal)
    new.token = old.token
    t.rejoin(new)
    t.run(until=lambda: not t.inbox and new.ms.complete())
    d, j = held
    assert j not in new.ms.p._decks[d].public and held in new.ms._mine.values()
    assert all(k in new.ms.p._decks[dd].public for dd, k in kept.reveals)
    assert held not in new.ms._revealed


def _at(moment: str, c: Any) -> bool:
    """The client ``c`` is at ``moment`` of a masked round (what a crash interrupts)."""
    from rami_lan.masked.session import Phase

    p = c.ms.p if c is not None and c.ms is not None else None
    if p is None:
        return False
    if moment == "shuffle":  # deck 0 half masked: our own step may be out, the deal not
        return p.phase is Phase.SHUFFLING and c.ms._n_decks == 1 and len(p._decks[0].masks) >= 2
    if moment == "dealt":  # the deal is out, a key of ours still on its way
        return p.phase is Phase.PLAYING and not c.ms.complete()
    if moment == "audit":  # the round is over, our audit out, the others' still coming
        return p.phase is Phase.AUDITING
    if moment.startswith("after"):  # the refills' piles were made public by reveals
        return p.phase is Phase.PLAYING and c.ms._n_decks > (2 if "two" in moment else 1) and c.ms.complete()
    # the next round's shuffle (the journal is the last round's until its mk_round)
    return c.view is not None and c.view.round_no >= 2 and p.phase is Phase.SHUFFLING


@pytest.mark.parametrize("moment", ["shuffle", "dealt", "audit", "next round", "after a refill",
                                    "after two refills"])
def test_a_client_crashed_at_any_moment_of_a_round_goes_on(moment: str,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    _Kept.store = {}
    if moment.startswith("after"):  # two slow players: the stock runs out
        # débutants that never lay off (their last cards cannot go out): refills come
        monkeypatch.setattr(Debutant, "lay_off_within", 0)
        t = MaskedTable(seats=2, variant="rami", limit=None, levels={0: "debutant", 1: "debutant"})
    else:
        t = MaskedTable(bots={3: "moyen"}, variant="rami", limit=None)
    _swap_in(t)
    t.start()
    conn = 2
    t.run(until=lambda: _at(moment, t.clients.get(conn)) and (not moment.startswith("after") or not t.inbox))
    old = t.clients[conn]
    assert _at(moment, old)
    tag = old.ms.tag
    t.drop(conn)
    new = _Kept(t, conn, old.nick, old.level, old.seed + 100, restore=_Kept.store[old.seat])
    new.entropy = Entropy(b"the relaunched process")
    new.token = old.token
    t.rejoin(new)
    t.run()
    stayed = t.clients[1]
    assert not [e for e in stayed.events + stayed.pending if isinstance(e, E.RoundVoided)]
    assert not new.ms.problems and not new.ms.faults, (new.ms.problems[:2], new.ms.faults[:2])
    assert tag in stayed.ms.reports and all(r.fair for r in t.machine.masked_reports)


def test_a_participant_says_which_cards_are_public_to_it() -> None:
    """`Participant.is_public` (what a relaunched seat's refill waits for)."""
    t = MaskedTable(bots={3: "moyen"}, variant="rami", limit=None)
    t.start()
    c = t.clients[1]
    t.run(until=lambda: c.ms is not None and c.ms.p is not None and c.ms.complete()
          and bool(c.ms._mine) and c.view is not None and c.view.turn_no >= 2)
    p = c.ms.p
    mine = next(iter(c.ms._mine))
    assert not p.is_public(mine)  # a card of our hand: ours alone
    public = [cid for d in p._decks for j, cid in d.cards.items() if j in d.public]
    assert public and all(p.is_public(cid) for cid in public)
