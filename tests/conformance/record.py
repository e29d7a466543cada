"""Record the conformance kit's sessions (``tests/conformance/sessions/*.json``).

    /work/rt python tests/conformance/record.py          # or: python tests/conformance/record.py

Runs a real Python host (headless, 2 seats: our client and a host bot) on 127.0.0.1 and a
scripted Python client that joins, takes part in the fair shuffle, plays a few turns
(draw from the stock, discard the first card of its hand) and says ``bye``. Every frame
the client sends and receives *inside* TLS is recorded, with the secrets an
implementation needs to recompute what is deterministic: the host's TLS identity (PEM),
the join code, the SPAKE2 entropy of both sides, the client's fair-shuffle secrets.
See ``tests/conformance/README.md`` for the format and the checks.

Randomness is pinned where it shows on the wire (SPAKE2 entropy, shuffle secrets, table
id), so two recordings differ only in the reconnect token, the bot's moves' timing and
the like; the checks in ``tests/net/test_conformance.py`` never compare a new recording with
an old one, only a recording with itself.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rami_lan.net import pake as PK  # noqa: E402
from rami_lan.net import protocol as P  # noqa: E402

KIT_VERSION = 1
IDENTITY = HERE / "host_identity.pem"
TABLE_ID = hashlib.sha256(b"rami-lan conformance table").digest()[:16]
TURNS = 3


def entropy(label: str) -> Any:
    """Deterministic "entropy": SHA-256(label || u32 counter) blocks, as the kit documents."""

    def read(n: int) -> bytes:
        out = b""
        i = 0
        while len(out) < n:
            out += hashlib.sha256(label.encode() + i.to_bytes(4, "big")).digest()
            i += 1
        return out[:n]

    return read


def secret_stream(label: str) -> Any:
    """The client's fair-shuffle secrets: SHA-256(label || u32 n) for n = 0, 1, ..."""
    counter = [0]

    def new_secret() -> bytes:
        value = hashlib.sha256(label.encode() + counter[0].to_bytes(4, "big")).digest()
        counter[0] += 1
        return value

    return new_secret


class Recorder:
    """Wraps protocol.Session on the client side to log every frame in order."""

    def __init__(self) -> None:
        self.frames: list[dict[str, Any]] = []
        self._buf = b""

    def install(self) -> tuple[Any, Any]:
        orig_send, orig_recv = P.Session.send, P.Session.receive_data
        rec = self

        def send(session: P.Session, msg: P.Message, *a: Any, **k: Any) -> bytes:
            data = orig_send(session, msg, *a, **k)
            if session.role == "client":
                rec.frames.append({"dir": "c2h", "kind": msg.KIND, "hex": data.hex()})
            return data

        def receive_data(session: P.Session, data: bytes) -> list[P.Message]:
            msgs = orig_recv(session, data)
            if session.role == "client":
                rec._buf += data
                while len(rec._buf) >= 4:
                    n = int.from_bytes(rec._buf[:4], "big")
                    if len(rec._buf) < 4 + n:
                        break
                    frame, rec._buf = rec._buf[: 4 + n], rec._buf[4 + n:]
                    kind = P.Message.from_wire(__import__("msgpack").unpackb(frame[4:], raw=False)).KIND
                    rec.frames.append({"dir": "h2c", "kind": kind, "hex": frame.hex()})
            return msgs

        P.Session.send = send  # type: ignore[method-assign]
        P.Session.receive_data = receive_data  # type: ignore[method-assign]
        return orig_send, orig_recv


async def play_turns(session: Any, turns: int) -> None:
    """The kit's scripted play: draw from the stock, discard the first card, ``turns``
    times (the same frames on every run, given the fixed secrets)."""
    from rami_lan.core import actions as A

    done = 0
    async for up in session.updates():
        view = up.view
        if view is None or view.turn != session.seat or view.phase not in ("draw", "play"):
            continue
        if view.phase == "draw":
            await session.act(A.DrawStock(session.seat))
        else:
            await session.act(A.Discard(session.seat, view.hand[0]))
            done += 1
            if done >= turns:
                return


async def record(name: str, code: str | None) -> dict[str, Any]:
    from rami_lan.net import client as C
    from rami_lan.net import tls
    from rami_lan.net.client import open_session
    from rami_lan.net.host import TableConfig, TableHost

    client_label, host_label = f"rami-lan kit {name} client", f"rami-lan kit {name} host"
    secrets_label = f"rami-lan kit {name} shuffle"
    saved = (PK.SPAKE2_A, PK.SPAKE2_B, C.new_secret)
    PK.SPAKE2_A = functools.partial(PK.SPAKE2_A, entropy_f=entropy(client_label))  # type: ignore[misc]
    PK.SPAKE2_B = functools.partial(PK.SPAKE2_B, entropy_f=entropy(host_label))  # type: ignore[misc]
    C.new_secret = secret_stream(secrets_label)  # type: ignore[attr-defined]
    rec = Recorder()
    orig = rec.install()
    folder = Path(tempfile.mkdtemp(prefix="rami-kit-"))
    try:
        shutil.copy(IDENTITY, folder / tls.IDENTITY_FILE)
        config = TableConfig(name=f"Kit {name}", seats=2, bots={1: "debutant"}, headless=True,
                             advertise=False, interfaces=["127.0.0.1"], variant="rami", limit=1,
                             join_code=code, auto_start=False, identity_dir=folder,
                             table_id=TABLE_ID, bot_delay=0.0)
        host = TableHost(config)
        port = await host.start()
        session = await open_session("127.0.0.1", port, nickname="Kit", lang="en", code=code,
                                     fingerprint=host.fingerprint, bot=True, card={})
        await host.start_match()
        try:
            await play_turns(session, TURNS)
        finally:
            await session.close()
            await host.stop()
        fingerprint = host.fingerprint
    finally:
        P.Session.send, P.Session.receive_data = orig  # type: ignore[method-assign]
        PK.SPAKE2_A, PK.SPAKE2_B, C.new_secret = saved  # type: ignore[misc]
        shutil.rmtree(folder, ignore_errors=True)
    return {
        "kit_version": KIT_VERSION,
        "protocol_version": P.PROTOCOL_VERSION,
        "name": name,
        "description": (
            f"A client joins a 2-seat 'rami' table ({'join code' if code else 'no join code'}), "
            f"takes part in the fair shuffle, plays {TURNS} turns (draw from the stock, discard "
            "the first card of its hand) and says bye. Frames are the plaintext inside TLS."
        ),
        "secrets": {
            "host_identity_pem": "host_identity.pem",
            "fingerprint": fingerprint,
            "join_code": code,
            "spake2_client_entropy_label": client_label if code else None,
            "spake2_host_entropy_label": host_label if code else None,
            "client_shuffle_secret_label": secrets_label,
            "table_id": TABLE_ID.hex(),
        },
        "frames": rec.frames,
    }


def load_identity(folder: Path | None = None) -> Any:
    """The kit's identity as a ``tls.HostIdentity`` (copied into ``folder``, or a temporary
    one, because a host keeps its identity file in a folder of its own)."""
    from rami_lan.net import tls

    folder = folder or Path(tempfile.mkdtemp(prefix="rami-kit-id-"))
    shutil.copy(IDENTITY, folder / tls.IDENTITY_FILE)
    return tls.load_or_create_identity(directory=folder)


def make_identity() -> None:
    """Make the kit's identity once (or again if the host would renew it: a CN other than
    ``tls.COMMON_NAME``, or close to expiry), so the fingerprint stays the same."""
    from rami_lan.net import tls

    folder = Path(tempfile.mkdtemp(prefix="rami-kit-id-"))
    try:
        if IDENTITY.exists():
            shutil.copy(IDENTITY, folder / tls.IDENTITY_FILE)
        tls.load_or_create_identity(directory=folder)  # makes or renews it as a host would
        shutil.copy(folder / tls.IDENTITY_FILE, IDENTITY)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    make_identity()
    out = HERE / "sessions"
    out.mkdir(exist_ok=True)
    for name, code in (("plain", None), ("code", "Tulipe-42")):
        data = asyncio.run(record(name, code))
        path = out / f"{name}.json"
        path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"{path}: {len(data['frames'])} frames")


if __name__ == "__main__":
    main()
