"""The LAN commands as a user runs them, on 127.0.0.1 only: ``list`` prints valid tables
and skips malformed ads with a one-line reason (no escape sequence, no traceback);
``join NAME`` on a spoofed ad fails with a message, not a traceback; SIGTERM ends
``list`` and ``host`` as Ctrl-C does (the host's mDNS goodbye removes the table from a
lobby at once); a client whose table comes back on another port finds it by table id
through the browser, and says clearly when it gives up."""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import sys
from pathlib import Path
from typing import Any

import aio_helpers
import pytest
from aio_helpers import poll_until, pump
from aio_helpers import read_host_port as _read_port
from aio_helpers import start_host_process as _start_host
from zeroconf import IPVersion
from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

from rami_lan.cli.messages import session_text
from rami_lan.net.discovery import SERVICE_TYPE, TableAd, TableAdvertiser, TableBrowser

pytestmark = pytest.mark.usefixtures("isolated_config")

ROOT = Path(__file__).resolve().parents[2]
LOOPBACK: dict[str, Any] = {"interfaces": ["127.0.0.1"], "ip_version": IPVersion.V4Only}


def _env(tmp: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "LANG": "C", "RAMI_LAN_INTERFACES": "127.0.0.1",
            "XDG_DATA_HOME": str(tmp / "data"), "XDG_CONFIG_HOME": str(tmp / "config")}


async def _cli(tmp: Path, *args: str, sigint_ignored: bool = False) -> asyncio.subprocess.Process:
    """``rami-lan *args`` in a child process (``sigint_ignored``: started as a shell starts
    a background command without job control, SIGINT set to "ignore")."""
    def ignore_sigint() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "rami_lan.cli.main", "--lang", "en", *args, env=_env(tmp),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        preexec_fn=ignore_sigint if sigint_ignored else None)


class Relay:
    """A TCP relay on 127.0.0.1 standing for the host's old address (it only copies)."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.server: asyncio.Server | None = None

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            ur, uw = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            writer.close()
            return
        await asyncio.gather(pump(reader, uw, bytearray()), pump(ur, writer, bytearray()))

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()


def _config(**kw: Any) -> Any:
    from rami_lan.net import guard as G
    from rami_lan.net.host import TableConfig

    base: dict[str, Any] = dict(name="lan", seats=2, headless=True, advertise=False,
                                interfaces=["127.0.0.1"], variant="rami", limit=1,
                                auto_start=False,
                                guard=G.GuardConfig(
                                    admission=G.AdmissionConfig(base_delay=0.001, max_delay=0.002)))
    base.update(kw)
    return TableConfig(**base)




def make_ad(**kw: Any) -> TableAd:
    base: dict[str, Any] = dict(table_id=secrets.token_hex(8), name="Chez Anne", host="anne",
                                variant="rami", seats_taken=1, seats_total=4, point_limit=100)
    return TableAd(**{**base, **kw})


async def _spoof(zc: AsyncZeroconf, label: str, props: dict[str, str], port: int = 47999) -> str:
    name = f"{label}.{SERVICE_TYPE}"
    info = AsyncServiceInfo(SERVICE_TYPE, name, port=port, properties=props,
                            server="spoof.local.", parsed_addresses=["127.0.0.1"])
    await zc.async_register_service(info, cooperating_responders=True)
    return name


def test_list_prints_valid_tables_and_skips_malformed_ads(tmp_path: Path) -> None:
    async def scenario() -> None:
        tag = secrets.token_hex(3)
        good = make_ad(name=f"Good {tag}")
        base = make_ad(name=f"Bad {tag}").to_txt()
        # `list` lists only a table whose port answers (issue 29: no ghost tables).
        listening = await asyncio.start_server(lambda r, w: w.close(), "127.0.0.1", 0)
        port = listening.sockets[0].getsockname()[1]
        async with listening, TableAdvertiser(good, port, **LOOPBACK), AsyncZeroconf(**LOOPBACK) as zc:
            await _spoof(zc, f"fpzz-{tag}", base | {"fp": "zz"})
            await _spoof(zc, f"five-{tag}", base | {"sn": "5"})
            await _spoof(zc, f"nokey-{tag}", {k: v for k, v in base.items() if k != "v"})
            await _spoof(zc, f"esc-{tag}", base | {"n": "\x1b[2Jx", "h": "\x1b]0;t\x07"})
            proc = await _cli(tmp_path, "list", "--timeout", "2", "--interface", "127.0.0.1")
            out_b, err_b = await proc.communicate()
        out, err = out_b.decode(), err_b.decode()
        assert proc.returncode == 0, out + err
        assert f"Good {tag}" in out and "1/4 seats" in out
        assert f"Bad {tag}" not in out
        for label in ("fpzz", "five", "nokey", "esc"):
            lines = [line for line in err.splitlines() if f"{label}-{tag}" in line]
            assert len(lines) == 1, err
        assert "fingerprint" in err and "seats_total=5" in err and "'v'" in err
        assert "\x1b" not in out + err and "\x07" not in out + err
        assert "Traceback" not in err

    aio_helpers.run(scenario(), 30)


def test_join_on_a_spoofed_ad_fails_cleanly(tmp_path: Path) -> None:
    async def scenario() -> None:
        tag = secrets.token_hex(3)
        base = make_ad(name=f"Trap {tag}").to_txt()
        async with AsyncZeroconf(**LOOPBACK) as zc:
            await _spoof(zc, f"trap-{tag}", base | {"fp": "zz"})
            proc = await _cli(tmp_path, "join", f"Trap {tag}", "--bot", "moyen", "--timeout", "1.5",
                              "--interface", "127.0.0.1")
            _out, err_b = await proc.communicate()
            # A valid ad whose port is closed: a message, not a traceback.
            closed = make_ad(name=f"Closed {tag}", fingerprint="ab" * 32)
            async with TableAdvertiser(closed, 1, **LOOPBACK):
                proc2 = await _cli(tmp_path, "join", f"Closed {tag}", "--bot", "moyen",
                                   "--timeout", "5", "--interface", "127.0.0.1")
                _out2, err2_b = await proc2.communicate()
        err, err2 = err_b.decode(), err2_b.decode()
        assert proc.returncode == 1 and "No table named" in err, err
        assert "Traceback" not in err and "fingerprint" in err  # the skipped ad's reason
        assert proc2.returncode == 1 and "This table is gone" in err2, err2  # issue 29: no errno
        assert "Traceback" not in err2

    aio_helpers.run(scenario(), 40)


@pytest.mark.parametrize("sigint_ignored", [False, True], ids=["foreground", "sigint-ignored"])
def test_sigterm_ends_list_like_ctrl_c(tmp_path: Path, sigint_ignored: bool) -> None:
    """SIGTERM takes the Ctrl-C path, also in a process whose SIGINT is ignored (a
    background command of a script: raising SIGINT there used to do nothing at all)."""
    async def scenario() -> None:
        proc = await _cli(tmp_path, "list", "--timeout", "60", "--interface", "127.0.0.1",
                          sigint_ignored=sigint_ignored)
        await asyncio.sleep(1.0)  # let it start browsing (a signal before would kill it)
        proc.send_signal(signal.SIGTERM)
        _out, err = await asyncio.wait_for(proc.communicate(), 10)
        assert proc.returncode == 130, err
        assert b"Traceback" not in err

    aio_helpers.run(scenario(), 30)


def test_sigterm_on_a_host_sends_the_mdns_goodbye(tmp_path: Path) -> None:
    async def scenario() -> None:
        name = f"Term {secrets.token_hex(3)}"
        events: list[str] = []
        async with TableBrowser(**LOOPBACK, on_change=lambda e: events.append(
                f"{e.kind}:{e.table.name}")) as browser:
            proc = await _cli(tmp_path, "host", "--headless", "--name", name, "--seats", "2",
                              "--interface", "127.0.0.1", "--record-dir", str(tmp_path),
                              sigint_ignored=True)  # as `rami-lan host ... &` in a script
            await poll_until(lambda: any(t.name == name for t in browser.snapshot()), "listed", 20)
            proc.send_signal(signal.SIGTERM)
            _out, err = await asyncio.wait_for(proc.communicate(), 15)
            # Without a goodbye the table would stay listed for the PTR TTL (75 min); the
            # browser here has no probe, so only the goodbye can remove it. It takes well
            # under a second alone; 15 s leaves room for a loaded machine (four workers,
            # multicast on a loopback other tests also use).
            tail = err.decode(errors="replace")[-400:]
            await poll_until(lambda: not any(t.name == name for t in browser.snapshot()),
                             f"removed by the goodbye (host exit {proc.returncode}: {tail!r})", 15)
        assert f"removed:{name}" in events
        assert proc.returncode == 130, err
        assert b"Traceback" not in err

    aio_helpers.run(scenario(), 60)


def test_client_finds_its_table_on_another_port_by_table_id(monkeypatch: pytest.MonkeyPatch) -> None:
    """The host seems to move (as after ``host --resume`` on another port): the old
    address stops answering; the table is advertised with its id on the new port; the
    client reconnects there with its token, the pin unchanged."""
    from rami_lan.net.client import open_session
    from rami_lan.net.host import TableHost

    monkeypatch.setenv("RAMI_LAN_INTERFACES", "127.0.0.1")

    async def scenario() -> None:
        host = TableHost(_config(name="moving", bots={1: "debutant"}))
        port = await host.start()
        relay = Relay(port)
        old_port = await relay.start()
        session = await open_session("127.0.0.1", old_port, nickname="anne",
                                     fingerprint=host.fingerprint, reconnect_window=20.0)
        await host.start_match()  # a seat in a running match is kept for its token
        ad = make_ad(table_id=host.table_id.hex(), name="moving", fingerprint=host.fingerprint)
        try:
            async with TableAdvertiser(ad, port, **LOOPBACK):
                await relay.stop()
                session.abort_transport()
                await poll_until(lambda: session.port == port and session.connected,
                                 "reconnected on the advertised port", 15)
            assert session.host == "127.0.0.1" and session.fingerprint == host.fingerprint
        finally:
            await session.close()
            await host.stop()

    aio_helpers.run(scenario(), 40)


def test_client_gives_up_with_a_clear_message(monkeypatch: pytest.MonkeyPatch) -> None:
    from rami_lan.net.client import open_session
    from rami_lan.net.host import TableHost

    monkeypatch.setenv("RAMI_LAN_INTERFACES", "127.0.0.1")

    async def scenario() -> None:
        host = TableHost(_config(name="gone", bots={1: "debutant"}))
        port = await host.start()
        relay = Relay(port)  # the host "crashes": its address stops answering
        session = await open_session("127.0.0.1", await relay.start(), nickname="anne",
                                     fingerprint=host.fingerprint, reconnect_window=1.5)
        await host.start_match()
        notices: list[str] = []
        try:
            await relay.stop()
            session.abort_transport()
            async for up in session.updates():
                if up.notice:
                    notices.append(session_text(up.notice))
                if up.connection == "closed":
                    break
        finally:
            await session.close()
            await host.stop()
        assert any("Could not reconnect to the table" in n and "Giving up" in n for n in notices), notices

    aio_helpers.run(scenario(), 40)


def test_install_shutdown_calls_stop_once_per_signal_and_can_be_removed() -> None:
    from rami_lan.net.signals import install_shutdown

    async def scenario() -> None:
        fired = asyncio.Event()
        handle = install_shutdown(asyncio.get_running_loop(), stop=fired.set)
        try:
            os.kill(os.getpid(), signal.SIGHUP)
            await asyncio.wait_for(fired.wait(), 5)
        finally:
            handle.remove()
        assert handle.received == [signal.SIGHUP]
        assert signal.getsignal(signal.SIGHUP) in (signal.SIG_DFL, None)

    aio_helpers.run(scenario(), 10)


def test_clients_find_a_host_resumed_on_another_port(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """kill -9 of a real host mid-round, its old port still held by someone else, then
    ``host --resume``: it listens on another port, and the clients find it by table id
    through the browser and finish the match."""
    import socket

    from rami_lan.net.bot_client import BotClient
    from rami_lan.net.client import open_session

    monkeypatch.setenv("RAMI_LAN_INTERFACES", "127.0.0.1")

    async def scenario() -> None:
        env = dict(os.environ, RAMI_LAN_CONFIG_DIR=str(tmp_path / "cfg"), LANG="C.UTF-8")
        common = ["--interface", "127.0.0.1", "--bot-delay", "0", "--away-delay", "20"]
        proc = _start_host(env, "--name", f"moved {secrets.token_hex(2)}", "--seats", "2",
                           "--variant", "rami", "--limit", "1", *common)
        holder: socket.socket | None = None
        try:
            port = await _read_port(proc)
            sessions = [await open_session("127.0.0.1", port, nickname=f"p{i}", backoff=0.05,
                                           max_backoff=0.5) for i in range(2)]
            tasks = [asyncio.create_task(BotClient(s, delay=0.03, seed=i).run())
                     for i, s in enumerate(sessions)]
            await poll_until(lambda: all(s.view is not None and s.view.turn_no >= 3 for s in sessions)
                             or any(t.done() for t in tasks), "a few turns", 20)
            assert not any(t.done() for t in tasks), "the match ended before the crash"
            proc.send_signal(signal.SIGKILL)
            proc.wait(5)
            holder = socket.socket()
            holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            holder.bind(("127.0.0.1", port))
            holder.listen()  # the old port answers nothing useful now
            proc = _start_host(env, "--resume", *common)
            port2 = await _read_port(proc)
            assert port2 != port
            summaries = await asyncio.wait_for(asyncio.gather(*tasks), 45)
            assert all(sm.finished for sm in summaries)
            assert all(s.port == port2 for s in sessions)
            for s in sessions:
                await s.close()
            assert proc.wait(15) == 0
        finally:
            if holder is not None:
                holder.close()
            if proc.poll() is None:
                proc.kill()
                proc.wait(5)

    aio_helpers.run(scenario(), 90)


def test_join_line_client_output_has_no_escape_sequences_from_the_host() -> None:
    """A hostile host's nicknames and event strings are shown, but made printable."""
    from rami_lan.cli.cmd_join import _short, _show
    from rami_lan.core.events import RoundEnded
    from rami_lan.core.views import SeatView

    view = SeatView(seat=0, variant="rami", phase="draw\x1b[31m", round_no=1, turn_no=1, turn=1,
                    dealer=0, hand=(), players=(), melds=(), discard=(), discard_size=0,
                    stock_size=0, knock_window=(), taken=None, must_use=(), last_result=None,
                    limit=1, quick=False, knock=False, match_over=False, winner=None, tiebreak=())
    shown = _show(view, {1: "\x1b]0;pwned\x07evil"})
    ev = RoundEnded(winner=None, rami_sec=False, reason="out\x1b[2J", hands=(), hand_points=(),
                    laid_points=(), scores=())
    for text in (shown, _short(ev)):
        assert "\x1b" not in text and "\x07" not in text
    assert "evil" in shown


def test_list_and_join_with_a_bad_interface_say_so_without_a_traceback(tmp_path: Path) -> None:
    async def scenario() -> None:
        for args in (("list", "--timeout", "0.3", "--interface", "not-an-ip"),
                     ("join", "x", "--timeout", "0.3", "--interface", "not-an-ip")):
            proc = await _cli(tmp_path, *args)
            _out, err = await proc.communicate()
            assert proc.returncode == 2, err
            assert b"Can not look for tables on the network" in err and b"Traceback" not in err

    aio_helpers.run(scenario(), 30)


def test_host_advertises_odd_names_made_fit_for_txt() -> None:
    """A typed table name with control or zero-width characters never stops the host:
    the ad carries it cleaned (issue 14: every string is made safe)."""
    from rami_lan.net.discovery import MAX_HOST_BYTES, MAX_NAME_BYTES, ad_text, host_label

    assert ad_text("Chez\u200b Paul\x1b[2J", MAX_NAME_BYTES, "Rami") == "Chez Paul[2J"
    assert host_label("") == "Rami"
    assert len(host_label("é" * 100).encode()) <= MAX_HOST_BYTES
