"""The lobby and a seat kept on disk (issue 29 item 1): a table where we hold a seat says
"Rejoin" and comes first; Enter takes the seat again with the kept token and code; a
refused token forgets the seat; an invitation is answered "accepted" only once seated."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest
from test_ui_lobby import FakeBrowser, text
from ui_helpers import running, until

from rami_lan.net.discovery import TableAd
from rami_lan.net.seats import SeatCredentials, SeatStore

pytestmark = pytest.mark.usefixtures("ui_env")


@pytest.fixture(autouse=True)
def _no_presence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAMI_LAN_NO_BROWSE", "1")


def _ad(name: str, tid: str) -> TableAd:
    return TableAd(table_id=tid, name=name, host="H", variant="rami", seats_taken=2,
                   seats_total=2, point_limit=100, addresses=("127.0.0.1",), port=4242,
                   service_name=f"{name}._rami._tcp.local.")


KEPT = SeatCredentials(table_id="bb00112233445566", fingerprint="ab" * 32, token=b"k" * 16,
                       host="127.0.0.1", port=4242, seat=1, nickname="Tester",
                       table_name="Mine", code="TULI-PE42")


class FakeSession:
    seat = 1
    variant = "rami"
    table: dict = {}
    table_id = bytes.fromhex(KEPT.table_id)
    connection = "connected"

    async def updates(self):  # type: ignore[no-untyped-def]
        await asyncio.Event().wait()
        yield None

    async def close(self) -> None:
        return None


def _lobby_with(calls: list[dict[str, Any]], refuse: str | None = None) -> Any:
    from rami_lan.cli.settings import Settings
    from rami_lan.cli.ui.lobby import Lobby
    from rami_lan.cli.ui.shell import Shell
    from rami_lan.net.client import JoinRefused

    async def fake_open(host: str, port: int, **kw: Any) -> Any:
        calls.append(kw)
        if refuse:
            raise JoinRefused(refuse, "unknown or expired reconnect token")
        return FakeSession()

    browser = FakeBrowser([_ad("Alpha", "aa00112233445566"), _ad("Mine", KEPT.table_id)])
    box: list = []

    def make() -> Shell:
        shell = Shell()
        lobby = Lobby(shell, Settings(nickname="Tester"), browser_factory=lambda: browser,
                      solo_think=0, open_session=fake_open)
        shell.show(lobby)
        box[:] = [shell, lobby]
        return shell

    return make, box


def test_a_kept_seat_says_rejoin_first_and_enter_takes_it_again() -> None:
    SeatStore().save(KEPT)
    calls: list[dict[str, Any]] = []

    async def main() -> None:
        make, box = _lobby_with(calls)
        async with running(make, timeout=20) as d:
            _shell, lobby = box
            await until(lambda: "Alpha" in text(lobby) and "Mine" in text(lobby))
            rows = [r for r in text(lobby).splitlines() if "Alpha" in r or "Mine" in r]
            assert "Mine" in rows[0] and "Rejoin" in rows[0]  # first, and marked
            assert "Rejoin" not in rows[1]
            lobby.index = 0
            d.keys("\r")
            await until(lambda: bool(calls), 10, "the join")
            d.keys("q")

    asyncio.run(main())
    assert calls[0]["token"] == KEPT.token
    assert calls[0]["code"] == KEPT.code  # the code form is not asked again


def test_a_refused_token_forgets_the_kept_seat() -> None:
    SeatStore().save(KEPT)
    calls: list[dict[str, Any]] = []

    async def main() -> None:
        make, box = _lobby_with(calls, refuse="bad_token")
        async with running(make, timeout=20) as d:
            _shell, lobby = box
            await until(lambda: "Rejoin" in text(lobby))
            lobby.index = 0
            d.keys("\r")
            await until(lambda: lobby.message is not None and not lobby.busy, 10, "message")
            await until(lambda: "Rejoin" not in text(lobby), 5, "forgotten")
            d.keys("q")

    asyncio.run(main())
    assert SeatStore().get(KEPT.table_id) is None


@pytest.mark.parametrize("refuse,answer", [(None, "accept"), ("in_progress", "decline")])
def test_an_invitation_is_accepted_only_once_seated(refuse: str | None, answer: str) -> None:
    from rami_lan.net.presence import InviteReply

    calls: list[dict[str, Any]] = []
    answers: list[Any] = []

    async def main() -> None:
        make, box = _lobby_with(calls, refuse=refuse)
        async with running(make, timeout=20) as d:
            _shell, lobby = box
            inv = SimpleNamespace(invitation_id="c" * 32, addresses=("127.0.0.1",), port=4242,
                                  fingerprint="", code_required=False, ticket=None,
                                  table_id="dd00112233445566", hello_code=lambda: None)

            class Inbox:
                busy = False

                def accept(self, inv_id: str) -> Any:
                    return inv, InviteReply(inv_id, "accept")

                def decline(self, inv_id: str) -> Any:
                    return InviteReply(inv_id, "decline")

            lobby.inbox = Inbox()
            lobby.listener = SimpleNamespace(answer=lambda _id, reply: answers.append(reply))
            lobby.invites = [inv]
            lobby.accept_invite()
            await until(lambda: bool(answers), 10, "the answer")
            lobby.listener = None
            d.keys("q")

    asyncio.run(main())
    assert [str(a.answer) for a in answers] == [answer]


def test_the_owners_invitation_to_a_dropped_player_takes_the_kept_seat() -> None:
    from rami_lan.net.presence import InviteReply

    SeatStore().save(KEPT)
    calls: list[dict[str, Any]] = []
    answers: list[Any] = []

    async def main() -> None:
        make, box = _lobby_with(calls)
        async with running(make, timeout=20) as d:
            _shell, lobby = box
            await until(lambda: "Rejoin" in text(lobby))
            inv = SimpleNamespace(invitation_id="e" * 32, addresses=("127.0.0.1",), port=4242,
                                  fingerprint="", code_required=True, ticket=None,
                                  table_id=KEPT.table_id, hello_code=lambda: None)

            class Inbox:
                busy = False

                def accept(self, inv_id: str) -> Any:
                    return inv, InviteReply(inv_id, "accept")

                def decline(self, inv_id: str) -> Any:
                    return InviteReply(inv_id, "decline")

            lobby.inbox = Inbox()
            lobby.listener = SimpleNamespace(answer=lambda _id, reply: answers.append(reply))
            lobby.invites = [inv]
            lobby.accept_invite()
            await until(lambda: bool(answers), 10, "the answer")
            lobby.listener = None
            d.keys("q")

    asyncio.run(main())
    assert calls[0]["token"] == KEPT.token and calls[0]["code"] == KEPT.code
    assert [str(a.answer) for a in answers] == ["accept"]
