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

Join codes
----------
Each PAKE run is one online guess, and the host's admission limiter
(``rami_lan.net.guard.AdmissionLimiter``) bounds guesses, so the code only needs enough
entropy to outlast those limits:

- :func:`generate_code` makes the default code: :data:`GENERATED_LENGTH` symbols of the
  32-symbol :data:`CODE_ALPHABET` (no ``0/O``, ``1/I``), shown as ``ABCD-EFGH``:
  40 bits (:data:`GENERATED_BITS`).
- :func:`check_code_strength` refuses a chosen code whose normalized form is estimated
  below :data:`MIN_CODE_BITS` bits (``len * log2(pool)``, the pool being 10 for digits
  only, 26 for letters only, 36 for letters and digits, 80 with anything else), or
  uses :data:`MIN_DISTINCT` distinct characters or fewer, or is mostly a sequence (3/4
  of its steps from one character to the next are equal: ``12345678901``, ``abcdefgh``):
  ``1``, ``1234``, ``0000000000000``, ``azerty`` are refused, with a reason
  (:class:`WeakCode`; `rami_lan.cli.messages.weak_code_text` says it to the player).

Normalization (:func:`normalize_code`, unchanged since v1 so old and new peers derive the
same password): Unicode NFKC, then ``str.casefold``, then every whitespace character and
every ``-``, ``_`` and ``.`` is removed; the result is UTF-8 encoded. So ``ab-12 CD``,
``AB12cd`` and ``ab.12_cd`` are one code. A code is 1..:data:`MAX_CODE` printable
characters before normalization. The strength rule is applied *after* normalization (the
separators add nothing).
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import math
import secrets
import unicodedata
from typing import Final, Literal

from spake2 import SPAKE2_A, SPAKE2_B

__all__ = [
    "CODE_ALPHABET",
    "GENERATED_BITS",
    "MIN_CODE_BITS",
    "MAC_LEN",
    "MAX_MESSAGE",
    "PakeClient",
    "PakeConfirmationError",
    "PakeError",
    "PakeHost",
    "PakeMessageError",
    "PakeStateError",
    "WeakCode",
    "WeakCodeError",
    "check_code_strength",
    "code_bits",
    "generate_code",
    "normalize_code",
]

MAX_MESSAGE: Final = 256
"""Largest SPAKE2 message accepted (ours are 33 bytes)."""
MAC_LEN: Final = 32
MAX_CODE: Final = 32
"""Longest join code, in characters (as in the ``hello`` message's former ``code``)."""

CODE_ALPHABET: Final = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
"""32 symbols that cannot be mistaken for one another aloud or on screen (no 0/O, 1/I)."""
GENERATED_LENGTH: Final = 8
GENERATED_BITS: Final = GENERATED_LENGTH * 5
"""Entropy of a generated code: 8 symbols of 32, 40 bits."""
MIN_CODE_BITS: Final = 35
"""Estimated bits a chosen code needs (see the module docstring)."""
MIN_DISTINCT: Final = 3

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


class WeakCode(enum.StrEnum):
    """Why a chosen join code is refused."""

    BAD_LENGTH = "bad_length"
    """Not 1..``MAX_CODE`` printable characters (``max_chars``)."""
    FEW_SYMBOLS = "few_symbols"
    """``max_distinct`` different characters or fewer."""
    SEQUENCE = "sequence"
    """Mostly a sequence like ``1234`` or ``abcd``."""
    LOW_ENTROPY = "low_entropy"
    """``bits`` estimated, ``min_bits`` needed."""


_WEAK_PLAIN: Final = {
    WeakCode.BAD_LENGTH: "a join code is 1 to {max_chars} printable characters",
    WeakCode.FEW_SYMBOLS: "too easy to guess: {max_distinct} different characters or fewer",
    WeakCode.SEQUENCE: "too easy to guess: mostly a sequence like 1234 or abcd",
    WeakCode.LOW_ENTROPY: "too easy to guess: {bits} bits, at least {min_bits} needed",
}


class WeakCodeError(ValueError):
    """A chosen join code is too easy to guess: ``reason`` says why and ``data`` holds
    its numbers; ``str()`` is a plain English form for logs (the player's sentence is
    `rami_lan.cli.messages.weak_code_text`)."""

    def __init__(self, reason: WeakCode, **data: int) -> None:
        super().__init__(_WEAK_PLAIN[reason].format(**data))
        self.reason = reason
        self.data = data


def generate_code() -> str:
    """A fresh random join code, ``ABCD-EFGH`` (:data:`GENERATED_BITS` bits)."""
    half = GENERATED_LENGTH // 2
    while True:  # the rare draw that looks weak (3 symbols, a run) is drawn again
        symbols = "".join(secrets.choice(CODE_ALPHABET) for _i in range(GENERATED_LENGTH))
        code = f"{symbols[:half]}-{symbols[half:]}"
        try:
            return check_code_strength(code)
        except WeakCodeError:
            continue


def code_bits(code: str) -> float:
    """Estimated entropy of ``code`` in bits: ``len * log2(pool)`` of its normalized form."""
    text = normalize_code(code).decode("utf-8")
    if text.isdigit() and text.isascii():
        pool = 10
    elif text.isalpha() and text.isascii():
        pool = 26
    elif text.isalnum() and text.isascii():
        pool = 36
    else:
        pool = 80
    return len(text) * math.log2(pool)


def check_code_strength(code: str) -> str:
    """Return ``code`` if it is strong enough to be a join code, else raise
    :class:`WeakCodeError` (a ``ValueError``) saying why.

    A code from :func:`generate_code` always passes.
    """
    try:
        text = normalize_code(code).decode("utf-8")
    except ValueError:
        raise WeakCodeError(WeakCode.BAD_LENGTH, max_chars=MAX_CODE) from None
    if len(set(text)) <= MIN_DISTINCT:
        raise WeakCodeError(WeakCode.FEW_SYMBOLS, max_distinct=MIN_DISTINCT)
    steps = [ord(b) - ord(a) for a, b in zip(text, text[1:], strict=False)]
    if steps and max(steps.count(d) for d in set(steps)) >= 0.75 * len(steps):
        raise WeakCodeError(WeakCode.SEQUENCE)
    bits = code_bits(code)
    if bits < MIN_CODE_BITS:
        raise WeakCodeError(WeakCode.LOW_ENTROPY, bits=int(bits), min_bits=MIN_CODE_BITS)
    return code


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
