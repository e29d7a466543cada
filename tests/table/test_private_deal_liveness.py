"""Private dealing: every wait has a deadline and a culprit (issue 24, item 4).

A headless host, one bot seat and three remote wire clients (`tests/masked_table.py`,
no sockets, time a number moved to each wake-up). One client griefs in exactly one way,
every round: it withholds its key releases, sends wrong keys, withholds its shuffle
step, withholds the reveal of its hand at the round's end, withholds its audit, or is
away (disconnected) at every shuffle and back 62 s later. For each:

- the table is held at most one deadline a round (fake time: a round with honest
  players and zero-delay bots takes no time at all but the deadlines it waited);
- the griefer is the only seat named (notices, void rounds, audit faults);
- after its second missed deadline it leaves the private deal: the host's bot plays its
  seat from the next round, which a notice says; the match goes on to its end;
- no honest client fails a round (every round checks: void rounds check as void).
"""

from __future__ import annotations

from typing import Any

import pytest
from masked_table import MaskedTable, WireClient, masked_round, unpack

from rami_lan.core import events as E
from rami_lan.masked.audit import FaultKind
from rami_lan.net import protocol as P
from rami_lan.table import Stage, TableMachine
from rami_lan.table.dealing import MaskedDealing, step_wait

GRIEFER = 1
"""The griefing client's connection (its seat: 1, the host seats connections in order)."""


class NoticingMachine(TableMachine):
    """Keeps every coded notice it sends (code, data), for the tests to read."""

    def __init__(self, *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        self.notices: list[tuple[str, dict[str, Any]]] = []

        self.deadlines: list[int] = []
        """The round of every private-dealing deadline that ran out."""

    def _notice(self, text: str, code: str | None = None, **data: Any) -> None:
        self.notices.append((code or "", dict(data, text=text)))
        super()._notice(text, code, **data)


class NoticingDealing(MaskedDealing):
    """Keeps (on its machine) the round of every private-dealing deadline that ran out."""

    def late(self, seat: int, now: float) -> None:
        assert isinstance(self.t, NoticingMachine)
        self.t.deadlines.append(self.t.match.round_no)
        super().late(seat, now)

    def close_audit(self, now: float) -> None:
        assert isinstance(self.t, NoticingMachine)
        if self.mr.p.missing_audits() - set(self.t.standing.strikes):
            self.t.deadlines.append(self.t.match.round_no)
        super().close_audit(now)


NoticingMachine.masked_dealing = NoticingDealing


class NoKeys(WireClient):
    """Never releases a key (to the host, to all, or to another seat)."""

    def send(self, kind: str, own_secret: bytes | None = None, core_action: Any = None, **f: Any) -> None:
        if kind == "masked" and f["m"]["k"] == "mk_key":
            return
        super().send(kind, own_secret, core_action, **f)


class WrongKeys(WireClient):
    """Every key it releases has one bit flipped."""

    def send(self, kind: str, own_secret: bytes | None = None, core_action: Any = None, **f: Any) -> None:
        if kind == "masked" and f["m"]["k"] == "mk_key":
            key = bytearray(f["m"]["key"])
            key[0] ^= 1
            f = dict(f, m=dict(f["m"], key=bytes(key)))
        super().send(kind, own_secret, core_action, **f)


class NoShuffle(WireClient):
    """Never sends its mask or lock pass."""

    def send(self, kind: str, own_secret: bytes | None = None, core_action: Any = None, **f: Any) -> None:
        if kind == "masked" and f["m"]["k"] in ("mk_mask", "mk_lock"):
            return
        super().send(kind, own_secret, core_action, **f)


class NoShow(WireClient):
    """At the round's end (``mk_show``) it reveals nothing."""

    showing = False

    def receive(self, wire: bytes) -> None:
        msg = unpack(wire)
        self.showing = isinstance(msg, P.Masked) and msg.m.get("k") == "mk_show"
        try:
            super().receive(wire)
        finally:
            self.showing = False

    def send(self, kind: str, own_secret: bytes | None = None, core_action: Any = None, **f: Any) -> None:
        if self.showing and kind == "masked" and f["m"]["k"] == "mk_reveal":
            return
        super().send(kind, own_secret, core_action, **f)


class NoAudit(WireClient):
    """Never publishes its audit."""

    def send(self, kind: str, own_secret: bytes | None = None, core_action: Any = None, **f: Any) -> None:
        if kind == "masked" and f["m"]["k"] == "mk_audit":
            return
        super().send(kind, own_secret, core_action, **f)


class AwayAtShuffle(WireClient):
    """Drops its connection whenever a shuffle begins (``mk_round``); back 62 s later."""

    back_at: float | None = None

    def receive(self, wire: bytes) -> None:
        msg = unpack(wire)
        super().receive(wire)
        mr = masked_round(self.t.machine)
        if isinstance(msg, P.Welcome) and (mr is None or self.seat not in mr.participants):
            # Back in a round dealt without it: the round it left is over for its client.
            from rami_lan.table.seat_machine import SeatMachine

            self.sm = SeatMachine(self.seat, self.t.variant, self.entropy,
                                  expect=self.tracker.verifier.expected_players)
            self.ms = self.sm.masked
        if isinstance(msg, P.Masked) and msg.m.get("k") == "mk_round" and self.conn in self.t.clients:
            self.back_at = self.t.now + 62.0
            self.t.away.append(self)



    def maybe_act(self) -> bool:
        # Back with a fresh client, its bot may misread the round it came back to: a
        # refused move is followed by the table's fallback move (as a player would retry).
        if self.errors and self.view is not None and self.view.my_turn and self.acted == self.view_no \
                and len(self.errors) != getattr(self, "_retried", 0):
            from rami_lan.core.codec import action_to_plain
            from rami_lan.table.policy import fallback_action

            self._retried = len(self.errors)
            action = fallback_action(self.view)
            if action is not None:
                self.send("action", seq=self.t.seq_no(), action=action_to_plain(action, self.t.variant),
                          core_action=action)
                return True
        return super().maybe_act()


class GriefTable(MaskedTable):
    """A MaskedTable whose away clients come back at their time."""

    def __init__(self, timer: int = 0, **kw: Any) -> None:
        super().__init__(**kw)
        self.away: list[AwayAtShuffle] = []
        if timer:
            from dataclasses import replace

            from masked_table import Entropy

            self.config = replace(self.config, timer=timer)
            self.machine = type(self.machine)(self.config, Entropy(b"host"))

    def run(self, max_steps: int = 200_000, until: Any = None) -> None:
        while (not self.machine.over or self.inbox) and self.steps < max_steps:
            if until is not None and until():
                return
            if self.away and not self.inbox:
                c = self.away[0]
                if c.conn in self.clients:
                    self.drop(c.conn)
                    continue
                if self.wake is None or (c.back_at is not None and c.back_at <= self.wake):
                    self.away.pop(0)
                    self.now = max(self.now, c.back_at or self.now)
                    self.rejoin(c)
                    continue
            self.steps += 1
            if self.inbox:
                self.handle(*self.inbox.popleft())
                continue
            if any(c.maybe_act() for c in list(self.clients.values())):
                continue
            if self.wake is None:
                raise AssertionError(f"stuck: stage {self.machine.stage}, phase {self.machine.match.phase}")
            self.now = max(self.now, self.wake)
            self.feed(self.machine.tick(self.now, max_steps=1))
        while not self.inbox and self.machine.dealing.auditing and self.wake is not None:
            self.now = max(self.now, self.wake)  # the last round's audit: its deadline still fires
            self.feed(self.machine.tick(self.now, max_steps=1))


def _play(griefer: type[WireClient], tmp_path: Any, rounds: int = 4) -> tuple[GriefTable, WireClient]:
    t = GriefTable(bots={3: "moyen"}, variant="rami", limit=100, machine_cls=NoticingMachine,
                   evidence_dir=tmp_path)
    g = t.clients[GRIEFER]
    t.clients[GRIEFER] = griefer(t, GRIEFER, g.nick, g.level, g.seed)
    round_time: dict[int, float] = {}
    state = {"round": 0, "since": t.now}

    def clock() -> bool:
        m = t.machine
        if m.match.round_no != state["round"]:
            state["round"], state["since"] = m.match.round_no, t.now
        round_time[m.match.round_no] = t.now - state["since"]
        return m.match.round_no > rounds or m.over

    t.start()
    t.run(until=clock)
    t.round_time = round_time  # type: ignore[attr-defined]
    return t, next(c for c in [*t.clients.values(), *t.away] if isinstance(c, griefer))


GRIEFERS = [NoKeys, WrongKeys, NoShuffle, NoShow, AwayAtShuffle]


@pytest.mark.parametrize("griefer", GRIEFERS, ids=lambda c: c.__name__)
def test_a_griefer_holds_the_table_one_deadline_a_round_and_leaves_the_private_deal(
        griefer: type[WireClient], tmp_path: Any) -> None:
    t, g = _play(griefer, tmp_path)
    m = t.machine
    seat = g.seat
    assert seat is not None
    # The match went on: past the two rounds it spoiled, with rounds dealt after them.
    assert m.match.round_no > 3, (m.match.round_no, m.stage, m.match.phase)
    # One deadline a round at most. A round takes no time here but the deadlines it
    # waited (bots think in no time, clients answer at once); the away griefer's rounds
    # also hold the plain table's waits for a gone player (the away bot's delay each turn,
    # the reveal timeout), which are not private dealing's.
    assert m.deadlines and max(m.deadlines.count(n) for n in set(m.deadlines)) == 1, m.deadlines
    wait = max(step_wait(t.config), t.config.masked_wait)
    for round_no, spent in t.round_time.items():
        if griefer is not AwayAtShuffle:
            assert spent <= wait + 6.0, (round_no, spent)  # (+ a void round's short audit wait)
    # It is the only one named: the late/left notices, the void rounds, the audit faults.
    named = [(c, d.get("seat")) for c, d in m.notices
             if c in ("private_deal_late", "private_round_void", "private_deal_benched",
                      "private_deal_fault")]
    assert named and {s for _c, s in named} == {seat}, named
    voids = [e for c in t.clients.values() if c.seat != seat for e in c.pending + c.events
             if isinstance(e, E.RoundVoided)]
    assert all(e.seat == seat for e in voids)
    for report in m.masked_reports:
        assert report.named <= {seat}, report.faults
    # Its second miss took it out of the private deal: noticed once, played by the bot.
    benched = [d for c, d in m.notices if c == "private_deal_benched"]
    assert len(benched) == 1 and seat in m.standing.out
    assert masked_round(m) is None or seat not in masked_round(m).participants
    assert len(m.standing.strikes[seat]) == 2
    # No honest client fails a round because of it.
    for c in t.clients.values():
        if c.seat == seat:
            continue
        statuses = [(r.round_no, r.status, r.reason) for r in c.tracker.rounds()]
        assert statuses and all(s != "failed" for _n, s, _r in statuses), statuses
        assert not c.ms.faults, c.ms.faults


def test_a_withheld_audit_costs_one_deadline_and_the_last_rounds_audit_ends_the_match(
        tmp_path: Any) -> None:
    """The audit has its deadline (``audit_timeout``), in the match's last round too:
    the match ends; the withholder is named for its missing audit, nobody else."""
    t = GriefTable(bots={3: "moyen"}, variant="rami", limit=1, machine_cls=NoticingMachine,
                   evidence_dir=tmp_path)
    g = t.clients[GRIEFER]
    t.clients[GRIEFER] = NoAudit(t, GRIEFER, g.nick, g.level, g.seed)
    t.start()
    t.run()
    m = t.machine
    assert m.match.over and not m.dealing.auditing and m.stage is Stage.OVER
    assert m.masked_reports and m.masked_reports[-1].named == {t.clients[GRIEFER].seat}
    assert {f.kind for f in m.masked_reports[-1].faults} == {FaultKind.MISSING_AUDIT}
    late = [d for c, d in m.notices if c == "private_deal_late"]
    assert [d["seat"] for d in late] == [t.clients[GRIEFER].seat] and late[0]["left"] is False
    assert not [d for c, d in m.notices if c == "private_audit_faults"]
    assert t.now - 10.0 <= t.config.audit_timeout + 1.0


def test_a_withheld_audit_in_every_round_benches_the_seat(tmp_path: Any) -> None:
    t, g = _play(NoAudit, tmp_path)
    m = t.machine
    assert g.seat in m.standing.out and len(m.standing.strikes[g.seat]) == 2
    for spent in t.round_time.values():
        assert spent <= t.config.audit_timeout + 1.0
    # Without its secrets nobody can recompute those rounds' decks: the honest clients
    # check them partly (the commit-reveal), naming the withholder, never failing them;
    # nothing they say names the host or an honest seat; the rounds after it is out check.
    for c in t.clients.values():
        if c is g:
            continue
        rounds = c.tracker.rounds()
        for r in rounds:
            assert "seat 255" not in r.reason and "DROPPED" not in r.reason, r.reason
            assert r.status != "failed", (r.round_no, r.reason)
            if r.round_no in m.standing.strikes[g.seat]:
                assert r.status == "partial" and r.withheld == (g.seat,), (r.round_no, r.reason)
        assert all(r.status == "checked" for r in rounds if r.round_no not in m.standing.strikes[g.seat]
                   and r.status != "pending")


def test_a_player_who_left_is_shown_as_left_never_as_a_fault(tmp_path: Any) -> None:
    """A crash mid-round: the void names it as gone ("left"), and the audit's missing
    publication is no "fault" of the round (no private_audit_faults notice)."""
    t = GriefTable(bots={3: "moyen"}, variant="rami", limit=100, machine_cls=NoticingMachine,
                   evidence_dir=tmp_path)
    t.start()
    t.run(until=lambda: t.machine.match.round is not None and t.machine.match.round.turn_no >= 6)
    round_no = t.machine.match.round_no
    gone = t.drop(2)
    t.run(until=lambda: t.machine.match.round_no > round_no + 1)
    m = t.machine
    late = [d for c, d in m.notices if c == "private_deal_late"]
    assert late and all(d["seat"] == gone.seat and d["left"] is True for d in late)
    assert not [d for c, d in m.notices if c == "private_audit_faults"]


class Idle(WireClient):
    """The host's own player, who never moves (it answers between rounds only)."""

    def maybe_act(self) -> bool:
        if self.view is not None and self.view.my_turn and self.view.phase in ("draw", "play"):
            return False
        return super().maybe_act()


class SlowKeys(WireClient):
    """Holds its key releases back until the test lets them go (a slow machine)."""

    holding = False

    def send(self, kind: str, own_secret: bytes | None = None, core_action: Any = None, **f: Any) -> None:
        m = f.get("m") or {}
        if self.holding and kind == "masked" and m.get("k") == "mk_key" \
                and m["to"] not in (None, self.t.machine.host_seat):
            self.held.append((kind, own_secret, core_action, f))
            return
        super().send(kind, own_secret, core_action, **f)

    def let_go(self) -> None:
        self.holding = False
        held, self.held = self.held, []
        for kind, secret, action, f in held:
            super().send(kind, secret, action, **f)


def _owner_table(tmp_path: Any, timer: int = 15) -> GriefTable:
    t = GriefTable(bots={3: "moyen"}, variant="rami", limit=50, machine_cls=NoticingMachine,
                   evidence_dir=tmp_path, owner=True, timer=timer)
    return t


def test_the_host_players_move_timer_plays_its_automatic_move(tmp_path: Any) -> None:
    """The host's own seat, whose timer runs out in the draw phase: the automatic move
    (draw, then throw the drawn card away) is played even though the drawn card is
    masked from the host until the others' keys come (the draw first, the rest once
    the card is known); the turn passes, and every seat checks the round."""
    t = _owner_table(tmp_path)
    o = t.clients[1]
    t.clients[1] = Idle(t, 1, o.nick, o.level, o.seed, owner=True)
    t.start()
    m = t.machine
    t.run(until=lambda: any(isinstance(e, E.TimedOut) and e.seat == 0
                            for c in t.clients.values() for e in c.pending + c.events)
          and m.dealing.halved is None and not t.inbox)
    timed = [e for c in t.clients.values() if c.seat == 1 for e in c.pending + c.events
             if isinstance(e, E.TimedOut | E.StockDrawn | E.Discarded) and e.seat == 0]
    kinds = [type(e).__name__ for e in timed]
    assert kinds[:3] == ["TimedOut", "StockDrawn", "Discarded"], kinds
    assert m.match.round is not None and m.match.round.turn != 0 or m.match.phase != "draw"
    assert m.deadline() is None or m.deadline() >= t.now  # no deadline left in the past
    t.run(until=lambda: m.match.round_no >= 2)
    for c in t.clients.values():
        first = c.tracker.rounds()[0]
        assert first.status == "checked", (c.seat, first.reason)


def test_the_move_timer_starts_once_the_player_has_its_cards(tmp_path: Any) -> None:
    """A slow participant's keys take 6 s to come: the first player's move timer starts
    when its hand is known, not at the deal (its first frame shows the whole timer)."""
    t = GriefTable(bots={3: "moyen"}, variant="rami", limit=50, machine_cls=NoticingMachine,
                   evidence_dir=tmp_path, timer=15)
    slow = []
    for conn in (1, 2, 3):  # the remote participants hold their keys for each other
        o = t.clients[conn]
        c = t.clients[conn] = SlowKeys(t, conn, o.nick, o.level, o.seed)
        c.held, c.holding = [], True
        slow.append(c)
    t.start()
    m = t.machine
    t.run(until=lambda: m.stage.value == "playing" and not t.inbox)
    r = m.match.round
    assert r is not None and r.turn in masked_round(m).blind  # (this table's seed: a remote seat begins)
    assert m._turn_waiting and m._auto_deadline()[0] is None
    dealt_at = t.now
    t.now += 6.0
    for c in slow:
        c.let_go()
    t.run(until=lambda: not t.inbox and not m._turn_waiting)
    assert m.move_deadline() == pytest.approx(dealt_at + 6.0 + t.config.timer)


class LyingAudit(WireClient):
    """Its audit's "sent" list claims a key release to another seat it never sent."""

    def send(self, kind: str, own_secret: bytes | None = None, core_action: Any = None, **f: Any) -> None:
        m = f.get("m") or {}
        if kind == "masked" and m.get("k") == "mk_audit":
            other = next(s for s in (0, 1, 2) if s != self.seat)
            f = dict(f, m=dict(m, sent=[*m["sent"], ["mk_key", 0, 70, other]]))
        super().send(kind, own_secret, core_action, **f)


def test_a_lying_audit_frames_nobody_and_its_liar_leaves_the_private_deal(tmp_path: Any) -> None:
    """The host relayed every message, so it knows the claim is false: it names the liar
    (``FALSE_CLAIM``), and after two rounds the liar leaves the private deal. The honest
    clients take the claim for what it is, its author's word: an unproven claim, never a
    fault of the host ("DROPPED by seat 255" is gone), so every round checks for them."""
    t, g = _play(LyingAudit, tmp_path)
    m = t.machine
    faults = [d for c, d in m.notices if c == "private_deal_fault"]
    assert faults and {d["seat"] for d in faults} == {g.seat}
    assert {d["kind"] for d in faults} == {"FALSE_CLAIM"}
    assert g.seat in m.standing.out and len(m.standing.strikes[g.seat]) == 2 and not m.deadlines
    honest = [c for c in t.clients.values() if c is not g]
    for c in honest:
        for r in c.tracker.rounds():
            assert r.status in ("checked", "pending"), (r.round_no, r.reason)
        assert all(not rep.faults for rep in c.ms.reports.values())
    assert any(rep.claims for c in honest for rep in c.ms.reports.values())


def test_a_hand_over_with_a_wrong_key_changes_nothing(tmp_path: Any) -> None:
    """A leaving player's hand-over carries one wrong stock key: the host names it and
    takes nothing of it (the seat stays a participant, nobody is told it left)."""
    t = GriefTable(bots={3: "moyen"}, variant="rami", limit=50, machine_cls=NoticingMachine,
                   evidence_dir=tmp_path)
    t.start()
    m = t.machine
    t.run(until=lambda: m.match.round is not None and m.match.round.turn_no >= 4 and not t.inbox)
    c = t.clients[2]
    outs = c.ms.hand_over()
    assert outs
    for out in outs:
        if out["k"] == "mk_handover":
            deck, pos, key = out["keys"][0]
            out = dict(out, keys=[[deck, pos, bytes([key[0] ^ 1]) + key[1:]], *out["keys"][1:]])
        c.send("masked", m=out)
    while t.inbox:
        t.handle(*t.inbox.popleft())
    assert c.seat in masked_round(m).blind and c.seat not in m.dealing.handed
    assert any(f.kind is FaultKind.WRONG_KEY and f.seat == c.seat for f in masked_round(m).faults)
    for other in t.clients.values():
        if other is not c:
            assert c.seat not in other.ms.p._left  # the hand-over never reached them


def test_an_audit_of_another_round_is_refused() -> None:
    """``mk_audit`` carries its round's tag: a late audit is never taken as the next
    round's (it once made an honest seat look like a BAD_MASK cheat)."""
    from rami_lan.masked.memory import MemoryTable, deal
    from rami_lan.masked.session import MaskedProtocolError

    def tag(n: int) -> bytes:
        return b"rami-lan/v1" + bytes(16) + (1).to_bytes(4, "big") + n.to_bytes(4, "big")

    old, new = MemoryTable(tag(1), (0, 1, 2), 0, 12), MemoryTable(tag(2), (0, 1, 2), 0, 12)
    for table in (old, new):
        table.start_deck(0, range(12))
        deal(table, (1, 2, 0), 2)
    late = old.participants[1].publish_audit().outgoing[0].message
    assert late.tag == tag(1)
    with pytest.raises(MaskedProtocolError, match="another round"):
        new.participants[2].receive(late)


class LateTwice(WireClient):
    """Withholds its shuffle step until it is out of the private deal (its second missed
    deadline), then plays honestly: the host's bot plays its seat."""

    def send(self, kind: str, own_secret: bytes | None = None, core_action: Any = None, **f: Any) -> None:
        if (kind == "masked" and f["m"]["k"] in ("mk_mask", "mk_lock")
                and self.t.machine.match.round_no <= 4 and self.seat not in self.t.machine.standing.out):
            return
        super().send(kind, own_secret, core_action, **f)


def test_a_seat_out_of_the_private_deal_checks_the_bots_moves_for_it_without_accusing_the_host(
        tmp_path: Any) -> None:
    """Issue 29 (chaos, private-stops): from the round after its second miss the seat
    is no participant (``mk_own``), the host's bot plays it and refuses its moves; its
    verifier replays those rounds with the rules and accuses nobody for the bot's moves."""
    t, g = _play(LateTwice, tmp_path, rounds=5)
    m = t.machine
    assert g.seat in m.standing.out
    benched_from = max(m.standing.strikes[g.seat]) + 1
    assert "mk_own" in g.owner_masked  # it was told the host holds its seat's keys
    rounds = {r.round_no: r for r in g.tracker.rounds()}
    after = [r for n, r in rounds.items() if n >= benched_from and r.status != "pending"]
    assert after, rounds
    assert all(r.status != "failed" for r in rounds.values()), [
        (r.round_no, r.status, r.reason) for r in rounds.values()]
    assert any(r.status == "checked" for r in after), [(r.round_no, r.status, r.reason) for r in after]


def test_when_every_remote_player_left_the_private_deal_nobody_is_accused_for_the_bots_moves(
        tmp_path: Any) -> None:
    """Both remote players miss two rounds' deadlines: later rounds have no key holder
    but the host (no ``mk_own``: dealt from the seed) and its bot plays both seats. Each
    player's verifier learnt it from the ``private_deal_benched`` notice naming it."""
    t = GriefTable(bots={3: "moyen"}, variant="rami", limit=100, machine_cls=NoticingMachine,
                   evidence_dir=tmp_path)
    for conn, c in list(t.clients.items()):
        t.clients[conn] = LateTwice(t, conn, c.nick, c.level, c.seed)
    t.start()
    t.run(until=lambda: t.machine.match.round_no > 6 or t.machine.over)
    m = t.machine
    remote = [c for c in t.clients.values() if c.seat != m.host_seat]
    assert remote and all(c.seat in m.standing.out for c in remote), m.standing.out
    for c in remote:
        rounds = c.tracker.rounds()
        assert all(r.status != "failed" for r in rounds), [(r.round_no, r.status, r.reason) for r in rounds]
        after = [r for r in rounds if r.round_no > max(m.standing.strikes[c.seat]) + 1]
        assert any(r.status == "checked" for r in after), [(r.round_no, r.status, r.reason) for r in rounds]
