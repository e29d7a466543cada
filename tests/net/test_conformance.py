"""The conformance kit (tests/conformance/): the Python code passes every check the kit's
README asks of any implementation, and the real Python host and client reproduce the
recorded sessions byte for byte where the protocol is deterministic.

Regenerate the kit with ``/work/rt python tests/conformance/record.py``.
"""

from __future__ import annotations

import asyncio
import functools
import json
import sys
from pathlib import Path
from typing import Any

import aio_helpers
import msgpack
import pytest

from rami_lan.core.codec import (
    action_from_plain,
    action_to_plain,
    event_from_plain,
    event_to_plain,
    view_from_plain,
    view_to_plain,
)
from rami_lan.net import pake as PK
from rami_lan.net import protocol as P
from rami_lan.net import tls
from rami_lan.table import shuffle

KIT = Path(__file__).resolve().parents[1] / "conformance"
sys.path.insert(0, str(KIT))
import record  # noqa: E402

SESSIONS = sorted((KIT / "sessions").glob("*.json"))
pytestmark = pytest.mark.usefixtures("isolated_config")


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def frames(kit: dict[str, Any], direction: str | None = None) -> list[bytes]:
    return [bytes.fromhex(f["hex"]) for f in kit["frames"] if direction in (None, f["dir"])]


def decode(frame: bytes) -> P.Message:
    assert int.from_bytes(frame[:4], "big") == len(frame) - 4
    return P.Message.from_wire(msgpack.unpackb(frame[4:], raw=False, strict_map_key=True))


def test_the_kit_holds_a_plain_and_a_join_code_session() -> None:
    names = {load(p)["name"] for p in SESSIONS}
    assert {"plain", "code"} <= names
    assert (KIT / "README.md").exists() and (KIT / "host_identity.pem").exists()


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.stem)
def test_frames_form_a_valid_session_and_encode_canonically(path: Path) -> None:
    kit = load(path)
    host, client = P.Session("host"), P.Session("client")
    for f in kit["frames"]:
        data = bytes.fromhex(f["hex"])
        receiver = host if f["dir"] == "c2h" else client
        sender = client if f["dir"] == "c2h" else host
        (msg,) = receiver.receive_data(data)
        assert msg.KIND == f["kind"]
        # The sending side's state machine allows it, and re-encodes the same bytes.
        assert sender.send(msg) == data
    assert client.local_closed and host.remote_closed  # the session ends with the client's bye


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.stem)
def test_payloads_decode_with_the_codec_and_round_trip(path: Path) -> None:
    kit = load(path)
    variant = None
    for data in frames(kit):
        msg = decode(data)
        if isinstance(msg, P.Welcome):
            variant = msg.table["variant"]
            assert msg.table_id.hex() == kit["secrets"]["table_id"]
            assert {"seat", "nick", "kind", "connected", "left"} <= set(msg.players[0])
        elif isinstance(msg, P.Action):
            assert variant is not None
            action = action_from_plain(msg.action, variant)
            assert action_to_plain(action, variant) == msg.action
        elif isinstance(msg, P.View):
            view = view_from_plain(msg.view)
            assert view_to_plain(view) == msg.view
        elif isinstance(msg, P.Events):
            assert variant is not None
            for plain in msg.events:
                if plain.get("type") == "TableNotice":
                    assert isinstance(plain["players"], list)
                    continue
                ev = event_from_plain(plain, variant)
                assert event_to_plain(ev, variant) == plain


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.stem)
def test_client_shuffle_secrets_match_its_commit_and_reveal(path: Path) -> None:
    kit = load(path)
    new_secret = record.secret_stream(kit["secrets"]["client_shuffle_secret_label"])
    seat = tag = None
    for data in frames(kit):
        msg = decode(data)
        if isinstance(msg, P.CommitRequest):
            seat, tag, secret = msg.seat, msg.round_tag, new_secret()
        elif isinstance(msg, P.Commit):
            assert tag is not None and seat is not None
            assert msg.commit == shuffle.commitment(tag, seat, secret)
        elif isinstance(msg, P.Reveal):
            assert msg.secret == secret
        elif isinstance(msg, P.Commitments):
            assert msg.commits[seat] == shuffle.commitment(tag, seat, secret)  # type: ignore[index]
    assert tag is not None, "the session has no fair-shuffle round"


def _pake_pair(kit: dict[str, Any]) -> tuple[PK.PakeClient, PK.PakeHost]:
    s = kit["secrets"]
    client = PK.PakeClient(s["join_code"], s["fingerprint"])
    host = PK.PakeHost(s["join_code"], s["fingerprint"])
    from spake2 import SPAKE2_A, SPAKE2_B

    pw = PK.normalize_code(s["join_code"])
    client._spake = SPAKE2_A(pw, idA=PK._ID_CLIENT, idB=PK._ID_HOST,
                             entropy_f=record.entropy(s["spake2_client_entropy_label"]))
    host._spake = SPAKE2_B(pw, idA=PK._ID_CLIENT, idB=PK._ID_HOST,
                           entropy_f=record.entropy(s["spake2_host_entropy_label"]))
    return client, host


def test_join_code_exchange_is_recomputed_from_the_secrets() -> None:
    kit = load(KIT / "sessions" / "code.json")
    recorded = [decode(d) for d in frames(kit)]
    pakes = [m for m in recorded if isinstance(m, P.Pake | P.PakeConfirm)]
    host_pake, client_pake, client_confirm, host_confirm = pakes
    client, host = _pake_pair(kit)
    assert host.start() == host_pake.msg  # type: ignore[union-attr]
    assert client.receive(host_pake.msg) == client_pake.msg  # type: ignore[union-attr]
    assert client.confirm_message() == client_confirm.mac  # type: ignore[union-attr]
    host.receive(client_pake.msg)  # type: ignore[union-attr]
    host.check_confirmation(client_confirm.mac)  # type: ignore[union-attr]
    assert host.confirm_message() == host_confirm.mac  # type: ignore[union-attr]
    client.check_confirmation(host_confirm.mac)  # type: ignore[union-attr]
    # The fingerprint is that of the kit's certificate (SHA-256 of its DER form).
    import hashlib

    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    cert = x509.load_pem_x509_certificate((KIT / "host_identity.pem").read_bytes())
    der = cert.public_bytes(serialization.Encoding.DER)
    assert hashlib.sha256(der).hexdigest() == kit["secrets"]["fingerprint"]


# --------------------------------------------------------------------------- live replays


def _pin_entropy(monkeypatch: pytest.MonkeyPatch, kit: dict[str, Any]) -> None:
    s = kit["secrets"]
    if s["join_code"]:
        monkeypatch.setattr(PK, "SPAKE2_A", functools.partial(
            PK.SPAKE2_A, entropy_f=record.entropy(s["spake2_client_entropy_label"])))
        monkeypatch.setattr(PK, "SPAKE2_B", functools.partial(
            PK.SPAKE2_B, entropy_f=record.entropy(s["spake2_host_entropy_label"])))
    from rami_lan.net import client as C

    monkeypatch.setattr(C, "new_secret", record.secret_stream(s["client_shuffle_secret_label"]))


async def _read_frame(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readexactly(4)
    return head + await reader.readexactly(int.from_bytes(head, "big"))


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.stem)
def test_python_host_answers_the_recorded_handshake(
    path: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Replay the client's frames up to ``welcome`` against a real host with the kit's
    identity, join code and table id: its join-code frames are the recorded bytes."""
    from rami_lan.net.host import TableConfig, TableHost

    kit = load(path)
    _pin_entropy(monkeypatch, kit)
    assert record.load_identity(tmp_path).fingerprint == kit["secrets"]["fingerprint"]
    s = kit["secrets"]
    recorded = kit["frames"][: next(i for i, f in enumerate(kit["frames"]) if f["kind"] == "welcome") + 1]

    async def scenario() -> None:
        host = TableHost(TableConfig(
            name="Kit", seats=2, bots={1: "debutant"}, headless=True, advertise=False,
            interfaces=["127.0.0.1"], join_code=s["join_code"], auto_start=False,
            identity_dir=tmp_path, table_id=bytes.fromhex(s["table_id"])))
        port = await host.start()
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=tls.client_context())
            assert tls.check_pinned(writer.get_extra_info("ssl_object"), s["fingerprint"])
            for f in recorded:
                data = bytes.fromhex(f["hex"])
                if f["dir"] == "c2h":
                    writer.write(data)
                    continue
                got = await asyncio.wait_for(_read_frame(reader), 10)
                if f["kind"] == "welcome":
                    welcome = decode(got)
                    assert isinstance(welcome, P.Welcome)
                    assert welcome.table_id == bytes.fromhex(s["table_id"]) and welcome.seat == 0
                else:
                    assert got == data, f["kind"]
            writer.close()
        finally:
            await host.stop()

    aio_helpers.run(scenario(), 30)


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.stem)
def test_python_client_sends_the_recorded_frames(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A replay host with the kit's identity sends the recorded host frames; the Python
    client, driven like the recorder (draw, discard the first card), sends exactly the
    recorded client frames."""
    from rami_lan.net.client import open_session

    kit = load(path)
    _pin_entropy(monkeypatch, kit)
    s = kit["secrets"]
    ident = record.load_identity()
    assert ident.fingerprint == s["fingerprint"]
    mismatches: list[str] = []
    done = asyncio.Event

    async def scenario() -> None:
        finished = done()

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                for i, f in enumerate(kit["frames"]):
                    data = bytes.fromhex(f["hex"])
                    if f["dir"] == "h2c":
                        writer.write(data)
                        await writer.drain()
                    else:
                        got = await asyncio.wait_for(_read_frame(reader), 10)
                        if got != data:
                            mismatches.append(f"frame {i} ({f['kind']}): {decode(got)!r}")
            finally:
                finished.set()
                writer.close()

        server = await asyncio.start_server(serve, "127.0.0.1", 0, ssl=tls.server_context(ident))
        port = server.sockets[0].getsockname()[1]
        session = await open_session("127.0.0.1", port, nickname="Kit", lang="en",
                                     code=s["join_code"], fingerprint=s["fingerprint"], bot=True,
                                     card={})
        try:
            await record.play_turns(session, record.TURNS)
        finally:
            await session.close()
        await asyncio.wait_for(finished.wait(), 10)
        server.close()

    aio_helpers.run(scenario(), 30)
    assert not mismatches, mismatches


@pytest.mark.parametrize("code", [None, "Tulipe-42"], ids=["plain", "code"])
def test_a_client_written_from_the_doc_plays_a_whole_match(code: str | None) -> None:
    """tests/conformance/doc_client.py imports nothing from rami_lan: it is written from
    docs/protocol.md and docs/fair_shuffle.md. Against the real host it joins (with the
    join-code exchange when there is a code), checks every round's shuffle and plays a
    match to the end."""
    import doc_client

    from rami_lan.net import guard as G
    from rami_lan.net.host import TableConfig, TableHost

    fast = G.GuardConfig(messages_per_s=10_000, message_burst=10_000)  # no pacing needed

    async def scenario() -> doc_client.Outcome:
        host = TableHost(TableConfig(
            name="Doc", seats=2, bots={1: "debutant"}, headless=True, advertise=False,
            interfaces=["127.0.0.1"], variant="rami", limit=1, join_code=code, bot_delay=0.0,
            guard=fast))
        port = await host.start()
        try:
            client = doc_client.DocClient("127.0.0.1", port, fingerprint=host.fingerprint,
                                          code=code, pace=0.0)
            return await client.run()
        finally:
            await host.stop()

    out = aio_helpers.run(scenario(), 90)
    assert out.match_over, out
    assert out.rounds_checked >= 1 and not out.shuffle_failures, out
    assert not out.errors, out.errors
    if code:
        assert "pake" in out.kinds_seen


def _doc_table_keys(heading: str) -> set[str]:
    import re

    text = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = text.split(heading, 1)[1].split("\n#", 1)[0]
    return set(re.findall(r"^\| `([a-z_]+)` \|", section, re.MULTILINE))


def test_doc_lists_every_key_of_welcome_table_and_of_the_player_list(tmp_path: Path) -> None:
    """welcome.table and the player list are built by the host, not by a schema: the
    doc's table must name exactly the keys a live host sends (and the kit recorded)."""
    from rami_lan.net.host import TableConfig, TableHost

    host = TableHost(TableConfig(name="Keys", seats=2, bots={1: "moyen"}, headless=True,
                                 advertise=False, identity_dir=tmp_path))
    documented = _doc_table_keys("### `welcome.table`")
    assert documented == set(host.machine.table_info()), set(host.machine.table_info()) ^ documented
    for path in SESSIONS:
        welcome = next(decode(d) for d in frames(load(path)) if decode(d).KIND == "welcome")
        assert set(welcome.table) <= documented  # type: ignore[attr-defined]
    players_doc = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text(
        encoding="utf-8").split("### Player list", 1)[1].split("\n#", 1)[0]
    for key in host.machine.players_info()[0]:
        assert f"`{key}`" in players_doc, key
