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
from aio_helpers import poll_until
from zeroconf import IPVersion
from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

from rami_lan.net.discovery import SERVICE_TYPE, TableAd, TableAdvertiser, TableBrowser

pytestmark = pytest.mark.usefixtures("isolated_config")

ROOT = Path(__file__).resolve().parents[1]
LOOPBACK: dict[str, Any] = {"interfaces": ["127.0.0.1"], "ip_version": IPVersion.V4Only}


def _env(tmp: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "LANG": "C", "RAMI_LAN_INTERFACES": "127.0.0.1",
            "XDG_DATA_HOME": str(tmp / "data"), "XDG_CONFIG_HOME": str(tmp / "config")}


async def _cli(tmp: Path, *args: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "rami_lan.cli.main", "--lang", "en", *args, env=_env(tmp),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)


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
        async with TableAdvertiser(good, 47100, **LOOPBACK), AsyncZeroconf(**LOOPBACK) as zc:
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
        assert proc2.returncode == 1 and "Could not connect" in err2, err2
        assert "Traceback" not in err2

    aio_helpers.run(scenario(), 40)


def test_sigterm_ends_list_like_ctrl_c(tmp_path: Path) -> None:
    async def scenario() -> None:
        proc = await _cli(tmp_path, "list", "--timeout", "60", "--interface", "127.0.0.1")
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
                              "--interface", "127.0.0.1", "--record-dir", str(tmp_path))
            await poll_until(lambda: any(t.name == name for t in browser.snapshot()), "listed", 20)
            proc.send_signal(signal.SIGTERM)
            _out, err = await asyncio.wait_for(proc.communicate(), 15)
            # Without a goodbye the table would stay listed for the PTR TTL (75 min).
            await poll_until(lambda: not any(t.name == name for t in browser.snapshot()),
                             "removed by the goodbye", 5)
        assert f"removed:{name}" in events
        assert proc.returncode == 130, err
        assert b"Traceback" not in err

    aio_helpers.run(scenario(), 60)


def test_client_finds_its_table_on_another_port_by_table_id(monkeypatch: pytest.MonkeyPatch) -> None:
    """The host seems to move (as after ``host --resume`` on another port): the old
    address stops answering; the table is advertised with its id on the new port; the
    client reconnects there with its token, the pin unchanged."""
    from test_security_e2e import Relay, _config

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
    from test_security_e2e import Relay, _config

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
                    notices.append(up.notice)
                if up.connection == "closed":
                    break
        finally:
            await session.close()
            await host.stop()
        assert any("Could not reconnect to the table" in n and "Giving up" in n for n in notices), notices

    aio_helpers.run(scenario(), 40)
