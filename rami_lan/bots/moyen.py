"""``moyen``: a plainly medium player.

- Draws from the stock; takes the top discard only when it completes a (greedy) meld
  it lays down this very turn (before opening: only if that meld opens).
- Opens as soon as its greedy melds may be laid, with whatever melds those are; lays
  down, takes jokers back and lays off after that, but keeps a joker in hand until a
  greedy meld uses it.
- Discards its unmatched card with the highest penalty, without looking at
  neighbours, at what was discarded or at what the next player collects. No memory,
  no defence, never knocks. Never discards a joker while another card may go.

It is built to be cheap (self-play speed): its judgement of the hand is the greedy
`quick_partition` (a lower bound of the exact solver, cached per hand), and the exact
solver is only asked for the turn's obligations or when the greedy lay-down is refused.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rami_lan.bots.base import Bot, can_open
from rami_lan.bots.quick import QuickPartition, quick_partition
from rami_lan.core import actions as A
from rami_lan.core.cards import SUITS, Card
from rami_lan.core.errors import RulesError
from rami_lan.core.melds import Meld, hand_points, lay_off, recover_joker
from rami_lan.core.solver import joker_recoveries
from rami_lan.core.variants import Variant
from rami_lan.core.views import SeatView


def _may_meld_with(hand: Sequence[Card], card: Card) -> bool:
    """Could a greedy meld of ``hand`` plus the natural ``card`` hold ``card``? False
    means surely not: `quick_partition` puts it in a set only with two other suits of
    its rank, in a run only next to two cards of its suit that make three in a row with
    it, and in a pair completed by a joker only when the hand has a joker and a natural
    of its rank in another suit or of its suit one or two ranks away (an ace counting
    as 1 and as 14 throughout)."""
    r, s = card.rank, card.suit
    others: set[str | None] = set()
    near: set[int] = set()  # positions of the naturals of its suit
    joker = False
    for c in hand:
        cr = c.rank
        if not cr:
            joker = True
        elif cr == r:
            if c.suit != s:
                others.add(c.suit)
        elif c.suit == s:
            if cr == 1:
                near.update((1, 14))
            else:
                near.add(cr)
    if len(others) >= 2:
        return True
    for p in (1, 14) if r == 1 else (r,):
        below, above = p - 1 in near, p + 1 in near
        if (below and above) or (below and p - 2 in near) or (above and p + 2 in near):
            return True
        if joker and (others or below or above or p - 2 in near or p + 2 in near):
            return True
    return False


class _TableFacts:
    """Rule answers about one table (a view's melds tuple, kept alive here), shared by
    every moyen bot at it: per card face, the (meld index, end) pairs where it can be
    laid off; the melds holding a joker; the melds by the natural faces that may
    extend them (`_may_extend`), to ask the rules about those only."""

    __slots__ = ("by_face", "fit", "jokers", "melds")

    def __init__(self, melds: tuple[Meld, ...]) -> None:
        self.melds = melds
        self.fit: dict[tuple[int, str | None], tuple[tuple[int, str | None], ...]] = {}
        self.jokers: list[int] | None = None
        self.by_face: dict[tuple[int, str | None], list[int]] | None = None

    def joker_melds(self, vid: str) -> list[int]:
        if self.jokers is None:
            self.jokers = [i for i, m in enumerate(self.melds) if _meld_facts(vid, m)[3]]
        return self.jokers

    def index(self) -> dict[tuple[int, str | None], list[int]]:
        """Natural face -> the melds it may extend, in table order."""
        idx = self.by_face
        if idx is None:
            idx = self.by_face = {}
            for i, meld in enumerate(self.melds):
                for face in _extends(meld):
                    idx.setdefault(face, []).append(i)
        return idx

    def candidates(self, card: Card) -> list[int] | range:
        """The melds ``card`` may extend, in table order (all of them for a joker)."""
        if card.is_joker:
            return range(len(self.melds))
        return self.index().get(card.face, [])


def _extends(meld: Meld) -> list[tuple[int, str | None]]:
    """`_may_extend` without the joker, remembered per meld object."""
    e = _EXTENDS.get(id(meld))
    if e is None or e[0] is not meld:
        if len(_EXTENDS) >= 1024:
            _EXTENDS.clear()
        e = _EXTENDS[id(meld)] = (meld, [f for f in _may_extend(meld) if f[0]])
    return e[1]


def _may_extend(meld: Meld) -> list[tuple[int, str | None]]:
    """The card faces that may be laid off on ``meld``, a superset checked with the
    rules (`lay_off`) before use: a joker; for a set, its rank in any suit; for a run,
    its suit at the rank below or above it (an ace as 1 and 14)."""
    out: list[tuple[int, str | None]] = [(0, None)]
    if meld.kind == "set":
        r = meld.lo % 13 or 13
        out += [(r, s) for s in SUITS]
    elif meld.kind == "run":
        for p in (meld.hi + 1, meld.lo - 1):
            face = (1 if p == 14 else p, meld.suit)
            if 1 <= p <= 14 and face not in out:  # 2..K: the ace fits at both ends
                out.append(face)
    else:
        out += [(r, s) for r in range(1, 14) for s in SUITS]
    return out


# Rule answers shared by the moyen bots of a process, keyed by (variant id, object
# identity); each entry keeps its object alive, so an identity is never reused while
# its entry stands. The answers only depend on public, immutable table melds.
_TABLES: dict[tuple[str, int], _TableFacts] = {}
_EXTENDS: dict[int, tuple[Meld, list[tuple[int, str | None]]]] = {}
_MELDS: dict[tuple[str, int], tuple[Meld, dict, dict, bool]] = {}


def _table_facts(view: SeatView) -> _TableFacts:
    key = (view.variant, id(view.melds))
    t = _TABLES.get(key)
    if t is None or t.melds is not view.melds:
        if len(_TABLES) >= 64:
            _TABLES.clear()
        t = _TABLES[key] = _TableFacts(view.melds)
    return t


def _meld_facts(vid: str, meld: Meld) -> tuple[Meld, dict, dict, bool]:
    """Per table meld: the ends at which a card face can be laid off, whether a card
    face frees a joker, and whether it holds a joker."""
    key = (vid, id(meld))
    e = _MELDS.get(key)
    if e is None or e[0] is not meld:
        if len(_MELDS) >= 1024:
            _MELDS.clear()
        e = _MELDS[key] = (meld, {}, {}, any(c.is_joker for c in meld.cards))
    return e


class Moyen(Bot):
    level = "moyen"
    take_gain = 1  # meld points the top discard must add to be taken

    def __init__(self, seat: int, seed: int = 0, think_delay: float = 0.0) -> None:
        super().__init__(seat, seed, think_delay)
        self._quick_hand: tuple[Card, ...] | None = None
        self._quick: dict[Card | None, QuickPartition] = {}

    def quick(self, view: SeatView, extra: Card | None = None) -> QuickPartition:
        """Greedy melds of the hand (plus ``extra``), remembered while the hand is the same."""
        hand = view.hand
        if self._quick_hand is not hand:  # the engine's hand tuple: same object, same cards
            before, known = self._quick_hand, self._quick
            self._quick_hand = hand
            self._quick = {}
            if before is not None and len(hand) == len(before) + 1 and hand[:-1] == before:
                q = known.get(hand[-1])  # it took the card it had partitioned with the hand
                if q is not None:
                    self._quick[None] = q
        q = self._quick.get(extra)
        if q is None:
            cards = list(hand) if extra is None else [*hand, extra]
            q = self._quick[extra] = quick_partition(self.variant(view), cards)
        return q

    def draw(self, view: SeatView) -> A.Action | None:
        if view.discard and self.top_helps(view):
            return A.DrawDiscard(self.seat, 1)
        return A.DrawStock(self.seat)

    def top_helps(self, view: SeatView) -> bool:
        """Does the top discard complete a (greedy) meld it will lay down this turn?"""
        top = view.discard[-1]
        if not top.is_joker and not _may_meld_with(view.hand, top):
            return False  # no greedy meld can hold it: no need to partition the hand
        v = self.variant(view)
        after = self.quick(view, top)
        if top not in after.melded or after.points - self.quick(view).points < self.take_gain:
            return False
        if v.requires_opening and not self.opened(view):
            if after.points < max(1, v.open_min_points):
                return False  # it would not open with it: the card would wait in hand
            if v.unopened_take_must_open:
                return can_open(v, [*view.hand, top], [top]).ok
        return True

    def may_lay_down(self, view: SeatView) -> bool:
        v = self.variant(view)
        q = self.quick(view)
        if v.requires_opening and v.open_min_points and not self.opened(view):
            return q.points >= v.open_min_points
        return bool(q.melds)

    def meld_cards(self, view: SeatView) -> frozenset[Card]:  # type: ignore[override]
        return self.quick(view).melded

    def lay_down_action(self, view: SeatView, hold: Iterable[Card] = ()) -> A.Action | None:
        """Lay down the greedy melds when they may go (the exact solver otherwise)."""
        owed = bool(view.must_use) and any(c in view.hand for c in view.must_use)
        if not owed and not self.may_lay_down(view):
            return None  # what the base method answers then
        if owed:
            return super().lay_down_action(view, hold)
        v = self.variant(view)
        q = self.quick(view)
        held = set(hold)
        specs = [
            A.MeldSpec(m, "set" if len({c.rank for c in m if not c.is_joker}) == 1 else "run")
            for m in q.melds
            if not held & set(m)
        ]
        if specs:
            action = A.LayDown(self.seat, tuple(specs))
            if self.legal(view, action):
                return action
            if not (v.requires_opening and v.open_min_points and not self.opened(view)):
                for spec in specs:
                    single = A.LayDown(self.seat, (spec,))
                    if self.legal(view, single):
                        return single
        return super().lay_down_action(view, hold)

    # --- table moves, with the rule checks remembered per (table meld, card face) ----

    def _entry(self, view: SeatView, meld: Meld) -> tuple[Meld, dict, dict, bool]:
        return _meld_facts(view.variant, meld)

    def fits(self, view: SeatView, meld: Meld, card: Card) -> tuple[str | None, ...]:
        """The ends (None for a set or a natural) at which ``card`` can be laid off."""
        if not card.is_joker:  # a natural goes to a set of its rank or a run of its suit
            if meld.kind == "set" and (card.rank % 13 != meld.lo % 13 or len(meld.cards) >= 4):
                return ()
            if meld.kind == "run" and card.suit != meld.suit:
                return ()
        cache = self._entry(view, meld)[1]
        key = card.face
        ends = cache.get(key)
        if ends is None:
            v = self.variant(view)
            tries: tuple[str | None, ...] = (
                ("low", "high") if card.is_joker and meld.kind == "run" else (None,)
            )
            ok = []
            for end in tries:
                try:
                    lay_off(v, meld, card, end)  # type: ignore[arg-type]
                except RulesError:
                    continue
                ok.append(end)
            ends = cache[key] = tuple(ok)
        return ends

    def fit_targets(self, view: SeatView, card: Card) -> tuple[tuple[int, str | None], ...]:
        """Every (meld index, end) of the table at which ``card`` can be laid off, in
        table order: what `fits` says for each meld ``card`` may extend (`_may_extend`),
        remembered per table and face."""
        t = _table_facts(view)
        out = t.fit.get(card.face)
        if out is None:
            melds = view.melds
            out = t.fit[card.face] = tuple(
                (i, end) for i in t.candidates(card) for end in self.fits(view, melds[i], card)
            )
        return out

    def lay_off_action(self, view: SeatView, keep_jokers: bool = False) -> A.Action | None:
        if not self.may_touch_table(view) or not view.melds:
            return None
        protected = self.meld_cards(view)
        must = view.must_use
        t = _table_facts(view)
        fit, idx = t.fit, t.index()
        seen: set[tuple[int, str | None]] = set()
        for card in self.hand_must_first(view) if must else view.hand:
            face = (card.rank, card.suit)
            if face in seen:
                continue
            seen.add(face)
            owed = card in must
            if keep_jokers and not card.rank and not owed:
                continue
            targets = fit.get(face)
            if targets is None:
                if card.rank and face not in idx:
                    targets = fit[face] = ()  # a natural that extends no meld
                else:
                    targets = self.fit_targets(view, card)
            if not targets or (not owed and card in protected):
                continue  # (the cheap test first: most faces fit nowhere)
            for i, end in targets:
                action = A.LayOff(self.seat, card, i, end)  # type: ignore[arg-type]
                if self.legal(view, action):
                    return action
        return None

    def recover_from(self, view: SeatView, v: Variant) -> A.Action | None:
        """The first legal joker recovery, from the table's joker melds (cached facts)."""
        if v.joker_recovery == "none":
            return None
        jokers = _table_facts(view).joker_melds(view.variant)
        if not jokers:
            return None
        naturals = {(c.rank, c.suit): c for c in view.hand if c.rank}
        for i in jokers:
            meld = view.melds[i]
            if meld.kind == "set" and v.set_joker_recovery_needs_two:
                groups = [g for _, g in joker_recoveries(v, (meld,), view.hand)]
            else:
                groups = []
                cache = self._entry(view, meld)[2]  # face -> does it free the joker
                for face, c in naturals.items():
                    ok = cache.get(face)
                    if ok is None:
                        r = 14 if c.rank == 1 and 14 in meld.ranks else c.rank
                        ok = False
                        if r in meld.ranks and (meld.kind != "run" or c.suit == meld.suit):
                            try:
                                recover_joker(v, meld, (c,))
                                ok = True
                            except RulesError:
                                pass
                        cache[face] = ok
                    if ok:
                        groups.append((c,))
            for g in groups:
                action = A.RecoverJoker(self.seat, i, g)
                if self.legal(view, action):
                    return action
        return None

    def play(self, view: SeatView) -> A.Action | None:
        return (
            self.lay_down_action(view)
            or self.recover_action(view)
            or self.lay_off_action(view, keep_jokers=True)  # a joker waits for a greedy meld
        )

    def pick_discard(self, view: SeatView) -> Card | None:
        """The unmatched card with the highest penalty (no look at its neighbours)."""
        v = self.variant(view)
        melded = self.meld_cards(view)
        order = [
            c for _key, c in sorted(
                ((c in melded, not c.rank, -hand_points(v, c), c.sort_key()), c) for c in view.hand
            )
        ]  # the keys differ (sort_key holds the copy): cards are never compared
        for c in order:  # legality asked only until one may go
            if self.legal(view, A.Discard(self.seat, c)):
                return c
        return None
