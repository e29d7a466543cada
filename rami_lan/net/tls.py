"""TLS 1.3 for rami-lan connections: a per-host self-signed certificate, pinned by fingerprint.

Theory of operation
-------------------
There is no certificate authority on a LAN. Each host makes one self-signed certificate
(ECDSA P-256, valid :data:`VALIDITY_DAYS` days, CN = the generic :data:`COMMON_NAME`: it
names no table and no person) the first time it opens a table, and keeps it, with its
private key, in one PEM file of its config folder (:func:`config_dir`, mode 0700; the file
0600). A certificate that expires within :data:`RENEW_DAYS` days, or that still carries a
table name as its CN (made by an older rami-lan), is replaced by a new one when the host
next starts: its fingerprint then changes once, and players who pinned the old one are
told the table's certificate changed. The SHA-256 of the certificate's
DER form is the host's *fingerprint* (:func:`fingerprint`): it goes into the table's TXT
record (``fp``) and is shown to players in a short form they can compare aloud
(:func:`short_fingerprint`).

The client context (:func:`client_context`) therefore does no CA or hostname check; the
client *pins* instead: right after the handshake it calls :func:`check_pinned` with the
fingerprint it expects (from the TXT record, or remembered from an earlier game), which
compares the peer certificate's SHA-256 in constant time and raises
:class:`FingerprintMismatch` if it differs. Both contexts allow TLS 1.3 only.

When no fingerprint is known (a table typed as ``HOST:PORT``), the connection is still
encrypted against passive sniffing; the join code's PAKE (``rami_lan.net.pake``), which
binds the fingerprint each side sees, then detects an active man in the middle.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import os
import re
import ssl
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from rami_lan.fsutil import fsync_dir, write_temp
from rami_lan.paths import config_dir, private_dir, private_file

__all__ = [
    "COMMON_NAME",
    "IDENTITY_FILE",
    "RENEW_DAYS",
    "VALIDITY_DAYS",
    "FingerprintMismatch",
    "HostIdentity",
    "KnownTables",
    "check_pinned",
    "client_context",
    "config_dir",
    "fingerprint",
    "load_or_create_identity",
    "normalize_fingerprint",
    "peer_fingerprint",
    "server_context",
    "short_fingerprint",
]

IDENTITY_FILE: Final = "host_tls.pem"
"""The host's private key and certificate, in one PEM file (mode 0600) in :func:`config_dir`."""
VALIDITY_DAYS: Final = 2 * 365
"""Lifetime of a new certificate."""
RENEW_DAYS: Final = 30
"""A certificate expiring within this many days is replaced at the next start."""
COMMON_NAME: Final = "rami-lan"
"""The CN of every certificate: generic, so the certificate names no table or person."""

_HEX64 = re.compile(r"[0-9a-f]{64}")


class FingerprintMismatch(ConnectionError):
    """The peer's certificate is not the one we pinned: possibly a man in the middle."""

    def __init__(self, expected: str, got: str | None) -> None:
        shown = short_fingerprint(got) if got else "no certificate"
        super().__init__(
            f"the table's certificate does not match: expected {short_fingerprint(expected)}, "
            f"got {shown} (someone may be intercepting the connection)"
        )
        self.expected = expected
        self.got = got


# --------------------------------------------------------------------------- fingerprints


def fingerprint(cert_der: bytes) -> str:
    """SHA-256 of a DER certificate, as 64 lowercase hex digits."""
    return hashlib.sha256(cert_der).hexdigest()


def normalize_fingerprint(fp: str) -> str:
    """A full fingerprint in canonical form: 64 lowercase hex digits.

    Accepts upper case and ``:``, ``-`` or space separators (``AB:CD:...``). Raises
    ``ValueError`` for anything else, including a short fingerprint (which is for humans,
    not for pinning).
    """
    if not isinstance(fp, str):
        raise ValueError(f"a fingerprint is a str, not {type(fp).__name__}")
    text = re.sub(r"[:\- ]", "", fp).lower()
    if not _HEX64.fullmatch(text):
        raise ValueError("a fingerprint is 64 hex digits (the SHA-256 of the certificate)")
    return text


def short_fingerprint(fp: str) -> str:
    """The form players compare aloud: the first 64 bits as 4 groups of 4 hex digits.

    >>> short_fingerprint("3f2a91bc0d7e55a1" + "0" * 48)
    '3F2A-91BC-0D7E-55A1'
    """
    text = normalize_fingerprint(fp)[:16].upper()
    return "-".join(text[i : i + 4] for i in range(0, 16, 4))


def peer_fingerprint(ssl_object: ssl.SSLObject | ssl.SSLSocket) -> str | None:
    """The fingerprint of the certificate the peer presented, or None if it sent none."""
    der = ssl_object.getpeercert(binary_form=True)
    return fingerprint(der) if der else None


def check_pinned(ssl_object: ssl.SSLObject | ssl.SSLSocket | None, expected_fp: str) -> str:
    """Check the peer certificate against the pinned fingerprint; return it if it matches.

    ``ssl_object`` is ``writer.get_extra_info("ssl_object")`` of an asyncio connection (or
    an ``ssl.SSLSocket``) after the handshake. The comparison is constant-time. Raises
    :class:`FingerprintMismatch` if the connection is not TLS, the peer sent no
    certificate, or its SHA-256 differs; ``ValueError`` if ``expected_fp`` is malformed.
    """
    expected = normalize_fingerprint(expected_fp)
    got = peer_fingerprint(ssl_object) if ssl_object is not None else None
    if got is None or not hmac.compare_digest(bytes.fromhex(got), bytes.fromhex(expected)):
        raise FingerprintMismatch(expected, got)
    return got


# --------------------------------------------------------------------------- identity


@dataclass(frozen=True)
class HostIdentity:
    """A host's certificate and where its key lives."""

    path: Path
    """The PEM file holding the private key and the certificate."""
    cert_der: bytes
    fingerprint: str
    """SHA-256 of ``cert_der``, 64 lowercase hex digits (the TXT record's ``fp``)."""
    common_name: str

    @property
    def short_fingerprint(self) -> str:
        return short_fingerprint(self.fingerprint)


def _make_pem(now: datetime.datetime | None = None) -> bytes:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, COMMON_NAME)])
    now = now or datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=VALIDITY_DAYS))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return key_pem + cert.public_bytes(serialization.Encoding.PEM)


def _write_new(path: Path, data: bytes) -> bool:
    """Create ``path`` with ``data`` (mode 0600) atomically; False if it already exists."""
    tmp = write_temp(path, data)
    try:
        os.link(tmp, path)  # fails if another process made it first
    except FileExistsError:
        return False
    except OSError:  # no hard links on this file system
        if path.exists():
            return False
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    fsync_dir(path.parent)
    return True


def _read_identity(path: Path) -> tuple[HostIdentity, x509.Certificate]:
    data = path.read_bytes()
    cert = x509.load_pem_x509_certificate(data)
    serialization.load_pem_private_key(data, password=None)  # present and readable
    der = cert.public_bytes(serialization.Encoding.DER)
    names = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    common_name = str(names[0].value) if names else ""
    return HostIdentity(path, der, fingerprint(der), common_name), cert


def needs_renewal(cert: x509.Certificate, now: datetime.datetime | None = None) -> bool:
    """True if ``cert`` expires within :data:`RENEW_DAYS` days or names a table in its CN."""
    now = now or datetime.datetime.now(datetime.UTC)
    names = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    if [str(n.value) for n in names] != [COMMON_NAME]:
        return True
    return cert.not_valid_after_utc - now < datetime.timedelta(days=RENEW_DAYS)


def load_or_create_identity(
    name: str = COMMON_NAME,
    directory: Path | None = None,
    *,
    now: datetime.datetime | None = None,
) -> HostIdentity:
    """The host's TLS identity, made on first use and reused afterwards.

    ``directory`` defaults to :func:`config_dir`; it is created (mode 0700, an existing
    folder tightened) if missing. The file is created atomically with mode 0600 (a race
    between two hosts leaves one file, which both then use) and tightened to 0600 if it
    was loosened. ``name`` is ignored (kept for callers): the CN is always
    :data:`COMMON_NAME`. A certificate that :func:`needs_renewal` is replaced atomically
    (``now``: the time to judge by, for tests).
    """
    del name  # the certificate names no table
    folder = private_dir(Path(directory) if directory is not None else config_dir())
    path = folder / IDENTITY_FILE
    if not path.exists():
        _write_new(path, _make_pem(now))
    private_file(path)
    identity, cert = _read_identity(path)
    if needs_renewal(cert, now):
        tmp = write_temp(path, _make_pem(now))
        try:
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
        fsync_dir(folder)
        identity, _cert = _read_identity(path)
    return identity


# --------------------------------------------------------------------------- known tables


KNOWN_FILE: Final = "known_tables.json"
MAX_KNOWN: Final = 256


class KnownTables:
    """The fingerprint each table had when we last joined it (``known_tables.json`` in
    the config folder, 0600; at most :data:`MAX_KNOWN` tables, the oldest forgotten).

    Keys name a table as the player does (``rami-lan join NAME`` or ``HOST:PORT``): table
    ids are new for every table, names are what players reuse. Pass
    :meth:`get` as ``known_fingerprint`` to ``open_session``, so that a failed join-code
    exchange with a table whose certificate changed is reported as possible
    interception; :meth:`remember` after a successful join.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path is not None else config_dir() / KNOWN_FILE

    def _load(self) -> dict[str, str]:
        import json

        try:
            data = json.loads(self.path.read_text(encoding="utf-8")[: 200 * MAX_KNOWN])
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {k: v for k, v in list(data.items())[-MAX_KNOWN:]
                if isinstance(k, str) and len(k) <= 64 and isinstance(v, str)
                and _HEX64.fullmatch(v)}

    def get(self, table: str) -> str | None:
        return self._load().get(table)

    def remember(self, table: str, fp: str) -> None:
        import json

        from rami_lan.fsutil import atomic_write

        known = self._load()
        known.pop(table, None)
        known[str(table)[:64]] = normalize_fingerprint(fp)
        while len(known) > MAX_KNOWN:
            known.pop(next(iter(known)))
        private_dir(self.path.parent)
        atomic_write(self.path, json.dumps(known))


# --------------------------------------------------------------------------- contexts


def _tls13_only(context: ssl.SSLContext) -> ssl.SSLContext:
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    context.maximum_version = ssl.TLSVersion.TLSv1_3
    return context


def server_context(identity: HostIdentity | None = None) -> ssl.SSLContext:
    """A server-side context presenting ``identity``, TLS 1.3 only, no client certificates.

    Without ``identity``, the one in :func:`config_dir` is used (made if missing).
    """
    if identity is None:
        identity = load_or_create_identity("rami-lan")
    context = _tls13_only(ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER))
    context.load_cert_chain(identity.path)
    context.verify_mode = ssl.CERT_NONE
    return context


def client_context() -> ssl.SSLContext:
    """A client-side context, TLS 1.3 only, that accepts any certificate.

    The host's certificate is self-signed, so there is nothing to verify it against:
    callers **must** pin it with :func:`check_pinned` after the handshake (or rely on the
    join code's PAKE, which binds the fingerprint), before sending anything secret.
    """
    context = _tls13_only(ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT))
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context
