"""UI hints from a seat's view: meld groups, "Déposer", lay-offs, jokers."""

from __future__ import annotations

from rami_lan.core import actions as A
from rami_lan.core import full_deck, parse_cards
from rami_lan.core.hints import (
    hint_groups,
    hints,
    joker_hints,
    lay_down_hint,
    lay_off_hints,
    meld_groups,
)
from rami_lan.core.match import MatchOptions, apply, new_match, start_round
from rami_lan.core.shadow import is_legal_for_view
from rami_lan.core.variants import get_variant
from rami_lan.core.views import view_for

JUNK = "2c 5s Jd 4s Kc 8d 3h Qs 6c 10h"  # no two of these make half a meld with each other


def deal(
    variant: str, hand0: str, stock_top: str = "2d", hand1: str = "", up: str = ""
) -> object:
    """A 2-seat match where seat 0 holds ``hand0`` (+ filler) and draws ``stock_top``."""
    v = get_variant(variant)
    deck = full_deck(v.n_decks, v.n_jokers)
    hs = v.cards_per_player(2)

    def take(text: str) -> list:
        out = []
        for c in parse_cards(text):
            pick = next(d for d in deck if d.face == c.face and d not in out)
            deck.remove(pick)
            out.append(pick)
        return out

    h0, h1, top = take(hand0), take(hand1), take(stock_top)
    first_up = take(up) if up else []
    junk = [c for c in JUNK.split() if c not in hand0.split()]
    h0 += take(" ".join(junk[: hs - len(h0)]))
    filler = [d for d in deck if not d.is_joker]
    rest_jokers = [d for d in deck if d.is_joker]
    h1 += [filler.pop(0) for _ in range(hs - len(h1))]
    order = []
    for a, b in zip(h0, h1, strict=True):
        order += [a, b]
    order += (first_up or [filler.pop()]) + top + filler + rest_jokers
    m = new_match(v, 2, MatchOptions())
    m, _ = start_round(m, order, bytes(32), dealer=1)  # seat 0 plays first
    assert list(m.round.hands[0][: len(parse_cards(hand0))]) == h0[: len(parse_cards(hand0))]
    return m


def test_groups_and_threshold_rami():
    m = deal("rami", "7c 7s 7h 2h 9s")
    view = view_for(m, 0)
    assert any(sorted(str(c) for c in g) == ["7c", "7h", "7s"] for g in meld_groups(view))
    assert not lay_down_hint(view).legal  # draw phase: not now
    m, _ = apply(m, A.DrawStock(0))
    hint = lay_down_hint(view_for(m, 0))
    assert not hint.legal and hint.need == 30  # three 7s = 21 < 30 (worked example 5)


def test_lay_down_legal_and_confirmed_by_engine():
    m = deal("rami", "10c Jc Qc Kd Kh Ks 4h")
    m, _ = apply(m, A.DrawStock(0))
    view = view_for(m, 0)
    hint = lay_down_hint(view)
    assert hint.legal and hint.points >= 60 and hint.action is not None
    assert is_legal_for_view(view, hint.action)
    m, _ = apply(m, hint.action)  # the host accepts it
    assert m.round.opened[0]


def test_lay_off_hints_after_opening():
    m = deal("rami", "10c Jc Qc Kd Kh Ks 9c 4h")
    m, _ = apply(m, A.DrawStock(0))
    hand = m.round.hands[0]
    run = tuple(next(c for c in hand if str(c) == t) for t in ("10c", "Jc", "Qc"))
    kings = tuple(c for c in hand if c.rank == 13)[:3]
    m, _ = apply(m, A.LayDown(0, (A.MeldSpec(run, "run"), A.MeldSpec(kings, "set"))))
    offs = lay_off_hints(view_for(m, 0))
    laid = {(str(a.card), a.target) for a in offs}
    run_index = next(i for i, mm in enumerate(m.round.melds) if mm.kind == "run")
    assert ("9c", run_index) in laid
    assert all(str(a.card) != "4h" for a in offs)
    # the other seat sees no lay-off hints: not its turn
    assert lay_off_hints(view_for(m, 1)) == []


def test_joker_hints():
    m = deal("rami", "5h * 7h Kd Kh Ks 6h 2c")
    m, _ = apply(m, A.DrawStock(0))
    v = get_variant("rami")
    hand = m.round.hands[0]
    five, jok, seven = (next(c for c in hand if str(c) == t) for t in ("5h", "*", "7h"))
    kings = [c for c in hand if c.rank == 13][:3]
    lay = A.LayDown(0, (A.MeldSpec((five, jok, seven), "run"), A.MeldSpec(tuple(kings), "set")))
    m, _ = apply(m, lay)
    found = joker_hints(view_for(m, 0))
    assert [(a.target, [str(c) for c in a.cards]) for a in found] == [(0, ["6h"])]
    assert v.joker_recovery == "replace"
    everything = hints(view_for(m, 0))
    assert everything.jokers == found


def test_hint_groups_for_the_ui():
    groups = hint_groups("multi", parse_cards("3s 4s 5s 9c 9d 9h Kd"))
    assert sorted(len(g) for g in groups) == [3, 3]


def test_lay_down_respects_must_use_in_40():
    # 40: an unopened seat may take the discard only to open with it this turn
    m = deal("40", "Qh Kh 10c 10s 10d", up="Ah")
    view = view_for(m, 0)
    assert is_legal_for_view(view, A.DrawDiscard(0, 1))
    m, _ = apply(m, A.DrawDiscard(0, 1))
    view = view_for(m, 0)
    assert [str(c) for c in view.must_use] == ["Ah"]
    hint = lay_down_hint(view)
    assert hint.legal and hint.need == 40 and hint.points >= 40
    assert any(str(c) == "Ah" for meld in hint.melds for c in meld)
    m, _ = apply(m, hint.action)
    assert m.round.opened[0]
