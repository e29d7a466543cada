"""Private dealing through the real asyncio host on loopback (TLS, sockets, bot clients).

Three `join --bot`-style clients (`BotClient` over `RemoteTableSession`) and one bot
seat held by the host play a whole match of ``rami`` with private dealing. Every client
holds its own keys, plays from the hand its keys reveal, proves each card it plays, and
replays every round with the rules from the audited deck order: all rounds check, every
audit is fair, and the host never held a card of a remote seat before it was public.
"""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path

import msgpack
import pytest

from rami_lan.net.bot_client import BotClient
from rami_lan.net.client import open_session
from rami_lan.net.host import TableConfig, TableHost
from rami_lan.net.record import verify, verify_file
from rami_lan.table.dealing import MaskedDealing

pytestmark = pytest.mark.usefixtures("isolated_config")


def _host(tmp_path: Path, *, seats: int, bot: int, limit: int, timer: int = 0,
          away_delay: float = 3.0) -> TableHost:
    """A headless private table on loopback, one host bot, its record in ``tmp_path``."""
    return TableHost(TableConfig(
        name="private", variant="rami", seats=seats, bots={bot: "moyen"}, limit=limit,
        timer=timer, headless=True, advertise=False, interfaces=["127.0.0.1"], bot_delay=0.0,
        private_deal=True, record_dir=tmp_path, away_delay=away_delay))


async def _match(tmp_path: Path) -> tuple[TableHost, list, list]:
    host = _host(tmp_path, seats=4, bot=3, limit=50)
    port = await host.start()
    try:
        sessions = [await open_session("127.0.0.1", port, nickname=n) for n in ("ana", "bo", "cy")]
        bots = [BotClient(s, delay=0.0, seed=i) for i, s in enumerate(sessions)]
        summaries = await asyncio.wait_for(asyncio.gather(*(b.run() for b in bots)), 120)
        await host.wait_finished(20)
        rounds = [s.fairness_rounds() for s in sessions]
        for s in sessions:
            assert s.masked is not None and not s.masked.faults and not s.masked.problems
            await s.close()
    finally:
        await host.stop()
    return host, summaries, rounds


def test_a_whole_match_with_private_dealing_over_loopback(tmp_path: Path) -> None:
    host, summaries, rounds = asyncio.run(_match(tmp_path))
    # Usually several rounds; the deal is random here (every party's real entropy), and one
    # round can eliminate all but one player at a 50-point limit (a CI run saw it). The
    # in-process tests play several private rounds from fixed entropy.
    assert host.match.over and host.match.round_no >= 1
    assert all(s.finished for s in summaries), summaries
    for per_seat in rounds:
        assert [r.status for r in per_seat] == ["checked"] * host.match.round_no, per_seat
    reports = host.machine.masked_reports
    assert len(reports) == host.match.round_no and all(r.fair for r in reports)
    # The record: `rami-lan verify` recomputes each private round's audit from the
    # broadcast masked messages, takes the deck orders from it and replays the rounds.
    report = verify_file(host.record_path)
    assert report.ok and report.rounds == host.match.round_no, report.text()
    record = json.loads(Path(host.record_path).read_text(encoding="utf-8"))
    assert all("masked" in r and r["masked"]["messages"] for r in record["rounds"])
    # A record whose masked deck was tampered with (one point of the host's mask pass
    # swapped with another) fails, and the audit names the host.
    bad = copy.deepcopy(record)
    msgs = bad["rounds"][0]["masked"]["messages"]
    k = next(i for i, h in enumerate(msgs) if msgpack.unpackb(bytes.fromhex(h))["k"] == "mk_mask"
             and msgpack.unpackb(bytes.fromhex(h))["seat"] == 255)
    plain = msgpack.unpackb(bytes.fromhex(msgs[k]))
    plain["points"][0], plain["points"][1] = plain["points"][1], plain["points"][0]
    msgs[k] = msgpack.packb(plain, use_bin_type=True).hex()
    tampered = verify(bad)
    assert not tampered.ok and any("BAD_MASK by seat 255" in p for p in tampered.problems), tampered.text()


class DropsOnce:
    """A bot that kills its own connection once, on its first draw of round 1; the
    session reconnects by itself with its token and the same keys."""

    def __init__(self, session: object, seat: int) -> None:
        from rami_lan.bots import make_bot

        self.session = session
        self.inner = make_bot("moyen", seat, 5)
        self.think_delay = 0.0
        self.dropped = False

    def choose(self, view: object, new_events: object) -> object:
        if not self.dropped and view.phase == "draw":  # type: ignore[attr-defined]
            self.dropped = True
            self.session.abort_transport()  # type: ignore[attr-defined]
        return self.inner.choose(view, new_events)

    def wants_knock(self, view: object, new_events: object = ()) -> bool:
        return False


async def _dropping_match(tmp_path: Path) -> tuple[TableHost, list, list, DropsOnce]:
    host = _host(tmp_path, seats=4, bot=3, limit=1)
    port = await host.start()
    try:
        sessions = [await open_session("127.0.0.1", port, nickname=n) for n in ("ana", "bo", "cy")]
        dropper = DropsOnce(sessions[0], sessions[0].seat)
        bots = [BotClient(sessions[0], dropper, delay=0.0)] + [
            BotClient(s, delay=0.0, seed=i) for i, s in enumerate(sessions[1:])]
        summaries = await asyncio.wait_for(asyncio.gather(*(b.run() for b in bots)), 120)
        await host.wait_finished(20)
        rounds = [s.fairness_rounds() for s in sessions]
        for s in sessions:
            await s.close()
    finally:
        await host.stop()
    return host, summaries, rounds, dropper


def test_a_dropped_connection_comes_back_and_the_private_round_goes_on(tmp_path: Path) -> None:
    host, summaries, rounds, dropper = asyncio.run(_dropping_match(tmp_path))
    assert dropper.dropped and host.match.over
    assert all(s.finished for s in summaries), summaries
    assert host.machine.masked_reports and all(r.fair for r in host.machine.masked_reports)
    assert [r.status for r in rounds[1]] == [r.status for r in rounds[2]] == ["checked"]
    assert rounds[0][0].status in ("partial", "checked")


class IdlesOnce:
    """A bot that lets its first turn's move timer run out (it sends nothing)."""

    def __init__(self, seat: int) -> None:
        from rami_lan.bots import make_bot

        self.inner = make_bot("moyen", seat, 9)
        self.think_delay = 0.0
        self.idled: tuple[int, int] | None = None

    def choose(self, view: object, new_events: object) -> object:
        from rami_lan.core import actions as A

        if self.idled is None and view.phase == "draw":  # type: ignore[attr-defined]
            self.idled = (view.round_no, view.turn_no)  # type: ignore[attr-defined]
            return A.Timeout(view.seat)  # type: ignore[attr-defined]  # BotClient sends nothing
        return self.inner.choose(view, new_events)

    def wants_knock(self, view: object, new_events: object = ()) -> bool:
        return False


async def _idle_match(tmp_path: Path) -> tuple[TableHost, list, list, IdlesOnce, list]:
    host = _host(tmp_path, seats=3, bot=2, limit=1, timer=1)
    port = await host.start()
    try:
        sessions = [await open_session("127.0.0.1", port, nickname=n) for n in ("ana", "bo")]
        idler = IdlesOnce(sessions[0].seat)
        notices: list = []
        bots = [BotClient(sessions[0], idler, delay=0.0), BotClient(sessions[1], delay=0.0, seed=1)]
        summaries = await asyncio.wait_for(asyncio.gather(*(b.run() for b in bots)), 120)
        await host.wait_finished(20)
        rounds = [s.fairness_rounds() for s in sessions]
        notices.append(sessions[0].masked.timeout_turn)
        for s in sessions:
            await s.close()
    finally:
        await host.stop()
    return host, summaries, rounds, idler, notices


def test_a_private_seat_whose_timer_runs_out_plays_the_automatic_move_itself(tmp_path: Path) -> None:
    """The host can not play a hidden hand: at the end of the move timer it asks the
    seat's own client (``mk_timeout``), which draws and discards for its player."""
    host, summaries, rounds, idler, asked = asyncio.run(_idle_match(tmp_path))
    assert idler.idled is not None and host.match.over
    assert asked == [idler.idled[1]], "the host asked for the idle turn's automatic move"
    assert all(s.finished for s in summaries)
    assert all(r.status == "checked" for per in rounds for r in per), rounds
    record = json.loads(Path(host.record_path).read_text(encoding="utf-8"))
    seat = 0
    acts = [(a["kind"], a["seat"]) for a in record["rounds"][0]["actions"]]
    turn = idler.idled[1]
    mine = [k for k, s in acts if s == seat]
    assert mine and mine[0] == "draw_stock", acts[:8]  # the automatic move's draw, then a discard
    assert turn >= 1 and verify_file(host.record_path).ok


async def _leaving_match(tmp_path: Path) -> tuple[TableHost, list, list]:
    host = _host(tmp_path, seats=4, bot=3, limit=50, away_delay=0.01)  # next rounds: at once
    port = await host.start()
    try:
        sessions = [await open_session("127.0.0.1", port, nickname=n) for n in ("ana", "bo", "cy")]
        bots = [BotClient(s, delay=0.0, seed=i) for i, s in enumerate(sessions)]
        tasks = [asyncio.create_task(b.run()) for b in bots]
        leaver = sessions[1]
        while not (leaver.view is not None and leaver.view.turn_no >= 5
                   and leaver.view.phase in ("draw", "play") and leaver.masked is not None):
            done = [t for t in tasks if t.done()]
            assert not done, ("the match ended before anyone left: "
                              f"{[t.exception() or t.result() for t in done]}")
            await asyncio.sleep(0.002)
        tasks[1].cancel()
        await leaver.close()  # quits mid-round: hands over first
        summaries = await asyncio.wait_for(asyncio.gather(tasks[0], tasks[2]), 120)
        await host.wait_finished(20)
        rounds = [s.fairness_rounds() for s in (sessions[0], sessions[2])]
        for s in (sessions[0], sessions[2]):
            assert s.masked is not None and not s.masked.faults and not s.masked.problems
            await s.close()
    finally:
        await host.stop()
    return host, summaries, rounds


def test_a_player_who_quits_mid_round_hands_over_and_the_match_goes_on(tmp_path: Path) -> None:
    """A client closes its session mid-round: it gives the host its hand and everyone its
    stock keys, the host's away bot plays its seat, no round is void, the other clients
    check every round, and the record verifies (the leaver's steps from its hand-over)."""
    async def guarded() -> tuple[TableHost, list, list]:
        return await asyncio.wait_for(_leaving_match(tmp_path), 150)

    host, summaries, rounds = asyncio.run(guarded())
    assert host.match.over and all(s.finished for s in summaries), summaries
    reports = host.machine.masked_reports
    assert reports and all(r.fair for r in reports), [r.faults for r in reports]
    for per_seat in rounds:
        assert [r.status for r in per_seat] == ["checked"] * host.match.round_no, per_seat
        assert not any("void" in r.reason for r in per_seat)
    report = verify_file(host.record_path)
    assert report.ok, report.text()


async def _owner_match(tmp_path: Path) -> tuple[TableHost, list, list]:
    """The host plays a seat of its own (as ``rami-lan host`` does: its player is a client
    over loopback with the owner's token), beside two remote clients and one host bot."""
    host = TableHost(TableConfig(
        name="private", variant="rami", seats=4, bots={3: "moyen"}, limit=50, headless=False,
        host_nickname="own", advertise=False, interfaces=["127.0.0.1"], bot_delay=0.0,
        private_deal=True, record_dir=tmp_path))
    port = await host.start()
    try:
        owner = await open_session("127.0.0.1", port, nickname="own", token=host.owner_token)
        seen: list = []  # every event the owner's client took in, as decoded
        decode = owner._decode_events

        def spy(msg: object) -> list:
            out = decode(msg)
            seen.extend(out)
            return out

        owner._decode_events = spy  # type: ignore[method-assign]
        sessions = [owner] + [await open_session("127.0.0.1", port, nickname=n) for n in ("ana", "bo")]
        bots = [BotClient(s, delay=0.0, seed=i) for i, s in enumerate(sessions)]
        summaries = await asyncio.wait_for(asyncio.gather(*(b.run() for b in bots)), 120)
        await host.wait_finished(20)
        rounds = [s.fairness_rounds() for s in sessions]
        assert owner.masked is None  # the owner's keys are the host's: no participant of its own
        for s in sessions:
            await s.close()
    finally:
        await host.stop()
    return host, summaries, rounds + [seen]


def test_the_hosts_own_player_sees_only_true_cards_and_checks_every_round(tmp_path: Path) -> None:
    """Before: the host's own seat got its draw event before the host had the card's keys,
    so it was shown a stand-in of the host's model, and its fairness check failed every
    private round. Now its events wait for the card, and at the end the host gives its
    player the audited orders (``mk_orders``): every round checks at every seat."""
    host, summaries, rounds = asyncio.run(_owner_match(tmp_path))
    *per_seat_rounds, seen = rounds
    assert host.match.over and all(s.finished for s in summaries), summaries
    assert host.machine.owner_seat == 0 and host.machine.host_seat == 0
    reports = host.machine.masked_reports
    assert len(reports) == host.match.round_no and all(r.fair for r in reports)
    for per_seat in per_seat_rounds:
        assert [r.status for r in per_seat] == ["checked"] * host.match.round_no, per_seat
    from rami_lan.core.events import StockDrawn
    own_draws = [e for e in seen if isinstance(e, StockDrawn) and e.seat == 0]
    assert own_draws and all(e.card is not None for e in own_draws)
    assert verify_file(host.record_path).ok


class _Showing(MaskedDealing):
    """Once a match (its host's ``shown``), in the middle of round 1, asks seat 0 to show
    its hand (``mk_show`` while no action ends the round), then plays on honestly."""

    def send(self, seat: int, plain: dict) -> None:
        super().send(seat, plain)
        r = self.t.match.round
        if (not self.t.shown and seat == 0 and plain.get("k") == "mk_hand"
                and r is not None and r.turn_no >= 2):
            self.t.shown = True
            super().send(seat, {"k": "mk_show"})


class _ShowingHost:
    """Mixed into the host's machine: its masked rounds are `_Showing`."""

    shown = False
    masked_dealing = _Showing


async def _showing_match(tmp_path: Path) -> tuple[TableHost, list, list, list]:
    from rami_lan.net.record import MatchRecord
    from rami_lan.table.machine import TableMachine

    class Cheat(_ShowingHost, TableMachine):
        pass

    config = TableConfig(
        name="private", variant="rami", seats=3, bots={2: "moyen"}, limit=1, headless=True,
        advertise=False, interfaces=["127.0.0.1"], bot_delay=0.0, private_deal=True,
        record_dir=tmp_path)
    import secrets

    machine = Cheat(config, secrets.token_bytes)
    machine.record = MatchRecord.new(machine, config)
    host = TableHost(config, machine=machine)
    port = await host.start()
    notices: list = []
    try:
        sessions = [await open_session("127.0.0.1", port, nickname=n, evidence_dir=tmp_path)
                    for n in ("ana", "bo")]
        put = sessions[0]._queue.put_nowait

        def spy(up: object) -> None:
            if getattr(up, "notice", None) is not None:
                notices.append(up.notice)  # type: ignore[attr-defined]
            put(up)  # type: ignore[arg-type]

        sessions[0]._queue.put_nowait = spy  # type: ignore[method-assign]
        bots = [BotClient(s, delay=0.0, seed=i) for i, s in enumerate(sessions)]
        await asyncio.wait_for(asyncio.gather(*(b.run() for b in bots)), 120)
        await host.wait_finished(20)
        rounds = [s.fairness_rounds() for s in sessions]
        problems = [list(s.masked.problems) for s in sessions]
        for s in sessions:
            await s.close()
    finally:
        await host.stop()
    assert machine.shown
    return host, rounds, problems, notices


def test_a_host_that_asks_for_a_show_mid_round_gets_nothing_and_is_named(tmp_path: Path) -> None:
    """The real client over loopback: the forged show gets no reveal, the player is told
    (``private_deal_refused``, the host named), the round fails with its evidence on disk."""
    from rami_lan.net.notices import NoticeCode

    host, rounds, problems, notices = asyncio.run(_showing_match(tmp_path))
    assert [p.kind for p in problems[0]] == ["mk_show"] and problems[1] == []
    told = [n for n in notices if getattr(n, "code", None) is NoticeCode.PRIVATE_DEAL_REFUSED]
    assert len(told) == 1 and told[0].get("seat") == 255
    assert rounds[0][0].status == "failed" and "mk_show" in rounds[0][0].reason
    assert rounds[0][0].evidence and "masked_refused" in Path(rounds[0][0].evidence).read_text()
    assert rounds[1][0].status == "checked"  # the other seat saw an honest round
