"""Sans-I/O wire protocol between a rami-lan host and its clients.

Theory of operation
-------------------
This module knows nothing about sockets, tasks or clocks, in the manner of h11: a
:class:`Session` turns bytes received from the peer into validated :class:`Message` values
(:meth:`Session.receive_data`) and turns our own messages into bytes to write
(:meth:`Session.send`). The asyncio adapters around it only move bytes.

Every message travels in one frame: a 4-byte big-endian length, then that many bytes of
msgpack holding a map ``{"k": kind, field: value, ...}``. The length is checked against the
session's cap as soon as the 4 prefix bytes are known, before any of the body is awaited.
The body is decoded with size limits and without object hooks, then validated strictly by
the message class of its kind (see ``docs/protocol.md`` for the full table).

Each message kind may be sent by the client, by the host, or by both. The session also
enforces the handshake: the client speaks first with ``hello``; the host answers
``welcome`` (the session is then established) or ``refused`` (the session is over); a
host may refuse before reading the ``hello``. ``bye`` closes the sender's direction.
At a table with a join code, the host runs a PAKE between ``hello`` and ``welcome``
(``pake`` host first, then the client's ``pake`` and ``pake_confirm``, then the host's
``pake_confirm``), and may only send ``welcome`` once that has gone through; the
cryptography is in ``rami_lan.net.pake``, the session only checks the order.

Two kinds of failures, as in h11: :class:`LocalProtocolError` means *we* tried to send
something invalid (a bug in our code); :class:`RemoteProtocolError` means the peer sent
something invalid. After a remote error the session accepts no more data; it still lets
us send one of the "farewell" kinds (see :meth:`Session.error_reply`) before closing.
"""

from __future__ import annotations

import re
import reprlib
import struct
from collections.abc import Callable
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, ClassVar, Final, Literal, NamedTuple, TypeVar

import msgpack

from rami_lan.masked.messages import KINDS as MASKED_MESSAGE_KINDS

__all__ = [
    "ERROR_CODES",
    "HOST_SEAT",
    "KINDS",
    "LANGS",
    "MAX_CARD",
    "MAX_DEPTH",
    "MAX_FRAME",
    "MAX_ITEMS",
    "MAX_SEATS",
    "MAX_PAKE_MSG",
    "MAX_UINT",
    "NEXT_ROUND_CHOICES",
    "PROTOCOL_VERSION",
    "REFUSED_CODES",
    "ROUND_TAG_LEN",
    "ROUND_TAG_PREFIX",
    "Action",
    "Bye",
    "Card",
    "CardMsg",
    "Chat",
    "ChatMsg",
    "Commit",
    "CommitRequest",
    "Commitments",
    "Error",
    "Events",
    "Hello",
    "Knock",
    "LocalProtocolError",
    "Message",
    "NextRound",
    "PAKE_KINDS",
    "PAKE_MAC_LEN",
    "Pake",
    "PakeConfirm",
    "Ping",
    "Pong",
    "ProtocolError",
    "Refused",
    "RemoteProtocolError",
    "Reveal",
    "Role",
    "RoundSecrets",
    "Session",
    "View",
    "Welcome",
    "check_plain",
]

Role = Literal["host", "client"]

PROTOCOL_VERSION: Final = 1
MAX_FRAME: Final = 256 * 1024
"""Default cap on a frame body, in bytes (the 4-byte prefix is not counted)."""
MAX_DEPTH: Final = 8
"""Default cap on container nesting in plain data (the outermost container counts 1)."""
MAX_ITEMS: Final = 16_384
"""Default cap on the number of values in one plain-data value, and on one array/map."""
MAX_SEATS: Final = 4
HOST_SEAT: Final = 255
"""Seat number of a dedicated host that has no seat at the table (fair-shuffle spec)."""
ROUND_TAG_PREFIX: Final = b"rami-lan/v1"
ROUND_TAG_LEN: Final = len(ROUND_TAG_PREFIX) + 16 + 4 + 4
"""``"rami-lan/v1" || table_id(16) || u32(match_no) || u32(round_no)``: 35 bytes."""

MAX_UINT: Final = 2**63 - 1
"""Upper bound of sequence numbers, ping counters and the like."""
MAX_NICK: Final = 24
MAX_CODE: Final = 32
MAX_CHAT: Final = 200
MAX_MESSAGE: Final = 500
MAX_ERROR_TEXT: Final = 300
"""Longest text of a :class:`RemoteProtocolError` (longer ones are cut when raised)."""
MAX_PAKE_MSG: Final = 256
MAX_CARD: Final = 4096
"""Largest "Info joueur" card in a ``card`` / ``card_msg`` message, msgpack-encoded, in bytes."""
MAX_CARD_DEPTH: Final = 4
MAX_CARD_ITEMS: Final = 512
"""Largest SPAKE2 message in a ``pake`` message, in bytes."""
PAKE_MAC_LEN: Final = 32
"""Length of the key confirmation in a ``pake_confirm`` message (HMAC-SHA256)."""
PAKE_KINDS: Final = frozenset({"pake", "pake_confirm"})
"""Kinds of the join-code exchange, allowed only between ``hello`` and ``welcome``."""
MASKED_KINDS: Final = MASKED_MESSAGE_KINDS | frozenset(
    {"mk_round", "mk_deal", "mk_show", "mk_hand", "mk_sync", "mk_timeout", "mk_close", "mk_own", "mk_orders",
     "mk_seatkey", "mk_receipt"})
"""Kinds a ``masked`` message may carry: the masked deck's own, and the table's."""

MAX_RETRY_MS: Final = 3_600_000
"""Longest wait a ``refused`` may ask for (an hour; the guard's lockout is 15 minutes)."""
LANGS: Final = ("fr", "en")
NEXT_ROUND_CHOICES: Final = ("continue", "leave")
REFUSED_CODES: Final = frozenset(
    {
        "table_full",
        "bad_code",
        "not_invited",
        "bad_version",
        "bad_token",
        "in_progress",
        "rate_limited",
        "protocol_error",
    }
)
ERROR_CODES: Final = frozenset(
    {
        "bad_frame",
        "frame_too_large",
        "bad_msgpack",
        "bad_message",
        "unknown_kind",
        "bad_field",
        "bad_version",
        "unexpected",
    }
)
"""Codes carried by :class:`RemoteProtocolError`."""

_HEADER = struct.Struct(">I")
_PLAIN_INT_MIN = -(2**63)
_PLAIN_INT_MAX = 2**64 - 1
_FAREWELL = frozenset({"error", "refused", "bye"})

_short_repr = reprlib.Repr()
_short_repr.maxlevel = 2
_short_repr.maxstring = 40
_short_repr.maxlong = 40
_short_repr.maxother = 40


def _show(value: object) -> str:
    """A short, printable description of a (possibly hostile) value for error messages."""
    return _short_repr.repr(value)


# --------------------------------------------------------------------------- errors


class ProtocolError(ValueError):
    """Base class of every protocol error."""


class LocalProtocolError(ProtocolError):
    """We tried to send something the protocol does not allow: a bug on our side."""


class RemoteProtocolError(ProtocolError):
    """The peer sent something the protocol does not allow.

    ``code`` is one of :data:`ERROR_CODES`; ``message`` says what was wrong, in English.
    ``received`` holds the valid messages that came before the bad frame in the same
    :meth:`Session.receive_data` call (they were accepted; handle them before closing).
    """

    def __init__(self, code: str, message: str) -> None:
        if len(message) > MAX_ERROR_TEXT:  # O(1): every message is cut before it is used
            message = message[: MAX_ERROR_TEXT - 1] + "…"
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.received: list[Message] = []


# --------------------------------------------------------------------------- plain data


class _PlainError(ValueError):
    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem
        self.path: list[str] = []


def check_plain(value: object, max_depth: int = MAX_DEPTH, max_items: int = MAX_ITEMS) -> None:
    """Check that ``value`` is plain data; raise ``ValueError`` naming the bad spot if not.

    Plain data is ``None``, ``bool``, ``int`` (in the msgpack range -2**63 .. 2**64-1),
    ``str`` (encodable as UTF-8), ``bytes``, ``list`` and ``dict`` with ``str`` keys, nested
    at most ``max_depth`` containers deep, with at most ``max_items`` values in all (map keys
    not counted). Exact types only: no subclasses, tuples, floats or other objects. A value
    that passes goes through msgpack and comes back equal.
    """
    budget = [max_items]
    try:
        _check_plain(value, max_depth, budget)
    except _PlainError as exc:
        where = "value" + "".join(reversed(exc.path))
        raise ValueError(f"{where}: {exc.problem}") from None


_NoneType = type(None)


def _check_scalar(value: object, kind: type) -> None:
    """Check one non-container value (the containers' loops inline the common cases)."""
    if kind is int:
        if not _PLAIN_INT_MIN <= value <= _PLAIN_INT_MAX:  # type: ignore[operator]
            raise _PlainError("integer out of range")
        return
    if kind is str:
        try:
            value.encode("utf-8")  # type: ignore[attr-defined]
        except UnicodeEncodeError:
            raise _PlainError("string is not valid Unicode") from None
        return
    if kind is _NoneType or kind is bool or kind is bytes:
        return
    raise _PlainError(f"{kind.__name__} is not plain data")


def _check_plain(value: object, depth_left: int, budget: list[int]) -> None:
    """Walk ``value``; scalars inside containers are checked inline (this runs on every
    received frame, so it avoids a call per card id)."""
    budget[0] -= 1
    if budget[0] < 0:
        raise _PlainError("too many items")
    kind = type(value)
    if kind is not list and kind is not dict:
        _check_scalar(value, kind)
        return
    if depth_left <= 0:
        raise _PlainError("nested too deeply")
    budget[0] -= len(value)  # type: ignore[arg-type]
    if budget[0] < 0:
        raise _PlainError("too many items")
    if kind is list:
        pairs = enumerate(value)  # type: ignore[call-overload]
    else:
        pairs = value.items()  # type: ignore[attr-defined]
    for key, item in pairs:
        if kind is dict and type(key) is not str:
            raise _PlainError(f"map key {_show(key)} is not a str")
        t = type(item)
        try:
            if t is int:
                if not _PLAIN_INT_MIN <= item <= _PLAIN_INT_MAX:
                    raise _PlainError("integer out of range")
            elif t is list or t is dict:
                budget[0] += 1  # counted above with its container
                _check_plain(item, depth_left - 1, budget)
            elif t is not _NoneType and t is not bool and t is not bytes:
                _check_scalar(item, t)
        except _PlainError as exc:
            exc.path.append(f"[{key if kind is list else _show(key)}]")
            raise


# --------------------------------------------------------------------------- field checks
# Each check takes a wire value and returns the Python value, or raises ValueError.

_Parse = Callable[[Any], Any]


def _int_in(low: int, high: int, *extra: int) -> _Parse:
    def parse(value: Any) -> int:
        if type(value) is not int or not (low <= value <= high or value in extra):
            allowed = f"{low}..{high}" + "".join(f" or {x}" for x in extra)
            raise ValueError(f"expected an int in {allowed}, got {_show(value)}")
        return value

    return parse


_uint = _int_in(0, MAX_UINT)
_seat = _int_in(0, MAX_SEATS - 1)
_participant = _int_in(0, MAX_SEATS - 1, HOST_SEAT)


def _bool(value: Any) -> bool:
    if type(value) is not bool:
        raise ValueError(f"expected a bool, got {_show(value)}")
    return value


def _bytes(length: int) -> _Parse:
    def parse(value: Any) -> bytes:
        if type(value) is not bytes or len(value) != length:
            raise ValueError(f"expected {length} bytes, got {_show(value)}")
        return value

    return parse


_bytes16 = _bytes(16)
_bytes32 = _bytes(32)


def _bytes_upto(high: int) -> _Parse:
    def parse(value: Any) -> bytes:
        if type(value) is not bytes or not 1 <= len(value) <= high:
            raise ValueError(f"expected 1..{high} bytes, got {_show(value)}")
        return value

    return parse


_pake_msg = _bytes_upto(MAX_PAKE_MSG)
_pake_mac = _bytes(PAKE_MAC_LEN)


def _text(low: int, high: int) -> _Parse:
    def parse(value: Any) -> str:
        if type(value) is not str:
            raise ValueError(f"expected a string, got {_show(value)}")
        if not low <= len(value) <= high:
            raise ValueError(f"expected {low}..{high} characters, got {len(value)}")
        if not value.isprintable():
            raise ValueError(f"non-printable character in {_show(value)}")
        return value

    return parse


def _nick(value: Any) -> str:
    nick = _text(1, MAX_NICK)(value)
    if nick != nick.strip():
        raise ValueError(f"leading or trailing space in {_show(nick)}")
    return nick


def _choice(*options: str) -> _Parse:
    def parse(value: Any) -> str:
        if type(value) is not str or value not in options:
            raise ValueError(f"expected one of {', '.join(sorted(options))}, got {_show(value)}")
        return value

    return parse


_IDENT = re.compile(r"[a-z][a-z0-9_]{0,31}")


def _ident(value: Any) -> str:
    if type(value) is not str or not _IDENT.fullmatch(value):
        raise ValueError(f"expected an identifier like 'bad_field', got {_show(value)}")
    return value


def _round_tag(value: Any) -> bytes:
    if (
        type(value) is not bytes
        or len(value) != ROUND_TAG_LEN
        or not value.startswith(ROUND_TAG_PREFIX)
    ):
        raise ValueError(
            f"expected a {ROUND_TAG_LEN}-byte round tag starting with {ROUND_TAG_PREFIX!r}, "
            f"got {_show(value)}"
        )
    match_no, round_no = struct.unpack_from(">II", value, ROUND_TAG_LEN - 8)
    if match_no < 1 or round_no < 1:
        raise ValueError("match and round numbers in a round tag start at 1")
    return value


def _plain_map(value: Any) -> dict[str, Any]:
    if type(value) is not dict:
        raise ValueError(f"expected a map, got {_show(value)}")
    check_plain(value)
    return value


def _card_map(value: Any) -> dict[str, Any]:
    """A player card: a small plain-data map (its content is checked by the stats layer)."""
    if type(value) is not dict:
        raise ValueError(f"expected a map, got {_show(value)}")
    check_plain(value, max_depth=MAX_CARD_DEPTH, max_items=MAX_CARD_ITEMS)
    size = len(msgpack.packb(value, use_bin_type=True))
    if size > MAX_CARD:
        raise ValueError(f"a card is at most {MAX_CARD} bytes, got {size}")
    return value


_INVITATION_ID = re.compile(r"[0-9a-f]{32}")


def _invitation_id(value: Any) -> str:
    if type(value) is not str or not _INVITATION_ID.fullmatch(value):
        raise ValueError(f"expected 32 lowercase hex digits, got {_show(value)}")
    return value


def _plain_maps(value: Any) -> list[dict[str, Any]]:
    if type(value) is not list or any(type(item) is not dict for item in value):
        raise ValueError(f"expected a list of maps, got {_show(value)}")
    check_plain(value)
    return value


_SEAT_KEY = re.compile(r"0|[1-9][0-9]{0,2}")


def _seat_bytes_map(value: Any) -> dict[int, bytes]:
    """Wire ``{"0": b"..", "255": b".."}`` (decimal str keys) to ``{0: b"..", 255: b".."}``."""
    if type(value) is not dict:
        raise ValueError(f"expected a map of seat to bytes, got {_show(value)}")
    out: dict[int, bytes] = {}
    for key, item in value.items():
        if type(key) is not str or not _SEAT_KEY.fullmatch(key):
            raise ValueError(f"seat key {_show(key)} is not a decimal seat number")
        out[_participant(int(key))] = _bytes32(item)
    return out


def _seat_bytes_map_to_wire(value: Any) -> Any:
    if type(value) is not dict:
        return value  # rejected by the check in send()
    return {(str(seat) if type(seat) is int else seat): item for seat, item in value.items()}


_REASON = re.compile(r"[a-z][a-z0-9_]{0,31}")


def _seat_reasons(value: Any) -> dict[int, str]:
    """Wire ``{"2": "no_reveal"}`` to ``{2: "no_reveal"}``: excluded seats and why (a code)."""
    if type(value) is not dict:
        raise ValueError(f"expected a map of seat to reason, got {_show(value)}")
    out: dict[int, str] = {}
    for key, item in value.items():
        if type(key) is not str or not _SEAT_KEY.fullmatch(key):
            raise ValueError(f"seat key {_show(key)} is not a decimal seat number")
        if type(item) is not str or not _REASON.fullmatch(item):
            raise ValueError(f"an exclusion reason is a short code like 'no_reveal', got {_show(item)}")
        out[_participant(int(key))] = item
    return out


def _seat_list(value: Any) -> list[int]:
    if type(value) is not list:
        raise ValueError(f"expected a list of seats, got {_show(value)}")
    seats = [_participant(item) for item in value]
    if len(set(seats)) != len(seats):
        raise ValueError(f"repeated seat in {_show(value)}")
    return seats


def _wire(
    parse: _Parse,
    *,
    default: Any = MISSING,
    required: bool | None = None,
    to_wire: Callable[[Any], Any] | None = None,
) -> Any:
    """A message field: the check of its wire value, and its wire form if it differs.

    A field is required on the wire when it has no default, unless ``required`` says so.
    """
    if required is None:
        required = default is MISSING
    return field(
        default=default, metadata={"parse": parse, "to_wire": to_wire, "required": required}
    )


class _Spec(NamedTuple):
    name: str
    parse: _Parse
    to_wire: Callable[[Any], Any] | None
    required: bool


# --------------------------------------------------------------------------- messages


class Message:
    """Base of every message. Subclasses are frozen dataclasses, one per kind."""

    __slots__ = ()
    KIND: ClassVar[str]
    SENDERS: ClassVar[frozenset[Role]]
    _SPEC: ClassVar[tuple[_Spec, ...]]
    _NAMES: ClassVar[frozenset[str]]

    def to_wire(self) -> dict[str, Any]:
        """The msgpack-ready map for this message (optional fields left at None omitted)."""
        wire: dict[str, Any] = {"k": self.KIND}
        for spec in self._SPEC:
            value = getattr(self, spec.name)
            if value is None and not spec.required:
                continue
            wire[spec.name] = spec.to_wire(value) if spec.to_wire else value
        return wire

    @classmethod
    def from_wire(cls, wire: dict[str, Any]) -> Message:
        """Build a message from its decoded map, validating every field strictly.

        Called on :class:`Message` itself, dispatches on ``"k"``; called on a subclass,
        requires that kind. Raises :class:`RemoteProtocolError` (``bad_message``,
        ``unknown_kind`` or ``bad_field``). Does not check direction or handshake order:
        that is the :class:`Session`'s job.
        """
        if type(wire) is not dict:
            raise RemoteProtocolError("bad_message", f"a message is a map, got {_show(wire)}")
        kind = wire.get("k")
        if type(kind) is not str:
            raise RemoteProtocolError("bad_message", f"'k' must be a str, got {_show(kind)}")
        if cls is Message:
            target = KINDS.get(kind)
            if target is None:
                raise RemoteProtocolError("unknown_kind", f"unknown message kind {_show(kind)}")
            return target.from_wire(wire)
        if kind != cls.KIND:
            raise RemoteProtocolError(
                "bad_message", f"expected kind {cls.KIND!r}, got {_show(kind)}"
            )
        names = cls._NAMES
        first: object = None
        unknown = 0
        for key in wire:  # count only: the text names one key, whatever the input size
            if key != "k" and key not in names:
                if not unknown:
                    first = key
                unknown += 1
        if unknown:
            more = f" and {unknown - 1} more" if unknown > 1 else ""
            raise RemoteProtocolError(
                "bad_field", f"{kind}: unknown field {_show(first)}{more} ({unknown} in all)"
            )
        values: dict[str, Any] = {}
        for spec in cls._SPEC:
            if spec.name in wire:
                try:
                    values[spec.name] = spec.parse(wire[spec.name])
                except ValueError as exc:
                    raise RemoteProtocolError("bad_field", f"{kind}.{spec.name}: {exc}") from None
            elif spec.required:
                raise RemoteProtocolError("bad_field", f"{kind}: missing field {spec.name!r}")
        return cls(**values)


KINDS: dict[str, type[Message]] = {}
"""Every message kind on the wire, to its class."""

_M = TypeVar("_M", bound=type[Message])


def _kind(kind: str, *senders: Role) -> Callable[[_M], _M]:
    def register(cls: _M) -> _M:
        cls.KIND = kind
        cls.SENDERS = frozenset(senders)
        cls._SPEC = tuple(
            _Spec(f.name, f.metadata["parse"], f.metadata["to_wire"], f.metadata["required"])
            for f in fields(cls)
        )
        cls._NAMES = frozenset(spec.name for spec in cls._SPEC)
        KINDS[kind] = cls
        return cls

    return register


_message = dataclass(frozen=True, slots=True, kw_only=True)


@_kind("hello", "client")
@_message
class Hello(Message):
    """First client message: who I am, and which seat I reconnect to (``token``)."""

    nick: str = _wire(_nick)
    lang: str = _wire(_choice(*LANGS))
    v: int = _wire(_uint, default=PROTOCOL_VERSION, required=True)
    token: bytes | None = _wire(_bytes16, default=None)
    code: str | None = _wire(_text(1, MAX_CODE), default=None)
    bot: bool = _wire(_bool, default=False)
    invitation: str | None = _wire(_invitation_id, default=None)
    """The id of the invitation the client answers (an "invited only" table); not secret:
    its ticket is proven by the join-code exchange, never sent."""


@_kind("welcome", "host")
@_message
class Welcome(Message):
    """The host seats the client: table id, seat, reconnect token, table and players."""

    table_id: bytes = _wire(_bytes16)
    seat: int = _wire(_seat)
    token: bytes = _wire(_bytes16)
    table: dict[str, Any] = _wire(_plain_map)
    players: list[dict[str, Any]] = _wire(_plain_maps)
    v: int = _wire(_uint, default=PROTOCOL_VERSION, required=True)


@_kind("refused", "host")
@_message
class Refused(Message):
    """The host turns the client away; the session is over."""

    code: str = _wire(_choice(*REFUSED_CODES))
    message: str = _wire(_text(0, MAX_MESSAGE))
    retry_ms: int | None = _wire(_int_in(0, MAX_RETRY_MS), default=None)
    """``rate_limited`` only: milliseconds to wait before the next attempt may be admitted
    (a client retries after it; older hosts send none: the text says it in English)."""


@_kind("action", "client")
@_message
class Action(Message):
    """A game action, encoded by the rules core; ``seq`` is the client's counter."""

    seq: int = _wire(_uint)
    action: dict[str, Any] = _wire(_plain_map)


@_kind("view", "host")
@_message
class View(Message):
    """What this seat may see, built by the rules core, at host state version ``seq``."""

    seq: int = _wire(_uint)
    view: dict[str, Any] = _wire(_plain_map)


@_kind("events", "host")
@_message
class Events(Message):
    """Public events (plain maps built by the rules core) up to host state version ``seq``."""

    seq: int = _wire(_uint)
    events: list[dict[str, Any]] = _wire(_plain_maps)


@_kind("error", "host")
@_message
class Error(Message):
    """The host rejects something; ``ref`` is the ``seq`` of the offending client action."""

    code: str = _wire(_ident)
    message: str = _wire(_text(0, MAX_MESSAGE))
    ref: int | None = _wire(_uint, default=None)


@_kind("commit_request", "host")
@_message
class CommitRequest(Message):
    """Fair shuffle step 1: the host asks for a commitment for this round."""

    round_tag: bytes = _wire(_round_tag)
    seat: int = _wire(_participant)


@_kind("commit", "client")
@_message
class Commit(Message):
    """Fair shuffle step 1: ``H("rami-lan commit v1" || round_tag || u8(seat) || s)``."""

    round_tag: bytes = _wire(_round_tag)
    commit: bytes = _wire(_bytes32)


@_kind("commitments", "host")
@_message
class Commitments(Message):
    """Fair shuffle step 2: every participant's commitment, by seat."""

    round_tag: bytes = _wire(_round_tag)
    commits: dict[int, bytes] = _wire(_seat_bytes_map, to_wire=_seat_bytes_map_to_wire)
    excluded: dict[int, str] | None = _wire(
        _seat_reasons, default=None, to_wire=_seat_bytes_map_to_wire)
    """Optional: sent again, with the same ``commits``, after the reveals and before the
    deal when seats are excluded: seat -> reason code (``bad_reveal``, ``no_reveal``)."""


@_kind("reveal", "client")
@_message
class Reveal(Message):
    """Fair shuffle step 3: the client's 32-byte secret, to the host only."""

    round_tag: bytes = _wire(_round_tag)
    secret: bytes = _wire(_bytes32)


@_kind("round_secrets", "host")
@_message
class RoundSecrets(Message):
    """Fair shuffle step 5: every secret of the round, and the seats that were excluded."""

    round_tag: bytes = _wire(_round_tag)
    secrets: dict[int, bytes] = _wire(_seat_bytes_map, to_wire=_seat_bytes_map_to_wire)
    excluded: list[int] = _wire(_seat_list)
    reasons: dict[int, str] | None = _wire(
        _seat_reasons, default=None, to_wire=_seat_bytes_map_to_wire)
    """Optional: seat -> reason code of each excluded seat."""


@_kind("knock", "client")
@_message
class Knock(Message):
    """The client knocks (ends the round), as client action number ``seq``."""

    seq: int = _wire(_uint)


@_kind("next_round", "client")
@_message
class NextRound(Message):
    """Between rounds: stay for the next one or leave the match."""

    choice: str = _wire(_choice(*NEXT_ROUND_CHOICES))


@_kind("chat", "client")
@_message
class Chat(Message):
    """A chat line from the client, to be relayed by the host."""

    text: str = _wire(_text(1, MAX_CHAT))


@_kind("chat_msg", "host")
@_message
class ChatMsg(Message):
    """A chat line relayed by the host, with the seat that wrote it."""

    seat: int = _wire(_participant)
    text: str = _wire(_text(1, MAX_CHAT))


@_kind("card", "client")
@_message
class Card(Message):
    """The client's own "Info joueur" card (``rami_lan.stats.PlayerCard.to_plain``)."""

    card: dict[str, Any] = _wire(_card_map)


@_kind("card_msg", "host")
@_message
class CardMsg(Message):
    """A player's card, relayed by the host (or a bot's card, made by the host)."""

    seat: int = _wire(_seat)
    card: dict[str, Any] = _wire(_card_map)


def _masked_map(value: Any) -> dict[str, Any]:
    """One masked-deck message in its plain form (kind ``k``; checked in full by the
    masked-deck layer, `rami_lan.masked.messages`)."""
    if type(value) is not dict:
        raise ValueError(f"expected a map, got {_show(value)}")
    check_plain(value)
    kind = value.get("k")
    if type(kind) is not str or kind not in MASKED_KINDS:
        raise ValueError(f"unknown masked-deck message kind {_show(kind)}")
    return value


@_kind("masked", "client", "host")
@_message
class Masked(Message):
    """Private dealing: one masked-deck message (docs/masked_deck.md), relayed by the
    host to the seat it is for (``mk_key``) or to every other participant."""

    m: dict[str, Any] = _wire(_masked_map)


@_kind("ping", "client", "host")
@_message
class Ping(Message):
    """Liveness check; answer with ``pong`` carrying the same ``n``."""

    n: int = _wire(_uint)


@_kind("pong", "client", "host")
@_message
class Pong(Message):
    """Answer to ``ping``."""

    n: int = _wire(_uint)


@_kind("bye", "client", "host")
@_message
class Bye(Message):
    """The sender sends nothing more and is about to close the connection."""

    reason: str | None = _wire(_text(1, MAX_CHAT), default=None)


@_kind("pake", "client", "host")
@_message
class Pake(Message):
    """Join-code exchange: one SPAKE2 message (the host's first, then the client's)."""

    msg: bytes = _wire(_pake_msg)


@_kind("pake_confirm", "client", "host")
@_message
class PakeConfirm(Message):
    """Join-code exchange: HMAC over the sender's role and the certificate fingerprint it sees."""

    mac: bytes = _wire(_pake_mac)


# --------------------------------------------------------------------------- session


def _printable_clip(text: str, limit: int) -> str:
    text = "".join(ch if ch.isprintable() else "?" for ch in text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Session:
    """One end of a host-client connection, without I/O.

    Feed every byte read from the socket to :meth:`receive_data`; write every byte string
    returned by :meth:`send`. ``max_frame`` caps the body of one frame, both ways.
    """

    def __init__(self, role: Role, *, max_frame: int = MAX_FRAME) -> None:
        if role not in ("host", "client"):
            raise ValueError(f"role must be 'host' or 'client', not {role!r}")
        if type(max_frame) is not int or not 1 <= max_frame <= 0xFFFFFFFF:
            raise ValueError(f"max_frame must be an int in 1..2**32-1, not {max_frame!r}")
        self._role: Role = role
        self._peer: Role = "client" if role == "host" else "host"
        self._max_frame = max_frame
        self._buffer = bytearray()
        self._hello_done = False  # hello sent (client) or received (host)
        self._established = False  # welcome received (client) or sent (host)
        self._local_closed = False  # we sent bye; or refused went either way
        self._remote_closed = False  # the peer sent bye; or refused went either way
        self._error: RemoteProtocolError | None = None
        self._pake_sent: set[Role] = set()  # who sent its ``pake``
        self._confirm_sent: set[Role] = set()  # who sent its ``pake_confirm``

    @property
    def role(self) -> Role:
        return self._role

    @property
    def max_frame(self) -> int:
        return self._max_frame

    @property
    def established(self) -> bool:
        """True once ``welcome`` went through."""
        return self._established

    @property
    def local_closed(self) -> bool:
        """True once we may send nothing more (we sent ``bye``, or ``refused`` went by)."""
        return self._local_closed

    @property
    def remote_closed(self) -> bool:
        """True once the peer may send nothing more (it sent ``bye``, or ``refused`` went by)."""
        return self._remote_closed

    @property
    def pake_started(self) -> bool:
        """True once the host sent its ``pake`` (the table has a join code)."""
        return "host" in self._pake_sent

    @property
    def pake_complete(self) -> bool:
        """True once both ``pake_confirm`` messages went through (in order).

        The session checks the order only: whether the confirmations *match* is decided
        by ``rami_lan.net.pake`` (``check_confirmation``), which the caller must run.
        """
        return self._confirm_sent == {"host", "client"}

    @property
    def error(self) -> RemoteProtocolError | None:
        """The remote error that stopped this session from receiving, if any."""
        return self._error

    # ---- receiving

    def receive_data(self, data: bytes) -> list[Message]:
        """Buffer ``data`` and return every complete, valid message it finishes, in order.

        Raises :class:`RemoteProtocolError` on the first invalid frame (its ``received``
        lists the valid messages before it); the session then accepts no more data.
        """
        if self._error is not None:
            raise RemoteProtocolError(
                self._error.code, f"session already failed: {self._error.message}"
            )
        buffer = self._buffer
        buffer += data
        received: list[Message] = []
        pos = 0
        try:
            while pos < len(buffer):
                if self._remote_closed:
                    raise RemoteProtocolError("unexpected", "data after the peer closed")
                if len(buffer) - pos < _HEADER.size:
                    break
                (length,) = _HEADER.unpack_from(buffer, pos)
                if length == 0:
                    raise RemoteProtocolError("bad_frame", "zero-length frame")
                if length > self._max_frame:
                    raise RemoteProtocolError(
                        "frame_too_large", f"frame of {length} bytes, limit {self._max_frame}"
                    )
                start = pos + _HEADER.size
                if len(buffer) - start < length:
                    break
                pos = start + length
                received.append(self._accept(buffer[start:pos]))
        except RemoteProtocolError as exc:
            self._error = exc
            self._buffer = bytearray()
            exc.received = received
            raise
        del buffer[:pos]
        return received

    def _accept(self, body: bytearray) -> Message:
        try:
            wire = msgpack.unpackb(
                body,
                raw=False,
                strict_map_key=True,
                use_list=True,
                max_bin_len=self._max_frame,
                max_str_len=self._max_frame,
                max_array_len=MAX_ITEMS,
                max_map_len=MAX_ITEMS,
                max_ext_len=0,
            )
        except Exception as exc:  # untrusted input: any decoder failure is the peer's
            raise RemoteProtocolError("bad_msgpack", f"undecodable body: {exc}") from None
        if type(wire) is not dict:
            raise RemoteProtocolError("bad_message", f"a message is a map, got {_show(wire)}")
        kind = wire.get("k")
        if type(kind) is not str:
            raise RemoteProtocolError("bad_message", f"'k' must be a str, got {_show(kind)}")
        cls = KINDS.get(kind)
        if cls is None:
            raise RemoteProtocolError("unknown_kind", f"unknown message kind {_show(kind)}")
        problem = self._order_problem(self._peer, kind)
        if problem:
            raise RemoteProtocolError("unexpected", problem)
        if cls is Hello or cls is Welcome:
            # Before the strict schema: a newer peer may have other fields.
            version = wire.get("v")
            if type(version) is int and version != PROTOCOL_VERSION:
                raise RemoteProtocolError(
                    "bad_version", f"protocol version {version}, we speak {PROTOCOL_VERSION}"
                )
        message = cls.from_wire(wire)
        self._advance(kind, self._peer)
        return message

    # ---- sending

    def send(self, message: Message, *, validate: bool = True) -> bytes:
        """Validate our own ``message`` and return its frame (prefix and body).

        Raises :class:`LocalProtocolError` if the message is invalid or not allowed now;
        the session state is then unchanged.

        ``validate=False`` skips the full self-check (re-decoding the message with its
        schema and comparing), which doubles the cost of a big message. It is meant for
        the host's hot path only, for ``view`` and ``events`` built by the rules core's own
        encoders; the order rules, the message type and the frame cap are still checked.
        """
        cls = type(message)
        if KINDS.get(getattr(cls, "KIND", "")) is not cls:
            raise LocalProtocolError(f"not a protocol message: {_show(message)}")
        kind = cls.KIND
        if self._local_closed:
            raise LocalProtocolError(f"cannot send {kind!r}: this side is closed")
        if self._error is not None and kind not in _FAREWELL:
            raise LocalProtocolError(
                f"cannot send {kind!r} after a remote error, only error, refused or bye"
            )
        problem = self._order_problem(self._role, kind)
        if problem:
            raise LocalProtocolError(problem)
        if isinstance(message, Hello | Welcome) and message.v != PROTOCOL_VERSION:
            raise LocalProtocolError(f"we speak protocol version {PROTOCOL_VERSION}")
        wire = message.to_wire()
        if validate:
            try:
                parsed = cls.from_wire(wire)
            except RemoteProtocolError as exc:
                raise LocalProtocolError(f"invalid {kind!r}: {exc.message}") from None
            if parsed != message:
                raise LocalProtocolError(
                    f"{kind!r} would change on the way (a field has a non-wire type): "
                    f"{_show(message)}"
                )
        try:
            body = msgpack.packb(wire, use_bin_type=True)
        except (TypeError, ValueError, OverflowError) as exc:
            raise LocalProtocolError(f"{kind!r} does not encode: {exc}") from None
        if len(body) > self._max_frame:
            raise LocalProtocolError(
                f"{kind!r} is {len(body)} bytes, over the frame limit {self._max_frame}"
            )
        self._advance(kind, self._role)
        return _HEADER.pack(len(body)) + body

    def error_reply(self, exc: RemoteProtocolError) -> Message | None:
        """The message to send the peer before closing after ``exc``, or None if none can be.

        The host answers ``refused`` before the handshake is done (``bad_version`` or
        ``protocol_error``) and ``error`` with the same code after; a client says ``bye``.
        """
        text = _printable_clip(exc.message, MAX_MESSAGE)
        if self._local_closed:
            return None
        if self._role == "client":
            if not self._hello_done:
                return None
            return Bye(reason=_printable_clip(f"{exc.code}: {exc.message}", MAX_CHAT))
        if self._established:
            return Error(code=exc.code, message=text)
        code = "bad_version" if exc.code == "bad_version" else "protocol_error"
        return Refused(code=code, message=text)

    # ---- state machine

    def _order_problem(self, sender: Role, kind: str) -> str | None:
        """Why ``sender`` may not send ``kind`` now, or None if it may."""
        if sender not in KINDS[kind].SENDERS:
            return f"a {sender} may not send {kind!r}"
        if kind == "refused" and not self._established:
            return None  # a host may refuse at any point of the handshake
        if not self._hello_done:
            return f"{kind!r} before hello" if kind != "hello" else None
        if not self._established:
            if kind in PAKE_KINDS:
                return self._pake_problem(sender, kind)
            allowed = "bye" if sender == "client" else "welcome"
            if kind != allowed:
                return f"{kind!r} before the handshake is done"
            if kind == "welcome" and self._pake_sent and "host" not in self._confirm_sent:
                return "'welcome' before the join-code exchange is confirmed"
            return None
        if kind in ("hello", "welcome", "refused") or kind in PAKE_KINDS:
            return f"{kind!r} after the handshake"
        return None

    def _pake_problem(self, sender: Role, kind: str) -> str | None:
        """Order of the join-code exchange: host ``pake``, client ``pake``, client
        ``pake_confirm``, host ``pake_confirm``; each at most once."""
        if kind == "pake":
            if sender in self._pake_sent:
                return f"a second 'pake' from the {sender}"
            if sender == "client" and "host" not in self._pake_sent:
                return "'pake' from the client before the host's"
            return None
        if sender in self._confirm_sent:
            return f"a second 'pake_confirm' from the {sender}"
        if self._pake_sent != {"host", "client"}:
            return "'pake_confirm' before both 'pake' messages"
        if sender == "host" and "client" not in self._confirm_sent:
            return "the host's 'pake_confirm' before the client's"
        return None

    def _advance(self, kind: str, sender: Role) -> None:
        if kind == "hello":
            self._hello_done = True
        elif kind == "welcome":
            self._established = True
        elif kind == "pake":
            self._pake_sent.add(sender)
        elif kind == "pake_confirm":
            self._confirm_sent.add(sender)
        elif kind == "refused":
            self._local_closed = self._remote_closed = True
        elif kind == "bye":
            if sender == self._role:
                self._local_closed = True
            else:
                self._remote_closed = True
