"""Meld enumeration: every meld a hand can form (`enumerate_melds`), by meld shapes.

A shape is a meld's kind, its faces position by position (None where a joker stands)
and its ranks; the shapes are listed face by face, each from its lowest natural in
search order. The rules engine lists legal lay-downs with it; the partition search does
not use it (`rami_lan.core.solver.sweep` and `.small` are exact on counts).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations

from rami_lan.core.cards import SUITS, Card
from rami_lan.core.melds import Meld, build_run, build_set
from rami_lan.core.solver.common import Face
from rami_lan.core.variants import Variant, get_variant

# A meld shape: (kind, position faces in order, None where a joker stands), points.
Shape = tuple[str, tuple[Face | None, ...], tuple[int, ...]]

FACES: tuple[Face, ...] = tuple((r, s) for s in SUITS for r in range(1, 14))
FACE_INDEX = {f: i for i, f in enumerate(FACES)}


def _joker_ok(variant: Variant, n_nat: int, n_jok: int) -> bool:
    if n_nat == 0:
        return False
    return variant.joker_limit != "not_more_than_naturals" or n_jok <= n_nat


def _shapes_from(variant: Variant, counts: Sequence[int], jokers: int, fi: int) -> list[Shape]:
    """Meld shapes whose first natural (in search order) is face ``fi``."""
    rank, suit = FACES[fi]
    out: list[Shape] = []
    # Sets: the current face plus other suits still present, plus jokers.
    others = [(rank, s) for s in SUITS if s != suit and counts[FACE_INDEX[(rank, s)]] > 0]
    for k in range(0, min(3, len(others)) + 1):
        for combo in combinations(others, k):
            for j in range(0, min(jokers, 4 - 1 - k) + 1):
                size = 1 + k + j
                if size < 3 or not _joker_ok(variant, 1 + k, j):
                    continue
                faces = ((rank, suit), *combo) + (None,) * j
                out.append(("set", faces, (rank,) * size))
    # Runs: any position other than the current card holds a natural if one is still
    # present (only the high ace precedes its own lower cards in search order) or a joker.
    positions = []
    if rank == 1:
        if variant.ace_low:
            positions.append(1)
        if variant.ace_high:
            positions.append(14)
    else:
        positions.append(rank)
    lo_bound = 1 if variant.ace_low else 2
    hi_bound = 14 if variant.ace_high else 13
    for p in positions:
        for lo in range(max(lo_bound, p - 12), p + 1):
            max_hi = min(13 if lo == 1 else hi_bound, lo + 12)
            for hi in range(max(p, lo + 2), max_hi + 1):
                others = [q for q in range(lo, hi + 1) if q != p]
                held = [q for q in others if counts[FACE_INDEX[(1 if q == 14 else q, suit)]] > 0]
                need = len(others) - len(held)
                if need > jokers:
                    break
                spare = jokers - need
                for n_sub in range(0, min(spare, len(held)) + 1):
                    for sub in combinations(held, n_sub):
                        n_jok = need + n_sub
                        if not _joker_ok(variant, hi - lo + 1 - n_jok, n_jok):
                            continue
                        faces: list[Face | None] = []
                        for q in range(lo, hi + 1):
                            if q == p or (q in held and q not in sub):
                                faces.append((1 if q == 14 else q, suit))
                            else:
                                faces.append(None)
                        out.append(("run", tuple(faces), tuple(range(lo, hi + 1))))
    return out


def _counts(cards: Iterable[Card]) -> tuple[list[int], int]:
    counts = [0] * 52
    jokers = 0
    for c in cards:
        if c.is_joker:
            jokers += 1
        else:
            counts[FACE_INDEX[(c.rank, c.suit)]] += 1  # type: ignore[index]
    return counts, jokers


def enumerate_melds(variant: str | Variant, cards: Sequence[Card], canonical: bool = True) -> list[Meld]:
    """Every distinct meld (by faces and joker positions) the cards can form.

    Naturals are used where held; jokers fill gaps and extend runs at either end.
    Each meld uses specific physical cards from ``cards``. With ``canonical`` (the
    default) a joker never stands in a run where a held natural could; with
    ``canonical=False`` those melds are listed too (``5h 6h *`` while holding ``7h``:
    a different lay-down, which keeps the ``7h`` for another meld).
    """
    v = get_variant(variant)
    counts, jokers = _counts(cards)
    pool: dict[Face | None, list[Card]] = {}
    for c in cards:
        pool.setdefault(None if c.is_joker else (c.rank, c.suit), []).append(c)  # type: ignore[arg-type]
    seen: set[tuple[str, tuple[Face | None, ...], tuple[int, ...]]] = set()
    out: list[Meld] = []
    for fi, n in enumerate(counts):
        if not n:
            continue
        # Shapes with this face as lowest natural and no joker substitution of held cards.
        for shape in _shapes_from(v, counts, jokers, fi):
            kind, faces, ranks = shape
            if shape in seen:
                continue
            # canonical forms only: no joker where a held natural could stand
            if canonical and kind == "run" and any(
                f is None and counts[FACE_INDEX[(1 if r == 14 else r, FACES[fi][1])]] > 0
                for f, r in zip(faces, ranks, strict=True)
            ):
                continue
            seen.add(shape)
            taken: dict[Face | None, int] = {}
            chosen = []
            for f in faces:
                i = taken.get(f, 0)
                taken[f] = i + 1
                chosen.append(pool[f][i])
            out.append(build_set(v, chosen) if kind == "set" else build_run(v, chosen))
    return out
