"""The owner's invitation to a dropped player gives the seat back (issue 29 item 1, lan2
b): the host knows the player id of each seat (its "Info joueur" card), so an invitation
to a player who dropped out of the match is a *return invitation*: its ticket (sent only
over the encrypted invitation channel) proven by the join-code exchange seats its bearer
at that seat with a new token, even when their client lost its seat file. The attacker's
side: a wrong ticket, a used one, a plain invitation, a seat whose player is back, none of
them takes a seat. Real host and clients on loopback."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from aio_helpers import run, until

from rami_lan.cli.ui.invites import LanInviter
from rami_lan.net.client import JoinRefused, PakeFailed, open_session
from rami_lan.net.host import TableConfig, TableHost
from rami_lan.net.joining import join_retrying
from rami_lan.net.presence import InviteAnswer, InviteReply

pytestmark = pytest.mark.usefixtures("isolated_config")

BRUNO = "b1" * 16


@pytest.fixture(autouse=True)
def _own_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAMI_LAN_DATA_DIR", str(tmp_path / "data"))




def _table(host: TableHost) -> dict[str, Any]:
    return dict(table_id=host.table_id.hex(), table_name="back", variant="rami", from_nick="anne",
                from_player_id="a0" * 16, addresses=["127.0.0.1"], port=host.port)


async def _dropped(**config: Any) -> tuple[TableHost, Any, Any, int]:
    host = TableHost(TableConfig(name="back", seats=3, headless=True, advertise=False,
                                 interfaces=["127.0.0.1"], bot_delay=0.0, variant="rami", limit=None,
                                 bots={2: "moyen"}, away_delay=30.0, **config))
    await host.start()
    code = config.get("join_code")
    a = await open_session("127.0.0.1", host.port, nickname="anne", player_id="a0" * 16, code=code)
    b = await open_session("127.0.0.1", host.port, nickname="bruno", player_id=BRUNO, retries=0, code=code)
    seat = b.seat
    await until(lambda: host.machine.cards.get(seat, {}).get("id") == BRUNO, timeout=10, what="B's card")
    await until(lambda: host.machine.started and host.machine.match.round is not None, timeout=10,
                what="the deal")
    b.abort_transport()  # B's process dies, its seat file with it
    await until(lambda: host.seats[seat].conn is None, timeout=10, what="B dropped")
    return host, a, b, seat


def test_a_return_invitation_gives_the_dropped_player_their_seat() -> None:
    async def scenario() -> None:
        host, a, b, seat = await _dropped()
        try:
            # a newcomer without token or invitation: the match has started
            with pytest.raises(JoinRefused) as refused:
                await open_session("127.0.0.1", host.port, nickname="bruno", retries=0)
            assert refused.value.code == "in_progress"
            assert host.machine.dropped_seat_of(BRUNO) == seat
            assert host.machine.dropped_seat_of("c3" * 16) is None
            sent: list[Any] = []

            async def send(player: Any, inv: Any) -> InviteReply:
                sent.append(inv)
                return InviteReply(inv.invitation_id, InviteAnswer.ACCEPT)

            inviter = LanInviter(lambda: [], host.guestlist, **_table(host), send=send,
                                 seat_for=host.machine.dropped_seat_of)
            player = SimpleNamespace(player_id=BRUNO, nickname="bruno", fingerprint="f" * 64)
            await inviter.invite(player)
            inv = sent[-1]
            assert inv.ticket is not None  # a return invitation carries a ticket (encrypted)
            # the attacker: the invitation's id with a wrong ticket
            with pytest.raises((PakeFailed, JoinRefused)):
                await open_session("127.0.0.1", host.port, nickname="mallory", retries=0,
                                   invitation=inv.invitation_id, code="not-the-ticket",
                                   code_required=True)
            assert host.seats[seat].conn is None
            # (the wrong ticket made the address wait: as `join` and the lobby do, wait it out)
            back = await join_retrying(lambda: open_session(
                "127.0.0.1", host.port, nickname="bruno", retries=0, invitation=inv.invitation_id,
                code=inv.ticket, code_required=True, player_id=BRUNO), 10)
            assert back.seat == seat and back.token != b.token
            await until(lambda: host.seats[seat].conn is not None, timeout=10, what="B seated again")
            assert host.machine.seat_for_token(b.token) is None  # the lost token is void
            # used: the same ticket again takes nothing
            conn = host.seats[seat].conn
            with pytest.raises((PakeFailed, JoinRefused)):
                await join_retrying(lambda: open_session(
                    "127.0.0.1", host.port, nickname="mallory", retries=0, invitation=inv.invitation_id,
                    code=inv.ticket, code_required=True), 10)
            assert host.seats[seat].conn == conn  # B keeps the seat
            # B is back: an invitation to B now is not a return invitation
            assert host.machine.dropped_seat_of(BRUNO) is None
            for s in (a, b, back):
                await s.close()
        finally:
            await host.stop()

    run(scenario(), 60)


def test_a_plain_invitation_gives_no_seat_and_no_ticket() -> None:
    """Over a plain (unencrypted) invitation channel no ticket goes out: a return
    invitation needs the encrypted one (a ticket every listener read would give the seat
    to any of them); the invited player is then refused, and told so."""
    async def scenario() -> None:
        host, a, b, seat = await _dropped()
        try:
            sent: list[Any] = []

            async def send(player: Any, inv: Any) -> InviteReply:
                sent.append(inv)
                return InviteReply(inv.invitation_id, InviteAnswer.ACCEPT)

            inviter = LanInviter(lambda: [], host.guestlist, **_table(host), send=send,
                                 seat_for=host.machine.dropped_seat_of)
            await inviter.invite(SimpleNamespace(player_id=BRUNO, nickname="bruno", fingerprint=""))
            assert sent[-1].ticket is None
            with pytest.raises(JoinRefused) as refused:
                await open_session("127.0.0.1", host.port, nickname="bruno", retries=0,
                                   invitation=sent[-1].invitation_id)
            assert refused.value.code == "in_progress"
            assert host.seats[seat].conn is None
            for s in (a, b):
                await s.close()
        finally:
            await host.stop()

    run(scenario(), 60)


def test_a_return_invitation_at_a_code_table() -> None:
    """At a join-code table the return ticket replaces the code for that seat (the
    invited player need not know the code), and its reconnects prove the ticket."""
    async def scenario() -> None:
        host, a, b, seat = await _dropped(join_code="table-code-1")
        try:
            inv = host.guestlist.invite(SimpleNamespace(player_id=BRUNO), encrypted=True,
                                        seat=seat, **_table(host))
            back = await open_session("127.0.0.1", host.port, nickname="bruno", retries=0,
                                      invitation=inv.invitation_id, code=inv.ticket, code_required=True)
            assert back.seat == seat
            assert host.seats[seat].pake_secret == inv.ticket
            for s in (a, b, back):
                await s.close()
        finally:
            await host.stop()

    run(scenario(), 60)
