"""What a seat can remember from the events it was shown: the cards seen and where.

Only public facts and the seat's own cards are recorded (events reach a bot already
redacted by `Event.for_seat`). Used by the expert to judge which cards are still live
and what the next player is collecting.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from rami_lan.core import events as E
from rami_lan.core.cards import Card

Face = tuple[int, str | None]


class CardMemory:
    """Discard pile as seen, cards gone to the table, what each seat took from the pile."""

    def __init__(self) -> None:
        self.pile: list[Card] = []
        self.taken_by: dict[int, list[Card]] = {}
        self.gone: Counter[Face] = Counter()  # faces seen leaving play (table, pile)

    def reset(self, first_discard: Card | None = None) -> None:
        self.pile = [first_discard] if first_discard is not None else []
        self.taken_by = {}
        self.gone = Counter()

    def update(self, events: Sequence[E.Event]) -> None:
        for ev in events:
            if isinstance(ev, E.RoundStarted):
                self.reset(ev.first_discard)
            elif isinstance(ev, E.Discarded):
                self.pile.append(ev.card)
            elif isinstance(ev, E.DiscardTaken):
                for c in ev.cards:
                    if c in self.pile:
                        self.pile.remove(c)
                self.taken_by.setdefault(ev.seat, []).extend(ev.cards)
            elif isinstance(ev, E.Knocked):
                if ev.card in self.pile:
                    self.pile.remove(ev.card)
                self.taken_by.setdefault(ev.seat, []).append(ev.card)
            elif isinstance(ev, E.Melded):
                for m in ev.melds:
                    for c in m.cards:
                        self.gone[c.face] += 1
            elif isinstance(ev, E.LaidOff):
                self.gone[ev.card.face] += 1
            elif isinstance(ev, E.JokerRecovered):
                for c in ev.cards:
                    self.gone[c.face] += 1
            elif isinstance(ev, E.StockRefilled):
                self.pile = [ev.kept] if ev.kept is not None else []

    def dead(self, face: Face) -> int:
        """Copies of ``face`` known to be out of reach (on the table or under the pile)."""
        in_pile = sum(1 for c in self.pile[:-1] if c.face == face)
        return self.gone[face] + in_pile
