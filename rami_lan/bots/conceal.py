"""``conceal``: a reference opponent that hides its melds (a test and measurement bot).

It plays like `expert_v1` (`rami_lan.bots.expert_base.ExpertBase`, its base too: exact
solver, memory, outs-based discards) with one difference, the plain strategy strong
human players use at the seed tables: **it does not lay anything down until it can go
out in one turn** (a "rami sec": doubled penalties in ``rami``/``multi``, +25 in
``classique``/``40``) **or until an opponent gets close** (`close_cards` cards or
fewer in hand). Obligations of the turn (a card taken from the pile in ``40``, a
recovered joker in ``classique``) are always played.

In ``500`` (no reward for a rami sec, every laid card scores) it plays as `expert_v1`.
It is not offered in the UI: it is the opponent the new ``expert`` is measured against
(`rami-lan simulate --players expert,conceal`).
"""

from __future__ import annotations

from rami_lan.bots.base import best_partition
from rami_lan.bots.expert_base import ExpertBase
from rami_lan.core import actions as A
from rami_lan.core.variants import Variant
from rami_lan.core.views import SeatView


def rewards_rami_sec(v: Variant) -> bool:
    """Does going out in one turn pay more than going out after laying before?"""
    return v.rami_sec_multiplier > 1 or v.rami_sec_bonus > 0


def goes_out_now(v: Variant, view: SeatView) -> bool:
    """Can the hand (after its draw) be melded whole in this turn, bar one discard?"""
    part = best_partition(v, view.hand)
    left = len(part.leftover)
    if v.must_discard_to_go_out:
        return left == 1 or (left == 0 and len(view.hand) > 3)
    return left <= 1


class Conceal(ExpertBase):
    level = "conceal"
    close_cards = 5  # an opponent with this many cards or fewer: open now

    def threatened(self, view: SeatView) -> bool:
        others = [p for p in view.players if p.in_round and p.seat != self.seat]
        return any(p.n_cards <= self.close_cards for p in others)

    def play(self, view: SeatView) -> A.Action | None:
        v = self.variant(view)
        if (
            not rewards_rami_sec(v)
            or self.opened(view)
            or any(c in view.hand for c in view.must_use)
            or self.threatened(view)
            or goes_out_now(v, view)
        ):
            return super().play(view)
        return None  # hold the melds: discard and wait
