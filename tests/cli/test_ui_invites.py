"""The lobby's presence on loopback: players listed live, an invitation accepted with
one key (the join is stubbed), and the owner's Inviter sending to the lobby."""

from __future__ import annotations

import asyncio
import secrets

import pytest
from door import Door, knock
from ui_helpers import running, until
from zeroconf import IPVersion

from rami_lan.cli.cmd_solo import make_solo_session
from rami_lan.cli.settings import Settings
from rami_lan.cli.ui.invites import LanInviter
from rami_lan.cli.ui.lobby import Lobby
from rami_lan.cli.ui.shell import Shell
from rami_lan.cli.ui.table_screen import TableScreen
from rami_lan.cli.ui.text import fragments_text
from rami_lan.net.presence import (
    PLAYER_SERVICE_TYPE,
    Guestlist,
    InviteAnswer,
    PlayerAd,
    PlayerAdvertiser,
    PlayerBrowser,
    WhoMaySit,
    player_instance_name,
)
from rami_lan.profile import Profile, new_player_id

FP = "abcdef0123456789" * 4  # a table certificate's fingerprint: 64 hex digits
LOOPBACK = {"interfaces": ["127.0.0.1"], "ip_version": IPVersion.V4Only}


@pytest.fixture(autouse=True)
def loopback_ui(ui_env, monkeypatch):
    monkeypatch.setenv("RAMI_LAN_INTERFACES", "127.0.0.1")


@pytest.fixture(autouse=True)
def private_service_type(monkeypatch):
    """A service type of our own: lobbies of other rami-lan processes advertising on
    this machine's loopback are never seen by these tests (and never see ours)."""
    from rami_lan.net import presence

    kind = f"_rl{secrets.token_hex(5)}._tcp.local."
    monkeypatch.setattr(presence, "PLAYER_SERVICE_TYPE", kind)
    monkeypatch.setattr(presence.PlayerAdvertiser, "_service_type", kind)
    monkeypatch.setattr(presence.PlayerBrowser, "_service_type", kind)
    return kind


REAL_PLAYER_SERVICE = PLAYER_SERVICE_TYPE  # this run's real type (conftest tags it)


class OtherLobby(PlayerAdvertiser):
    """A lobby of another rami-lan on this machine: the real service type and names."""

    _service_type = REAL_PLAYER_SERVICE
    _service_name_for = staticmethod(
        lambda ad: f"{player_instance_name(ad)}.{REAL_PLAYER_SERVICE}")


def test_lobby_lists_players_and_accepts_an_invitation_with_one_key(private_service_type):
    async def main() -> None:
        me = Profile(nickname="Tester", player_id=new_player_id(), lang="en")
        joined: list[tuple] = []
        options: list[dict] = []

        async def fake_open_session(host, port, *, nickname, lang, code=None, **kw):
            joined.append((host, port, nickname, code))
            options.append(kw)
            return make_solo_session("rami", 2, "moyen", "inv-1", think=5, nickname=nickname)

        box: list = []

        def make() -> Shell:
            shell = Shell()
            lobby = Lobby(shell, Settings(nickname="Tester"), browser_factory=None,
                          solo_think=0, profile=me, presence=True,
                          open_session=fake_open_session)
            shell.show(lobby)
            box[:] = [shell, lobby]
            return shell

        paul = PlayerAd(player_id=new_player_id(), nickname="Paul", lang="fr")
        intruder = PlayerAd(player_id=new_player_id(), nickname="Intruder", lang="en")
        async with running(make, timeout=25) as d, OtherLobby(intruder, 40999, **LOOPBACK):
            shell, lobby = box
            assert lobby.interfaces == ["127.0.0.1"]
            await until(lambda: "Players on the network" in fragments_text(lobby.fragments()))
            async with PlayerAdvertiser(paul, 40123, **LOOPBACK):
                await until(lambda: "Paul" in fragments_text(lobby.fragments()), 3, "Paul")
                assert "Intruder" not in fragments_text(lobby.fragments())
                assert "in the lobby" in fragments_text(lobby.fragments())
                assert all(p.player_id != me.player_id for p in lobby.players)
            await until(lambda: "Paul" not in fragments_text(lobby.fragments()), 3, "gone")
            # the owner of a table finds us by presence and invites us
            await until(lambda: lobby.advertiser is not None, what="advertised")
            async with PlayerBrowser(**LOOPBACK) as browser:
                assert browser._service_type == private_service_type
                await until(lambda: browser.by_id(me.player_id) is not None, 3, "seen")
                target = browser.by_id(me.player_id)
                assert target.invitable and target.port == lobby.listener.port
                guests = Guestlist(WhoMaySit.INVITED)
                inviter = LanInviter(
                    browser.snapshot, guests, table_id=secrets.token_hex(8),
                    table_name="Chez Paul", variant="rami", from_nick="Paul",
                    from_player_id=paul.player_id, addresses=["127.0.0.1"], port=45678,
                    fingerprint=FP,
                )
                assert [p.nickname for p in inviter.players()] == ["Tester"]
                sent = asyncio.ensure_future(inviter.invite(target))
                await until(lambda: bool(lobby.invites), 3, "prompt")
                text = fragments_text(lobby.fragments())
                assert "Paul invites you to the table “Chez Paul” (rami). Join?" in text
                assert "127.0.0.1:45678" in text and "ABCD-EF01-2345-6789" in text
                d.keys("\r")  # one key: accept and join
                line = await asyncio.wait_for(sent, 5)
                assert "Paul" not in line or "accept" in line.lower()
            await until(lambda: bool(joined), 3, "joined")
            host, port, nick, code = joined[0]
            assert (host, port, nick) == ("127.0.0.1", 45678, "Tester")
            # the lobby pins the table's fingerprint, names the invitation, wants the PAKE
            assert options[0]["fingerprint"] == FP
            assert options[0]["code_required"] and len(options[0]["invitation"]) == 32
            # the ticket travelled: the table's admission seats us with it
            assert code is not None
            assert knock(Door(guests), "Tester", code, invitation=options[0]["invitation"]) == "seated"
            await until(lambda: isinstance(shell.screen, TableScreen), 3, "table shown")
            assert lobby.inbox.busy  # at a table: further invitations answered "busy"
            shell.exit(0)

    asyncio.run(main())


def test_declined_invitation_and_table_inviter_panel():
    async def main() -> None:
        class FakeInviter:
            def __init__(self) -> None:
                self.sent: list = []
                self.ads = [PlayerAd(player_id=new_player_id(), nickname="Léa", lang="fr",
                                     port=4000, addresses=("127.0.0.1",))]

            def players(self):
                return self.ads

            async def invite(self, ad):
                self.sent.append(ad.nickname)
                return f"{ad.nickname} accepted."

        inviter = FakeInviter()
        session = make_solo_session("rami", 2, "moyen", "inv-2", think=5, nickname="Tester")
        box: list = []

        def make() -> Shell:
            shell = Shell()
            screen = TableScreen(session, on_leave=shell.exit, stats=None, inviter=inviter)
            shell.show(screen)
            box[:] = [shell, screen]
            return shell

        async with running(make, timeout=15) as d:
            shell, screen = box
            await until(lambda: screen.model.view is not None)
            assert "[v]" in screen.text() or "[Invite v]" in screen.text()
            d.keys("v")
            await until(lambda: screen.model.invite_open, what="panel")
            assert "Léa" in fragments_text(screen.invite_fragments())
            d.keys("\r")
            await until(lambda: inviter.sent == ["Léa"], what="invited")
            await until(lambda: "Léa accepted." in screen.model.log, what="logged")
            shell.exit(0)
        assert InviteAnswer.DECLINE.value == "decline"

    asyncio.run(main())
