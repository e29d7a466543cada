"""A tiny bot plug-in for the tests: draws from the stock, lays nothing, discards its
highest card. It uses only the documented interface (view fields, `check_action`)."""

from rami_lan.bots.plugin import check_action
from rami_lan.core import actions as A


class TinyBot:
    def __init__(self, seat, seed):
        self.seat = seat
        self.events_seen = 0
        self.knock_calls = 0

    def choose(self, view, new_events):
        self.events_seen += len(new_events)
        if view.phase == "draw":
            return A.DrawStock(self.seat)
        for card in sorted(view.hand, key=lambda c: -c.rank):
            action = A.Discard(self.seat, card)
            if check_action(view, action) is None:
                return action
        raise RuntimeError("no legal discard")

    def wants_knock(self, view, new_events):
        self.knock_calls += 1
        return False


class Cheater(TinyBot):
    """Always discards a card it does not hold: simulate must stop and say why."""

    def choose(self, view, new_events):
        if view.phase == "draw":
            return A.DrawStock(self.seat)
        from rami_lan.core.cards import Card

        return A.Discard(self.seat, Card(5, "h", 77))


NOT_CALLABLE = 3
