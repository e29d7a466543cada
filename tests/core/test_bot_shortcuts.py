"""The bots' shortcuts answer exactly what the rules answer.

Self-play speed (issue 11) made the bots skip work: `Bot.legal` reads the everyday draw
and discard from the view alone (`base._surely_legal`) and remembers answers per view,
and ``moyen`` looks up lay-off targets in a per-table index built only from the faces
that may extend each meld (`moyen._may_extend`). Here each shortcut is compared with
the plain rules on many views: random legal play in every variant (so turns with cards
owed to the table, taken discards and jokers come up) and the views the bots were
given in self-play matches.
"""

from __future__ import annotations

import pytest
from test_bots import VARIANT_IDS, _random_states

from rami_lan.bots import make_bot
from rami_lan.bots import moyen as M
from rami_lan.bots.base import Bot, _surely_legal
from rami_lan.core import actions as A
from rami_lan.core.cards import SUITS, Card
from rami_lan.core.match import MatchOptions
from rami_lan.core.shadow import is_legal_for_view
from rami_lan.core.variants import VARIANTS
from rami_lan.core.views import SeatView, view_for
from rami_lan.table.selfplay import play_match


class _Spy:
    """A moyen bot that keeps every view it is given."""

    def __init__(self, seat: int, seed: int) -> None:
        self.bot = make_bot("moyen", seat, seed)
        self.views: list[SeatView] = []
        self.think_delay = 0.0

    def choose(self, view, new_events=()):  # type: ignore[no-untyped-def]
        self.views.append(view)
        return self.bot.choose(view, new_events)

    def wants_knock(self, view, new_events=()):  # type: ignore[no-untyped-def]
        return self.bot.wants_knock(view, new_events)


def _views(variant: str) -> list[SeatView]:
    out = []
    for n in (2, 3, 4):
        for m in _random_states(variant, n, seed=n * 11 + 1, steps=70):
            out.extend(view_for(m, s) for s in range(n))
    v = VARIANTS[variant]
    opts = MatchOptions(limit=1) if v.match_rule == "elimination" else MatchOptions(
        quick=v.match_rule == "target")
    spies = [_Spy(s, s + 1) for s in range(3)]
    play_match(variant, spies, seed=3, options=opts, max_rounds=2)
    for spy in spies:
        out.extend(spy.views)
    return out


def _candidates(view: SeatView) -> list[A.Action]:
    seat = view.seat if view.seat is not None else 0
    acts: list[A.Action] = [A.DrawStock(seat), A.DrawStock((seat + 1) % len(view.players))]
    acts += [A.Discard(seat, c) for c in view.hand]
    acts += [A.Discard(seat, Card(5, "h", 1)), A.Discard(seat, Card(0, None, 3))]
    if view.discard:
        acts.append(A.DrawDiscard(seat, 1))
    return acts


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_legal_shortcut_agrees_with_the_rules(variant: str) -> None:
    shortcuts = 0
    refused = 0
    for view in _views(variant):
        bot = Bot(view.seat if view.seat is not None else 0)
        for action in _candidates(view):
            truth = is_legal_for_view(view, action)
            if _surely_legal(view, action):
                assert truth, (view, action)  # a shortcut never says yes wrongly
                shortcuts += 1
            elif truth is False:
                refused += 1
            assert bot.legal(view, action) is truth, (view, action)
            assert bot.legal(view, action) is truth  # asked again: remembered, same answer
    assert shortcuts > 50 and refused > 50  # both answers were exercised


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_lay_off_index_agrees_with_every_meld(variant: str) -> None:
    faces = [Card(0, None, 7)] + [Card(r, s, 1) for r in range(1, 14) for s in SUITS]
    checked = found = 0
    for view in _views(variant):
        if not view.melds:
            continue
        bot = M.Moyen(view.seat if view.seat is not None else 0)
        for card in faces:
            brute = tuple(
                (i, end) for i, meld in enumerate(view.melds) for end in bot.fits(view, meld, card)
            )
            assert bot.fit_targets(view, card) == brute, (view.melds, card)
            checked += 1
            found += bool(brute)
    assert checked > 200 and found > 20


def test_bots_that_ignore_events_get_none_and_the_others_all() -> None:
    """The table skips redacting events for bots that say they ignore them
    (``reads_events``, derived per class); a bot that overrides `observe` gets them."""
    from rami_lan.bots import ALL_LEVELS
    from rami_lan.table.policy import reads_events

    assert not M.Moyen.reads_events and not ALL_LEVELS["debutant"].reads_events
    assert ALL_LEVELS["expert"].reads_events

    class Listening(M.Moyen):
        def __init__(self, seat: int, seed: int = 0) -> None:
            super().__init__(seat, seed)
            self.seen: list = []

        def observe(self, view, events):  # type: ignore[no-untyped-def]
            self.seen.extend(events)

    class Counting(M.Moyen):
        calls = 0
        got = 0

        def choose(self, view, new_events=()):  # type: ignore[no-untyped-def]
            Counting.calls += 1
            Counting.got += len(new_events)
            return super().choose(view, new_events)

    assert Listening.reads_events and Counting.reads_events and reads_events(object())
    quiet = M.Moyen(0, 1)
    quiet.observed = 0  # type: ignore[attr-defined]
    orig = quiet.observe

    def spy(view, events):  # type: ignore[no-untyped-def]
        quiet.observed += len(events)  # type: ignore[attr-defined]
        return orig(view, events)

    quiet.observe = spy  # type: ignore[method-assign]
    seats = [quiet, Listening(1, 2), Counting(2, 3)]
    res = play_match("rami", seats, seed=4, options=MatchOptions(limit=1))
    assert res.rounds == 1
    assert quiet.observed == 0  # type: ignore[attr-defined]
    assert len(seats[1].seen) > 20 and Counting.got > 20 and Counting.calls > 5
    # what the listener saw is redacted for its seat: no other seat's drawn card
    from rami_lan.core.events import StockDrawn
    drawn = [e for e in seats[1].seen if isinstance(e, StockDrawn)]
    assert drawn and all((e.card is None) == (e.seat != 1) for e in drawn)


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_top_discard_precheck_never_hides_a_meld(variant: str) -> None:
    """``moyen`` partitions hand + top discard only when `_may_meld_with` allows it."""
    import random

    from rami_lan.bots.quick import quick_partition
    from rami_lan.core.cards import full_deck

    v = VARIANTS[variant]
    deck = full_deck(v.n_decks, v.n_jokers)
    rng = random.Random(5)
    melded = refused = 0
    for _ in range(3000):
        cards = rng.sample(deck, rng.randint(2, 16))
        hand, top = cards[:-1], cards[-1]
        if top.is_joker:
            continue
        if top in quick_partition(v, [*hand, top]).melded:
            assert M._may_meld_with(hand, top), (hand, top)
            melded += 1
        elif not M._may_meld_with(hand, top):
            refused += 1
    assert melded > 100 and refused > 100


def test_engine_finds_cards_by_identity_then_equality() -> None:
    """The engine looks for the card object itself first (speed), but a card equal to a
    held one (as decoded from the wire) still plays, and a card not held is refused."""
    from rami_lan.core import round as R
    from rami_lan.core.errors import IllegalAction
    from rami_lan.core.match import apply, new_match, start_round

    v = VARIANTS["rami"]
    m = new_match(v, 2, MatchOptions(limit=1))
    deck = [Card(r, s, c) for c in range(2) for s in SUITS for r in range(1, 14)]
    deck += [Card(0, None, i) for i in range(v.n_jokers)]
    m, _ = start_round(m, deck, bytes(32))
    seat = m.round.turn
    m, _ = apply(m, A.DrawStock(seat))
    hand = m.round.hands[seat]
    twin = Card(hand[3].rank, hand[3].suit, hand[3].copy)  # equal, not the same object
    assert twin == hand[3] and twin is not hand[3]
    after, _ = apply(m, A.Discard(seat, twin))
    assert after.round.hands[seat] == hand[:3] + hand[4:]
    assert R._remove(hand, (hand[5], twin)) == hand[:3] + hand[4:5] + hand[6:]
    absent = next(c for c in deck if c not in hand)
    with pytest.raises(IllegalAction, match="does not hold"):
        apply(m, A.Discard(seat, absent))
    with pytest.raises(ValueError):
        R._remove(hand, (absent,))
