"""Blame that can not be framed: signed masked messages and the host's signed receipts.

Each test has one party cheat in exactly one way (`tests/masked_table.py` runs a
headless host, one bot seat and three wire clients; a cheater signs its own cheat, as a
real one would), and checks that the honest side names the right party:

* a host that **forges one seat's message** (it alters a seat's relayed reveal): the
  receiving seat refuses it naming the host, never the seat whose name it bears (before
  signatures: ``BAD_REVEAL by seat 1``, an honest seat framed);
* a host that **frames a seat with a forged void** (it voids the round naming a seat that
  owed nothing): every seat names the host (before: each took the void against that
  seat, "did not answer in time");
* a seat that **claims it sent what it did not**, with a receipt it made up or took from
  another message: the host names it (``FALSE_CLAIM``) and no honest seat blames the host;
* a host that **drops one message**: `tests/test_private_deal.py`
  (``test_a_host_that_drops_a_reveal_is_named_by_its_own_receipt``);
* a message whose signature does not verify: refused at the host naming its sender, at a
  seat naming the relay; a roster that lies about a seat's key, or a round without one.
"""

from __future__ import annotations

from typing import Any

import pytest
from masked_table import MaskedTable, WireClient

from rami_lan.core import events as E
from rami_lan.core.variants import get_variant
from rami_lan.masked.audit import FaultKind
from rami_lan.masked.group import HashRandom
from rami_lan.masked.messages import KeyRelease, MaskPass
from rami_lan.masked.session import MaskedProtocolError, Participant
from rami_lan.masked.signing import Receipt, Roster, SeatKey, Signing, check_announcement
from rami_lan.table import TableMachine
from rami_lan.table.dealing import MaskedDealing, step_wait
from rami_lan.table.dealing.masked_live import owed_now
from rami_lan.table.masked_host import MaskedRound
from rami_lan.table.masked_seat import MaskedSeat, MaskedSeatError
from rami_lan.table.receipts import HostKeys
from rami_lan.wire.masked_table import decode_for_seat

HOST = 255
TAG = b"rami-lan/v1" + bytes(16) + (1).to_bytes(4, "big") + (1).to_bytes(4, "big")


def _statuses(c: WireClient) -> list[tuple[int, str, str]]:
    return [(r.round_no, r.status, r.reason) for r in c.tracker.rounds()]


def _named(c: WireClient) -> set[int]:
    """Seats a client's faults name (a missing audit is no fault: it is only missing)."""
    faults = [*(f for rep in c.ms.reports.values() for f in rep.faults), *c.ms.faults]
    return {f.seat for f in faults if f.seat is not None and f.kind is not FaultKind.MISSING_AUDIT}


# ---------------------------------------------------------------------- a forged message


class _Forging(MaskedDealing):
    def send(self, seat: int, plain: dict[str, Any]) -> None:
        host = self.t
        assert isinstance(host, ForgingHost)
        if seat == 2 and plain.get("k") == "mk_reveal" and plain.get("seat") == 1 and not host.forged:
            host.forged += 1
            keys = [list(k) for k in plain["keys"]]
            s, key = next((s, k) for s, k in keys if s not in (1, 2))
            keys = [[x, bytes([key[0] ^ 1]) + key[1:] if x == s else k] for x, k in keys]
            plain = dict(plain, keys=keys)
        super().send(seat, plain)


class ForgingHost(TableMachine):
    """Alters the first card reveal of seat 1 it relays to seat 2 (one key's byte)."""

    forged = 0
    masked_dealing = _Forging


def test_a_host_that_forges_one_seats_message_is_named_not_that_seat(tmp_path: Any) -> None:
    t = MaskedTable(bots={3: "moyen"}, variant="rami", limit=1, machine_cls=ForgingHost,
                    evidence_dir=tmp_path)
    t.start()
    t.run(max_steps=60_000, until=lambda: t.machine.over)
    assert t.machine.forged == 1  # type: ignore[attr-defined]
    victim = next(c for c in t.clients.values() if c.seat == 2)
    # Seat 1's name is on it, but not its signature: the relay forged it.
    assert any(p.kind == "mk_reveal" and "forged or altered" in p.reason for p in victim.ms.problems), \
        victim.ms.problems
    assert 1 not in _named(victim), victim.ms.faults
    assert any(s == "failed" for _n, s, _r in _statuses(victim))
    for c in t.clients.values():
        assert 1 not in _named(c)


# ---------------------------------------------------------------------- a forged void


def _quiet_moment(t: MaskedTable, seat: int) -> None:
    """Mid-round, every message delivered, ``seat`` not in turn and owing nothing."""
    def there() -> bool:
        m = t.machine
        r = m.match.round
        return (not t.inbox and r is not None and m.match.phase in ("draw", "play") and r.turn_no >= 5
                and r.turn != seat and all(c.ms.complete() for c in t.clients.values())
                and not owed_now(m.dealing))

    t.run(until=there)
    assert there()


def test_a_host_that_frames_a_seat_with_a_forged_void_is_named_by_every_seat(tmp_path: Any) -> None:
    t = MaskedTable(bots={3: "moyen"}, variant="rami", limit=1, evidence_dir=tmp_path)
    t.start()
    framed = 1
    _quiet_moment(t, framed)
    m = t.machine
    m.dealing.void(framed, t.now)  # the lie: seat 1 is said not to have answered
    t.feed(m._flush(t.now))
    t.run(max_steps=t.steps + 40_000, until=lambda: m.over)
    voids = [e for c in t.clients.values() for e in c.pending + c.events if isinstance(e, E.RoundVoided)]
    assert voids and all(e.seat == framed for e in voids)
    for c in t.clients.values():
        refusals = [p for p in c.ms.problems if p.kind == "events"]
        assert refusals, (c.seat, c.ms.problems)
        [r] = [r for r in c.tracker.rounds() if r.round_no == 1]
        assert r.status == "failed" and "host" in r.reason, (c.seat, r)
        assert framed not in _named(c)


def test_a_void_for_a_seat_that_did_owe_a_key_stands(tmp_path: Any) -> None:
    """The positive control: seat 1 withholds one key to another seat (it did not answer),
    the host voids the round naming it: nobody names the host."""

    class Withholder(WireClient):
        held = 0

        def send(self, kind: str, own_secret: bytes | None = None, core_action: Any = None,
                 **f: Any) -> None:
            m = f.get("m") or {}
            if kind == "masked" and m.get("k") == "mk_key" and m.get("to") not in (None, HOST) \
                    and self.t.machine.match.round is not None and self.t.machine.match.round.turn_no >= 4:
                self.held += 1
                return
            super().send(kind, own_secret, core_action, **f)

    t = MaskedTable(bots={3: "moyen"}, variant="rami", limit=1, evidence_dir=tmp_path)
    g = t.clients[2]
    t.clients[2] = Withholder(t, 2, g.nick, g.level, g.seed)
    t.start()
    t.run(max_steps=80_000, until=lambda: t.machine.over)
    w = t.clients[2]
    assert w.held  # type: ignore[attr-defined]
    voids = [e for c in t.clients.values() for e in c.pending + c.events if isinstance(e, E.RoundVoided)]
    assert voids and {e.seat for e in voids} == {w.seat}
    for c in t.clients.values():
        if c is not w:
            assert not [p for p in c.ms.problems if p.kind == "events"], c.ms.problems
            assert all(s != "failed" for _n, s, _r in _statuses(c)), _statuses(c)


# ---------------------------------------------------------------------- a lying seat


class LyingWithReceipt(WireClient):
    """Its audit claims a key for another seat it never sent, with a receipt of the host's
    for another of its messages, relabeled (``relabel``) or as it is."""

    relabel = True

    def send(self, kind: str, own_secret: bytes | None = None, core_action: Any = None, **f: Any) -> None:
        m = f.get("m") or {}
        if kind == "masked" and m.get("k") == "mk_audit" and m.get("rcpt"):
            other = next(s for s in (0, 1, 2) if s != self.seat)
            fake = dict(m["rcpt"][0])
            if self.relabel:
                fake.update(kind="mk_key", deck=0, pos=70, to=other, relayed=[other])
            f = dict(f, m=dict(m, sent=[*m["sent"], ["mk_key", 0, 70, other]], rcpt=[*m["rcpt"], fake]))
        super().send(kind, own_secret, core_action, **f)


class NoticingMachine(TableMachine):
    def __init__(self, *a: Any, **k: Any) -> None:
        super().__init__(*a, **k)
        self.notices: list[tuple[str, dict[str, Any]]] = []

    def _notice(self, text: str, code: str = "", **data: Any) -> None:
        self.notices.append((code, data))
        super()._notice(text, code, **data)  # type: ignore[misc]


@pytest.mark.parametrize("relabel", [True, False], ids=["relabeled", "another message's"])
def test_a_seat_that_claims_a_send_with_a_made_up_receipt_frames_nobody(tmp_path: Any, relabel: bool) -> None:
    t = MaskedTable(bots={3: "moyen"}, variant="rami", limit=1, machine_cls=NoticingMachine,
                    evidence_dir=tmp_path)
    g = t.clients[1]
    liar = LyingWithReceipt(t, 1, g.nick, g.level, g.seed)
    liar.relabel = relabel
    t.clients[1] = liar
    t.start()
    t.run()
    m = t.machine
    assert {(d["kind"], d["seat"]) for c, d in m.notices if c == "private_deal_fault"} == {
        ("FALSE_CLAIM", liar.seat)}
    for c in t.clients.values():
        if c is liar:
            continue
        for rep in c.ms.reports.values():
            assert not rep.faults, rep.faults  # no DROPPED by the host
        assert all(s != "failed" for _n, s, _r in _statuses(c)), _statuses(c)


# ---------------------------------------------------------------------- signatures, rosters


def _signing(seats: tuple[int, ...] = (0, 1)) -> tuple[dict[int, SeatKey], Roster]:
    keys = {s: SeatKey(bytes([(s + 1) % 256]) * 32) for s in (*seats, HOST)}
    announcements = tuple(keys[s].announcement("", s) for s in seats)
    return keys, Roster(TAG, HOST, {s: k.public for s, k in keys.items()}, announcements)


def _participants() -> tuple[dict[int, Participant], dict[int, SeatKey], Roster]:
    keys, roster = _signing()
    ps = {}
    for s in (0, 1, HOST):
        ps[s] = Participant(TAG, s, HOST, 110, HashRandom(bytes([s])))
        ps[s].sign_with(Signing(roster, keys[s]))
    return ps, keys, roster


def test_a_relayed_message_with_a_bad_signature_is_refused_naming_the_relay() -> None:
    ps, keys, roster = _participants()
    [out] = ps[0].start_deck(0, range(110), (0, 1, HOST)).outgoing
    msg = out.message
    assert isinstance(msg, MaskPass) and msg.sig
    ps[1].start_deck(0, range(110), (0, 1, HOST))
    assert ps[1].receive(msg).outgoing  # signed by seat 0: taken, seat 1 masks next
    ps[1] = Participant(TAG, 1, HOST, 110, HashRandom(b"\x01"))
    ps[1].sign_with(Signing(roster, keys[1]))
    ps[1].start_deck(0, range(110), (0, 1, HOST))
    points = list(msg.points)
    points[0], points[1] = points[1], points[0]
    forged = MaskPass(msg.deck, 0, tuple(points), msg.tag, msg.n, msg.sig)
    with pytest.raises(MaskedProtocolError, match="the relay"):
        ps[1].receive(forged)
    # signed by the host with its own key, in seat 0's name: no better
    host_signed = MaskPass(msg.deck, 0, tuple(points), msg.tag, msg.n,
                           Signing(roster, keys[HOST]).sign(forged.to_plain()))
    with pytest.raises(MaskedProtocolError, match="the relay"):
        ps[1].receive(host_signed)


def test_the_host_refuses_a_message_its_author_did_not_sign_and_receipts_what_it_takes() -> None:
    keys, roster = _signing()
    mr = MaskedRound(TAG, HOST, (0, 1, HOST), 110, HashRandom(b"host"))
    mr.sign_with(Signing(roster, keys[HOST]))
    mr.start()
    seat0 = Participant(TAG, 0, HOST, 110, HashRandom(b"\x00"))
    seat0.sign_with(Signing(roster, keys[0]))
    [out] = seat0.start_deck(0, range(110), (0, 1, HOST)).outgoing
    bad = dict(out.message.to_plain(), sig=bytes(64))
    with pytest.raises(ValueError, match="seat 0's mk_mask is not signed"):
        mr.receive_plain(0, bad)
    routed = mr.receive(0, out.message)
    receipts = [d for d in routed.deliveries if d.plain.get("k") == Receipt.KIND]
    assert [d.to for d in receipts] == [0]
    r = Receipt.parse(receipts[0].plain)
    assert r.relayed == (1,) and r.kind == "mk_mask" and seat0.take_receipt(r)
    assert seat0.receipt_for("mk_mask", 0, -1, None) == r
    forged = Receipt(r.author, r.kind, r.deck, r.position, r.to, r.channel, r.n, r.digest, (), r.sig)
    assert not seat0.take_receipt(forged)  # not the host's signature any more


def test_a_seat_refuses_a_roster_that_lies_about_its_key_or_a_round_without_one() -> None:
    variant = get_variant("rami")
    keys, roster = _signing()
    round_msg = {"k": "mk_round", "tag": TAG, "host": HOST, "participants": [0, 1, HOST], "n": 110}
    ms = MaskedSeat(1, variant, HashRandom(b"seat"))
    ms.sign_with(keys[1])
    with pytest.raises(MaskedSeatError, match="mk_round"):
        ms.on_masked(decode_for_seat(round_msg))  # a host that leaves the roster out could forge anyone
    ms = MaskedSeat(1, variant, HashRandom(b"seat"))
    ms.sign_with(keys[1])
    mine = SeatKey(b"\x09" * 32)
    other = dict(roster.to_plain(), keys=[keys[0].announcement("", 0), mine.announcement("", 1)])
    with pytest.raises(MaskedSeatError, match="not the one we announced"):
        ms.on_masked(decode_for_seat({**round_msg, "rid": b"r", **other}))
    assert ms.problems and ms.problems[-1].kind == "mk_round"
    ms = MaskedSeat(1, variant, HashRandom(b"seat"))
    ms.sign_with(keys[1])
    assert ms.on_masked(decode_for_seat(
        {**round_msg, **roster.to_plain()})) == []  # seat 1 does not mask first
    assert ms.p is not None and ms.p.signing is not None


def test_a_key_announcement_is_self_signed_and_in_its_own_seats_name() -> None:
    key = SeatKey(b"\x05" * 32)
    plain = key.announcement("abcdef0123456789", 2)
    assert check_announcement(plain) == (2, key.public)
    hk = HostKeys()
    assert hk.announce(2, plain) == ""
    assert "seat 3" in hk.announce(3, plain)
    assert hk.announce(2, dict(plain, pub=SeatKey(b"\x06" * 32).public))
    with pytest.raises(ValueError, match="another table"):
        check_announcement(plain, "0000000000000000")
    # a round is signed only when every remote participant announced a key
    assert hk.roster(TAG, HOST, (1, 2, HOST), b"\x00" * 32) is None
    signing = hk.roster(TAG, HOST, (2, HOST), b"\x00" * 32)
    assert signing is not None and set(signing.roster.keys) == {2, HOST}


def test_the_keys_to_another_seat_carry_their_stamp_in_what_is_signed() -> None:
    ps, _keys, _roster = _participants()
    msg = KeyRelease(0, 0, 1, 3, b"\x01" + bytes(31), TAG, 4)
    signed = KeyRelease(0, 0, 1, 3, msg.key, TAG, 4, ps[0].signing.sign(msg.to_plain()))
    assert ps[1].signing.valid(0, signed.to_plain())
    for changed in (KeyRelease(0, 0, 2, 3, msg.key, TAG, 4, signed.sig),    # another recipient
                    KeyRelease(0, 0, 1, 3, msg.key, TAG, 5, signed.sig),    # another number
                    KeyRelease(0, 0, 1, 3, msg.key, TAG[:-1] + b"\x02", 4, signed.sig)):  # round
        assert not ps[1].signing.valid(0, changed.to_plain())




# ---------------------------------------------------------------------- a relaunch without its keys


def test_a_client_relaunched_without_its_keys_file_costs_no_wait_even_without_a_move_timer() -> None:
    """Killed mid-round, relaunched without its keys file: its new process announces a new
    key, so the host knows at once that nothing of the round can come from it any more (its
    secrets and key died with it). The round is void right then, naming it (once), instead
    of waiting for keys nobody has (with no move timer, its own move waited forever)."""
    from test_seat_keys import _Kept, _swap_in

    _Kept.store = {}
    t = MaskedTable(bots={3: "moyen"}, variant="rami", limit=None)
    assert t.config.timer == 0
    _swap_in(t)
    t.start()
    conn = 2

    def mid_round() -> bool:
        c = t.clients.get(conn)
        return (c is not None and c.view is not None and c.view.turn_no >= 6 and not t.inbox
                and c.ms is not None and c.ms.complete())

    t.run(until=mid_round)
    old = t.clients[conn]
    round_no = t.machine.match.round_no
    t.drop(conn)
    new = _Kept(t, conn, old.nick, old.level, old.seed + 100, restore=None, relaunched=True)
    new.token = old.token
    t.rejoin(new)
    before = t.now
    stayed = t.clients[1]

    def voided() -> list[E.Event]:
        return [e for e in stayed.events + stayed.pending if isinstance(e, E.RoundVoided)]

    t.run(until=lambda: bool(voided()) or t.machine.over)
    assert t.now == before  # no deadline was waited for
    t.run(until=lambda: t.machine.match.round_no > round_no or t.machine.over)
    voids = voided()
    assert [(e.round_no, e.seat) for e in voids] == [(round_no, old.seat)]
    assert not [p for p in stayed.ms.problems if p.kind == "events"]  # the void is backed: it owed keys


def test_a_seat_that_withholds_its_key_announcement_holds_the_shuffle_one_deadline() -> None:
    """A client that never announces its signing key: the round's shuffle waits for it
    (a restarted host's players announce theirs as they come back), then its deadline names
    it, the round is void, and the match goes on."""

    class Silent(WireClient):
        def send(self, kind: str, own_secret: bytes | None = None, core_action: Any = None,
                 **f: Any) -> None:
            if kind == "masked" and (f.get("m") or {}).get("k") == "mk_seatkey":
                return
            super().send(kind, own_secret, core_action, **f)

    t = MaskedTable(bots={3: "moyen"}, variant="rami", limit=None)
    g = t.clients[2]
    t.clients[2] = Silent(t, 2, g.nick, g.level, g.seed)
    t.start()
    m = t.machine
    stayed = t.clients[1]

    def voids() -> list[Any]:
        return [e for e in stayed.events + stayed.pending if isinstance(e, E.RoundVoided)]

    t.run(max_steps=60_000, until=lambda: bool(voids()))
    assert [(e.round_no, e.seat) for e in voids()] == [(1, t.clients[2].seat)]
    assert t.now <= 10.0 + step_wait(m.config) + 1.0  # one deadline
    t.run(max_steps=60_000, until=lambda: m.match.round_no >= 2 and m.stage.value == "playing")


@pytest.mark.parametrize("ending", ["void", "next_round", "match_end"])
def test_a_seat_that_refused_a_round_lets_the_host_messages_go_on_once_it_is_over(ending: str) -> None:
    """A round whose roster we refused (or whose keys died with a crashed process) holds
    the host's other messages back: nothing of it can be shown or played. Once that round
    is over (void, the next round dealt without us in its masked deck, or the match's
    end), the held messages and the later ones go on, in order. Before, only a next
    ``mk_round`` let them go, so a seat benched from the private deal, or a match ending
    there, never saw another view (chaos: a client still running at the deadline)."""
    variant = get_variant("rami")
    keys, roster = _signing()
    round_msg = {"k": "mk_round", "tag": TAG, "host": HOST, "participants": [0, 1, HOST], "n": 110}
    ms = MaskedSeat(1, variant, HashRandom(b"seat"))
    ms.sign_with(keys[1])
    lying = dict(roster.to_plain(), keys=[keys[0].announcement("", 0),
                                         SeatKey(b"\x09" * 32).announcement("", 1)])
    out, ready = ms.take(decode_for_seat({**round_msg, **lying}))
    assert out == [] and ready == [] and ms.must_hold()
    view_msg, chat = object(), object()
    assert ms.take(view_msg) == ([], [])  # held: the round we refused is not over
    ends = {"void": E.RoundVoided(1, 1, "no_answer"),
            "next_round": E.RoundStarted(2, 0, 1, (0, 1, HOST), 7, 80, _five_of_hearts()),
            "match_end": E.MatchEnded(0, ((0, 0), (1, 10)), "withdrawal")}
    events_msg = object()
    out, ready = ms.take(events_msg, [ends[ending]])
    assert ready == [view_msg, events_msg] and not ms.must_hold()
    assert ms.take(chat) == ([], [chat])
    assert not any(p.kind != "mk_round" for p in ms.problems)  # nothing else refused


def _five_of_hearts() -> Any:
    from rami_lan.core.cards import parse_card

    return parse_card("5h")
