"""The seats of a table: who sits where, how they are seated, their reconnect tokens.

Reconnect tokens leave the table once, in ``welcome``; the table keeps only their
SHA-256 (in memory, in the journal), and compares with `hmac.compare_digest`.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["MAX_NICK", "Seat", "card_nick", "find_by_token", "token_hash", "unique_nick"]

MAX_NICK = 24
"""Longest nickname on the wire (`rami_lan.net.protocol.MAX_NICK`)."""


def token_hash(token: bytes) -> bytes:
    """What the table stores of a reconnect token."""
    return hashlib.sha256(b"rami-lan token v1\x00" + token).digest()


@dataclass(eq=False)
class Seat:
    """One seat: a human (remote or the owner's) or a bot the table plays."""

    seat: int
    kind: Literal["human", "bot"]
    level: str = "moyen"
    nick: str = ""
    token: bytes | None = None
    """SHA-256 of the reconnect token (`token_hash`); None: the seat is free."""
    conn: int | None = None
    """The connection playing it now; None for a bot or a dropped player."""
    owner: bool = False
    left: bool = False
    remote_bot: bool = False
    policy: Any = None
    pake_secret: str | None = None
    """The invitation ticket this seat was admitted with: its reconnects prove it again."""

    @property
    def taken(self) -> bool:
        """A bot, or a human seat someone holds (connected or not)."""
        return self.kind == "bot" or self.token is not None or self.conn is not None

    @property
    def connected(self) -> bool:
        return self.kind == "bot" or self.conn is not None

    def matches(self, token: bytes) -> bool:
        return self.token is not None and hmac.compare_digest(self.token, token_hash(token))

    def free(self) -> None:
        """Before the match: the seat of a dropped newcomer is free again."""
        self.token = None
        self.nick = ""
        self.pake_secret = None
        self.remote_bot = False


def find_by_token(seats: Iterable[Seat], token: bytes) -> Seat | None:
    """The seat this reconnect token holds (every seat is compared: constant work)."""
    found = None
    for s in seats:
        if s.matches(token):
            found = s
    return found


def unique_nick(nick: str, taken: Sequence[str]) -> str:
    """``nick``, or as a person would tell two namesakes apart: "Joueur 2", "Joueur 3"."""
    if nick not in taken:
        return nick
    for k in range(2, 10):
        cand = f"{nick[: MAX_NICK - 2]} {k}"
        if cand not in taken:
            return cand
    return nick


def card_nick(nick: str, fallback: str) -> str:
    """A nickname a `PlayerCard` accepts: the seat's, else ``fallback``."""
    text = "".join(ch for ch in nick if ch.isprintable()).strip()[:MAX_NICK].strip()
    return text or fallback
