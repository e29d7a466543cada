"""Players on the LAN, over the network (issue 7): chat relayed through the host's chat
policy, "Info joueur" cards exchanged, the match id for statistics, a real match record
replayed forward and back, and an "invited only" table joined with an invitation sent
over TLS to a player found by presence.

Network rule: sockets only on 127.0.0.1; zeroconf only with ``interfaces=["127.0.0.1"]``
and ``IPVersion.V4Only``.
"""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path
from typing import Any

import aio_helpers
import pytest
from aio_helpers import until
from zeroconf import IPVersion

from rami_lan.cli.cmd_replay import adapt_record, load_replay
from rami_lan.cli.messages import error_text
from rami_lan.cli.ui.invites import InviteListener, LanInviter, send_invitation
from rami_lan.core.codec import match_to_plain
from rami_lan.net import protocol as P
from rami_lan.net import tls
from rami_lan.net.bot_client import BotClient
from rami_lan.net.client import JoinRefused, RemoteTableSession, open_session
from rami_lan.net.host import TableConfig, TableHost
from rami_lan.net.presence import (
    Guestlist,
    InvitationInbox,
    PlayerAd,
    PlayerAdvertiser,
    PlayerBrowser,
    WhoMaySit,
)
from rami_lan.net.record import load_record, verify
from rami_lan.net.table_session import SessionUpdate
from rami_lan.replay import Replay, ReplayRecord
from rami_lan.stats import Connection, PlayerCard, PlayerStats

LOOPBACK = ["127.0.0.1"]
ZC = {"interfaces": LOOPBACK, "ip_version": IPVersion.V4Only}


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """TLS identities and statistics go to the test's folder."""
    monkeypatch.setenv("RAMI_LAN_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("RAMI_LAN_DATA_DIR", str(tmp_path / "data"))


def run(coro: Any, timeout: float = 30.0) -> Any:
    return aio_helpers.run(coro, timeout)


class Collector:
    """Every `SessionUpdate` of a session, read in the background."""

    def __init__(self, session: RemoteTableSession) -> None:
        self.session = session
        self.updates: list[SessionUpdate] = []
        self.task = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        async for up in self.session.updates():
            self.updates.append(up)

    @property
    def chat(self) -> list[tuple[int, str]]:
        return [line for up in self.updates for line in up.chat]

    @property
    def errors(self) -> list[str]:
        return [error_text(up.error) for up in self.updates if up.error]

    @property
    def cards(self) -> dict[int, dict]:
        out: dict[int, dict] = {}
        for up in self.updates:
            out.update(up.cards)
        return out

    async def close(self) -> None:
        await self.session.close()
        self.task.cancel()


def card_of(nick: str, won: int) -> dict:
    stats = PlayerStats(matches_played=3, matches_won=won, rounds_played=5, rounds_won=2)
    return PlayerCard(nick, secrets.token_hex(16), Connection.YOU, stats).to_plain()


def waiting_table(tmp_path: Path, **extra: Any) -> TableHost:
    """Two human seats and a host bot; the match waits (auto_start off)."""
    config = TableConfig(
        name="Salon", seats=3, bots={2: "moyen"}, headless=True, advertise=False,
        interfaces=LOOPBACK, auto_start=False, identity_dir=tmp_path / "host", **extra,
    )
    return TableHost(config)


async def join(host: TableHost, nick: str, **kw: Any) -> RemoteTableSession:
    return await open_session("127.0.0.1", host.port, nickname=nick, lang="fr",
                              fingerprint=host.fingerprint, **kw)


# --------------------------------------------------------------------------- chat


def test_chat_is_relayed_between_two_clients_with_limits(tmp_path: Path) -> None:
    async def main() -> None:
        host = waiting_table(tmp_path)
        await host.start()
        try:
            anne = Collector(await join(host, "Anne", card=card_of("Anne", 1)))
            bob = Collector(await join(host, "Bob", card=card_of("Bob", 2)))
            await anne.session.send_chat("Bonjour  à\ttous\u202e !")
            await until(lambda: bob.chat and anne.chat, what="relayed chat")
            assert bob.chat == anne.chat == [(anne.session.seat, "Bonjour à tous !")]
            # over-long: cut at 200 characters by the policy, never more on the wire
            await bob.session.send_chat("x" * 500)
            await until(lambda: len(anne.chat) == 2, what="long line")
            assert anne.chat[1] == (bob.session.seat, "x" * 200)
            with pytest.raises(P.LocalProtocolError):
                P.Session("client").send(P.Chat(text="x" * 201))
            # too fast: the host's bucket (burst 4; bob already spent 1) refuses the 4th
            # line of this burst, and only bob hears about it
            for i in range(4):
                await bob.session.chat(f"vite {i}")
            await until(lambda: bob.errors, what="rate limit error")
            assert "wait" in bob.errors[-1].lower() or "attend" in bob.errors[-1].lower()
            # Barrier, not a sleep: anne's own line comes back after every relay before it.
            await anne.session.chat("repère")
            await until(lambda: any(t == "repère" for _, t in anne.chat), what="anne's marker")
            await until(lambda: any(t == "repère" for _, t in bob.chat), what="bob's marker")
            relayed = [t for s, t in anne.chat if t.startswith("vite")]
            assert relayed == ["vite 0", "vite 1", "vite 2"]
            assert [t for s, t in bob.chat if t.startswith("vite")] == relayed
            assert not anne.errors
            # a bot never chats: its line is refused and nobody sees it
            robot_host = waiting_table(tmp_path / "2")
            await robot_host.start()
            try:
                robot = Collector(await join(robot_host, "Robot", bot=True))
                human = Collector(await join(robot_host, "Lea"))
                await robot.session.chat("bip")
                await until(lambda: robot.errors, what="bot refusal")
                assert robot.errors[-1] in ("Bots do not chat.", "Les bots ne parlent pas.")
                await human.session.chat("repère")  # a barrier: it follows any relay
                await until(lambda: human.chat, what="the human's own line")
                assert [t for _, t in human.chat] == ["repère"]
                await until(lambda: robot.chat, what="the robot hears the human")
                assert [t for _, t in robot.chat] == ["repère"]
                await robot.close()
                await human.close()
            finally:
                await robot_host.stop()
            # the host's own bot seat never said anything either
            assert all(seat != 2 for seat, _t in anne.chat)
            await anne.close()
            await bob.close()
        finally:
            await host.stop()

    run(main())


# --------------------------------------------------------------------------- cards


def test_cards_are_exchanged_and_visible_in_both_clients(tmp_path: Path) -> None:
    async def main() -> None:
        host = waiting_table(tmp_path)
        await host.start()
        try:
            anne = Collector(await join(host, "Anne", card=card_of("Anne", 1)))
            bob = Collector(await join(host, "Bob", card=card_of("Someone else", 2)))
            a, b = anne.session.seat, bob.session.seat
            await until(lambda: {a, b, 2} <= set(anne.cards) and {a, b, 2} <= set(bob.cards),
                        what="cards on both sides")
            for col in (anne, bob):
                mine = PlayerCard.from_plain(col.cards[b])
                assert mine.nickname == "Bob"  # the host stamps the seat's nickname
                assert mine.stats is not None and mine.stats.matches_won == 2
                assert mine.reported
                assert PlayerCard.from_plain(col.cards[a]).stats.matches_won == 1
                bot = PlayerCard.from_plain(col.cards[2])
                assert bot.connection is Connection.BOT and bot.stats is None
            assert anne.session.cards == anne.cards
            # a card that does not decode is refused to its sender only
            await anne.session._send(P.Card(card={"nick": "x"}))
            await until(lambda: anne.errors, what="bad card error")
            assert PlayerCard.from_plain(bob.session.cards[a]).stats.matches_won == 1
            await anne.close()
            await bob.close()
        finally:
            await host.stop()

    run(main())


# --------------------------------------------------------------------------- record


def test_lan_match_record_replays_to_the_host_final_state(tmp_path: Path) -> None:
    async def main() -> None:
        config = TableConfig(
            name="Replay", seats=3, headless=True, advertise=False, interfaces=LOOPBACK,
            record_dir=tmp_path / "records", bot_delay=0.0, variant="500", quick=True,
            identity_dir=tmp_path / "host", bots={2: "debutant"},
        )
        host = TableHost(config)
        await host.start()
        try:
            sessions = [await join(host, f"joueur{i}") for i in range(2)]
            for s in sessions:
                assert s.match_id == f"{host.table_id.hex()}:1"
            bots = [BotClient(s, delay=0.0, seed=i) for i, s in enumerate(sessions)]
            await asyncio.gather(*(b.run() for b in bots))
            await host.wait_finished(20)
            assert sessions[0].match_id == sessions[1].match_id  # after reconnect-free play
            for s in sessions:
                await s.close()
        finally:
            await host.stop()
        assert host.match.over and host.record_path is not None
        record = load_record(host.record_path)
        assert verify(record).ok
        rounds = record["rounds"]
        assert len(rounds) == len(host.match.history) >= 3
        for r in rounds:
            assert r["actions"] and len(r["actions"]) == len(r["played_by"])
            assert set(r["played_by"]) <= {"player", "bot", "timer"}
            assert r["withdrawals"] == []
        replay = Replay(ReplayRecord.from_plain(adapt_record(record)))
        final = match_to_plain(host.match)
        assert match_to_plain(replay.final_state) == final
        assert replay.n_rounds == len(rounds)
        replay.seek(replay.last)
        end = replay.position
        while replay.position > 0:
            replay.back()
        assert replay.position == 0 and not replay.state.history
        while replay.position < end:
            replay.forward()
        assert match_to_plain(replay.state) == final
        loaded, is_host = load_replay(host.record_path)
        assert is_host and match_to_plain(loaded.final_state) == final

    run(main(), timeout=45)


# --------------------------------------------------------------------------- invitations


def test_invited_only_table_end_to_end_over_presence_and_tls(tmp_path: Path) -> None:
    async def main() -> None:
        config = TableConfig(
            name="Chez Marie", seats=2, bots={1: "debutant"}, headless=True, advertise=False,
            interfaces=LOOPBACK, who_may_sit="invited", bot_delay=0.0, limit=1,
            identity_dir=tmp_path / "host",
        )
        host = TableHost(config)
        await host.start()
        assert host.guestlist.who is WhoMaySit.INVITED
        # the invited player, in their lobby: a TLS listener and presence
        paul_id = secrets.token_hex(16)
        inbox = InvitationInbox()
        prompts: list[Any] = []
        listener = InviteListener(
            inbox, prompts.append,
            identity=tls.load_or_create_identity("paul", tmp_path / "paul"))
        port = await listener.start("127.0.0.1")
        assert len(listener.fingerprint) == 64
        paul_ad = PlayerAd(player_id=paul_id, nickname="Paul", lang="fr",
                           fingerprint=listener.fingerprint)
        try:
            async with PlayerAdvertiser(paul_ad, port, **ZC), PlayerBrowser(**ZC) as browser:
                # an uninvited client is refused, before and whatever its code
                with pytest.raises(JoinRefused) as info:
                    await join(host, "Intrus")
                assert info.value.code == "not_invited"
                with pytest.raises(JoinRefused) as info:
                    await join(host, "Intrus", code="0" * 32, invitation="f" * 32)
                assert info.value.code == "not_invited"
                # the owner sees Paul through presence and invites him
                await until(lambda: browser.by_id(paul_id) is not None, 5, "Paul seen")
                target = browser.by_id(paul_id)
                assert target.invitable and target.fingerprint == listener.fingerprint
                inviter = LanInviter(
                    browser.snapshot, host.guestlist, table_id=host.table_id.hex(),
                    table_name=config.name, variant=config.variant, from_nick="Marie",
                    from_player_id=secrets.token_hex(16), addresses=LOOPBACK, port=host.port,
                    fingerprint=host.fingerprint)
                sent = asyncio.ensure_future(inviter.invite(target))
                await until(lambda: bool(prompts), 5, "invitation received")
                inv = prompts[0]
                assert inv.ticket is not None and inv.fingerprint == host.fingerprint
                inv, reply = inbox.accept(inv.invitation_id)
                listener.answer(inv.invitation_id, reply)
                assert "accept" in (await asyncio.wait_for(sent, 5)).lower()
                # a "code only" invitation carries the code, because this is TLS
                coded = Guestlist(WhoMaySit.CODE, join_code="4321").invite(
                    target, table_id=host.table_id.hex(), table_name="Autre", variant="rami",
                    from_nick="Marie", from_player_id=secrets.token_hex(16),
                    addresses=LOOPBACK, port=host.port, encrypted=True)
                other = asyncio.ensure_future(send_invitation(target, coded))
                await until(lambda: len(prompts) == 2, 5, "second invitation")
                assert prompts[1].join_code == "4321"
                listener.answer(prompts[1].invitation_id, inbox.decline(prompts[1].invitation_id))
                await asyncio.wait_for(other, 5)
                # a wrong pin: nothing is sent
                fake = PlayerAd(player_id=paul_id, nickname="Paul", lang="fr",
                                fingerprint="ab" * 32, addresses=("127.0.0.1",), port=port)
                with pytest.raises(tls.FingerprintMismatch):
                    await send_invitation(fake, coded)
            # Paul joins with the invitation: the ticket is the PAKE password
            session = await open_session(
                inv.addresses[0], inv.port, nickname="Paul", lang="fr", code=inv.hello_code(),
                invitation=inv.invitation_id, fingerprint=inv.fingerprint, code_required=True)
            assert session.seat == 0
            # the ticket is single-use
            with pytest.raises(JoinRefused) as info:
                await join(host, "Copie", code=inv.hello_code(), invitation=inv.invitation_id)
            assert info.value.code == "not_invited"
            summary = await BotClient(session, delay=0.0, seed=3).run()
            await host.wait_finished(15)
            assert summary.finished and host.match.over
            await session.close()
        finally:
            await listener.stop()
            await host.stop()

    run(main(), timeout=45)
