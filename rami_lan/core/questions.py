"""What the game asks about a hand and the table: the best lay-down a turn allows, whether
a hand can open (`can_open`), which cards lay off where (`lay_off_options`) and which
jokers can be taken back (`joker_recoveries`).

Beside `rami_lan.core.melds` (the meld rules these apply) and on top of the exact
partition search (`rami_lan.core.solver`). The engine, the hints, the bots and the UI
ask these; none of them decides a rule itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations

from rami_lan.core.cards import Card
from rami_lan.core.melds import InvalidMeld, Meld, lay_off, recover_joker, run_extensions
from rami_lan.core.solver.common import Partition
from rami_lan.core.solver.search import DEFAULT, Solver, best_partition_with
from rami_lan.core.variants import Variant, get_variant


def best_lay_down(
    variant: str | Variant,
    hand: Sequence[Card],
    must_use: Sequence[Card] = (),
    keep: int | None = None,
    solver: Solver | None = None,
) -> Partition | None:
    """The best lay-down the turn allows: the most meld points, melding the first card
    of ``must_use`` still in ``hand`` (the turn's obligation), and leaving ``keep``
    cards in hand (default: one when the variant makes players discard to go out).

    Exact (the solver's search under those constraints). None when the obligation can
    not be melded with ``keep`` cards left; a partition without melds when nothing can
    be laid. The one helper behind the engine's best opening, the bots' lay-down and
    the UI's "Déposer" hint.
    """
    v = get_variant(variant)
    hand = list(hand)
    if keep is None:
        keep = 1 if v.must_discard_to_go_out else 0
    must = [c for c in must_use if c in hand]
    if must:
        return best_partition_with(v, hand, must[0], min_leftover=keep, solver=solver)
    return (solver or DEFAULT).search(v, hand, "points", None, keep)


@dataclass(frozen=True)
class OpeningPlan:
    """Can a hand open now, and with which melds (the best-scoring ones)."""

    ok: bool
    points: int
    need: int
    melds: list[list[Card]] = field(default_factory=list)
    meld_objects: tuple[Meld, ...] = ()


def can_open(
    variant: str | Variant,
    hand: Sequence[Card],
    must_use: Sequence[Card] = (),
    keep: int | None = None,
    solver: Solver | None = None,
) -> OpeningPlan:
    """The best opening lay-down of ``hand``: ok when it reaches the variant's threshold.

    ``must_use``: cards that must be among the melds (40's discard taken before opening;
    only the first is enforced exactly, the others are checked). ``keep``: cards that
    must stay in hand (default: one when the variant makes players discard to go out).
    For variants without a threshold any meld opens.
    """
    v = get_variant(variant)
    hand = list(hand)
    must = [c for c in must_use if c in hand]
    part = best_lay_down(v, hand, must, keep, solver)
    need = v.open_min_points
    if part is None or not part.melds:
        return OpeningPlan(False, 0, need)
    melded = {c for m in part.melds for c in m}
    ok = part.points >= need and all(c in melded for c in must)
    return OpeningPlan(ok, part.points, need, part.melds, part.meld_objects)


def lay_off_options(
    variant: str | Variant, table: Sequence[Meld], hand: Sequence[Card]
) -> list[tuple[Card, int, str | None]]:
    """(card, table meld index, end) for every hand card that fits a table meld now.

    One entry per card face, meld and end; ``end`` is ``"low"``/``"high"`` for a joker
    on a run and for an ace that fits both ends of a ``2..K`` run, else None. Whether
    the seat may lay off at all (opening) is not checked here.
    """
    v = get_variant(variant)
    out: list[tuple[Card, int, str | None]] = []
    seen: set = set()
    for c in hand:
        for i, m in enumerate(table):
            if (c.face, i) in seen:
                continue
            ends: tuple[str | None, ...] = (None,)
            if m.kind == "run" and (c.is_joker or len(run_extensions(v, m, c)) == 2):
                ends = ("low", "high")  # a joker, or an ace that fits both ends of 2..K
            for end in ends:
                try:
                    lay_off(v, m, c, end)  # type: ignore[arg-type]
                except InvalidMeld:
                    continue
                out.append((c, i, end))
            seen.add((c.face, i))
    return out


def joker_recoveries(
    variant: str | Variant, table: Sequence[Meld], hand: Sequence[Card]
) -> list[tuple[int, tuple[Card, ...]]]:
    """(table meld index, hand cards to give) for every joker the hand can take back."""
    v = get_variant(variant)
    if v.joker_recovery == "none":
        return []
    naturals = []
    faces: set = set()
    for c in hand:
        if not c.is_joker and c.face not in faces:
            faces.add(c.face)
            naturals.append(c)
    out: list[tuple[int, tuple[Card, ...]]] = []
    for i, m in enumerate(table):
        if not m.n_jokers:
            continue
        if m.kind == "set" and v.set_joker_recovery_needs_two:
            groups: list[tuple[Card, ...]] = list(combinations(naturals, 2))
        else:
            groups = [(c,) for c in naturals]
        for g in groups:
            try:
                recover_joker(v, m, g)
            except InvalidMeld:
                continue
            out.append((i, g))
    return out
