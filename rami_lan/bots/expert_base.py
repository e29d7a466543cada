"""The expert family's base: exact hand judgement, card memory and defence.

`ExpertBase` is what every expert level builds on (`expert_v2`, and through it
`expert_v3` and ``expert``) and the reference opponent ``conceal``. It plays as the first
expert did; that play, frozen, is also the measurement level ``expert_v1``
(`rami_lan.bots.expert_v1.ExpertV1`, this class unchanged under its level name): a
change here changes every expert, so it is measured first (docs/bots.md).

- Judges its hand with the exact solver and lays down the solver's best melds (the
  opening planned with `can_open`; in ``classique``/``40`` one card kept to discard).
- Takes the top discard when it raises the best partition's meld points (the opening
  check included) or adds many live outs.
- Lays off everything that fits, jokers included (a joker held in ``rami`` costs 30).
- Tracks the cards seen (discard pile, table melds) and discards the loose card whose
  removal loses the fewest live outs, weighted by rank before opening.
- Dumps high cards as an opponent gets close to going out (few cards, or opened in a
  threshold variant).
- Avoids feeding the next player: cards that fit a table meld they may use, and cards
  close to what that player took from the pile.
- In ``500`` looks deep into the discard pile and takes the depth that pays most.
- Knocks ("frapper") when the discard adds at least `knock_gain` meld points and it
  has opened or would open with it.
"""

from __future__ import annotations

from collections.abc import Sequence

from rami_lan.bots.base import Bot, best_partition, best_partition_with, can_open
from rami_lan.bots.memory import CardMemory
from rami_lan.bots.moyen import Moyen
from rami_lan.bots.quick import quick_partition
from rami_lan.core import actions as A
from rami_lan.core.cards import Card
from rami_lan.core.events import Event
from rami_lan.core.melds import hand_points
from rami_lan.core.solver import lay_off_options
from rami_lan.core.variants import Variant
from rami_lan.core.views import SeatView

Face = tuple[int, str | None]
JOKER_FACE: Face = (0, None)

MAX_DEPTH = 8  # deepest discard (500) the expert considers


class ExpertBase(Moyen):
    """The expert levels' shared play (see the module); not a level itself."""

    level = "expert_base"
    knock_gain = 10
    hoard_jokers = False  # measured: laying jokers off beats holding them (rami, classique)
    # one-ply lookahead draw / discard (below): measured weaker than the outs-based
    # discard (33 % vs 53-60 % against moyen, 60 matches), so off until it is tuned
    lookahead = False
    lookahead_variants = frozenset({"rami", "classique", "40", "multi"})
    deep_left_w = 0.5  # 500 deep draw: weight of the taken cards' points left in hand
    max_depth = MAX_DEPTH
    take_margin = 1.0  # deadwood points the top discard must save over a blind draw
    outs_w = 3.0  # discard score: weight of one live out kept
    pen_w = 0.3  # discard score: weight of a hand point dropped (plus the danger)
    exact_lay_down = True
    opened_danger = 0.3  # danger once an opponent has opened (threshold variants)

    def __init__(self, seat: int, seed: int = 0, think_delay: float = 0.0) -> None:
        super().__init__(seat, seed, think_delay)
        self.memory = CardMemory()

    def observe(self, view: SeatView, events: Sequence[Event]) -> None:
        self.memory.update(events)

    # the expert judges its hand with the exact solver (moyen uses the greedy one)

    def meld_cards(self, view: SeatView) -> set[Card]:
        return {c for m in best_partition(self.variant(view), view.hand).melds for c in m}

    def may_lay_down(self, view: SeatView) -> bool:
        return True

    def top_helps(self, view: SeatView) -> bool:
        return self.take_top_helps(view, self.take_gain)

    def lay_down_action(self, view: SeatView, hold=()) -> A.Action | None:
        if self.exact_lay_down:
            return Bot.lay_down_action(self, view, hold)
        return super().lay_down_action(view, hold)

    # --- drawing -------------------------------------------------------------------

    def draw(self, view: SeatView) -> A.Action | None:
        v = self.variant(view)
        if v.discard_draw == "any_depth" and len(view.discard) > 1:
            return self.deep_draw(view)
        if self.lookahead and v.id in self.lookahead_variants and view.discard:
            take = A.DrawDiscard(self.seat, 1)
            if self.lookahead_take(view) and self.legal(view, take):
                return take
            return A.DrawStock(self.seat)
        action = super().draw(view)
        if isinstance(action, A.DrawStock) and view.discard and self.top_adds_outs(view):
            take = A.DrawDiscard(self.seat, 1)
            if self.legal(view, take):
                return take
        return action

    def top_adds_outs(self, view: SeatView, min_outs: float = 6.0) -> bool:
        """Is the top discard worth more than a blind draw (many live outs added)?"""
        v = self.variant(view)
        top = view.discard[-1]
        if top.is_joker or hand_points(v, top) >= 10 or self.danger(view) > 0:
            return False
        hand = list(view.hand)
        melded = self.meld_cards(view)
        loose = [c for c in hand if c not in melded]
        held: dict = {}
        for c in hand + [top]:
            held[c.face] = held.get(c.face, 0) + 1

        def outs(cards: list[Card]) -> float:
            total = 0.0
            for face, w in _useful_faces(cards, list(melded), v.ace_low, v.ace_high).items():
                total += w * max(0, v.n_decks - held.get(face, 0) - self.memory.dead(face))
            return total

        return outs(loose + [top]) - outs(loose) >= min_outs

    def deep_draw(self, view: SeatView) -> A.Action | None:
        v = self.variant(view)
        hand = list(view.hand)
        base = best_partition(v, hand).points
        best: tuple[float, int] = (0.0, 0)
        for d in range(1, min(len(view.discard), self.max_depth) + 1):
            taken = list(view.discard[-d:])
            chosen = taken[0]
            part = best_partition_with(v, hand + taken, chosen)
            if part is None:
                continue
            left = sum(hand_points(v, c) for c in taken if c in part.leftover)
            gain = part.points - base - self.deep_left_w * left
            if gain > best[0] and self.legal(view, A.DrawDiscard(self.seat, d)):
                best = (gain, d)
        if best[1]:
            return A.DrawDiscard(self.seat, best[1])
        return A.DrawStock(self.seat)

    # --- playing -------------------------------------------------------------------

    def play(self, view: SeatView) -> A.Action | None:
        # a joker in a long hand turns any pair into a meld: keep it for that, unless
        # an opponent is about to go out (a joker left in hand costs the most)
        keep = self.hoard_jokers and len(view.hand) > 4 and self.danger(view) < 1.0
        return (
            self.lay_down_action(view)
            or self.recover_action(view)
            or self.lay_off_action(view, keep_jokers=keep)
        )

    def danger(self, view: SeatView) -> float:
        """0..1: how close an opponent is to going out (few cards left, or opened)."""
        others = [p for p in view.players if p.in_round and p.seat != self.seat]
        if not others:
            return 0.0
        d = {0: 1.0, 1: 1.0, 2: 1.0, 3: 0.6, 4: 0.3}.get(min(p.n_cards for p in others), 0.0)
        if self.opened_danger and self.variant(view).requires_opening:
            if any(p.opened for p in others):
                d = max(d, self.opened_danger)
        return d

    def next_seat(self, view: SeatView) -> int | None:
        seats = [p.seat for p in view.players if p.in_round]
        if self.seat not in seats:
            return None
        return seats[(seats.index(self.seat) + 1) % len(seats)]

    # --- discarding: keep the loose cards with the most live outs ---------------------

    def pick_discard(self, view: SeatView) -> Card | None:
        options = self.discardable(view)
        if not options:
            return None
        if self.lookahead and self.variant(view).id in self.lookahead_variants:
            return self.lookahead_discard(view, options)
        v = self.variant(view)
        hand = list(view.hand)
        melded = self.meld_cards(view)
        loose = [c for c in hand if c not in melded]
        cands = [c for c in options if c not in melded and not c.is_joker]
        cands = cands or [c for c in options if not c.is_joker] or options
        held: dict = {}
        for c in hand:
            held[c.face] = held.get(c.face, 0) + 1
        before_open = bool(v.requires_opening and v.open_min_points and not self.opened(view))
        danger = self.danger(view)
        nxt = self.next_seat(view)
        info = next((p for p in view.players if p.seat == nxt), None)
        feeds_table = info is not None and (info.opened or not v.requires_opening)
        # a card that fits the table matters most when it could help them go out
        feed_weight = 8.0 if info is not None and info.n_cards <= 5 else 2.0
        taken_next = self.memory.taken_by.get(nxt, []) if nxt is not None else []

        def live(face: tuple[int, str | None], gone: Card) -> int:
            n = v.n_decks - held.get(face, 0) - self.memory.dead(face)
            return max(0, n - (1 if face == gone.face else 0))

        def score(c: Card) -> float:
            rest = [x for x in loose if x is not c]
            outs = 0.0
            for face, weight in _useful_faces(rest, list(melded), v.ace_low, v.ace_high).items():
                w = weight * ((0.5 + min(face[0], 10) / 10) if before_open else 1.0)
                outs += w * live(face, c)
            value = self.outs_w * outs + hand_points(v, c) * (self.pen_w + danger)
            if c in melded:
                value -= 100.0
            if feeds_table and lay_off_options(v, view.melds, [c]):
                value -= feed_weight
            for t in taken_next:
                if not t.is_joker and (
                    t.rank == c.rank or (t.suit == c.suit and abs(t.rank - c.rank) <= 2)
                ):
                    value -= 3.0
            return value + self.discard_adjust(view, c)

        return max(cands, key=lambda c: (score(c), c.sort_key()))

    def discard_adjust(self, view: SeatView, card: Card) -> float:
        """A subclass's extra score for discarding ``card`` (higher: discard sooner)."""
        return 0.0

    # --- one-ply lookahead over the unseen cards ---------------------------------------
    #
    # A hand is judged by its deadwood after the next discard: the hand points of the
    # cards the (greedy) melds leave over, minus the highest loose card (it is what goes
    # next). A discard is judged by the expected value of that over the next stock card,
    # drawn from the unseen cards (remembered pile and table removed); the top discard
    # is taken when it beats that expectation.

    def live_counts(self, view: SeatView, v: Variant) -> dict[Face, int]:
        held: dict[Face, int] = {}
        for c in view.hand:
            held[c.face] = held.get(c.face, 0) + 1
        top = view.discard[-1].face if view.discard else None
        out: dict[Face, int] = {}
        faces: list[Face] = [(r, s) for s in "cshd" for r in range(1, 14)]
        if v.n_jokers:
            faces.append(JOKER_FACE)
        for f in faces:
            total = v.n_jokers if f == JOKER_FACE else v.n_decks
            n = total - held.get(f, 0) - self.memory.dead(f) - (1 if f == top else 0)
            if n > 0:
                out[f] = n
        return out

    @staticmethod
    def _deadwood(v: Variant, cards: list[Card], keep: Card | None = None) -> tuple[int, int]:
        """(hand points of the loose cards, the highest loose natural other than ``keep``)."""
        q = quick_partition(v, cards)
        dw = 0
        mx = 0
        for c in cards:
            if c in q.melded:
                continue
            hp = hand_points(v, c)
            dw += hp
            if c.rank and hp > mx and c is not keep:
                mx = hp
        return dw, mx

    def after_discard(self, v: Variant, cards: list[Card], keep: Card | None = None) -> float:
        """Deadwood of ``cards`` once its highest loose natural (not ``keep``) is gone."""
        dw, mx = self._deadwood(v, cards, keep)
        return dw - mx

    def expected_after_draw(self, v: Variant, cards: list[Card], live: dict[Face, int]) -> float:
        """Expected `after_discard` of ``cards`` plus one unseen card."""
        dw, mx = self._deadwood(v, cards)
        has_joker = any(not c.rank for c in cards)
        near: set[Face] = set()
        for c in cards:
            if not c.rank:
                continue
            for s in "cshd":
                near.add((c.rank, s))
            for d in (-2, -1, 1, 2):
                r = c.rank + d
                if r == 14 or r == 0:
                    r = 1
                if 1 <= r <= 13:
                    near.add((r, c.suit))
        total = 0
        acc = 0.0
        for f, n in live.items():
            total += n
            if f == JOKER_FACE or f in near or has_joker:
                card = Card(f[0], f[1], 99) if f != JOKER_FACE else Card(0, None, 99)
                acc += n * self.after_discard(v, [*cards, card])
            else:
                hp = 10 if f[0] >= 10 else (v.hand_ace_points if f[0] == 1 else f[0])
                acc += n * (dw + hp - max(mx, hp))
        return acc / total if total else float(dw - mx)

    def lookahead_discard(self, view: SeatView, options: list[Card]) -> Card | None:
        v = self.variant(view)
        hand = list(view.hand)
        melded = self.meld_cards(view)
        cands = [c for c in options if not c.is_joker and c not in melded]
        cands = cands or [c for c in options if not c.is_joker] or options
        if len(cands) == 1:
            return cands[0]
        live = self.live_counts(view, v)
        danger = self.danger(view)
        nxt = self.next_seat(view)
        info = next((p for p in view.players if p.seat == nxt), None)
        feeds_table = info is not None and (info.opened or not v.requires_opening)
        feed_weight = 6.0 if info is not None and info.n_cards <= 5 else 2.0
        taken_next = self.memory.taken_by.get(nxt, []) if nxt is not None else []

        def cost(c: Card) -> float:
            rest = [x for x in hand if x is not c]
            now = sum(hand_points(v, x) for x in rest if x not in quick_partition(v, rest).melded)
            later = self.expected_after_draw(v, rest, live)
            value = danger * now + (1.0 - danger) * later
            if feeds_table and view.melds and lay_off_options(v, view.melds, [c]):
                value += feed_weight
            for t in taken_next:
                if t.rank and (t.rank == c.rank or (t.suit == c.suit and abs(t.rank - c.rank) <= 2)):
                    value += 1.5
            return value

        return min(cands, key=lambda c: (cost(c), c.sort_key()))

    def lookahead_take(self, view: SeatView) -> bool:
        """Is the top discard better than the expected stock card?"""
        v = self.variant(view)
        top = view.discard[-1]
        if top.is_joker:
            return True
        hand = list(view.hand)
        live = self.live_counts(view, v)
        keep = top if v.no_discard_of_taken else None
        take = self.after_discard(v, [*hand, top], keep)
        blind = self.expected_after_draw(v, hand, live)
        if take >= blind - self.take_margin:
            return False
        if v.unopened_take_must_open and not self.opened(view):
            return can_open(v, [*hand, top], [top]).ok
        return True

    # --- frapper -------------------------------------------------------------------

    def decide_knock(self, view: SeatView) -> bool:
        if not view.can_knock or not view.discard:
            return False
        v = self.variant(view)
        top = view.discard[-1]
        hand = list(view.hand)
        before = best_partition(v, hand).points
        after = best_partition_with(v, hand + [top], top)
        if after is None or after.points - before < self.knock_gain:
            return False
        if v.requires_opening and not self.opened(view):
            return can_open(v, hand + [top], [top]).ok
        return True


def _useful_faces(
    cards: list[Card], melded: list[Card], ace_low: bool, ace_high: bool
) -> dict[tuple[int, str | None], float]:
    """Faces that would make a meld with two cards, one of them loose (weight: pairs)."""
    out: dict[tuple[int, str | None], float] = {}
    loose = [c for c in cards if not c.is_joker]
    others = [c for c in melded if not c.is_joker]

    def add(face: tuple[int, str | None]) -> None:
        out[face] = out.get(face, 0.0) + 1.0

    def positions(c: Card) -> list[int]:
        if c.rank != 1:
            return [c.rank]
        return [p for p, ok in ((1, ace_low), (14, ace_high)) if ok]

    lo, hi = (1 if ace_low else 2), (14 if ace_high else 13)
    pairs = [(a, b) for i, a in enumerate(loose) for b in loose[i + 1 :]]
    pairs += [(a, b) for a in loose for b in others]
    for a, b in pairs:
        if a.face == b.face:
            continue
        if a.rank == b.rank:
            for s in "cshd":
                if s not in (a.suit, b.suit):
                    add((a.rank, s))
        elif a.suit == b.suit:
            for pa in positions(a):
                for pb in positions(b):
                    x, y = min(pa, pb), max(pa, pb)
                    if y - x == 1:
                        for q in (x - 1, y + 1):
                            if lo <= q <= hi and not (q == 14 and x == 1):
                                add((1 if q == 14 else q, a.suit))
                    elif y - x == 2:
                        add((x + 1, a.suit))
    return out
