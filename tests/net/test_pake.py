"""Tests of rami_lan.net.pake: SPAKE2 join codes with confirmation bound to the TLS fingerprint."""

from __future__ import annotations

import hashlib
import random

import pytest

from rami_lan.net.pake import (
    MAC_LEN,
    PakeClient,
    PakeConfirmationError,
    PakeError,
    PakeHost,
    PakeMessageError,
    PakeStateError,
    normalize_code,
)
from rami_lan.net.protocol import Hello, Pake, PakeConfirm, Session, Welcome

FP_HOST = hashlib.sha256(b"host certificate").hexdigest()
FP_MITM = hashlib.sha256(b"relay certificate").hexdigest()
CODE = "BLUE-4271"


def exchange(host: PakeHost, client: PakeClient) -> None:
    """The whole exchange, host first, as host.py and client.py will run it."""
    reply = client.receive(host.start())
    assert reply is not None
    assert host.receive(reply) is None
    host.check_confirmation(client.confirm_message())
    client.check_confirmation(host.confirm_message())


def test_right_code_gives_the_same_key() -> None:
    host, client = PakeHost(CODE, FP_HOST), PakeClient(CODE, FP_HOST)
    exchange(host, client)
    assert host.verified and client.verified
    assert host.key == client.key and len(host.key) == 32
    assert host.confirm_message() != client.confirm_message()  # roles differ
    assert len(host.confirm_message()) == MAC_LEN


def test_codes_are_normalized() -> None:
    host, client = PakeHost("blue 4271", FP_HOST), PakeClient("ＢＬＵＥ-4271", FP_HOST)
    exchange(host, client)
    assert normalize_code(" Ab-c_d.e ") == b"abcde"
    for bad in ("", " - ", "x" * 33, "a\nb", None):
        with pytest.raises(ValueError):
            normalize_code(bad)  # type: ignore[arg-type]


def test_client_may_start_first() -> None:
    host, client = PakeHost(CODE, FP_HOST), PakeClient(CODE, FP_HOST)
    assert host.receive(client.start()) is not None
    exchange_rest = host.start  # already started: a second start is a bug
    with pytest.raises(PakeStateError):
        exchange_rest()


def test_wrong_code_fails_on_both_sides() -> None:
    host, client = PakeHost(CODE, FP_HOST), PakeClient("BLUE-4272", FP_HOST)
    host.receive(client.receive(host.start()))  # type: ignore[arg-type]
    host_mac = host.confirm_message()
    with pytest.raises(PakeConfirmationError, match="join code"):
        host.check_confirmation(client.confirm_message())
    with pytest.raises(PakeConfirmationError):
        client.check_confirmation(host_mac)
    assert not host.verified and not client.verified
    with pytest.raises(PakeStateError):
        _ = host.key


def test_man_in_the_middle_relay_fails_even_with_the_right_code() -> None:
    """The relay terminates TLS with its own certificate and passes the PAKE messages on."""
    host = PakeHost(CODE, FP_HOST)  # the host sees its own certificate
    client = PakeClient(CODE, FP_MITM)  # the client sees the relay's
    host.receive(client.receive(host.start()))  # type: ignore[arg-type]
    host_mac = host.confirm_message()
    with pytest.raises(PakeConfirmationError, match="intercepting"):
        host.check_confirmation(client.confirm_message())
    with pytest.raises(PakeConfirmationError):
        client.check_confirmation(host_mac)


def test_relay_that_knows_nothing_cannot_forge_a_confirmation() -> None:
    host = PakeHost(CODE, FP_HOST)
    mallory = PakeClient("guess", FP_HOST)  # a direct attacker with a guessed code
    host.receive(mallory.receive(host.start()))  # type: ignore[arg-type]
    with pytest.raises(PakeConfirmationError):
        host.check_confirmation(mallory.confirm_message())


def test_the_code_never_appears_in_what_is_sent() -> None:
    code = "SECRETCODE"
    host, client = PakeHost(code, FP_HOST), PakeClient(code, FP_HOST)
    sent = [host.start()]
    sent.append(client.receive(sent[0]))  # type: ignore[arg-type]
    host.receive(sent[1])
    sent += [client.confirm_message(), host.confirm_message()]
    for data in sent:
        assert b"secretcode" not in data.lower()
        assert len(data) <= 256


@pytest.mark.parametrize("side", ["host", "client"])
def test_mutated_messages_fail_cleanly(side: str) -> None:
    rng = random.Random(side)
    for trial in range(60):
        host, client = PakeHost(CODE, FP_HOST), PakeClient(CODE, FP_HOST)
        host_msg = host.start()
        try:
            client_msg = client.receive(mutate(rng, host_msg) if side == "client" else host_msg)
            assert client_msg is not None
            if side == "host":
                host.receive(mutate(rng, client_msg))
                host.check_confirmation(client.confirm_message())
            else:
                host.receive(client_msg)
                client.check_confirmation(host.confirm_message())
        except PakeError:
            continue
        raise AssertionError(f"trial {trial}: a mutated message was accepted")


def mutate(rng: random.Random, data: bytes) -> bytes:
    """A different message: a bit flipped, cut, lengthened, replaced, or another side byte."""
    while (mutated := _mutate_once(rng, data)) == data:
        pass
    return mutated


def _mutate_once(rng: random.Random, data: bytes) -> bytes:
    choice = rng.randrange(5)
    buf = bytearray(data)
    if choice == 0:
        buf[rng.randrange(len(buf))] ^= 1 << rng.randrange(8)
    elif choice == 1:
        del buf[rng.randrange(len(buf)) :]
    elif choice == 2:
        buf += rng.randbytes(rng.randrange(1, 40))
    elif choice == 3:
        buf = bytearray(rng.randbytes(len(buf)))
    else:
        buf[0] = rng.choice([0x41, 0x42, 0x53, 0x00, 0xFF])  # side byte
    return bytes(buf) or b"\x00"


@pytest.mark.parametrize(
    "message",
    [b"", b"\x00" * 257, b"A" + b"\x00" * 32, b"B" + b"\xff" * 32, b"S" * 33, "text", None],
)
def test_malformed_messages_are_pake_errors(message: object) -> None:
    host = PakeHost(CODE, FP_HOST)
    host.start()
    with pytest.raises(PakeMessageError):
        host.receive(message)  # type: ignore[arg-type]
    with pytest.raises(PakeStateError):  # a failed exchange is not reused
        host.confirm_message()


def test_reflected_message_fails() -> None:
    host = PakeHost(CODE, FP_HOST)
    with pytest.raises(PakeMessageError):
        host.receive(PakeHost(CODE, FP_HOST).start())  # a host message sent to a host


@pytest.mark.parametrize("mac", [b"", b"\x00" * 32, b"\x00" * 64, "x" * 32, None])
def test_bad_confirmations_are_pake_errors(mac: object) -> None:
    host, client = PakeHost(CODE, FP_HOST), PakeClient(CODE, FP_HOST)
    host.receive(client.receive(host.start()))  # type: ignore[arg-type]
    with pytest.raises(PakeConfirmationError):
        host.check_confirmation(mac)  # type: ignore[arg-type]
    with pytest.raises(PakeStateError):
        host.check_confirmation(client.confirm_message())


def test_out_of_order_calls_are_state_errors() -> None:
    host = PakeHost(CODE, FP_HOST)
    with pytest.raises(PakeStateError):
        host.confirm_message()
    with pytest.raises(PakeStateError):
        host.check_confirmation(b"\x00" * 32)
    client = PakeClient(CODE, FP_HOST)
    host.receive(client.receive(host.start()))  # type: ignore[arg-type]
    with pytest.raises(PakeStateError):
        host.receive(b"again")
    host.check_confirmation(client.confirm_message())
    with pytest.raises(PakeStateError):
        host.check_confirmation(client.confirm_message())
    assert issubclass(PakeStateError, RuntimeError) and not issubclass(PakeStateError, PakeError)


def test_fingerprint_arguments() -> None:
    raw = bytes.fromhex(FP_HOST)
    host, client = PakeHost(CODE, raw), PakeClient(CODE, FP_HOST.upper())
    exchange(host, client)
    for bad in ("", FP_HOST[:-2], b"\x00" * 31, "z" * 64):
        with pytest.raises(ValueError):
            PakeHost(CODE, bad)


def test_through_protocol_sessions() -> None:
    """The message order host.py and client.py use, through two in-memory sessions."""
    c_session, h_session = Session("client"), Session("host")
    assert h_session.receive_data(c_session.send(Hello(nick="Anne", lang="fr")))
    host, client = PakeHost(CODE, FP_HOST), PakeClient(CODE, FP_HOST)
    (m,) = c_session.receive_data(h_session.send(Pake(msg=host.start())))
    assert isinstance(m, Pake)
    reply = client.receive(m.msg)
    assert reply is not None
    data = c_session.send(Pake(msg=reply)) + c_session.send(
        PakeConfirm(mac=client.confirm_message())
    )
    pake_msg, confirm = h_session.receive_data(data)
    assert isinstance(pake_msg, Pake) and isinstance(confirm, PakeConfirm)
    host.receive(pake_msg.msg)
    host.check_confirmation(confirm.mac)
    welcome = Welcome(table_id=bytes(16), seat=1, token=bytes(16), table={}, players=[])
    data = h_session.send(PakeConfirm(mac=host.confirm_message())) + h_session.send(welcome)
    h_confirm, got_welcome = c_session.receive_data(data)
    assert isinstance(h_confirm, PakeConfirm)
    client.check_confirmation(h_confirm.mac)
    assert got_welcome == welcome and c_session.established and c_session.pake_complete
