"""``expert``: the seventh and eighth passes (issue 26) on top of `expert_v3`.

Everything of `expert_v3` (and so of `expert_v2`: opponent model, concealment, race and
end-game discards, the ``40`` rules, the ``500`` pile-feed check and meld holding). The
seventh pass worked on ``classique`` and measured every change against `expert_v3` with
paired runs (docs/bots.md, "Seventh pass"); none won, so the expert plays move for move
as `expert_v3` in every variant. Built and kept, **off**:

- **Solo race search** (`race_variants_mc`, e.g. ``classique``): while this seat and every
  opponent keep their melds in hand (a race to the first rami sec), the discard and the
  draw (stock or top) are chosen by `rami_lan.bots.race`: each candidate hand is played
  on alone over `race_samples` sampled sequences of draws (the unseen cards, the same
  sequences for every candidate) and scored by the chance that the opponents are still
  in the round when it goes out (`survival`, from the opponent model's hazard).
  Measured against `expert_v3` in ``classique``: 46.2 % (draw and discard), 52.0 % /
  44.5 % (discard only), 46.0 % (draw only), 200-400 matches each.
- The draws come from `state_rng` (a random source derived from the game state), so a
  seeded match replays exactly.

The eighth pass (docs/bots.md, "Eighth pass") keeps one change: in ``multi`` the expert
stops holding its melds at a lower risk of an opponent going out (`own_params`); every
other variant still plays as `expert_v3`.
"""

from __future__ import annotations

from rami_lan.bots.base import best_partition
from rami_lan.bots.conceal import rewards_rami_sec
from rami_lan.bots.expert_v2 import OPEN_HAZARD, PER_VARIANT, OpponentModel, SeatRecord
from rami_lan.bots.expert_v3 import ExpertV3
from rami_lan.bots.race import race_values
from rami_lan.bots.sampler import SAMPLE_COPY, unseen_counts
from rami_lan.core import actions as A
from rami_lan.core.cards import Card
from rami_lan.core.variants import Variant
from rami_lan.core.views import SeatView


class Expert(ExpertV3):
    level = "expert"
    race_variants_mc: frozenset[str] = frozenset()  # off: measured, it loses (docs/bots.md)
    race_samples = 24  # sampled draw sequences per decision
    race_horizon = 10  # draws played on per sample
    race_cands = 6  # discards searched: the base discard, then the best melds' loose cards
    race_mc_discard = True
    race_mc_min_loose = 0  # the discard is searched with this many loose cards or more ...
    race_mc_max_loose = 99  # ... and at most this many
    race_mc_draw = True
    race_draw_margin = 0.0  # survival a take (or a stock draw) must gain over the base draw
    race_haz_scale = 1.0  # scale of the opponents' hazard in the survival curve
    # eighth pass: parameters of this level over `expert_v3`'s, per variant
    # multi: lay the melds once an opponent goes out within the horizon 45 % of the time
    # (`expert_v3`: 60 %); measured against moyen and expert_v3 (docs/bots.md)
    own_params: dict[str, dict[str, float]] = {"multi": {"hold_risk": 0.45}}

    def param(self, v: Variant, name: str) -> float:
        """A tuning parameter: this level's own (`own_params`), else `expert_v3`'s."""
        own = self.own_params.get(v.id, {})
        return own[name] if name in own else super().param(v, name)

    # --- the race: both sides hiding their hands ----------------------------------------

    def mc_race_ready(self, v: Variant, view: SeatView) -> bool:
        """A race between hidden hands (this seat and every opponent keep their melds)?"""
        if v.id not in self.race_variants_mc or not rewards_rami_sec(v):
            return False
        if not self.hold_melds_now(view):
            return False
        return all(
            not (p.opened or self.model.rec(p.seat).laid)
            for p in view.players if p.in_round and p.seat != self.seat
        )

    def survival(self, v: Variant, view: SeatView) -> list[float]:
        """``s[t]``: chance that no opponent has gone out before this seat's draw ``t``
        from now (each opponent plays once before each of this seat's draws)."""
        slope, take = self.param(v, "hidden_slope"), self.param(v, "hidden_take")
        opps = [p for p in view.players if p.in_round and p.seat != self.seat]
        lag = 0 if view.phase == "draw" else 1  # opponent turns before this seat's next draw
        out: list[float] = []
        alive = 1.0
        for t in range(self.race_horizon):
            if t + lag:  # the opponents' turn (t + lag - 1 from now) before this draw
                for p in opps:
                    r = self.model.rec(p.seat)
                    h = (r.turns + t + lag - 1 - self.hidden_start) * slope + take * len(r.taken)
                    h = self.race_haz_scale * max(0.0, min(self.hidden_max, h))
                    alive *= 1.0 - min(1.0, h)
            out.append(alive)
        return out

    def race_samples_for(self, v: Variant, view: SeatView, hidden: list[Card]) -> list[list[Card]]:
        """`race_samples` random draw sequences from the cards this seat cannot see."""
        unseen = unseen_counts(v, hidden, self.memory.dead, view.discard[-1:])
        pool: list[Card] = []
        copy = SAMPLE_COPY
        for f in sorted(unseen, key=lambda f: (f[0], f[1] or "")):
            for _ in range(unseen[f]):
                pool.append(Card(f[0], f[1], copy))
                copy += 1
        rng = self.state_rng(view)
        k = min(self.race_horizon, len(pool), max(0, view.stock_size))
        return [rng.sample(pool, k) for _ in range(self.race_samples)]

    def pick_discard(self, view: SeatView) -> Card | None:
        base = super().pick_discard(view)
        v = self.variant(view)
        if base is None or not self.race_mc_discard or not self.mc_race_ready(v, view):
            return base
        legal = set(self.discardable(view))
        left = [c for c in best_partition(v, view.hand).leftover if c.rank and c in legal]
        if not self.race_mc_min_loose <= len(left) <= self.race_mc_max_loose:
            return base
        cands = [base] + [c for c in left if c != base]
        cands = cands[: self.race_cands]
        if len(cands) < 2:
            return base
        samples = self.race_samples_for(v, view, list(view.hand))
        if not samples or not samples[0]:
            return base
        surv = self.survival(v, view)
        # equal, not the same object: the solver's answers are cached across matches
        hands = [[x for x in view.hand if x != c] for c in cands]
        rows = race_values(v, hands, samples, surv)
        means = [sum(r) for r in rows]
        i = max(range(len(cands)), key=lambda j: (means[j], j == 0))
        return cands[i]

    def draw(self, view: SeatView) -> A.Action | None:
        base = super().draw(view)
        v = self.variant(view)
        if (
            base is None or not self.race_mc_draw or not view.discard
            or not self.mc_race_ready(v, view)
        ):
            return base
        top = view.discard[-1]
        take = A.DrawDiscard(self.seat, 1)
        if top.is_joker or not self.legal(view, take):
            return base
        samples = self.race_samples_for(v, view, list(view.hand))
        if not samples or not samples[0]:
            return base
        surv = self.survival(v, view)
        hand = list(view.hand)
        stock_row, take_row = race_values(v, [hand, hand], samples, surv, first=[None, top])
        gain = (sum(take_row) - sum(stock_row)) / len(samples)
        took = isinstance(base, A.DrawDiscard)
        if took and gain < -self.race_draw_margin:
            return A.DrawStock(self.seat)
        if not took and gain > self.race_draw_margin:
            return take
        return base


__all__ = ["OPEN_HAZARD", "PER_VARIANT", "Expert", "OpponentModel", "SeatRecord"]
