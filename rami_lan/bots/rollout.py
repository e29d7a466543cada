"""Light play-outs of a round's end, for determinized search (core only, no engine).

The engine's `apply` and legality checks cost about a millisecond per turn, too much
for tens of play-outs per decision. `EndGame` is a simplified model of the rest of a
round, built once per decision from the table:

- a seat that has opened lays, each turn, every card whose face fits a table meld now
  (`fits`, from `lay_off_options`; a joker where some meld takes one; a run's next
  card once its neighbour is laid) and the greedy melds of the rest (`quick_partition`);
  it goes out when at most one card is left (the variant's "last card is discarded"
  rule included);
- a seat that has not opened keeps its hand until its greedy melds reach the opening
  minimum; when they place the whole hand at once it goes out with a rami sec;
- a seat takes the top discard only when it goes out with it, else draws the stock;
- it discards the loose card with the most penalty points and the fewest neighbours
  (same rank, or same suit within two ranks).

Melds laid during a play-out do not extend `fits`, and the stock is not refilled (a
play-out stops when it runs dry or after `max_turns` turns each; the round's outcome is
then half the penalty difference). `playout` returns the outcome for one seat:
the mean, over its opponents, of (opponent's penalty − its own penalty).

`discard_outcomes` / `best_discard` play each candidate discard out over the same
sampled worlds (`rami_lan.bots.sampler`: common random numbers, so the comparison is
not swamped by the deal's noise); `paired_gain` says by how much one candidate beats
another and with what standard error.

Races between hidden hands (both sides keeping their melds for a rami sec): nobody
takes a discard except to go out at once, so each seat's draws are fixed by its place
in the play order and its going-out turn can be played alone (`solo_time`), once per
world for the opponents and once per candidate for the searching seat
(`race_outcomes` for the discard, `race_draw_outcomes` for stock against top).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from rami_lan.bots.quick import quick_partition
from rami_lan.bots.sampler import World
from rami_lan.core.cards import Card
from rami_lan.core.errors import RulesError
from rami_lan.core.melds import Meld, hand_points, lay_off
from rami_lan.core.solver import lay_off_options
from rami_lan.core.variants import Variant

Face = tuple[int, str | None]

Fits = tuple[frozenset[Face], bool, dict[Face, frozenset[Face]]]
_FIT_CACHE: dict[tuple[str, tuple[Meld, ...]], Fits] = {}
_PROBE = tuple(Card(r, s, 0) for s in "cdhs" for r in range(1, 14))


def table_fits(v: Variant, table: Sequence[Meld]) -> Fits:
    """(natural faces that lay off on ``table`` now, does some meld take a joker, and
    per such face the faces that fit once it is laid: a run extended card by card)."""
    key = (v.id, tuple(table))
    got = _FIT_CACHE.get(key)
    if got is not None:
        return got
    probe = list(_PROBE)
    if v.n_jokers:
        probe.append(Card(0, None, 0))
    fits: set[Face] = set()
    chain: dict[Face, frozenset[Face]] = {}
    joker = False
    if table:
        for c, i, end in lay_off_options(v, list(table), probe):
            if c.is_joker:
                joker = True
                continue
            fits.add(c.face)
            meld = table[i]
            if meld.kind != "run":
                continue
            try:
                grown = lay_off(v, meld, c, end)
            except RulesError:
                continue
            near = [p for p in _PROBE if p.suit == c.suit]
            more = {d.face for d, _, _ in lay_off_options(v, [grown], near)}
            chain[c.face] = chain.get(c.face, frozenset()) | frozenset(more)
    if len(_FIT_CACHE) > 256:
        _FIT_CACHE.clear()
    got = _FIT_CACHE[key] = (frozenset(fits), joker, chain)
    return got


class EndGame:
    """The light model of the rest of a round on one table (see the module docstring)."""

    def __init__(self, v: Variant, table: Sequence[Meld], max_turns: int = 8) -> None:
        self.v = v
        self.fits, self.joker_fits, self.chain = table_fits(v, table)
        self.max_turns = max_turns
        self.keep_one = v.must_discard_to_go_out
        self.open_min = v.open_min_points if v.requires_opening else 0
        self.sec_mult = max(1, v.rami_sec_multiplier)
        self.sec_bonus = v.rami_sec_bonus
        self._place: dict[tuple[bool, tuple[Card, ...]], tuple[list[Card], bool, bool]] = {}

    def place(self, hand: list[Card], opened: bool) -> tuple[list[Card], bool, bool]:
        """(cards left after laying what it can, goes out, has laid) for a seat's turn."""
        key = (opened, tuple(hand))
        got = self._place.get(key)
        if got is not None:
            return got
        fit: list[Card] = []
        rest: list[Card] = []
        if opened:
            rest = list(hand)
            avail = self.fits
            placed = True
            while placed:  # lay off one card at a time: a run grows card by card
                placed = False
                for c in rest:
                    if (c.face in avail) if c.rank else self.joker_fits:
                        fit.append(c)
                        rest.remove(c)
                        if c.rank and c.face in self.chain:
                            avail = avail | self.chain[c.face]
                        placed = True
                        break
        else:
            rest = hand
        q = quick_partition(self.v, rest)
        left = [c for c in rest if c not in q.melded]
        if not opened and (not q.melds or q.points < self.open_min):
            got = (hand, False, False)
        else:
            if self.keep_one:
                out = len(left) == 1 or (not left and (bool(fit) or any(len(m) >= 4 for m in q.melds)))
            else:
                out = len(left) <= 1
            got = (left, out, bool(fit or q.melds))
        if len(self._place) > 4096:
            self._place.clear()
        self._place[key] = got
        return got

    def penalty(self, hand: Sequence[Card]) -> int:
        v = self.v
        return sum(hand_points(v, c) for c in hand)

    def pick(self, hand: list[Card], taken: Card | None) -> Card:
        """The play-out's discard: most points, fewest neighbours, a joker last."""
        return playout_discard(hand, taken, lambda c: hand_points(self.v, c))

    def playout(
        self,
        me: int,
        order: Sequence[int],
        hands: Mapping[int, Sequence[Card]],
        opened: Mapping[int, bool],
        stock: Sequence[Card],
        top: Card | None,
    ) -> float:
        """Play the round on from ``order[0]``'s draw; the outcome for seat ``me``."""
        hs = {s: list(h) for s, h in hands.items()}
        op = dict(opened)
        laid_before = dict(opened)
        k = 0
        n = len(stock)
        for _ in range(self.max_turns):
            for s in order:
                h = hs[s]
                taken: Card | None = None
                if top is not None:
                    left, out, _ = self.place([*h, top], op[s])
                    if out:
                        return self._outcome(me, s, hs, left, laid_before[s])
                if k >= n:
                    return self._horizon(me, hs)
                taken = None
                h.append(stock[k])
                k += 1
                left, out, laid = self.place(h, op[s])
                if out:
                    return self._outcome(me, s, hs, left, laid_before[s])
                if laid and left:  # (a hand it cannot finish is kept whole)
                    op[s] = True
                    laid_before[s] = True
                    h = hs[s] = list(left)
                top = self.pick(h, taken)
                h.remove(top)
        return self._horizon(me, hs)

    def _outcome(self, me: int, winner: int, hs: dict[int, list[Card]], left: list[Card],
                 laid_before: bool) -> float:
        hs[winner] = []
        mult, bonus = (1, 0) if laid_before else (self.sec_mult, self.sec_bonus)
        pen = {s: (self.penalty(h) * mult + bonus if s != winner else 0) for s, h in hs.items()}
        others = [s for s in hs if s != me]
        return sum(pen[s] - pen[me] for s in others) / max(1, len(others))

    def _horizon(self, me: int, hs: dict[int, list[Card]]) -> float:
        others = [s for s in hs if s != me]
        mine = self.penalty(hs[me])
        return 0.5 * sum(self.penalty(hs[s]) - mine for s in others) / max(1, len(others))


def discard_outcomes(
    game: EndGame,
    me: int,
    hand: Sequence[Card],
    candidates: Sequence[Card],
    order: Sequence[int],
    opened: Mapping[int, bool],
    worlds: Sequence[World],
) -> list[list[float]]:
    """Per candidate discard, the play-out outcome in each of ``worlds`` (the same
    worlds for every candidate). ``order`` is the seats in play order from the next
    player round to ``me`` (last)."""
    out: list[list[float]] = []
    for c in candidates:
        mine = [x for x in hand if x is not c]
        row: list[float] = []
        for w in worlds:
            hands = dict(w.hands)
            hands[me] = mine
            row.append(game.playout(me, order, hands, opened, w.stock, c))
        out.append(row)
    return out


def best_discard(game: EndGame, me: int, hand: Sequence[Card], candidates: Sequence[Card],
                 order: Sequence[int], opened: Mapping[int, bool],
                 worlds: Sequence[World]) -> tuple[Card, list[float]]:
    """The candidate discard with the best mean play-out outcome over ``worlds``, and
    every candidate's mean."""
    rows = discard_outcomes(game, me, hand, candidates, order, opened, worlds)
    means = [sum(r) / max(1, len(r)) for r in rows]
    i = max(range(len(candidates)), key=lambda j: means[j])
    return candidates[i], means


def paired_gain(better: Sequence[float], base: Sequence[float]) -> tuple[float, float]:
    """(mean, standard error) of the per-world difference ``better - base``."""
    n = len(base)
    if n < 2:
        return 0.0, float("inf")
    d = [a - b for a, b in zip(better, base, strict=True)]
    m = sum(d) / n
    var = sum((x - m) ** 2 for x in d) / (n - 1)
    return m, (var / n) ** 0.5


def solo_time(game: EndGame, hand: Sequence[Card], draws: Sequence[Card], top: Card | None,
              opened: bool) -> int:
    """Turns (0-based) until a seat that keeps its hand goes out, drawing ``draws`` in
    turn (it takes ``top`` first if that goes out at once); ``len(draws)`` if never.
    A seat that has not opened lays nothing until its whole hand goes (a rami sec)."""
    h = list(hand)
    if top is not None and game.place([*h, top], opened)[1]:
        return 0
    for t, card in enumerate(draws):
        h.append(card)
        left, out, laid = game.place(h, opened)
        if out:
            return t
        if opened and laid and left:
            h = list(left)
        h.remove(game.pick(h, None))
    return len(draws)


def race_outcomes(
    game: EndGame,
    me: int,
    hand: Sequence[Card],
    candidates: Sequence[Card],
    order: Sequence[int],
    worlds: Sequence[World],
) -> list[list[float]]:
    """A race between hidden hands: per candidate discard and world, the outcome for
    ``me`` when every seat keeps its hand until it goes out at once (rami sec).

    The seats do not take each other's discards (except the next player taking this
    discard to go out at once), so each seat's draws are fixed by its place in
    ``order`` (from the next player to ``me``, last) and its going-out turn is played
    alone: the opponents' once per world, this seat's once per candidate and world.
    The first to go out (in play order) wins; the others pay their hand, multiplied
    (or with the bonus) as a rami sec. Nobody out within the horizon: 0."""
    n = len(order)
    turns = game.max_turns
    mult, bonus = game.sec_mult, game.sec_bonus
    out: list[list[float]] = [[] for _ in candidates]
    for w in worlds:
        draws = {s: w.stock[i::n][:turns] for i, s in enumerate(order)}
        opp_time: dict[int, int] = {}
        for i, s in enumerate(order[:-1]):
            opp_time[s] = solo_time(game, w.hands[s], draws[s], None, False) * n + i
        opp_pen = {s: game.penalty(w.hands[s]) * mult + bonus for s in opp_time}
        nxt = order[0]
        for j, c in enumerate(candidates):
            mine = [x for x in hand if x is not c]
            times = dict(opp_time)
            if n > 1 and game.place([*w.hands[nxt], c], False)[1]:
                times[nxt] = 0
            times[me] = solo_time(game, mine, draws[me], None, False) * n + n - 1
            first = min(times.values())
            if first >= turns * n:
                out[j].append(0.0)
                continue
            winner = min(times, key=lambda s: times[s])
            my_pen = game.penalty(mine) * mult + bonus
            if winner == me:
                val = sum(opp_pen.values()) / max(1, n - 1)
            else:
                others = [s for s in times if s != winner and s != me]
                val = sum(opp_pen[s] for s in others) / max(1, n - 1) - my_pen
            out[j].append(val)
    return out


def race_draw_outcomes(
    game: EndGame,
    me: int,
    hand: Sequence[Card],
    top: Card,
    order: Sequence[int],
    worlds: Sequence[World],
) -> tuple[list[float], list[float]]:
    """A race between hidden hands at this seat's draw (``order`` starts with ``me``):
    per world, the outcome of drawing the stock and of taking ``top`` (the taken card
    plays as this seat's first draw, its later draws come one round later). Both
    branches discard with the play-out rule; the opponents' draws are the same."""
    n = len(order)
    turns = game.max_turns
    mult, bonus = game.sec_mult, game.sec_bonus
    stock_row: list[float] = []
    take_row: list[float] = []
    for w in worlds:
        opp_time = {
            s: solo_time(game, w.hands[s], w.stock[i::n][:turns], None, False) * n + i
            for i, s in enumerate(order) if s != me
        }
        opp_pen = {s: game.penalty(w.hands[s]) * mult + bonus for s in opp_time}
        mine = w.stock[0::n]
        for row, draws in ((stock_row, mine[:turns]), (take_row, (top, *mine[1:turns]))):
            times = dict(opp_time)
            times[me] = solo_time(game, hand, draws, None, False) * n
            if min(times.values()) >= turns * n:
                row.append(0.0)
                continue
            winner = min(times, key=lambda s: times[s])
            if winner == me:
                row.append(sum(opp_pen.values()) / max(1, n - 1))
            else:
                others = [s for s in times if s not in (winner, me)]
                row.append(sum(opp_pen[s] for s in others) / max(1, n - 1)
                           - (game.penalty(hand) * mult + bonus))
    return stock_row, take_row



def playout_discard(hand: list[Card], taken: Card | None, points: Callable[[Card], float]) -> Card:
    """A play-out's discard: the card of most ``points`` with the fewest neighbours in the
    hand (same rank, or same suit within two), a joker last, never ``taken`` (the single
    top card taken this turn) unless it is the only card."""
    best: Card | None = None
    best_s = -1e9
    for c in hand:
        if c is taken and len(hand) > 1:
            continue
        if not c.rank:
            s = -100.0
        else:
            conn = 0
            for d in hand:
                if d is c or not d.rank:
                    continue
                if d.rank == c.rank or (d.suit == c.suit and abs(d.rank - c.rank) <= 2):
                    conn += 1
            s = points(c) - 8.0 * conn
        if s > best_s:
            best, best_s = c, s
    return best if best is not None else hand[0]
