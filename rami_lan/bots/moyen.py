"""``moyen``: a sound everyday player.

Takes the top discard when it makes a meld, lays down and lays off whenever it can,
takes jokers back, and discards the loose card that is worth least to keep: high
penalty, few neighbours in hand (same rank in other suits, same suit one or two ranks
away). Never discards a joker while another card may go.
"""

from __future__ import annotations

from rami_lan.bots.base import Bot
from rami_lan.core import actions as A
from rami_lan.core.cards import Card
from rami_lan.core.melds import hand_points
from rami_lan.core.views import SeatView


def neighbours(card: Card, others: list[Card]) -> float:
    """How many cards of ``others`` could join ``card`` in a meld (weighted)."""
    if card.is_joker:
        return 10.0
    score = 0.0
    for o in others:
        if o is card or o.is_joker:
            continue
        if o.rank == card.rank and o.suit != card.suit:
            score += 1.0
        elif o.suit == card.suit:
            d = abs(o.rank - card.rank)
            if card.rank == 1 or o.rank == 1:
                d = min(d, 14 - max(o.rank, card.rank))
            if d == 1:
                score += 1.0
            elif d == 2:
                score += 0.5
    return score


class Moyen(Bot):
    level = "moyen"
    take_gain = 1  # meld points the top discard must add to be taken

    def draw(self, view: SeatView) -> A.Action | None:
        if view.discard and self.take_top_helps(view, self.take_gain):
            return A.DrawDiscard(self.seat, 1)
        return A.DrawStock(self.seat)

    def play(self, view: SeatView) -> A.Action | None:
        return (
            self.lay_down_action(view)
            or self.recover_action(view)
            or self.lay_off_action(view)
        )

    def keep_value(self, view: SeatView, card: Card, melded: set[Card]) -> float:
        """Higher = more worth keeping."""
        if card in melded:
            return 1000.0
        if card.is_joker:
            return 500.0
        v = self.variant(view)
        hand = list(view.hand)
        return 6.0 * neighbours(card, hand) - hand_points(v, card) / 3.0

    def pick_discard(self, view: SeatView) -> Card | None:
        options = self.discardable(view)
        if not options:
            return None
        melded = self.meld_cards(view)
        return min(options, key=lambda c: (self.keep_value(view, c, melded), c.sort_key()))
