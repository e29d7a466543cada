"""Hostile input against a live host over real TLS sockets on 127.0.0.1, while honest bot
clients play a whole match: random bytes, truncated frames, huge length prefixes, wrong
types, unknown kinds, forged and replayed tokens, and a seated cheater sending
out-of-turn, illegal and other seats' actions. The host must never crash (no error
logged), keep serving the honest players (they finish, every fairness check passes, the
record verifies) and change the game only through legal actions of the right seat.

``RAMI_LAN_HOSTILE_COUNT`` sets the number of hostile frames/messages (CI default 2000;
the full run: ``RAMI_LAN_HOSTILE_COUNT=100000 pytest tests/test_hostile.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import struct
from pathlib import Path
from typing import Any

import msgpack
import pytest

from rami_lan.core import actions as A
from rami_lan.net import guard as G
from rami_lan.net import protocol as P
from rami_lan.net import tls
from rami_lan.net.bot_client import BotClient
from rami_lan.net.client import open_session
from rami_lan.net.host import TableConfig, TableHost
from rami_lan.net.record import verify_file

COUNT = int(os.environ.get("RAMI_LAN_HOSTILE_COUNT", "2000"))
LOOSE = G.GuardConfig(max_connections=256, max_connections_per_address=256,
                      join_base_delay=0.001, join_max_delay=0.002, join_global_max=10**9,
                      hello_deadline=2.0, handshake_deadline=3.0)


pytestmark = pytest.mark.usefixtures("isolated_config")


def frame(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


def packed(obj: Any) -> bytes:
    return frame(msgpack.packb(obj, use_bin_type=True))


def junk_value(rng: random.Random) -> Any:
    return rng.choice([None, True, -1, 2**40, 3.5, "", "x" * rng.randint(1, 300),
                       b"\x00" * rng.randint(0, 40), [1, "a"], {"k": 1}, {"": None}])


def anonymous_payload(rng: random.Random) -> bytes:
    """One hostile thing to send on a fresh connection, before any hello."""
    kind = rng.randrange(9)
    if kind == 0:
        return rng.randbytes(rng.randint(1, 400))
    if kind == 1:  # truncated frame: a long prefix, then not enough body
        return struct.pack(">I", rng.randint(50, 5000)) + rng.randbytes(rng.randint(0, 40))
    if kind == 2:  # huge length prefix
        return struct.pack(">I", rng.randint(P.MAX_FRAME + 1, 2**32 - 1)) + b"\x81"
    if kind == 3:  # valid msgpack, not a message
        return packed(junk_value(rng))
    if kind == 4:  # unknown kind
        return packed({"k": rng.choice(["hax", "admin", "", "HELLO", "deal"]), "x": 1})
    if kind == 5:  # hello with wrong field types
        hello = {"k": "hello", "v": 1, "nick": "n", "lang": "en"}
        hello[rng.choice(["v", "nick", "lang", "token", "bot"])] = junk_value(rng)
        return packed(hello)
    if kind == 6:  # a forged reconnect token
        return packed({"k": "hello", "v": 1, "nick": "z", "lang": "en",
                       "token": rng.randbytes(16)})
    if kind == 7:  # game messages before hello
        return packed({"k": rng.choice(["action", "knock", "commit", "pake", "welcome"]),
                       "seq": 1})
    return frame(b"")  # zero-length frame


def cheater_message(rng: random.Random, seat: int, others: list[int], seq: int) -> bytes:
    """A message from a seated player that must be refused without harm."""
    kind = rng.randrange(8)
    if kind == 0:  # another seat's action
        return packed({"k": "action", "seq": seq,
                       "action": {"type": "DrawStock", "seat": rng.choice(others)}})
    if kind == 1:  # illegal or out-of-turn own actions
        return packed({"k": "action", "seq": seq, "action": rng.choice([
            {"type": "Discard", "seat": seat, "card": rng.randint(-5, 300)},
            {"type": "DrawDiscard", "seat": seat, "n": rng.randint(-3, 99)},
            {"type": "LayDown", "seat": seat, "melds": [[1, 2, 3]]},
            {"type": "Timeout", "seat": seat},
            {"type": "Nope", "seat": seat},
        ])})
    if kind == 2:
        return packed({"k": "action", "seq": seq, "action": junk_value(rng)})
    if kind == 3:
        return packed({"k": "knock", "seq": seq})
    if kind == 4:
        return packed({"k": "commit", "round_tag": rng.randbytes(35), "commit": rng.randbytes(32)})
    if kind == 5:
        return packed({"k": "reveal", "round_tag": rng.randbytes(35), "secret": rng.randbytes(32)})
    if kind == 6:
        return packed({"k": "next_round", "choice": rng.choice(["continue", "maybe"])})
    return packed({"k": "ping", "n": rng.randint(0, 2**62)})


async def _drain(reader: asyncio.StreamReader, timeout: float) -> None:
    with contextlib.suppress(Exception):
        while await asyncio.wait_for(reader.read(65536), timeout):
            pass


async def attack_anonymous(port: int, rng: random.Random, n: int, sent: list[int]) -> None:
    ctx = tls.client_context()
    for _ in range(n):
        try:
            if rng.random() < 0.05:  # not even TLS
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
            else:
                reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=ctx)
            writer.write(anonymous_payload(rng))
            await writer.drain()
            await _drain(reader, 0.05)
            writer.close()
        except (OSError, ConnectionError):
            pass
        sent[0] += 1


async def attack_seated(port: int, token: bytes, seat: int, rng: random.Random, n: int,
                        sent: list[int]) -> None:
    """The cheater reconnects with its token and sends batches of bad messages."""
    ctx = tls.client_context()
    others = [s for s in range(4) if s != seat]
    seq = 0
    done = 0
    while done < n:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=ctx)
        except OSError:
            await asyncio.sleep(0.01)
            continue
        session = P.Session("client")
        writer.write(session.send(P.Hello(nick="cheat", lang="en", token=token)))
        batch = bytearray()
        k = min(n - done, rng.randint(5, 40))
        for _ in range(k):
            seq += 1
            batch += cheater_message(rng, seat, others, seq)
        if rng.random() < 0.3:  # and end with a frame that closes the connection
            batch += anonymous_payload(rng)
            k += 1
        writer.write(bytes(batch))
        done += k
        sent[0] += k
        with contextlib.suppress(Exception):
            await writer.drain()
        await _drain(reader, 0.05)
        writer.close()
        await asyncio.sleep(0.002)


async def _scenario(tmp_path: Path, count: int) -> tuple[TableHost, list[Any], list[Any]]:
    applied: list[tuple[Any, A.Action]] = []

    class Watched(TableHost):
        def _try_apply(self, conn: Any, action: A.Action, seq: int | None) -> bool:
            ok = super()._try_apply(conn, action, seq)
            if ok:
                applied.append((conn, action))
            return ok

    host = Watched(TableConfig(
        name="hostile", seats=4, headless=True, advertise=False, interfaces=["127.0.0.1"],
        variant="rami", limit=1, record_dir=tmp_path, bot_delay=0.0, away_delay=0.01,
        timer=1, guard=LOOSE, auto_start=True, commit_timeout=1.0, reveal_timeout=1.0))
    port = await host.start()
    try:
        honest = [await open_session("127.0.0.1", port, nickname=f"p{i}") for i in range(3)]
        raw_r, raw_w = await asyncio.open_connection("127.0.0.1", port, ssl=tls.client_context())
        s = P.Session("client")
        raw_w.write(s.send(P.Hello(nick="cheat", lang="en")))
        welcome = None
        while welcome is None:
            for m in s.receive_data(await raw_r.read(65536)):
                if isinstance(m, P.Welcome):
                    welcome = m
        raw_w.close()
        bots = [BotClient(sess, delay=0.01, seed=i) for i, sess in enumerate(honest)]
        sent = [0]
        rng = random.Random(20240601)
        n_anon = max(1, count * 3 // 10)
        per = n_anon // 3
        n_seated = count - 3 * per
        attackers = [attack_anonymous(port, random.Random(rng.random()), per, sent)
                     for _ in range(3)]
        attackers.append(attack_seated(port, welcome.token, welcome.seat,
                                       random.Random(rng.random()), n_seated, sent))
        results = await asyncio.gather(*(b.run() for b in bots), *attackers)
        summaries = results[:3]
        await host.wait_finished(30)
        assert sent[0] >= count
        for sess in honest:
            await sess.close()
    finally:
        await host.stop()
    return host, summaries, applied


def test_hostile_input_against_a_live_host(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger="rami_lan")

    async def guarded() -> Any:
        return await asyncio.wait_for(_scenario(tmp_path, COUNT), 50 + COUNT / 250)

    host, summaries, applied = asyncio.run(guarded())
    assert all(sm.finished for sm in summaries)
    assert all(sm.fair for sm in summaries), [sm.fairness for sm in summaries]
    assert host.match.over
    # Every change came from a legal action of the seat its sender holds.
    for conn, action in applied:
        if conn is not None:
            assert action.seat == conn.seat
    assert host.record_path is not None and verify_file(host.record_path).ok
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors[:5]]
