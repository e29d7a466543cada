"""``expert_v3``: the third expert (issue 26's sixth pass), kept for measurement.

The ``expert`` of the sixth pass, unchanged: the new ``expert`` (`rami_lan.bots.expert`)
builds on it and is measured against it (docs/bots.md, "Seventh pass"); not offered in
the UI. In every variant but ``500`` it plays move for move as `expert_v2`.

Everything of `expert_v2` (opponent model, concealment, race and end-game discards,
the ``40`` rules, the ``500`` pile-feed check) plus the changes of this pass, each
measured against `expert_v2` with paired runs (docs/bots.md, "Sixth pass"):

- **Holding melds in ``500``** (`hold500`): every card laid is a lay-off target that
  scores for the opponent, so the expert keeps its new melds in hand while no opponent
  is close to going out (the danger of `expert_v1`: below 0.35, i.e. every opponent
  holds four cards or more), still laying off and taking jokers back, and lays
  everything once an opponent is down to three cards or when the hand goes out this turn.
  Paired dev runs against `expert_v2`: 73, 68 and 63 of 100 matches (seeds 13-15).
- **Determinized search in ``500``** (built, measured, off: it does not pay;
  perfect-information Monte Carlo): at the draw (the stock or a depth of the pile) and
  at the discard, each candidate is played out to the end of the round over
  `pimc_worlds` deals of the hidden cards consistent with everything public
  (`rami_lan.bots.sampler`: the opponents' known pile cards, their hand sizes, the
  stock size), with the fast policy of `rami_lan.bots.rollout500`, and scored as the
  match pays: points laid minus points left in hand, both sides. The candidate with
  the best mean replaces the rule-of-thumb move when it gains at least `pimc_margin`
  points and `pimc_z` standard errors of the paired difference.
- The deals come from a random source **derived from the game state** (`state_rng`:
  the bot's seed, the round, the turn, its hand, the pile, the stock size), never from
  a global one, so a seeded match replays exactly.
"""

from __future__ import annotations

import hashlib
import random

from rami_lan.bots.base import best_partition, best_partition_with
from rami_lan.bots.expert_v2 import ExpertV2
from rami_lan.bots.rollout import paired_gain
from rami_lan.bots.rollout500 import Round500
from rami_lan.bots.sampler import World, sample_world, unseen_counts
from rami_lan.bots.tactics import can_go_out
from rami_lan.core import actions as A
from rami_lan.core.cards import Card
from rami_lan.core.melds import hand_points
from rami_lan.core.variants import Variant
from rami_lan.core.views import SeatView


class ExpertV3(ExpertV2):
    level = "expert_v3"
    pimc_variants: frozenset[str] = frozenset()  # off: measured, it loses (docs/bots.md)
    pimc_worlds = 12  # sampled deals per decision
    pimc_turns = 8  # play-out horizon, turns each
    pimc_cands = 4  # discards searched (the base one and the highest loose cards)
    pimc_depths = 3  # pile depths searched at the draw (besides the stock and the base)
    pimc_draw = True
    pimc_discard = True
    pimc_margin = 0.0
    pimc_z = 0.0

    def state_rng(self, view: SeatView) -> random.Random:
        """A random source for this decision, from the bot's seed and the game state."""
        key = (
            self._seed, self.seat, view.round_no, view.turn_no, view.phase,
            tuple(c.face for c in view.hand), tuple(c.face for c in view.discard), view.stock_size,
        )
        digest = hashlib.blake2b(repr(key).encode(), digest_size=8).digest()
        return random.Random(int.from_bytes(digest, "big"))

    def pimc_deals(self, v: Variant, view: SeatView) -> list[World]:
        """`pimc_worlds` deals of the cards this seat cannot see."""
        unseen = unseen_counts(v, view.hand, self.memory.dead, view.discard[-1:])
        sizes = {p.seat: p.n_cards for p in view.players if p.in_round and p.seat != self.seat}
        known = {s: self.model.rec(s).held for s in sizes}
        rng = self.state_rng(view)
        return [sample_world(rng, unseen, sizes, known, view.stock_size) for _ in range(self.pimc_worlds)]

    def pick_choice(self, rows: list[list[float]], base: int) -> int:
        """Index of the candidate to play: the best mean if it beats ``base`` clearly."""
        means = [sum(r) / len(r) for r in rows]
        i = max(range(len(rows)), key=lambda j: (means[j], j == base))
        if i == base:
            return base
        gain, se = paired_gain(rows[i], rows[base])
        return i if gain >= self.pimc_margin and gain >= self.pimc_z * se else base

    # --- 500: holding melds (no lay-off targets for the others) -------------------------

    hold500 = 0.35  # 500: keep melds in hand while the danger stays below this (0: off)

    def play(self, view: SeatView) -> A.Action | None:
        v = self.variant(view)
        if (
            self.hold500
            and v.scoring == "laid_minus_hand"
            and not any(c in view.hand for c in view.must_use)
            and self.danger(view) < self.hold500
            and not can_go_out(v, view.melds, list(view.hand), True)
        ):
            return self.recover_action(view) or self.lay_off_action(view)
        return super().play(view)

    # --- 500: the draw ------------------------------------------------------------------

    def draw(self, view: SeatView) -> A.Action | None:
        base = super().draw(view)
        v = self.variant(view)
        if (
            base is None or not self.pimc_draw or v.id not in self.pimc_variants
            or v.scoring != "laid_minus_hand" or not view.discard
        ):
            return base
        return self.search_draw(v, view, base)

    def draw_candidates(self, v: Variant, view: SeatView, base: A.Action) -> list[int]:
        """Pile depths to search (0: the stock): the base draw, the stock and the depths
        whose take raises the best partition most."""
        hand = list(view.hand)
        pts = best_partition(v, hand).points
        gains: list[tuple[float, int]] = []
        for d in range(1, min(len(view.discard), self.max_depth) + 1):
            taken = list(view.discard[-d:])
            if d == 1:
                part = best_partition(v, hand + taken)  # the top alone need not be melded
            else:
                part = best_partition_with(v, hand + taken, taken[0])
            if part is None:
                continue
            gains.append((part.points - pts, -d))
        gains.sort(reverse=True)
        depths = [0, base.depth if isinstance(base, A.DrawDiscard) else 0]
        for _g, nd in gains[: self.pimc_depths]:
            depths.append(-nd)
        out: list[int] = []
        for d in depths:
            if d not in out and (d == 0 or self.legal(view, A.DrawDiscard(self.seat, d))):
                out.append(d)
        return out

    def search_draw(self, v: Variant, view: SeatView, base: A.Action) -> A.Action:
        depths = self.draw_candidates(v, view, base)
        if len(depths) < 2:
            return base
        game = Round500(v, view.melds, self.pimc_turns)
        order = self.play_order(view)
        order = order[-1:] + order[:-1]  # this seat first: it has drawn
        rows: list[list[float]] = [[] for _ in depths]
        for w in self.pimc_deals(v, view):
            for j, d in enumerate(depths):
                hands = dict(w.hands)
                if d == 0:
                    if not w.stock:
                        rows[j].append(0.0)
                        continue
                    hands[self.seat] = [*view.hand, w.stock[0]]
                    stock, pile = w.stock[1:], list(view.discard)
                else:
                    hands[self.seat] = [*view.hand, *view.discard[-d:]]
                    stock, pile = w.stock, list(view.discard[:-d])
                top = view.discard[-1] if d == 1 else None
                rows[j].append(
                    game.playout(self.seat, order, hands, stock, pile, first_draw=False, taken=top)
                )
        b = depths.index(base.depth if isinstance(base, A.DrawDiscard) else 0)
        d = depths[self.pick_choice(rows, b)]
        return A.DrawDiscard(self.seat, d) if d else A.DrawStock(self.seat)

    # --- 500: the discard ---------------------------------------------------------------

    def pick_discard(self, view: SeatView) -> Card | None:
        base = super().pick_discard(view)
        v = self.variant(view)
        if base is None or not self.pimc_discard or v.id not in self.pimc_variants:
            return base
        if v.scoring != "laid_minus_hand":
            return base
        return self.search_discard500(v, view, base)

    def search_discard500(self, v: Variant, view: SeatView, base: Card) -> Card:
        legal = [c for c in self.discardable(view) if not c.is_joker]
        melded = {c for m in best_partition(v, view.hand).melds for c in m}
        loose = sorted((c for c in legal if c not in melded), key=lambda c: -hand_points(v, c))
        cands = [base] + [c for c in loose if c != base][: self.pimc_cands - 1]
        if len(cands) < 2:
            return base
        game = Round500(v, view.melds, self.pimc_turns)
        order = self.play_order(view)
        rows: list[list[float]] = [[] for _ in cands]
        for w in self.pimc_deals(v, view):
            for j, c in enumerate(cands):
                hands = dict(w.hands)
                hands[self.seat] = [x for x in view.hand if x is not c]
                rows[j].append(game.playout(self.seat, order, hands, w.stock, [*view.discard, c]))
        return cands[self.pick_choice(rows, 0)]


__all__ = ["ExpertV3"]
