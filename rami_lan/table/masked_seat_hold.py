"""What a client seat's side of private dealing holds back and fills in: the host's
messages kept, in order, while a key for one of our cards is on its way (`take`,
`must_hold`, `release`; ``mk_hand`` goes with the views), and our own hidden cards put
into the events and views the host had to send without them (`fill_event`,
`fill_view`).

Split out of `rami_lan.table.masked_seat`: `SeatHolding` is a mixin of
`rami_lan.table.masked_seat.MaskedSeat` (``self`` is the seat, its state set by
`MaskedSeat.__init__`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from rami_lan.core import events as E
from rami_lan.core.cards import Card
from rami_lan.core.views import SeatView
from rami_lan.masked.session import MaskedStateError, Phase
from rami_lan.table.effects import TableNotice
from rami_lan.table.masked_seat_errors import MaskedSeatError
from rami_lan.wire.masked_table import MkHand, SeatMasked

__all__ = ["SeatHolding"]

_ROUND_OVER = (E.RoundVoided, E.RoundStarted, E.MatchEnded)
"""Events that end, for a blocked seat, the masked round it could not take part in."""


class SeatHolding:
    """Holding updates and filling in our cards (a mixin: ``self`` is the `MaskedSeat`)."""

    # ------------------------------------------------------------------ holding updates

    def take(self, item: Any, events: Sequence[Any] | None = None
             ) -> tuple[list[dict[str, Any]], list[Any]]:
        """One message from the host, as it arrives: (the masked messages to send, the host
        messages that may be handled now, in order).

        ``item`` is a masked message, decoded at the edge
        (`rami_lan.wire.masked_table.decode_for_seat`), or any other host message (an
        ``events`` message with ``events``, its decoded events, `TableNotice` values
        among them). Masked-deck messages are used at once; the others wait, in order,
        while a key for one of our cards is on its way (`must_hold`). An ``mk_hand`` goes
        with the views; an events message's assignments are made at once (keys follow)."""
        out: list[dict[str, Any]] = []
        if isinstance(item, SeatMasked) and not isinstance(item, MkHand):
            try:
                out = self.on_masked(item)
            except MaskedSeatError:
                out = []  # refused (`problems`): nothing given
            return out, self.release()
        if events is not None:
            if self._blocked and any(isinstance(e, _ROUND_OVER) for e in events):
                # The round we could not take part in (its roster refused, or our keys lost
                # with a crashed process) is over: void, or the next round is dealt without
                # us, or the match ended. Its messages and the rest go on, in order. Before,
                # only a next ``mk_round`` unblocked us, so a seat benched from the private
                # deal, or a match ending there, held every later message for ever.
                self._blocked = False
            try:
                out += self.on_events([e for e in events if not isinstance(e, TableNotice)])
            except MaskedSeatError:
                pass  # refused (`problems`); the message itself goes on, in order
        ready: list[Any] = []
        if self.must_hold():
            self.hold(item)
        elif isinstance(item, MkHand):
            self._set_hand_checked(item)
        else:
            ready.append(item)
        return out, ready + self.release()

    def must_hold(self) -> bool:
        """Hold the host's next (non-masked) message back? Yes while a key for one of
        our cards is on its way, or while earlier messages wait: order is kept."""
        return bool(self._held) or not self.complete()

    def hold(self, item: Any) -> None:
        """Keep a host message (any object) until `release`."""
        self._held.append(item)

    def release(self) -> list[Any]:
        """The held messages that may go on now, in order (``mk_hand`` ones are used here)."""
        out: list[Any] = []
        while self._held and self.complete():
            item = self._held.popleft()
            if isinstance(item, MkHand):
                self._set_hand_checked(item)
            else:
                out.append(item)
        return out

    def _set_hand_checked(self, msg: MkHand) -> None:
        try:
            self._set_hand(msg)
        except MaskedSeatError as exc:
            self._refuse(MkHand.KIND, str(exc), msg.to_plain())

    def _set_hand(self, msg: MkHand) -> None:
        self._hand_pos = list(msg.pos)

    def fill_event(self, ev: E.Event) -> E.Event:
        """Put our own hidden cards into an event the host had to send without them."""
        if self.p is None:
            return ev
        if isinstance(ev, E.CardsDealt) and ev.seat == self.seat and ev.cards is None:
            cards = [self.p.card_at(0, p) for p in ev.positions]
            if all(c is not None for c in cards):
                return replace(ev, cards=tuple(self._cards[c] for c in cards))  # type: ignore[index]
        elif isinstance(ev, E.StockDrawn) and ev.seat == self.seat and ev.card is None:
            deck = self._gen_deck.get(ev.reshuffle)
            c = self.p.card_at(deck, ev.position) if deck is not None else None
            if c is not None:
                return replace(ev, card=self._cards[c])
        return ev

    def fill_view(self, view: SeatView) -> SeatView:
        """Our real hand in place of the host's nils (``mk_hand`` gave the positions: the
        host does not know our hidden cards, so it sends nil for each)."""
        if self.p is None or self._hand_pos is None or view.phase not in ("draw", "play"):
            if any(c is None for c in view.hand):  # nothing to fill them from: not shown
                return replace(view, hand=tuple(c for c in view.hand if c is not None))
            return view
        if self.p.phase not in (Phase.SHUFFLING, Phase.PLAYING):
            return view  # a view held from a round that is over (void) by now: nothing to fill
        if len(self._hand_pos) != len(view.hand):
            raise MaskedSeatError(f"mk_hand lists {len(self._hand_pos)} positions for a hand of "
                                  f"{len(view.hand)} cards")
        hand: list[Card] = []
        for card, pos in zip(view.hand, self._hand_pos, strict=True):
            if pos is None:
                if card is None:
                    raise MaskedSeatError("the view has no card where mk_hand says the host knows it")
                hand.append(card)  # a card the host knows (taken from the pile): as sent
                continue
            try:
                c = self.p.card_at(*pos)
            except MaskedStateError:  # no such deck
                c = None
            if c is None:
                raise MaskedSeatError(f"mk_hand names position {list(pos)}, which is not a card we hold")
            hand.append(self._cards[c])
        return replace(view, hand=tuple(hand))

