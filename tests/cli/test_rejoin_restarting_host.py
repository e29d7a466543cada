"""`rami-lan join`'s rejoin while the host is being restarted (issue 29, chaos seeds 2
and 3): the kept address refuses and the table is not advertised yet for a few seconds.
The kept seat must be taken again once the host is back, within the join window, not
given up after one look (the player then read "No table named ...")."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from rami_lan.cli import cmd_join
from rami_lan.net import client, discovery
from rami_lan.net.discovery import TableAd
from rami_lan.net.seats import SeatCredentials

KEPT = SeatCredentials(table_id="cc00112233445566", fingerprint="ab" * 32, token=b"k" * 16,
                       host="127.0.0.1", port=4242, seat=2, nickname="Tester",
                       table_name="Mine", code=None)


class _Store:
    def __init__(self) -> None:
        self.removed: list[str] = []

    def remove(self, table_id: str) -> None:
        self.removed.append(table_id)


def test_rejoin_waits_for_a_host_that_is_restarting(monkeypatch: pytest.MonkeyPatch) -> None:
    """Address refused and no ad for the first three looks, then the resumed host is
    advertised on a new port: rejoin connects there and the seat file is kept."""
    looks: list[str] = []
    connects: list[tuple[str, int]] = []
    session = SimpleNamespace(seat=2)

    async def find_table(text: str, timeout: float, interfaces: Any) -> TableAd | None:
        looks.append(text)
        assert timeout <= cmd_join.REJOIN_LOOK  # each look is short: the address is retried
        if len(looks) < 4:
            return None
        return TableAd(table_id=KEPT.table_id, name="Mine", host="H", variant="rami",
                       seats_taken=3, seats_total=3, point_limit=100,
                       addresses=("127.0.0.1",), port=5151, service_name="Mine._rami._tcp.local.")

    async def open_session(host: str, port: int, **kw: Any) -> Any:
        connects.append((host, port))
        if port == KEPT.port:
            raise ConnectionRefusedError(111, "Connect call failed")
        return session

    monkeypatch.setattr(discovery, "find_table", find_table)
    monkeypatch.setattr(client, "open_session", open_session)
    store = _Store()
    args = SimpleNamespace(timeout=10.0, code=None, bot="moyen")
    got = asyncio.run(cmd_join.rejoin(KEPT, store, args, None))
    assert got is session
    assert looks == [KEPT.table_id] * 4
    assert connects[-1] == ("127.0.0.1", 5151)
    assert connects.count(("127.0.0.1", KEPT.port)) == 4  # the kept address, tried each time
    assert store.removed == []


def test_rejoin_gives_up_when_the_window_is_spent(monkeypatch: pytest.MonkeyPatch) -> None:
    """A table that never comes back: None once the window is over (the caller then looks
    the table up by name), the seat file is kept."""
    clock = [0.0]

    async def find_table(text: str, timeout: float, interfaces: Any) -> None:
        clock[0] += timeout
        return None

    async def open_session(host: str, port: int, **kw: Any) -> Any:
        raise ConnectionRefusedError(111, "Connect call failed")

    monkeypatch.setattr(cmd_join.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(discovery, "find_table", find_table)
    monkeypatch.setattr(client, "open_session", open_session)
    store = _Store()
    args = SimpleNamespace(timeout=1.0, code=None, bot="moyen")
    assert asyncio.run(cmd_join.rejoin(KEPT, store, args, None)) is None
    assert clock[0] >= 1.0 + cmd_join.RETRY_WINDOW
    assert store.removed == []


def test_join_says_the_table_is_gone_when_a_kept_seat_is_not_found(
        ui_env: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Relaunched after its table's match ended while it was away (or its host closed):
    ``join`` says the table is gone and that the seat is kept, not "No table named"."""
    import time

    from rami_lan.net.seats import SeatStore

    SeatStore().save(SeatCredentials(**{**KEPT.__dict__, "saved_at": time.time()}))

    async def rejoin(kept: Any, store: Any, args: Any, interfaces: Any) -> None:
        assert kept.table_id == KEPT.table_id
        return None  # not reached in the window

    async def find_table(text: str, timeout: float, interfaces: Any) -> None:
        return None

    monkeypatch.setattr(cmd_join, "rejoin", rejoin)
    monkeypatch.setattr(discovery, "find_table", find_table)
    args = SimpleNamespace(table="Mine", timeout=0.1, code=None, bot=None, nick="Tester",
                           interface=["127.0.0.1"], bot_delay=None)
    assert cmd_join.run(args) == 1
    out, err = capsys.readouterr()
    assert "You have a seat at Mine" in out
    assert "This table is gone: its host no longer answers." in err
    assert "Your seat at Mine is kept" in err
    assert "No table named" not in err
    assert SeatStore().get(KEPT.table_id) is not None
