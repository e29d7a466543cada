"""Messages of the masked deck and their strict plain forms (msgpack-friendly).

Every message is a frozen dataclass. ``to_plain()`` gives a dict of ints, bytes, None
and lists, with ``"k"`` the message kind; :func:`from_plain` parses such a dict
strictly: exactly the expected keys, exact types, sizes and ranges, every point checked
to be a prime-order group point and every scalar canonical and non-zero. Anything
else raises :class:`MessageError`, which says what was wrong.

| kind | message | sent to |
|---|---|---|
| ``mk_mask`` | :class:`MaskPass` one participant's mask-pass output | everyone |
| ``mk_lock`` | :class:`LockPass` lock-pass output and key commitments | everyone |
| ``mk_key`` | :class:`KeyRelease` one position key | the drawer only (``to``), or everyone (``to=None``) |
| ``mk_reveal`` | :class:`CardReveal` every key of a position, by its holder | everyone |
| ``mk_handover`` | :class:`Handover` a leaving participant's stock keys | everyone |
| ``mk_audit`` | :class:`AuditPublication` round keys, permutations, position keys | everyone |
| ``mk_protest`` | :class:`Protest` the host's receipts against a void naming its author | everyone |

Every message may carry its author's signature ``sig`` (`rami_lan.masked.signing`).

``seat`` is always the author. The relay (the host) must check that a client's
message names that client's own seat.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Self

from rami_lan.masked import kinds as MK
from rami_lan.masked.deck import MAX_DECK
from rami_lan.masked.group import POINT_SIZE, GroupError, are_points, check_point, check_scalar
from rami_lan.masked.signing import SIG_SIZE, Receipt, SignatureError

__all__ = [
    "AuditPublication",
    "CardReveal",
    "DeckSecretsRecord",
    "HandGift",
    "Handover",
    "KeyRelease",
    "LockPass",
    "MaskPass",
    "MaskedMessage",
    "MessageError",
    "Protest",
    "SentRecord",
    "from_plain",
]

_MAX_SEAT = 255
_MAX_U32 = 2**32 - 1
#: Most decks in one round (the round's deck and its reshuffles).
MAX_DECKS = 64
#: Most release/reveal records one participant may list in its audit.
MAX_SENT = 16 * MAX_DECK
COMMITMENT_SIZE = 32


class MessageError(ValueError):
    """A received plain form is not a valid masked-deck message."""


# --------------------------------------------------------------------------- field checks


def _int(name: str, value: object, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise MessageError(f"{name} must be an int in {low} .. {high}, got {value!r}")
    return value


def _seat(name: str, value: object) -> int:
    return _int(name, value, 0, _MAX_SEAT)


def _deck(value: object) -> int:
    return _int("deck", value, 0, _MAX_U32)


def _position(value: object) -> int:
    return _int("position", value, 0, MAX_DECK - 1)


def _list(name: str, value: object, low: int, high: int) -> list[Any]:
    if not isinstance(value, list | tuple) or not low <= len(value) <= high:
        raise MessageError(f"{name} must be a list of {low} .. {high} items")
    return list(value)


def _point(name: str, value: object) -> bytes:
    try:
        return check_point(value, name)
    except GroupError as exc:
        raise MessageError(str(exc)) from None


def _scalar(name: str, value: object) -> bytes:
    try:
        return check_scalar(value, name)
    except GroupError as exc:
        raise MessageError(str(exc)) from None


def _digest(name: str, value: object) -> bytes:
    if not isinstance(value, bytes) or len(value) != COMMITMENT_SIZE:
        raise MessageError(f"{name} must be {COMMITMENT_SIZE} bytes")
    return value


def _permutation(value: object) -> tuple[int, ...]:
    perm = _list("permutation", value, 1, MAX_DECK)
    n = len(perm)
    permutation = tuple(_int("permutation entry", i, 0, n - 1) for i in perm)
    if len(set(permutation)) != n:
        raise MessageError("the permutation lists a position twice")
    return permutation


def _points(value: object, check: bool) -> tuple[bytes, ...]:
    items = _list("points", value, 1, MAX_DECK)
    for j, p in enumerate(items):  # the shape only: group membership is checked where used
        if not isinstance(p, bytes) or len(p) != POINT_SIZE:
            raise MessageError(f"point {j} must be exactly {POINT_SIZE} bytes")
    if check:
        for j, ok in enumerate(are_points(items)):
            if not ok:
                _point(f"point {j}", items[j])  # raises, saying what is wrong with it
    return tuple(items)


def _keys(plain: dict[str, Any], expected: set[str]) -> None:
    if set(plain) != expected:
        missing = sorted(expected - set(plain))
        extra = sorted(str(k) for k in set(plain) - expected)
        raise MessageError(f"fields missing {missing} or unexpected {extra}")


def _stamp(plain: dict[str, Any], expected: set[str]) -> tuple[bytes, int | None]:
    """Check a message's fields (``expected``, and the optional stamp ``tag``/``n``) and
    return its stamp: the round tag it belongs to (b"": none) and its author's sequence
    number in that round (None: none). See `MaskedMessage`."""
    _keys(plain, expected | (_STAMP_FIELDS & set(plain)))
    tag = plain.get("tag", b"")
    if "tag" in plain and (not isinstance(tag, bytes) or not 1 <= len(tag) <= 255):
        raise MessageError("tag must be the round tag: 1 .. 255 bytes")
    n = plain.get("n")
    return tag, None if n is None else _int("n", n, 0, _MAX_U32)


def _stamped(msg: Any, plain: dict[str, Any]) -> dict[str, Any]:
    """``plain`` with ``msg``'s stamp (only the parts it has: unstamped forms are unchanged)."""
    if msg.tag:
        plain["tag"] = msg.tag
    if msg.n is not None:
        plain["n"] = msg.n
    if msg.sig:
        plain["sig"] = msg.sig
    return plain


_STAMP_FIELDS = frozenset({"tag", "n", "sig"})
"""Optional fields of every message: its stamp and its author's signature (`rami_lan.masked.signing`)."""

# --------------------------------------------------------------------------- messages


class MaskedMessage:
    """Base of every masked-deck message (``KIND`` is its wire kind).

    Every message may carry a **stamp** (optional fields, so forms without it still
    parse): ``tag``, the round tag it belongs to, and ``n``, its author's sequence number
    in that round on its channel (0, 1, ...; one count for the messages to everyone, one
    per single recipient: a key for one seat, a hand gift for the relay). A participant
    (`rami_lan.masked.session.Participant`) stamps all it sends and refuses a stamped
    message of another round, or one whose number is not above the last it took from
    that author on that channel (gaps are allowed): a late or replayed message is
    refused, never taken as the next round's or as a new step.
    """

    KIND: ClassVar[str] = ""
    seat: int
    tag: bytes
    n: int | None
    sig: bytes

    def to_plain(self) -> dict[str, Any]:
        """The plain form: the kind ``k``, the message's own fields, then its stamp."""
        return _stamped(self, {"k": self.KIND, **self._plain_fields()})

    def _plain_fields(self) -> dict[str, Any]:  # pragma: no cover - overridden
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class MaskPass(MaskedMessage):
    """Mask-pass output of ``seat`` for deck ``deck``: ``D_i``."""

    KIND: ClassVar[str] = MK.MASK
    deck: int
    seat: int
    points: tuple[bytes, ...]
    tag: bytes = b""
    n: int | None = None
    sig: bytes = b""

    def _plain_fields(self) -> dict[str, Any]:
        return {"deck": self.deck, "seat": self.seat, "points": list(self.points)}

    @classmethod
    def parse(cls, plain: dict[str, Any], check_points: bool = True) -> MaskPass:
        tag, n = _stamp(plain, {"k", "deck", "seat", "points"})
        return cls(_deck(plain["deck"]), _seat("seat", plain["seat"]), _points(plain["points"], check_points),
                   tag, n)


@dataclass(frozen=True, slots=True)
class LockPass(MaskedMessage):
    """Lock-pass output of ``seat``: ``E_i`` and a commitment to each position key."""

    KIND: ClassVar[str] = MK.LOCK
    deck: int
    seat: int
    points: tuple[bytes, ...]
    commitments: tuple[bytes, ...]
    tag: bytes = b""
    n: int | None = None
    sig: bytes = b""

    def _plain_fields(self) -> dict[str, Any]:
        return {"deck": self.deck, "seat": self.seat, "points": list(self.points),
                "commits": list(self.commitments)}

    @classmethod
    def parse(cls, plain: dict[str, Any], check_points: bool = True) -> LockPass:
        tag, n = _stamp(plain, {"k", "deck", "seat", "points", "commits"})
        points = _points(plain["points"], check_points)
        commits = _list("commits", plain["commits"], len(points), len(points))
        return cls(
            _deck(plain["deck"]),
            _seat("seat", plain["seat"]),
            points,
            tuple(_digest(f"commitment {j}", c) for j, c in enumerate(commits)),
            tag, n,
        )


@dataclass(frozen=True, slots=True)
class KeyRelease(MaskedMessage):
    """``seat``'s key for ``position`` of ``deck``, for seat ``to`` only (None: everyone)."""

    KIND: ClassVar[str] = MK.KEY
    deck: int
    seat: int
    to: int | None
    position: int
    key: bytes
    tag: bytes = b""
    n: int | None = None
    sig: bytes = b""

    def _plain_fields(self) -> dict[str, Any]:
        return {"deck": self.deck, "seat": self.seat, "to": self.to, "pos": self.position, "key": self.key}

    @classmethod
    def parse(cls, plain: dict[str, Any]) -> KeyRelease:
        tag, n = _stamp(plain, {"k", "deck", "seat", "to", "pos", "key"})
        to = None if plain["to"] is None else _seat("to", plain["to"])
        return cls(
            _deck(plain["deck"]),
            _seat("seat", plain["seat"]),
            to,
            _position(plain["pos"]),
            _scalar("key", plain["key"]),
            tag, n,
        )


@dataclass(frozen=True, slots=True)
class _PositionKeys(MaskedMessage):
    """``seat`` sends every participant's key for ``position`` of ``deck``."""

    deck: int
    seat: int
    position: int
    keys: tuple[tuple[int, bytes], ...]
    tag: bytes = b""
    n: int | None = None
    sig: bytes = b""

    def _plain_fields(self) -> dict[str, Any]:
        return {"deck": self.deck, "seat": self.seat, "pos": self.position,
                "keys": [[s, key] for s, key in self.keys]}

    @classmethod
    def parse(cls, plain: dict[str, Any]) -> Self:
        tag, n = _stamp(plain, {"k", "deck", "seat", "pos", "keys"})
        pairs = []
        for item in _list("keys", plain["keys"], 1, _MAX_SEAT + 1):
            pair = _list("key pair", item, 2, 2)
            pairs.append((_seat("key seat", pair[0]), _scalar("key", pair[1])))
        if len({s for s, _ in pairs}) != len(pairs):
            raise MessageError("a seat's key is listed twice")
        return cls(_deck(plain["deck"]), _seat("seat", plain["seat"]), _position(plain["pos"]), tuple(pairs),
                   tag, n)


@dataclass(frozen=True, slots=True)
class CardReveal(_PositionKeys):
    """The holder ``seat`` makes ``position`` public: every participant's key for it."""

    KIND: ClassVar[str] = MK.REVEAL


@dataclass(frozen=True, slots=True)
class HandGift(_PositionKeys):
    """A leaving participant gives the relay one card of its hand: every key of ``position``.

    Sent to the relay only, before the hand-over: the relay's seat now holds that card
    (its player's seat is played by the host from then on). Same fields as a reveal.
    """

    KIND: ClassVar[str] = MK.GIVE


@dataclass(frozen=True, slots=True)
class Handover(MaskedMessage):
    """A leaving participant's keys for the positions still in the stock.

    ``decks`` holds, for every deck it shuffled, its round key and permutation (never
    a position key of a hand), so that the audit still checks its steps.
    """

    KIND: ClassVar[str] = MK.HANDOVER
    seat: int
    keys: tuple[tuple[int, int, bytes], ...]
    decks: tuple[tuple[int, bytes, tuple[int, ...]], ...] = ()
    tag: bytes = b""
    n: int | None = None
    sig: bytes = b""

    def _plain_fields(self) -> dict[str, Any]:
        return {"seat": self.seat, "keys": [[d, p, key] for d, p, key in self.keys],
                "decks": [[d, key, list(perm)] for d, key, perm in self.decks]}

    @classmethod
    def parse(cls, plain: dict[str, Any]) -> Handover:
        tag, n = _stamp(plain, {"k", "seat", "keys", "decks"})
        entries = []
        for item in _list("keys", plain["keys"], 0, MAX_DECKS * MAX_DECK):
            triple = _list("hand-over entry", item, 3, 3)
            entries.append((_deck(triple[0]), _position(triple[1]), _scalar("key", triple[2])))
        if len({(d, p) for d, p, _ in entries}) != len(entries):
            raise MessageError("a position is handed over twice")
        decks = []
        for item in _list("decks", plain["decks"], 0, MAX_DECKS):
            triple = _list("hand-over deck", item, 3, 3)
            decks.append((_deck(triple[0]), _scalar("round key", triple[1]), _permutation(triple[2])))
        if len({d for d, _, _ in decks}) != len(decks):
            raise MessageError("a deck is handed over twice")
        return cls(_seat("seat", plain["seat"]), tuple(entries), tuple(decks), tag, n)


@dataclass(frozen=True, slots=True)
class DeckSecretsRecord:
    """One deck's secrets as published at the audit."""

    deck: int
    round_key: bytes
    permutation: tuple[int, ...]
    position_keys: tuple[bytes, ...]

    def to_plain(self) -> list[Any]:
        return [self.deck, self.round_key, list(self.permutation), list(self.position_keys)]

    @classmethod
    def parse(cls, value: object) -> DeckSecretsRecord:
        items = _list("deck secrets", value, 4, 4)
        permutation = _permutation(items[2])
        n = len(permutation)
        keys = _list("position keys", items[3], n, n)
        return cls(
            _deck(items[0]),
            _scalar("round key", items[1]),
            permutation,
            tuple(_scalar(f"position key {j}", k) for j, k in enumerate(keys)),
        )


@dataclass(frozen=True, slots=True)
class SentRecord:
    """One key message a participant says it sent: its kind, deck, position, recipient."""

    kind: str
    deck: int
    position: int
    to: int | None

    def to_plain(self) -> list[Any]:
        return [self.kind, self.deck, self.position, self.to]

    @classmethod
    def parse(cls, value: object) -> SentRecord:
        items = _list("sent record", value, 4, 4)
        if items[0] not in (KeyRelease.KIND, CardReveal.KIND, HandGift.KIND):
            raise MessageError(f"sent record kind {items[0]!r} is not {KeyRelease.KIND}, "
                               f"{CardReveal.KIND} or {HandGift.KIND}")
        to = None if items[3] is None else _seat("to", items[3])
        return cls(items[0], _deck(items[1]), _position(items[2]), to)


@dataclass(frozen=True, slots=True)
class AuditPublication(MaskedMessage):
    """Round end: ``seat``'s secrets for every deck, and the key messages it sent."""

    KIND: ClassVar[str] = MK.AUDIT
    seat: int
    decks: tuple[DeckSecretsRecord, ...]
    sent: tuple[SentRecord, ...]
    tag: bytes = b""
    """The round tag it is the audit of: a late audit is never taken as another round's."""
    n: int | None = None
    receipts: tuple[Receipt, ...] = ()
    """The host's receipts for the key messages of ``sent`` (`rami_lan.masked.signing`)."""
    sig: bytes = b""

    def to_plain(self) -> dict[str, Any]:
        plain = {
            "k": self.KIND,
            "seat": self.seat,
            "tag": self.tag,
            "decks": [d.to_plain() for d in self.decks],
            "sent": [s.to_plain() for s in self.sent],
        }
        if self.n is not None:
            plain["n"] = self.n
        if self.receipts:
            plain["rcpt"] = [r.to_plain() for r in self.receipts]
        if self.sig:
            plain["sig"] = self.sig
        return plain

    @classmethod
    def parse(cls, plain: dict[str, Any]) -> AuditPublication:
        # (a record written before audits carried their tag holds none: it still parses,
        # and a participant refuses an audit whose tag is not its round's)
        tag, n = _stamp(plain, {"k", "seat", "decks", "sent"} | ({"rcpt"} & set(plain)))
        decks = tuple(DeckSecretsRecord.parse(d) for d in _list("decks", plain["decks"], 0, MAX_DECKS))
        if len({d.deck for d in decks}) != len(decks):
            raise MessageError("a deck's secrets are listed twice")
        sent = tuple(SentRecord.parse(s) for s in _list("sent", plain["sent"], 0, MAX_SENT))
        try:
            receipts = tuple(Receipt.parse(r) for r in _list("rcpt", plain.get("rcpt", []), 0, MAX_SENT))
        except SignatureError as exc:
            raise MessageError(str(exc)) from None
        return cls(_seat("seat", plain["seat"]), decks, sent, tag, n, receipts)


@dataclass(frozen=True, slots=True)
class Protest(MaskedMessage):
    """A void round names ``seat`` for a message it did not send; ``seat`` shows the
    host's receipts for every message it sent (and none of its secrets): the host's
    own signatures against its word (`rami_lan.masked.signing`)."""

    KIND: ClassVar[str] = MK.PROTEST
    seat: int
    receipts: tuple[Receipt, ...] = ()
    tag: bytes = b""
    n: int | None = None
    sig: bytes = b""

    def _plain_fields(self) -> dict[str, Any]:
        return {"seat": self.seat, "rcpt": [r.to_plain() for r in self.receipts]}

    @classmethod
    def parse(cls, plain: dict[str, Any]) -> Protest:
        tag, n = _stamp(plain, {"k", "seat", "rcpt"})
        try:
            receipts = tuple(Receipt.parse(r) for r in _list("rcpt", plain["rcpt"], 0, MAX_SENT))
        except SignatureError as exc:
            raise MessageError(str(exc)) from None
        return cls(_seat("seat", plain["seat"]), receipts, tag, n)


_PARSERS: dict[str, Callable[[dict[str, Any]], MaskedMessage]] = {
    MaskPass.KIND: MaskPass.parse,
    LockPass.KIND: LockPass.parse,
    KeyRelease.KIND: KeyRelease.parse,
    CardReveal.KIND: CardReveal.parse,
    HandGift.KIND: HandGift.parse,
    Handover.KIND: Handover.parse,
    AuditPublication.KIND: AuditPublication.parse,
    Protest.KIND: Protest.parse,
}

#: The wire kinds of this module.
KINDS = frozenset(_PARSERS)


def from_plain(plain: object, *, check_points: bool = True) -> MaskedMessage:
    """Parse a received plain form strictly; raise :class:`MessageError` if invalid.

    ``check_points=False`` checks a shuffle output's points for shape only (32 bytes
    each), not for group membership: a participant that does not multiply them leaves
    that to whoever does (libsodium refuses a bad point in every multiplication) and to
    the relay, which checks every output it relays (see ``docs/fair_shuffle.md``).
    """
    if not isinstance(plain, dict):
        raise MessageError("a message must be a map")
    kind = plain.get("k")
    parser = _PARSERS.get(kind) if isinstance(kind, str) else None
    if parser is None:
        raise MessageError(f"unknown message kind {kind!r}")
    if kind == MaskPass.KIND:
        msg: MaskedMessage = MaskPass.parse(plain, check_points)
    elif kind == LockPass.KIND:
        msg = LockPass.parse(plain, check_points)
    else:
        msg = parser(plain)
    sig = plain.get("sig")
    if sig is None:
        return msg
    if not isinstance(sig, bytes) or len(sig) != SIG_SIZE:
        raise MessageError(f"sig must be a {SIG_SIZE}-byte signature")
    return replace(msg, sig=sig)  # type: ignore[type-var]
