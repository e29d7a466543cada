"""The bot interface and the play every level shares.

A bot is given its seat's `SeatView` and the events redacted for that seat
(`Event.for_seat`); it never sees the full state. `Bot.choose(view, new_events)` returns
one action for the seat; the host applies it and asks again while it is the bot's turn.
`Bot.wants_knock(view, new_events=())` answers the "frapper" window. Every action is checked with
`is_legal_for_view` before it is returned; when a plan turns out illegal the bot falls
back to a safe legal action (draw from the stock, discard a card that may go).

`think_delay` is the pause a live host should await before applying a bot's action
(0 in simulations); the bot never sleeps itself.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from functools import lru_cache

from rami_lan.core import actions as A
from rami_lan.core import round as R
from rami_lan.core import solver
from rami_lan.core.cards import Card
from rami_lan.core.events import Event
from rami_lan.core.melds import Meld, hand_points
from rami_lan.core.shadow import legal_actions_for_view, shadow_state
from rami_lan.core.solver import OpeningPlan, Partition, joker_recoveries, lay_off_options
from rami_lan.core.variants import Variant, get_variant
from rami_lan.core.views import SeatView

# The same hand is solved several times in one turn (draw, lay down, discard): the
# bots share a small cache of solver answers. Answers are read-only.


@lru_cache(maxsize=512)
def _best(vid: str, cards: tuple[Card, ...]) -> Partition:
    return solver.best_partition(vid, cards)


@lru_cache(maxsize=512)
def _best_with(vid: str, cards: tuple[Card, ...], required: Card, keep: int) -> Partition | None:
    return solver.best_partition_with(vid, cards, required, keep)


@lru_cache(maxsize=256)
def _open(vid: str, cards: tuple[Card, ...], must: tuple[Card, ...]) -> OpeningPlan:
    return solver.can_open(vid, cards, must)


def best_partition(v: Variant, cards: Sequence[Card]) -> Partition:
    return _best(v.id, tuple(cards))


def best_partition_with(
    v: Variant, cards: Sequence[Card], required: Card, min_leftover: int = 0
) -> Partition | None:
    return _best_with(v.id, tuple(cards), required, min_leftover)


def can_open(v: Variant, cards: Sequence[Card], must: Sequence[Card] = ()) -> OpeningPlan:
    return _open(v.id, tuple(cards), tuple(must))


def _surely_legal(view: SeatView, action: A.Action) -> bool:
    """A sufficient test of the two everyday actions, read from the view alone: a draw
    from a stock that has cards, and the discard of a natural card held when no card of
    the hand is owed to the table this turn and it is not the card just taken from the
    pile where that may not go back. False means "ask the rules" (`round.is_legal` on
    the shadow state), not "illegal"; tests compare both on random states."""
    seat = view.seat
    if seat is None or view.turn != seat or getattr(action, "seat", None) != seat:
        return False
    t = type(action)
    if t is A.DrawStock:
        ok = view.phase == "draw" and view.stock_size > 0
    elif t is A.Discard:
        card = action.card  # type: ignore[attr-defined]
        hand = view.hand
        ok = (
            view.phase == "play"
            and not card.is_joker
            and card in hand
            and not any(c in hand for c in view.must_use)
            and not (card == view.taken and get_variant(view.variant).no_discard_of_taken)
        )
    else:
        return False
    if not ok:
        return False
    players = view.players
    if seat < len(players) and players[seat].seat == seat:  # listed by seat, as view_for does
        return players[seat].in_round
    return any(p.seat == seat and p.in_round for p in players)


class Bot:
    """Base class: subclasses override the decisions (`draw`, `play`, `pick_discard`)."""

    level = "base"
    reads_events = False
    """Does the bot look at the events it is given? Set per class: true when the class
    overrides `observe`, `choose` or `wants_knock` (a table may skip the events of a
    bot that does not)."""

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if "reads_events" not in cls.__dict__:
            cls.reads_events = any(
                getattr(cls, name) is not getattr(Bot, name)
                for name in ("observe", "choose", "wants_knock")
            )

    def __init__(self, seat: int, seed: int = 0, think_delay: float = 0.0) -> None:
        self.seat = seat
        self._seed = seed
        self._rng: random.Random | None = None
        self.think_delay = think_delay
        self._shadow_of: SeatView | None = None
        self._shadow: R.RoundState | None = None
        self._checked: dict[A.Action, bool] = {}
        self._last: tuple[A.Action | None, bool] = (None, False)
        self._opened: tuple[SeatView | None, bool] = (None, False)
        self._variant_id: str | None = None
        self._variant: Variant | None = None

    @property
    def rng(self) -> random.Random:
        """The bot's own random source, seeded with its seed (made when first used:
        most levels never draw from it)."""
        if self._rng is None:
            self._rng = random.Random(self._seed)
        return self._rng

    @rng.setter
    def rng(self, value: random.Random) -> None:
        self._rng = value

    # --- the interface -------------------------------------------------------------

    def choose(self, view: SeatView, new_events: Sequence[Event] = ()) -> A.Action:
        """The seat's next action (legal for ``view``)."""
        self.observe(view, new_events)
        try:
            action = self.decide(view)
        except Exception:  # noqa: BLE001 - a bot must never take the table down
            action = None
        if action is not None and self.legal(view, action):
            return action
        return self.fallback(view)

    def wants_knock(self, view: SeatView, new_events: Sequence[Event] = ()) -> bool:
        """Knock ("frapper") on the discard just made? Only asked inside the window.

        ``new_events`` are the events since the bot was last asked (each event is given
        once, to `wants_knock` or to `choose`); callers that pass none give them to the
        next `choose` instead.
        """
        self.observe(view, new_events)
        try:
            return bool(self.decide_knock(view))
        except Exception:  # noqa: BLE001 - a bot must never take the table down
            return False

    def decide_knock(self, view: SeatView) -> bool:
        """The knock decision itself (subclasses override; default: never)."""
        return False

    def observe(self, view: SeatView, events: Sequence[Event]) -> None:
        """Take note of what happened (the expert remembers; others ignore)."""

    def legal(self, view: SeatView, action: A.Action) -> bool:
        """`is_legal_for_view`, with the view's shadow state built once per view and each
        answer remembered for that view (a decision often asks the same action twice)."""
        if self._shadow_of is not view:
            if _surely_legal(view, action):
                return True  # the view alone says so: no shadow state needed (yet)
            self._shadow_of, self._shadow = view, shadow_state(view)
            self._checked = {}
        elif self._last[0] is action:
            return self._last[1]  # the very action just checked (choose re-checks it)
        try:
            ok = self._checked.get(action)
        except TypeError:  # an unhashable action (a list inside): not remembered
            return self._shadow is not None and action.seat == view.seat and R.is_legal(
                self._shadow, action)
        if ok is None:
            st = self._shadow
            ok = self._checked[action] = (
                st is not None and action.seat == view.seat and R.is_legal(st, action))
        self._last = (action, ok)
        return ok

    # --- decisions -----------------------------------------------------------------

    def decide(self, view: SeatView) -> A.Action | None:
        if view.phase == "draw":
            return self.draw(view)
        if view.phase == "play":
            return self.play(view) or self.discard_action(view)
        return None

    def draw(self, view: SeatView) -> A.Action | None:
        return A.DrawStock(self.seat)

    def play(self, view: SeatView) -> A.Action | None:
        """A meld, lay-off or joker move this turn, or None to discard now."""
        return None

    def discard_action(self, view: SeatView) -> A.Action | None:
        card = self.pick_discard(view)
        return A.Discard(self.seat, card) if card is not None else None

    def pick_discard(self, view: SeatView) -> Card | None:
        options = self.discardable(view)
        return self.rng.choice(options) if options else None

    # --- helpers -------------------------------------------------------------------

    def variant(self, view: SeatView) -> Variant:
        vid = view.variant
        if self._variant_id != vid:  # asked many times per decision
            self._variant_id, self._variant = vid, get_variant(vid)
        return self._variant  # type: ignore[return-value]

    def discardable(self, view: SeatView) -> list[Card]:
        """Hand cards (one per face) the rules let this seat discard now."""
        out: list[Card] = []
        seen = set()
        for c in view.hand:
            if c.face in seen:
                continue
            seen.add(c.face)
            if self.legal(view, A.Discard(self.seat, c)):
                out.append(c)
        return out

    def opened(self, view: SeatView) -> bool:
        if self._opened[0] is not view:  # asked several times per decision
            self._opened = (view, any(p.seat == self.seat and p.opened for p in view.players))
        return self._opened[1]

    def may_touch_table(self, view: SeatView) -> bool:
        v = self.variant(view)
        return not v.requires_opening or self.opened(view)

    def fallback(self, view: SeatView) -> A.Action:
        """A safe legal action: draw from the stock, or discard a high card that may go."""
        seat = self.seat
        if view.phase == "draw":
            if self.legal(view, A.DrawStock(seat)):
                return A.DrawStock(seat)
        else:
            v = self.variant(view)
            options = [c for c in view.hand if self.legal(view, A.Discard(seat, c))]
            if options:
                naturals = [c for c in options if not c.is_joker] or options
                return A.Discard(seat, max(naturals, key=lambda c: (hand_points(v, c), c.sort_key())))
        for a in self._must_use_moves(view):
            if self.legal(view, a):
                return a
        for a in legal_actions_for_view(view):
            if not isinstance(a, A.Knock):
                return a
        raise RuntimeError(f"seat {seat} has no legal action in phase {view.phase}")

    def _must_use_moves(self, view: SeatView) -> list[A.Action]:
        """Lay-offs of the very cards the turn obliges to play (identity matters)."""
        out: list[A.Action] = []
        if view.phase != "play":
            return out
        v = self.variant(view)
        must = [c for c in view.must_use if c in view.hand]
        for card, target, end in lay_off_options(v, view.melds, must):
            out.append(A.LayOff(self.seat, card, target, end))  # type: ignore[arg-type]
        return out

    def hand_must_first(self, view: SeatView) -> list[Card]:
        """The hand with the cards that must be played this turn first."""
        must = [c for c in view.must_use if c in view.hand]
        return must + [c for c in view.hand if c not in must]

    # --- shared building blocks of the stronger levels ------------------------------

    def may_lay_down(self, view: SeatView) -> bool:
        """Cheap pre-check before `lay_down_action` asks the exact solver (default: yes)."""
        return True

    def lay_down_action(self, view: SeatView, hold: Iterable[Card] = ()) -> A.Action | None:
        """Lay down the best melds of the hand if that is legal (opening included)."""
        v = self.variant(view)
        hand = list(view.hand)
        must = [c for c in view.must_use if c in hand]
        if not must and not self.may_lay_down(view):
            return None
        opening = v.requires_opening and not self.opened(view)
        if opening:
            plan = can_open(v, hand, must)
            if not plan.ok:
                return None
            melds: Sequence[Meld] = plan.meld_objects
        else:
            part = solver.best_lay_down(v, hand, must)
            if part is None or not part.meld_objects:
                return None
            held = set(hold)
            melds = [m for m in part.meld_objects if not held & set(m.cards)]
            if not melds:
                return None
        action = A.LayDown(self.seat, tuple(A.MeldSpec(m.cards, m.kind) for m in melds))
        if self.legal(view, action):
            return action
        # all at once may leave nothing to discard: try the melds one by one
        for m in sorted(melds, key=lambda m: -m.points(v)):
            single = A.LayDown(self.seat, (A.MeldSpec(m.cards, m.kind),))
            if self.legal(view, single):
                return single
        return None

    def lay_off_action(self, view: SeatView, keep_jokers: bool = False) -> A.Action | None:
        """Lay off a hand card on a table meld, if one fits and it is legal."""
        if not self.may_touch_table(view) or not view.melds:
            return None
        v = self.variant(view)
        protected = self.meld_cards(view)
        must = set(view.must_use)
        for card, target, end in lay_off_options(v, view.melds, self.hand_must_first(view)):
            if keep_jokers and card.is_joker and card not in must:
                continue
            if card in protected and card not in view.must_use:
                continue
            action = A.LayOff(self.seat, card, target, end)  # type: ignore[arg-type]
            if self.legal(view, action):
                return action
        return None

    def recover_action(self, view: SeatView) -> A.Action | None:
        """Take a joker back from a table meld, if the table may be touched: `recover_from`."""
        if not self.may_touch_table(view) or not view.melds:
            return None
        return self.recover_from(view, self.variant(view))

    def recover_from(self, view: SeatView, v: Variant) -> A.Action | None:
        """The joker recovery to play (the table may be touched and has melds): the first
        legal one."""
        for target, cards in joker_recoveries(v, view.melds, view.hand):
            action = A.RecoverJoker(self.seat, target, cards)
            if self.legal(view, action):
                return action
        return None

    def meld_cards(self, view: SeatView) -> set[Card]:
        """Cards of the hand that belong to its best partition's melds."""
        return {c for m in best_partition(self.variant(view), view.hand).melds for c in m}

    def take_top_helps(self, view: SeatView, min_gain: int = 1) -> bool:
        """Does the top discard raise the hand's best meld points by ``min_gain``?"""
        if not view.discard:
            return False
        v = self.variant(view)
        top = view.discard[-1]
        if top.is_joker:
            return True
        before = best_partition(v, view.hand).points
        after = best_partition_with(v, list(view.hand) + [top], top)
        return after is not None and after.points - before >= min_gain
