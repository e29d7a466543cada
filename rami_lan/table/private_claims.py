"""Private dealing: a take from the discard pile that the host must rule on (issue 24, item 6).

Some takes are allowed only if the taken card is used this turn: in ``40`` an unopened
player may take the discard only to open with it; in ``500`` a card taken from deeper in
the pile must be melded or laid off this turn. A plain host rules on them with the whole
hand. A private host sees only the cards of a blind seat's hand that were revealed to it
(the rest are stand-ins of its model), so the core, told the seat is blind, accepts the
take as a claim. A false claim then wedged the turn: the claim could never be met, and
every discard was refused.

So a private table rules as a plain one, with the cards it can see: the player's client
reveals the cards the take will be used with before it takes (`take_proof`, the cards of
the opening or meld it plans), and the host refuses the take unless those cards, with
the taken ones, allow it (`take_refusal`). An honest client that can make the take shows
exactly those cards (which go on the table this turn anyway), so both tables accept the
same takes; a client that shows nothing, or too little, is refused as the plain host
would refuse a take it can not use.

Pure functions of the core's values (no I/O): the table machine and the seat call them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from rami_lan.core import actions as A
from rami_lan.core.cards import Card
from rami_lan.core.errors import IllegalAction
from rami_lan.core.match import MatchState, apply
from rami_lan.core.reasons import Reason
from rami_lan.core.solver import best_partition_with
from rami_lan.core.variants import Variant, get_variant
from rami_lan.core.views import SeatView

__all__ = ["discard_proof", "discard_refusal", "needs_proof", "take_proof", "take_refusal"]


def needs_proof(v: Variant, opened: bool, depth: int) -> bool:
    """Is a take from the pile one whose card must be used this turn (hence judged on the
    hand)? ``opened``: whether the taker has opened."""
    return depth > 1 or (v.unopened_take_must_open and v.requires_opening and not opened)


def _same(a: Card, b: Card) -> bool:
    return a is b


def take_proof(view: SeatView, action: A.DrawDiscard) -> list[Card]:
    """The cards of our hand to reveal before ``action`` (a take from the pile) so that a
    private host can rule on it: those of the best opening (``40``) or meld with the
    taken card, none if the take needs no proof or can not be made."""
    v = get_variant(view.variant)
    if view.seat is None or not 1 <= action.depth <= len(view.discard):
        return []
    me = next((p for p in view.players if p.seat == view.seat), None)
    if me is None or not needs_proof(v, me.opened, action.depth):
        return []
    taken = list(view.discard[-action.depth:])
    keep = 1 if v.must_discard_to_go_out else 0
    p = best_partition_with(v, [*view.hand, *taken], taken[0], min_leftover=keep)
    if p is None:
        return []  # a lay-off on the table, or no use at all: nothing of ours to show
    melds = p.melds
    if not (v.unopened_take_must_open and v.requires_opening and not me.opened):
        melds = [m for m in melds if any(_same(c, taken[0]) for c in m)]
    return [c for m in melds for c in m if any(_same(c, h) for h in view.hand)]


def take_refusal(m: MatchState, action: A.DrawDiscard, known: Sequence[Card],
                 n_unknown: int) -> Reason | str:
    """Why a private host refuses a blind seat's take (empty: it may take), judged as the
    plain host judges it but on the cards of the hand it can see (``known``; the
    ``n_unknown`` others stay in the hand, unseen)."""
    r = m.round
    v = m.variant
    seat = action.seat
    if r is None or seat not in r.blind or not 1 <= action.depth <= len(r.discard):
        return ""
    if not needs_proof(v, r.opened[seat], action.depth):
        return ""
    taken = list(r.discard[-action.depth:])
    chosen = taken[0]
    if v.unopened_take_must_open and v.requires_opening and not r.opened[seat]:
        keep = 1 if v.must_discard_to_go_out else 0
        p = best_partition_with(v, [*known, *taken], chosen, min_leftover=max(0, keep - n_unknown))
        if p is None or p.points < v.open_min_points:
            return Reason.of("private_take_to_open", card=str(chosen), need=v.open_min_points,
                             best=p.points if p else 0)
        return ""
    # A card from deep in the pile: the core's own judgement on the cards shown.
    hands = tuple(tuple(known) if s == seat else h for s, h in enumerate(r.hands))
    seen = replace(m, round=replace(r, hands=hands, blind=r.blind - {seat}))
    try:
        apply(seen, action)
    except IllegalAction as exc:
        return Reason.of("private_shown", reason=exc.why)
    return ""


def discard_proof(view: SeatView, action: A.Discard) -> list[Card]:
    """The cards of our hand to reveal before discarding a joker where the variant allows
    that only from a hand of jokers: the other jokers (none if the hand holds another
    card: the discard is refused anyway, and nothing of ours is shown for it)."""
    v = get_variant(view.variant)
    if not action.card.is_joker or v.joker_discard_allowed or len(view.hand) <= 1:
        return []
    rest = [c for c in view.hand if not _same(c, action.card)]
    return rest if all(c.is_joker for c in rest) else []


def discard_refusal(m: MatchState, action: A.Discard, n_unknown: int) -> Reason | str:
    """Why a private host refuses a blind seat's discard of a joker (empty: it may): as a
    plain host, once every other card of the hand is shown (``n_unknown``: cards of the
    hand it can not see), for a joker may be discarded only from a hand of jokers."""
    r = m.round
    v = m.variant
    seat = action.seat
    if r is None or seat not in r.blind or not action.card.is_joker or v.joker_discard_allowed:
        return ""
    if len(r.hands[seat]) <= 1:
        return ""
    if n_unknown:
        return Reason.of("private_joker_discard")
    seen = replace(m, round=replace(r, blind=r.blind - {seat}))
    try:
        apply(seen, action)
    except IllegalAction as exc:
        return exc.why
    return ""
