"""Field checks of the wire protocol: its limits and codes, the plain-data check and one
validator per field type (split out of :mod:`rami_lan.net.protocol`, which re-exports
every name).

Each check takes a wire value and returns the Python value, or raises ``ValueError``;
:func:`_wire` attaches one to a message field (:mod:`rami_lan.wire.messages`).
"""

from __future__ import annotations

import re
import reprlib
import struct
from collections.abc import Callable
from dataclasses import MISSING, field
from typing import Any, Final, Literal, NamedTuple

import msgpack

from rami_lan.ids import DEDICATED_HOST_SEAT, ROUND_TAG_PREFIX
from rami_lan.masked import kinds as MK
from rami_lan.masked.messages import KINDS as MASKED_MESSAGE_KINDS

Role = Literal["host", "client"]

PROTOCOL_VERSION: Final = 1
MAX_FRAME: Final = 256 * 1024
"""Default cap on a frame body, in bytes (the 4-byte prefix is not counted)."""
MAX_DEPTH: Final = 8
"""Default cap on container nesting in plain data (the outermost container counts 1)."""
MAX_ITEMS: Final = 16_384
"""Default cap on the number of values in one plain-data value, and on one array/map."""
MAX_SEATS: Final = 4
HOST_SEAT: Final = DEDICATED_HOST_SEAT
"""Seat number of a dedicated host that has no seat at the table (fair-shuffle spec)."""
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
MASKED_KINDS: Final = MASKED_MESSAGE_KINDS | MK.TABLE_KINDS
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
        "tournament",  # the address is a tournament's organiser (docs/tournament.md)
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

_PLAIN_INT_MIN = -(2**63)
_PLAIN_INT_MAX = 2**64 - 1


_short_repr = reprlib.Repr()
_short_repr.maxlevel = 2
_short_repr.maxstring = 40
_short_repr.maxlong = 40
_short_repr.maxother = 40


def _show(value: object) -> str:
    """A short, printable description of a (possibly hostile) value for error messages."""
    return _short_repr.repr(value)


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


MAX_REASON_DATA: Final = 8
"""Most data in one refusal reason (``error.reason``), nested ones counted apart."""
MAX_REASON_DEPTH: Final = 4
"""Deepest nesting of refusal reasons (a reason whose data holds a reason ...)."""
MAX_REASON_VALUES: Final = 32
"""Most values in one ``error.reason``, all levels together."""


def _reason_map(value: Any) -> dict[str, Any]:
    """A rules refusal's coded reason, ``{"code": ident, "data": {ident: int | text |
    reason}}`` (`rami_lan.core.reasons.Reason.to_plain`): the code an identifier, at most
    `MAX_REASON_DATA` data keyed by identifiers, each an int, a printable text of at most
    `MAX_MESSAGE` characters, or a nested reason, `MAX_REASON_DEPTH` deep at most,
    `MAX_REASON_VALUES` values in all."""
    budget = [MAX_REASON_VALUES]

    def check(item: Any, depth: int) -> None:
        if depth > MAX_REASON_DEPTH:
            raise ValueError(f"reasons nest at most {MAX_REASON_DEPTH} deep")
        if type(item) is not dict or set(item) != {"code", "data"}:
            raise ValueError(f"a reason is a map of code and data, got {_show(item)}")
        _ident(item["code"])
        data = item["data"]
        if type(data) is not dict:
            raise ValueError(f"a reason's data is a map, got {_show(data)}")
        if len(data) > MAX_REASON_DATA:
            raise ValueError(f"a reason has at most {MAX_REASON_DATA} data, got {len(data)}")
        for key, v in data.items():
            _ident(key)
            budget[0] -= 1
            if budget[0] < 0:
                raise ValueError(f"a reason holds at most {MAX_REASON_VALUES} values")
            if type(v) is int:
                if not _PLAIN_INT_MIN <= v <= MAX_UINT:
                    raise ValueError(f"reason datum {key} out of range")
            elif type(v) is str:
                _text(0, MAX_MESSAGE)(v)
            else:
                check(v, depth + 1)

    check(value, 1)
    return value


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
