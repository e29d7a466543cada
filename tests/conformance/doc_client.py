"""A rami-lan client written from docs/protocol.md and docs/fair_shuffle.md alone.

It imports nothing from ``rami_lan``: only the standard library, ``msgpack`` and
``spake2`` (the SPAKE2 implementation the spec names). It joins a table (plain or with a
join code), takes part in the fair shuffle and checks it, plays a simple strategy (draw
from the stock, discard the first card of the hand), continues between rounds, and
returns when the match is over. ``tests/net/test_conformance.py`` runs it against the real
host: if the spec misses something a client needs, that test fails.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import os
import ssl
import struct
import unicodedata
from dataclasses import dataclass, field
from typing import Any

import msgpack
from spake2 import SPAKE2_A

ID_A, ID_B = b"rami-lan/v1 client", b"rami-lan/v1 host"


@dataclass
class Outcome:
    seat: int = -1
    rounds_checked: int = 0
    shuffle_failures: list[str] = field(default_factory=list)
    match_over: bool = False
    errors: list[dict[str, Any]] = field(default_factory=list)
    kinds_seen: set[str] = field(default_factory=set)


def password(code: str) -> bytes:
    """Section 5: NFKC, case-folded, whitespace and - _ . removed, UTF-8."""
    text = unicodedata.normalize("NFKC", code).casefold()
    return "".join(ch for ch in text if not ch.isspace() and ch not in "-_.").encode()


# ---- fair shuffle (docs/fair_shuffle.md) ------------------------------------------------


def key_stream(key: bytes) -> Any:
    counter = 0
    while True:
        block = hashlib.sha256(key + struct.pack(">Q", counter)).digest()
        counter += 1
        for i in range(0, 32, 4):
            yield struct.unpack(">I", block[i : i + 4])[0]


def deck_order(seed: bytes, n: int) -> list[int]:
    words = key_stream(seed)

    def uniform(m: int) -> int:
        limit = 2**32 - (2**32 % m)
        while True:
            w = next(words)
            if w < limit:
                return w % m

    items = list(range(n))
    for i in range(n - 1, 0, -1):
        j = uniform(i + 1)
        items[i], items[j] = items[j], items[i]
    return items


DECK_SIZES = {"rami": 110, "classique": 110, "multi": 52, "500": 54, "40": 106}


class DocClient:
    def __init__(self, host: str, port: int, *, fingerprint: str, code: str | None,
                 nick: str = "DocClient", pace: float = 0.015) -> None:
        """``pace``: seconds to wait before each action, to stay under the host's message
        rate (100/s, section 4); a test whose host allows more may pass 0."""
        self.host, self.port, self.fingerprint, self.code, self.nick = host, port, fingerprint, code, nick
        self.pace = pace
        self.out = Outcome()
        self.seq = 0
        self.variant = "rami"
        self.secrets: dict[bytes, bytes] = {}
        self.dealt: dict[bytes, list[tuple[int, int]]] = {}
        self.current_tag: bytes | None = None
        self.pending_dealt: list[tuple[int, int]] = []

    async def send(self, msg: dict[str, Any]) -> None:
        body = msgpack.packb(msg, use_bin_type=True)
        self.writer.write(struct.pack(">I", len(body)) + body)
        await self.writer.drain()

    async def recv(self) -> dict[str, Any]:
        head = await self.reader.readexactly(4)
        body = await self.reader.readexactly(struct.unpack(">I", head)[0])
        msg = msgpack.unpackb(body, raw=False, strict_map_key=True)
        self.out.kinds_seen.add(msg["k"])
        return msg  # type: ignore[no-any-return]

    async def run(self) -> Outcome:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_3
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port, ssl=ctx)
        der = self.writer.get_extra_info("ssl_object").getpeercert(binary_form=True)
        seen = hashlib.sha256(der).hexdigest()
        if not hmac.compare_digest(seen, self.fingerprint):
            raise ConnectionError("fingerprint mismatch")
        try:
            await self.handshake(bytes.fromhex(seen))
            await self.play()
        finally:
            self.writer.close()
        return self.out

    async def handshake(self, fp: bytes) -> None:
        await self.send({"k": "hello", "nick": self.nick, "lang": "en", "v": 1})
        msg = await self.recv()
        if msg["k"] == "pake":
            assert self.code is not None, "the table wants a join code"
            spake = SPAKE2_A(password(self.code), idA=ID_A, idB=ID_B)
            mine = spake.start()
            key = spake.finish(msg["msg"])
            k_confirm = hmac.digest(key, b"rami-lan/v1 pake k_confirm", hashlib.sha256)

            def mac(role: bytes) -> bytes:
                return hmac.digest(k_confirm, b"rami-lan/v1 pake confirm\x00" + role + b"\x00" + fp,
                                   hashlib.sha256)

            await self.send({"k": "pake", "msg": mine})
            await self.send({"k": "pake_confirm", "mac": mac(b"client")})
            confirm = await self.recv()
            if confirm["k"] != "pake_confirm" or not hmac.compare_digest(confirm["mac"], mac(b"host")):
                raise ConnectionError(f"join-code exchange failed: {confirm}")
            msg = await self.recv()
        if msg["k"] != "welcome":
            raise ConnectionError(f"not seated: {msg}")
        self.out.seat = msg["seat"]
        self.variant = msg["table"]["variant"]

    async def act(self, action: dict[str, Any]) -> None:
        if self.pace:
            await asyncio.sleep(self.pace)
        self.seq += 1
        await self.send({"k": "action", "seq": self.seq, "action": action})

    async def play(self) -> None:
        seat = self.out.seat
        while True:
            msg = await self.recv()
            k = msg["k"]
            if k == "ping":
                await self.send({"k": "pong", "n": msg["n"]})
            elif k == "commit_request":
                tag, s = msg["round_tag"], os.urandom(32)
                self.secrets[tag] = s
                self.current_tag = tag
                commit = hashlib.sha256(b"rami-lan commit v1" + tag + bytes([msg["seat"]]) + s).digest()
                await self.send({"k": "commit", "round_tag": tag, "commit": commit})
            elif k == "commitments":
                await self.send({"k": "reveal", "round_tag": msg["round_tag"],
                                 "secret": self.secrets[msg["round_tag"]]})
            elif k == "events":
                for ev in msg["events"]:
                    if ev.get("type") == "CardsDealt" and ev["seat"] == seat and self.current_tag:
                        pairs = [(p, c["card"]) for p, c in zip(ev["positions"], ev["cards"], strict=True)]
                        self.dealt[self.current_tag] = pairs
            elif k == "round_secrets":
                self.check_round(msg)
                if self.out.match_over:  # the last round's secrets come after the end
                    await self.send({"k": "bye"})
                    return
            elif k == "error":
                self.out.errors.append(msg)
            elif k == "bye":
                return
            elif k == "view":
                v = msg["view"]
                if v["match_over"]:
                    self.out.match_over = True  # wait for the last round's secrets
                    continue
                if v["phase"] == "between":
                    await self.send({"k": "next_round", "choice": "continue"})
                elif v["turn"] == seat and v["phase"] == "draw":
                    await self.act({"kind": "draw_stock", "seat": seat})
                elif v["turn"] == seat and v["phase"] == "play":
                    await self.act({"kind": "discard", "seat": seat, "card": v["hand"][0]["card"]})

    def check_round(self, msg: dict[str, Any]) -> None:
        tag = msg["round_tag"]
        secrets = msg["secrets"]
        seed = hashlib.sha256(
            b"rami-lan seed v1" + tag + b"".join(secrets[k] for k in sorted(secrets, key=int))
        ).digest()
        deck = deck_order(seed, DECK_SIZES[self.variant])
        for position, card in self.dealt.get(tag, []):
            if deck[position] != card:
                self.out.shuffle_failures.append(f"position {position}: {deck[position]} != {card}")
        self.out.rounds_checked += 1
