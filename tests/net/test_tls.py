"""Tests of rami_lan.net.tls: identity files, fingerprints, and real TLS 1.3 on 127.0.0.1."""

from __future__ import annotations

import asyncio
import hashlib
import os
import ssl
import stat
from collections.abc import Awaitable, Callable
from pathlib import Path

import aio_helpers
import pytest
from aio_helpers import pump
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from rami_lan.net import tls
from rami_lan.net.protocol import Action, Hello, Session, Welcome

LOOPBACK = "127.0.0.1"
TIMEOUT = 10.0

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@pytest.fixture(scope="module")
def identity(tmp_path_factory: pytest.TempPathFactory) -> tls.HostIdentity:
    return tls.load_or_create_identity("Table d'Anne", tmp_path_factory.mktemp("host"))


@pytest.fixture(scope="module")
def other_identity(tmp_path_factory: pytest.TempPathFactory) -> tls.HostIdentity:
    return tls.load_or_create_identity("Mallory", tmp_path_factory.mktemp("mitm"))


def run(coro: Awaitable[object]) -> object:
    return aio_helpers.run(coro, TIMEOUT)


async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    finally:
        writer.close()


# --------------------------------------------------------------------------- identity files


def test_identity_is_made_once_and_reused(tmp_path: Path) -> None:
    first = tls.load_or_create_identity("Anne", tmp_path / "cfg")
    assert first.path == tmp_path / "cfg" / tls.IDENTITY_FILE
    assert stat.S_IMODE(first.path.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "cfg").stat().st_mode) == 0o700
    again = tls.load_or_create_identity("Another name", tmp_path / "cfg")
    assert again == first and again.common_name == tls.COMMON_NAME
    assert first.fingerprint == hashlib.sha256(first.cert_der).hexdigest()
    assert [p.name for p in (tmp_path / "cfg").iterdir()] == [tls.IDENTITY_FILE]


def test_certificate_contents(identity: tls.HostIdentity) -> None:
    cert = x509.load_der_x509_certificate(identity.cert_der)
    # The certificate names no table and no person (privacy: it is shown to every peer).
    assert cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value == "rami-lan"
    assert "Anne" not in cert.public_bytes(serialization.Encoding.PEM).decode()
    assert cert.issuer == cert.subject
    assert isinstance(cert.public_key(), ec.EllipticCurvePublicKey)
    assert cert.public_key().curve.name == "secp256r1"  # type: ignore[union-attr]
    life = cert.not_valid_after_utc - cert.not_valid_before_utc
    assert 365 <= life.days <= tls.VALIDITY_DAYS + 1


def test_loose_permissions_are_tightened(tmp_path: Path) -> None:
    ident = tls.load_or_create_identity("A", tmp_path)
    os.chmod(ident.path, 0o644)
    assert tls.load_or_create_identity("A", tmp_path) == ident
    assert stat.S_IMODE(ident.path.stat().st_mode) == 0o600


def test_config_dir_follows_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAMI_LAN_CONFIG_DIR", str(tmp_path / "here"))
    assert tls.config_dir() == tmp_path / "here"
    ident = tls.load_or_create_identity("A")
    assert ident.path.parent == tmp_path / "here"
    monkeypatch.delenv("RAMI_LAN_CONFIG_DIR")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    if os.name == "posix" and os.uname().sysname == "Linux":
        assert tls.config_dir() == tmp_path / "xdg" / "rami-lan"


def test_names_never_reach_the_certificate(tmp_path: Path) -> None:
    ident = tls.load_or_create_identity("\x1b[2J" + "x" * 200, tmp_path)
    assert ident.common_name == tls.COMMON_NAME
    assert tls.load_or_create_identity("  ", tmp_path / "b").common_name == tls.COMMON_NAME


def test_old_named_or_expiring_certificates_are_renewed(tmp_path: Path) -> None:
    import datetime

    ident = tls.load_or_create_identity("A", tmp_path)
    # Close to expiry: a new certificate (new fingerprint), same file, still private.
    later = datetime.datetime.now(datetime.UTC) + datetime.timedelta(
        days=tls.VALIDITY_DAYS - tls.RENEW_DAYS + 1)
    renewed = tls.load_or_create_identity("A", tmp_path, now=later)
    assert renewed.fingerprint != ident.fingerprint and renewed.path == ident.path
    assert stat.S_IMODE(renewed.path.stat().st_mode) == 0o600
    assert tls.load_or_create_identity("A", tmp_path, now=later) == renewed  # kept then
    # A certificate from an older rami-lan, with a table name as CN: replaced.
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Table d'Anne")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(1)
            .not_valid_before(now).not_valid_after(now + datetime.timedelta(days=7000))
            .sign(key, hashes.SHA256()))
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / tls.IDENTITY_FILE).write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                          serialization.NoEncryption())
        + cert.public_bytes(serialization.Encoding.PEM))
    fixed = tls.load_or_create_identity("x", tmp_path / "old")
    assert fixed.common_name == tls.COMMON_NAME


# --------------------------------------------------------------------------- fingerprints


def test_fingerprint_forms() -> None:
    fp = tls.fingerprint(b"cert")
    assert fp == hashlib.sha256(b"cert").hexdigest() and len(fp) == 64
    colons = ":".join(fp[i : i + 2] for i in range(0, 64, 2)).upper()
    assert tls.normalize_fingerprint(colons) == fp
    short = tls.short_fingerprint(fp)
    assert short == "-".join(fp[i : i + 4] for i in range(0, 16, 4)).upper()
    assert len(short) == 19
    for bad in ("", fp[:-1], fp + "0", "g" * 64, short, None):
        with pytest.raises(ValueError):
            tls.normalize_fingerprint(bad)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- connections


async def tls_pair(
    identity: tls.HostIdentity, handler: Handler = echo
) -> tuple[asyncio.Server, asyncio.StreamReader, asyncio.StreamWriter]:
    server = await asyncio.start_server(handler, LOOPBACK, 0, ssl=tls.server_context(identity))
    port = server.sockets[0].getsockname()[1]
    reader, writer = await asyncio.open_connection(LOOPBACK, port, ssl=tls.client_context())
    return server, reader, writer


async def close(server: asyncio.Server, writer: asyncio.StreamWriter) -> None:
    writer.close()
    try:
        await writer.wait_closed()
    except (ConnectionError, ssl.SSLError):
        pass
    server.close()
    await server.wait_closed()


def test_handshake_tls13_and_pinning(identity: tls.HostIdentity) -> None:
    async def main() -> None:
        server, reader, writer = await tls_pair(identity)
        ssl_object = writer.get_extra_info("ssl_object")
        assert ssl_object.version() == "TLSv1.3"
        assert tls.check_pinned(ssl_object, identity.fingerprint) == identity.fingerprint
        assert tls.check_pinned(ssl_object, identity.fingerprint.upper()) == identity.fingerprint
        writer.write(b"ping")
        assert await reader.readexactly(4) == b"ping"
        await close(server, writer)

    run(main())


def test_wrong_fingerprint_is_refused(
    identity: tls.HostIdentity, other_identity: tls.HostIdentity
) -> None:
    async def main() -> None:
        server, _, writer = await tls_pair(identity)
        ssl_object = writer.get_extra_info("ssl_object")
        with pytest.raises(tls.FingerprintMismatch) as info:
            tls.check_pinned(ssl_object, other_identity.fingerprint)
        assert info.value.expected == other_identity.fingerprint
        assert info.value.got == identity.fingerprint
        assert other_identity.short_fingerprint in str(info.value)
        assert "intercepting" in str(info.value)
        await close(server, writer)

    run(main())


def test_plain_connection_cannot_be_pinned(identity: tls.HostIdentity) -> None:
    with pytest.raises(tls.FingerprintMismatch, match="no certificate"):
        tls.check_pinned(None, identity.fingerprint)


def test_older_tls_is_refused(identity: tls.HostIdentity) -> None:
    async def main() -> None:
        server = await asyncio.start_server(echo, LOOPBACK, 0, ssl=tls.server_context(identity))
        port = server.sockets[0].getsockname()[1]
        old = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        old.check_hostname = False
        old.verify_mode = ssl.CERT_NONE
        old.maximum_version = ssl.TLSVersion.TLSv1_2
        with pytest.raises((ssl.SSLError, ConnectionError)):
            await asyncio.open_connection(LOOPBACK, port, ssl=old)
        server.close()
        await server.wait_closed()

    run(main())


def test_server_side_start_tls_after_accept(identity: tls.HostIdentity) -> None:
    """The integration path: accept plain TCP, check caps, then upgrade to TLS."""

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await writer.start_tls(tls.server_context(identity), ssl_handshake_timeout=5)
        await echo(reader, writer)

    async def main() -> None:
        server = await asyncio.start_server(handler, LOOPBACK, 0)
        port = server.sockets[0].getsockname()[1]
        reader, writer = await asyncio.open_connection(LOOPBACK, port, ssl=tls.client_context())
        tls.check_pinned(writer.get_extra_info("ssl_object"), identity.fingerprint)
        writer.write(b"up")
        assert await reader.readexactly(2) == b"up"
        await close(server, writer)

    run(main())


class Recorder:
    """A loopback TCP proxy that forwards both ways and records every byte."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.captured = bytearray()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(LOOPBACK, self.target_port)
        await asyncio.gather(
            pump(reader, up_writer, self.captured), pump(up_reader, writer, self.captured)
        )


def test_sniffer_sees_no_plaintext(identity: tls.HostIdentity) -> None:
    secret_view = {"hand": "10h Jh Qh Kh 1h", "cards": [11, 22, 33]}

    async def host(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        session = Session("host")
        while not (got := session.receive_data(await reader.read(4096))):
            pass
        assert isinstance(got[0], Hello)
        writer.write(
            session.send(
                Welcome(
                    table_id=bytes(16), seat=1, token=b"T" * 16, table=secret_view, players=[]
                )
            )
        )
        await writer.drain()
        await echo(reader, writer)

    async def main() -> None:
        server = await asyncio.start_server(host, LOOPBACK, 0, ssl=tls.server_context(identity))
        recorder = Recorder(server.sockets[0].getsockname()[1])
        proxy = await asyncio.start_server(recorder.handle, LOOPBACK, 0)
        port = proxy.sockets[0].getsockname()[1]
        reader, writer = await asyncio.open_connection(LOOPBACK, port, ssl=tls.client_context())
        tls.check_pinned(writer.get_extra_info("ssl_object"), identity.fingerprint)
        client = Session("client")
        writer.write(client.send(Hello(nick="SecretNick", lang="fr", code="OPEN-SESAME")))
        welcome: list[object] = []
        while not welcome:
            welcome = client.receive_data(await reader.read(4096))
        assert welcome[0].table == secret_view  # type: ignore[attr-defined]
        action = client.send(Action(seq=1, action={"t": "discard", "card": "Qh-plaintext"}))
        writer.write(action)
        assert await reader.readexactly(len(action)) == action
        writer.close()
        await asyncio.sleep(0.05)
        proxy.close()
        server.close()
        await proxy.wait_closed()
        await server.wait_closed()
        data = bytes(recorder.captured)
        assert len(data) > 500  # the handshake and the records went through the proxy
        for plain in (b"SecretNick", b"OPEN-SESAME", b"10h Jh Qh", b"Qh-plaintext", b"T" * 16):
            assert plain not in data, plain
        assert action not in data

    run(main())


def test_mitm_with_its_own_certificate_is_detected_by_the_pin(
    identity: tls.HostIdentity, other_identity: tls.HostIdentity
) -> None:
    """A proxy that terminates TLS with its own certificate and re-encrypts to the host."""

    async def mitm(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(
            LOOPBACK, host_port, ssl=tls.client_context()
        )
        up_writer.write(await reader.read(100))
        await up_writer.drain()
        writer.write(await up_reader.read(100))
        await writer.drain()
        writer.close()
        up_writer.close()

    async def main() -> None:
        nonlocal host_port
        server = await asyncio.start_server(echo, LOOPBACK, 0, ssl=tls.server_context(identity))
        host_port = server.sockets[0].getsockname()[1]
        proxy = await asyncio.start_server(
            mitm, LOOPBACK, 0, ssl=tls.server_context(other_identity)
        )
        port = proxy.sockets[0].getsockname()[1]
        reader, writer = await asyncio.open_connection(LOOPBACK, port, ssl=tls.client_context())
        # Unpinned, the relay would work; pinned, the client stops before sending anything.
        with pytest.raises(tls.FingerprintMismatch):
            tls.check_pinned(writer.get_extra_info("ssl_object"), identity.fingerprint)
        assert tls.peer_fingerprint(writer.get_extra_info("ssl_object")) == (
            other_identity.fingerprint
        )
        writer.close()
        for s in (proxy, server):
            s.close()
            await s.wait_closed()

    host_port = 0
    run(main())
