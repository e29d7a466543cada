"""The draw of a tournament's tables: a seed everyone can check, and balanced tables.

Commit-reveal, as for the deck (docs/fair_shuffle.md), with the organiser and the
registrants:

1. When registration opens the organiser draws a 32-byte ``secret`` and publishes its
   commitment ``H(DRAW_COMMIT_LABEL || tournament_id || secret)`` (`commitment`); every
   registrant receives it before it sends anything that counts.
2. Each registrant sends a 32-byte random ``contribution`` with its registration.
3. At the start the organiser reveals ``secret``; the seed is
   ``H(DRAW_SEED_LABEL || tournament_id || secret || entrants...)`` (`draw_seed`), each entrant
   (in registration order) as its number, nickname and contribution (bots have none).
4. Stage ``s`` draws its tables from ``stage_seed(seed, s)``: the stage's players in
   number order shuffled with the deck's Fisher-Yates (`rami_lan.core.deckrng.shuffle`),
   then cut into `table_sizes` (as even as possible, 2 to the table size each).

Everything here is pure computation: the same inputs give the same tables on every
machine, so a registrant (and ``rami-lan verify``) recomputes the draw.
"""

from __future__ import annotations

import hashlib
import math
import struct
from collections.abc import Sequence
from dataclasses import dataclass

from rami_lan.core.deckrng import KeyStream, shuffle

__all__ = [
    "DRAW_COMMIT_LABEL",
    "SECRET_LEN",
    "DRAW_SEED_LABEL",
    "DrawEntrant",
    "commitment",
    "draw_seed",
    "draw_tables",
    "lot",
    "stage_seed",
    "table_sizes",
]

DRAW_COMMIT_LABEL = b"rami-lan tournament commit v1"
DRAW_SEED_LABEL = b"rami-lan tournament seed v1"
DRAW_STAGE_LABEL = b"rami-lan tournament stage v1"
DRAW_LOT_LABEL = b"rami-lan tournament lot v1"
SECRET_LEN = 32
ID_LEN = 16


def _h(*parts: bytes) -> bytes:
    return hashlib.sha256(b"".join(parts)).digest()


def _need_bytes(name: str, value: object, size: int) -> bytes:
    if not isinstance(value, bytes) or len(value) != size:
        raise ValueError(f"{name} must be {size} bytes")
    return value


def commitment(tournament_id: bytes, secret: bytes) -> bytes:
    """The organiser's commitment to its secret, published when registration opens."""
    _need_bytes("the tournament id", tournament_id, ID_LEN)
    _need_bytes("the organiser's secret", secret, SECRET_LEN)
    return _h(DRAW_COMMIT_LABEL, tournament_id, secret)


@dataclass(frozen=True)
class DrawEntrant:
    """One entrant as the seed covers it: number, nickname, contribution (None: a bot)."""

    no: int
    nick: str
    contribution: bytes | None


def draw_seed(tournament_id: bytes, secret: bytes, entrants: Sequence[DrawEntrant]) -> bytes:
    """The tournament's seed from the organiser's secret and every contribution."""
    _need_bytes("the tournament id", tournament_id, ID_LEN)
    _need_bytes("the organiser's secret", secret, SECRET_LEN)
    parts = [DRAW_SEED_LABEL, tournament_id, secret, struct.pack(">I", len(entrants))]
    for e in entrants:
        nick = e.nick.encode("utf-8")
        contribution = b"" if e.contribution is None else _need_bytes(
            f"entrant {e.no}'s contribution", e.contribution, SECRET_LEN)
        parts += [struct.pack(">IH", e.no, len(nick)), nick,
                  struct.pack(">B", len(contribution)), contribution]
    return _h(*parts)


def stage_seed(seed: bytes, stage: int) -> bytes:
    """The key of stage ``stage``'s draw (stages count from 1)."""
    if stage < 1:
        raise ValueError("stages are numbered from 1")
    return _h(DRAW_STAGE_LABEL, seed, struct.pack(">I", stage))


def table_sizes(n_players: int, table_size: int) -> list[int]:
    """``n_players`` cut into the fewest tables of at most ``table_size`` seats, as even as
    possible (sizes differ by at most one, larger tables first); every table has 2 or more,
    so an odd number of players at tables of 2 gives one table of 3."""
    if not 2 <= table_size <= 4:
        raise ValueError(f"a table has 2 to 4 seats, not {table_size}")
    if n_players < 2:
        raise ValueError(f"a tournament needs 2 players or more, not {n_players}")
    k = min(math.ceil(n_players / table_size), n_players // 2)
    base, extra = divmod(n_players, k)
    return [base + 1] * extra + [base] * (k - extra)


def draw_tables(seed: bytes, stage: int, players: Sequence[int], table_size: int) -> list[list[int]]:
    """The tables of a stage: ``players`` (entrant numbers) in number order, shuffled
    with the stage's seed, cut into `table_sizes`."""
    order = shuffle(sorted(players), stage_seed(seed, stage))
    out: list[list[int]] = []
    at = 0
    for size in table_sizes(len(order), table_size):
        out.append(order[at:at + size])
        at += size
    return out


def lot(seed: bytes, stage: int, no: int) -> int:
    """The lot that separates two entrants every rule left equal (lower first): a number
    from the seed, so nobody chooses it and everyone recomputes it."""
    return KeyStream(_h(DRAW_LOT_LABEL, seed, struct.pack(">II", stage, no))).next_word()
