"""The lobby's presence service: advertise the player on the LAN (`PlayerAdvertiser`, with
the port of its invitation listener), list the other players (`PlayerBrowser`), collect
the invitations received, and say "at a table" / "in the lobby". It knows nothing of the
screen: it is told how to redraw (``invalidate``) and what to say when the network fails
(``say``); answering an invitation (joining its table) is the lobby's.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from rami_lan.i18n import _


class Presence:
    """Players seen, our advertisement, the invitation listener and the inbox."""

    def __init__(self, interfaces: list[str] | str, profile: Callable[[], Any],
                 invalidate: Callable[[], None], say: Callable[[str], None]) -> None:
        """``profile``: the local `Profile` now (it changes with the settings)."""
        self.interfaces = interfaces
        self._profile = profile
        self._invalidate = invalidate
        self._say = say
        self.players: list[Any] = []
        self.player_browser: Any = None
        self.advertiser: Any = None
        self.listener: Any = None
        self.inbox: Any = None
        self.invites: list[Any] = []  # invitations waiting for an answer, newest last

    def listen_host(self) -> str | list[str] | None:
        return None if self.interfaces == "all" else list(self.interfaces)

    async def run(self) -> None:
        """Start everything, then follow the players seen until cancelled."""
        await asyncio.sleep(0.05)
        try:
            from rami_lan.cli.ui.invites import InviteListener
            from rami_lan.net.presence import (
                InvitationInbox,
                PlayerAd,
                PlayerAdvertiser,
                PlayerBrowser,
            )
            from rami_lan.net.tls import load_or_create_identity

            self.inbox = InvitationInbox()
            try:  # invitations over TLS, with our own certificate (advertised as ``fp``)
                identity = await asyncio.to_thread(load_or_create_identity, "rami-lan player")
            except OSError:
                identity = None
            self.listener = InviteListener(self.inbox, self.on_invite, self.on_cancel,
                                           identity=identity)
            port = await self.listener.start(self.listen_host())
            p = self._profile()
            self.advertiser = PlayerAdvertiser(
                PlayerAd(player_id=p.player_id, nickname=p.nickname, lang=p.lang,
                         fingerprint=self.listener.fingerprint),
                port, interfaces=self.interfaces)
            await self.advertiser.start()
            self.player_browser = PlayerBrowser(
                exclude_player_id=p.player_id, interfaces=self.interfaces)
            await self.player_browser.start()
        except Exception as e:  # noqa: BLE001 - no network: the lobby still works
            self._say(_("Can not look for players on the network: {err}").format(err=e))
            self._invalidate()
            await self.stop()
            return
        try:
            while True:
                snap = list(self.player_browser.snapshot())
                if snap != self.players:
                    self.players = snap
                    self._invalidate()
                await asyncio.sleep(0.1)
        finally:
            await self.stop()

    async def stop(self) -> None:
        for obj in (self.player_browser, self.advertiser, self.listener):
            if obj is not None:
                with contextlib.suppress(Exception):
                    await obj.stop()
        self.player_browser = self.advertiser = self.listener = None

    def on_invite(self, inv: Any) -> None:
        self.invites.append(inv)
        self._invalidate()

    def on_cancel(self, invitation_id: str) -> None:
        self.invites = [i for i in self.invites if i.invitation_id != invitation_id]
        self._invalidate()

    def set_busy(self, busy: bool, table_id: str, app: Any) -> None:
        """At a table: invitations are answered "busy" and presence says so (``app``: the
        running application, None when there is none)."""
        if self.inbox is not None:
            self.inbox.busy = busy
        adv = self.advertiser
        if adv is None or app is None or not app.is_running:
            return
        from rami_lan.net.presence import PlayerStatus

        async def update() -> None:
            with contextlib.suppress(Exception):
                if busy and table_id:
                    await adv.update(status=PlayerStatus.AT_TABLE, table_id=table_id)
                elif not busy:
                    await adv.update(status=PlayerStatus.LOBBY)

        app.create_background_task(update())

    def readvertise(self, app: Any) -> None:
        """The nickname or the language changed: say it on the network."""
        if self.advertiser is None or not app.is_running:
            return
        adv, p = self.advertiser, self._profile()

        async def readvertise() -> None:
            with contextlib.suppress(Exception):
                await adv.update(nickname=p.nickname, lang=p.lang)

        app.create_background_task(readvertise())

    def decline(self) -> None:
        """Decline the newest invitation."""
        if not self.invites or self.inbox is None:
            return
        inv = self.invites.pop()
        reply = self.inbox.decline(inv.invitation_id)
        if self.listener is not None:
            self.listener.answer(inv.invitation_id, reply)
