"""Bots: they see only views, always act legally, finish matches, and rank by level."""

from __future__ import annotations

import os
import random

import pytest

from rami_lan.bots import ALL_LEVELS, LEVELS, MEASURE_LEVELS, make_bot
from rami_lan.bots.base import Bot
from rami_lan.core import actions as A
from rami_lan.core import events as E
from rami_lan.core.cards import full_deck
from rami_lan.core.match import MatchOptions, apply, is_legal, new_match, start_round
from rami_lan.core.shadow import is_legal_for_view, legal_actions_for_view
from rami_lan.core.variants import VARIANTS
from rami_lan.core.views import SeatView, view_for
from rami_lan.table.selfplay import deal_seed, play_match

VARIANT_IDS = sorted(VARIANTS)


def test_make_bot_levels_and_think_delay():
    assert list(LEVELS) == ["debutant", "moyen", "expert"]  # what the UI offers
    assert set(MEASURE_LEVELS) == {"expert_v1", "expert_v2", "expert_v3", "conceal"}
    for level in ALL_LEVELS:
        bot = make_bot(level, 2, seed=5)
        assert isinstance(bot, Bot) and bot.level == level and bot.seat == 2
        assert bot.think_delay == 0.0
    assert make_bot("expert", 0, 1, think_delay=0.8).think_delay == 0.8
    with pytest.raises(ValueError):
        make_bot("grandmaster", 0, 1)


def _random_states(variant: str, n_players: int, seed: int, steps: int):
    """States reached by random legal play (the bots' views are judged on them)."""
    v = VARIANTS[variant]
    rng = random.Random(seed)
    m = new_match(v, n_players, MatchOptions(knock=v.knock_supported))
    deck = full_deck(v.n_decks, v.n_jokers)
    order, seed32 = deal_seed(rng, len(deck))
    m, _ = start_round(m, [deck[i] for i in order], seed32)
    for _ in range(steps):
        if m.round is None or m.round.phase == "over":
            return
        yield m
        seat = m.round.turn
        acts = list(legal_actions_for_view(view_for(m, seat)))
        acts = [a for a in acts if not isinstance(a, A.Knock)] or acts
        # prefer ending turns so the random walk moves through many turns
        discards = [a for a in acts if isinstance(a, A.Discard | A.DrawStock)]
        pick = rng.choice(discards if discards and rng.random() < 0.7 else acts)
        m, _ = apply(m, pick)


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_bots_act_legally_from_views(variant):
    bots = {lv: make_bot(lv, 0, 3) for lv in ALL_LEVELS}
    checked = 0
    for n_players in (2, 3):
        for m in _random_states(variant, n_players, seed=n_players * 7, steps=40):
            seat = m.round.turn
            view = view_for(m, seat)
            assert isinstance(view, SeatView)
            for lv in ALL_LEVELS:
                bot = make_bot(lv, seat, 3) if bots[lv].seat != seat else bots[lv]
                action = bot.choose(view, [])
                assert action.seat == seat
                assert is_legal_for_view(view, action)
                assert is_legal(m, action), (lv, action)  # the real engine agrees
                checked += 1
    assert checked > 50


@pytest.mark.parametrize("variant", VARIANT_IDS)
@pytest.mark.parametrize("n_players", [2, 4])
def test_bots_finish_whole_matches(variant, n_players):
    levels = ["expert", "moyen", "debutant", "moyen"][:n_players]
    bots = [make_bot(lv, s, 10 + s) for s, lv in enumerate(levels)]
    limit = 50 if VARIANTS[variant].match_rule == "elimination" else None
    opts = MatchOptions(limit=limit, knock=VARIANTS[variant].knock_supported)
    if VARIANTS[variant].match_rule == "target":
        opts = MatchOptions(quick=True)
    res = play_match(variant, bots, seed=4, options=opts)  # raises on an illegal action
    assert res.winner in range(n_players)
    assert res.rounds >= 1 and len(res.round_winners) == res.rounds


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_quick_partition_is_valid_and_a_lower_bound(variant):
    from rami_lan.bots.quick import quick_partition
    from rami_lan.core import check_meld
    from rami_lan.core.solver import best_partition

    v = VARIANTS[variant]
    rng = random.Random(11)
    deck = full_deck(v.n_decks, v.n_jokers)
    for _ in range(40):
        hand = rng.sample(deck, rng.choice((7, 10, 13, 14)))
        q = quick_partition(v, hand)
        used = [c for m in q.melds for c in m]
        assert len(used) == len(set(used)) and set(used) <= set(hand)
        for m in q.melds:
            kind = "set" if len({c.rank for c in m if not c.is_joker}) == 1 else "run"
            assert check_meld(v, list(m), kind=kind).valid, (variant, [str(c) for c in m])
        assert q.points <= best_partition(v, hand).points


class _Spy(Bot):
    """Records what it is given: a bot gets views and redacted events, never a state."""

    def __init__(self, seat: int) -> None:
        super().__init__(seat)
        self.inputs: list[tuple[object, list[E.Event]]] = []

    def choose(self, view, new_events=()):
        self.inputs.append((view, list(new_events)))
        return super().choose(view, new_events)


def test_bots_only_receive_views_and_redacted_events():
    spies = [_Spy(0), _Spy(1)]
    play_match("rami", spies, seed=2, options=MatchOptions(limit=1))
    for spy in spies:
        assert spy.inputs
        for view, events in spy.inputs:
            assert type(view) is SeatView and view.seat == spy.seat
            for ev in events:
                if isinstance(ev, E.StockDrawn | E.CardsDealt) and ev.seat != spy.seat:
                    assert ev.cards is None if isinstance(ev, E.CardsDealt) else ev.card is None


def test_expert_keeps_jokers_and_remembers_discards():
    from rami_lan.core import parse_cards

    expert = make_bot("expert", 0, 1)
    expert.observe(None, [E.Discarded(1, parse_cards("9h")[0])])
    assert [str(c) for c in expert.memory.pile] == ["9h"]
    # on a real state, the expert never throws a joker while another card may go
    for m in _random_states("rami", 2, seed=12, steps=60):
        if m.round.phase != "play":
            continue
        view = view_for(m, m.round.turn)
        if not any(c.is_joker for c in view.hand):
            continue
        bot = make_bot("expert", view.seat, 2)
        card = bot.pick_discard(view)
        assert card is None or not card.is_joker or all(c.is_joker for c in view.hand)


def test_expert_knocks_when_it_pays():
    from rami_lan.core import parse_cards

    expert = make_bot("expert", 2, 1)
    # seat 1 just discarded 9c; seat 2 (not next) holds 7c 8c and the kings: knock pays
    hand = tuple(parse_cards("7c 8c Kd Kh Ks 2d 4s 6h 10s Jd Qh 3c 5d"))
    view = _knock_view(hand, parse_cards("9c")[0], window=(2,))
    assert expert.wants_knock(view)
    assert not make_bot("moyen", 2, 1).wants_knock(view)
    closed = _knock_view(hand, parse_cards("9c")[0], window=())
    assert not expert.wants_knock(closed)


def _knock_view(hand, top, window) -> SeatView:
    from rami_lan.core.views import PlayerInfo

    players = tuple(
        PlayerInfo(s, True, 13, False, 0, False, 0, False) for s in range(3)
    )
    return SeatView(
        seat=2, variant="rami", phase="draw", round_no=1, turn_no=3, turn=0, dealer=2,
        hand=hand, players=players, melds=(), discard=(top,), discard_size=4,
        stock_size=60, knock_window=window, taken=None, must_use=(), last_result=None,
        limit=100, quick=False, knock=True, match_over=False, winner=None, tiebreak=(),
    )


def test_moyen_is_a_plain_medium_player():
    """moyen: top discard only for a meld laid now; discards its highest-penalty loose card."""
    from rami_lan.core import parse_cards
    from rami_lan.core.melds import hand_points

    moyen = make_bot("moyen", 2, 1)
    # 7c 8c + 9c is a 24-point run: not enough to open in rami, so moyen draws blind
    hand = tuple(parse_cards("7c 8c 2d 4s 6h 10s Jd Qh 3c 5d Ah 9s 4h"))
    view = _draw_view(hand, parse_cards("9c")[0])
    assert isinstance(moyen.choose(view, []), A.DrawStock)
    # with three kings as well the run completes a 54-point opening: it takes the card
    hand = tuple(parse_cards("7c 8c Kd Kh Ks 2d 4s 6h 10s Jd Qh 3c 5d"))
    view = _draw_view(hand, parse_cards("9c")[0])
    assert moyen.choose(view, []) == A.DrawDiscard(2, 1)
    assert not moyen.wants_knock(view)
    v = VARIANTS["rami"]
    seen = 0
    for m in _random_states("rami", 2, seed=5, steps=80):
        if m.round.phase != "play":
            continue
        view = view_for(m, m.round.turn)
        bot = make_bot("moyen", view.seat, 2)
        melded = bot.meld_cards(view)
        loose = [
            c for c in view.hand
            if c not in melded and not c.is_joker and is_legal_for_view(view, A.Discard(view.seat, c))
        ]
        if not loose:
            continue
        card = bot.pick_discard(view)
        assert hand_points(v, card) == max(hand_points(v, c) for c in loose)
        seen += 1
    assert seen > 5


def _draw_view(hand, top) -> SeatView:
    from rami_lan.core.views import PlayerInfo

    players = tuple(PlayerInfo(s, True, 13, False, 0, False, 0, False) for s in range(3))
    return SeatView(
        seat=2, variant="rami", phase="draw", round_no=1, turn_no=3, turn=2, dealer=1,
        hand=hand, players=players, melds=(), discard=(top,), discard_size=4,
        stock_size=60, knock_window=(), taken=None, must_use=(), last_result=None,
        limit=100, quick=False, knock=False, match_over=False, winner=None, tiebreak=(),
    )


def _play_view(hand, n_cards=(13, 13), opened=(False, False), variant="rami", turn_no=3) -> SeatView:
    """Seat 0's play phase (it has drawn) in a heads-up round."""
    from rami_lan.core.views import PlayerInfo

    players = tuple(
        PlayerInfo(s, True, n_cards[s], opened[s], 0, False, 0, False) for s in range(2)
    )
    return SeatView(
        seat=0, variant=variant, phase="play", round_no=1, turn_no=turn_no, turn=0, dealer=1,
        hand=tuple(hand), players=players, melds=(), discard=(), discard_size=3,
        stock_size=60, knock_window=(), taken=None, must_use=(), last_result=None,
        limit=100, quick=False, knock=False, match_over=False, winner=None, tiebreak=(),
    )


NEAR = "2c 3c 4c 5d 6d 7d 9h 9s 9c Kd Ks Kh Qh 8s"  # two loose cards: not out yet
OUT = "2c 3c 4c 5d 6d 7d 8d 9h 9s 9c Kd Ks Kh Qh"  # melded whole but Qh: a rami sec


@pytest.mark.parametrize("level", ["conceal", "expert"])
def test_concealers_hold_melds_until_a_rami_sec(level):
    from rami_lan.core import parse_cards

    bot = make_bot(level, 0, 1)
    near = _play_view(parse_cards(NEAR))
    action = bot.choose(near, [])
    assert isinstance(action, A.Discard), action  # melds kept hidden
    assert action.card in parse_cards("Qh 8s")
    out = _play_view(parse_cards(OUT))
    action = make_bot(level, 0, 1).choose(out, [])
    assert isinstance(action, A.LayDown)
    laid = {c for m in action.melds for c in m.cards}
    assert len(laid) == 13 and parse_cards("Qh")[0] not in laid
    # expert_v1 lays its melds at once
    assert isinstance(make_bot("expert_v1", 0, 1).choose(near, []), A.LayDown)


def test_conceal_opens_when_an_opponent_gets_close():
    from rami_lan.core import parse_cards

    close = _play_view(parse_cards(NEAR), n_cards=(14, 4), opened=(False, True))
    assert isinstance(make_bot("conceal", 0, 1).choose(close, []), A.LayDown)
    # in 500 (no rami sec reward) it lays at once like expert_v1
    hand = parse_cards("2c 3c 4c 9h 9s 9c Qh 8s")
    assert isinstance(make_bot("conceal", 0, 1).choose(_play_view(hand, variant="500"), []), A.LayDown)


def test_expert_reads_a_hidden_opponent_from_public_events():
    """The hazard of an opponent that laid nothing grows with its turns and pickups;
    once it has laid, its hand size drives it; knock questions carry events too."""
    from rami_lan.core import parse_cards
    from rami_lan.core.variants import get_variant
    from rami_lan.core.views import PlayerInfo

    v = get_variant("rami")
    expert = make_bot("expert", 0, 1)
    hidden = PlayerInfo(1, True, 13, False, 0, False, 0, False)
    assert expert.hazard(v, hidden) == 0.0  # nothing played yet
    expert.observe(None, [E.StockDrawn(1, None, 0, 0) for _ in range(3)])
    early = expert.hazard(v, hidden)
    expert.observe(None, [E.StockDrawn(1, None, 0, 0) for _ in range(5)])
    later = expert.hazard(v, hidden)
    card = parse_cards("9h")[0]
    # events given with a knock question are remembered as well
    assert not expert.wants_knock(_play_view(parse_cards(NEAR)), [E.DiscardTaken(1, (card,), 1)])
    assert expert.model.rec(1).taken == [card]
    assert 0.0 < early < later <= expert.hazard(v, hidden) <= 0.5
    opened_few = PlayerInfo(1, True, 1, True, 0, False, 0, False)
    opened_many = PlayerInfo(1, True, 8, True, 0, False, 0, False)
    assert expert.hazard(v, opened_few) > 0.2 > expert.hazard(v, opened_many)
    # a fresh round forgets it
    expert.observe(None, [E.RoundStarted(2, 0, 1, (0, 1), 13, 80, card)])
    assert expert.hazard(v, hidden) == 0.0


def test_expert_sheds_high_cards_against_a_late_hidden_hand():
    """Late in a round against a hidden hand, a king goes before a low loose card."""
    from rami_lan.core import parse_cards

    hand = parse_cards("2c 3c 4c 5d 6d 7d 9h 9s 9c 3h 5s Kd 8h 4d")
    calm = make_bot("expert", 0, 1)
    late = make_bot("expert", 0, 1)
    late.observe(None, [E.StockDrawn(1, None, 0, 0) for _ in range(9)])
    view = _play_view(hand, n_cards=(14, 13))
    assert late.danger(view) > calm.danger(view)
    assert late.pick_discard(view) == parse_cards("Kd")[0]


def test_tactics_completes_meld_and_chained_lay_offs():
    from rami_lan.bots.tactics import completes_meld, finish_left, lay_off_rest
    from rami_lan.core import parse_cards
    from rami_lan.core.melds import build_run
    from rami_lan.core.variants import get_variant

    v5, v40 = get_variant("500"), get_variant("40")
    card = parse_cards("9c")[0]
    assert completes_meld(v5, card, parse_cards("9h 9s"))  # a set
    assert completes_meld(v5, card, parse_cards("10c Jc"))  # a run above
    assert completes_meld(v5, card, parse_cards("8c 3d *"))  # a run with a joker
    assert not completes_meld(v5, card, parse_cards("9h 8d Jc"))
    ace = parse_cards("Ac")[0]
    assert completes_meld(v5, ace, parse_cards("2c 3c")) and completes_meld(v5, ace, parse_cards("Qc Kc"))
    assert not completes_meld(v40, ace, parse_cards("2c 3c"))  # 40: the ace is high only
    table = (build_run(v40, parse_cards("4h 5h 6h")),)
    # 8h fits only once 7h extended the run
    assert lay_off_rest(v40, table, parse_cards("8h 7h 2d")) == parse_cards("2d")
    assert finish_left(v40, table, parse_cards("8h 7h 2d"), lay_offs=False) == parse_cards("8h 7h 2d")


def _end_view(hand, top, table, variant="40") -> SeatView:
    """Seat 0's draw phase, both seats opened, ``table`` on the table."""
    from rami_lan.core.views import PlayerInfo

    players = (PlayerInfo(0, True, len(hand), True, 0, False, 0, False),
               PlayerInfo(1, True, 3, True, 0, False, 0, False))
    return SeatView(
        seat=0, variant=variant, phase="draw", round_no=1, turn_no=20, turn=0, dealer=1,
        hand=tuple(hand), players=players, melds=tuple(table), discard=(top,), discard_size=9,
        stock_size=40, knock_window=(), taken=None, must_use=(), last_result=None,
        limit=101, quick=False, knock=False, match_over=False, winner=None, tiebreak=(),
    )


def test_expert_takes_the_discard_that_lets_it_go_out():
    """End game: the top discard lays off on the table and the last card goes out;
    expert_v1 (which does not count lay-offs when drawing) draws from the stock."""
    from rami_lan.core import parse_cards
    from rami_lan.core.melds import build_run, build_set
    from rami_lan.core.variants import get_variant

    v = get_variant("40")
    table = (build_run(v, parse_cards("4h 5h 6h"), 1), build_set(v, parse_cards("Kc Kd Ks"), 1))
    view = _end_view(parse_cards("2d"), parse_cards("7h")[0], table)
    assert make_bot("expert", 0, 1).choose(view, []) == A.DrawDiscard(0, 1)
    assert make_bot("expert_v1", 0, 1).choose(view, []) == A.DrawStock(0)
    # a top that fits nothing: the stock
    other = _end_view(parse_cards("2d"), parse_cards("9s")[0], table)
    assert make_bot("expert", 0, 1).choose(other, []) == A.DrawStock(0)


def test_expert_end_game_discard_keeps_outs_to_the_table():
    """Three loose cards after the draw (40: the last card must be discarded): keep the
    8h, which goes out with a 7h on the table's run (7h then 8h laid off, the other
    card discarded); without the 8h a 7h leaves two cards."""
    from dataclasses import replace

    from rami_lan.bots.tactics import can_go_out
    from rami_lan.core import parse_cards
    from rami_lan.core.melds import build_run
    from rami_lan.core.variants import get_variant

    v = get_variant("40")
    table = (build_run(v, parse_cards("4h 5h 6h"), 1),)
    assert can_go_out(v, table, parse_cards("7h 8h"), True)  # one of them is the discard
    assert not can_go_out(v, table, parse_cards("7h 2c Qd"), True)
    assert not can_go_out(v, (), parse_cards("7c 8c 9c"), True)  # nothing left to discard
    hand = parse_cards("8h Qd 2c")
    view = replace(_end_view(hand, parse_cards("3s")[0], table), phase="play")
    bot = make_bot("expert", 0, 1)
    assert bot.pick_discard(view) == parse_cards("Qd")[0]  # equal outs: the higher card


def test_expert_40_keeps_new_melds_in_hand_once_opened():
    """40, opened: a new meld stays in hand (no lay-off targets for the others) while
    no opponent is close to going out; with an opponent on one card it is laid at once.
    expert_v1 lays it at once either way."""
    from dataclasses import replace

    from rami_lan.core import parse_cards
    from rami_lan.core.melds import build_run
    from rami_lan.core.variants import get_variant
    from rami_lan.core.views import PlayerInfo

    v = get_variant("40")
    table = (build_run(v, parse_cards("Qd Kd Ad"), 0), build_run(v, parse_cards("10c Jc Qc"), 0))
    hand = parse_cards("9h 9s 9c 2d 5c 7d 3s")
    base = replace(_end_view(hand, parse_cards("3h")[0], table), phase="play")

    def facing(n_cards, opened):
        players = (PlayerInfo(0, True, len(hand), True, 0, False, 0, False),
                   PlayerInfo(1, True, n_cards, opened, 0, False, 0, False))
        return replace(base, players=players)

    for n_cards, opened in ((13, False), (9, True)):
        action = make_bot("expert", 0, 1).choose(facing(n_cards, opened), [])
        assert isinstance(action, A.Discard), action
        assert action.card not in parse_cards("9h 9s 9c")
    assert isinstance(make_bot("expert", 0, 1).choose(facing(1, True), []), A.LayDown)
    assert isinstance(make_bot("expert_v1", 0, 1).choose(facing(13, False), []), A.LayDown)


def test_expert_40_opens_with_the_fewest_cards():
    """40: having taken the top discard to open (it must open this turn), the expert
    lays the fewest cards that reach 40 (the two sets, 60 points) and keeps its small
    run hidden; expert_v1 lays all three melds."""
    from dataclasses import replace

    from rami_lan.core import parse_cards

    hand = parse_cards("Kh Ks Qd Qh Qs 5c 6c 7c 2d 9s 3h 4d 8s Kc")
    taken = hand[-1]
    view = replace(_play_view(hand, variant="40"), taken=taken, must_use=(taken,), limit=101)
    action = make_bot("expert", 0, 1).choose(view, [])
    assert isinstance(action, A.LayDown), action
    laid = {c for m in action.melds for c in m.cards}
    assert laid == set(parse_cards("Kh Ks Kc Qd Qh Qs"))
    v1 = make_bot("expert_v1", 0, 1).choose(view, [])
    assert isinstance(v1, A.LayDown) and len(v1.melds) == 3


def test_expert_40_weighs_outs_less_against_penalty(monkeypatch):
    """40 (fifth pass): a live out weighs 2, not 3, in the discard score. Opened, the
    opponent on three cards: the expert sheds the jack (10 points; its only outs are
    the two unseen 10s between it and the 9s) rather than the loose 5d; weighing the
    outs 3 (the rule off, as `expert_v1`) it keeps the jack and sheds the 5d."""
    from dataclasses import replace

    from rami_lan.bots.expert import PER_VARIANT
    from rami_lan.core import parse_cards
    from rami_lan.core.melds import build_run
    from rami_lan.core.variants import get_variant
    from rami_lan.core.views import PlayerInfo

    v = get_variant("40")
    table = (build_run(v, parse_cards("4h 5h 6h"), 1),)
    hand = parse_cards("Kd Qd 2c 3c 9s Js 5d")
    players = (PlayerInfo(0, True, len(hand), True, 0, False, 0, False),
               PlayerInfo(1, True, 3, True, 0, False, 0, False))
    view = replace(_end_view(hand, parse_cards("3s")[0], table), phase="play", players=players)
    assert PER_VARIANT["40"]["outs_w"] == 2.0
    assert make_bot("expert", 0, 1).pick_discard(view) == parse_cards("Js")[0]
    monkeypatch.setitem(PER_VARIANT["40"], "outs_w", 3.0)
    assert make_bot("expert", 0, 1).pick_discard(view) == parse_cards("5d")[0]
    # other variants keep expert_v1's weight
    assert "outs_w" not in PER_VARIANT.get("rami", {})


def test_expert_500_does_not_feed_the_pile():
    """500: the whole pile can be taken; a discard that completes a meld with pile
    cards (or with cards the next player is known to hold) hands it a deep take."""
    from dataclasses import replace

    from rami_lan.core import parse_cards

    hand = parse_cards("2c 3c 4c 9c 5h 6s 2d")
    pile = tuple(parse_cards("9h 3d 9s Jh"))
    view = replace(_play_view(hand, n_cards=(7, 7), variant="500"), discard=pile, discard_size=4)
    feeder = make_bot("expert", 0, 1)
    feeder.pile_feed_w = 0.0
    careful = make_bot("expert", 0, 1)
    assert feeder.pick_discard(view) == parse_cards("9c")[0]  # the 9 alone, by its points
    assert careful.pick_discard(view) != parse_cards("9c")[0]
    # the next player took Qd and Qs from the pile and has not shown them since
    qd, qs, qh = parse_cards("Qd Qs Qh")
    careful.observe(view, [E.DiscardTaken(1, (qd, qs), 2)])
    assert careful.model.rec(1).held == [qd, qs]
    hand2 = parse_cards("2c 3c 4c Qh 5h 6s 7d")
    view2 = replace(view, hand=tuple(hand2), discard=tuple(parse_cards("3d 8s")))
    assert feeder.pick_discard(view2) == qh
    assert careful.pick_discard(view2) != qh
    # once it lays them, they are no longer known to be in its hand
    careful.observe(view, [E.LaidOff(1, qd, 0, None)])  # type: ignore[arg-type]
    assert careful.model.rec(1).held == [qs]


def test_level_descriptions_for_the_ui():
    from rami_lan import i18n
    from rami_lan.bots.levels import LEVEL_INFO
    from rami_lan.cli.level_text import describe_level as describe

    assert list(LEVEL_INFO) == list(LEVELS)
    for lv in LEVELS:
        en = describe(lv)
        assert en.name and en.plays and en.strength
    i18n.set_language("fr")
    try:
        for lv in LEVELS:
            fr, en = describe(lv), LEVEL_INFO[lv]
            assert fr.plays != en.plays and fr.strength != en.strength, lv
    finally:
        i18n.set_language("en")


STRENGTH_MATCHES = int(os.environ.get("RAMI_STRENGTH_MATCHES", "200"))
# (strong, weak, target share of heads-up matches, floor for the lower 95 % bound):
# the targets of issues 16 (expert) and the first bots issue (moyen)
PAIRINGS = [
    ("expert", "moyen", 0.80, 0.70),
    ("expert", "expert_v1", 0.65, 0.55),
    ("expert", "conceal", 0.55, 0.45),
    ("moyen", "debutant", 0.80, 0.70),
    # issue 26: the sixth pass's expert against the expert of the first five passes
    ("expert", "expert_v2", 0.60, 0.50),
]
# cells measured short of the target (seed 2024, 200 matches; docs/bots.md "Measured"):
# none since the fifth pass (`40` expert against expert_v1 was 62.0 % [55.1, 68.4]) but
# expert against expert_v2 outside 500, where the sixth pass kept nothing: the expert
# plays move for move as expert_v2 there, so a seat-swapped run splits 50/50 (the
# issue's target outside 500 and classique is "not below"; classique is short of 60 %)
_SAME = "plays as expert_v2 here (sixth pass, docs/bots.md): 100/200 = 50.0 % [43.1, 56.9], seed 2026"
SHORT: dict[tuple[str, str, str], str] = {
    ("expert", "expert_v2", v): _SAME for v in ("rami", "classique", "40")
}
# multi: the eighth pass's expert lays its melds sooner; against expert_v3 (= expert_v2
# there) it measured 102/200 = 51.0 % [44.1, 57.8] (seed 2028), short of 60 %
SHORT[("expert", "expert_v2", "multi")] = "eighth pass (docs/bots.md): 51.0 % [44.1, 57.8] vs expert_v3"


def _strength_cases():
    for strong, weak, target, floor in PAIRINGS:
        for variant in VARIANT_IDS:
            why = SHORT.get((strong, weak, variant))
            marks = [pytest.mark.xfail(reason=why, strict=False)] if why else []
            yield pytest.param(variant, strong, weak, target, floor, marks=marks,
                               id=f"{strong}-{weak}-{variant}")


@pytest.mark.slow
@pytest.mark.skipif(
    not os.environ.get("RAMI_SLOW"), reason="strength test: set RAMI_SLOW=1 (minutes)"
)
@pytest.mark.parametrize(("variant", "strong", "weak", "target", "floor"), list(_strength_cases()))
def test_strength(variant, strong, weak, target, floor):
    """The issues' targets, seat-swapped heads-up matches at the default limits.

    The point estimate must reach the target and the lower end of the 95 % Wilson
    interval must clear the floor (so a lucky run just above the target does not pass
    while the bot is not clearly better). Cells measured short are expected failures
    with the measured figure as the reason.
    """
    from rami_lan.cli.cmd_simulate import simulate

    stats = simulate(variant, [strong, weak], STRENGTH_MATCHES, seed=2024)
    best = stats["bots"][0]
    assert best["win_rate"] >= target, best
    assert best["ci95"][0] > floor, best


@pytest.mark.parametrize("variant", ["rami", "classique", "40"])
def test_debutant_rounds_end_with_a_winner(variant):
    """A débutant lays off once its hand is nearly empty: without it a hand of one card
    could never go out and a débutant round ran to the move cap with no winner (about a
    third of the rounds in `rami` and `40`). Every round of four seeded matches has one."""
    winners = []
    for seed in range(4):
        bots = [make_bot("debutant", 0, seed), make_bot("debutant", 1, seed + 100)]
        winners += play_match(variant, bots, seed).round_winners
    assert len(winners) >= 4
    assert None not in winners, f"{winners.count(None)} of {len(winners)} rounds had no winner"
