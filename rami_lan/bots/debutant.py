"""``debutant``: plays by the rules and little more.

Draws from the stock, lays down when its best melds may be laid (opening included),
never lays off nor takes jokers back, and discards a random card that is not in one of
its melds (sometimes any card at all).
"""

from __future__ import annotations

from rami_lan.bots.base import Bot
from rami_lan.core import actions as A
from rami_lan.core.cards import Card
from rami_lan.core.views import SeatView


class Debutant(Bot):
    level = "debutant"
    careless = 0.3  # chance of discarding any card, melds included

    def play(self, view: SeatView) -> A.Action | None:
        return self.lay_down_action(view)

    def pick_discard(self, view: SeatView) -> Card | None:
        options = self.discardable(view)
        if not options:
            return None
        if self.rng.random() >= self.careless:
            keep = self.meld_cards(view)
            loose = [c for c in options if c not in keep and not c.is_joker]
            if loose:
                return self.rng.choice(loose)
        return self.rng.choice(options)
