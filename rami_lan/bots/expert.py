"""``expert``: `expert_v1`'s hand judgement plus hidden-information reasoning.

On top of `expert_v1` (exact solver, card memory, outs-based discards, deep draws in
``500``, knocking):

- **Opponent model** (`OpponentModel`, public facts only): per opponent, the turns it
  has played this round, the cards it took from the pile, the turns since it last put
  a card on the table, its hand size and whether it opened. From those, a *hazard*:
  the chance it goes out on its next turn (`hazard`). An opponent that has not laid
  anything can still go out all at once (a rami sec), so its hazard grows with the
  turns it has played and the cards it took, not only with its hand size.
- **Expected-penalty dumping**: the discard weighs each card's penalty by the chance
  that an opponent goes out within the next few turns, times the multiplier a rami sec
  would apply (`danger`), instead of waiting for an opponent to open or hold few cards.
- **Concealment** where the variant rewards a rami sec (×2 in ``rami``/``multi``, +25 in
  ``classique``/``40``): it holds its melds in hand while the risk is low, and lays
  them all at once when it can go out in one turn or when the expected penalty of the
  melds it holds outweighs the expected reward (`hold_melds`).
- In ``500`` (laid cards score, a hand scores against) it lays early as `expert_v1`.

Every decision stays within a few milliseconds (`benchmarks/bots.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rami_lan.bots.base import best_partition
from rami_lan.bots.conceal import goes_out_now, rewards_rami_sec
from rami_lan.bots.expert_v1 import ExpertV1
from rami_lan.core import actions as A
from rami_lan.core import events as E
from rami_lan.core.cards import Card
from rami_lan.core.melds import hand_points
from rami_lan.core.solver import lay_off_options
from rami_lan.core.variants import Variant
from rami_lan.core.views import PlayerInfo, SeatView


@dataclass
class SeatRecord:
    """What the table showed of one opponent in the current round."""

    turns: int = 0  # draws made this round
    taken: list[Card] = field(default_factory=list)  # cards taken from the pile
    last_laid: int = 0  # its turn count when it last put a card on the table
    laid: bool = False


class OpponentModel:
    """Public history per seat, rebuilt every round from the events."""

    def __init__(self) -> None:
        self.seats: dict[int, SeatRecord] = {}

    def rec(self, seat: int) -> SeatRecord:
        r = self.seats.get(seat)
        if r is None:
            r = self.seats[seat] = SeatRecord()
        return r

    def update(self, events: Sequence[E.Event]) -> None:
        for ev in events:
            if isinstance(ev, E.RoundStarted):
                self.seats = {}
            elif isinstance(ev, E.StockDrawn):
                if ev.reason == "draw":
                    self.rec(ev.seat).turns += 1
            elif isinstance(ev, E.DiscardTaken):
                r = self.rec(ev.seat)
                r.turns += 1
                r.taken.extend(ev.cards)
            elif isinstance(ev, E.Knocked):
                self.rec(ev.seat).taken.append(ev.card)
            elif isinstance(ev, E.Melded | E.LaidOff | E.JokerRecovered):
                r = self.rec(ev.seat)
                r.last_laid = r.turns
                r.laid = True


# chance of going out on its next turn for a seat that has laid melds, by the cards in
# its hand before its draw (measured: expert_v1 self-play and conceal, rami)
OPEN_HAZARD = (1.0, 0.32, 0.13, 0.16, 0.025, 0.01)


class Expert(ExpertV1):
    level = "expert"
    conceal = True
    table_out = True  # count lay-offs on the table when judging a one-turn going out
    horizon = 3  # opponent turns over which the dumping weighs the danger
    hold_risk = 0.30  # hold melds while an opponent goes out within the horizon less often
    # a hidden hand's hazard grows by `hidden_slope` per turn after `hidden_start`
    # (measured against conceal in rami: 1.5 % on turns 0-2, 8 % on 3-5, 24 % on 6-8)
    hidden_start = 2
    hidden_slope = 0.045
    hidden_take = 0.02  # extra hazard per card it took from the pile
    hidden_max = 0.3
    danger_scale = 1.6  # danger = scale * P(out within horizon) * multiplier

    def __init__(self, seat: int, seed: int = 0, think_delay: float = 0.0) -> None:
        super().__init__(seat, seed, think_delay)
        self.model = OpponentModel()

    def observe(self, view: SeatView, events: Sequence[E.Event]) -> None:
        super().observe(view, events)
        self.model.update(events)

    # --- the opponent model --------------------------------------------------------

    def hazard(self, v: Variant, p: PlayerInfo) -> float:
        """Chance that ``p`` goes out on its next turn, from public facts."""
        r = self.model.rec(p.seat)
        if p.opened or r.laid:
            n = p.n_cards
            return OPEN_HAZARD[n] if n < len(OPEN_HAZARD) else 0.005
        # a hidden hand: it goes out all at once, more likely the longer it waits
        h = (r.turns - self.hidden_start) * self.hidden_slope + self.hidden_take * len(r.taken)
        return max(0.0, min(self.hidden_max, h))

    def out_risk(self, view: SeatView, turns: int) -> float:
        """Chance that some opponent goes out within its next ``turns`` turns."""
        v = self.variant(view)
        stay = 1.0
        for p in view.players:
            if p.in_round and p.seat != self.seat:
                stay *= (1.0 - self.hazard(v, p)) ** turns
        return 1.0 - stay

    def danger(self, view: SeatView) -> float:
        """Weight of a penalty point in the discard, from the chance of being caught."""
        v = self.variant(view)
        if v.scoring == "laid_minus_hand":
            return super().danger(view)
        risk = self.out_risk(view, self.horizon)
        mult = 1.0
        if rewards_rami_sec(v):
            hidden = [
                p for p in view.players
                if p.in_round and p.seat != self.seat and not (p.opened or self.model.rec(p.seat).laid)
            ]
            if hidden:
                mult = max(1.0, float(v.rami_sec_multiplier)) + v.rami_sec_bonus / 60
        return min(1.5, self.danger_scale * risk * mult)

    # --- concealment -----------------------------------------------------------------

    def hold_melds(self, view: SeatView) -> bool:
        """Keep the melds in hand this turn (aiming at a rami sec)?"""
        v = self.variant(view)
        if not self.conceal or not rewards_rami_sec(v) or self.opened(view):
            return False
        if self.model.rec(self.seat).laid:
            return False
        if any(c in view.hand for c in view.must_use):
            return False
        if goes_out_now(v, view) or self.out_with_lay_offs(v, view):
            return False
        risk = self.out_risk(view, 2)
        if risk >= self.hold_risk:
            return False
        # the penalty the melds would cost if caught, against the rami sec's reward
        part = best_partition(v, view.hand)
        held = sum(hand_points(v, c) for m in part.melds for c in m)
        loose = len(part.leftover)
        reward = 40.0 * (v.rami_sec_multiplier - 1) + v.rami_sec_bonus
        chance = {0: 0.9, 1: 0.8, 2: 0.5, 3: 0.3, 4: 0.15}.get(loose, 0.05)
        return risk * held < chance * reward + 10.0

    def out_with_lay_offs(self, v: Variant, view: SeatView) -> bool:
        """Can the hand go out this turn with its melds plus lay-offs on the table?"""
        if not self.table_out or not view.melds:
            return False
        part = best_partition(v, view.hand)
        left = list(part.leftover)
        fit = {c for c, _, _ in lay_off_options(v, view.melds, left)}
        rest = [c for c in left if c not in fit]
        if v.must_discard_to_go_out:
            return len(rest) == 1 or (not rest and len(left) > 1)
        return len(rest) <= 1

    def play(self, view: SeatView) -> A.Action | None:
        if self.hold_melds(view):
            return None
        return super().play(view)
