"""Sans-I/O wire protocol between a tournament's organiser and its players.

The same framing as a table's (`rami_lan.net.protocol`: a 4-byte big-endian length,
then one msgpack map ``{"k": kind, ...}``, strict schemas, no unknown field, optional
fields omitted), over TLS 1.3 to the organiser's port, with its own kinds, all named
``t_*`` (docs/protocol.md, section 9). A table client that says the table ``hello`` at
a tournament's port is answered ``refused`` with code ``tournament``: ``rami-lan join``
then registers with the tournament instead.

Order: the client's first message is ``t_hello``; the organiser answers ``t_welcome``
(the session is established) or ``t_refused`` (it is over). After the welcome a
registrant sends one ``t_contribution``; at a tournament with a join code, the SPAKE2
exchange of a table (``t_pake`` organiser first, then the client's ``t_pake`` and
``t_pake_confirm``, then the organiser's ``t_pake_confirm``) comes between ``t_hello`` and
``t_welcome``; the organiser sends ``t_players`` (who is
registered), ``t_draw`` (the secret, the seed's inputs), ``t_table`` (go and play, or
watch), ``t_standings``; either side may say ``t_bye``.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Final, TypeVar

import msgpack

from rami_lan.net.protocol import (
    LANGS,
    MAX_FRAME,
    MAX_ITEMS,
    MAX_MESSAGE,
    MAX_PAKE_MSG,
    PAKE_MAC_LEN,
    Message,
    RemoteProtocolError,
)
from rami_lan.wire import checks as W

__all__ = [
    "T_KINDS",
    "T_REFUSED_CODES",
    "TBye",
    "TContribution",
    "TDraw",
    "THello",
    "TPake",
    "TPakeConfirm",
    "TPlayers",
    "TRefused",
    "TSession",
    "TStandings",
    "TTable",
    "TWatch",
    "TWelcome",
    "first_kind",
]

T_VERSION: Final = 1
T_MAX_FRAME: Final = MAX_FRAME
T_REFUSED_CODES: Final = ("closed", "full", "bad_token", "bad_version", "protocol_error",
                          "busy", "bad_code", "rate_limited")
T_PAKE_KINDS: Final = frozenset({"t_pake", "t_pake_confirm"})

T_KINDS: dict[str, type[Message]] = {}
_HEADER = struct.Struct(">I")
_M = TypeVar("_M", bound=type[Message])


def _tkind(kind: str, *senders: str) -> Callable[[_M], _M]:
    def register(cls: _M) -> _M:
        cls.KIND = kind
        cls.SENDERS = frozenset(senders)  # type: ignore[assignment]
        cls._SPEC = tuple(
            W._Spec(f.name, f.metadata["parse"], f.metadata["to_wire"], f.metadata["required"])
            for f in fields(cls))  # type: ignore[arg-type]
        cls._NAMES = frozenset(s.name for s in cls._SPEC)
        T_KINDS[kind] = cls
        return cls
    return register


_message = dataclass(frozen=True, slots=True, kw_only=True)
_b16 = W._bytes(16)
_b32 = W._bytes(32)
_port = W._int_in(1, 65535)
_small = W._int_in(0, 64)


def _fp(value: Any) -> str:
    if type(value) is not str or (value and (len(value) != 64 or
                                            any(c not in "0123456789abcdef" for c in value))):
        raise ValueError("a fingerprint is 64 lowercase hex digits, or empty")
    return value


@_tkind("t_hello", "client")
@_message
class THello(Message):
    """Register (or come back with ``token``), or only watch (``watch``)."""

    nick: str = W._wire(W._nick)
    lang: str = W._wire(W._choice(*LANGS))
    v: int = W._wire(W._uint, default=T_VERSION, required=True)
    bot: bool = W._wire(W._bool, default=False)
    watch: bool = W._wire(W._bool, default=False)
    token: bytes | None = W._wire(_b16, default=None)


@_tkind("t_welcome", "host")
@_message
class TWelcome(Message):
    """Registered as entrant ``no`` (0: a spectator) under ``nick``; ``commitment`` is the
    organiser's commitment to the draw's secret; ``info``: the settings (plain)."""

    tournament_id: bytes = W._wire(_b16)
    no: int = W._wire(W._uint)
    nick: str = W._wire(W._text(0, 24))
    token: bytes = W._wire(_b16)
    commitment: bytes = W._wire(_b32)
    info: dict[str, Any] = W._wire(W._plain_map)
    v: int = W._wire(W._uint, default=T_VERSION, required=True)


@_tkind("t_refused", "host")
@_message
class TRefused(Message):
    code: str = W._wire(W._choice(*T_REFUSED_CODES))
    message: str = W._wire(W._text(0, MAX_MESSAGE))


@_tkind("t_pake", "client", "host")
@_message
class TPake(Message):
    """The join-code exchange (SPAKE2, as a table's ``pake``: `rami_lan.net.pake`), between
    ``t_hello`` and ``t_welcome`` at a tournament with a join code: organiser first."""

    msg: bytes = W._wire(W._bytes_upto(MAX_PAKE_MSG))


@_tkind("t_pake_confirm", "client", "host")
@_message
class TPakeConfirm(Message):
    """The key confirmation (HMAC over the role and the certificate fingerprint seen):
    the client's, then the organiser's."""

    mac: bytes = W._wire(W._bytes(PAKE_MAC_LEN))


@_tkind("t_contribution", "client")
@_message
class TContribution(Message):
    """The registrant's 32 random bytes for the draw (once, right after the welcome)."""

    value: bytes = W._wire(_b32)


@_tkind("t_players", "host")
@_message
class TPlayers(Message):
    """Who is registered: ``[{"no", "nick", "kind"}]``; ``start_at``: humans to start."""

    players: list[dict[str, Any]] = W._wire(W._plain_maps)
    start_at: int = W._wire(_small, default=0)


@_tkind("t_draw", "host")
@_message
class TDraw(Message):
    """The draw's inputs: the secret (its commitment was in the welcome), every entrant
    with its contribution (``[{"no", "nick", "kind", "contribution": hex | nil}]``), and
    the seed they give."""

    secret: bytes = W._wire(_b32)
    seed: bytes = W._wire(_b32)
    entrants: list[dict[str, Any]] = W._wire(W._plain_maps)


@_tkind("t_table", "host")
@_message
class TTable(Message):
    """Go and sit at a table of the organiser (same address, this ``port``, pinned to
    ``fingerprint``, with join code ``code``), or watch it (``watch``)."""

    stage: int = W._wire(_small)
    table: int = W._wire(_small)
    port: int = W._wire(_port)
    fingerprint: str = W._wire(_fp)
    code: str = W._wire(W._text(0, 32))
    final: bool = W._wire(W._bool)
    players: list[dict[str, Any]] = W._wire(W._plain_maps)
    watch: bool = W._wire(W._bool, default=False)


@_tkind("t_standings", "host")
@_message
class TStandings(Message):
    """The standings (``[{"place", "no", "nick", "kind", "status", "stage",
    "table_place", "why", "replaced"}]``) and each finished table's ranking."""

    stage: int = W._wire(_small)
    standings: list[dict[str, Any]] = W._wire(W._plain_maps)
    tables: list[dict[str, Any]] = W._wire(W._plain_maps)
    over: bool = W._wire(W._bool, default=False)


@_tkind("t_watch", "host")
@_message
class TWatch(Message):
    """What a spectator of table ``stage.table`` may see of one change: the public
    events (each redacted for no seat, `Event.for_seat(None)`) and the view for no
    seat (no hand: `rami_lan.core.views.view_for(match, None)`); ``players``:
    ``[{"seat", "nick"}]``."""

    stage: int = W._wire(_small)
    table: int = W._wire(_small)
    events: list[dict[str, Any]] = W._wire(W._plain_maps)
    view: dict[str, Any] = W._wire(W._plain_map)
    players: list[dict[str, Any]] = W._wire(W._plain_maps)


@_tkind("t_bye", "client", "host")
@_message
class TBye(Message):
    reason: str = W._wire(W._text(0, 200), default="")


def first_kind(body: bytes) -> str | None:
    """The ``k`` of a frame's body (to tell a table ``hello`` from a ``t_hello``)."""
    try:
        wire = msgpack.unpackb(body, raw=False, strict_map_key=True, max_bin_len=len(body),
                               max_str_len=len(body), max_array_len=MAX_ITEMS,
                               max_map_len=MAX_ITEMS, max_ext_len=0)
    except Exception:  # noqa: BLE001 - untrusted bytes
        return None
    kind = wire.get("k") if isinstance(wire, dict) else None
    return kind if isinstance(kind, str) else None


def encode(msg: Message, *, validate: bool = True) -> bytes:
    """A message's frame, checked as the peer will check it (``validate``)."""
    wire = msg.to_wire()
    if validate:
        type(msg).from_wire(wire)
    body = msgpack.packb(wire, use_bin_type=True)
    return _HEADER.pack(len(body)) + body


class TSession:
    """One end of an organiser-player connection, without I/O (``role`` ``host`` or
    ``client``): `receive_data` gives validated messages, `send` gives frames."""

    ROLES: ClassVar[tuple[str, str]] = ("host", "client")

    def __init__(self, role: str, *, max_frame: int = T_MAX_FRAME) -> None:
        if role not in self.ROLES:
            raise ValueError(f"role must be 'host' or 'client', not {role!r}")
        self.role = role
        self._peer = "client" if role == "host" else "host"
        self._max = max_frame
        self._buf = bytearray()
        self.hello_done = False
        self.established = False
        self.closed = False
        self._pake: set[str] = set()
        self._confirmed: set[str] = set()

    def _order(self, sender: str, kind: str) -> str | None:
        cls = T_KINDS[kind]
        if sender not in cls.SENDERS:
            return f"a {sender} may not send {kind!r}"
        if kind == "t_bye":
            return None
        if not self.hello_done:
            return None if kind == "t_hello" else f"{kind!r} before t_hello"
        if not self.established:
            if kind in T_PAKE_KINDS:
                return self._pake_order(sender, kind)
            if kind == "t_welcome" and self._pake and "host" not in self._confirmed:
                return "'t_welcome' before the join-code exchange is confirmed"
            return None if kind in ("t_welcome", "t_refused") else f"{kind!r} before t_welcome"
        if kind in ("t_hello", "t_welcome", "t_refused") or kind in T_PAKE_KINDS:
            return f"{kind!r} after the handshake"
        return None

    def _pake_order(self, sender: str, kind: str) -> str | None:
        """Organiser ``t_pake``, client ``t_pake``, client ``t_pake_confirm``, organiser
        ``t_pake_confirm``: each once, in this order."""
        if kind == "t_pake":
            if sender in self._pake:
                return f"a second 't_pake' from the {sender}"
            if sender == "client" and "host" not in self._pake:
                return "'t_pake' from the client before the organiser's"
            return None
        if sender in self._confirmed or self._pake != {"host", "client"}:
            return "'t_pake_confirm' out of order"
        if sender == "host" and "client" not in self._confirmed:
            return "the organiser's 't_pake_confirm' before the client's"
        return None

    def _advance_pake(self, kind: str, sender: str) -> None:
        (self._pake if kind == "t_pake" else self._confirmed).add(sender)

    def _advance(self, kind: str) -> None:
        if kind == "t_hello":
            self.hello_done = True
        elif kind == "t_welcome":
            self.established = True
        elif kind in ("t_refused", "t_bye"):
            self.closed = True

    def receive_data(self, data: bytes) -> list[Message]:
        """Every complete valid message in the bytes so far; `RemoteProtocolError` on
        the first bad one."""
        self._buf += data
        out: list[Message] = []
        while len(self._buf) >= _HEADER.size:
            (n,) = _HEADER.unpack_from(self._buf, 0)
            if n == 0:
                raise RemoteProtocolError("bad_frame", "zero-length frame")
            if n > self._max:
                raise RemoteProtocolError("frame_too_large", f"frame of {n} bytes, limit {self._max}")
            if len(self._buf) < _HEADER.size + n:
                break
            body = bytes(self._buf[_HEADER.size:_HEADER.size + n])
            del self._buf[:_HEADER.size + n]
            out.append(self._accept(body))
        return out

    def _accept(self, body: bytes) -> Message:
        try:
            wire = msgpack.unpackb(body, raw=False, strict_map_key=True, use_list=True,
                                   max_bin_len=self._max, max_str_len=self._max,
                                   max_array_len=MAX_ITEMS, max_map_len=MAX_ITEMS, max_ext_len=0)
        except Exception as exc:  # noqa: BLE001 - untrusted input
            raise RemoteProtocolError("bad_msgpack", f"undecodable body: {exc}") from None
        kind = wire.get("k") if isinstance(wire, dict) else None
        cls = T_KINDS.get(kind) if isinstance(kind, str) else None
        if cls is None:
            raise RemoteProtocolError("unknown_kind", "not a tournament message")
        problem = self._order(self._peer, cls.KIND)
        if problem:
            raise RemoteProtocolError("unexpected", problem)
        if cls in (THello, TWelcome) and wire.get("v") != T_VERSION:
            raise RemoteProtocolError("bad_version", f"tournament protocol {T_VERSION} only")
        msg = cls.from_wire(wire)
        if cls.KIND in T_PAKE_KINDS:
            self._advance_pake(cls.KIND, self._peer)
        self._advance(cls.KIND)
        return msg

    def send_encoded(self, msg: Message, frame: bytes) -> bytes:
        """`send` for a frame already made by `encode` (one message to many peers): the
        order and the size are checked here, the schema was checked once."""
        kind = type(msg).KIND
        problem = self._order(self.role, kind)
        if problem:
            raise ValueError(problem)
        if len(frame) - _HEADER.size > self._max:
            raise ValueError(f"{kind!r} is over {self._max} bytes")
        self._advance(kind)
        return frame

    def send(self, msg: Message) -> bytes:
        kind = type(msg).KIND
        if T_KINDS.get(kind) is not type(msg):
            raise ValueError(f"not a tournament message: {msg!r}")
        problem = self._order(self.role, kind)
        if problem:
            raise ValueError(problem)
        wire = msg.to_wire()
        type(msg).from_wire(wire)  # our own message must pass the peer's checks
        body = msgpack.packb(wire, use_bin_type=True)
        if len(body) > self._max:
            raise ValueError(f"{kind!r} is {len(body)} bytes, over {self._max}")
        if kind in T_PAKE_KINDS:
            self._advance_pake(kind, self.role)
        self._advance(kind)
        return _HEADER.pack(len(body)) + body
