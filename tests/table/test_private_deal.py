"""Private dealing through the table machine: whole matches, spies and cheaters.

A headless host with one bot seat (held by the host) and three remote wire clients
(`tests/masked_table.py`: every message encoded to its wire bytes and decoded on the
other side) play whole matches with ``private_deal`` on. The spying host records every
byte it receives, sends or relays; each spying client every byte it receives or sends.
At each checkpoint, and at the last moment before any card is revealed, every spy tries
every subset of the keys its bytes (and its own secrets) hold on every position it was
not given: none may name a card that is not yet public. Positive controls show the same
attack names the cards the spy does hold. Each client replays every round with the
rules from the audited deck order (`SeatVerifier`): all rounds must check.

Cheaters, each cheating in exactly one way, are named by the honest side: a host that
drops a reveal, a host whose mask pass moves a point, a client that sends a wrong key,
a client that skips its shuffle step.
"""

from __future__ import annotations

from typing import Any

import pytest
from masked_table import JournalRecord, MaskedTable, WireClient, can_name, knowledge, masked_round, unpack

from rami_lan.core import events as E
from rami_lan.masked.audit import FaultKind
from rami_lan.masked.inbound import decode_inbound
from rami_lan.net import protocol as P
from rami_lan.table import TableMachine
from rami_lan.table.dealing import MaskedDealing
from rami_lan.table.masked_seat import MaskedSeat
from rami_lan.wire.masked_table import decode_for_seat

HOST = 255


def _round_frames(frames: list[bytes]) -> list[bytes]:
    """The frames of the current round: from the last ``mk_round`` on."""
    last = 0
    for k, wire in enumerate(frames):
        if b"mk_round" in wire:
            msg = unpack(wire)
            if isinstance(msg, P.Masked) and msg.m.get("k") == "mk_round":
                last = k
    return frames[last:]


class Spies:
    """Every party of a MaskedTable as a spy of what it can know."""

    def __init__(self, t: MaskedTable) -> None:
        self.t = t
        self.checked = 0
        self.named_own = 0
        self.last_moment = 0

    def parties(self) -> list[tuple[str, list[bytes], Any]]:
        m = self.t.machine
        out: list[tuple[str, list[bytes], Any]] = []
        if masked_round(m) is not None:
            out.append(("host", self.t.host_seen, masked_round(m).p))
        for c in self.t.clients.values():
            if c.ms is not None and c.ms.p is not None:
                out.append((f"seat {c.seat}", c.seen, c.ms.p))
        return out

    def sweep(self) -> None:
        """Every party, every position: hidden ones stay hidden; known ones are nameable."""
        n = self.t.variant.deck_size
        for who, frames, p in self.parties():
            keys, finals = knowledge(_round_frames(frames), p)
            for deck in finals:
                for j in range(len(finals[deck])):
                    mine = p.card_at(deck, j)
                    named = can_name((deck, j), keys, finals, n)
                    if mine is None:
                        assert named is None, f"{who} names the hidden card at {(deck, j)}"
                        self.checked += 1
                    elif named is not None:
                        assert named == mine
                        self.named_own += 1

    def before_reveal(self, holder: str, deck: int, position: int) -> None:
        """The last moment before a card goes public: nobody but its holder can name it."""
        n = self.t.variant.deck_size
        for who, frames, p in self.parties():
            if who == holder:
                continue
            keys, finals = knowledge(_round_frames(frames), p)
            if deck in finals:
                if p.card_at(deck, position) is None:
                    assert can_name((deck, position), keys, finals, n) is None, \
                        f"{who} names {(deck, position)} before {holder} reveals it"
                    self.last_moment += 1


class SpiedTable(MaskedTable):
    """A MaskedTable that runs the spies before every reveal and every few steps."""

    spies: Spies

    def feed(self, effects: list[Any]) -> None:
        from rami_lan.table import effects as F

        for eff in effects:
            m = eff.msg.m if isinstance(eff, F.Send) and isinstance(eff.msg, P.Masked) else None
            if m is not None and m["k"] == "mk_reveal":
                if m["seat"] == HOST:  # a bot's card the host holds
                    self.spies.before_reveal("host", m["deck"], m["pos"])
        super().feed(effects)


class SpiedClient(WireClient):
    def send(self, kind: str, own_secret: bytes | None = None, core_action: Any = None,
             **fields: Any) -> None:
        if kind == "masked" and fields["m"]["k"] == "mk_reveal":
            self.t.spies.before_reveal(f"seat {self.seat}", fields["m"]["deck"], fields["m"]["pos"])  # type: ignore[attr-defined]
        super().send(kind, own_secret, core_action, **fields)


def _table(cls: type[MaskedTable] = MaskedTable, client_cls: type[WireClient] = WireClient,
           **kw: Any) -> MaskedTable:
    t = cls(bots={3: "moyen"}, **kw)
    for conn, c in list(t.clients.items()):
        t.clients[conn] = client_cls(t, conn, c.nick, c.level, c.seed)
    return t


def _all_checked(t: MaskedTable) -> None:
    for c in t.clients.values():
        rounds = c.tracker.rounds()
        assert rounds and all(r.status == "checked" for r in rounds), [
            (r.round_no, r.status, r.reason) for r in rounds if r.status != "checked"]
        assert not c.errors and not c.ms.problems and not c.ms.faults


def test_a_whole_match_where_no_spy_can_name_a_hidden_card(tmp_path: Any) -> None:
    t = _table(SpiedTable, SpiedClient, variant="rami", limit=50, evidence_dir=tmp_path)
    spies = t.spies = Spies(t)  # type: ignore[attr-defined]
    t.start()
    dealt = set()

    def checkpoint() -> bool:
        m = t.machine
        key = (m.match.round_no, m.match.round.turn_no if m.match.round else 0)
        if m.match.phase in ("draw", "play") and key not in dealt and key[1] in (1, 9):
            dealt.add(key)
            spies.sweep()
        return False

    t.run(until=checkpoint)
    t.run()
    m = t.machine
    assert m.match.over and m.match.round_no >= 2, "a whole match of several rounds"
    assert spies.checked > 1000 and spies.named_own > 100 and spies.last_moment > 100
    assert len(m.masked_reports) == m.match.round_no and all(r.fair for r in m.masked_reports)
    _all_checked(t)
    # The host's model never held a blind seat's card before it was public: it dealt from
    # stand-ins, and the audit's deck order differs from the stand-in order it started with.
    orders = [r.orders[0] for r in m.masked_reports]
    assert all(list(o) != list(range(len(o))) for o in orders)
    assert len({tuple(o) for o in orders}) == len(orders)


@pytest.mark.parametrize("variant", ["classique", "multi", "500", "40"])
def test_every_variant_plays_a_round_with_private_dealing(variant: str, tmp_path: Any) -> None:
    t = _table(variant=variant, limit=None, evidence_dir=tmp_path)
    t.start()
    t.run(until=lambda: all(c.tracker.rounds() and c.tracker.rounds()[0].status != "pending"
                            for c in t.clients.values()))
    assert t.machine.masked_reports and t.machine.masked_reports[0].fair
    _all_checked(t)


def test_a_refill_of_the_stock_is_masked_again(tmp_path: Any) -> None:
    """40 heads-up, until a round whose stock runs out: the pile goes back as a new masked
    deck, shuffled by both participants; the audit gives its order and the clients'
    replay of that round uses it."""
    # The host's entropy label picks deals whose stock runs out (in round 6): a 40 stock
    # rarely does, and this test is about what happens then.
    t = MaskedTable(variant="40", seats=2, bots={1: "moyen"}, limit=None, evidence_dir=tmp_path,
                    entropy=b"host10")
    t.start()
    t.run(until=lambda: any(1 in r.orders for r in t.machine.masked_reports))
    report = next(r for r in t.machine.masked_reports if 1 in r.orders)
    assert report.fair and len(report.orders[1]) > 5
    assert sorted(report.orders[1]) != list(report.orders[1])  # shuffled, not the pile as it lay
    t.run(until=lambda: all(r.status != "pending" for c in t.clients.values() for r in c.tracker.rounds()))
    _all_checked(t)


def test_without_private_dealing_no_masked_message_is_sent(tmp_path: Any) -> None:
    t = _table(variant="rami", limit=1, private=False, evidence_dir=tmp_path)
    t.start()
    t.run()
    assert t.machine.match.over and not t.machine.masked_reports
    assert not any(b"mk_" in f for f in t.host_seen)


def test_a_malformed_masked_message_gets_an_error_and_the_game_goes_on(tmp_path: Any) -> None:
    t = _table(variant="rami", limit=1, evidence_dir=tmp_path)
    t.start()
    t.run(until=lambda: masked_round(t.machine) is not None and masked_round(t.machine).ready(0))
    c = t.clients[1]
    key = bytes([1]) + bytes(31)
    for bad in ({"k": "mk_key", "deck": 0, "seat": c.seat, "to": 2, "pos": 1, "key": b"x"},
                {"k": "mk_reveal", "deck": 0, "seat": (c.seat + 1) % 3, "pos": 0, "keys": []},
                {"k": "mk_audit", "seat": c.seat, "decks": "nope", "sent": []},
                # a gift of a card it does not hold, and one with a key list that does not fit
                {"k": "mk_give", "deck": 0, "seat": c.seat, "pos": 109, "keys": [[c.seat, key]]},
                {"k": "mk_give", "deck": 0, "seat": c.seat, "pos": 0, "keys": [[c.seat, key], [c.seat, key]]},
                # a hand-over before its hand was given
                {"k": "mk_handover", "seat": c.seat, "keys": [], "decks": []}):
        t.feed(t.machine.masked(c.conn, decode_inbound(bad), t.now))
    t.run(until=lambda: len(c.errors) >= 6)  # held with the deal until our cards are known
    assert len(c.errors) == 6 and all(e.startswith("bad_masked") for e in c.errors), c.errors
    assert c.seat in masked_round(t.machine).blind  # the refused hand-over changed nothing
    c.errors.clear()
    t.run()
    _all_checked(t)


# ------------------------------------------------------------------------- cheaters


class _Dropping(MaskedDealing):
    def send(self, seat: int, plain: dict[str, Any]) -> None:
        host = self.t
        assert isinstance(host, DroppingHost)
        if seat == 1 and plain.get("k") == "mk_reveal" and plain.get("seat") != 1 and not host.dropped:
            host.dropped += 1
            return
        super().send(seat, plain)


class DroppingHost(TableMachine):
    """Relays every masked message but one card reveal meant for seat 1."""

    dropped = 0
    masked_dealing = _Dropping


class _Moving(MaskedDealing):
    def send(self, seat: int, plain: dict[str, Any]) -> None:
        host = self.t
        assert isinstance(host, MovingHost)
        if plain.get("k") == "mk_mask" and plain.get("seat") == HOST and plain.get("deck") == 0:
            if not host.moved:
                host._moved_points = list(plain["points"])
                host._moved_points[0], host._moved_points[1] = host._moved_points[1], host._moved_points[0]
            host.moved += 1
            plain = dict(plain, points=host._moved_points)
        super().send(seat, plain)


class MovingHost(TableMachine):
    """Its mask pass of the first deck has two points swapped after the fact."""

    moved = 0
    _moved_points: list[Any]
    masked_dealing = _Moving


def test_a_host_that_drops_a_reveal_is_named_by_its_own_receipt(tmp_path: Any) -> None:
    t = MaskedTable(bots={3: "moyen"}, variant="rami", limit=1, machine_cls=DroppingHost,
                    evidence_dir=tmp_path)
    t.start()
    t.run()
    assert t.machine.dropped == 1  # type: ignore[attr-defined]
    # The sender's audit lists the reveal with the host's signed receipt, which says the
    # host relays it to seat 1: seat 1 never got it, so the host dropped it (proven by its
    # own signature; docs/fair_shuffle.md). Before receipts this was an unproven claim.
    victim = next(c for c in t.clients.values() if c.seat == 1)
    report = next(iter(victim.ms.reports.values()))
    assert [(f.kind, f.seat) for f in report.faults] == [(FaultKind.DROPPED, HOST)], report.faults
    assert not report.claims
    assert [r.status for r in victim.tracker.rounds()] == ["failed"]
    for c in t.clients.values():
        if c is not victim:
            assert [r.status for r in c.tracker.rounds()] == ["checked"]


def test_a_host_whose_mask_pass_moves_a_point_is_named_by_every_client(tmp_path: Any) -> None:
    t = MaskedTable(bots={3: "moyen"}, variant="rami", limit=1, machine_cls=MovingHost,
                    evidence_dir=tmp_path)
    t.start()
    t.run()
    for c in t.clients.values():
        report = next(iter(c.ms.reports.values()))
        assert report.named == {HOST}, report.faults
        assert FaultKind.BAD_MASK in {f.kind for f in report.faults}
        assert [r.status for r in c.tracker.rounds()] == ["failed"]


class WrongKeyClient(WireClient):
    """Sends one wrong key to another client."""

    lied = False

    def send(self, kind: str, own_secret: bytes | None = None, core_action: Any = None,
             **fields: Any) -> None:
        m = fields.get("m")
        if kind == "masked" and m and m["k"] == "mk_key" and m["to"] not in (None, HOST) \
                and not WrongKeyClient.lied:
            WrongKeyClient.lied = True
            key = bytearray(m["key"])
            key[0] ^= 1
            fields = dict(fields, m=dict(m, key=bytes(key)))
        super().send(kind, own_secret, core_action, **fields)


class SkippingClient(WireClient):
    """Passes its mask step's input on unchanged (no key, no shuffle)."""

    def send(self, kind: str, own_secret: bytes | None = None, core_action: Any = None,
             **fields: Any) -> None:
        m = fields.get("m")
        if kind == "masked" and m and m["k"] == "mk_mask" and m["deck"] == 0:
            fields = dict(fields, m=dict(m, points=self.last_points))
        super().send(kind, own_secret, core_action, **fields)

    def receive(self, wire: bytes) -> None:
        msg = unpack(wire)
        if isinstance(msg, P.Masked) and msg.m.get("k") == "mk_mask":
            self.last_points = msg.m["points"]
        super().receive(wire)


def test_a_client_that_sends_a_wrong_key_is_named_at_once(tmp_path: Any) -> None:
    WrongKeyClient.lied = False
    t = MaskedTable(bots={3: "moyen"}, variant="rami", limit=1, evidence_dir=tmp_path)
    liar = t.clients[1]
    t.clients[1] = WrongKeyClient(t, 1, liar.nick, liar.level, liar.seed)
    t.start()

    # The host checks a key meant for another seat before it passes it on: the liar is
    # named there, and the key reaches nobody (the recipient never holds a wrong key).
    def named() -> bool:
        m = masked_round(t.machine)
        return m is not None and any(f.kind is FaultKind.WRONG_KEY for f in m.faults)

    t.run(until=named)
    assert WrongKeyClient.lied and named()
    fault = next(f for f in masked_round(t.machine).faults if f.kind is FaultKind.WRONG_KEY)
    assert fault.seat == t.clients[1].seat
    assert not any(c.ms.faults for c in t.clients.values() if c.ms)


def test_a_client_that_skips_its_shuffle_is_named_at_once(tmp_path: Any) -> None:
    t = MaskedTable(bots={3: "moyen"}, variant="rami", limit=1, evidence_dir=tmp_path)
    cheat = t.clients[2]
    t.clients[2] = SkippingClient(t, 2, cheat.nick, cheat.level, cheat.seed)
    t.start()

    def named() -> bool:
        m = masked_round(t.machine)
        return m is not None and any(f.kind is FaultKind.SKIPPED_STEP for f in m.faults)

    t.run(until=named)
    fault = next(f for f in masked_round(t.machine).faults if f.kind is FaultKind.SKIPPED_STEP)
    assert fault.seat == t.clients[2].seat


def test_a_client_refuses_a_deal_layout_that_is_not_round_the_table() -> None:
    from rami_lan.core.variants import get_variant
    from rami_lan.table.masked_seat import MaskedSeatError

    ms = MaskedSeat(1, get_variant("rami"), lambda n: bytes(range(n)))
    tag = b"rami-lan/v1" + bytes(16) + (1).to_bytes(4, "big") + (1).to_bytes(4, "big")
    ms.on_masked(decode_for_seat(
        {"k": "mk_round", "tag": tag, "host": 255, "participants": [0, 1, 255], "n": 110}))
    layout = [(1, 2, 3, 0)[k % 4] for k in range(56)] + [None]
    layout[5], layout[6] = layout[6], layout[5]  # the host takes a card meant for seat 2
    with pytest.raises(MaskedSeatError, match="round the table"):
        ms.on_masked(decode_for_seat({"k": "mk_deal", "deck": 0, "seats": layout}))


class NoRevealClient(WireClient):
    """Plays its cards without revealing them first (its keys would prove them)."""

    def send(self, kind: str, own_secret: bytes | None = None, core_action: Any = None,
             **fields: Any) -> None:
        if kind == "masked" and fields["m"]["k"] == "mk_reveal" and self.view.phase == "play":
            return
        super().send(kind, own_secret, core_action, **fields)


def test_a_card_played_without_its_reveal_is_refused(tmp_path: Any) -> None:
    t = MaskedTable(bots={3: "moyen"}, variant="rami", limit=1, evidence_dir=tmp_path)
    c = t.clients[1]
    t.clients[1] = NoRevealClient(t, 1, c.nick, c.level, c.seed)
    t.start()
    t.run(until=lambda: bool(t.clients[1].errors))
    # The card is not in the host's model of the hand ("does not hold"), or it is there only
    # as a stand-in ("not proven"): either way the play is refused and nothing went public.
    err = t.clients[1].errors[0]
    assert err.startswith("illegal") and ("does not hold" in err or "not proven" in err)
    assert t.machine.match.round.turn == t.clients[1].seat and t.machine.match.phase == "play"


def test_a_player_who_drops_and_comes_back_finishes_the_match(tmp_path: Any) -> None:
    """Seat 1's connection dies mid-round, losing what it had in flight; the table waits
    for it (nobody else can play its hidden hand). It comes back with its token: the host
    sends the round's masked messages again with the public events, it sends again what
    it sent, both sides drop what they had, and the match goes on to its end."""
    t = _table(variant="rami", limit=50, evidence_dir=tmp_path)
    t.start()
    t.run(until=lambda: t.machine.match.round is not None and t.machine.match.round.turn_no >= 6)
    away = t.drop(2)
    dropped_at = t.now
    # The others play until they must wait for it; it is back before the round would be
    # void (the next thing the table would do is void it, masked_wait after the drop).
    void_at = dropped_at + t.config.masked_wait
    t.run(until=lambda: not t.inbox and t.wake == void_at
          and not any(c.maybe_act() for c in t.clients.values()))
    assert not t.machine.over and t.machine.stage.value == "playing"
    assert t.machine.dealing.void_at()[0] == void_at and t.now < void_at
    t.rejoin(away)
    t.run()
    m = t.machine
    assert m.match.over and all(r.fair for r in m.masked_reports)
    assert len(m.masked_reports) == m.match.round_no
    for c in t.clients.values():
        assert not c.ms.faults and not c.ms.problems, c.ms.faults
        statuses = [r.status for r in c.tracker.rounds()]
        if c is away:  # it missed events of round 1: checked as far as it saw them
            assert statuses[0] in ("partial", "checked") and set(statuses[1:]) <= {"checked"}
        else:
            assert set(statuses) == {"checked"}, statuses


def test_a_player_gone_for_good_voids_the_round_and_the_match_goes_on(tmp_path: Any) -> None:
    """Seat 1 drops mid-round and never comes back. Nobody can play its hidden cards, so
    after the table's wait the round is void (no score: the totals do not move), every
    present participant's audit names the gone one for its missing secrets, and the next
    round is dealt without it as a participant: the host's away bot plays its seat, as
    at any table. Every other client checks every round, the void one included."""
    from rami_lan.core import events as E

    t = _table(variant="rami", limit=50, evidence_dir=tmp_path)
    t.start()
    t.run(until=lambda: t.machine.match.round is not None and t.machine.match.round.turn_no >= 6)
    totals_before = t.machine.match.totals
    round_no = t.machine.match.round_no
    gone = t.drop(2)
    t.run(until=lambda: t.machine.match.round_no > round_no)  # the void, then a new deal
    m = t.machine
    voided = [e for c in t.clients.values() for e in c.pending + c.events
              if isinstance(e, E.RoundVoided)]
    assert voided and voided[0].round_no == round_no and voided[0].seat == gone.seat
    assert m.match.totals == totals_before  # no score for the void round
    void_report = m.masked_reports[round_no - 1]
    assert {f.kind for f in void_report.faults} == {FaultKind.MISSING_AUDIT}
    assert void_report.named == {gone.seat}
    assert gone.seat not in masked_round(m).participants  # the next round goes on without it
    t.run()
    assert m.match.over
    for c in t.clients.values():
        statuses = [(r.round_no, r.status, r.reason) for r in c.tracker.rounds()]
        assert all(s == "checked" for _, s, _ in statuses), statuses
        assert "void" in statuses[round_no - 1][2]


def _crash_mid_round(t: MaskedTable) -> tuple[int, Any]:
    t.start()
    t.run(until=lambda: t.machine.match.round is not None and t.machine.match.round_no == 2
          and t.machine.match.round.turn_no >= 4)
    return t.machine.match.round.turn_no, t.machine.match.totals


def test_a_host_restart_goes_on_with_the_private_round(tmp_path: Any) -> None:
    """The host crashes mid-round. Its journal holds its own participant's seed and every
    masked-round call, and the model after each change: ``--resume`` makes the same masked
    round again and takes the round up where it was. The clients (same processes, same
    keys) come back, get the round's masked messages again, send theirs again (the host
    drops what it had), and the round is played out: nothing void, every audit fair, every
    client checks every round."""
    t = _table(variant="rami", limit=50, evidence_dir=tmp_path, journal=True)
    turn_no, totals = _crash_mid_round(t)
    kinds = {r.kind for r in t.journal_records}
    assert "private" in kinds and "tick" not in kinds
    t.crash_and_resume()
    m = t.machine
    assert m.match.round is not None and m.match.round_no == 2 and m.match.round.turn_no == turn_no
    assert m.match.totals == totals and masked_round(m) is not None
    t.run()
    assert m.match.over and m.match.round_no >= 3
    assert all(r.fair for r in m.masked_reports), [r.faults for r in m.masked_reports]
    for c in t.clients.values():
        statuses = [(r.round_no, r.status, r.reason) for r in c.tracker.rounds()]
        assert [s for _, s, _ in statuses if s != "checked"] == [], statuses
        assert not any("void" in reason for _, _, reason in statuses), statuses
        assert not c.ms.faults


def test_a_host_restart_during_a_refill_shuffle_goes_on(tmp_path: Any) -> None:
    """40 heads-up, the host crashes while the discard pile going back as stock is being
    shuffled again (a second masked deck mid-round): the restarted host makes both decks
    again from its journal, the refill's shuffle finishes, and the match is played out."""
    t = MaskedTable(variant="40", seats=2, bots={1: "moyen"}, limit=None, evidence_dir=tmp_path,
                    entropy=b"host10", journal=True)
    t.start()

    def refilling() -> bool:
        mr = masked_round(t.machine)
        return mr is not None and mr.ready(0) and mr.p.phase.value == "shuffling"

    t.run(until=refilling)
    assert refilling(), "no refill in this match"
    round_no = t.machine.match.round_no
    t.crash_and_resume()
    m = t.machine
    assert masked_round(m) is not None and m.match.round_no == round_no
    t.run()
    assert m.match.over
    assert all(r.fair for r in m.masked_reports), [r.faults for r in m.masked_reports]
    assert any(1 in r.orders for r in m.masked_reports)  # the refill's deck was audited
    for c in t.clients.values():
        statuses = [(r.round_no, r.status, r.reason) for r in c.tracker.rounds()]
        # The client held the host's messages back while the refill was being shuffled,
        # so the resync after the restart is a gap its verifier cannot rule out: that
        # round is checked partially (as after any reconnect with events missed); the
        # others in full, none failed.
        assert [(n, s) for n, s, _ in statuses if s != "checked"] in ([], [(round_no, "partial")]), statuses
        assert not c.ms.faults


def test_a_host_restart_with_a_journal_that_does_not_fit_voids_the_round(tmp_path: Any) -> None:
    """A journal whose ``private`` records do not make a dealt round again (here: their
    models are gone) can not be taken up: ``--resume`` voids that round
    (no score), every client is told (``RoundVoided``) and checks its commit-reveal, and
    the next round is dealt with a fresh masked deck."""
    t = _table(variant="rami", limit=50, evidence_dir=tmp_path, journal=True)
    _turn_no, totals = _crash_mid_round(t)
    t.journal_records = [JournalRecord(r.kind, {**r.body, "match": None}) if r.kind == "private" else r
                         for r in t.journal_records]
    t.crash_and_resume()
    m = t.machine
    assert m.match.round is None and m.match.round_no == 2 and m.match.totals == totals
    t.run()
    assert m.match.over and m.match.round_no >= 3
    for c in t.clients.values():
        statuses = [(r.round_no, r.status, r.reason) for r in c.tracker.rounds()]
        assert [s for _, s, _ in statuses if s != "checked"] == [], statuses
        assert "void" in statuses[1][2]
        assert not c.ms.faults


def test_a_host_restart_during_the_shuffle_shuffles_again(tmp_path: Any) -> None:
    """The host crashes while round 2's deck is being shuffled (nothing dealt yet): its
    journal holds the round's commit-reveal, so ``--resume`` takes the round up and
    starts the masked shuffle again (same tag, fresh secrets); the clients start theirs
    again too, and the match is played out with every round checked."""
    from rami_lan.table.stage import Stage

    t = _table(variant="rami", limit=50, evidence_dir=tmp_path, journal=True)
    t.start()
    t.run(until=lambda: t.machine.match.round_no == 1 and t.machine.stage is Stage.SHUFFLE
          and masked_round(t.machine) is not None and len(masked_round(t.machine).broadcast) >= 2)
    t.crash_and_resume()
    t.run()
    m = t.machine
    assert m.match.over and m.match.round_no >= 2
    assert all(r.fair for r in m.masked_reports), [r.faults for r in m.masked_reports]
    for c in t.clients.values():
        statuses = [(r.round_no, r.status, r.reason) for r in c.tracker.rounds()]
        assert [s for _, s, _ in statuses if s != "checked"] == [], statuses
        assert not c.ms.faults


def test_a_player_who_leaves_mid_round_hands_over_and_the_round_goes_on(tmp_path: Any) -> None:
    """Seat 1 quits mid-round: its client gives the host its hand (``mk_give``, to the
    host alone) and everyone its stock keys (``mk_handover``). The round is not void: the
    host's away bot plays that seat at once, the round ends as usual, its audit is fair
    (the leaver is checked from its hand-over and named for nothing), and the others
    never see the leaver's hand."""
    from rami_lan.core import events as E

    t = _table(variant="rami", limit=50, evidence_dir=tmp_path)
    t.start()
    t.run(until=lambda: t.machine.match.round is not None and t.machine.match.round.turn_no >= 6
          and t.machine.match.round.turn != 1 and all(c.ms.complete() for c in t.clients.values()))
    round_no, turn_no = t.machine.match.round_no, t.machine.match.round.turn_no
    conn = next(k for k, c in t.clients.items() if c.seat == 1)
    witness = next(c for c in t.clients.values() if c.seat != 1)

    def discards_of_seat_1() -> int:
        return sum(1 for e in witness.pending + witness.events
                   if isinstance(e, E.Discarded) and e.seat == 1)

    before = discards_of_seat_1()
    gone = t.leave(conn)
    m = t.machine
    assert 1 not in masked_round(m).blind and 1 not in m.match.round.blind
    assert any(b"mk_give" in f for f in gone.seen)  # it gave its hand ...
    assert not any(b"mk_give" in f for c in t.clients.values() for f in c.seen)  # to the host only
    t.run(until=lambda: m.match.round_no > round_no)
    assert discards_of_seat_1() > before, "the host's away bot played the leaver's seat"
    assert not any(isinstance(e, E.RoundVoided) for c in t.clients.values() for e in c.pending + c.events)
    report = m.masked_reports[round_no - 1]
    assert report.fair, report.faults
    assert m.match.round is None or m.match.round_no > round_no
    assert turn_no >= 6
    t.run()
    assert m.match.over
    for c in t.clients.values():
        statuses = [(r.round_no, r.status, r.reason) for r in c.tracker.rounds()]
        assert all(s == "checked" for _, s, _ in statuses), statuses
        assert not c.ms.faults


def test_a_player_gone_during_the_shuffle_voids_the_round_before_its_deal(tmp_path: Any) -> None:
    """Seat 1 vanishes while the masked deck of round 2 is being shuffled (before any
    card is dealt): the shuffle can not finish without it, so the round is void; its
    number and dealer are used (every client derives the dealer from the seed), and the
    match goes on to its end with the host's away bot in that seat."""
    from rami_lan.table.stage import Stage

    t = _table(variant="rami", limit=50, evidence_dir=tmp_path)
    t.start()
    t.run(until=lambda: t.machine.match.round_no == 1 and t.machine.stage is Stage.SHUFFLE
          and masked_round(t.machine) is not None and t.machine.masked_reports)
    gone = t.drop(2)
    t.run(until=lambda: t.machine.match.round_no >= 2 and t.machine.stage is Stage.PLAYING
          and masked_round(t.machine) is not None and gone.seat not in masked_round(t.machine).participants)
    assert t.machine.match.round_no == 3, "round 2 was void before its deal; round 3 is dealt"
    t.run()
    assert t.machine.match.over
    for c in t.clients.values():
        statuses = [(r.round_no, r.status, r.reason) for r in c.tracker.rounds()]
        assert all(s == "checked" for _, s, _ in statuses), statuses
        assert "void" in statuses[1][2]


class _Duplicating(MaskedDealing):
    def send(self, seat: int, plain: dict[str, Any]) -> None:
        if plain.get("k") == "mk_mask" and plain.get("seat") == HOST and plain.get("deck") == 0:
            points = list(plain["points"])
            points[1] = points[0]
            plain = dict(plain, points=points)
        super().send(seat, plain)


class DuplicatingHost(TableMachine):
    """Its mask pass of the first deck holds one point twice (a card duplicated, another
    one gone)."""

    masked_dealing = _Duplicating


def test_a_host_that_duplicates_a_card_is_named_at_once(tmp_path: Any) -> None:
    t = MaskedTable(bots={3: "moyen"}, variant="rami", limit=1, machine_cls=DuplicatingHost,
                    evidence_dir=tmp_path)
    t.start()

    def named() -> bool:
        return all(c.ms is not None and any(f.kind is FaultKind.DUPLICATE_POINT for f in c.ms.faults)
                   for c in t.clients.values())

    t.run(until=named)
    for c in t.clients.values():
        fault = next(f for f in c.ms.faults if f.kind is FaultKind.DUPLICATE_POINT)
        assert fault.seat == HOST


def _mutate(rng: Any, v: Any) -> Any:
    """One random change somewhere in a plain value (a hostile or broken peer)."""
    r = rng.random()
    if isinstance(v, dict):
        v = dict(v)
        if v and r < 0.5:
            k = rng.choice(sorted(v))
            v[k] = _mutate(rng, v[k])
        elif v and r < 0.7:
            v.pop(rng.choice(sorted(v)))
        else:
            v[rng.choice(["seat", "deck", "pos", "to", "x"])] = rng.choice(
                [0, 1, 255, -1, 10**9, None, "a", b"\x00" * 32, []])
        return v
    if isinstance(v, list):
        v = list(v)
        if v and r < 0.5:
            i = rng.randrange(len(v))
            v[i] = _mutate(rng, v[i])
        elif v and r < 0.7:
            v.pop()
        else:
            v.append(rng.choice([0, b"\x01" * 32, None]))
        return v
    if isinstance(v, bytes):
        b = bytearray(v)
        if b:
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        return bytes(b)
    if isinstance(v, int) and not isinstance(v, bool):
        return rng.choice([v + 1, v - 1, 0, 255, 1 << 20, -5])
    return rng.choice([None, 0, "x", b""])


def test_mutated_masked_messages_get_errors_never_a_crash(tmp_path: Any) -> None:
    """Mid-round, 600 mutations of real masked messages go to the host (from a seated
    client) and 600 to a client's MaskedSeat: each is refused with a plain error (the
    host's ``bad_masked``; the client's `MaskedSeatError`) or used; nothing else raises."""
    import random

    from rami_lan.table.masked_seat import MaskedSeatError

    t = _table(variant="rami", limit=1, evidence_dir=tmp_path)
    t.start()
    t.run(until=lambda: t.machine.match.round is not None and t.machine.match.round.turn_no >= 3)
    samples = [m.m for w in t.host_seen if b"mk_" in w
               for m in [unpack(w)] if isinstance(m, P.Masked)]
    assert len(samples) > 100
    rng = random.Random(15)
    conns = sorted(t.clients)
    for _ in range(600):
        effects = t.machine.masked(rng.choice(conns), decode_inbound(_mutate(rng, rng.choice(samples))),
                                     t.now)
        assert effects and not any(getattr(e, "msg", None) is not None and e.msg.KIND not in (
            "error", "masked", "events", "view", "round_secrets") for e in effects)
    client = t.clients[conns[0]]
    refused = 0
    for _ in range(600):
        try:
            client.ms.on_masked(decode_for_seat(_mutate(rng, rng.choice(samples))))
        except MaskedSeatError:
            refused += 1
    assert refused > 400


@pytest.mark.parametrize("variant", ["rami", "classique", "multi", "500", "40"])
def test_the_hosts_own_player_checks_every_round_in_every_variant(variant: str, tmp_path: Any) -> None:
    """The host plays seat 0 through a client of its own (its keys are the host's): two
    rounds of every variant. Its client is told each round is masked (``mk_own``) and
    gets the audited orders (``mk_orders``); it never gets a stand-in card (its verifier
    replays every round from those orders and compares what it was sent), and every
    seat checks every round. The host's own seat is no blind seat."""
    t = MaskedTable(variant=variant, owner=True, bots={3: "moyen"}, limit=None, evidence_dir=tmp_path)
    owner = t.clients[1]
    assert owner.owner
    t.start()
    t.run(until=lambda: all(len(c.tracker.rounds()) >= 2 and c.tracker.rounds()[1].status != "pending"
                            for c in t.clients.values()))
    m = t.machine
    assert m.owner_seat == owner.seat == 0 and owner.ms is None
    assert len(m.masked_reports) >= 2 and all(r.fair for r in m.masked_reports)
    assert owner.owner_masked.count("mk_own") >= 2 and owner.owner_masked.count("mk_orders") >= 2
    for c in t.clients.values():
        rounds = c.tracker.rounds()[:2]
        assert all(r.status == "checked" for r in rounds), [(c.seat, r.round_no, r.status, r.reason)
                                                             for r in rounds]
        assert not c.errors
    own_draws = [e for e in owner.events if isinstance(e, E.StockDrawn) and e.seat == 0]
    assert own_draws and all(e.card is not None for e in own_draws)


def test_a_host_restart_while_its_own_players_draw_is_masked_goes_on(tmp_path: Any) -> None:
    """The host crashes right after its own seat drew, before the other participants'
    keys for that card came in. After ``--resume`` its own player comes back: it is not
    shown the model's stand-in (its view waits for the card), the round goes on, and every
    seat, the host's own included, checks every round."""
    t = MaskedTable(variant="rami", owner=True, bots={3: "moyen"}, limit=50, evidence_dir=tmp_path,
                    journal=True)
    owner = t.clients[1]
    t.start()

    def own_card_in_flight() -> bool:
        m = t.machine
        return (m.match.round is not None and m.match.round_no == 2 and masked_round(m) is not None
                and m.dealing.owner_hidden(m.match))

    t.run(until=own_card_in_flight)
    shown_hidden: list[bool] = []  # at each view its player gets: was a card of it unknown?
    take = owner.receive

    def spy(wire: bytes) -> None:
        if isinstance(unpack(wire), P.View):
            shown_hidden.append(t.machine.dealing.owner_hidden(t.machine.match))
        take(wire)

    owner.receive = spy  # type: ignore[method-assign]
    t.crash_and_resume()
    m = t.machine
    assert m.dealing.owner_hidden(m.match) and m.dealing.owner_held  # its view waits
    t.run()
    assert shown_hidden and not any(shown_hidden)
    assert m.match.over and all(r.fair for r in m.masked_reports)
    for c in t.clients.values():
        statuses = [(r.round_no, r.status, r.reason) for r in c.tracker.rounds()]
        if c.owner:
            # Its held draw died with the host: round 2 is checked as far as it saw it (a
            # stand-in it was shown would fail the check of its seen cards); the rest in full.
            assert [s for n, s, _ in statuses if n != 2 and s != "checked"] == [], statuses
            assert statuses[1][1] in ("checked", "partial"), statuses
        else:
            assert [s for _, s, _ in statuses if s != "checked"] == [], (c.seat, statuses)
    assert owner.owner_masked.count("mk_orders") == m.match.round_no


def test_a_refill_with_the_hosts_own_player_at_the_table(tmp_path: Any) -> None:
    """40 heads-up, the host's own player against one remote player, until the stock runs
    out (round 2 with this entropy label): the pile is masked again by both participants,
    and both players, the host's own included, check every round from the audit."""
    t = MaskedTable(variant="40", seats=2, owner=True, bots={}, limit=None, evidence_dir=tmp_path,
                    entropy=b"host43")
    t.start()
    t.run(until=lambda: any(1 in r.orders for r in t.machine.masked_reports))
    report = next(r for r in t.machine.masked_reports if 1 in r.orders)
    assert report.fair and len(report.orders[1]) > 5
    t.run(until=lambda: all(r.status != "pending" for c in t.clients.values() for r in c.tracker.rounds()))
    for c in t.clients.values():
        rounds = c.tracker.rounds()
        assert rounds and all(r.status == "checked" for r in rounds), [
            (c.seat, r.round_no, r.status, r.reason) for r in rounds]
    assert t.clients[1].owner and any(isinstance(e, E.StockRefilled) for e in t.clients[1].events)


class _HandLog(WireClient):
    """Logs what it receives: ``("hand", positions)``, ``("view",)``, ``("welcome",)``."""

    def __init__(self, *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        self.log: list[tuple[Any, ...]] = []

    def receive(self, wire: bytes) -> None:
        msg = unpack(wire)
        if isinstance(msg, P.Masked) and msg.m["k"] in ("mk_hand", "mk_round"):
            self.log.append((msg.m["k"], msg.m.get("pos")))
        elif isinstance(msg, (P.View, P.Welcome)):
            self.log.append((msg.KIND,))
        super().receive(wire)


def test_a_hands_positions_go_out_only_when_they_change(tmp_path: Any) -> None:
    """``mk_hand`` (where each hidden card of a hand lies in the deck) went before every
    view; most views leave the hand as it was. It now goes when the positions differ from
    what that connection was told last, and always after a (re)join or a new masked
    round, whose ``mk_round`` makes the client forget them. Every client still checks
    every round (its verifier compares each view's hand with its replay)."""
    t = _table(client_cls=_HandLog, variant="rami", limit=50, evidence_dir=tmp_path)
    t.start()
    t.run(until=lambda: t.machine.match.round is not None and t.machine.match.round.turn_no >= 6)
    away = t.drop(2)
    t.run(until=lambda: not t.inbox and not any(c.maybe_act() for c in t.clients.values()))
    t.rejoin(away)
    t.run()
    m = t.machine
    assert m.match.over and m.match.round_no >= 2 and all(r.fair for r in m.masked_reports)
    for c in t.clients.values():
        log = c.log  # type: ignore[attr-defined]
        views = sum(1 for x in log if x[0] == "view")
        hands = [x for x in log if x[0] == "mk_hand"]
        assert views > 2 * len(hands) > 0, (views, len(hands))
        told = None
        for x in log:
            if x[0] in ("welcome", "mk_round"):
                told = None  # the client starts over: the next view comes with its hand
            elif x[0] == "mk_hand":
                assert x[1] != told, "the same positions sent twice in a row"
                told = x[1]
        statuses = [r.status for r in c.tracker.rounds()]
        assert set(statuses[1:]) == {"checked"} and statuses[0] in ("partial", "checked"), statuses
        assert not c.errors and not c.ms.problems and not c.ms.faults
    # After its rejoin, the client that was away got its hand's positions before a view.
    back = away.log[max(k for k, x in enumerate(away.log) if x[0] == "welcome"):]  # type: ignore[attr-defined]
    kinds = [x[0] for x in back if x[0] in ("mk_hand", "view")]
    assert kinds[0] == "mk_hand", kinds[:5]


def test_a_play_message_relayed_after_the_round_is_void_names_nobody(tmp_path: Any) -> None:
    """Issue 29 (private chaos, stops): a player stopped past its deadline sends the keys
    it owed once it runs again; the host, voiding the round at that moment, relays one
    to a seat whose audit is already out. That seat used to refuse it ("no masked-deck
    message expected in phase complete") and fail the round naming the host: a false
    accusation. A play message of a round whose audit we published asks nothing of us:
    it is dropped, nothing leaves, nobody is named. An audit-time message that does not
    fit is still refused."""
    import msgpack

    from rami_lan.masked.session import Phase
    from rami_lan.table.masked_seat import MaskedSeatError

    t = _table(variant="rami", limit=50, evidence_dir=tmp_path)
    t.start()
    t.run(until=lambda: t.machine.match.round is not None and t.machine.match.round.turn_no >= 6)
    gone = t.drop(2)
    seat = next(c for c in t.clients.values() if c is not gone and c.ms is not None
                and c.ms.p is not None)
    ms, tag = seat.ms, seat.ms.tag
    t.run(until=lambda: ms.tag != tag or ms.p is None
          or ms.p.phase in (Phase.AUDITING, Phase.COMPLETE))
    assert ms.tag == tag and ms.p is not None and ms.p.phase in (Phase.AUDITING, Phase.COMPLETE)
    late = [m for m in (unpack(w) for w in seat.seen)
            if isinstance(m, P.Masked) and m.m.get("k") == "mk_key" and m.m.get("tag") == tag]
    assert late, "the round had key releases"
    plain = late[-1].m
    ms._seen.discard(msgpack.packb(plain, use_bin_type=True))  # as if it had not come yet
    problems = len(ms.problems)
    assert ms.on_masked(decode_for_seat(plain)) == []
    assert len(ms.problems) == problems  # nobody named
    with pytest.raises(MaskedSeatError):
        ms.on_masked(decode_for_seat({**plain, "k": "mk_audit"}))  # not a play message: still refused
