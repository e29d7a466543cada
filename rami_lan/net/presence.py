"""Players on the LAN: their presence over mDNS (sans I/O).

Presence
--------
A running rami-lan advertises its player with a second DNS-SD service type,
``_rami-player._tcp.local.`` (:data:`PLAYER_SERVICE_TYPE`), in the same way
:mod:`rami_lan.net.discovery` advertises tables. The instance name is the nickname made
DNS-SD safe plus a short id (``"marie (3fa2c1)"``); the SRV port is the port where the
player accepts invitations; the TXT record is a :class:`PlayerAd`: protocol version,
player id, nickname, language, status (``lobby`` / ``at_table``) and, at a table, the
table id. :class:`PlayerAdvertiser` registers / updates / unregisters it;
:class:`PlayerBrowser` keeps a live dict of valid players (optionally hiding our own
player id). Received records are never trusted: anything malformed is logged and
skipped. Like tables, every published TXT carries a revision key ``r`` so an update
back to an earlier value is still seen, and probing is off by default (the instance
name carries a random id), so a player appears within milliseconds.

Invitations to a table are in :mod:`rami_lan.net.invitations` (re-exported here).

Network rule for tests: only ``interfaces=["127.0.0.1"]`` with ``IPVersion.V4Only``.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Unpack

from zeroconf import IPVersion
from zeroconf.asyncio import AsyncZeroconf

from rami_lan.net.ad_fields import (
    MAX_NICK_BYTES,
    MAX_TXT_ITEM_BYTES,
    SHORT_ID_LEN,
    check_endpoint,
    check_fingerprint,
    check_id32,
    check_int,
    check_nick,
    check_table_id,
    check_txt_sizes,
    decode_txt,
    instance_name,
    parse_int,
)
from rami_lan.net.discovery import PROTOCOL_VERSION, TableEventKind
from rami_lan.net.invitations import (
    INVITATION_TTL,
    Guestlist,
    Invitation,
    InvitationInbox,
    InviteAnswer,
    InviteReply,
    WhoMaySit,
    cancel_to_plain,
    decode_invite_message,
)
from rami_lan.net.mdns import (
    BrowseOptions,
    Interfaces,
    ServiceAdvertiser,
    ServiceBrowser,
    browse_once,
    service_type,
)

__all__ = [
    "INVITATION_TTL",
    "MAX_NICK_BYTES",
    "PLAYER_SERVICE_TYPE",
    "PLAYER_TXT_KEYS",
    "Guestlist",
    "InviteAnswer",
    "InviteReply",
    "Invitation",
    "InvitationInbox",
    "PlayerAd",
    "PlayerAdvertiser",
    "PlayerBrowser",
    "PlayerEvent",
    "PlayerStatus",
    "PresenceEventKind",
    "WhoMaySit",
    "cancel_to_plain",
    "decode_invite_message",
    "find_players",
    "player_instance_name",
    "player_service_name",
]

log = logging.getLogger(__name__)

PLAYER_SERVICE_TYPE: Final = service_type("rami-player")
"""``_rami-player._tcp.local.`` (tagged by ``$RAMI_LAN_MDNS_TAG``)."""

_K_PV: Final = "pv"
_K_ID: Final = "id"
_K_NICK: Final = "n"
_K_LANG: Final = "l"
_K_STATUS: Final = "s"
_K_TABLE: Final = "t"
_K_FP: Final = "fp"
PLAYER_TXT_KEYS: Final = (_K_PV, _K_ID, _K_NICK, _K_LANG, _K_STATUS, _K_TABLE)
"""Required TXT keys; ``fp`` (the invitation listener's TLS fingerprint) is optional."""
LANGS: Final = ("fr", "en")


class PlayerStatus(enum.StrEnum):
    LOBBY = "lobby"
    AT_TABLE = "at_table"



# --------------------------------------------------------------------------- presence


@dataclass(frozen=True, kw_only=True)
class PlayerAd:
    """A player as advertised on the LAN. Construction validates every field.

    ``addresses``, ``port`` (where invitations are accepted) and ``service_name`` come
    from the SRV/A records once browsed, and are set by :class:`PlayerAdvertiser`.
    """

    player_id: str
    nickname: str
    lang: str = "fr"
    status: PlayerStatus = PlayerStatus.LOBBY
    table_id: str = ""
    """The table the player sits at (``at_table``), else empty."""
    protocol_version: int = PROTOCOL_VERSION
    addresses: tuple[str, ...] = ()
    port: int | None = None
    service_name: str = ""
    fingerprint: str = ""
    """SHA-256 (64 hex) of the TLS certificate of the player's invitation listener (TXT
    ``fp``); an inviter pins it. Empty: the player takes invitations without TLS."""

    def __post_init__(self) -> None:
        check_id32("player_id", self.player_id)
        check_fingerprint(self.fingerprint)
        check_nick(self.nickname)
        if self.lang not in LANGS:
            raise ValueError(f"lang must be one of {LANGS}")
        try:
            object.__setattr__(self, "status", PlayerStatus(self.status))
        except ValueError:
            raise ValueError(f"unknown status {self.status!r}") from None
        if self.status is PlayerStatus.AT_TABLE:
            check_table_id(
                self.table_id, "at a table, table_id must be 8 to 32 lowercase hex digits"
            )
        elif self.table_id != "":
            raise ValueError("table_id must be empty in the lobby")
        check_int("protocol_version", self.protocol_version, 1, 255)
        check_endpoint(self)

    @property
    def short_id(self) -> str:
        return self.player_id[:SHORT_ID_LEN]

    @property
    def compatible(self) -> bool:
        return self.protocol_version == PROTOCOL_VERSION

    @property
    def invitable(self) -> bool:
        """In the lobby, speaking our protocol, with a known invitation port."""
        return self.compatible and self.status is PlayerStatus.LOBBY and self.port is not None

    def to_txt(self) -> dict[str, str]:
        txt = {
            _K_PV: str(self.protocol_version),
            _K_ID: self.player_id,
            _K_NICK: self.nickname,
            _K_LANG: self.lang,
            _K_STATUS: str(self.status),
            _K_TABLE: self.table_id,
        }
        if self.fingerprint:
            txt[_K_FP] = self.fingerprint
        return check_txt_sizes(txt)

    @classmethod
    def from_txt(cls, props: Mapping[bytes, bytes | None], *, addresses: Iterable[str] = (),
                 port: int | None = None, service_name: str = "") -> PlayerAd:
        """Parse a received TXT record; ValueError on anything malformed.

        Unknown keys (including the revision key) are ignored.
        """
        got = decode_txt(props, PLAYER_TXT_KEYS)
        fp = props.get(_K_FP.encode("ascii"))
        if fp is not None and (not isinstance(fp, bytes) or len(fp) > MAX_TXT_ITEM_BYTES):
            raise ValueError("TXT value for 'fp' is not short bytes")
        try:
            fingerprint = fp.decode("ascii") if fp else ""
        except UnicodeDecodeError:
            raise ValueError("TXT value for 'fp' is not ASCII") from None
        return cls(
            fingerprint=fingerprint,
            protocol_version=parse_int(_K_PV, got[_K_PV]),
            player_id=got[_K_ID],
            nickname=got[_K_NICK],
            lang=got[_K_LANG],
            status=got[_K_STATUS],  # type: ignore[arg-type]
            table_id=got[_K_TABLE],
            addresses=tuple(addresses),
            port=port,
            service_name=service_name,
        )


def player_instance_name(ad: PlayerAd) -> str:
    """DNS-SD instance name: the nickname, cleaned, plus ``" (<short id>)"``."""
    return instance_name(ad.nickname, ad.short_id, "Joueur")


def player_service_name(ad: PlayerAd) -> str:
    return f"{player_instance_name(ad)}.{PLAYER_SERVICE_TYPE}"


class PlayerAdvertiser(ServiceAdvertiser[PlayerAd]):
    """Advertise the local player while rami-lan runs.

    ``async with PlayerAdvertiser(ad, invite_port, interfaces=[...]) as adv`` or
    ``start()`` / ``update(status=PlayerStatus.AT_TABLE, table_id=...)`` / ``stop()``.
    Pass ``zeroconf`` to share an ``AsyncZeroconf`` with the table advertiser/browser.

    ``update`` changes nickname, language, status or table id and re-announces if they
    changed; going to the lobby clears ``table_id`` unless it is given.
    """

    _service_type = PLAYER_SERVICE_TYPE
    _fixed_fields = frozenset({"player_id", "protocol_version", "addresses", "port", "service_name"})
    _log = log
    _service_name_for = staticmethod(player_service_name)

    @staticmethod
    def _server_for(ad: PlayerAd) -> str:
        return f"rami-player-{ad.player_id[:16]}.local."

    def _prepare_changes(self, changes: dict[str, Any]) -> dict[str, Any]:
        if changes.get("status") == PlayerStatus.LOBBY and "table_id" not in changes:
            changes["table_id"] = ""
        return changes


PresenceEventKind = TableEventKind
"""``added`` / ``updated`` / ``removed``, shared with table discovery."""


@dataclass(frozen=True)
class PlayerEvent:
    """A change in the browsed players; for REMOVED, ``player`` is the last known ad."""

    kind: PresenceEventKind
    player: PlayerAd


class PlayerBrowser(ServiceBrowser[PlayerAd, PlayerEvent]):
    """Browse ``_rami-player._tcp`` and keep a live dict of valid players.

    ``exclude_player_id`` hides our own advertisement. Changes go to ``on_change``
    (called in the event loop; its exceptions are logged) and to :attr:`events`
    (bounded; the oldest event is dropped when nobody reads). :meth:`snapshot` sorts
    by nickname (case-insensitive), then service name.
    """

    _service_type = PLAYER_SERVICE_TYPE
    _ad_type = PlayerAd
    _noun = "player"
    _task_prefix = "rami-presence-resolve"
    _log = log

    def __init__(
        self,
        *,
        on_change: Callable[[PlayerEvent], None] | None = None,
        exclude_player_id: str | None = None,
        max_players: int = 256,
        **options: Unpack[BrowseOptions],
    ) -> None:
        super().__init__(on_change=on_change, max_ads=max_players, **options)
        self._exclude = exclude_player_id

    @property
    def players(self) -> Mapping[str, PlayerAd]:
        """Read-only live view: service name -> PlayerAd."""
        return self._view()

    def by_id(self, player_id: str) -> PlayerAd | None:
        return next((p for p in self._ads.values() if p.player_id == player_id), None)

    @staticmethod
    def _sort_key(ad: PlayerAd) -> tuple[str, str]:
        return (ad.nickname.casefold(), ad.service_name)

    def _accept(self, ad: PlayerAd) -> bool:
        return ad.player_id != self._exclude

    def _event(self, kind: str, ad: PlayerAd) -> PlayerEvent:
        return PlayerEvent(PresenceEventKind(kind), ad)


async def find_players(
    timeout: float = 2.0,
    interfaces: Interfaces = "all",
    *,
    ip_version: IPVersion = IPVersion.V4Only,
    zeroconf: AsyncZeroconf | None = None,
    exclude_player_id: str | None = None,
) -> list[PlayerAd]:
    """Browse for ``timeout`` seconds and return the valid players seen."""
    return await browse_once(
        PlayerBrowser,
        timeout,
        interfaces=interfaces,
        ip_version=ip_version,
        zeroconf=zeroconf,
        exclude_player_id=exclude_player_id,
    )
