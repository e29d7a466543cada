"""Exact meld search: every meld a hand can form, and the best partition of a hand.

Theory of operation. Natural cards are reduced to *faces* (rank, suit) with a count
(two decks hold two of each); jokers are a count. A depth-first search takes the first
face still present (in suit-then-rank order) and decides one copy of it: either it is
left over, or it is the first natural of a meld. Because faces are taken in order, a
run built at that point has no natural below the current card, and a set only uses
suits still present. Jokers may fill any position, including one where a natural is
held (that natural may be worth more elsewhere), so the search is exact. Results are
memoised on the remaining counts.

The objective compares (meld points, -leftover cards) lexicographically, or
(-leftover hand points, meld points) for `min_hand_partition`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations

from rami_lan.core.cards import SUITS, Card
from rami_lan.core.melds import Meld, build_run, build_set, rank_points
from rami_lan.core.variants import Variant, get_variant

Face = tuple[int, str]
# A meld shape: (kind, position faces in order, None where a joker stands), points.
Shape = tuple[str, tuple[Face | None, ...], tuple[int, ...]]

FACES: tuple[Face, ...] = tuple((r, s) for s in SUITS for r in range(1, 14))
FACE_INDEX = {f: i for i, f in enumerate(FACES)}


@dataclass(frozen=True)
class Partition:
    """Melds found in a hand: ``melds`` (lists of cards), total ``points``, ``leftover``."""

    melds: list[list[Card]] = field(default_factory=list)
    points: int = 0
    leftover: list[Card] = field(default_factory=list)
    meld_objects: tuple[Meld, ...] = ()


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


Score = tuple[int, int]


class _Search:
    def __init__(
        self,
        variant: Variant,
        objective: str,
        required: Face | None,
        required_count: int,
    ) -> None:
        self.v = variant
        self.objective = objective
        self.required = FACE_INDEX[required] if required else None
        self.required_count = required_count
        self.solve = lru_cache(maxsize=None)(self._solve)

    def leftover_score(self, fi: int | None) -> Score:
        """Score of leaving one card over (``fi`` None = a joker)."""
        if self.objective == "points":
            return (0, -1)
        if fi is None:
            return (-self.v.hand_joker_points, 0)
        r = FACES[fi][0]
        pts = self.v.hand_ace_points if r == 1 else min(r, 10)
        return (-pts, 0)

    def meld_score(self, shape: Shape) -> Score:
        kind, _faces, ranks = shape
        pts = sum(rank_points(self.v, r, kind == "set") for r in ranks)
        return (pts, 0) if self.objective == "points" else (0, pts)

    def _solve(
        self, counts: tuple[int, ...], jokers: int
    ) -> tuple[Score, tuple[Shape, ...]] | None:
        fi = next((i for i, c in enumerate(counts) if c), None)
        if fi is None:
            s = self.leftover_score(None)
            return ((s[0] * jokers, s[1] * jokers), ())
        best: tuple[Score, tuple[Shape, ...]] | None = None
        lst = list(counts)
        pending_required = fi == self.required and counts[fi] == self.required_count
        if not pending_required:
            lst[fi] -= 1
            sub = self.solve(tuple(lst), jokers)
            lst[fi] += 1
            if sub is not None:
                ls = self.leftover_score(fi)
                best = ((sub[0][0] + ls[0], sub[0][1] + ls[1]), sub[1])
        for shape in _shapes_from(self.v, counts, jokers, fi):
            _kind, faces, _ranks = shape
            n_jok = 0
            for f in faces:
                if f is None:
                    n_jok += 1
                else:
                    lst[FACE_INDEX[f]] -= 1
            sub = self.solve(tuple(lst), jokers - n_jok)
            for f in faces:
                if f is not None:
                    lst[FACE_INDEX[f]] += 1
            if sub is None:
                continue
            ms = self.meld_score(shape)
            cand = ((sub[0][0] + ms[0], sub[0][1] + ms[1]), (shape,) + sub[1])
            if best is None or cand[0] > best[0]:
                best = cand
        return best


def _counts(cards: Iterable[Card]) -> tuple[list[int], int]:
    counts = [0] * 52
    jokers = 0
    for c in cards:
        if c.is_joker:
            jokers += 1
        else:
            counts[FACE_INDEX[(c.rank, c.suit)]] += 1  # type: ignore[index]
    return counts, jokers


def _materialise(
    variant: Variant, cards: Sequence[Card], shapes: Sequence[Shape], owner: int = -1
) -> Partition:
    pool: dict[Face | None, list[Card]] = {}
    for c in cards:
        pool.setdefault(None if c.is_joker else (c.rank, c.suit), []).append(c)  # type: ignore[arg-type]
    melds: list[Meld] = []
    for kind, faces, _ranks in shapes:
        chosen = [pool[f].pop(0) for f in faces]
        melds.append(
            build_set(variant, chosen, owner)
            if kind == "set"
            else build_run(variant, chosen, owner)
        )
    leftover = [c for lst in pool.values() for c in lst]
    leftover.sort(key=Card.sort_key)
    return Partition(
        [list(m.cards) for m in melds],
        sum(m.points(variant) for m in melds),
        leftover,
        tuple(melds),
    )


def _run_search(
    variant: Variant,
    cards: Sequence[Card],
    objective: str,
    required: Card | None = None,
) -> Partition | None:
    counts, jokers = _counts(cards)
    req_face: Face | None = None
    req_count = 0
    if required is not None and not required.is_joker:
        req_face = (required.rank, required.suit)  # type: ignore[assignment]
        req_count = counts[FACE_INDEX[req_face]]
    search = _Search(variant, objective, req_face, req_count)
    res = search.solve(tuple(counts), jokers)
    if res is None:
        return None
    part = _materialise(variant, cards, res[1])
    if required is not None and required.is_joker:
        if not any(c.is_joker for m in part.melds for c in m):
            return None
    return _swap_in(part, required)


def _swap_in(part: Partition, required: Card | None) -> Partition:
    """Make sure the required physical card (not just its face) is the melded copy."""
    if required is None or any(required in m for m in part.melds):
        return part
    for m in part.melds:
        for i, c in enumerate(m):
            if c.face == required.face:
                m[i] = required
                left = [x if x != required else c for x in part.leftover]
                metas = tuple(
                    Meld(
                        o.kind,
                        tuple(m) if list(o.cards) == [*m[:i], c, *m[i + 1 :]] else o.cards,
                        o.ranks,
                        o.suits,
                        o.owner,
                    )
                    for o in part.meld_objects
                )
                return Partition(part.melds, part.points, left, metas)
    return part


def best_partition(variant: str | Variant, cards: Sequence[Card]) -> Partition:
    """The partition into valid melds with maximum total meld points.

    Ties are broken by fewer leftover cards. Exact (see the module docstring).
    """
    v = get_variant(variant)
    res = _run_search(v, list(cards), "points")
    assert res is not None
    return res


def min_hand_partition(variant: str | Variant, cards: Sequence[Card]) -> Partition:
    """The partition that leaves the fewest hand (penalty) points, then most meld points."""
    v = get_variant(variant)
    res = _run_search(v, list(cards), "hand")
    assert res is not None
    return res


def best_partition_with(
    variant: str | Variant, cards: Sequence[Card], required: Card, min_leftover: int = 0
) -> Partition | None:
    """Best partition in which ``required`` is melded, leaving ``min_leftover`` cards.

    None when no partition melds ``required`` (with that many cards left over).
    """
    v = get_variant(variant)
    cards = list(cards)
    best = _run_search(v, cards, "points", required)
    if best is None or len(best.leftover) >= min_leftover:
        return best
    if min_leftover > 1:
        raise ValueError("min_leftover above 1 is not supported")
    # Force one card out: try each distinct face (and a joker) other than the required card.
    result: Partition | None = None
    tried: set[tuple[int, str | None]] = set()
    for c in cards:
        if c == required or c.face in tried:
            continue
        tried.add(c.face)
        rest = [x for x in cards if x != c]
        p = _run_search(v, rest, "points", required)
        if p is None:
            continue
        cand = Partition(p.melds, p.points, p.leftover + [c], p.meld_objects)
        if result is None or (cand.points, -len(cand.leftover)) > (
            result.points,
            -len(result.leftover),
        ):
            result = cand
    return result


def enumerate_melds(variant: str | Variant, cards: Sequence[Card]) -> list[Meld]:
    """Every distinct meld (by faces and joker positions) the cards can form.

    Naturals are used where held; jokers fill gaps and extend runs at either end.
    Each meld uses specific physical cards from ``cards``.
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
            if kind == "run" and any(
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
