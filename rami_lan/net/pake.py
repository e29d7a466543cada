"""Join codes as a password: SPAKE2 inside TLS, then key confirmation bound to the certificate.

Theory of operation
-------------------
A private table has a short join code that players tell each other. The code is never
sent: it is the password of a SPAKE2 exchange (the ``spake2`` package, as used by
magic-wormhole). Each side sends one SPAKE2 message; both derive the same key if and only
if they used the same code. Someone who only watches, or who plays one side without the
code, learns nothing that lets them test guesses offline: each run is one online guess.

The shared key alone does not stop a man in the middle who terminated TLS with its own
certificate and relays the SPAKE2 messages unchanged (both sides would agree on the key).
So each side then sends a *confirmation*::

    mac = HMAC-SHA256(k_confirm, "rami-lan/v1 pake confirm" 0x00 role 0x00 fingerprint)

where ``k_confirm`` is derived from the SPAKE2 key, ``role`` is ``host`` or ``client`` (the
sender's) and ``fingerprint`` is the SHA-256 of the TLS certificate *as that side sees
it*: the host's own certificate for the host, the peer's certificate for the client.
Each side checks the other's MAC against the fingerprint *it* sees. With a relay in the
middle, the client sees the relay's certificate and the host its own, so the MACs differ
and both sides refuse; with a wrong code the keys differ and the MACs differ too.

Everything here is sans-I/O: the caller moves the bytes (in ``pake`` and ``pake_confirm``
messages of ``rami_lan.net.protocol``). Typical use, host side first::

    host = PakeHost(code, my_fingerprint)          client = PakeClient(code, peer_fp)
    send(Pake(msg=host.start()))             ->    reply = client.receive(msg)  # its msg
                                             <-    send(Pake(msg=reply))
    host.receive(msg)                        <-    send(PakeConfirm(mac=client.confirm_message()))
    host.check_confirmation(mac)
    send(PakeConfirm(mac=host.confirm_message())) -> client.check_confirmation(mac)

Every failure caused by the peer (a malformed message, a wrong code, a relay) raises a
:class:`PakeError`; calling the methods out of order is a bug and raises
:class:`PakeStateError` (a ``RuntimeError``).
"""

from __future__ import annotations

import hashlib
import hmac
import unicodedata
from typing import Final, Literal

from spake2 import SPAKE2_A, SPAKE2_B

__all__ = [
    "MAC_LEN",
    "MAX_MESSAGE",
    "PakeClient",
    "PakeConfirmationError",
    "PakeError",
    "PakeHost",
    "PakeMessageError",
    "PakeStateError",
    "normalize_code",
]

MAX_MESSAGE: Final = 256
"""Largest SPAKE2 message accepted (ours are 33 bytes)."""
MAC_LEN: Final = 32
MAX_CODE: Final = 32
"""Longest join code, in characters (as in the ``hello`` message's former ``code``)."""

_ID_CLIENT: Final = b"rami-lan/v1 client"
_ID_HOST: Final = b"rami-lan/v1 host"
_CONFIRM_LABEL: Final = b"rami-lan/v1 pake confirm"
_KEY_LABEL_CONFIRM: Final = b"rami-lan/v1 pake k_confirm"
_KEY_LABEL_SESSION: Final = b"rami-lan/v1 pake k_session"

PakeRole = Literal["host", "client"]


class PakeError(Exception):
    """The exchange failed because of what the peer sent (or did not know)."""


class PakeMessageError(PakeError):
    """The peer's SPAKE2 message is malformed."""


class PakeConfirmationError(PakeError):
    """The peer's confirmation does not match: a wrong join code, or a man in the middle."""


class PakeStateError(RuntimeError):
    """A method was called out of order (a bug in the caller)."""


def normalize_code(code: str) -> bytes:
    """The password bytes of a join code: NFKC, case-folded, spaces and dashes removed.

    So ``"ab-12 CD"`` and ``"AB12cd"`` are the same code. Raises ``ValueError`` for an empty
    code, one longer than :data:`MAX_CODE`, or one with non-printable characters.
    """
    if not isinstance(code, str):
        raise ValueError(f"a join code is a str, not {type(code).__name__}")
    if len(code) > MAX_CODE or not code.isprintable():
        raise ValueError(f"a join code is 1..{MAX_CODE} printable characters")
    text = unicodedata.normalize("NFKC", code).casefold()
    text = "".join(ch for ch in text if not ch.isspace() and ch not in "-_.")
    if not text:
        raise ValueError("a join code cannot be empty")
    return text.encode("utf-8")


def _fingerprint_bytes(fp: str | bytes) -> bytes:
    if isinstance(fp, bytes):
        if len(fp) != 32:
            raise ValueError("a raw fingerprint is 32 bytes")
        return fp
    if isinstance(fp, str):
        text = fp.replace(":", "").replace("-", "").lower()
        if len(text) == 64:
            try:
                return bytes.fromhex(text)
            except ValueError:
                pass
    raise ValueError("a fingerprint is 64 hex digits or 32 bytes")


class _Pake:
    ROLE: PakeRole
    PEER: PakeRole

    def __init__(self, code: str, fingerprint_seen: str | bytes) -> None:
        password = normalize_code(code)
        self._fingerprint = _fingerprint_bytes(fingerprint_seen)
        if self.ROLE == "client":
            self._spake: SPAKE2_A | SPAKE2_B = SPAKE2_A(password, idA=_ID_CLIENT, idB=_ID_HOST)
        else:
            self._spake = SPAKE2_B(password, idA=_ID_CLIENT, idB=_ID_HOST)
        self._outbound: bytes | None = None
        self._k_confirm: bytes | None = None
        self._k_session: bytes | None = None
        self._failed = False
        self._verified = False

    @property
    def role(self) -> PakeRole:
        return self.ROLE

    @property
    def verified(self) -> bool:
        """True once the peer's confirmation was checked and matched."""
        return self._verified

    @property
    def key(self) -> bytes:
        """A 32-byte key both sides share, available once the peer is verified."""
        if not self._verified or self._k_session is None:
            raise PakeStateError("the key is only available after check_confirmation()")
        return self._k_session

    def start(self) -> bytes:
        """Our SPAKE2 message (call once)."""
        if self._outbound is not None:
            raise PakeStateError("start() was already called")
        self._outbound = bytes(self._spake.start())
        return self._outbound

    def receive(self, message: bytes) -> bytes | None:
        """Take the peer's SPAKE2 message and derive the keys.

        Returns our own SPAKE2 message if :meth:`start` had not been called yet (the answer
        to send back), else None. Raises :class:`PakeMessageError` if the message is
        malformed (this object is then unusable).
        """
        self._check_alive()
        if self._k_confirm is not None:
            raise PakeStateError("receive() was already called")
        reply = self.start() if self._outbound is None else None
        if type(message) is not bytes or not 1 <= len(message) <= MAX_MESSAGE:
            self._failed = True
            raise PakeMessageError(f"a PAKE message is 1..{MAX_MESSAGE} bytes")
        try:
            shared = self._spake.finish(message)
        except Exception as exc:  # untrusted input: any failure of the decoder is the peer's
            self._failed = True
            raise PakeMessageError(f"bad PAKE message from the {self.PEER}: {exc!r}") from None
        self._k_confirm = hmac.digest(shared, _KEY_LABEL_CONFIRM, hashlib.sha256)
        self._k_session = hmac.digest(shared, _KEY_LABEL_SESSION, hashlib.sha256)
        return reply

    def _mac(self, role: PakeRole) -> bytes:
        assert self._k_confirm is not None
        data = _CONFIRM_LABEL + b"\x00" + role.encode("ascii") + b"\x00" + self._fingerprint
        return hmac.digest(self._k_confirm, data, hashlib.sha256)

    def confirm_message(self) -> bytes:
        """Our 32-byte confirmation: HMAC over our role and the fingerprint we see."""
        self._check_alive()
        if self._k_confirm is None:
            raise PakeStateError("confirm_message() needs receive() first")
        return self._mac(self.ROLE)

    def check_confirmation(self, mac: bytes) -> None:
        """Check the peer's confirmation (constant time).

        Raises :class:`PakeConfirmationError` if it does not match: the peer used another
        code, or sees another certificate (a man in the middle). This object is then
        unusable.
        """
        self._check_alive()
        if self._k_confirm is None:
            raise PakeStateError("check_confirmation() needs receive() first")
        if self._verified:
            raise PakeStateError("the confirmation was already checked")
        expected = self._mac(self.PEER)
        if type(mac) is not bytes or not hmac.compare_digest(mac, expected):
            self._failed = True
            raise PakeConfirmationError(
                "the join code does not match, or someone is intercepting the connection"
            )
        self._verified = True

    def _check_alive(self) -> None:
        if self._failed:
            raise PakeStateError("this exchange already failed; start a new one")


class PakeHost(_Pake):
    """The host's side. ``fingerprint_seen`` is the fingerprint of its own certificate."""

    ROLE = "host"
    PEER = "client"


class PakeClient(_Pake):
    """The client's side. ``fingerprint_seen`` is that of the certificate the host presented
    (``tls.peer_fingerprint(ssl_object)``), not the one expected from the TXT record."""

    ROLE = "client"
    PEER = "host"
