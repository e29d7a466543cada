"""``debutant``: plays by the rules and little more.

Draws from the stock, lays down when its best melds may be laid (opening included),
lays off only when its hand is nearly empty (a beginner sees the last cards' places on
the table; without it a hand of one card could never go out and the round ran to the
move cap), never takes jokers back, and discards a random card that is not in one of
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
    lay_off_within = 3  # lays off only with this many cards in hand or fewer

    def play(self, view: SeatView) -> A.Action | None:
        action = self.lay_down_action(view)
        if action is None and len(view.hand) <= self.lay_off_within:
            action = self.lay_off_action(view)
        return action

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
