"""The organiser's wire (``t_*``) and its attackers: a cheating organiser is caught by
the players' checks of the draw; junk and table clients never crash the organiser."""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from aio_helpers import run, until

from rami_lan.cli.tournament_join import join_tournament
from rami_lan.net import protocol as P
from rami_lan.net import tls
from rami_lan.net import tournament_protocol as T
from rami_lan.net.bot_client import BotClient
from rami_lan.net.client import JoinRefused, open_session
from rami_lan.net.tournament_host import TournamentHost
from rami_lan.tournament.machine import TournamentConfig
from rami_lan.tournament.record import verify

pytestmark = pytest.mark.usefixtures("isolated_config")


# ---------------------------------------------------------------------- the session


def test_session_order_and_schemas() -> None:
    c, h = T.TSession("client"), T.TSession("host")
    with pytest.raises(P.RemoteProtocolError, match="before t_hello"):
        T.TSession("host").receive_data(_raw({"k": "t_contribution", "value": bytes(32)}))
    (hello,) = h.receive_data(c.send(T.THello(nick="anne", lang="fr")))
    assert isinstance(hello, T.THello) and hello.nick == "anne"
    with pytest.raises(ValueError):
        c.send(T.TContribution(value=bytes(32)))  # not before the welcome
    welcome = T.TWelcome(tournament_id=bytes(16), no=1, nick="anne", token=bytes(16),
                         commitment=bytes(32), info={"table_size": 3})
    (got,) = c.receive_data(h.send(welcome))
    assert got == welcome and c.established
    (contrib,) = h.receive_data(c.send(T.TContribution(value=b"x" * 32)))
    assert contrib.value == b"x" * 32
    for bad in ({"k": "t_contribution", "value": b"short"},
                {"k": "t_contribution", "value": bytes(32), "extra": 1},
                {"k": "nope"}, {"k": "t_welcome"}, [1, 2]):
        fresh = T.TSession("host")
        fresh.receive_data(T.TSession("client").send(T.THello(nick="x", lang="en")))
        fresh.established = True
        with pytest.raises(P.RemoteProtocolError):
            fresh.receive_data(_raw(bad))
    with pytest.raises(P.RemoteProtocolError, match="frame"):
        T.TSession("host").receive_data(b"\xff\xff\xff\xff")


def _raw(value: Any) -> bytes:
    import msgpack

    body = msgpack.packb(value, use_bin_type=True)
    return len(body).to_bytes(4, "big") + body


def test_a_table_hello_is_told_it_is_a_tournament() -> None:
    async def main() -> None:
        host = TournamentHost(TournamentConfig(), interfaces=["127.0.0.1"], advertise=False,
                              record_dir=Path(tempfile.mkdtemp()))
        port = await host.start()
        try:
            with pytest.raises(JoinRefused) as refused:
                await open_session("127.0.0.1", port, nickname="anne")
            assert refused.value.code == "tournament"
        finally:
            await host.stop()
    run(main())


def test_junk_never_stops_registrations() -> None:
    async def main() -> None:
        host = TournamentHost(TournamentConfig(), interfaces=["127.0.0.1"], advertise=False,
                              record_dir=Path(tempfile.mkdtemp()))
        port = await host.start()
        try:
            for junk in (b"\x00\x00\x00\x00", b"\x7f\xff\xff\xff", _raw({"k": "t_hello"}),
                         _raw({"k": "t_hello", "nick": "a", "lang": "en", "v": 9}),
                         _raw("not a map"), b"\x00\x00\x00\x05abcde"):
                r, w = await asyncio.open_connection("127.0.0.1", port, ssl=tls.client_context())
                w.write(junk)
                await w.drain()
                await asyncio.wait_for(r.read(), 5)  # the organiser closes it
                w.close()
            # Plain TCP with no TLS at all, then closed at once.
            r, w = await asyncio.open_connection("127.0.0.1", port)
            w.write(b"GET / HTTP/1.0\r\n\r\n")
            w.close()
            r, w = await asyncio.open_connection("127.0.0.1", port, ssl=tls.client_context())
            s = T.TSession("client")
            w.write(s.send(T.THello(nick="anne", lang="en")))
            (welcome,) = s.receive_data(await asyncio.wait_for(r.read(65536), 5))
            assert isinstance(welcome, T.TWelcome) and welcome.no == 1
            w.close()
        finally:
            await host.stop()
    run(main())


# ---------------------------------------------------------------------- cheating organisers


class _LyingSecret(TournamentHost):
    """Reveals a secret other than the one it committed to (it chose the draw)."""

    def _draw_msg(self) -> T.TDraw:
        honest = super()._draw_msg()
        return T.TDraw(secret=bytes(32), seed=honest.seed, entrants=honest.entrants)


class _WrongTable(TournamentHost):
    """Sends each player a table that is not the one the draw gives."""

    def _table_msg(self, run_: Any, *, watch: bool) -> T.TTable:
        honest = super()._table_msg(run_, watch=watch)
        others = [e for e in self.machine.entrants if e not in run_.state.players]
        players = [{"no": others[0] if others else 99, "nick": "x"}, *honest.players[1:]]
        return T.TTable(stage=honest.stage, table=honest.table, port=honest.port,
                        fingerprint=honest.fingerprint, code=honest.code, final=honest.final,
                        players=players, watch=honest.watch)


async def _play(cls: type[TournamentHost], tmp: Path, n: int = 4) -> list[int]:
    host = cls(TournamentConfig(table_size=2, limit=1), interfaces=["127.0.0.1"],
               advertise=False, record_dir=tmp, start_at=n, join_wait=20,
               table_tuning={"bot_delay": 0.0})
    port = await host.start()

    async def seat(session: Any) -> int:
        summary = await BotClient(session, level="moyen", delay=0.0).run()
        return 0 if summary.finished else 1

    args = argparse.Namespace(bot="moyen", bot_delay=0.0)
    try:
        return list(await asyncio.wait_for(asyncio.gather(*(
            join_tournament("127.0.0.1", port, args, f"p{i}", None, seat) for i in range(n))), 90))
    finally:
        await host.stop()


@pytest.mark.parametrize("cls", [TournamentHost, _LyingSecret, _WrongTable],
                         ids=["honest", "lying_secret", "wrong_table"])
def test_players_catch_a_cheating_organiser(cls: type[TournamentHost], tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    rcs = run(_play(cls, tmp_path), timeout=120)
    out = capsys.readouterr().out
    if cls is TournamentHost:
        assert rcs == [0] * 4 and "FAILED" not in out
    else:
        assert 3 in rcs and "FAILED" in out
        if cls is _LyingSecret:
            assert rcs == [3] * 4 and "not the one it committed to" in out


def test_a_pinned_fingerprint_that_differs_is_refused() -> None:
    async def main() -> None:
        host = TournamentHost(TournamentConfig(), interfaces=["127.0.0.1"], advertise=False,
                              record_dir=Path(tempfile.mkdtemp()))
        port = await host.start()
        args = argparse.Namespace(bot="moyen", bot_delay=0.0)
        try:
            rc = await join_tournament("127.0.0.1", port, args, "p", "0" * 64, lambda s: None)
            assert rc == 4  # refused, as a table's changed certificate is
            assert host.machine.entrants == {}  # it never registered
        finally:
            await host.stop()
    run(main())


def test_the_protocol_doc_lists_every_tournament_kind_and_its_examples_parse() -> None:
    import json
    import re

    doc = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
    section = doc[doc.index("## 9. Tournaments"):]
    for kind, cls in T.T_KINDS.items():
        row = re.search(rf"^\| `{kind}` \|[^\n]*$", section, re.M)
        assert row, f"{kind} is not in section 9"
        for spec in cls._SPEC:
            assert f"`{spec.name}`" in row.group(0), f"{kind}.{spec.name} is not documented"
    block = re.search(r"```text\n(.*?)```", section, re.S)
    assert block
    for line in block.group(1).strip().splitlines():
        T.T_KINDS[json.loads(line)["k"]].from_wire(json.loads(line))


async def _with_absent(tmp: Path, leave: bool) -> tuple[TournamentHost, list[int]]:
    """Four entrants at tables of two; entrant ``p3`` registers and then goes away
    (``leave``: it sits at its table and leaves at once; else it never comes)."""
    host = TournamentHost(TournamentConfig(table_size=2, limit=1), interfaces=["127.0.0.1"],
                          advertise=False, record_dir=tmp, start_at=4, join_wait=1.5,
                          table_tuning={"bot_delay": 0.0, "away_delay": 0.2})
    port = await host.start()

    async def seat(session: Any) -> int:
        summary = await BotClient(session, level="moyen", delay=0.0).run()
        return 0 if summary.finished else 1

    async def leaver(session: Any) -> int:
        await session.close()
        return 0

    args = argparse.Namespace(bot="moyen", bot_delay=0.0)
    tasks = [asyncio.create_task(join_tournament("127.0.0.1", port, args, f"p{i}", None, seat))
             for i in range(3)]
    if leave:
        tasks.append(asyncio.create_task(
            join_tournament("127.0.0.1", port, args, "p3", None, leaver)))
    else:
        r, w = await asyncio.open_connection("127.0.0.1", port, ssl=tls.client_context())
        s = T.TSession("client")
        w.write(s.send(T.THello(nick="p3", lang="en")))
        s.receive_data(await r.read(65536))
        w.write(s.send(T.TContribution(value=bytes(range(32)))))
        await w.drain()
        await until(lambda: any(e.nick == "p3" and e.contribution is not None
                                for e in host.machine.entrants.values()),
                    what="p3's contribution counted")
        w.close()  # registered, then gone
    try:
        rcs = list(await asyncio.wait_for(asyncio.gather(*tasks), 90))
        await asyncio.wait_for(host.finished.wait(), 20)
    finally:
        await host.stop()
    return host, rcs


@pytest.mark.parametrize("leave", [False, True], ids=["never_came", "left"])
def test_a_player_who_goes_away_is_played_by_a_bot_and_the_standings_say_so(
        tmp_path: Path, leave: bool) -> None:
    host, rcs = run(_with_absent(tmp_path, leave), timeout=120)
    assert host.machine.phase == "over"
    by_nick = {s.nick: s for s in host.machine.standings()}
    assert by_nick["p3"].replaced
    assert not any(by_nick[f"p{i}"].replaced for i in range(3))
    record = json.loads(host.record_path.read_text())
    tables = {}
    for states in record["stages"]:
        for t in states:
            tables[t["record_sha256"]] = json.loads((tmp_path / t["record_file"]).read_text())
    assert verify(record, tables).ok


# ---------------------------------------------------------------------- the join code


async def _register_with(code_of_host: str | None, code_given: str | None) -> tuple[int, int]:
    """(exit status of join, entrants with a contribution) after one registration try."""
    host = TournamentHost(TournamentConfig(), interfaces=["127.0.0.1"], advertise=False,
                          record_dir=Path(tempfile.mkdtemp()), join_code=code_of_host)
    port = await host.start()
    args = argparse.Namespace(bot="moyen", bot_delay=0.0, code=code_given)
    task = asyncio.create_task(join_tournament("127.0.0.1", port, args, "anne", None,
                                               lambda s: None))
    try:
        for _i in range(100):
            if task.done() or host.machine.ready:
                break
            await asyncio.sleep(0.05)
        ready = host.machine.ready
    finally:
        await host.stop()
    return await asyncio.wait_for(task, 10), ready


CODE = "KQ7M-3RTX"


def test_the_right_join_code_registers() -> None:
    rc, ready = run(_register_with(CODE, CODE.lower()))
    assert ready == 1 and rc == 1  # registered; then the organiser closed (no tournament)


@pytest.mark.parametrize(("host_code", "given", "want_rc"), [
    (CODE, "ZZZZ-9999", 4),  # a wrong code: refused bad_code
    (CODE, None, 1),  # no code: told one is needed
    (None, CODE, 4),  # the attacker: an "organiser" that never asks for the code (a relay)
], ids=["wrong", "missing", "not_asked"])
def test_no_registration_without_the_join_code(host_code: str | None, given: str | None,
                                               want_rc: int) -> None:
    rc, ready = run(_register_with(host_code, given))
    assert rc == want_rc
    if host_code is not None:
        assert ready == 0


def test_a_flood_from_one_address_is_capped() -> None:
    from rami_lan.net.tournament_host import MAX_PER_ADDRESS

    async def main() -> None:
        host = TournamentHost(TournamentConfig(), interfaces=["127.0.0.1"], advertise=False,
                              record_dir=Path(tempfile.mkdtemp()))
        port = await host.start()
        held = []
        try:
            for _i in range(MAX_PER_ADDRESS):
                held.append(await asyncio.open_connection("127.0.0.1", port,
                                                          ssl=tls.client_context()))
            await until(lambda: host._per_address.total == MAX_PER_ADDRESS,
                        what="every held connection admitted")
            r, w = await asyncio.open_connection("127.0.0.1", port, ssl=tls.client_context())
            s = T.TSession("client")
            w.write(s.send(T.THello(nick="late", lang="en")))
            assert await asyncio.wait_for(r.read(65536), 5) == b""  # closed: over the cap
            w.close()
            for _r, hw in held:
                hw.close()
            await until(lambda: host._per_address.total == 0, what="the flood released")
            r, w = await asyncio.open_connection("127.0.0.1", port, ssl=tls.client_context())
            s = T.TSession("client")
            w.write(s.send(T.THello(nick="anne", lang="en")))
            (welcome,) = s.receive_data(await asyncio.wait_for(r.read(65536), 5))
            assert isinstance(welcome, T.TWelcome)  # the flood gone, registration works
            w.close()
        finally:
            await host.stop()
    run(main())


def test_verify_refuses_broken_tournament_files(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """``rami-lan verify`` of a tournament record: a crafted file is one line and exit 2
    (never a traceback), a missing table record is a mismatch (exit 1)."""
    from rami_lan.cli.main import main as cli

    base = {"format": "rami-lan-tournament", "version": 1, "tournament_id": "00" * 16,
            "secret": "11" * 32, "config": {}, "commitment": "22" * 32,
            "entrants": [{"no": 1, "nick": "a", "kind": "human", "contribution": "33" * 32},
                         {"no": 2, "nick": "b", "kind": "human", "contribution": "44" * 32}],
            "stages": [[{"stage": 1, "table": 1, "record_file": "t.json",
                         "record_sha256": "55" * 32}]]}
    cases = {
        "traversal": (dict(base, stages=[[{"stage": 1, "table": 1, "record_file": "../x.json",
                                           "record_sha256": "55" * 32}]]), 2),
        "junk_config": (dict(base, config={"variant": "nope"}), 2),
        "no_entrants": (dict(base, entrants="x"), 2),
        "missing_table": (base, 1),
        "deep": ({"format": "rami-lan-tournament", "version": 1,
                  "stages": [[[[[[[[[[[]]]]]]]]]]]}, 2),
    }
    for name, (data, want) in cases.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(data))
        rc = cli(["--lang", "en", "verify", str(path)])
        captured = capsys.readouterr()
        assert rc == want, (name, captured.out, captured.err)
        assert "Traceback" not in captured.err + captured.out


def test_registrations_that_never_contribute_do_not_fill_the_tournament() -> None:
    from rami_lan.net.tournament_host import MAX_PER_ADDRESS

    async def hello(port: int, nick: str) -> tuple[Any, Any, Any]:
        r, w = await asyncio.open_connection("127.0.0.1", port, ssl=tls.client_context())
        s = T.TSession("client")
        w.write(s.send(T.THello(nick=nick, lang="en")))
        return r, w, s.receive_data(await asyncio.wait_for(r.read(65536), 5))[0]

    async def main() -> None:
        host = TournamentHost(TournamentConfig(max_entrants=4), interfaces=["127.0.0.1"],
                              advertise=False, record_dir=Path(tempfile.mkdtemp()))
        port = await host.start()
        try:
            for i in range(10):  # hello, no contribution, gone: ten times
                _r, w, msg = await hello(port, f"ghost{i}")
                assert isinstance(msg, T.TWelcome)
                assert host.machine.entrants  # registered at its hello ...
                w.close()
                # ... and no entrant once it is gone (else the fifth ghost is refused full)
                await until(lambda: host.machine.entrants == {}, what=f"ghost{i} unregistered")
            held = []
            for i in range(MAX_PER_ADDRESS + 1):  # held open: the cap per address
                r, w, msg = await hello(port, f"p{i}")
                held.append(w)
                if isinstance(msg, T.TRefused):
                    assert msg.code in ("full", "busy")
                    break
            assert len(host.machine.entrants) == 4  # max_entrants: the 5th was refused full
            for w in held:
                w.close()
        finally:
            await host.stop()
    run(main())
