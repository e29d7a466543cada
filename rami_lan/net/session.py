"""The sans-I/O :class:`Session` of the wire protocol: framing, decoding and the handshake
order (split out of :mod:`rami_lan.net.protocol`, which re-exports every name; its docstring
is the theory of operation).
"""

from __future__ import annotations

import struct

import msgpack

from rami_lan.wire.checks import (
    MAX_CHAT,
    MAX_FRAME,
    MAX_ITEMS,
    MAX_MESSAGE,
    PAKE_KINDS,
    PROTOCOL_VERSION,
    Role,
    _show,
)
from rami_lan.wire.messages import (
    KINDS,
    Bye,
    Error,
    Hello,
    LocalProtocolError,
    Message,
    Refused,
    RemoteProtocolError,
    Welcome,
)

_HEADER = struct.Struct(">I")
_FAREWELL = frozenset({"error", "refused", "bye"})


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
