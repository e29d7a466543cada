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

The code lives in three modules, all re-exported here (import from this one):
:mod:`rami_lan.wire.checks` (limits, codes, the plain-data check and the field checks),
:mod:`rami_lan.wire.messages` (the errors and the message catalogue) and :mod:`rami_lan.net.session`
(:class:`Session`). Of the private field checks, only those that other modules and tests
use from here are re-exported (``_bool``, ``_text``, ...: ``tests/net/test_module_split.py``
lists them); the other ones are imported from ``rami_lan.wire.checks``.
"""

from __future__ import annotations

from rami_lan.net.session import (
    _FAREWELL,
    _HEADER,
    Session,
    _printable_clip,
)
from rami_lan.wire.checks import (
    ERROR_CODES,
    HOST_SEAT,
    LANGS,
    MASKED_KINDS,
    MAX_CARD,
    MAX_CARD_DEPTH,
    MAX_CARD_ITEMS,
    MAX_CHAT,
    MAX_CODE,
    MAX_DEPTH,
    MAX_ERROR_TEXT,
    MAX_FRAME,
    MAX_ITEMS,
    MAX_MESSAGE,
    MAX_NICK,
    MAX_PAKE_MSG,
    MAX_REASON_DATA,
    MAX_REASON_DEPTH,
    MAX_REASON_VALUES,
    MAX_RETRY_MS,
    MAX_SEATS,
    MAX_UINT,
    NEXT_ROUND_CHOICES,
    PAKE_KINDS,
    PAKE_MAC_LEN,
    PROTOCOL_VERSION,
    REFUSED_CODES,
    ROUND_TAG_LEN,
    ROUND_TAG_PREFIX,
    Role,
    _bool,
    _bytes,
    _bytes_upto,
    _choice,
    _int_in,
    _nick,
    _plain_map,
    _plain_maps,
    _show,
    _Spec,
    _text,
    _uint,
    _wire,
    check_plain,
)

# ruff: noqa: F401  (this module re-exports the names of the three below)
from rami_lan.wire.messages import (
    KINDS,
    Action,
    Bye,
    Card,
    CardMsg,
    Chat,
    ChatMsg,
    Commit,
    Commitments,
    CommitRequest,
    Error,
    Events,
    Hello,
    Knock,
    LocalProtocolError,
    Masked,
    Message,
    NextRound,
    Pake,
    PakeConfirm,
    Ping,
    Pong,
    ProtocolError,
    Refused,
    RemoteProtocolError,
    Reveal,
    RoundSecrets,
    View,
    Welcome,
    _kind,
)

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
