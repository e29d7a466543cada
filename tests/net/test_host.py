"""TableHost: the host's own player as a client, bots, the move timer, reshuffles,
leaving between rounds, join refusals and protocol errors (loopback only)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from aio_helpers import run
from policies import StockOnly

from rami_lan.core import actions as A
from rami_lan.core.events import PlayersEliminated, TimedOut
from rami_lan.core.reasons import Reason
from rami_lan.net import guard as G
from rami_lan.net import protocol as P
from rami_lan.net import tls
from rami_lan.net.bot_client import BotClient
from rami_lan.net.client import JoinRefused, open_session
from rami_lan.net.host import TableConfig, TableHost
from rami_lan.net.record import load_record, verify

pytestmark = pytest.mark.usefixtures("isolated_config")


def _config(**kw: Any) -> TableConfig:
    base: dict[str, Any] = dict(name="t", seats=3, headless=True, advertise=False,
                                interfaces=["127.0.0.1"], bot_delay=0.0)
    base.update(kw)
    return TableConfig(**base)


def test_config_validation() -> None:
    with pytest.raises(ValueError):
        TableConfig(seats=5)
    with pytest.raises(ValueError):
        TableConfig(bots={0: "genius"})
    with pytest.raises(ValueError):
        TableConfig(variant="500", limit=1)
    with pytest.raises(ValueError):
        TableConfig(seats=2, bots={0: "moyen", 1: "moyen"})  # no seat for the host player
    assert TableConfig(seats=2, bots={0: "moyen", 1: "moyen"}, headless=True).human_seats == []


async def _owner_match(tmp_path: Path) -> tuple[TableHost, list]:
    host = TableHost(_config(headless=False, host_nickname="marie", record_dir=tmp_path,
                             variant="classique", limit=1))
    port = await host.start()
    try:
        assert host.owner_seat == 0 and host.owner_token is not None
        own = await open_session("127.0.0.1", port, nickname="marie", token=host.owner_token)
        others = [await open_session("127.0.0.1", port, nickname=f"p{i}") for i in (1, 2)]
        assert own.seat == 0 and [o.seat for o in others] == [1, 2]
        assert own.players[0]["nick"] == "marie"
        sums = await asyncio.gather(*(BotClient(s, delay=0.0).run() for s in [own, *others]))
        await host.wait_finished(10)
        for s in [own, *others]:
            await s.close()
    finally:
        await host.stop()
    return host, sums


def test_host_player_is_a_client_of_its_own_host(tmp_path: Path) -> None:
    host, sums = run(_owner_match(tmp_path))
    assert all(s.finished and s.fair for s in sums)
    rec = load_record(host.record_path)  # type: ignore[arg-type]
    rnd = rec["rounds"][0]
    assert rnd["host_seat"] == 0  # the host uses its own seat number
    assert set(rnd["commitments"]) == {"0", "1", "2"}
    assert rnd["participants"] == [1, 2]
    assert verify(rec).ok


async def _reshuffle_match() -> tuple[TableHost, list, list]:
    # two no-delay bots play a whole stock and its reshuffle as fast as the loop goes:
    # faster than any person, so lift the per-seat message rate (tested elsewhere)
    fast = G.GuardConfig(messages_per_s=1e5, message_burst=1e5)
    host = TableHost(_config(seats=2, variant="rami", limit=1, guard=fast))
    port = await host.start()
    seen: list[Any] = []
    try:
        ss = [await open_session("127.0.0.1", port, nickname=f"p{i}") for i in range(2)]
        sums = await asyncio.gather(*(BotClient(s, StockOnly(), delay=0.0).run() for s in ss))
        seen = [m for s in ss for m in s.mismatches]
        await host.wait_finished(10)
        for s in ss:
            await s.close()
    finally:
        await host.stop()
    return host, sums, seen


def test_reshuffled_stock_is_checked_by_clients() -> None:
    host, sums, mismatches = run(_reshuffle_match())
    assert any(e["type"] == "StockRefilled" for e in host.record.data["rounds"][0]["events"])
    assert not mismatches
    assert all(s.fair and len(s.fairness) == 1 for s in sums)
    assert verify(host.record.data).ok


async def _idle_player_times_out() -> list[Any]:
    host = TableHost(_config(seats=2, bots={1: "moyen"}, timer=1, variant="rami", limit=1))
    port = await host.start()
    got: list[Any] = []
    deadlines: list[float] = []
    try:
        idle = await open_session("127.0.0.1", port, nickname="idle")
        async for up in idle.updates():
            if up.deadline is not None:
                deadlines.append(up.deadline)
            got += [e for e in up.events if isinstance(e, TimedOut) and e.seat == idle.seat]
            if len(got) >= 2:
                break
        await idle.close()
    finally:
        await host.stop()
    assert deadlines
    return got


def test_move_timer_applies_timeout() -> None:
    got = run(_idle_player_times_out(), 15)
    assert got[0].away is False and got[1].away is True  # two in a row: away


async def _leave_between_rounds() -> tuple[TableHost, list]:
    host = TableHost(_config(seats=2, variant="40", limit=101, between_timeout=5.0))
    port = await host.start()
    events: list[Any] = []
    try:
        leaver = await open_session("127.0.0.1", port, nickname="leaver")
        stay = [await open_session("127.0.0.1", port, nickname="s1")]
        tasks = [asyncio.create_task(BotClient(s, delay=0.0).run()) for s in stay]
        policy = BotClient(leaver, delay=0.0).policy
        async for up in leaver.updates():
            events += up.events
            v = up.view
            if v is None:
                continue
            if v.phase == "between":
                await leaver.next_round("leave")
            elif v.match_over:
                break
            elif v.my_turn:
                await leaver.act(policy.choose(v, ()))
        await asyncio.gather(*tasks)
        await host.wait_finished(20)
        for s in [leaver, *stay]:
            await s.close()
    finally:
        await host.stop()
    return host, events


def test_leaving_between_rounds_withdraws() -> None:
    host, events = run(_leave_between_rounds())
    gone = [e for e in events if isinstance(e, PlayersEliminated)]
    assert host.match.over
    if host.match.history and len(host.match.history) == 1 and host.match.end_reason in (
        "last_player", "all_over_limit"
    ):
        return  # the first round already decided the match: nobody could leave
    assert gone and 0 in gone[0].seats
    assert host.seats[0].left and host.match.eliminated[0]
    assert host.match.end_reason == "withdrawal" and host.match.winner == 1


async def _refusals() -> None:
    # a nanosecond wait after a failure, nothing to sleep past: the failures in a row
    # below are what is tested, not the wait
    fast = G.GuardConfig(admission=G.AdmissionConfig(base_delay=1e-9, max_delay=1e-9))
    host = TableHost(_config(seats=2, join_code="secret", variant="rami", limit=1,
                             auto_start=False, guard=fast))
    port = await host.start()
    try:
        with pytest.raises(JoinRefused) as info:
            await open_session("127.0.0.1", port, nickname="x")  # no code: asked for one
        assert info.value.code == "bad_code"
        with pytest.raises(JoinRefused) as info:
            await open_session("127.0.0.1", port, nickname="x", code="wrong")
        assert info.value.code == "bad_code"
        with pytest.raises(JoinRefused) as info:
            await open_session("127.0.0.1", port, nickname="x", token=bytes(16))
        assert info.value.code == "bad_token"
        a = await open_session("127.0.0.1", port, nickname="a", code="secret")
        b = await open_session("127.0.0.1", port, nickname="a", code="secret")
        assert {a.seat, b.seat} == {0, 1}
        assert b.players[1]["nick"] == "a 2"  # nicknames are made unique
        with pytest.raises(JoinRefused) as info:
            await open_session("127.0.0.1", port, nickname="c", code="secret")
        assert info.value.code == "table_full"
        await host.start_match()
        # garbage on the wire: the host refuses with protocol_error and closes
        reader, writer = await asyncio.open_connection("127.0.0.1", port,
                                                       ssl=tls.client_context())
        writer.write(b"\x00\x00\x00\x03abc")
        session = P.Session("client")
        data = await reader.read(65536)
        session._hello_done = True  # we never sent hello; read the host's answer anyway
        msgs = session.receive_data(data)
        assert isinstance(msgs[0], P.Refused) and msgs[0].code == "protocol_error"
        writer.close()
        for s in (a, b):
            await s.close()
    finally:
        await host.stop()


def test_join_refusals_and_protocol_errors() -> None:
    run(_refusals(), 20)


async def _action_errors() -> None:
    host = TableHost(_config(seats=2, bots={1: "moyen"}, variant="rami", limit=1,
                             bot_delay=5.0))
    port = await host.start()
    try:
        s = await open_session("127.0.0.1", port, nickname="a")
        errors: list[str] = []
        async for up in s.updates():
            if up.error:
                errors.append(up.error)
                if len(errors) == 2:
                    break
            if up.view is not None and up.view.phase in ("draw", "play"):
                await s.act(A.DrawStock(1))  # not our seat
                # a discard in the draw phase, or a draw when it is not our turn
                wrong = (A.Discard(s.seat, up.view.hand[0]) if up.view.my_turn
                         else A.DrawStock(s.seat))
                await s.act(wrong)
        assert "seat" in errors[0]
        # the rules' refusal comes over the wire as its code and data (issue 27)
        assert isinstance(errors[1], Reason) and errors[1].code in ("wrong_phase", "not_your_turn")
        await s.close()
    finally:
        await host.stop()


def test_illegal_and_foreign_actions_are_refused() -> None:
    run(_action_errors(), 20)


def test_the_rate_limit_belongs_to_the_seat_not_the_connection(tmp_path: Path) -> None:
    async def main() -> None:
        # The match runs (a bot at seat 1): a dropped seat is held for its player.
        host = TableHost(_config(seats=2, variant="rami", limit=1, bots={1: "moyen"},
                                 away_delay=30.0))
        port = await host.start()
        try:
            a = await open_session("127.0.0.1", port, nickname="a")
            limiter = host._seat_limiters[a.seat]
            first = host.seats[a.seat].conn
            a.abort_transport()
            while host.seats[a.seat].conn in (None, first):  # until it is back, anew
                await asyncio.sleep(0.01)
            conn = host._by_id[host.seats[a.seat].conn]
            assert host._seat_limiters[a.seat] is limiter  # the reconnect kept the seat's
            assert conn.limiter is not limiter
            await a.close()
        finally:
            await host.stop()

    asyncio.run(asyncio.wait_for(main(), 20))


def test_the_ad_after_resume_counts_held_seats() -> None:
    from rami_lan.table import TableMachine
    from rami_lan.table import effects as F

    config = TableConfig(name="r", seats=3, bots={2: "moyen"}, headless=True, advertise=False,
                         journal_dir="/nowhere")
    m = TableMachine(config, lambda n: bytes(range(n)))
    effects = list(m.joined(1, 0.0, nick="a")) + list(m.joined(2, 0.0, nick="b"))
    snap = next(e.body for e in effects if isinstance(e, F.JournalSnapshot))
    again = TableMachine.restore(dict(snap), [], config, lambda n: bytes(n))
    assert all(st.conn is None for st in again.seats.values() if st.kind == "human")
    assert again.seats_taken() == 3  # held for the dropped players, not free


def test_record_file_is_named_by_the_whole_table_id_and_private(tmp_path) -> None:
    """Issue 14: record names used 12 hex digits of the table id, not the id the docs
    show; issue 13: records are 0600."""
    import stat

    from rami_lan.net.host_files import TableFiles

    files = TableFiles.__new__(TableFiles)
    files.record_dir, files.table_id, files.record_path = tmp_path / "rec", bytes(range(16)), None
    files.write_record({"x": 1}, 2)
    assert files.record_path is not None
    assert files.record_path.name == f"rami-{bytes(range(16)).hex()}-m2.json"
    assert stat.S_IMODE(files.record_path.stat().st_mode) == 0o600
