"""Hints for the table UI, computed from a seat's view only.

- `meld_groups(view)` / `hint_groups(variant, hand)`: the groups of hand cards that
  form melds in the hand's best partition (what the UI underlines).
- `lay_down_hint(view)`: whether "Déposer" is legal now and with which melds (the
  opening threshold and the turn's obligations, ``must_use``, are respected because
  the proposed action is confirmed with `is_legal_for_view`).
- `lay_off_hints(view)`: which hand cards can be laid off on which table meld now.
- `joker_hints(view)`: which table jokers the seat can take back now, with what.
- `hints(view)`: all of the above in one `Hints` value.

The solver proposes; the engine (through `rami_lan.core.shadow`) decides: a hint is
only ever offered when the same action would be accepted by the host.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rami_lan.core import actions as A
from rami_lan.core.cards import Card
from rami_lan.core.questions import best_lay_down, can_open, joker_recoveries, lay_off_options
from rami_lan.core.shadow import is_legal_for_view
from rami_lan.core.solver import best_partition
from rami_lan.core.variants import Variant, get_variant
from rami_lan.core.views import SeatView


@dataclass(frozen=True)
class LayDownHint:
    """``legal``: "Déposer" may be pressed now; ``action`` lays ``melds`` (``points``)."""

    legal: bool
    melds: list[list[Card]] = field(default_factory=list)
    points: int = 0
    need: int = 0
    action: A.LayDown | None = None
    reason: str = ""


@dataclass(frozen=True)
class Hints:
    groups: list[list[Card]]
    lay_down: LayDownHint
    lay_offs: list[A.LayOff]
    jokers: list[A.RecoverJoker]


def hint_groups(variant: str | Variant, hand: Sequence[Card]) -> list[list[Card]]:
    """Groups of ``hand`` cards that form melds (the best partition's melds)."""
    return [list(m) for m in best_partition(get_variant(variant), list(hand)).melds]


meld_hints = hint_groups


def meld_groups(view: SeatView) -> list[list[Card]]:
    """The seat's hand cards that form melds, grouped (underlined on screen)."""
    return hint_groups(view.variant, view.hand)


def _playing(view: SeatView) -> bool:
    return view.seat is not None and view.turn == view.seat and view.phase == "play"


def _opened(view: SeatView) -> bool:
    return any(p.seat == view.seat and p.opened for p in view.players)


def lay_down_hint(view: SeatView) -> LayDownHint:
    """Can the seat lay down now ("Déposer"), and with which melds?"""
    v = get_variant(view.variant)
    need = v.open_min_points if v.requires_opening and not _opened(view) else 0
    if not _playing(view):
        return LayDownHint(False, need=need, reason="not your turn to play")
    hand = list(view.hand)
    must = [c for c in view.must_use if c in hand]
    keep = 1 if v.must_discard_to_go_out else 0
    if v.requires_opening and not _opened(view):
        plan = can_open(v, hand, must, keep)
        if not plan.ok:
            return LayDownHint(False, plan.melds, plan.points, need, None, "below the opening")
        melds = list(plan.meld_objects)
    else:
        part = best_lay_down(v, hand, must, keep) or best_partition(v, hand)
        melds = list(part.meld_objects)
    if not melds:
        return LayDownHint(False, need=need, reason="no meld in hand")
    candidates = [melds] + [[m] for m in sorted(melds, key=lambda m: -m.points(v))]
    for group in candidates:
        action = A.LayDown(view.seat, tuple(A.MeldSpec(m.cards, m.kind) for m in group))  # type: ignore[arg-type]
        if is_legal_for_view(view, action):
            pts = sum(m.points(v) for m in group)
            return LayDownHint(True, [list(m.cards) for m in group], pts, need, action)
    return LayDownHint(
        False,
        [list(m.cards) for m in melds],
        sum(m.points(v) for m in melds),
        need,
        None,
        "the rules refuse it now",
    )


def lay_off_hints(view: SeatView) -> list[A.LayOff]:
    """Legal lay-offs now: one per hand card face and table meld (and run end)."""
    if not _playing(view) or not view.melds:
        return []
    v = get_variant(view.variant)
    out = []
    for card, target, end in lay_off_options(v, view.melds, view.hand):
        action = A.LayOff(view.seat, card, target, end)  # type: ignore[arg-type]
        if is_legal_for_view(view, action):
            out.append(action)
    return out


def joker_hints(view: SeatView) -> list[A.RecoverJoker]:
    """Legal joker recoveries now: (table meld, the hand cards that free a joker)."""
    if not _playing(view) or not view.melds:
        return []
    v = get_variant(view.variant)
    out = []
    for target, cards in joker_recoveries(v, view.melds, view.hand):
        action = A.RecoverJoker(view.seat, target, cards)  # type: ignore[arg-type]
        if is_legal_for_view(view, action):
            out.append(action)
    return out


def hints(view: SeatView) -> Hints:
    """Every hint for the seat's view at once."""
    return Hints(meld_groups(view), lay_down_hint(view), lay_off_hints(view), joker_hints(view))
