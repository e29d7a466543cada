"""One round of Rami as a pure state machine.

Theory of operation. `deal` builds a `RoundState` from a deck order (index 0 = top of
the stock). `apply(state, action)` validates the action against the phase table and
the variant's fields, and returns the new state and the events it caused; an illegal
action raises `IllegalAction` naming the seat, the phase and the reason, and the old
state is untouched (states are immutable). A turn is::

    draw --(DrawStock | DrawDiscard | Knock by another seat)--> play
    play --(LayDown | LayOff | RecoverJoker)*--> play --(Discard)--> next seat's draw

`Timeout` (sent by the host when a move timer runs out) plays the automatic move.
Obligations taken during a turn (the deep discard card of 500, a joker recovered in
classique, the discard taken by an unopened player in 40) are kept in ``must_use``; an
action that would make the turn impossible to finish is refused, so a seat never gets
stuck. The round ends when a hand is empty (going out), when the stock is empty at the
end of a turn (500), when no draw is possible, or at the move cap.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from rami_lan.core import actions as A
from rami_lan.core import events as E
from rami_lan.core.cards import Card
from rami_lan.core.deckrng import reshuffle, turn_over
from rami_lan.core.errors import IllegalAction, RulesError
from rami_lan.core.melds import (
    InvalidMeld,
    Meld,
    check_meld,
    hand_points,
    lay_off,
    rank_points,
    recover_joker,
    run_extensions,
    stands_in,
)
from rami_lan.core.openings import (  # noqa: F401  (MAX_LISTED_OPENINGS, opening_lay_downs re-exported)
    MAX_LISTED_OPENINGS,
    _assign,
    _best_opening,
    _distinct_melds,
    _face_of,
    opening_lay_downs,
)
from rami_lan.core.phases import Phase, RoundEnd
from rami_lan.core.reasons import Reason
from rami_lan.core.round_state import (  # noqa: F401  (re-exported: RoundState and its helpers are used as R.*)
    RoundState,
    _find,
    _remove,
    _set,
    replace,
)
from rami_lan.core.solver import best_partition_with, enumerate_melds
from rami_lan.core.variants import MAX_TURNS_PER_ROUND, Variant

PHASE_ACTIONS: dict[Phase, tuple[type, ...]] = {
    Phase.DRAW: (A.DrawStock, A.DrawDiscard, A.Knock, A.Timeout),
    Phase.PLAY: (A.LayDown, A.LayOff, A.RecoverJoker, A.Discard, A.Timeout),
    Phase.OVER: (),
}
"""Which actions each phase accepts; anything else is refused naming the phase."""


# --- dealing -----------------------------------------------------------------------


def deal(
    variant: Variant,
    players: Sequence[int],
    n_seats: int,
    deck: Sequence[Card],
    seed: bytes,
    dealer: int,
    round_no: int = 1,
    knock_enabled: bool = False,
    blind: frozenset[int] = frozenset(),
    refills: tuple[tuple[Card, ...], ...] | None = None,
) -> tuple[RoundState, list[E.Event]]:
    """Deal a round from ``deck`` (top first): one card at a time from left of dealer.

    ``blind`` and ``refills``: see `RoundState` (private dealing only)."""
    players = tuple(sorted(players))
    if dealer not in players:
        raise ValueError(f"dealer {dealer} is not among the players {players}")
    if not 2 <= len(players) <= 4:
        raise ValueError("a round needs 2 to 4 players")
    if len(deck) != variant.deck_size or len(set(deck)) != len(deck):
        raise ValueError(f"the deck must hold the {variant.deck_size} distinct cards of {variant.id}")
    hs = variant.cards_per_player(len(players))
    i = players.index(dealer)
    order = players[i + 1 :] + players[: i + 1]
    hands: list[list[Card]] = [[] for _ in range(n_seats)]
    positions: dict[int, list[int]] = {s: [] for s in players}
    for k in range(hs * len(players)):
        seat = order[k % len(players)]
        hands[seat].append(deck[k])
        positions[seat].append(k)
    top = deck[hs * len(players)]
    z = (0,) * n_seats
    f = (False,) * n_seats
    st = RoundState(
        variant=variant,
        players=players,
        n_seats=n_seats,
        round_no=round_no,
        dealer=dealer,
        seed=seed,
        knock_enabled=knock_enabled,
        hands=tuple(tuple(h) for h in hands),
        stock=tuple(deck[hs * len(players) + 1 :]),
        stock_gen=0,
        stock_base=len(deck),
        discard=(top,),
        melds=(),
        turn=order[0],
        phase=Phase.DRAW,
        turn_no=1,
        opened=f,
        laid_before=f,
        laid_points=z,
        timeouts=z,
        away=f,
        blind=frozenset(blind),
        refills=refills,
    )
    evs: list[E.Event] = [E.RoundStarted(round_no, dealer, order[0], players, hs, len(st.stock), top)]
    for s in players:
        evs.append(E.CardsDealt(s, st.hands[s], tuple(positions[s])))
    evs.append(E.TurnStarted(order[0], 1))
    return st, evs


# --- helpers on rules ---------------------------------------------------------------


def _refill(st: RoundState) -> tuple[RoundState, E.StockRefilled] | None:
    """Rebuild an empty stock from the discard pile minus its top card, if the rules do."""
    v = st.variant
    if v.stock_rule == "end_round" or len(st.discard) < 2:
        return None
    pile, top = st.discard[:-1], st.discard[-1]
    r = st.stock_gen + 1
    if v.stock_rule == "turn_over":
        new = turn_over(pile)
    elif st.refills is None:
        new = reshuffle(st.seed, r, pile)
    elif r - 1 < len(st.refills):
        new = list(st.refills[r - 1])
        if sorted(c.sort_key() for c in new) != sorted(c.sort_key() for c in pile) or len(
                set(new)) != len(pile):
            raise RulesError(f"refill {r} is not an order of the {len(pile)} cards going back")
    else:
        new = list(pile)  # the order is masked: the model keeps the pile as it lies
    ev = E.StockRefilled(r, tuple(pile), v.stock_rule != "turn_over", top)
    return (
        replace(st, stock=tuple(new), stock_gen=r, stock_base=len(new), discard=(top,)),
        ev,
    )


def _draw_one(st: RoundState, seat: int, reason: str) -> tuple[RoundState, list[E.Event], Card]:
    evs: list[E.Event] = []
    if not st.stock:
        refilled = _refill(st)
        if refilled is None:
            raise IllegalAction(seat, st.phase, Reason.of("stock_empty"))
        st, ev = refilled
        evs.append(ev)
    card = st.stock[0]
    pos = st.stock_base - len(st.stock)
    st = replace(st, stock=st.stock[1:], hands=_set(st.hands, seat, st.hands[seat] + (card,)))
    evs.append(E.StockDrawn(seat, card, pos, st.stock_gen, reason))
    return st, evs, card


def _discardable(st: RoundState, seat: int, card: Card) -> Reason | None:
    """None if ``card`` may be discarded now, else the reason."""
    v = st.variant
    hand = st.hands[seat]
    if st.must_use and any(c in hand for c in st.must_use):
        pending = ", ".join(str(c) for c in st.must_use if c in hand)
        return Reason.of("use_before_discard", cards=pending)
    if v.no_discard_of_taken and card == st.taken:
        return Reason.of("discard_taken", card=str(card))
    if card.is_joker and not v.joker_discard_allowed and len(hand) > 1 and seat not in st.blind:
        if not (v.joker_discard_when_stuck and all(c.is_joker for c in hand)):
            return Reason.of("discard_joker")
        if _meld_fits(st, seat, card):
            return Reason.of("discard_joker_fits")
    return None


def _meld_fits(st: RoundState, seat: int, card: Card) -> bool:
    """Could ``card`` be laid off or used to take a joker back right now?"""
    if not st.can_lay_on_table(seat):
        return False
    v = st.variant
    for m in st.melds:
        ends: tuple = ("low", "high") if card.is_joker and m.kind == "run" else (None,)
        for end in ends:
            try:
                lay_off(v, m, card, end)
                return True
            except InvalidMeld:
                pass
        if card.is_joker or not m.n_jokers:
            continue
        if m.kind == "set" and v.set_joker_recovery_needs_two:
            # a set frees its joker only with both missing suits: the card and a partner
            hand = st.hands[seat]
            groups = [(card, o) for o in hand if o is not card and not o.is_joker]
        else:
            groups = [(card,)]
        for g in groups:
            try:
                recover_joker(v, m, g, seat)
                return True
            except InvalidMeld:
                pass
    return False


def _usable(st: RoundState, seat: int, card: Card) -> bool:
    """Can ``card`` still be melded, laid off or used for a joker this turn?"""
    v = st.variant
    hand = st.hands[seat]
    keep = 1 if v.must_discard_to_go_out else 0
    if len(hand) - 1 >= keep and _meld_fits(st, seat, card):
        return True
    if v.requires_opening and not st.opened[seat] and v.open_min_points:
        p = best_partition_with(v, hand, card, min_leftover=keep)
        return p is not None and p.points >= v.open_min_points
    for m in enumerate_melds(v, hand):
        if len(m.cards) <= len(hand) - keep and any(c.face == card.face for c in m.cards):
            return True
    return False


def _turn_can_finish(st: RoundState, seat: int) -> Reason | None:
    """None if the seat (in its play phase) can still end its turn legally, else why not."""
    v = st.variant
    hand = st.hands[seat]
    if not hand:
        return None if not v.must_discard_to_go_out else Reason.of("keep_discard")
    if seat in st.blind:
        return None  # the rest of the hand is unseen: the player's claim, replayed at round end
    pending = [c for c in st.must_use if c in hand]
    for c in pending:
        if not _usable(st, seat, c):
            return Reason.of("unusable", card=str(c))
    if len(pending) > 1 and not _pending_one_usable(st, seat, pending):
        return Reason.of("all_unusable", cards=", ".join(map(str, pending)))
    rest = [c for c in hand if c not in pending]
    if not rest:
        return None if not v.must_discard_to_go_out else Reason.of("keep_discard")
    probe = replace(st, must_use=())
    if any(not _discardable(probe, seat, c) for c in rest):
        return None
    if v.joker_discard_when_stuck and all(c.is_joker for c in rest):
        # Only jokers left, none discardable because one can still be laid: the seat lays
        # them one at a time while one fits, then discards the last one (it goes out) or,
        # with no place left, any one (the stuck exception of `_discardable`).
        return None
    if not v.must_discard_to_go_out and len(rest) == 1 and _usable(probe, seat, rest[0]):
        return None
    return Reason.of("no_discard_left")


def _pending_one_usable(st: RoundState, seat: int, pending: Sequence[Card]) -> bool:
    """Can one of the cards the turn obliges to use (two or more) be used now by a legal
    lay-down, lay-off or joker recovery? Legal, such an action leaves the others usable
    in turn (`apply` checks the state it leads to the same way), so the turn can go
    on. Each card passing `_usable` alone is not enough: two jokers taken back in
    classique may have one place left on the table between them (issue 10)."""
    for a in candidate_actions(st, seat):
        if isinstance(a, A.LayOff):
            used: Sequence[Card] = (a.card,)
        elif isinstance(a, A.LayDown):
            used = [c for spec in a.melds for c in spec.cards]
        elif isinstance(a, A.RecoverJoker):
            used = a.cards
        else:
            continue
        if any(c in pending for c in used) and is_legal(st, a):
            return True
    return False


def _check_turn(st: RoundState, action: A.Action) -> None:
    seat = action.seat
    if seat not in st.players:
        raise IllegalAction(seat, st.phase, Reason.of("not_playing"))
    if st.phase == Phase.OVER:
        raise IllegalAction(seat, st.phase, Reason.of("round_over"))
    if not isinstance(action, PHASE_ACTIONS[st.phase]):
        raise IllegalAction(
            seat, st.phase, Reason.of("wrong_phase", kind=A.KIND_OF[type(action)], phase=str(st.phase))
        )
    if isinstance(action, A.Knock):
        return
    if seat != st.turn:
        raise IllegalAction(seat, st.phase, Reason.of("not_your_turn", seat=st.turn))


def _holds(st: RoundState, seat: int, cards: Sequence[Card]) -> None:
    hand = list(st.hands[seat])
    for c in cards:
        i = _find(hand, c)
        if i < 0:
            raise IllegalAction(seat, st.phase, Reason.of("not_holding", card=str(c)))
        del hand[i]


def _acted(st: RoundState, seat: int) -> RoundState:
    if st.timeouts[seat] or st.away[seat]:
        return replace(st, timeouts=_set(st.timeouts, seat, 0), away=_set(st.away, seat, False))
    return st


# --- action handlers ----------------------------------------------------------------


def _draw_stock(st: RoundState, a: A.DrawStock) -> tuple[RoundState, list[E.Event]]:
    st, evs, card = _draw_one(st, a.seat, "draw")
    return replace(st, phase=Phase.PLAY, knock_window=(), drawn=card, taken=None), evs


def _draw_discard(st: RoundState, a: A.DrawDiscard) -> tuple[RoundState, list[E.Event]]:
    v = st.variant
    seat = a.seat
    if not st.discard:
        raise IllegalAction(seat, st.phase, Reason.of("discard_empty"))
    if a.depth < 1 or a.depth > len(st.discard):
        raise IllegalAction(seat, st.phase, Reason.of("no_depth", depth=a.depth))
    if a.depth > 1 and v.discard_draw != "any_depth":
        raise IllegalAction(seat, st.phase, Reason.of("top_only"))
    taken = st.discard[-a.depth :]
    chosen = taken[0]
    must: tuple[Card, ...] = ()
    new_hand = st.hands[seat] + taken
    nst = replace(
        st,
        discard=st.discard[: -a.depth],
        hands=_set(st.hands, seat, new_hand),
        phase=Phase.PLAY,
        knock_window=(),
        taken=chosen,
        drawn=None,
    )
    if seat in st.blind and (a.depth > 1 or (
            v.unopened_take_must_open and v.requires_opening and not st.opened[seat])):
        must = (chosen,)  # whether it can be used depends on the unseen hand: a claim
    elif v.unopened_take_must_open and v.requires_opening and not st.opened[seat]:
        keep = 1 if v.must_discard_to_go_out else 0
        p = best_partition_with(v, new_hand, chosen, min_leftover=keep)
        if p is None or p.points < v.open_min_points:
            raise IllegalAction(
                seat,
                st.phase,
                Reason.of("take_to_open", card=str(chosen), need=v.open_min_points,
                          best=p.points if p else 0),
            )
        must = (chosen,)
    elif a.depth > 1:
        must = (chosen,)
        if not _usable(nst, seat, chosen):
            raise IllegalAction(
                seat,
                st.phase,
                Reason.of("take_unusable", card=str(chosen)),
            )
    nst = replace(nst, must_use=must)
    if not must:
        why = _turn_can_finish(nst, seat)
        if why:
            raise IllegalAction(seat, st.phase, why)
    return nst, [E.DiscardTaken(seat, taken, a.depth)]


def _after_laying(
    st: RoundState, seat: int, used: Sequence[Card], evs: list[E.Event]
) -> tuple[RoundState, list[E.Event]]:
    """Common end of LayDown / LayOff / RecoverJoker: obligations, going out."""
    if not st.variant.obligation_ends_on_table:
        st = replace(st, must_use=tuple(c for c in st.must_use if c not in used))
    st = replace(st, laid_this_turn=True)
    why = _turn_can_finish(st, seat)
    if why:
        raise IllegalAction(seat, st.phase, why)
    if not st.hands[seat]:
        st, more = _end_round(st, seat, RoundEnd.OUT)
        evs.extend(more)
    return st, evs


def _lay_down(st: RoundState, a: A.LayDown) -> tuple[RoundState, list[E.Event]]:
    v = st.variant
    seat = a.seat
    if not a.melds:
        raise IllegalAction(seat, st.phase, Reason.of("no_meld"))
    all_cards = [c for m in a.melds for c in m.cards]
    if len(set(all_cards)) != len(all_cards):
        raise IllegalAction(seat, st.phase, Reason.of("card_twice"))
    _holds(st, seat, all_cards)
    built: list[Meld] = []
    for spec in a.melds:
        chk = check_meld(v, spec.cards, spec.kind, owner=seat)
        if not chk.valid or chk.meld is None:
            raise IllegalAction(seat, st.phase, Reason.of(
                "invalid_meld", meld=str(spec), reason=chk.why or Reason.of_text(chk.reason)))
        built.append(chk.meld)
    total = sum(m.points(v) for m in built)
    opening = v.requires_opening and not st.opened[seat]
    if opening and total < v.open_min_points:
        raise IllegalAction(seat, st.phase, Reason.of("open_points", points=total, need=v.open_min_points))
    for c in st.must_use:
        if c in st.hands[seat] and v.unopened_take_must_open and opening and c not in all_cards:
            raise IllegalAction(seat, st.phase, Reason.of("open_must_use", card=str(c)))
    hand = _remove(st.hands[seat], all_cards)
    first = len(st.melds)
    nst = replace(
        st,
        hands=_set(st.hands, seat, hand),
        melds=st.melds + tuple(built),
        opened=_set(st.opened, seat, True),
        laid_points=_set(st.laid_points, seat, st.laid_points[seat] + total),
    )
    return _after_laying(nst, seat, all_cards, [E.Melded(seat, tuple(built), first, opening)])


def _target(st: RoundState, seat: int, index: int) -> Meld:
    if not 0 <= index < len(st.melds):
        raise IllegalAction(seat, st.phase, Reason.of("no_meld_number", n=index))
    return st.melds[index]


def _lay_off(st: RoundState, a: A.LayOff) -> tuple[RoundState, list[E.Event]]:
    v = st.variant
    seat = a.seat
    if not st.can_lay_on_table(seat):
        raise IllegalAction(seat, st.phase, Reason.of("lay_off_unopened", need=st.opening_reason()))
    _holds(st, seat, (a.card,))
    meld = _target(st, seat, a.target)
    try:
        new = lay_off(v, meld, a.card, a.end)
    except InvalidMeld as e:
        raise IllegalAction(seat, st.phase, Reason.of(
            "lay_off_failed", card=str(a.card), meld=str(meld), reason=e.why)) from None
    pos = 0 if new.cards[0] == a.card else len(new.cards) - 1
    if new.kind == "set":
        pos = new.cards.index(a.card)
    pts = rank_points(v, new.ranks[pos], new.kind == "set")
    nst = replace(
        st,
        hands=_set(st.hands, seat, _remove(st.hands[seat], (a.card,))),
        melds=_set(st.melds, a.target, new),
        laid_points=_set(st.laid_points, seat, st.laid_points[seat] + pts),
    )
    return _after_laying(nst, seat, (a.card,), [E.LaidOff(seat, a.card, a.target, new)])


def _recover(st: RoundState, a: A.RecoverJoker) -> tuple[RoundState, list[E.Event]]:
    v = st.variant
    seat = a.seat
    if v.joker_recovery == "none":
        raise IllegalAction(seat, st.phase, Reason.of("no_recovery"))
    if not st.can_lay_on_table(seat):
        raise IllegalAction(seat, st.phase, Reason.of("recover_unopened", need=st.opening_reason()))
    if len(set(a.cards)) != len(a.cards):
        raise IllegalAction(seat, st.phase, Reason.of("card_twice"))
    _holds(st, seat, a.cards)
    meld = _target(st, seat, a.target)
    try:
        new, joker = recover_joker(v, meld, a.cards, seat)
    except InvalidMeld as e:
        raise IllegalAction(seat, st.phase, Reason.of(
            "recover_failed", meld=str(meld), reason=e.why)) from None
    pts = sum(rank_points(v, meld.ranks[0], new.kind == "set") for _ in a.cards)
    if new.kind == "run":
        pts = sum(rank_points(v, new.ranks[new.cards.index(c)]) for c in a.cards)
    hand = _remove(st.hands[seat], a.cards) + (joker,)
    must = st.must_use + ((joker,) if v.recovered_joker_must_be_played and joker not in st.must_use else ())
    nst = replace(
        st,
        hands=_set(st.hands, seat, hand),
        melds=_set(st.melds, a.target, new),
        laid_points=_set(st.laid_points, seat, st.laid_points[seat] + pts),
        must_use=must,
    )
    return _after_laying(nst, seat, a.cards, [E.JokerRecovered(seat, a.target, a.cards, joker, new)])


def _discard(st: RoundState, a: A.Discard) -> tuple[RoundState, list[E.Event]]:
    seat = a.seat
    _holds(st, seat, (a.card,))
    why = _discardable(st, seat, a.card)
    if why:
        raise IllegalAction(seat, st.phase, why)
    return _do_discard(st, seat, a.card)


def _do_discard(st: RoundState, seat: int, card: Card) -> tuple[RoundState, list[E.Event]]:
    hand = _remove(st.hands[seat], (card,))
    st = replace(st, hands=_set(st.hands, seat, hand), discard=st.discard + (card,))
    evs: list[E.Event] = [E.Discarded(seat, card)]
    if not hand:
        st, more = _end_round(st, seat, RoundEnd.OUT)
        return st, evs + more
    return _next_turn(st, seat, evs)


def _next_turn(st: RoundState, seat: int, evs: list[E.Event]) -> tuple[RoundState, list[E.Event]]:
    v = st.variant
    laid_before = st.laid_before
    if st.laid_this_turn:
        laid_before = _set(laid_before, seat, True)
    nxt = st.next_player(seat)
    window: tuple[int, ...] = ()
    if st.knock_enabled and len(st.stock) >= 2:
        window = tuple(s for s in st.players if s not in (seat, nxt))
    st = replace(
        st,
        laid_before=laid_before,
        turn=nxt,
        phase=Phase.DRAW,
        turn_no=st.turn_no + 1,
        taken=None,
        drawn=None,
        must_use=(),
        laid_this_turn=False,
        knock_window=window,
    )
    if not st.stock and v.stock_rule == "end_round":
        st, more = _end_round(st, None, RoundEnd.STOCK)
        return st, evs + more
    if st.turn_no > MAX_TURNS_PER_ROUND:
        st, more = _end_round(st, None, RoundEnd.CAP)
        return st, evs + more
    if (
        not st.stock
        and _refill(st) is None
        and not any(is_legal(st, A.DrawDiscard(nxt, d)) for d in _depths(st))
    ):
        st, more = _end_round(st, None, RoundEnd.BLOCKED)
        return st, evs + more
    evs.append(E.TurnStarted(nxt, st.turn_no))
    return st, evs


def _knock(st: RoundState, a: A.Knock) -> tuple[RoundState, list[E.Event]]:
    seat = a.seat
    if not st.knock_enabled:
        raise IllegalAction(seat, st.phase, Reason.of("knock_disabled"))
    if seat not in st.knock_window:
        raise IllegalAction(seat, st.phase, Reason.of("knock_closed"))
    card = st.discard[-1]
    st = replace(
        st,
        discard=st.discard[:-1],
        hands=_set(st.hands, seat, st.hands[seat] + (card,)),
        knock_window=(),
    )
    evs: list[E.Event] = [E.Knocked(seat, card)]
    for _ in range(2):
        st, more, _c = _draw_one(st, seat, "knock")
        evs.extend(more)
    st = replace(
        st,
        turn=seat,
        phase=Phase.PLAY,
        turn_no=st.turn_no + 1,
        taken=card,
        drawn=None,
        must_use=(),
        laid_this_turn=False,
    )
    evs.append(E.TurnStarted(seat, st.turn_no))
    return st, evs


def _timeout(st: RoundState, a: A.Timeout) -> tuple[RoundState, list[E.Event]]:
    """The host's automatic move: draw from the stock, discard the drawn card.

    Never discards a joker if another card can go; obligations of the turn are waived
    (the seat is absent). Two timeouts in a row mark the seat away.
    """
    seat = a.seat
    n = st.timeouts[seat] + 1
    st = replace(st, timeouts=_set(st.timeouts, seat, n), away=_set(st.away, seat, n >= 2))
    evs: list[E.Event] = [E.TimedOut(seat, n >= 2)]
    if st.phase == Phase.DRAW:
        try:
            st, more, _c = _draw_one(st, seat, "timeout")
            st = replace(st, phase=Phase.PLAY, knock_window=(), drawn=_c, taken=None)
            evs.extend(more)
        except IllegalAction:
            st = replace(
                st,
                discard=st.discard[:-1],
                hands=_set(st.hands, seat, st.hands[seat] + st.discard[-1:]),
                phase=Phase.PLAY,
                knock_window=(),
                taken=st.discard[-1],
                drawn=None,
            )
            evs.append(E.DiscardTaken(seat, (st.taken,), 1))  # type: ignore[arg-type]
    st = replace(st, must_use=())
    card = _timeout_card(st, seat)
    st2, more = _do_discard(st, seat, card)
    return st2, evs + more


def _timeout_card(st: RoundState, seat: int) -> Card:
    hand = st.hands[seat]
    ok = [c for c in hand if not _discardable(st, seat, c)] or list(hand)
    if st.drawn in ok and not (st.drawn.is_joker and len(ok) > 1):  # type: ignore[union-attr]
        return st.drawn  # type: ignore[return-value]
    naturals = [c for c in ok if not c.is_joker] or ok
    return max(naturals, key=lambda c: (hand_points(st.variant, c), c.sort_key()))


HANDLERS = {
    A.DrawStock: _draw_stock,
    A.DrawDiscard: _draw_discard,
    A.LayDown: _lay_down,
    A.LayOff: _lay_off,
    A.RecoverJoker: _recover,
    A.Discard: _discard,
    A.Knock: _knock,
    A.Timeout: _timeout,
}


def apply(st: RoundState, action: A.Action) -> tuple[RoundState, list[E.Event]]:
    """Apply ``action``; return (new state, events) or raise `IllegalAction`."""
    handler = HANDLERS.get(type(action))
    if handler is None:
        raise IllegalAction(getattr(action, "seat", None), st.phase,
                            Reason.of("unknown_action", action=repr(action)))
    _check_turn(st, action)
    new, evs = handler(st, action)  # type: ignore[operator]
    if not isinstance(action, A.Timeout) and new.phase != Phase.OVER:
        new = _acted(new, action.seat)
    return new, evs


def is_legal(st: RoundState, action: A.Action) -> bool:
    try:
        apply(st, action)
    except IllegalAction:
        return False
    return True


# --- end of round -------------------------------------------------------------------


def _end_round(st: RoundState, winner: int | None, reason: RoundEnd) -> tuple[RoundState, list[E.Event]]:
    v = st.variant
    rami_sec = winner is not None and not st.laid_before[winner]
    hp = {s: sum(hand_points(v, c) for c in st.hands[s]) for s in st.players}
    scores: dict[int, int] = {}
    for s in st.players:
        if v.scoring == "penalty":
            if winner is None:
                scores[s] = hp[s]
            elif s == winner:
                scores[s] = 0
            else:
                scores[s] = hp[s] * (v.rami_sec_multiplier if rami_sec else 1) + (
                    v.rami_sec_bonus if rami_sec else 0
                )
        elif v.scoring == "winner_collects":
            if s == winner:
                won = sum(hp[o] for o in st.players if o != s)
                scores[s] = won * (v.rami_sec_multiplier if rami_sec else 1) + (
                    v.rami_sec_bonus if rami_sec else 0
                )
            else:
                scores[s] = 0
        else:
            scores[s] = st.laid_points[s] - hp[s]
    res = E.RoundEnded(
        winner=winner,
        rami_sec=rami_sec,
        reason=reason,
        hands=tuple((s, st.hands[s]) for s in st.players),
        hand_points=tuple(sorted(hp.items())),
        laid_points=tuple((s, st.laid_points[s]) for s in st.players),
        scores=tuple(sorted(scores.items())),
    )
    return replace(st, phase=Phase.OVER, result=res, knock_window=()), [res]


# --- legal actions ------------------------------------------------------------------


def _depths(st: RoundState) -> range:
    if st.variant.discard_draw == "any_depth":
        return range(1, len(st.discard) + 1)
    return range(1, 2 if st.discard else 1)


def _distinct(cards: Sequence[Card], keep: Sequence[Card] = ()) -> list[Card]:
    """One card per face, except the cards in ``keep`` (obligations of the turn), which
    are not interchangeable with their twins: the engine tracks them by identity."""
    seen: set = set()
    out = [c for c in keep if c in cards]
    for c in cards:
        if c not in out and c.face not in seen:
            seen.add(c.face)
            out.append(c)
    return out


def candidate_actions(st: RoundState, seat: int) -> Iterator[A.Action]:
    """Actions worth trying for ``seat`` (not yet checked for legality).

    Cards of the same face are interchangeable: one action per face (a card the turn
    obliges to use is not interchangeable with its twin: both are offered). Lay-downs:
    every single meld the hand can form (jokers anywhere they can stand); a seat that
    still has to open against a points threshold gets the openings of
    `opening_lay_downs` instead -- the best one first, then at most
    `MAX_LISTED_OPENINGS` of the others (several melds at once; after a threshold-free
    opening, melds are laid one `LayDown` at a time, so singles cover them).
    """
    if st.phase == Phase.OVER:
        return
    if st.phase == Phase.DRAW and seat in st.knock_window:
        yield A.Knock(seat)
    if seat != st.turn:
        return
    v = st.variant
    hand = st.hands[seat]
    if st.phase == Phase.DRAW:
        yield A.DrawStock(seat)
        for d in _depths(st):
            yield A.DrawDiscard(seat, d)
        return
    distinct = _distinct(hand, st.must_use)
    for c in distinct:
        yield A.Discard(seat, c)
    opening = v.requires_opening and not st.opened[seat] and v.open_min_points > 0
    if not opening:
        must = [c for c in st.must_use if c in hand]
        for m in _distinct_melds(v, hand):
            seen_specs: set = set()
            for prefer in (must, ()):
                cards = _assign([_face_of(c) for c in m.cards], hand, prefer)
                if cards not in seen_specs:
                    seen_specs.add(cards)
                    yield A.LayDown(seat, (A.MeldSpec(cards, m.kind),))
                if not must:
                    break
    else:
        best = _best_opening(st, seat)
        if best is not None:
            yield best
        for n, a in enumerate(opening_lay_downs(st, seat)):
            if n >= MAX_LISTED_OPENINGS:
                break
            if a != best:
                yield a
    if st.can_lay_on_table(seat):
        for i, m in enumerate(st.melds):
            for c in distinct:
                if m.kind == "run" and (c.is_joker or c.suit == m.suit):
                    ends = run_extensions(v, m, c)
                    if len(ends) == 2:
                        yield A.LayOff(seat, c, i, "low")
                        yield A.LayOff(seat, c, i, "high")
                    elif ends:
                        yield A.LayOff(seat, c, i)
                elif m.kind == "set" and (c.is_joker or c.rank == m.lo):
                    yield A.LayOff(seat, c, i)
            if m.n_jokers and v.joker_recovery != "none":
                naturals = [c for c in distinct if not c.is_joker and stands_in(v, m, c)]
                if m.kind == "set" and v.set_joker_recovery_needs_two:
                    for i1 in range(len(naturals)):
                        for i2 in range(i1 + 1, len(naturals)):
                            yield A.RecoverJoker(seat, i, (naturals[i1], naturals[i2]))
                else:
                    for c in naturals:
                        yield A.RecoverJoker(seat, i, (c,))


def legal_actions(st: RoundState, seat: int) -> Iterator[A.Action]:
    """Every legal action for ``seat`` now (one per interchangeable card face)."""
    for a in candidate_actions(st, seat):
        if is_legal(st, a):
            yield a
