"""Determinization: opponents' hidden hands sampled consistent with the public history.

A bot sees its own hand, the table, the top of the pile and the events. From those
(`CardMemory`: the pile as seen and the cards gone to the table; `OpponentModel`: the
cards each opponent took from the pile and has not shown since) the cards it cannot
see are known as *faces with counts* (`unseen_counts`). A determinization
(`sample_world`) deals those unseen cards at random: each opponent gets the cards it is
known to hold plus random unseen ones up to its hand size, the rest becomes the stock
in a random order. A sampled hand never holds a card that is public (table, pile) or
in the bot's own hand, nor more copies of a face than the decks have.

Sampled cards are fresh `Card` objects with copy numbers from `SAMPLE_COPY` up, so
two sampled copies of a face are different cards (and never equal to a real card).
Randomness comes only from the `random.Random` the caller passes (the bot's seeded one).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from rami_lan.core.cards import Card
from rami_lan.core.variants import Variant

Face = tuple[int, str | None]
JOKER_FACE: Face = (0, None)
SAMPLE_COPY = 64  # copy numbers of sampled cards start here (real cards use 0..n_decks)
NATURAL_FACES: tuple[Face, ...] = tuple((r, s) for s in "cdhs" for r in range(1, 14))


def unseen_counts(
    v: Variant,
    own: Iterable[Card],
    dead: Callable[[Face], int],
    visible: Iterable[Card] = (),
) -> Counter[Face]:
    """Faces (with counts) the seat cannot see: the decks minus its own hand, minus the
    cards known out of play (``dead(face)``: table, buried pile) and ``visible`` (the
    top of the pile)."""
    out: Counter[Face] = Counter()
    for f in NATURAL_FACES:
        out[f] = v.n_decks
    if v.n_jokers:
        out[JOKER_FACE] = v.n_jokers
    for f in list(out):
        out[f] -= dead(f)
    for c in own:
        out[c.face] -= 1
    for c in visible:
        out[c.face] -= 1
    return Counter({f: n for f, n in out.items() if n > 0})


@dataclass(frozen=True)
class World:
    """One determinization: a hand per opponent and the stock (next card first)."""

    hands: Mapping[int, tuple[Card, ...]]
    stock: tuple[Card, ...]


def _card(face: Face, copy: int) -> Card:
    return Card(face[0], face[1], copy)


def sample_world(
    rng: random.Random,
    unseen: Mapping[Face, int],
    sizes: Mapping[int, int],
    known: Mapping[int, Sequence[Card]] | None = None,
    stock_size: int | None = None,
    accept: Callable[[int, list[Card]], bool] | None = None,
    tries: int = 6,
) -> World:
    """Deal the ``unseen`` faces: seat ``s`` gets its ``known`` cards (those still
    unseen: at most the counts allow) plus random ones up to ``sizes[s]``; the rest,
    shuffled, is the stock (cut to ``stock_size`` when given). If fewer cards are
    unseen than the hands need (a memory that missed something), hands come out short.

    ``accept(seat, hand)`` filters hands the seat's play rules out (e.g. a seat that has
    opened would have laid a card that fits the table): a refused hand is dealt again
    from the pool, up to ``tries`` times (the last deal is kept)."""
    left = Counter(unseen)
    copy = SAMPLE_COPY
    hands: dict[int, list[Card]] = {}
    for seat, cards in (known or {}).items():
        mine = hands.setdefault(seat, [])
        for c in cards:
            if len(mine) < sizes.get(seat, 0) and left[c.face] > 0:
                left[c.face] -= 1
                mine.append(_card(c.face, copy))
                copy += 1
    pool: list[Card] = []
    for f in sorted(left, key=lambda f: (f[0], f[1] or "")):
        for _ in range(left[f]):
            pool.append(_card(f, copy))
            copy += 1
    rng.shuffle(pool)
    for seat in sorted(sizes):
        mine = hands.setdefault(seat, [])
        need = max(0, sizes[seat] - len(mine))
        base = list(mine)
        for t in range(tries if accept is not None else 1):
            if t:
                pool.extend(mine[len(base):])
                rng.shuffle(pool)
                mine[:] = base
            mine.extend(pool[:need])
            del pool[:need]
            if accept is None or accept(seat, mine):
                break
    if stock_size is not None:
        pool = pool[:stock_size]
    return World({s: tuple(h) for s, h in hands.items()}, tuple(pool))


def refine(world: World, seat: int, extra: int, pick: Callable[[list[Card]], Card]) -> World:
    """``world`` with ``seat``'s hand chosen the way a player keeps cards: it takes
    ``extra`` cards from the top of the stock and lets go, one at a time, of the card
    ``pick`` would discard (the cards let go go to the bottom of the stock). A uniform
    deal gives loose, unconnected hands; a player's hand has been sifted."""
    if extra <= 0 or not world.stock:
        return world
    hand = list(world.hands[seat]) + list(world.stock[:extra])
    stock = list(world.stock[extra:])
    for _ in range(min(extra, len(hand))):
        c = pick(hand)
        hand.remove(c)
        stock.append(c)
    hands = dict(world.hands)
    hands[seat] = tuple(hand)
    return World(hands, tuple(stock))
