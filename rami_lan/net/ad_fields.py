"""Validation of DNS-SD ad fields and of received TXT records, shared by table discovery,
player presence and invitations (split out of :mod:`rami_lan.net.mdns`, which re-exports
every name it had).

Anyone on the LAN can publish records of our types, so received data is never trusted:
each check raises ``ValueError`` saying what is wrong, and :func:`instance_name` makes a
display text safe as a DNS-SD instance name.
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any, Final

MAX_FINGERPRINT_CHARS: Final = 128
MAX_TXT_ITEM_BYTES: Final = 255
"""One TXT string (``key=value``) is length-prefixed by a single byte (RFC 6763 6.1)."""
MAX_INSTANCE_BYTES: Final = 63
SHORT_ID_LEN: Final = 6
"""The hex digits of an id an instance name ends with (`instance_name`'s ``short_id``)."""
MAX_NICK_BYTES: Final = 96
"""A nickname is at most 24 characters (protocol), so at most 96 UTF-8 bytes."""
MAX_NICK_CHARS: Final = 24

TABLE_ID_RE: Final = re.compile(r"[0-9a-f]{8,32}")
ID32_RE: Final = re.compile(r"[0-9a-f]{32}")
FINGERPRINT_RE: Final = re.compile(r"(?:[0-9a-f]{64})?")
_LOOSE_FINGERPRINT_RE: Final = re.compile(r"[A-Za-z0-9:+/=_.-]*")
# Plain ASCII decimal, no sign, no leading zero, no "_" (int() accepts all of those).
_DECIMAL_RE: Final = re.compile(r"0|[1-9][0-9]{0,5}")
# Bidirectional controls can make a name display as something else in a terminal.
_BIDI_CONTROLS: Final = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
_BAD_CATEGORIES: Final = frozenset({"Cc", "Cs", "Zl", "Zp"})


# --------------------------------------------------------------------------- values


def is_unsafe_char(ch: str) -> bool:
    """Not allowed in advertised text: anything but the ASCII space that Python does
    not call printable (controls, format characters such as zero-width and bidi marks,
    separators other than the space, unassigned code points), as in the protocol's
    "printable text"."""
    return ch != " " and (
        ch in _BIDI_CONTROLS or unicodedata.category(ch) in _BAD_CATEGORIES or not ch.isprintable()
    )


def check_text(field: str, value: object, max_bytes: int) -> None:
    if not isinstance(value, str):
        raise ValueError(f"{field} must be a str, got {type(value).__name__}")
    if not value.strip():
        raise ValueError(f"{field} must not be blank")
    if value != value.strip():
        raise ValueError(f"{field} must not start or end with whitespace")
    if any(is_unsafe_char(ch) for ch in value):
        raise ValueError(f"{field} contains a control, format or other non-printable character")
    if len(value.encode("utf-8")) > max_bytes:
        raise ValueError(f"{field} is longer than {max_bytes} UTF-8 bytes")


def check_int(field: str, value: object, low: int, high: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{field} must be an int, got {type(value).__name__}")
    if not low <= value <= high:
        raise ValueError(f"{field}={value} is outside {low}..{high}")


def check_bool(field: str, value: object) -> None:
    if not isinstance(value, bool):
        raise ValueError(f"{field} must be a bool, got {type(value).__name__}")


def check_table_id(value: object, message: str = "table_id must be 8 to 32 lowercase hex digits") -> None:
    if not isinstance(value, str) or not TABLE_ID_RE.fullmatch(value):
        raise ValueError(message)


def check_id32(field: str, value: object) -> None:
    """A player, invitation or ticket id: 32 lowercase hex digits."""
    if not isinstance(value, str) or not ID32_RE.fullmatch(value):
        raise ValueError(f"{field} must be 32 lowercase hex digits")


def check_nick(value: object) -> None:
    """A player's nickname: printable text of at most 24 characters (96 UTF-8 bytes)."""
    check_text("nickname", value, MAX_NICK_BYTES)
    assert isinstance(value, str)
    if len(value) > MAX_NICK_CHARS:
        raise ValueError(f"nickname is longer than {MAX_NICK_CHARS} characters")


def check_fingerprint(value: object) -> None:
    """A TLS fingerprint as published in TXT ``fp``: empty, or 64 lowercase hex digits
    (the SHA-256 of the certificate's DER form)."""
    if (
        not isinstance(value, str)
        or len(value) > MAX_FINGERPRINT_CHARS
        or not FINGERPRINT_RE.fullmatch(value)
    ):
        raise ValueError("fingerprint must be empty or 64 lowercase hex digits")


def check_loose_fingerprint(value: object) -> None:
    """The older, looser rule (at most 128 chars of ``[A-Za-z0-9:+/=_.-]``), kept for
    invitations, which the UI layer still builds with display forms; TXT records use
    :func:`check_fingerprint`."""
    if (
        not isinstance(value, str)
        or len(value) > MAX_FINGERPRINT_CHARS
        or not _LOOSE_FINGERPRINT_RE.fullmatch(value)
    ):
        raise ValueError("fingerprint must be at most 128 chars of [A-Za-z0-9:+/=_.-]")


def normalize_address(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError(f"address must be a str, got {type(value).__name__}")
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        raise ValueError(f"not an IP address: {value!r}") from None


def check_endpoint(ad: Any) -> None:
    """Validate a frozen ad's ``addresses`` (normalized in place), ``port``, ``service_name``."""
    if isinstance(ad.addresses, str | bytes) or not isinstance(ad.addresses, Iterable):
        raise ValueError("addresses must be a sequence of IP address strings")
    object.__setattr__(ad, "addresses", tuple(normalize_address(a) for a in ad.addresses))
    if ad.port is not None:
        check_int("port", ad.port, 1, 65535)
    if not isinstance(ad.service_name, str):
        raise ValueError("service_name must be a str")


# --------------------------------------------------------------------------- TXT


def check_txt_sizes(txt: Mapping[str, str]) -> dict[str, str]:
    """Raise ValueError if a ``key=value`` item would not fit a TXT string; return ``txt``."""
    for key, value in txt.items():
        if len(key.encode("utf-8")) + 1 + len(value.encode("utf-8")) > MAX_TXT_ITEM_BYTES:
            raise ValueError(f"TXT item {key!r} is longer than {MAX_TXT_ITEM_BYTES} bytes")
    return dict(txt)


def decode_txt(props: Mapping[bytes, bytes | None], keys: Iterable[str]) -> dict[str, str]:
    """The UTF-8 values of the required ``keys`` of a received TXT record.

    Raises ValueError if ``props`` is not a mapping, or a key is missing, has no value,
    or has a value that is not bytes, too long or not UTF-8. Other keys are ignored
    (RFC 6763 6.4), so later versions may add keys.
    """
    if not isinstance(props, Mapping):
        raise ValueError("TXT properties must be a mapping")
    fields: dict[str, str] = {}
    for key in keys:
        raw = props.get(key.encode("ascii"))
        if raw is None:
            raise ValueError(f"TXT key {key!r} is missing or has no value")
        if not isinstance(raw, bytes):
            raise ValueError(f"TXT value for {key!r} is not bytes")
        if len(key) + 1 + len(raw) > MAX_TXT_ITEM_BYTES:
            raise ValueError(f"TXT item {key!r} is too long")
        try:
            fields[key] = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"TXT value for {key!r} is not UTF-8") from None
    return fields


def parse_int(key: str, text: str) -> int:
    if not _DECIMAL_RE.fullmatch(text):
        raise ValueError(f"TXT value for {key!r} is not a small decimal integer: {text!r}")
    return int(text)


def parse_bool(key: str, text: str) -> bool:
    if text == "1":
        return True
    if text == "0":
        return False
    raise ValueError(f"TXT value for {key!r} must be '0' or '1': {text!r}")


def instance_name(text: str, short_id: str, fallback: str) -> str:
    """DNS-SD instance name: ``text``, cleaned, plus ``" (<short id>)"``.

    At most 63 UTF-8 bytes, NFC, no dots, backslashes or control characters, so it
    displays as-is in ``avahi-browse`` / ``dns-sd -B``; ``fallback`` if nothing is left.
    """
    suffix = f" ({short_id})"
    text = unicodedata.normalize("NFC", text).replace(".", " ").replace("\\", " ")
    text = "".join(" " if is_unsafe_char(ch) else ch for ch in text)
    text = " ".join(text.split()).lstrip("_ ")
    budget = MAX_INSTANCE_BYTES - len(suffix.encode("utf-8"))
    encoded = text.encode("utf-8")
    if len(encoded) > budget:
        text = encoded[:budget].decode("utf-8", errors="ignore").rstrip()
    return (text or fallback) + suffix
