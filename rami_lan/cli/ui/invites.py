"""Presence and invitations for the UI: the lobby's invitation listener and the owner's
"Inviter" (docs/players.md, Integration 3 and 4).

Transport: one TCP connection per invitation to the player's advertised port; frames
of a 4-byte big-endian length and a msgpack map, at most 4 KB, 10 s timeout. The
invited side answers on the same connection once the player has chosen.

Encryption: the invited player's listener serves TLS 1.3 with its own identity
(`rami_lan.net.tls.load_or_create_identity`) and advertises its fingerprint in the
presence TXT record (``fp``). The inviter connects with TLS and pins that fingerprint
before sending anything; only then is the invitation sent with ``encrypted=True``, so
it may carry the join code (a "code only" table) or the ticket (an "invited only"
table). A player advertised without a fingerprint gets a plain invitation: no code.
"""

from __future__ import annotations

import asyncio
import contextlib
import struct
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Unpack

from rami_lan.cli.messages import invite_reply_text

if TYPE_CHECKING:
    from rami_lan.net.invitations import InviteTable

MAX_FRAME = 4096
TIMEOUT = 10.0


async def read_frame(reader: asyncio.StreamReader, timeout: float = TIMEOUT) -> Any:
    """One length-prefixed msgpack map; ValueError when too big or malformed."""
    import msgpack

    head = await asyncio.wait_for(reader.readexactly(4), timeout)
    (n,) = struct.unpack(">I", head)
    if n > MAX_FRAME:
        raise ValueError("frame too large")
    body = await asyncio.wait_for(reader.readexactly(n), timeout)
    try:
        return msgpack.unpackb(body, raw=False)
    except Exception as e:  # noqa: BLE001 - msgpack raises several types
        raise ValueError(f"bad frame: {e}") from None


async def write_frame(writer: asyncio.StreamWriter, data: Any) -> None:
    import msgpack

    body = msgpack.packb(data, use_bin_type=True)
    if len(body) > MAX_FRAME:
        raise ValueError("frame too large")
    writer.write(struct.pack(">I", len(body)) + body)
    await asyncio.wait_for(writer.drain(), TIMEOUT)


def encrypted_to(player: Any) -> bool:
    """Will an invitation to ``player`` travel over TLS (pinned to its advertised ``fp``)?"""
    return bool(getattr(player, "fingerprint", ""))


async def send_invitation(player: Any, invitation: Any, *, timeout: float = TIMEOUT) -> Any:
    """Send ``invitation`` to ``player`` (a `PlayerAd`) and wait for its `InviteReply`.

    With the player's advertised fingerprint the connection is TLS and the certificate
    is pinned before anything is sent (`tls.FingerprintMismatch` otherwise); the
    invitation then goes out with ``encrypted=True``."""
    from rami_lan.net import tls
    from rami_lan.net.invitations import InviteReply, decode_invite_message

    if not player.addresses or not player.port:
        raise OSError("this player has no address")
    encrypted = encrypted_to(player)
    ssl_ctx = tls.client_context() if encrypted else None
    reader, writer = await asyncio.wait_for(
        asyncio.open_connection(player.addresses[0], player.port, ssl=ssl_ctx), timeout
    )
    try:
        if encrypted:
            tls.check_pinned(writer.get_extra_info("ssl_object"), player.fingerprint)
        await write_frame(writer, invitation.to_plain(encrypted=encrypted))
        # the invited player has the invitation's ttl to answer
        reply = decode_invite_message(
            await read_frame(reader, timeout=max(timeout, float(invitation.ttl))),
            encrypted=encrypted,
        )
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()
    if not isinstance(reply, InviteReply):
        raise ValueError("unexpected answer")
    return reply


class InviteListener:
    """The invited side: accepts invitation connections and keeps each one open until
    the player answers (``answer(id, reply)``). ``on_invite(inv)`` is called for
    every invitation to prompt for; ``on_cancel(id)`` when the owner withdraws one.

    With ``identity`` (a `tls.HostIdentity`) it serves TLS 1.3 and every invitation
    received is ``encrypted``; advertise ``listener.fingerprint`` so inviters pin it."""

    def __init__(
        self,
        inbox: Any,
        on_invite: Callable[[Any], None],
        on_cancel: Callable[[str], None] = lambda _id: None,
        *,
        identity: Any = None,
    ) -> None:
        self.inbox = inbox
        self.identity = identity
        self._ssl: Any = None
        if identity is not None:
            from rami_lan.net import tls

            self._ssl = tls.server_context(identity)
        self.on_invite = on_invite
        self.on_cancel = on_cancel
        self.server: asyncio.base_events.Server | None = None
        self.port = 0
        self._waiting: dict[str, asyncio.Future[Any]] = {}

    @property
    def fingerprint(self) -> str:
        """The listener's certificate fingerprint ("" without TLS)."""
        return "" if self.identity is None else str(self.identity.fingerprint)

    @property
    def encrypted(self) -> bool:
        return self._ssl is not None

    async def start(self, host: str | Sequence[str] | None = None) -> int:
        self.server = await asyncio.start_server(
            self._handle, host, 0, ssl=self._ssl, ssl_handshake_timeout=TIMEOUT if self._ssl else None)
        self.port = self.server.sockets[0].getsockname()[1]
        return self.port

    async def stop(self) -> None:
        for fut in self._waiting.values():
            if not fut.done():
                fut.cancel()
        if self.server is not None:
            self.server.close()
            with contextlib.suppress(Exception):
                await self.server.wait_closed()
            self.server = None

    def answer(self, invitation_id: str, reply: Any) -> None:
        """Send the player's reply on the invitation's connection (if still open)."""
        fut = self._waiting.pop(invitation_id, None)
        if fut is not None and not fut.done():
            fut.set_result(reply)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        from rami_lan.net.invitations import Invitation

        peer = writer.get_extra_info("peername")
        try:
            msg = await read_frame(reader)
            encrypted = self.encrypted
            if isinstance(msg, dict) and msg.get("k") == "invite_cancel":
                inv_id = str(msg.get("id", ""))
                self.inbox.cancel(inv_id)
                self.on_cancel(inv_id)
                return
            inv, auto = self.inbox.receive(msg, encrypted=encrypted,
                                           sender=peer[0] if peer else None)
            if auto is not None:
                await write_frame(writer, auto.to_plain())
                return
            if not isinstance(inv, Invitation):
                return
            fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            self._waiting[inv.invitation_id] = fut
            self.on_invite(inv)
            try:
                reply = await asyncio.wait_for(fut, inv.ttl)
            except (TimeoutError, asyncio.CancelledError):  # no answer, or the lobby closed
                self.inbox.cancel(inv.invitation_id)
                self.on_cancel(inv.invitation_id)
                return
            await write_frame(writer, reply.to_plain())
        except (OSError, ValueError, TimeoutError, asyncio.IncompleteReadError):
            return  # ssl.SSLError is an OSError
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()


class LanInviter:
    """The table owner's "Inviter": players from presence, invitations through a
    `Guestlist` (the host's own when it has one)."""

    def __init__(
        self,
        players: Callable[[], Sequence[Any]],
        guestlist: Any,
        *,
        send: Callable[..., Any] = send_invitation,
        seat_for: Callable[[str], int | None] | None = None,
        **table: Unpack[InviteTable],
    ) -> None:
        """``table``: the table invited to (`InviteTable`, `Guestlist.invite`'s keywords).
        ``seat_for``: the seat of a player (by player id) who dropped out of the match
        (`TableMachine.dropped_seat_of`): their invitation is a return invitation, which
        gives that seat back even if their client lost its seat file."""
        self._players = players
        self.guestlist = guestlist
        self._seat_for = seat_for
        self.table = {**table, "addresses": list(table["addresses"]),
                      "fingerprint": table.get("fingerprint", "")}
        self._send = send

    def players(self) -> list[Any]:
        return list(self._players())

    async def invite(self, player: Any) -> str:
        encrypted = encrypted_to(player)
        seat = None
        if self._seat_for is not None and encrypted:
            try:
                seat = self._seat_for(str(getattr(player, "player_id", "") or ""))
            except Exception:  # noqa: BLE001 - a plain invitation then
                seat = None
        extra = {"seat": seat} if seat is not None else {}
        inv = self.guestlist.invite(player, encrypted=encrypted, **self.table, **extra)
        reply = await self._send(player, inv)
        self.guestlist.on_reply(reply)
        return invite_reply_text(reply, player.nickname)
