"""The table machine with no event loop and no socket: a whole 4-seat match, every effect.

Two bot seats (the machine's own policies, think delay as a deadline), two scripted
seats (this test plays them from the views the machine sends them), one reconnect, one
move-timer expiry, one chat line. Time is a number the test moves forward to each
`Wake` deadline. Each effect is checked as it comes: it would encode on the wire, a
seat only ever sees its own view and its own cards, the journal comes before the sends
it covers, and the fair-shuffle messages follow FAIR_SHUFFLE.md.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from rami_lan.bots import make_bot
from rami_lan.core import events as E
from rami_lan.core.codec import event_to_plain, view_to_plain
from rami_lan.core.views import view_for
from rami_lan.ids import BYE_TABLE_CLOSED, BYE_TABLE_PAUSED
from rami_lan.net import protocol as P
from rami_lan.net.record import MatchRecord, verify
from rami_lan.table import TableConfig, TableMachine
from rami_lan.table import effects as F
from rami_lan.table.machine import NOTICE_GRACE, Stage
from rami_lan.table.shuffle import commitment, deck_order, round_tag


class Entropy:
    def __init__(self) -> None:
        self.n = 0

    def __call__(self, n: int) -> bytes:
        self.n += 1
        return hashlib.sha256(b"test entropy" + self.n.to_bytes(4, "big")).digest()[:n]


class Client:
    """A scripted seat: remembers what the machine sent it, answers like a client."""

    def __init__(self, conn: int, nick: str, seed: int) -> None:
        self.conn = conn
        self.nick = nick
        self.seat: int | None = None
        self.token: bytes | None = None
        self.view: Any = None
        self.msgs: list[F.Msg] = []
        self.policy: Any = None
        self.seed = seed
        self.secrets: dict[bytes, bytes] = {}

    def kinds(self) -> list[str]:
        return [m.KIND for m in self.msgs]


def check_effects(effects: list[F.Effect], machine: TableMachine, clients: dict[int, Client],
                  now: float) -> None:
    """Every effect is well formed, and what it sends may go on the wire to that seat."""
    assert isinstance(effects[-1], F.Wake), "every input ends with the next wake-up"
    journaled = False
    for eff in effects:
        if isinstance(eff, F.JournalAppend | F.JournalSnapshot):
            journaled = True
        if isinstance(eff, F.Applied):
            assert journaled, "a change before its journal record (write-ahead)"
            journaled = False
        if isinstance(eff, F.Wake):
            assert eff.at is None or eff.at >= now - 1e-9 or machine.stage is Stage.PLAYING
        if not isinstance(eff, F.Send):
            continue
        client = clients[eff.conn]
        msg = eff.msg
        client.msgs.append(msg)
        if isinstance(msg, F.SeatViewMsg):
            assert msg.view.seat == client.seat, "a view for another seat"
            wire_msg: P.Message = P.View(seq=msg.seq, view=view_to_plain(msg.view))
            client.view = msg.view
        elif isinstance(msg, F.EventsMsg):
            plain = []
            for e in msg.events:
                if isinstance(e, F.TableNotice):
                    assert e.to_plain()["type"] == "TableNotice"
                    plain.append(e.to_plain())
                    continue
                if isinstance(e, E.CardsDealt) and e.seat != client.seat:
                    assert e.cards is None, "someone else's dealt cards"
                plain.append(event_to_plain(e, machine.variant))
            wire_msg = P.Events(seq=msg.seq, events=plain)
        else:
            assert isinstance(msg, P.Message) and type(msg) is P.KINDS[msg.KIND]
            wire_msg = msg
        if isinstance(msg, P.Welcome):
            client.seat, client.token = msg.seat, msg.token
        elif isinstance(msg, P.CommitRequest | P.Commitments | P.RoundSecrets):
            # One tag per round: round_tag(table_id, match_no, round_no), the current one.
            tags = [round_tag(machine.table_id, 1, n) for n in range(1, 40)]
            assert msg.round_tag == machine._round.tag and msg.round_tag in tags
        # It encodes and parses as the protocol says.
        wire = wire_msg.to_wire()
        assert P.Message.from_wire(wire).KIND == msg.KIND


def test_a_whole_match_through_the_machine_with_no_loop_and_no_socket() -> None:
    config = TableConfig(name="machine", variant="rami", seats=4, bots={2: "moyen", 3: "moyen"},
                         limit=1, timer=20, headless=True, advertise=False, bot_delay=0.5,
                         commit_timeout=3, reveal_timeout=3, between_timeout=5,
                         journal_dir="/nowhere")  # the machine only asks for journal writes
    entropy = Entropy()
    machine = TableMachine(config, entropy)
    machine.record = MatchRecord.new(machine, config)
    clients = {1: Client(1, "ana", 1), 2: Client(2, "bo", 2)}
    all_effects: list[F.Effect] = []
    now = 100.0

    def feed(effects: list[F.Effect]) -> list[F.Effect]:
        check_effects(effects, machine, clients, now)
        all_effects.extend(effects)
        return effects

    # Seating: the first hello waits; the second fills the table: the match starts.
    out = feed(machine.joined(1, now, nick="ana"))
    assert [m.KIND for m in clients[1].msgs][:1] == ["welcome"] and machine.stage is Stage.WAITING
    assert any(isinstance(e, F.AdChange) and e.seats_taken == 3 for e in out)
    out = feed(machine.joined(2, now, nick="bo"))
    assert machine.stage is Stage.COMMIT
    assert any(isinstance(e, F.JournalOpen) for e in out)
    # The join notice: the newcomer learns the players from its welcome only, once.
    assert clients[2].kinds().count("welcome") == 1
    assert not any(m.KIND == "events" for m in clients[2].msgs)
    # Every seated remote human is asked to commit, with the round's one tag.
    tag = round_tag(machine.table_id, 1, 1)
    for c in clients.values():
        req = [m for m in c.msgs if m.KIND == "commit_request"]
        assert len(req) == 1 and req[0].round_tag == tag

    def commit_and_reveal(conns: list[Client]) -> None:
        nonlocal now
        for c in conns:
            secret = hashlib.sha256(b"secret" + bytes([c.seat or 0]) + tag).digest()
            c.secrets[tag] = secret
            feed(machine.commit(c.conn, tag, commitment(tag, c.seat, secret), now))
        assert machine.stage is Stage.REVEAL
        for c in conns:
            feed(machine.reveal(c.conn, tag, c.secrets[tag], now))

    commit_and_reveal(list(clients.values()))
    assert machine.stage is Stage.PLAYING and machine.match.round is not None
    # The deck is deck_order(seed, n) of the agreed seed, and the dealt hands come from it.
    seed = machine._round.seed
    assert seed is not None
    assert machine.record._current["deck"] == deck_order(seed, machine.variant.deck_size)

    # A chat line goes to every seated player, cleaned.
    feed(machine.chat(1, "  bonjour\tà tous ", now))
    for c in clients.values():
        assert c.msgs[-1] == P.ChatMsg(seat=0, text="bonjour à tous")
    # A bot seat may not chat through the machine either way: a bot conn is refused.

    seq = 0
    timed_out = False
    reconnected = False
    steps = 0
    for c in clients.values():
        c.policy = make_bot("debutant", c.seat, c.seed)
    while not machine.over:
        steps += 1
        assert steps < 5000, "the match does not end"
        m = machine.match
        r = m.round
        if m.phase in ("draw", "play") and r is not None:
            turn = r.turn
            client = next((c for c in clients.values() if c.seat == turn), None)
            if client is not None and not timed_out and client.seat == 0 and r.turn_no >= 4:
                # Seat 0 idles: its move timer runs out at turn start + 20 s, however long
                # the other seat takes to reconnect meanwhile.
                deadline = machine.move_deadline()
                assert deadline is not None
                if not reconnected:
                    feed(machine.left(2, now))  # seat 1 drops...
                    now += NOTICE_GRACE / 2
                    clients[3] = clients.pop(2)
                    clients[3].conn = 3
                    out = feed(machine.joined(3, now, nick="bo", token=clients[3].token))
                    reconnected = True
                    assert machine.move_deadline() == deadline  # a reconnect never resets it
                    # ... and comes back within the grace: nobody is told about it.
                    assert not [m for m in clients[1].msgs[-3:] if m.KIND == "events"
                                and any(isinstance(e, F.TableNotice) for e in m.events)]
                    welcome = next(m for m in clients[3].msgs[::-1] if m.KIND == "welcome")
                    assert welcome.seat == 1 and welcome.token == clients[3].token
                now = deadline
                out = feed(machine.tick(now))
                applied = [ev for eff in out if isinstance(eff, F.Applied) for ev in eff.events]
                assert any(isinstance(ev, E.TimedOut) and ev.seat == 0 for ev in applied)
                timed_out = True
                continue
            if client is not None and client.view is not None and client.view.my_turn:
                seq += 1
                action = client.policy.choose(client.view, ())
                feed(machine.action(client.conn, seq, action, now))
                continue
        if machine.stage is Stage.BETWEEN:
            for c in clients.values():
                feed(machine.next_round(c.conn, "continue", now))
            continue
        if machine.stage is Stage.COMMIT:
            tag = machine._round.tag
            commit_and_reveal(list(clients.values()))
            continue
        at = machine.deadline()
        assert at is not None, f"stuck in {machine.stage}"
        now = max(now, at)
        feed(machine.tick(now))

    assert timed_out and reconnected
    # The match is over: secrets went to everyone, the record was written and verifies,
    # the journal says "end" and is closed for good.
    over = [e for e in all_effects if isinstance(e, F.MatchOver)]
    assert len(over) == 1 and over[0].winner == machine.match.winner
    for c in clients.values():
        assert "round_secrets" in c.kinds()
    ends = [e for e in all_effects if isinstance(e, F.JournalAppend) and e.kind == "end"]
    assert len(ends) == 1
    assert any(isinstance(e, F.JournalClose) and e.delete for e in all_effects)
    record = [e for e in all_effects if isinstance(e, F.WriteRecord)][-1].plain
    report = verify(record)
    assert report.ok, report.text()
    assert "timer" in record["rounds"][0]["played_by"]
    assert "bot" in record["rounds"][0]["played_by"]
    kinds = {p["seat"]: p["kind"] for p in record["players"]}
    assert kinds == {0: "human", 1: "human", 2: "bot", 3: "bot"}
    # Journal before the changes it covers: every action record precedes its views.
    journal = [e for e in all_effects if isinstance(e, F.JournalAppend) and e.kind == "action"]
    assert len(journal) == sum(len(r["actions"]) for r in record["rounds"])
    assert all(len(b) == 16 for b in [clients[1].token, clients[3].token])
    # Tokens are kept hashed: the snapshot never holds one in clear.
    snaps = [e.body for e in all_effects if isinstance(e, F.JournalSnapshot)]
    assert snaps
    for body in snaps:
        for seat in body["seats"]:
            assert seat["token_sha256"] not in (clients[1].token, clients[3].token)


def test_an_early_next_round_is_unexpected_and_closes() -> None:
    config = TableConfig(name="x", seats=3, bots={2: "moyen"}, headless=True, advertise=False)
    machine = TableMachine(config, Entropy())
    machine.joined(1, 0.0, nick="a")  # the match waits for seat 1: nothing to answer yet
    out = machine.next_round(1, "continue", 0.0)
    refusal = F.Send(1, P.Error(code="unexpected", message="not between rounds"))
    assert refusal in out and F.Close(1) in out
    # During a round it is only refused (a race with the deal must not cost the seat).
    machine.left(1, 0.0)  # the adapter closed it
    machine.joined(2, 0.0, nick="b")
    machine.joined(3, 0.0, nick="c")
    assert machine.stage is Stage.COMMIT
    out = machine.next_round(3, "continue", 0.0)
    assert F.Send(3, refusal.msg) in out and F.Close(3) not in out


def test_bot_think_delay_is_a_deadline_a_reconnect_does_not_restart() -> None:
    config = TableConfig(name="x", seats=2, bots={1: "moyen"}, headless=True, advertise=False,
                         bot_delay=4.0, commit_timeout=1, reveal_timeout=1)
    machine = TableMachine(config, Entropy())
    out = machine.joined(1, 0.0, nick="a")
    token = next(e.msg.token for e in out
                 if isinstance(e, F.Send) and e.msg.KIND == "welcome")
    tag = machine._round.tag
    secret = b"s" * 32
    machine.commit(1, tag, commitment(tag, 0, secret), 0.0)
    machine.reveal(1, tag, secret, 0.0)
    bot = make_bot("debutant", 0, 1)
    seq = 0
    while machine.match.round.turn != 1:
        seq += 1
        action = bot.choose(view_for(machine.match, 0), ())
        machine.action(1, seq, action, 1.0)
    at, seat, what = machine._auto_deadline()
    assert (seat, what) == (1, "bot") and at == machine._changed_at + 4.0  # after the last change
    machine.left(1, at - 1.0)
    machine.joined(2, at - 0.5, nick="a", token=token)
    assert machine._auto_deadline()[0] == at  # the reconnect did not restart the pause
    assert not [e for e in machine.tick(at - 0.1) if isinstance(e, F.Applied)]
    assert [e for e in machine.tick(at) if isinstance(e, F.Applied)]


def test_reconnect_tokens_are_compared_as_hashes() -> None:
    config = TableConfig(name="x", seats=2, bots={1: "moyen"}, headless=True, advertise=False)
    machine = TableMachine(config, Entropy())
    out = machine.joined(1, 0.0, nick="a")
    token = next(e.msg.token for e in out
                 if isinstance(e, F.Send) and e.msg.KIND == "welcome")
    assert machine.seats[0].token != token and len(machine.seats[0].token) == 32
    assert machine.seat_for_token(token) is machine.seats[0]
    assert machine.seat_for_token(bytes(16)) is None
    out = machine.joined(2, 1.0, nick="z", token=bytes(16))
    assert F.Send(2, P.Refused(code="bad_token",
                                      message="unknown or expired reconnect token")) in out


@pytest.mark.parametrize("override", ["deck_for_round", "seats_to_commit", "round_tag_for"])
def test_each_fair_shuffle_duty_is_one_overridable_method(override: str) -> None:
    assert callable(getattr(TableMachine, override))


def _seat_turn(machine: TableMachine, seat: int, now: float) -> float:
    """Let the bots play (ticking to each deadline) until ``seat`` is to play."""
    while machine.match.round.turn != seat or machine.match.phase != "draw":
        at = machine.deadline()
        assert at is not None
        now = max(now, at)
        machine.tick(now)
    return now


def test_a_dropped_players_whole_turn_takes_one_timer() -> None:
    config = TableConfig(name="x", seats=3, bots={1: "moyen", 2: "moyen"}, headless=True,
                         advertise=False, bot_delay=0.0, away_delay=6.0)
    machine = TableMachine(config, Entropy())
    machine.joined(1, 0.0, nick="a")
    tag = machine._round.tag
    machine.commit(1, tag, commitment(tag, 0, b"k" * 32), 0.0)
    machine.reveal(1, tag, b"k" * 32, 0.0)
    now = _seat_turn(machine, 0, 0.0)
    machine.left(1, now)
    turn_no = machine.match.round.turn_no
    assert machine._auto_deadline()[:2] == (now + 6.0, 0)  # the turn started at `now`
    assert not [e for e in machine.tick(now + 5.9) if isinstance(e, F.Applied)]
    # At the deadline a bot draws and discards for the dropped player: no second wait.
    out = machine.tick(now + 6.0, max_steps=50)  # every move of that turn, at once
    applied = [ev for e in out if isinstance(e, F.Applied) for ev in e.events]
    assert any(isinstance(ev, E.StockDrawn | E.DiscardTaken) for ev in applied)
    assert machine.match.round.turn_no != turn_no or machine.match.round.phase == "over"


def _round_under_way(machine_class: type[TableMachine], **config: Any) -> TableMachine:
    """A heads-up table (seat 0 a player, seat 1 a bot) whose first round has been dealt:
    the player committed and revealed its secret."""
    cfg = TableConfig(name="x", seats=2, bots={1: "moyen"}, headless=True, advertise=False,
                      bot_delay=0.0, limit=1, **config)
    machine = machine_class(cfg, Entropy())
    machine.record = MatchRecord.new(machine, cfg)
    machine.joined(1, 0.0, nick="a")
    tag = machine._round.tag
    machine.commit(1, tag, commitment(tag, 0, b"k" * 32), 0.0)
    machine.reveal(1, tag, b"k" * 32, 0.0)
    return machine


def test_a_cheating_deck_is_one_override_and_the_record_shows_it() -> None:
    class Cheat(TableMachine):
        def deck_for_round(self, seed: bytes, n_cards: int) -> list[int]:
            deck = super().deck_for_round(seed, n_cards)
            deck[0], deck[-1] = deck[-1], deck[0]
            return deck

    machine = _round_under_way(Cheat)
    out = machine.stop(1.0)  # the round is abandoned: its secrets go out, the record too
    record = [e for e in out if isinstance(e, F.WriteRecord)][-1].plain
    assert not verify(record).ok


@pytest.mark.parametrize("journal", [False, True])
def test_a_paused_table_keeps_its_round_secret_a_closed_one_publishes_it(journal: bool) -> None:
    """Stopped mid-round with its journal kept, the host resumes the same round later: its
    players (still waiting, connected again) must not get that round's secrets, or they
    would know the deck of a round that goes on (and, rightly, accuse the host when it
    does). Closed for good (no journal), the round is abandoned and its secrets go out."""
    machine = _round_under_way(TableMachine, journal_dir="/nowhere" if journal else None)
    tag = machine._round.tag
    assert machine.match.phase in ("draw", "play")
    out = machine.stop(1.0)
    sent = [e.msg for e in out if isinstance(e, F.Send)]
    byes = [m.reason for m in sent if isinstance(m, P.Bye)]
    secrets = [m for m in sent if isinstance(m, P.RoundSecrets)]
    if journal:
        assert byes == [BYE_TABLE_PAUSED] and secrets == []
        assert any(isinstance(e, F.JournalClose) and not e.delete for e in out)
    else:
        assert byes == [BYE_TABLE_CLOSED] and len(secrets) == 1 and secrets[0].round_tag == tag


class _Rec:
    def __init__(self, kind: str, body: Any) -> None:
        self.kind, self.body = kind, body


def _journal_of(effects: list[F.Effect]) -> tuple[Any, list[_Rec]]:
    snap: Any = None
    records: list[_Rec] = []
    for e in effects:
        if isinstance(e, F.JournalSnapshot):
            snap, records = dict(e.body), []
        elif isinstance(e, F.JournalAppend):
            records.append(_Rec(e.kind, dict(e.body)))
    return snap, records


@pytest.mark.parametrize("crash_in", ["commit", "reveal", "between"])
def test_resume_in_commit_reveal_or_between_rounds_does_not_stall(crash_in: str) -> None:
    config = TableConfig(name="x", seats=2, bots={1: "moyen"}, headless=True, advertise=False,
                         bot_delay=0.0, limit=100, journal_dir="/nowhere", commit_timeout=5,
                         reveal_timeout=5, between_timeout=60, resume_grace=2)
    machine = TableMachine(config, Entropy())
    effects: list[F.Effect] = []
    effects += machine.joined(1, 0.0, nick="a")
    token = next(e.msg.token for e in effects
                 if isinstance(e, F.Send) and e.msg.KIND == "welcome")
    tag = machine._round.tag
    effects += machine.commit(1, tag, commitment(tag, 0, b"k" * 32), 0.0)
    effects += machine.reveal(1, tag, b"k" * 32, 0.0)
    now = 0.0
    bot = make_bot("debutant", 0, 1)
    seq = 0
    while machine.stage is Stage.PLAYING:
        if machine.match.round.turn == 0:
            seq += 1
            action = bot.choose(view_for(machine.match, 0), ())
            effects += machine.action(1, seq, action, now)
        else:
            now = max(now, machine.deadline())
            effects += machine.tick(now)
    assert machine.stage is Stage.BETWEEN
    if crash_in != "between":
        effects += machine.next_round(1, "continue", now)
        tag2 = machine._round.tag
        assert machine.stage is Stage.COMMIT
        if crash_in == "reveal":
            effects += machine.commit(1, tag2, commitment(tag2, 0, b"q" * 32), now)
            assert machine.stage is Stage.REVEAL
    else:
        effects += machine.next_round(1, "continue", now) if False else []
    # kill -9: rebuild from what the journal holds.
    snap, records = _journal_of(effects)
    again = TableMachine.restore(snap, records, config, Entropy())
    out = again.resumed(50.0)
    sent = [e.msg for e in out if isinstance(e, F.Send)]
    out += again.joined(7, 50.5, nick="a", token=token)
    msgs = [e.msg for e in out if isinstance(e, F.Send) and e.conn == 7]
    if crash_in == "commit":
        # The same tag, asked again: no commitment set was ever published for it.
        assert again._round.tag == tag2
        req = [m for m in msgs if m.KIND == "commit_request"]
        assert req and req[0].round_tag == tag2
        out = again.commit(7, tag2, commitment(tag2, 0, b"z" * 32), 51.0)
        out += again.reveal(7, tag2, b"z" * 32, 51.0)
    elif crash_in == "reveal":
        # The published commitments stand: the reveal is still awaited for that tag.
        assert again.stage is Stage.REVEAL and again._round.tag == tag2
        assert any(m.KIND == "commitments" and m.round_tag == tag2 for m in msgs)
        out = again.reveal(7, tag2, b"q" * 32, 51.0)
    else:
        # Between rounds, the player is back: its "continue" starts the next round.
        assert not sent
        out = again.next_round(7, "continue", 51.0)
        tag2 = again._round.tag
        out += again.commit(7, tag2, commitment(tag2, 0, b"z" * 32), 51.0)
        out += again.reveal(7, tag2, b"z" * 32, 51.0)
    assert again.stage is Stage.PLAYING and again.match.round_no == 2
    assert tag2 != tag


def test_a_bot_client_is_recorded_as_a_bot_and_its_card_is_a_bot_card() -> None:
    config = TableConfig(name="x", seats=2, headless=True, advertise=False)
    machine = TableMachine(config, Entropy())
    machine.record = MatchRecord.new(machine, config)
    machine.joined(1, 0.0, nick="robot", bot=True)
    machine.joined(2, 0.0, nick="human")
    assert [p["kind"] for p in machine.record.data["players"]] == ["bot", "human"]
    out = machine.chat(1, "hello", 0.0)
    assert any(isinstance(e, F.Send) and e.msg.KIND == "error"
               and e.msg.code == "chat_refused" for e in out)


def test_own_card_is_sent_once_and_an_unchanged_card_not_again() -> None:
    from rami_lan.stats import Connection, PlayerCard

    config = TableConfig(name="x", seats=3, bots={2: "moyen"}, headless=True, advertise=False)
    machine = TableMachine(config, Entropy())
    machine.joined(1, 0.0, nick="a")
    card = PlayerCard("a", None, Connection.CONNECTED)
    out = machine.card(1, card, 0.0)
    assert [e.conn for e in out if isinstance(e, F.Send) and e.msg.KIND == "card_msg"] == [1]
    out = machine.card(1, card, 0.0)
    assert not [e for e in out if isinstance(e, F.Send)]


def test_bots_get_each_event_once_through_choose_and_wants_knock() -> None:
    """Issue 16: ``wants_knock`` receives the new events too, and no event is given twice
    (the table clears a bot's queue whichever question it asks)."""
    from rami_lan.bots import make_bot
    from rami_lan.core.match import MatchOptions
    from rami_lan.table.selfplay import play_match

    class Recorder:
        def __init__(self, seat: int) -> None:
            self.inner = make_bot("moyen", seat, seat)
            self.seen: list[object] = []  # the events themselves: ids stay unique
            self.knock_events = 0

        def choose(self, view, new_events=()):  # type: ignore[no-untyped-def]
            self.seen += list(new_events)
            return self.inner.choose(view, new_events)

        def wants_knock(self, view, new_events=()):  # type: ignore[no-untyped-def]
            self.seen += list(new_events)
            self.knock_events += len(new_events)
            return self.inner.wants_knock(view, new_events)

    bots = [Recorder(s) for s in range(3)]
    play_match("rami", bots, 7, MatchOptions(limit=1, knock=True))
    for b in bots:
        assert b.seen and len(b.seen) == len({id(e) for e in b.seen}), "an event given twice"
    assert sum(b.knock_events for b in bots) > 0  # knock questions carried events


class _CallLog:
    """A record sink that keeps only the names of the calls it gets, and their round."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self._on = False

    def set_players(self, players: Any) -> None:
        self.calls.append(("set_players", len(players)))

    def begin_round(self, round_no: int, tag: bytes, commit: Any, deck: Any, seed: bytes) -> None:
        self._on = True
        self.calls.append(("begin_round", round_no))

    def recording(self) -> bool:
        return self._on

    def set_round_players(self, m: Any) -> None:
        self.calls.append(("set_round_players", None))

    def log_events(self, evs: Any, variant: Any) -> None:
        self.calls.append(("log_events", None))

    def log_action(self, plain: Any, by: str) -> None:
        self.calls.append(("log_action", by))

    def log_withdrawal(self, seat: int) -> None:
        self.calls.append(("log_withdrawal", seat))

    def end_round(self, m: Any, secrets: Any, excluded: Any, abandoned: bool = False) -> None:
        self._on = False
        self.calls.append(("end_round", m.round_no))

    def void_current(self, round_no: int, reason: str, variant: Any) -> None:
        self.calls.append(("void_current", round_no))

    def finish(self, m: Any) -> None:
        self.calls.append(("finish", m.winner))

    def to_plain(self) -> dict[str, Any]:
        return {"calls": len(self.calls)}

    def snapshot_state(self, pending: Any = ()) -> dict[str, Any]:
        return {"data": {}, "current": None}

    def restore_state(self, state: Any) -> None:
        pass


def test_the_machine_emits_its_history_into_any_record_sink() -> None:
    """The record is an interface the machine emits into (`RecordSink`), not the host's
    `MatchRecord`: a sink of another kind gets the whole history in order."""
    from rami_lan.cli.local_session import _ReplayLog
    from rami_lan.table.record_sink import RecordSink

    assert isinstance(MatchRecord({}, None), RecordSink)
    assert isinstance(_ReplayLog("rami"), RecordSink)  # the solo table's
    sink = _CallLog()
    assert isinstance(sink, RecordSink)
    config = TableConfig(name="x", seats=2, bots={0: "moyen", 1: "moyen"}, headless=True,
                         advertise=False, bot_delay=0.0, limit=1)
    machine = TableMachine(config, Entropy(), record=sink)
    out = machine.start(0.0)
    now = 0.0
    for _ in range(10_000):
        if machine.over:
            break
        now = max(now, machine.deadline() or now)
        out += machine.tick(now, max_steps=50)
    assert machine.over
    names = [c for c, _ in sink.calls]
    assert names[0] == "set_players" and names[-1] == "finish"
    begun = [r for c, r in sink.calls if c == "begin_round"]
    ended = [r for c, r in sink.calls if c == "end_round"]
    assert begun == ended == list(range(1, machine.match.round_no + 1))
    assert names.count("log_action") > 10
    # each round's actions fall between its begin and its end
    for k, (c, _r) in enumerate(sink.calls):
        if c == "log_action":
            last = [n for n in names[:k] if n in ("begin_round", "end_round")][-1]
            assert last == "begin_round"
    assert [e.plain for e in out if isinstance(e, F.WriteRecord)][-1] == {"calls": len(sink.calls)}
