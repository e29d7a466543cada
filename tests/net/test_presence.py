"""Tests for rami_lan.net.presence: player ads, live presence on loopback, invitations.

Live tests only ever start zeroconf with ``interfaces=["127.0.0.1"]`` and
``IPVersion.V4Only``, and only look at this test's own player ids (other processes may
use loopback mDNS at the same time).
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import secrets
import struct
from collections.abc import Callable, Coroutine
from typing import Any

import msgpack
import pytest
from aio_helpers import poll_until, run
from door import Door, knock
from zeroconf import IPVersion, service_type_name

from rami_lan.cli.messages import (
    invitation_prompt,
    invitation_sent_text,
    invite_reply_text,
    player_status_text,
    who_may_sit_label,
)
from rami_lan.i18n import set_language
from rami_lan.net.presence import (
    PLAYER_SERVICE_TYPE,
    Guestlist,
    Invitation,
    InvitationInbox,
    InviteAnswer,
    InviteReply,
    PlayerAd,
    PlayerAdvertiser,
    PlayerBrowser,
    PlayerStatus,
    PresenceEventKind,
    WhoMaySit,
    cancel_to_plain,
    decode_invite_message,
    find_players,
    player_instance_name,
)

LOOPBACK: dict[str, Any] = {"interfaces": ["127.0.0.1"], "ip_version": IPVersion.V4Only}
LIVE_TIMEOUT = 8.0
WITHIN = 1.0  # presence must appear and disappear within a second
TABLE_ID = "3fa2c1d4e5f60718"


class FakeClock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def make_player(**changes: Any) -> PlayerAd:
    fields: dict[str, Any] = {"player_id": secrets.token_hex(16), "nickname": "Marie", "lang": "fr"}
    fields.update(changes)
    return PlayerAd(**fields)


def run_live(test: Callable[[], Coroutine[Any, Any, None]]) -> None:
    run(test(), LIVE_TIMEOUT)


wait_until = functools.partial(poll_until, timeout=WITHIN)


# --------------------------------------------------------------------------- ads


def test_service_type_is_valid_dns_sd() -> None:
    assert service_type_name(PLAYER_SERVICE_TYPE) == PLAYER_SERVICE_TYPE


def test_txt_round_trip_and_unknown_keys() -> None:
    for ad in (
        make_player(),
        make_player(nickname="Zoé ♥", lang="en", status=PlayerStatus.AT_TABLE, table_id=TABLE_ID),
    ):
        props = {k.encode(): v.encode() for k, v in ad.to_txt().items()}
        props[b"r"] = b"1f"
        props[b"future"] = b"x"
        back = PlayerAd.from_txt(props, addresses=["127.0.0.1"], port=4000, service_name="s")
        assert back == dataclasses.replace(ad, addresses=("127.0.0.1",), port=4000, service_name="s")


@pytest.mark.parametrize(
    "mutate",
    [
        lambda p: p.pop(b"id"),
        lambda p: p.update({b"id": b"ABC"}),
        lambda p: p.update({b"n": b""}),
        lambda p: p.update({b"n": b"a\x1bb"}),
        lambda p: p.update({b"n": b"x" * 25}),
        lambda p: p.update({b"n": b"\xff"}),
        lambda p: p.update({b"l": b"de"}),
        lambda p: p.update({b"s": b"away"}),
        lambda p: p.update({b"s": b"at_table"}),  # at a table without a table id
        lambda p: p.update({b"t": TABLE_ID.encode()}),  # a table id in the lobby
        lambda p: p.update({b"pv": b"01"}),
        lambda p: p.update({b"pv": None}),
    ],
)
def test_from_txt_rejects_malformed(mutate: Callable[[dict[bytes, bytes | None]], None]) -> None:
    props: dict[bytes, bytes | None] = {k.encode(): v.encode() for k, v in make_player().to_txt().items()}
    mutate(props)
    with pytest.raises(ValueError):
        PlayerAd.from_txt(props)


def test_instance_name_and_status_text() -> None:
    ad = make_player(nickname="_M. Du\\pont")
    assert player_instance_name(ad) == f"M Du pont ({ad.player_id[:6]})"
    with pytest.raises(ValueError):
        make_player(nickname="evil\u202e")
    try:
        set_language("fr")
        assert player_status_text(ad.status) == "dans le salon"
        at_table = dataclasses.replace(ad, status="at_table", table_id=TABLE_ID)
        assert player_status_text(at_table.status) == "à une table"
    finally:
        set_language("en")


# --------------------------------------------------------------------------- live


def test_presence_appears_updates_and_disappears_within_a_second() -> None:
    async def scenario() -> None:
        me = make_player(nickname="Moi")
        friend = make_player(nickname="Paul")
        changes: list[Any] = []
        async with PlayerBrowser(
            **LOOPBACK, exclude_player_id=me.player_id, on_change=changes.append
        ) as browser:
            async with PlayerAdvertiser(me, 45001, **LOOPBACK):
                adv = PlayerAdvertiser(friend, 45002, **LOOPBACK)
                await adv.start()
                try:
                    await wait_until(lambda: browser.by_id(friend.player_id) is not None, "seen")
                    seen = browser.by_id(friend.player_id)
                    assert seen == dataclasses.replace(
                        friend, addresses=("127.0.0.1",), port=45002, service_name=adv.service_name
                    )
                    assert seen is not None and seen.invitable
                    await adv.update(status=PlayerStatus.AT_TABLE, table_id=TABLE_ID)
                    await wait_until(
                        lambda: getattr(browser.by_id(friend.player_id), "table_id", "") == TABLE_ID,
                        "at a table",
                    )
                    assert not browser.by_id(friend.player_id).invitable  # type: ignore[union-attr]
                    await adv.update(status=PlayerStatus.LOBBY)  # back: table id cleared
                    await wait_until(
                        lambda: getattr(browser.by_id(friend.player_id), "status", None)
                        is PlayerStatus.LOBBY,
                        "back in the lobby",
                    )
                    with pytest.raises(ValueError):
                        await adv.update(player_id=secrets.token_hex(16))
                finally:
                    await adv.stop()
                await wait_until(lambda: browser.by_id(friend.player_id) is None, "removed")
                # Our own advertisement is never listed.
                assert browser.by_id(me.player_id) is None
        kinds = [e.kind for e in changes if e.player.player_id == friend.player_id]
        assert kinds[0] is PresenceEventKind.ADDED and kinds[-1] is PresenceEventKind.REMOVED
        assert all(e.player.player_id != me.player_id for e in changes)

    run_live(scenario)


def test_find_players_on_loopback() -> None:
    async def scenario() -> None:
        ad = make_player(nickname="Léa")
        async with PlayerAdvertiser(ad, 45003, **LOOPBACK):
            found = await find_players(0.5, **LOOPBACK)
        assert ad.player_id in {p.player_id for p in found}

    run_live(scenario)


# --------------------------------------------------------------------------- invitations


def owner_invite(guests: Guestlist, player: PlayerAd, *, encrypted: bool) -> Invitation:
    return guests.invite(
        player,
        table_id=TABLE_ID,
        table_name="Chez Marie",
        variant="rami",
        from_nick="Marie",
        from_player_id="ab" * 16,
        addresses=["127.0.0.1"],
        port=47000,
        fingerprint="00ff" * 16,
        encrypted=encrypted,
    )


def wire(d: dict[str, Any]) -> Any:
    """Through msgpack, as the transport will carry it."""
    return msgpack.unpackb(msgpack.packb(d, use_bin_type=True), raw=False)


def test_invitation_accepted_end_to_end_over_loopback() -> None:
    """Presence finds the player, the invite goes to its advertised port, the invited
    player accepts, and the host's hello check admits exactly that player once."""

    async def scenario() -> None:
        inbox = InvitationInbox()
        prompts: list[Invitation] = []

        async def invitee_server(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            (n,) = struct.unpack(">I", await reader.readexactly(4))
            msg = msgpack.unpackb(await reader.readexactly(n), raw=False)
            inv, auto = inbox.receive(msg, encrypted=False, sender=writer.get_extra_info("peername")[0])
            assert inv is not None and auto is None
            prompts.append(inv)
            _, reply = inbox.accept(inv.invitation_id)  # the player pressed the key
            body = msgpack.packb(reply.to_plain(), use_bin_type=True)
            writer.write(struct.pack(">I", len(body)) + body)
            await writer.drain()
            writer.close()

        server = await asyncio.start_server(invitee_server, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        friend = make_player(nickname="Paul")
        guests = Guestlist(WhoMaySit.INVITED)
        try:
            async with PlayerBrowser(**LOOPBACK) as browser, PlayerAdvertiser(friend, port, **LOOPBACK):
                await wait_until(lambda: browser.by_id(friend.player_id) is not None, "player seen")
                target = browser.by_id(friend.player_id)
                assert target is not None and target.invitable
                inv = owner_invite(guests, target, encrypted=False)
                reader, writer = await asyncio.open_connection(target.addresses[0], target.port)
                body = msgpack.packb(inv.to_plain(encrypted=False), use_bin_type=True)
                writer.write(struct.pack(">I", len(body)) + body)
                await writer.drain()
                (n,) = struct.unpack(">I", await reader.readexactly(4))
                reply = decode_invite_message(
                    msgpack.unpackb(await reader.readexactly(n), raw=False), encrypted=False
                )
                writer.close()
        finally:
            server.close()
            await server.wait_closed()
        assert isinstance(reply, InviteReply) and reply.answer is InviteAnswer.ACCEPT
        assert guests.on_reply(reply) == inv
        received = prompts[0]
        assert received == inv and received.join_code is None
        # The invited player says hello naming the invitation and proves its ticket
        # (the join-code exchange's password): admitted once, never twice.
        door = Door(guests)
        ticket, inv_id = received.hello_code(), received.invitation_id
        assert knock(door, "Paul", ticket, invitation=inv_id) == "seated"
        assert inv not in guests.pending()
        assert knock(door, "Copie", ticket, invitation=inv_id) == "not_invited"
        assert door.seated == ["Paul"]

    run_live(scenario)


def test_invited_only_refuses_the_uninvited() -> None:
    clock = FakeClock()
    guests = Guestlist(WhoMaySit.INVITED, join_code="sesame", clock=clock, grace=10)
    door = Door(guests, join_code="sesame")
    for code, invitation in ((None, None), ("sesame", None), (secrets.token_hex(16), None),
                             ("sesame", secrets.token_hex(16))):
        assert knock(door, "Intrus", code, invitation=invitation) == "not_invited"
        assert "invitation" in door.refusals[-1][1]
    paul = make_player(nickname="Paul")
    inv = owner_invite(guests, paul, encrypted=True)
    assert inv.ticket is not None and inv.join_code is None  # no code on an invited-only table
    assert guests.invited_player_ids() == {paul.player_id}
    # Declined: the ticket is void.
    assert guests.on_reply(InviteReply(inv.invitation_id, "decline")) == inv
    assert knock(door, "Paul", inv.ticket, invitation=inv.invitation_id) == "not_invited"
    # Cancelled: void too.
    inv2 = owner_invite(guests, paul, encrypted=False)
    assert guests.cancel(inv2.invitation_id) and not guests.cancel(inv2.invitation_id)
    assert knock(door, "Paul", inv2.ticket, invitation=inv2.invitation_id) == "not_invited"
    # Expired (ttl + grace): void.
    inv3 = owner_invite(guests, paul, encrypted=False)
    clock.t += inv3.ttl + 11
    assert knock(door, "Paul", inv3.ticket, invitation=inv3.invitation_id) == "not_invited"
    assert guests.pending() == []
    # Within the deadline: admitted once.
    inv4 = owner_invite(guests, paul, encrypted=False)
    clock.t += inv4.ttl
    # Someone who knows the invitation's id but not its ticket: refused, and the
    # invitation stays good for the invited player.
    assert knock(door, "Intrus", secrets.token_hex(16), invitation=inv4.invitation_id) == "bad_code"
    assert knock(door, "Paul", inv4.ticket, invitation=inv4.invitation_id) == "seated"
    assert door.seated == ["Paul"]
    assert guests.on_reply(InviteReply(secrets.token_hex(16), "accept")) is None


def test_code_only_and_anyone() -> None:
    with pytest.raises(ValueError):
        Guestlist(WhoMaySit.CODE)
    guests = Guestlist("code", join_code="sesame")
    door = Door(guests, join_code="sesame")
    assert knock(door, "a", "sesame") == "seated"
    assert knock(door, "b", "sesam") == "bad_code" and knock(door, "c", "123456") == "bad_code"
    assert knock(door, "d") == "code_asked"  # no seat without proving the code
    # The code is compared as the join-code exchange's password: normalized (case,
    # spaces and separators do not count, see rami_lan.net.pake.normalize_code).
    assert knock(door, "e", "SE-SAME") == "seated"
    assert door.seated == ["a", "e"]
    paul = make_player()
    secure = owner_invite(guests, paul, encrypted=True)
    plain = owner_invite(guests, paul, encrypted=False)
    assert secure.join_code == "sesame" and secure.hello_code() == "sesame"
    assert not secure.needs_typed_code
    assert plain.join_code is None and plain.code_required and plain.needs_typed_code
    # The code goes on the wire only over an encrypted connection.
    assert secure.to_plain(encrypted=True)["code"] == "sesame"
    assert "code" not in secure.to_plain(encrypted=False)
    assert "ticket" not in secure.to_plain(encrypted=True)
    assert Invitation.from_plain(wire(secure.to_plain(encrypted=True)), encrypted=True) == secure
    with pytest.raises(ValueError, match="unencrypted"):
        Invitation.from_plain(wire(secure.to_plain(encrypted=True)), encrypted=False)
    guests.set_rule(WhoMaySit.ANYONE)
    anyone = Door(guests)
    assert knock(anyone, "f") == "seated" and knock(anyone, "g", "anything") == "seated"
    assert knock(Door(Guestlist()), "h") == "seated"


INVITE_OK = {
    "k": "invite", "id": "0" * 32, "table_id": TABLE_ID, "table": "Chez Marie", "variant": "rami",
    "from_nick": "Marie", "from_id": "a" * 32, "addresses": ["127.0.0.1"], "port": 47000,
    "fingerprint": "", "ttl": 120, "code_required": False,
}


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.update(extra=1),
        lambda d: d.pop("ttl"),
        lambda d: d.update(k="invitation"),
        lambda d: d.update(id="zz"),
        lambda d: d.update(table_id="XYZ"),
        lambda d: d.update(table=""),
        lambda d: d.update(table="a\u202eb"),
        lambda d: d.update(variant="poker"),
        lambda d: d.update(from_nick="x" * 25),
        lambda d: d.update(addresses=[]),
        lambda d: d.update(addresses="127.0.0.1"),
        lambda d: d.update(addresses=["localhost"]),
        lambda d: d.update(addresses=["127.0.0.1"] * 9),
        lambda d: d.update(port=0),
        lambda d: d.update(port=True),
        lambda d: d.update(fingerprint="bad fp!"),
        lambda d: d.update(ttl=0),
        lambda d: d.update(ttl=10**6),
        lambda d: d.update(code_required=1),
        lambda d: d.update(ticket="short"),
        lambda d: d.update(code="sesame"),  # a code for a table that wants none
        lambda d: d.update(code_required=True, code="x" * 33),
        lambda d: d.update(code_required=True, code="a\nb"),
    ],
)
def test_invitation_from_plain_is_strict(mutate: Callable[[dict[str, Any]], None]) -> None:
    Invitation.from_plain(dict(INVITE_OK), encrypted=True)
    bad = dict(INVITE_OK)
    mutate(bad)
    with pytest.raises(ValueError):
        Invitation.from_plain(bad, encrypted=True)


def test_messages_decode_and_inbox_rules() -> None:
    clock = FakeClock()
    inbox = InvitationInbox(clock=clock, max_pending=2)
    guests = Guestlist()
    paul = make_player()
    a, b, c = (owner_invite(guests, paul, encrypted=False) for _ in range(3))
    assert inbox.receive(wire(a.to_plain(encrypted=False)), encrypted=False) == (a, None)
    assert inbox.receive(a.to_plain(encrypted=False), encrypted=False) == (None, None)  # duplicate
    assert inbox.receive(b.to_plain(encrypted=False), encrypted=False)[0] == b
    inv, busy = inbox.receive(c.to_plain(encrypted=False), encrypted=False)
    assert inv is None and busy == InviteReply(c.invitation_id, InviteAnswer.BUSY)
    assert inbox.pending() == [a, b]
    assert inbox.decline(a.invitation_id).to_plain() == {
        "k": "invite_reply", "id": a.invitation_id, "answer": "decline"
    }
    assert decode_invite_message(cancel_to_plain(b.invitation_id), encrypted=False) == b.invitation_id
    assert inbox.cancel(b.invitation_id) == b and inbox.pending() == []
    inbox.receive(c.to_plain(encrypted=False), encrypted=False)
    clock.t += c.ttl + 1
    with pytest.raises(KeyError):
        inbox.accept(c.invitation_id)  # expired
    inbox.busy = True
    assert inbox.receive(c.to_plain(encrypted=False), encrypted=False)[1].answer is InviteAnswer.BUSY
    reply = InviteReply(a.invitation_id, "accept")
    assert decode_invite_message(wire(reply.to_plain()), encrypted=False) == reply
    for bad in ({"k": "nope"}, [], {"k": "invite_reply", "id": a.invitation_id, "answer": "maybe"},
                {"k": "invite_cancel", "id": "x"}, {"k": "invite_reply", "id": a.invitation_id}):
        with pytest.raises(ValueError):
            decode_invite_message(bad, encrypted=True)


def test_invitation_texts_in_both_languages() -> None:
    inv = Invitation.from_plain(dict(INVITE_OK), encrypted=False)
    reply = InviteReply(inv.invitation_id, "busy")
    try:
        set_language("en")
        assert invitation_prompt(inv) == "Marie invites you to the table “Chez Marie” (rami). Join?"
        assert invite_reply_text(reply, "Paul") == "Paul is busy."
        assert who_may_sit_label(WhoMaySit.INVITED) == "Invited only"
        set_language("fr")
        assert invitation_prompt(inv) == "Marie vous invite à la table « Chez Marie » (rami). Rejoindre ?"
        accepted = InviteReply(inv.invitation_id, "accept")
        assert invite_reply_text(accepted, "Paul") == "Paul a accepté votre invitation."
        assert invitation_sent_text("Paul") == "Invitation envoyée à Paul."
        labels = [who_may_sit_label(w) for w in WhoMaySit]
        assert labels == ["Tout le monde", "Avec le code", "Sur invitation"]
    finally:
        set_language("en")
