"""The suite can not leak multicast (issue 29 item 6): ``$RAMI_LAN_INTERFACES`` is
loopback for the whole session, and a reconnecting client tries the address it joined
first, then browses only on the interfaces of that setting or of its connection."""

from __future__ import annotations

import asyncio
import os
from typing import Any

import pytest
from aio_helpers import run

from rami_lan.net import discovery
from rami_lan.net.client import RemoteTableSession, open_session
from rami_lan.net.host import TableConfig, TableHost

pytestmark = pytest.mark.usefixtures("isolated_config")


def test_the_whole_session_is_on_loopback() -> None:
    # No fixture asked for: the session-wide one set it, for child processes too.
    assert os.environ.get("RAMI_LAN_INTERFACES") == "127.0.0.1"


class _Browsers:
    """Stands in for `discovery.TableBrowser`: records where each browse would listen."""

    def __init__(self) -> None:
        self.interfaces: list[Any] = []

    def __call__(self, *, interfaces: Any, **_kw: Any) -> Any:
        self.interfaces.append(interfaces)
        outer = self

        class _Browser:
            async def __aenter__(self) -> Any:
                return outer

            async def __aexit__(self, *exc: object) -> None:
                return None

        return _Browser()


def test_follow_browses_the_connection_interface_without_the_setting(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAMI_LAN_INTERFACES", raising=False)
    session = RemoteTableSession("127.0.0.1", 1, nickname="x")
    session._local_address = "127.0.0.1"
    assert session.follow_interfaces() == ["127.0.0.1"]
    session._local_address = None
    assert session.follow_interfaces() == "all"
    monkeypatch.setenv("RAMI_LAN_INTERFACES", "127.0.0.1")
    assert session.follow_interfaces() == ["127.0.0.1"]


async def _reconnect_scenario(monkeypatch: pytest.MonkeyPatch, restart: bool) -> list[Any]:
    browsers = _Browsers()
    monkeypatch.setattr(discovery, "TableBrowser", browsers)
    monkeypatch.delenv("RAMI_LAN_INTERFACES", raising=False)
    cfg = TableConfig(name="if", seats=2, headless=True, advertise=False,
                      interfaces=["127.0.0.1"], bot_delay=0.0)
    host = TableHost(cfg)
    port = await host.start()
    try:
        session = await open_session("127.0.0.1", port, nickname="a", backoff=0.05,
                                     reconnect_window=3.0)
        assert session._local_address == "127.0.0.1"
        if restart:  # the table is gone from that address (a crash: no goodbye)
            async def refused() -> None:
                raise ConnectionRefusedError(111, "Connect call failed")

            monkeypatch.setattr(session, "_connect", refused)
        session.abort_transport()
        loop = asyncio.get_running_loop()
        end = loop.time() + 5.0
        if restart:
            while not browsers.interfaces:
                assert loop.time() < end, "no browse while the table was gone"
                await asyncio.sleep(0.01)
        else:
            while session.connection != "connected" or session._reader is None \
                    or session._reader.at_eof():
                assert loop.time() < end, "did not reconnect"
                await asyncio.sleep(0.01)
            await asyncio.sleep(0)
        await session.close()
    finally:
        await host.stop()
    return browsers.interfaces


def test_reconnect_tries_the_joined_address_before_browsing(monkeypatch: pytest.MonkeyPatch) -> None:
    # The host is still there: the first attempt at its address succeeds, nothing browses.
    assert run(_reconnect_scenario(monkeypatch, restart=False), 20) == []


def test_reconnect_browses_only_where_the_table_was(monkeypatch: pytest.MonkeyPatch) -> None:
    # The host is gone: the client looks for it, on the connection's interface only.
    assert run(_reconnect_scenario(monkeypatch, restart=True), 20) == [["127.0.0.1"]]
