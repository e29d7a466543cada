"""Melds: validation with joker assignment, meld points, lay-offs and joker recovery.

A `Meld` records, for every position, the card lying there and the card it stands
for (a natural stands for itself; a joker for the card it replaces). Runs are kept in
ascending order, rank 14 meaning a high ace. In a set, a joker stands for "the set's
rank in a suit not present"; its suit becomes known when only one suit is missing.

Joker placement in runs, when the player gives cards in ascending order, follows that
order literally: ``5h 6h *`` is 5-6-7, ``* 5h 6h`` is 4-5-6. When the naturals are not
given in order, jokers first fill gaps, then extend the high end, then the low end.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from rami_lan.core.cards import SUITS, Card, rank_text
from rami_lan.core.errors import RulesError
from rami_lan.core.reasons import Reason
from rami_lan.core.variants import Variant, get_variant

Kind = Literal["set", "run"]


def rank_points(variant: Variant, rank: int, in_set: bool = False) -> int:
    """Meld points of one position: 2-10 face value, J Q K 10, aces per variant."""
    if rank == 14 or (rank == 1 and in_set):
        return variant.ace_high_points
    if rank == 1:
        return variant.ace_low_points
    return 10 if rank >= 10 else rank


def hand_points(variant: Variant, card: Card) -> int:
    """Penalty value of a card left in hand at the end of a round."""
    if card.is_joker:
        return variant.hand_joker_points
    if card.rank == 1:
        return variant.hand_ace_points
    return 10 if card.rank >= 10 else card.rank


@dataclass(frozen=True, slots=True)
class Meld:
    """A valid meld: cards in table order and what each position stands for."""

    kind: Kind
    cards: tuple[Card, ...]
    ranks: tuple[int, ...]
    suits: tuple[str | None, ...]
    owner: int = -1

    @property
    def n_jokers(self) -> int:
        return sum(1 for c in self.cards if c.is_joker)

    @property
    def n_naturals(self) -> int:
        return len(self.cards) - self.n_jokers

    @property
    def lo(self) -> int:
        return self.ranks[0]

    @property
    def hi(self) -> int:
        return self.ranks[-1]

    @property
    def suit(self) -> str | None:
        """The run's suit (None for a set)."""
        return self.suits[0] if self.kind == "run" else None

    def points(self, variant: Variant) -> int:
        in_set = self.kind == "set"
        return sum(rank_points(variant, r, in_set) for r in self.ranks)

    def stands_for_text(self) -> list[str]:
        """Text of what each position stands for (``?`` for a set joker's open suit)."""
        return [f"{rank_text(r)}{s or '?'}" for r, s in zip(self.ranks, self.suits, strict=True)]

    def __str__(self) -> str:
        return " ".join(str(c) for c in self.cards)


@dataclass(frozen=True, slots=True)
class MeldCheck:
    """Result of `check_meld`: ``reason`` (English) is empty and ``why`` None when valid;
    else ``why`` is the coded reason, ``reason`` its English."""

    valid: bool
    kind: Kind | None
    points: int
    reason: str
    meld: Meld | None = None
    why: Reason | None = None

    @classmethod
    def refused(cls, kind: Kind | None, why: Reason) -> MeldCheck:
        return cls(False, kind, 0, why.text(), None, why)

    def __bool__(self) -> bool:
        return self.valid


class _Invalid(RulesError):
    """A meld (or a change to one) that the rules refuse; ``why`` says why (the message
    is its English)."""

    def __init__(self, why: Reason | str) -> None:
        self.why = why if isinstance(why, Reason) else Reason.of_text(why)
        super().__init__(self.why.text())


def _joker_limit_ok(variant: Variant, n_nat: int, n_jok: int) -> Reason | None:
    if n_nat == 0:
        return Reason.of("meld_no_natural")
    if variant.joker_limit == "not_more_than_naturals" and n_jok > n_nat:
        return Reason.of("meld_too_many_jokers")
    if n_jok and variant.n_jokers == 0:
        return Reason.of("meld_no_jokers")
    return None


def _set_suits(naturals: Sequence[Card], n_jok: int) -> list[str | None]:
    present = {c.suit for c in naturals}
    missing = [s for s in SUITS if s not in present]
    if n_jok and len(missing) == n_jok:
        return list(missing)
    return [None] * n_jok


def build_set(variant: Variant, cards: Sequence[Card], owner: int = -1) -> Meld:
    """Validate ``cards`` as a set; raise `_Invalid` with a reason otherwise."""
    if not 3 <= len(cards) <= 4:
        raise _Invalid(Reason.of("set_size"))
    naturals = [c for c in cards if not c.is_joker]
    n_jok = len(cards) - len(naturals)
    why = _joker_limit_ok(variant, len(naturals), n_jok)
    if why:
        raise _Invalid(why)
    rank = naturals[0].rank
    if any(c.rank != rank for c in naturals):
        raise _Invalid(Reason.of("set_rank"))
    suits = [c.suit for c in naturals]
    for s in suits:
        if suits.count(s) > 1:
            raise _Invalid(Reason.of("set_suit_twice", card=f"{rank_text(rank)}{s}"))
    naturals.sort(key=lambda c: SUITS.index(c.suit or "c"))
    jokers = [c for c in cards if c.is_joker]
    all_suits = [c.suit for c in naturals] + _set_suits(naturals, n_jok)
    return Meld("set", tuple(naturals + jokers), (rank,) * len(cards), tuple(all_suits), owner)


def _run_positions(variant: Variant, cards: Sequence[Card], ace_as: int) -> list[tuple[int, Card]] | None:
    """Positions of a run for one reading of the ace (1 or 14), or None if impossible."""
    naturals = [c for c in cards if not c.is_joker]
    jokers = [c for c in cards if c.is_joker]
    rk = [ace_as if c.rank == 1 else c.rank for c in naturals]
    lo_bound = 1 if variant.ace_low else 2
    hi_bound = 14 if variant.ace_high else 13
    # Literal reading: the list in ascending order, jokers where they were put.
    first = next(i for i, c in enumerate(cards) if not c.is_joker)
    start = rk[0] - first
    literal = [start + i for i in range(len(cards))]
    it = iter(rk)
    if all(c.is_joker or next(it) == literal[i] for i, c in enumerate(cards)):
        if literal[0] >= lo_bound and literal[-1] <= hi_bound:
            return list(zip(literal, cards, strict=True))
    # Free reading: sort naturals, jokers fill gaps then the high end then the low end.
    order = sorted(zip(rk, naturals, strict=True), key=lambda t: t[0])
    ranks = [r for r, _ in order]
    if len(set(ranks)) != len(ranks):
        return None
    gaps = ranks[-1] - ranks[0] + 1 - len(ranks)
    extra = len(jokers) - gaps
    if extra < 0:
        return None
    hi = min(hi_bound, ranks[-1] + extra)
    lo = ranks[0] - (extra - (hi - ranks[-1]))
    if lo < lo_bound:
        return None
    by_rank = dict(order)
    jk = iter(jokers)
    return [(r, by_rank[r] if r in by_rank else next(jk)) for r in range(lo, hi + 1)]


def build_run(variant: Variant, cards: Sequence[Card], owner: int = -1) -> Meld:
    """Validate ``cards`` as a run; raise `_Invalid` with a reason otherwise."""
    if len(cards) < 3:
        raise _Invalid(Reason.of("run_short"))
    naturals = [c for c in cards if not c.is_joker]
    why = _joker_limit_ok(variant, len(naturals), len(cards) - len(naturals))
    if why:
        raise _Invalid(why)
    suit = naturals[0].suit
    if any(c.suit != suit for c in naturals):
        raise _Invalid(Reason.of("run_suit"))
    if len(cards) > 13:
        raise _Invalid(Reason.of("run_long"))
    has_ace = any(c.rank == 1 for c in naturals)
    readings = [1, 14] if has_ace else [1]
    if has_ace:
        readings = [a for a in readings if (variant.ace_low if a == 1 else variant.ace_high)]
        if not readings:
            raise _Invalid(Reason.of("run_no_ace"))
    for ace_as in readings:
        pos = _run_positions(variant, cards, ace_as)
        if pos is not None:
            ranks = tuple(r for r, _ in pos)
            return Meld("run", tuple(c for _, c in pos), ranks, (suit,) * len(pos), owner)
    if has_ace and not variant.ace_low:
        raise _Invalid(Reason.of("run_ace_high"))
    if has_ace and not variant.ace_high:
        raise _Invalid(Reason.of("run_ace_low"))
    raise _Invalid(Reason.of("run_not_consecutive"))


def _check(variant: Variant, cards: Sequence[Card], kind: Kind, owner: int) -> MeldCheck:
    try:
        m = build_set(variant, cards, owner) if kind == "set" else build_run(variant, cards, owner)
    except _Invalid as e:
        return MeldCheck.refused(kind, e.why)
    return MeldCheck(True, kind, m.points(variant), "", m)


def check_meld(
    variant: str | Variant, cards: Sequence[Card], kind: Kind | None = None, owner: int = -1
) -> MeldCheck:
    """Judge a new meld laid from a hand.

    ``kind`` is ``"set"``, ``"run"`` or None (the engine decides when unambiguous; a
    meld that reads both ways, like ``5h * *`` where two jokers are allowed, must be
    declared). Cards repeated by identity are refused.
    """
    v = get_variant(variant)
    cards = list(cards)
    if len(set(cards)) != len(cards):
        return MeldCheck.refused(kind, Reason.of("meld_card_twice"))
    if not cards:
        return MeldCheck.refused(kind, Reason.of("meld_empty"))
    if kind is not None:
        if kind not in ("set", "run"):
            return MeldCheck.refused(None, Reason.of("meld_kind_unknown", kind=repr(kind)))
        return _check(v, cards, kind, owner)
    as_set = _check(v, cards, "set", owner)
    as_run = _check(v, cards, "run", owner)
    if as_set.valid and as_run.valid:
        return MeldCheck.refused(None, Reason.of("meld_ambiguous"))
    if as_set.valid:
        return as_set
    if as_run.valid:
        return as_run
    naturals = [c for c in cards if not c.is_joker]
    same_rank = len({c.rank for c in naturals}) <= 1
    return as_set if same_rank else as_run


# --- changing melds on the table -------------------------------------------------


RunEnd = Literal["low", "high"]


def run_ranks(variant: Variant, card: Card) -> tuple[int, ...]:
    """The run ranks a natural card can stand at: its own rank, or for an ace 1 (low)
    and/or 14 (high) as the variant allows. The one notion of where an ace sits in a
    run: meld validation, lay-offs, joker recovery and the legal-action generator all
    read it from here."""
    if card.rank != 1:
        return (card.rank,)
    return tuple(r for r, ok in ((1, variant.ace_low), (14, variant.ace_high)) if ok)


def run_span(variant: Variant, meld: Meld) -> tuple[int, int]:
    """The lowest and highest rank the run ``meld`` could ever reach.

    Runs never wrap and never hold both aces: a run starting at the low ace stops at
    the king, a run ending at the high ace starts at 2 at the lowest.
    """
    lo = 1 if variant.ace_low else 2
    hi = 14 if variant.ace_high else 13
    if meld.lo == 1:
        hi = 13
    if meld.hi == 14:
        lo = 2
    return lo, hi


def run_extensions(variant: Variant, meld: Meld, card: Card) -> list[tuple[RunEnd, int]]:
    """Where ``card`` can be added to the run ``meld``: (end, rank it takes), high end
    first. A joker fits any end that is still open; a natural must have the run's suit
    and the next rank at that end. Only an ace can fit both ends (``2..K``: low ace or
    high ace). The joker limit is not checked here (see `lay_off`)."""
    lo, hi = run_span(variant, meld)
    out: list[tuple[RunEnd, int]] = []
    if card.is_joker:
        if meld.hi < hi:
            out.append(("high", meld.hi + 1))
        if meld.lo > lo:
            out.append(("low", meld.lo - 1))
        return out
    if card.suit != meld.suit:
        return out
    ranks = run_ranks(variant, card)
    if meld.hi < hi and meld.hi + 1 in ranks:
        out.append(("high", meld.hi + 1))
    if meld.lo > lo and meld.lo - 1 in ranks:
        out.append(("low", meld.lo - 1))
    return out


def stands_in(variant: Variant, meld: Meld, card: Card) -> bool:
    """Could the natural ``card`` be the card some position of the run ``meld`` stands
    for (the pre-condition of taking a joker back)? Sets: same rank."""
    if meld.kind == "set":
        return card.rank == meld.lo
    return card.suit == meld.suit and any(meld.lo <= r <= meld.hi for r in run_ranks(variant, card))


def lay_off(variant: Variant, meld: Meld, card: Card, end: Literal["low", "high"] | None = None) -> Meld:
    """The meld with ``card`` added; raise `_Invalid` with a reason if it does not fit.

    ``end`` picks the end of a run when the card fits both: a joker (default: the high
    end while it is open), or an ace on a run ``2..K`` (low ace or high ace; default
    high). For a natural card that fits one end only, ``end`` is ignored.
    """
    if meld.kind == "set":
        if len(meld.cards) >= 4:
            raise _Invalid(Reason.of("set_full"))
        naturals = [c for c in meld.cards if not c.is_joker]
        jokers = [c for c in meld.cards if c.is_joker]
        if card.is_joker:
            jokers.append(card)
        else:
            if card.rank != meld.lo:
                raise _Invalid(Reason.of("set_other_rank", card=str(card)))
            taken = {s for s in meld.suits if s is not None} | {c.suit for c in naturals}
            if card.suit in taken:
                raise _Invalid(Reason.of("set_has_suit", suit=str(card.suit), card=str(card)))
            naturals.append(card)
        why = _joker_limit_ok(variant, len(naturals), len(jokers))
        if why:
            raise _Invalid(why)
        return build_set(variant, naturals + jokers, meld.owner)
    options = run_extensions(variant, meld, card)
    if card.is_joker:
        if end is None:
            end = "high" if any(e == "high" for e, _r in options) else "low"
        chosen = [o for o in options if o[0] == end]
        if not chosen:
            raise _Invalid(Reason.of("run_end_closed", end=str(end)))
    else:
        if card.suit != meld.suit:
            raise _Invalid(Reason.of("run_other_suit", card=str(card)))
        if not options:
            raise _Invalid(Reason.of("run_no_extend", card=str(card), meld=str(meld)))
        # ``end`` chooses only when the card fits both ends (an ace on 2..K).
        chosen = [o for o in options if o[0] == end] or options
    end, new_rank = chosen[0]
    n_jok = meld.n_jokers + (1 if card.is_joker else 0)
    why = _joker_limit_ok(variant, len(meld.cards) + 1 - n_jok, n_jok)
    if why:
        raise _Invalid(why)
    if end == "high":
        return Meld(
            "run",
            meld.cards + (card,),
            meld.ranks + (new_rank,),
            meld.suits + (meld.suit,),
            meld.owner,
        )
    return Meld(
        "run",
        (card,) + meld.cards,
        (new_rank,) + meld.ranks,
        (meld.suit,) + meld.suits,
        meld.owner,
    )


def recover_joker(
    variant: Variant, meld: Meld, cards: Sequence[Card], by: int | None = None
) -> tuple[Meld, Card]:
    """Take a joker back from ``meld`` by giving ``cards``; returns (new meld, joker).

    ``replace`` recovery: one natural card, exactly the card the joker stands for (in a
    set: the set's rank in a suit not present). With ``set_joker_recovery_needs_two``
    (40) a set frees a joker only when two naturals of both missing suits are added to
    a 3-card set; a set of 4 holding a joker is closed for good. With
    ``set_joker_freed_by_opponent_only`` (40) seat ``by`` may not free the joker of a set
    it laid itself (``by=None``: not checked).
    """
    if variant.joker_recovery == "none" or meld.n_jokers == 0:
        raise _Invalid(Reason.of("no_joker"))
    own = by is not None and by == meld.owner
    if meld.kind == "set" and variant.set_joker_freed_by_opponent_only and own:
        raise _Invalid(Reason.of("own_set_joker"))
    if any(c.is_joker for c in cards):
        raise _Invalid(Reason.of("joker_for_joker"))
    if meld.kind == "set" and variant.set_joker_recovery_needs_two:
        if len(meld.cards) != 3:
            raise _Invalid(Reason.of("set_closed"))
        if len(cards) != 2:
            raise _Invalid(Reason.of("set_needs_two"))
        naturals = [c for c in meld.cards if not c.is_joker]
        jokers = [c for c in meld.cards if c.is_joker]
        present = {c.suit for c in naturals}
        for c in cards:
            if c.rank != meld.lo or c.suit in present:
                raise _Invalid(Reason.of("not_missing_suit", card=str(c)))
            present.add(c.suit)
        keep = 4 - len(naturals) - 2
        new = build_set(variant, naturals + list(cards) + jokers[:keep], meld.owner)
        return new, jokers[keep]
    if len(cards) != 1:
        raise _Invalid(Reason.of("one_card_for_joker"))
    card = cards[0]
    for i, c in enumerate(meld.cards):
        if not c.is_joker:
            continue
        r, s = meld.ranks[i], meld.suits[i]
        if r not in (run_ranks(variant, card) if meld.kind == "run" else (card.rank,)):
            continue
        if meld.kind == "run" and card.suit != s:
            continue
        if meld.kind == "set":
            present = {x.suit for x in meld.cards if not x.is_joker}
            if card.suit in present or (s is not None and card.suit != s):
                continue
            naturals = [x for x in meld.cards if not x.is_joker] + [card]
            others = [x for j, x in enumerate(meld.cards) if x.is_joker and j != i]
            return build_set(variant, naturals + others, meld.owner), c
        new_cards = meld.cards[:i] + (card,) + meld.cards[i + 1 :]
        return Meld("run", new_cards, meld.ranks, meld.suits, meld.owner), c
    raise _Invalid(Reason.of("not_joker_card", card=str(card), meld=str(meld)))


InvalidMeld = _Invalid
