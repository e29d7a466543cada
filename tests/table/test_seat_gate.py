"""A seat gives away no key the rules don't: a cheating host asks, the honest seat refuses.

A headless host, one bot seat and three wire clients play a private round
(`tests/masked_table.py`). At a moment of the round, the host sends one client a message
it forged in exactly one way: a show of every hand in the middle of the round, a resync
with a draw by a seat that is not at the table or a void that did not happen, an events
message with a made-up draw, a second deal. Each time the honest seat

* sends nothing in answer (no key, no reveal, no audit),
* refuses that very message (`MaskedSeat.problems`, naming the host) and its verifier
  fails the round (``masked_refused``),
* and the spying host, trying every subset of the keys its bytes hold on every
  position it was not given, names no hidden card.

On the code before this change, the same messages made the seat send keys (for the
made-up draws), its whole audit (for the void) or every card of its hand (for the show).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from masked_table import MaskedTable, WireClient, can_name, knowledge, masked_round, pack, unpack

from rami_lan.core import actions as A
from rami_lan.core import events as E
from rami_lan.core.codec import event_to_plain
from rami_lan.core.variants import get_variant
from rami_lan.net import protocol as P
from rami_lan.table import TableMachine
from rami_lan.table.dealing import MaskedDealing
from rami_lan.table.masked_seat import MaskedSeat, MaskedSeatError
from rami_lan.table.seat_gate import PublicReplay
from rami_lan.wire.masked_table import decode_for_seat

HOST = 255
TAG = b"rami-lan/v1" + bytes(16) + (1).to_bytes(4, "big") + (1).to_bytes(4, "big")


def _round_frames(frames: list[bytes]) -> list[bytes]:
    last = 0
    for k, wire in enumerate(frames):
        if b"mk_round" in wire:
            msg = unpack(wire)
            if isinstance(msg, P.Masked) and msg.m.get("k") == "mk_round":
                last = k
    return frames[last:]


def hidden(t: MaskedTable) -> set[tuple[int, int]]:
    """The positions of the round whose card the host does not know now."""
    p = masked_round(t.machine).p
    _keys, finals = knowledge(_round_frames(t.host_seen), p)
    return {(deck, j) for deck in finals for j in range(len(finals[deck])) if p.card_at(deck, j) is None}


def host_names(t: MaskedTable, secret: set[tuple[int, int]]) -> list[tuple[int, int]]:
    """Every position of ``secret`` (hidden from the host before the attack) whose card
    the host's bytes (and its own secrets) name now, or that its participant learnt."""
    p = masked_round(t.machine).p
    keys, finals = knowledge(_round_frames(t.host_seen), p)
    n = t.variant.deck_size
    return sorted(s for s in secret
                  if p.card_at(*s) is not None or can_name(s, keys, finals, n) is not None)


def _table(variant: str = "rami") -> MaskedTable:
    t = MaskedTable(bots={3: "moyen"}, variant=variant, limit=None)
    t.start()
    return t


def _at_turn(t: MaskedTable, turn: int) -> None:
    def there() -> bool:
        m = t.machine
        r = m.match.round
        return (not t.inbox and r is not None and m.match.phase in ("draw", "play")
                and r.turn_no >= turn and all(c.ms.complete() for c in t.clients.values()))

    t.run(until=there)
    assert there()


def _sent_after(t: MaskedTable, c: WireClient, before: int) -> list[str]:
    """The masked kinds client ``c`` sent to the host since the inbox held ``before``."""
    return [unpack(wire).m["k"] for conn, wire in list(t.inbox)[before:]
            if conn == c.conn and isinstance(unpack(wire), P.Masked)]


def _public(t: MaskedTable) -> list[dict[str, Any]]:
    return [event_to_plain(e.for_seat(None), t.variant) for e in t.machine.dealing.events]


def _forge(t: MaskedTable, c: WireClient, kind: str) -> P.Message:
    """The host's forged message of ``kind`` for client ``c``, now."""
    gate = c.ms.gate
    assert gate is not None
    r = t.machine.match.round
    turn = r.turn
    other = next(s for s in r.players if s not in (turn, c.seat))
    draw_by = {"sync_draw_254": 254, "events_draw_254": 254, "events_draw_out_of_turn": other}
    if kind == "show_bare":
        return P.Masked(m={"k": "mk_show"})
    if kind == "show_made_up":  # the seat in turn "goes out" with a card it never revealed
        card = r.hands[turn][0]
        ev = E.Discarded(turn, card)
        return P.Masked(m={"k": "mk_show", "events": [event_to_plain(ev, t.variant)],
                           "reason": "out", "winner": turn})
    if kind.startswith("sync_"):
        events = _public(t)
        if kind == "sync_draw_254":
            events.append(event_to_plain(E.StockDrawn(254, None, gate.next_pos, gate.gen), t.variant))
        elif kind == "sync_void_254":
            events.append(event_to_plain(E.RoundVoided(t.machine.match.round_no, 254, "player_gone"),
                                         t.variant))
        elif kind == "sync_void_self":
            events.append(event_to_plain(E.RoundVoided(t.machine.match.round_no, c.seat, "player_gone"),
                                         t.variant))
        elif kind == "sync_rewritten":  # an earlier draw (or deal) given to the host
            k = next(i for i, e in enumerate(t.machine.dealing.events)
                     if isinstance(e, E.StockDrawn | E.CardsDealt))
            events[k] = event_to_plain(replace(t.machine.dealing.events[k].for_seat(None), seat=HOST),
                                       t.variant)
        return P.Masked(m={"k": "mk_sync", "events": events})
    if kind in draw_by:
        seat = draw_by[kind]
        return P.Events(seq=t.machine.seq, events=[
            event_to_plain(E.StockDrawn(seat, None, gate.next_pos, gate.gen), t.variant)])
    if kind == "events_round_ended":  # the round "ends": every audit would go out
        ev = E.RoundEnded(turn, False, "out", (), (), (), ())
        return P.Events(seq=t.machine.seq, events=[event_to_plain(ev, t.variant)])
    if kind == "second_deal":  # another deal of the round's deck (the same one is a resend)
        seats = c.ms._layout  # type: ignore[union-attr]
        n = len(r.players)
        return P.Masked(m={"k": "mk_deal", "deck": 0, "seats": seats[1:-1] + seats[n - 1:n] + [None]})
    raise AssertionError(kind)


ATTACKS = ["show_bare", "show_made_up", "sync_draw_254", "sync_void_254",
           "sync_rewritten", "events_draw_254", "events_draw_out_of_turn", "events_round_ended",
           "second_deal"]


@pytest.mark.parametrize("kind", ATTACKS)
def test_a_forged_host_message_gets_nothing_and_names_the_host(kind: str, tmp_path: Any) -> None:
    t = _table()
    t.evidence_dir = tmp_path
    _at_turn(t, 6)
    secret = hidden(t)
    assert len(secret) > 60 and host_names(t, secret) == []
    c = t.clients[1]
    if kind == "events_draw_out_of_turn" and t.machine.match.round.turn == c.seat:
        c = t.clients[2]
    before, refused = len(t.inbox), len(c.ms.problems)
    c.receive(pack(_forge(t, c, kind)))
    sent = _sent_after(t, c, before)
    assert sent == [], sent
    # The very message is refused, the host named (every message is the host's).
    assert len(c.ms.problems) == refused + 1, c.ms.problems
    assert c.ms.problems[-1].tag == masked_round(t.machine).p.tag
    [r] = [r for r in c.tracker.verifier.rounds() if r.round_no == t.machine.match.round_no]
    assert r.status == "failed" and any(f.code == "masked_refused" for f in r.findings)
    # What went out reaches the host: it still names no hidden card.
    while t.inbox:
        t.handle(*t.inbox.popleft())
    assert host_names(t, secret) == []


@pytest.mark.parametrize("receipted", [False, True], ids=["late", "receipted"])
def test_a_void_naming_us_gives_nothing_and_names_the_host_only_against_its_receipts(
        tmp_path: Any, receipted: bool) -> None:
    """The host says we did not answer in time. True for a frozen laptop (something we
    sent has no receipt of the host's yet: ``late``): the round is void for us too, and we
    do not accuse the host of a stop that may well have been ours (the chaos test's
    stopped players failed their rounds naming the host). A lie when the host receipted
    every message we sent and we owed nothing (``receipted``): its own signatures disprove
    it, and we name it (docs/fair_shuffle.md, "Signatures and receipts"). Either way no
    audit leaves (only our protest, the receipts), so the host learns no card of ours."""
    t = _table()
    t.evidence_dir = tmp_path
    _at_turn(t, 6)
    secret = hidden(t)
    c = t.clients[1]
    if t.machine.match.round.turn == c.seat:
        _at_turn(t, t.machine.match.round.turn_no + 1)
        secret = hidden(t)
    assert c.ms.p.signing is not None and c.ms.receipts_taken and not c.ms.p.unreceipted()
    if not receipted:
        c.ms.p._receipts.pop(max(c.ms.p._receipts))  # its receipt is still on its way
    before, refused = len(t.inbox), len(c.ms.problems)
    c.receive(pack(_forge(t, c, "sync_void_self")))
    sent = _sent_after(t, c, before)
    assert "mk_audit" not in sent  # (a resync resends what went before)
    [r] = [r for r in c.tracker.verifier.rounds() if r.round_no == t.machine.match.round_no]
    if receipted:
        assert "mk_protest" in sent
        assert [p.kind for p in c.ms.problems[refused:]] == ["events"]
        assert r.status == "failed", r
    else:
        assert "mk_protest" not in sent and len(c.ms.problems) == refused
        assert r.status != "failed", r
    while t.inbox:
        t.handle(*t.inbox.popleft())
    assert host_names(t, secret) == []


def test_the_code_before_this_change_gave_cards_away() -> None:
    """The positive control of the spy: an honest show at the round's end, made early by
    asking the seat's participant directly, does name every card of the hand."""
    t = _table()
    _at_turn(t, 6)
    secret = hidden(t)
    c = t.clients[1]
    ms = c.ms
    out = []
    mine = len(ms._mine)
    assert mine >= 5
    for cid in list(ms._mine):
        out += ms._reveal(cid)
    for m in out:
        c.send("masked", m=m)
    while t.inbox:
        t.handle(*t.inbox.popleft())
    assert len(host_names(t, secret)) == mine


# --------------------------------------------------------------------------- spying host


SPY_KINDS = ["show_bare", "show_made_up", "sync_draw_254", "sync_void_254", "sync_rewritten",
             "events_draw_254", "events_round_ended", "second_deal"]


@pytest.mark.parametrize("turn", [1, 9])
def test_a_spying_host_that_tries_every_masked_message_kind_learns_no_hidden_card(turn: int) -> None:
    """At a moment of the round, the host sends every client each forged kind in turn;
    then the match goes on as if nothing happened. The host names no hidden card at any
    point, and every client failed the round naming the host."""
    t = _table()
    _at_turn(t, turn)
    secret = hidden(t)
    for kind in SPY_KINDS:
        for c in list(t.clients.values()):
            c.receive(pack(_forge(t, c, kind)))
        while t.inbox:
            t.handle(*t.inbox.popleft())
        assert host_names(t, secret) == [], kind
    round_no = t.machine.match.round_no
    for c in t.clients.values():
        assert {p.kind for p in c.ms.problems} >= {"mk_show", "mk_sync", "events", "mk_deal"}
        [r] = [r for r in c.tracker.verifier.rounds() if r.round_no == round_no]
        assert r.status == "failed"


# --------------------------------------------------------------------------- the seat alone


def _seat(expect: tuple[int, ...] | None) -> MaskedSeat:
    ms = MaskedSeat(1, get_variant("rami"), lambda n: bytes(range(n)))
    ms.expect = lambda: expect
    ms.on_masked(decode_for_seat(
        {"k": "mk_round", "tag": TAG, "host": HOST, "participants": [0, 1, HOST], "n": 110}))
    return ms


def test_a_deal_to_a_seat_that_does_not_play_is_refused() -> None:
    # The round's players are 0, 1, 2 (seat 2 a bot): the host adds itself as a fourth.
    layout = [(1, 2, HOST, 0)[k % 4] for k in range(4 * 13)] + [None]
    ms = _seat((0, 1, 2))
    with pytest.raises(MaskedSeatError, match="round's players"):
        ms.on_masked(decode_for_seat({"k": "mk_deal", "deck": 0, "seats": layout}))
    assert [p.kind for p in ms.problems] == ["mk_deal"] and ms.p.recipients() == ()
    # The same layout without a verifier's word: only seats of the table may be dealt.
    honest = [(1, 2, 0)[k % 3] for k in range(3 * 13)] + [None]
    assert _seat((0, 1, 2)).on_masked(decode_for_seat(
        {"k": "mk_deal", "deck": 0, "seats": honest})) is not None


def test_the_replay_admits_an_honest_turn_and_refuses_each_made_up_draw() -> None:
    from rami_lan.core.cards import card_from_id

    v = get_variant("rami")
    g = PublicReplay(v, 1, frozenset({0, 1, HOST}), HOST)
    g.layout = [(1, 2, 0)[k % 3] for k in range(39)] + [None]
    assert g.admit(E.RoundStarted(1, 0, 1, (0, 1, 2), 13, 110 - 40, card_from_id(5, 2, 6))) == ""
    for i, seat in enumerate((1, 2, 0)):
        assert g.admit(E.CardsDealt(seat, None, tuple(k * 3 + i for k in range(13)))) == ""
    assert "turn" in g.admit(E.StockDrawn(1, None, 40, 0))  # before any turn
    assert g.admit(E.TurnStarted(1, 1)) == ""
    assert "not play" in g.admit(E.StockDrawn(254, None, 40, 0))
    assert "whose turn" in g.admit(E.StockDrawn(2, None, 40, 0))
    assert "position" in g.admit(E.StockDrawn(1, None, 50, 0))
    assert "did not time out" in g.admit(E.StockDrawn(1, None, 40, 0, "timeout"))
    assert g.admit(E.StockDrawn(1, None, 40, 0)) == ""
    assert "whose turn" in g.admit(E.StockDrawn(1, None, 41, 0))  # a second draw
    assert "go out" in g.admit(E.RoundEnded(1, False, "out", (), (), (), ()))
    assert "void" in g.admit(E.RoundVoided(1, HOST, "player_gone"))  # it names the host
    assert g.admit(E.RoundVoided(1, 1, "no_answer")) == ""  # it names us: void for us too
    g.over = False
    assert g.admit(E.RoundVoided(1, 0, "player_gone")) == ""  # another remote participant


# --------------------------------------------------------------------------- views


class _ViewLog(WireClient):
    """Keeps each view's hand as the host sent it, with the positions mk_hand gave."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.raw: list[tuple[tuple[Any, ...], list[Any] | None]] = []
        self.filled: list[tuple[Any, ...]] = []

    def receive(self, wire: bytes) -> None:
        from rami_lan.core.codec import view_from_plain

        msg = unpack(wire)
        if isinstance(msg, P.View) and self.ms is not None:
            view = view_from_plain(msg.view)
            if view.phase in ("draw", "play"):
                self.raw.append((view.hand, None))
        super().receive(wire)
        if isinstance(msg, P.View) and self.view is not None and self.view.phase in ("draw", "play"):
            self.filled.append(self.view.hand)


def test_a_private_tables_views_carry_nil_for_the_cards_the_host_does_not_know() -> None:
    t = MaskedTable(bots={3: "moyen"}, variant="rami", limit=None)
    for conn, c in list(t.clients.items()):
        t.clients[conn] = _ViewLog(t, conn, c.nick, c.level, c.seed)
    t.start()
    t.run(until=lambda: t.machine.match.round is not None and t.machine.match.round.turn_no >= 12)
    for c in t.clients.values():
        assert isinstance(c, _ViewLog) and c.raw and c.filled
        # The host sends nil for every hidden card (it has none to give) and never a card
        # of its model: at most the cards it knows (taken from the pile, played, revealed).
        assert all(any(card is None for card in hand) for hand, _ in c.raw)
        # The client's view holds its real hand: no nil is left.
        assert all(card is not None for hand in c.filled for card in hand)
        assert not c.ms.problems and not c.errors


# --------------------------------------------------------------------------- blame


class _Substituting(MaskedDealing):
    def send(self, seat: int, plain: dict[str, Any]) -> None:
        from rami_lan.masked.group import mul

        if plain.get("k") == "mk_mask" and plain.get("seat") == HOST and plain.get("deck") == 0:
            two = (2).to_bytes(32, "little")
            plain = dict(plain, points=[mul(two, p) for p in plain["points"]])
        super().send(seat, plain)


class SubstitutingHost(TableMachine):
    """Its mask pass of the round's deck has every point multiplied by a scalar of its own:
    no position unmasks to a card any more."""

    masked_dealing = _Substituting


def test_not_a_card_names_the_host_when_it_is_the_only_other_shuffler() -> None:
    """Heads-up against the host's bot: only the host shuffled with us, so a card that
    unmasks to no card is its doing (its own step or its relay). The seat names it at
    once, and the host's later messages do not wait for a card that can never come."""
    t = MaskedTable(seats=2, bots={1: "moyen"}, variant="rami", limit=1, machine_cls=SubstitutingHost)
    t.start()
    c = t.clients[1]
    t.run(until=lambda: c.ms is not None and bool(c.ms.faults))
    kinds = {(f.kind.name, f.seat) for f in c.ms.faults}
    assert ("NOT_A_CARD", HOST) in kinds, kinds
    assert c.ms.complete()  # nothing is held back for the card that can not be known


# --------------------------------------------------------------------------- the rules' own games


class _Knocker:
    """A bot that knocks whenever the window lets it (so that knocks are played)."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot

    def __getattr__(self, name: str) -> Any:
        return getattr(self.bot, name)

    def wants_knock(self, view: Any, new_events: Any = ()) -> bool:
        self.bot.wants_knock(view, new_events)
        return True


class _Sleeper(_Knocker):
    """A bot whose move timer runs out every third time it is asked (the table's
    automatic move: ``TimedOut``, a draw for the timer, a discard)."""

    asked = 0

    def wants_knock(self, view: Any, new_events: Any = ()) -> bool:
        return bool(self.bot.wants_knock(view, new_events))

    def choose(self, view: Any, new_events: Any = ()) -> Any:
        self.asked += 1
        action = self.bot.choose(view, new_events)
        return A.Timeout(view.seat) if self.asked % 3 == 0 else action


def _replayed_games(variant: str, seed: int, knock: bool) -> tuple[int, int, int]:
    """Bots play a plain match (the rules core, every card known); each round's public
    events go through a `PublicReplay` as they come, each card played first made public by
    its player (as its reveal would), and each round-ending action through `check_show`.
    Returns (events admitted, shows accepted, knocks seen)."""
    from rami_lan.bots import make_bot
    from rami_lan.core.events import cards_played as _played
    from rami_lan.core.match import MatchOptions
    from rami_lan.table import TableConfig
    from rami_lan.table.selfplay import _SelfPlayTable

    v = get_variant(variant)
    counts = [0, 0, 0]
    state: dict[str, Any] = {"g": None}

    class Watched(_SelfPlayTable):
        def _commit_change(self, m: Any, evs: list[E.Event], now: float, *rest: Any) -> None:
            for k, ev in enumerate(evs):
                if isinstance(ev, E.RoundStarted):
                    players = tuple(ev.players)
                    i = players.index(ev.first_player)
                    order = players[i:] + players[:i]
                    g = state["g"] = PublicReplay(v, 0, frozenset(), None)
                    g.layout = [order[p % len(order)] for p in range(ev.hand_size * len(order))] + [None]
                g = state["g"]
                if g is None or g.over:
                    continue
                for c in _played(ev):  # its player reveals it first
                    if c not in g.known.get(ev.seat, []):  # type: ignore[attr-defined]
                        g.card_public(ev.seat, c)  # type: ignore[attr-defined]
                if k == 0 and any(isinstance(e, E.RoundEnded) for e in evs):
                    at = next(j for j, e in enumerate(evs) if isinstance(e, E.RoundEnded))
                    end = evs[at]
                    assert isinstance(end, E.RoundEnded)
                    ending = [e.for_seat(None) for e in evs[:at]]
                    for e in ending:
                        for c in _played(e):
                            if c not in g.known.get(e.seat, []):  # type: ignore[attr-defined]
                                g.card_public(e.seat, c)  # type: ignore[attr-defined]
                    if ending:  # as the host's mk_show
                        why = g.check_show(ending, end.reason, end.winner)
                        assert why == "", (variant, seed, ending, end, why)
                        counts[1] += 1
                why = g.admit(ev.for_seat(None))
                assert why == "", (variant, seed, ev, why)
                counts[0] += 1
                counts[2] += isinstance(ev, E.Knocked)
            super()._commit_change(m, evs, now, *rest)

    o = MatchOptions(None, False, knock)
    n = 3
    bots: list[Any] = [make_bot("moyen", seat=s, seed=seed + s) for s in range(n)]
    if knock:
        bots[1] = _Knocker(bots[1])
    bots[2] = _Sleeper(bots[2])
    config = TableConfig(name="gate", variant=v.id, seats=n, bots={s: "moyen" for s in range(n)},
                         limit=o.limit, quick=o.quick, knock=o.knock, headless=True, advertise=False,
                         bot_delay=0.0)
    table = Watched(config, bots, seed, 3, lambda: 0.0)
    table.start(0.0)
    while not table.over:
        table.tick(0.0, max_steps=1 << 30)
    return counts[0], counts[1], counts[2]


@pytest.mark.parametrize(("variant", "knock"), [("rami", True), ("classique", True), ("multi", False),
                                                 ("500", False), ("40", False)])
def test_the_replay_admits_every_event_of_games_played_by_the_rules(variant: str, knock: bool) -> None:
    """No false refusal: every public event of real games (refills, knocks, timeouts and
    every way a round ends) is admitted, and every round's end is a show the replay accepts.
    (Seat 1 knocks whenever it may, seat 2's timer runs out every third move.)"""
    from rami_lan.table.seat_gate import PublicReplay

    refills = []
    real = PublicReplay._StockRefilled

    def counted(self: PublicReplay, ev: E.StockRefilled) -> str:
        refills.append(ev.shuffled)
        return real(self, ev)

    admitted = shows = knocks = 0
    PublicReplay._StockRefilled = counted  # type: ignore[method-assign]
    try:
        for seed in (1, 5):  # seed 5: the stock of multi runs out 20 times (turned over)
            a, s, k = _replayed_games(variant, seed, knock)
            admitted, shows, knocks = admitted + a, shows + s, knocks + k
    finally:
        PublicReplay._StockRefilled = real  # type: ignore[method-assign]
    assert admitted > 200 and shows >= 2
    if knock:
        assert knocks > 0
    if variant == "multi":
        assert len(refills) >= 10


class _DealingIn(MaskedDealing):
    def send(self, seat: int, plain: dict[str, Any]) -> None:
        if plain.get("k") == "mk_deal" and seat == 0:
            plain = dict(plain, seats=[HOST if s == 3 else s for s in plain["seats"]])
        super().send(seat, plain)


class DealingInHost(TableMachine):
    """Tells seat 0 alone that the bot's cards are dealt to the host's own seat 255."""

    masked_dealing = _DealingIn


def test_a_deal_that_gives_the_host_a_players_cards_is_refused_at_once() -> None:
    t = MaskedTable(bots={3: "moyen"}, variant="rami", limit=1, machine_cls=DealingInHost)
    t.start()
    victim = next(c for c in t.clients.values() if c.seat == 0)
    t.run(until=lambda: victim.ms is not None and bool(victim.ms.problems))
    refusal = victim.ms.problems[0]  # the deal; then every key for it does not fit either
    assert refusal.kind == "mk_deal" and "round's players" in refusal.reason
    keys = [unpack(w).m for conn, w in t.inbox if conn == victim.conn and isinstance(unpack(w), P.Masked)]
    assert not [m for m in keys if m["k"] == "mk_key"]  # not one deal key went out
    assert victim.ms.p.recipients() == ()
    [r] = victim.tracker.verifier.rounds()
    assert r.status == "failed" and r.findings[0].code == "masked_refused"
