"""The message catalogue of the wire protocol: its errors, :class:`Message`, one frozen
dataclass per kind, and :data:`KINDS` (once in :mod:`rami_lan.net.protocol`, which still re-exports every
name).

Each field names its check (:mod:`rami_lan.wire.checks`); ``docs/protocol.md``'s message
table is generated from these classes (:mod:`rami_lan.net.schema_doc`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, ClassVar, TypeVar

from rami_lan.wire.checks import (
    LANGS,
    MAX_CHAT,
    MAX_CODE,
    MAX_ERROR_TEXT,
    MAX_MESSAGE,
    MAX_RETRY_MS,
    NEXT_ROUND_CHOICES,
    PROTOCOL_VERSION,
    REFUSED_CODES,
    Role,
    _bool,
    _bytes16,
    _bytes32,
    _card_map,
    _choice,
    _ident,
    _int_in,
    _invitation_id,
    _masked_map,
    _nick,
    _pake_mac,
    _pake_msg,
    _participant,
    _plain_map,
    _plain_maps,
    _reason_map,
    _round_tag,
    _seat,
    _seat_bytes_map,
    _seat_bytes_map_to_wire,
    _seat_list,
    _seat_reasons,
    _show,
    _Spec,
    _text,
    _uint,
    _wire,
)

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
    reason: dict[str, Any] | None = _wire(_reason_map, default=None)
    """Optional (``illegal``): why, as a code and its data (`rami_lan.core.reasons`);
    ``message`` is its English. An older host sends none: the client shows ``message``."""


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
