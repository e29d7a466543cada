"""Invitations to a table between players on the LAN (sans I/O).

The players themselves are found by :mod:`rami_lan.net.presence` (which re-exports
every name of this module).

A small sans-I/O exchange; the transport (a TLS connection to the invited player's
advertised port, pinned to the fingerprint in its TXT ``fp``) is in
``rami_lan.cli.ui.invites``. Messages are plain data (msgpack-ready maps with ``k``):

* ``invite`` (owner -> player): an :class:`Invitation`: table id and name, variant,
  inviting player's nickname and id, host addresses and port, table fingerprint,
  lifetime, whether a code is needed, a single-use ``ticket`` for an "invited only"
  table, and the table's join code **only over an encrypted connection**
  (:meth:`Invitation.to_plain` leaves it out otherwise and :meth:`Invitation.from_plain`
  refuses an invitation that carries one over a plain connection);
* ``invite_reply`` (player -> owner): an :class:`InviteReply` (accept / decline / busy);
* ``invite_cancel`` (owner -> player): the invitation is withdrawn.

:class:`Guestlist` is the owner's side: the "who may sit" rule (:class:`WhoMaySit`:
anyone / code only / invited only) and the invitations it issued. The host's admission
(`rami_lan.net.admission`) asks it for the ticket of the invitation a ``hello`` names
(:meth:`Guestlist.ticket_for`: the password of the join-code exchange, never sent) and
uses the invitation up once that exchange proved it (:meth:`Guestlist.redeem`).
:class:`InvitationInbox` is the invited player's side: pending invitations with their
deadlines; accepting one gives the reply to send and the ``code`` to put in ``hello``.
"""

from __future__ import annotations

import enum
import secrets
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, NotRequired, Protocol, TypedDict

from rami_lan.net.ad_fields import (
    check_id32,
    check_int,
    check_loose_fingerprint,
    check_nick,
    check_table_id,
    check_text,
    normalize_address,
)
from rami_lan.net.discovery import MAX_NAME_BYTES, VARIANT_IDS

__all__ = [
    "INVITATION_TTL",
    "InviteTable",
    "Guestlist",
    "InviteAnswer",
    "InviteReply",
    "Invitation",
    "InvitationInbox",
    "WhoMaySit",
    "cancel_to_plain",
    "decode_invite_message",
]

INVITATION_TTL: Final = 120.0
"""Seconds an invitation stays valid by default."""
MAX_TTL: Final = 3600
MAX_CODE: Final = 32
MAX_ADDRESSES: Final = 8
MAX_PENDING: Final = 8


class InviteTable(TypedDict):
    """The table an invitation is for, as `Guestlist.invite` takes it (by keyword)."""

    table_id: str
    table_name: str
    variant: str
    from_nick: str
    from_player_id: str
    addresses: Sequence[str]
    port: int
    fingerprint: NotRequired[str]


class InvitedPlayer(Protocol):
    """The invited player as `Guestlist.invite` needs it: its id (a
    `rami_lan.net.presence.PlayerAd` is one; the presence module imports this one)."""

    @property
    def player_id(self) -> str: ...


class WhoMaySit(enum.StrEnum):
    """The table owner's choice of who may take a free seat."""

    ANYONE = "anyone"
    CODE = "code"
    """Only with the join code (typed, or carried by an invitation over encryption)."""
    INVITED = "invited"
    """Only with the single-use ticket of an invitation."""


_INVITE_KEYS: Final = frozenset(
    {"k", "id", "table_id", "table", "variant", "from_nick", "from_id", "addresses", "port",
     "fingerprint", "ttl", "code_required", "ticket", "code"}
)


def _exact_keys(data: Mapping[str, Any], required: frozenset[str], optional: frozenset[str]) -> None:
    keys = set(data)
    if not required <= keys or not keys <= required | optional:
        raise ValueError(f"expected keys {sorted(required)} (+ {sorted(optional)}), got {sorted(keys)}")


@dataclass(frozen=True, kw_only=True)
class Invitation:
    """An invitation to sit at a table. Construction validates every field."""

    invitation_id: str
    """32 hex digits, random, names this invitation in replies and cancels."""
    table_id: str
    table_name: str
    variant: str
    from_nick: str
    from_player_id: str
    addresses: tuple[str, ...]
    """Where the table's host listens (1 to 8 IP addresses)."""
    port: int
    fingerprint: str = ""
    """The table's TLS certificate fingerprint (empty until TLS exists)."""
    ttl: int = int(INVITATION_TTL)
    """Seconds the invitation stays valid, counted by the receiver from reception."""
    code_required: bool = False
    """The table wants a join code; if ``join_code`` is None the player must type it."""
    ticket: str | None = None
    """Single-use admission ticket (32 hex) for an "invited only" table."""
    join_code: str | None = None
    """Only ever present on an invitation sent or received over an encrypted connection."""

    def __post_init__(self) -> None:
        check_id32("invitation_id", self.invitation_id)
        check_table_id(self.table_id)
        check_text("table_name", self.table_name, MAX_NAME_BYTES)
        if self.variant not in VARIANT_IDS:
            raise ValueError(f"unknown variant {self.variant!r}")
        check_nick(self.from_nick)
        check_id32("from_player_id", self.from_player_id)
        if isinstance(self.addresses, str | bytes) or not isinstance(self.addresses, Iterable):
            raise ValueError("addresses must be a list of IP addresses")
        addrs = tuple(normalize_address(a) for a in self.addresses)
        if not 1 <= len(addrs) <= MAX_ADDRESSES:
            raise ValueError(f"an invitation names 1 to {MAX_ADDRESSES} addresses")
        object.__setattr__(self, "addresses", addrs)
        check_int("port", self.port, 1, 65535)
        check_loose_fingerprint(self.fingerprint)
        check_int("ttl", self.ttl, 1, MAX_TTL)
        if not isinstance(self.code_required, bool):
            raise ValueError("code_required must be a bool")
        if self.ticket is not None:
            check_id32("ticket", self.ticket)
        if self.join_code is not None:
            if not self.code_required:
                raise ValueError("a join code for a table that wants none")
            if (
                not isinstance(self.join_code, str)
                or not 1 <= len(self.join_code) <= MAX_CODE
                or not self.join_code.isprintable()
            ):
                raise ValueError(f"join_code must be 1..{MAX_CODE} printable characters")

    def hello_code(self) -> str | None:
        """What to send as ``hello.code``: the ticket, else the join code, else None."""
        return self.ticket if self.ticket is not None else self.join_code

    @property
    def needs_typed_code(self) -> bool:
        """The player must type the join code (it could not travel with the invitation)."""
        return self.code_required and self.ticket is None and self.join_code is None

    def to_plain(self, *, encrypted: bool) -> dict[str, Any]:
        """The ``invite`` message; the join code is included only if ``encrypted``."""
        d: dict[str, Any] = {
            "k": "invite",
            "id": self.invitation_id,
            "table_id": self.table_id,
            "table": self.table_name,
            "variant": self.variant,
            "from_nick": self.from_nick,
            "from_id": self.from_player_id,
            "addresses": list(self.addresses),
            "port": self.port,
            "fingerprint": self.fingerprint,
            "ttl": self.ttl,
            "code_required": self.code_required,
        }
        if self.ticket is not None:
            d["ticket"] = self.ticket
        if self.join_code is not None and encrypted:
            d["code"] = self.join_code
        return d

    @classmethod
    def from_plain(cls, data: object, *, encrypted: bool) -> Invitation:
        """Strictly decode an ``invite`` message; ValueError on anything unexpected.

        A join code received over a plain (unencrypted) connection is refused: a peer
        that sends one breaks the rules, and we will not use a code every listener saw.
        """
        if not isinstance(data, dict):
            raise ValueError("an invitation is a map")
        _exact_keys(data, _INVITE_KEYS - {"ticket", "code"}, frozenset({"ticket", "code"}))
        if data["k"] != "invite":
            raise ValueError("not an invite message")
        if "code" in data and not encrypted:
            raise ValueError("a join code must not travel over an unencrypted connection")
        addresses = data["addresses"]
        if not isinstance(addresses, list | tuple):
            raise ValueError("addresses must be a list")
        return cls(
            invitation_id=data["id"],
            table_id=data["table_id"],
            table_name=data["table"],
            variant=data["variant"],
            from_nick=data["from_nick"],
            from_player_id=data["from_id"],
            addresses=tuple(addresses),
            port=data["port"],
            fingerprint=data["fingerprint"],
            ttl=data["ttl"],
            code_required=data["code_required"],
            ticket=data.get("ticket"),
            join_code=data.get("code"),
        )


class InviteAnswer(enum.StrEnum):
    ACCEPT = "accept"
    DECLINE = "decline"
    BUSY = "busy"
    """Sent automatically when the player is at a table or has too many invitations."""


@dataclass(frozen=True)
class InviteReply:
    invitation_id: str
    answer: InviteAnswer

    def __post_init__(self) -> None:
        check_id32("invitation_id", self.invitation_id)
        try:
            object.__setattr__(self, "answer", InviteAnswer(self.answer))
        except ValueError:
            raise ValueError(f"unknown answer {self.answer!r}") from None

    def to_plain(self) -> dict[str, Any]:
        return {"k": "invite_reply", "id": self.invitation_id, "answer": str(self.answer)}

    @classmethod
    def from_plain(cls, data: object) -> InviteReply:
        if not isinstance(data, dict):
            raise ValueError("a reply is a map")
        _exact_keys(data, frozenset({"k", "id", "answer"}), frozenset())
        if data["k"] != "invite_reply":
            raise ValueError("not an invite_reply message")
        return cls(data["id"], data["answer"])


def cancel_to_plain(invitation_id: str) -> dict[str, Any]:
    check_id32("invitation_id", invitation_id)
    return {"k": "invite_cancel", "id": invitation_id}


def decode_invite_message(data: object, *, encrypted: bool) -> Invitation | InviteReply | str:
    """Decode any invitation message: an Invitation, an InviteReply, or (cancel) the id."""
    if not isinstance(data, dict):
        raise ValueError("a message is a map")
    kind = data.get("k")
    if kind == "invite":
        return Invitation.from_plain(data, encrypted=encrypted)
    if kind == "invite_reply":
        return InviteReply.from_plain(data)
    if kind == "invite_cancel":
        _exact_keys(data, frozenset({"k", "id"}), frozenset())
        check_id32("invitation_id", data["id"])
        return str(data["id"])
    raise ValueError(f"unknown invitation message kind {kind!r}")


@dataclass
class _Issued:
    invitation: Invitation
    player_id: str
    deadline: float
    answer: InviteAnswer | None = None
    redeemed: bool = False
    seat: int | None = None
    """A return invitation: the seat of the invited player, who dropped out of the match
    (`Guestlist.return_ticket`)."""


class Guestlist:
    """The table owner's side: "who may sit" and the invitations issued.

    ``clock`` is monotonic seconds (injectable for tests). A ticket is valid until its
    invitation's deadline (plus ``grace`` seconds for the connection to arrive) and
    admits exactly one hello.
    """

    def __init__(
        self,
        who: WhoMaySit | str = WhoMaySit.ANYONE,
        *,
        join_code: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        grace: float = 30.0,
    ) -> None:
        self.who = WhoMaySit(who)
        if self.who is WhoMaySit.CODE and not join_code:
            raise ValueError("a 'code only' table needs a join code")
        self.join_code = join_code
        self._clock = clock
        self._grace = grace
        self._issued: dict[str, _Issued] = {}

    def set_rule(self, who: WhoMaySit | str, join_code: str | None = None) -> None:
        """The owner changes the rule (existing invitations stay valid)."""
        who = WhoMaySit(who)
        if who is WhoMaySit.CODE and not (join_code or self.join_code):
            raise ValueError("a 'code only' table needs a join code")
        self.who = who
        if join_code is not None:
            self.join_code = join_code

    def invite(
        self,
        player: InvitedPlayer,
        *,
        table_id: str,
        table_name: str,
        variant: str,
        from_nick: str,
        from_player_id: str,
        addresses: Sequence[str],
        port: int,
        fingerprint: str = "",
        encrypted: bool = False,
        ttl: int = int(INVITATION_TTL),
        seat: int | None = None,
    ) -> Invitation:
        """Make an invitation for ``player``; send ``inv.to_plain(encrypted=...)``.

        The ticket is included for "invited only" tables; the join code only when
        ``encrypted`` is True (the connection carrying the invitation is encrypted).
        ``seat``: the player dropped out of the match at this seat (the host knows its
        player id): a *return invitation*, whose ticket (also at other tables, only over an
        encrypted connection) gives that seat back to whoever proves it, even without
        their reconnect token (`return_ticket`).
        """
        if seat is not None and not encrypted:
            seat = None  # a ticket read by every listener must not give a seat away
        code_required = self.who is WhoMaySit.CODE
        inv = Invitation(
            invitation_id=secrets.token_hex(16),
            table_id=table_id,
            table_name=table_name,
            variant=variant,
            from_nick=from_nick,
            from_player_id=from_player_id,
            addresses=tuple(addresses),
            port=port,
            fingerprint=fingerprint,
            ttl=ttl,
            code_required=code_required,
            ticket=(secrets.token_hex(16) if self.who is WhoMaySit.INVITED or seat is not None
                    else None),
            join_code=self.join_code if code_required and encrypted else None,
        )
        self._expire()
        self._issued[inv.invitation_id] = _Issued(inv, player.player_id, self._clock() + ttl,
                                                  seat=seat)
        return inv

    def return_ticket(self, invitation_id: str | None) -> tuple[str, int] | None:
        """A valid return invitation's (ticket, seat) (`invite` with ``seat``), whatever
        the rule of who may sit: its ticket is the PAKE password, and once proven the
        host seats the connection at that seat; None for any other invitation."""
        issued = self._valid(invitation_id)
        if issued is None or issued.seat is None or issued.invitation.ticket is None:
            return None
        return issued.invitation.ticket, issued.seat

    def on_reply(self, reply: InviteReply) -> Invitation | None:
        """Record an answer; returns the invitation, or None if unknown (or expired)."""
        self._expire()
        issued = self._issued.get(reply.invitation_id)
        if issued is None:
            return None
        issued.answer = reply.answer
        if reply.answer is not InviteAnswer.ACCEPT:
            del self._issued[reply.invitation_id]  # its ticket is void
        return issued.invitation

    def cancel(self, invitation_id: str) -> bool:
        """Withdraw an invitation (send ``cancel_to_plain(id)``); its ticket is void."""
        return self._issued.pop(invitation_id, None) is not None

    def pending(self) -> list[Invitation]:
        """Invitations still open (not expired, declined, cancelled or used)."""
        self._expire()
        return [i.invitation for i in self._issued.values() if not i.redeemed]

    def _valid(self, invitation_id: str | None) -> _Issued | None:
        self._expire()
        if invitation_id is None:
            return None
        issued = self._issued.get(invitation_id)
        if (issued is None or issued.redeemed or issued.invitation.ticket is None
                or issued.answer is InviteAnswer.DECLINE):
            return None
        return issued

    def ticket_for(self, invitation_id: str | None) -> str | None:
        """The ticket of a valid invitation (not expired, declined, cancelled or used),
        for the host's join-code exchange; None otherwise. The ticket itself is never
        sent by the client: it is the PAKE password, and ``hello.invitation`` only names
        the invitation."""
        if self.who is not WhoMaySit.INVITED:
            return None
        issued = self._valid(invitation_id)
        return None if issued is None else issued.invitation.ticket

    def redeem(self, invitation_id: str) -> Invitation | None:
        """Use up an invitation once its ticket was proven; None if no longer valid."""
        issued = self._valid(invitation_id)
        if issued is None:
            return None
        issued.redeemed = True
        return issued.invitation

    def invited_player_ids(self) -> set[str]:
        self._expire()
        return {i.player_id for i in self._issued.values()}

    def _expire(self) -> None:
        now = self._clock()
        for key in [k for k, i in self._issued.items() if now > i.deadline + self._grace]:
            del self._issued[key]


@dataclass
class _Received:
    invitation: Invitation
    deadline: float
    sender: str | None


class InvitationInbox:
    """The invited player's side: pending invitations, newest last.

    :meth:`receive` returns the invitation to prompt for, or None (ignored:
    duplicate, or ``busy``: then send the returned reply). Keeps at most
    ``max_pending`` invitations (extra ones are answered ``busy``).
    """

    def __init__(
        self, *, clock: Callable[[], float] = time.monotonic, max_pending: int = MAX_PENDING
    ) -> None:
        self._clock = clock
        self._max = max_pending
        self._pending: dict[str, _Received] = {}
        self.busy = False
        """Set while the player sits at a table: every invitation is answered ``busy``."""

    def receive(
        self, data: object, *, encrypted: bool, sender: str | None = None
    ) -> tuple[Invitation | None, InviteReply | None]:
        """Take an ``invite`` message; ``(invitation to prompt for, reply to send now)``.

        Raises ValueError if the message is malformed (close that connection).
        """
        inv = Invitation.from_plain(data, encrypted=encrypted)
        self._expire()
        if inv.invitation_id in self._pending:
            return None, None
        if self.busy or len(self._pending) >= self._max:
            return None, InviteReply(inv.invitation_id, InviteAnswer.BUSY)
        self._pending[inv.invitation_id] = _Received(inv, self._clock() + inv.ttl, sender)
        return inv, None

    def cancel(self, invitation_id: str) -> Invitation | None:
        """The owner withdrew it (``invite_cancel``); returns it if it was pending."""
        received = self._pending.pop(invitation_id, None)
        return None if received is None else received.invitation

    def pending(self) -> list[Invitation]:
        self._expire()
        return [r.invitation for r in self._pending.values()]

    def accept(self, invitation_id: str) -> tuple[Invitation, InviteReply]:
        """Accept: returns the invitation (connect to its host, send ``hello`` with
        ``code=inv.hello_code()``, or the typed code if ``inv.needs_typed_code``) and the
        reply to send. KeyError if it is unknown or expired."""
        self._expire()
        received = self._pending.pop(invitation_id)
        return received.invitation, InviteReply(invitation_id, InviteAnswer.ACCEPT)

    def decline(self, invitation_id: str) -> InviteReply:
        self._pending.pop(invitation_id, None)
        return InviteReply(invitation_id, InviteAnswer.DECLINE)

    def _expire(self) -> None:
        now = self._clock()
        for key in [k for k, r in self._pending.items() if now > r.deadline]:
            del self._pending[key]
