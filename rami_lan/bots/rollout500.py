"""Light play-outs of a ``500`` round to its end, scored as the match pays (core only).

In ``500`` every card a player lays scores for it and every card left in hand when the
round ends scores against it; the round ends when a player discards its last card or
when the stock is empty at the end of a turn. `Round500` is a fast model of the rest
of a round, built once per decision from the table, for determinized search
(perfect-information Monte Carlo: `rami_lan.bots.sampler` deals the hidden cards, each
candidate move is played out over the same deals, and the best average wins):

- a seat draws the deepest pile card (at most `take_depth` deep) whose take lets it
  lay at least `take_min` more meld points this turn (greedy melds, `quick_partition`,
  with the chosen card placed), else the stock;
- it lays every card that fits the table (a run grows card by card; melds laid during
  the play-out become targets too: a set takes its missing suits, a run its two ends)
  and its greedy melds, and scores their meld points;
- it discards the loose card with the most hand points and the fewest neighbours (as
  `rollout.EndGame.pick`), never the single card it took from the top;
- the round ends when a hand is empty after its discard, when the stock runs dry, or
  after `max_turns` turns each (the hands then count half: the round is not over).

`score` is the outcome for one seat over the rest of the round: its points laid minus
its hand, minus the same for its opponents (their mean). Points already on the table
are the same for every candidate and are not counted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rami_lan.bots.quick import QuickPartition, quick_partition
from rami_lan.bots.rollout import playout_discard, table_fits
from rami_lan.bots.tactics import completes_meld, meld_value
from rami_lan.core.cards import Card
from rami_lan.core.melds import Meld, hand_points
from rami_lan.core.variants import Variant

Face = tuple[int, str | None]


class Round500:
    """The light model of the rest of a ``500`` round (see the module docstring)."""

    def __init__(
        self, v: Variant, table: Sequence[Meld], max_turns: int = 10, take_depth: int = 3,
        take_min: int = 5,
    ) -> None:
        self.v = v
        self.fits, self.joker_fits, self.chain = table_fits(v, table)
        self.max_turns = max_turns
        self.take_depth = take_depth
        self.take_min = take_min
        self._q: dict[frozenset[Card], QuickPartition] = {}
        self._hp: dict[Card, int] = {}

    def quick(self, cards: Sequence[Card]) -> QuickPartition:
        key = frozenset(cards)
        q = self._q.get(key)
        if q is None:
            if len(self._q) > 20000:
                self._q.clear()
            q = self._q[key] = quick_partition(self.v, list(cards))
        return q

    def hp(self, c: Card) -> int:
        got = self._hp.get(c)
        if got is None:
            got = self._hp[c] = hand_points(self.v, c)
        return got

    def hand_value(self, hand: Sequence[Card]) -> int:
        return sum(self.hp(c) for c in hand)

    def _lays(self, c: Card, avail: set[Face]) -> bool:
        return (c.face in avail) if c.rank else self.joker_fits

    def lay(self, hand: list[Card], avail: set[Face]) -> tuple[list[Card], int]:
        """(cards left, meld points laid) for a seat laying what it can; ``avail`` (the
        faces that lay off now) grows with what is laid."""
        v = self.v
        rest = list(hand)
        pts = 0
        placed = True
        while placed and rest:
            placed = False
            for c in rest:
                if self._lays(c, avail):
                    rest.remove(c)
                    pts += meld_value(v, c) if c.rank else 10
                    if c.rank and c.face in self.chain:
                        avail |= self.chain[c.face]
                    placed = True
                    break
        if len(rest) >= 3:
            q = self.quick(rest)
            if q.melds:
                pts += q.points
                for m in q.melds:
                    _targets(m, avail)
                rest = [c for c in rest if c not in q.melded]
        return rest, pts

    def draw_choice(self, hand: list[Card], pile: list[Card], avail: set[Face]) -> int:
        """How deep this seat takes into ``pile`` (0: the stock)."""
        if not pile:
            return 0
        base = self.quick(hand).points if len(hand) >= 3 else 0
        best, depth = self.take_min - 0.5, 0
        for d in range(1, min(self.take_depth, len(pile)) + 1):
            taken = pile[-d:]
            chosen = taken[0]
            if not chosen.rank:
                gain = 20.0  # a joker: always worth a take
            elif not self._lays(chosen, avail) and not completes_meld(self.v, chosen, [*hand, *taken[1:]]):
                continue
            elif self._lays(chosen, avail):
                gain = meld_value(self.v, chosen) + self.quick([*hand, *taken[1:]]).points - base
            else:
                q = self.quick([*hand, *taken])
                if chosen not in q.melded:
                    continue
                gain = q.points - base
            gain -= 0.5 * sum(self.hp(c) for c in taken[1:])
            if gain > best:
                best, depth = gain, d
        return depth

    def pick(self, hand: list[Card], taken: Card | None) -> Card:
        """The play-out's discard: most points, fewest neighbours, a joker last."""
        return playout_discard(hand, taken, self.hp)

    def playout(
        self,
        me: int,
        order: Sequence[int],
        hands: Mapping[int, Sequence[Card]],
        stock: Sequence[Card],
        pile: Sequence[Card],
        first_draw: bool = True,
        laid: Mapping[int, int] | None = None,
        taken: Card | None = None,
    ) -> float:
        """Play on from ``order[0]``'s turn (its draw, or with ``first_draw`` False its
        lay and discard: it has drawn, ``taken`` being the single top card it took, which
        it may not discard this turn); the outcome for ``me`` (module docstring)."""
        first_taken = taken
        hs = {s: list(h) for s, h in hands.items()}
        pts = {s: 0 for s in hs}
        if laid:
            pts.update(laid)
        pl = list(pile)
        avail = set(self.fits)
        k = 0
        n = len(stock)
        skip_draw = not first_draw
        for _ in range(self.max_turns):
            for s in order:
                h = hs[s]
                taken = None
                if skip_draw:
                    skip_draw = False
                    taken = first_taken
                else:
                    d = self.draw_choice(h, pl, avail)
                    if d:
                        got = pl[-d:]
                        del pl[-d:]
                        h.extend(got)
                        if d == 1:
                            taken = got[0]
                    else:
                        if k >= n:
                            return self._score(me, hs, pts, 1.0)
                        h.append(stock[k])
                        k += 1
                left, gained = self.lay(h, avail)
                pts[s] += gained
                if not left:  # every card placed: one must be kept to discard
                    return self._score(me, hs | {s: []}, pts, 1.0)
                h = hs[s] = left
                c = self.pick(h, taken)
                h.remove(c)
                pl.append(c)
                if not h or k >= n:
                    return self._score(me, hs, pts, 1.0)
        return self._score(me, hs, pts, 0.5)

    def _score(self, me: int, hs: Mapping[int, Sequence[Card]], pts: Mapping[int, int], w: float) -> float:
        val = {s: pts[s] - w * self.hand_value(h) for s, h in hs.items()}
        others = [s for s in hs if s != me]
        return val[me] - sum(val[s] for s in others) / max(1, len(others))


def _targets(meld: Sequence[Card], avail: set[Face]) -> None:
    """Add the faces that lay off on a meld just laid (a set's missing suits, a run's ends)."""
    nat = [c for c in meld if c.rank]
    if not nat:
        return
    if all(c.rank == nat[0].rank for c in nat) and len({c.suit for c in nat}) == len(nat):
        if len(meld) < 4:
            have = {c.suit for c in nat}
            avail.update((nat[0].rank, s) for s in "cdhs" if s not in have)
        return
    suit = nat[0].suit
    ranks = [c.rank for c in nat]
    if 1 in ranks and 13 in ranks:  # ace high
        ranks = [14 if r == 1 else r for r in ranks]
    lo = min(ranks)
    hi = lo + len(meld) - 1
    if lo > 1:
        avail.add((lo - 1, suit))
    if hi < 13:
        avail.add((hi + 1, suit))
    elif hi == 13 and lo > 1:
        avail.add((1, suit))
