"""Rendering the table model: 80x24 with four players, French, 500's pile, results."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from rami_lan.cli.local_session import LocalTableSession
from rami_lan.cli.ui.model import TableModel
from rami_lan.cli.ui.render import render_result, render_table
from rami_lan.cli.ui.text import fragments_text
from rami_lan.core import actions as A
from rami_lan.core.match import MatchOptions
from rami_lan.i18n import set_language
from rami_lan.net.table_session import SessionUpdate

pytestmark = pytest.mark.usefixtures("english")


def model_after(variant: str, seats: int, seed: str, moves: int = 0, **kw) -> tuple:
    """A model fed by a local table where the bots (and a simple human) played ``moves``."""

    async def main():
        s = LocalTableSession(variant, seats, 0, {i: "moyen" for i in range(1, seats)},
                              MatchOptions(**kw), seed=seed)
        m = TableModel(seat=0, variant=variant)
        await s.start()
        for _ in range(moves):
            await asyncio.sleep(0)
            v = s.view()
            if v.my_turn:
                from rami_lan.core.shadow import legal_actions_for_view

                acts = [a for a in legal_actions_for_view(v) if not isinstance(a, A.Knock)]
                lays = [a for a in acts if isinstance(a, A.LayDown)]
                await s.act(lays[0] if lays else acts[-1])
        while not s._queue.empty():
            u = s._queue.get_nowait()
            if u is not None:
                m.apply(u)
        await s.close()
        return s, m

    return asyncio.run(main())


def lines_of(frags) -> list[str]:
    return fragments_text(frags).split("\n")


def test_four_players_fit_80x24():
    _s, m = model_after("rami", 4, "fit", moves=40)
    text_lines = lines_of(render_table(m, 80, 24))
    assert len(text_lines) <= 24
    assert all(len(line) <= 80 for line in text_lines), max(map(len, text_lines))
    text = "\n".join(text_lines)
    for name in ("Bot 2", "Bot 3", "Bot 4"):
        assert name in text
    assert "Stock [▒▒" in text and "Discard" in text


def test_french_table_and_turn_markers():
    set_language("fr")
    s, m = model_after("rami", 3, "fr")
    text = fragments_text(render_table(m, 80, 24))
    assert "Pioche" in text and "Talon" in text and "Manche 1" in text
    assert "[Piocher d]" in text or "[Déposer " in text
    if m.view.my_turn:
        assert "→ ! " in text  # the red "!" is yours, the arrow on who plays
    else:
        assert "→ " + m.name(m.view.turn) in text


def test_500_shows_the_whole_pile_and_depth():
    s, m = model_after("500", 2, "pile", moves=30)
    v = m.view
    assert len(v.discard) == v.discard_size
    m.depth = min(2, len(v.discard))
    text = fragments_text(render_table(m, 80, 24))
    for c in v.discard[-10:]:
        from rami_lan.cli.ui.cards import face_text

        assert face_text(c) in text
    if len(v.discard) > 1:
        assert "depth 2" in text


def test_joker_in_meld_shows_what_it_stands_for():
    s, m = model_after("rami", 4, "fit", moves=40)
    jokers = [(i, mm) for i, mm in enumerate(m.view.melds) if mm.n_jokers]
    text = fragments_text(render_table(m, 120, 40))
    for _i, mm in jokers:
        for card, st in zip(mm.cards, mm.stands_for_text(), strict=True):
            if card.is_joker:
                assert "(" + st[:-1] in text


def test_result_screen_loud_fairness_failure_and_eliminated_mark():
    s, m = model_after("rami", 2, "res", moves=0)
    from rami_lan.core.events import RoundEnded

    v = m.view
    res = RoundEnded(1, True, "out", ((0, v.hand[:2]), (1, ())), ((0, 0), (1, 0)),
                     ((0, 0), (1, 0)), ((0, 40), (1, 0)))
    players = (replace(v.players[0], eliminated=True, total=140), v.players[1])
    m.apply(SessionUpdate(view=replace(v, phase="over", last_result=res, players=players,
                                       match_over=True, winner=1),
                          fairness=(False, "seed commitment mismatch")))
    text = fragments_text(render_result(m, 80))
    assert "FAIRNESS CHECK FAILED: seed commitment mismatch" in text
    assert "X eliminated" in text
    assert "Rami sec!" in text
    assert "wins the match" in text
    assert "[Leave q]" in text and "[Continue" not in text


def test_fairness_per_round_failed_is_loud_on_table_and_result_screens():
    """Issue 12 item 4: the fairness state is per round; a FAILED round shows its reason
    and evidence file on the result screen and stays on the table screen; otherwise the
    result says how many rounds were checked."""
    from rami_lan.net.fairness import FairnessRound

    s, m = model_after("rami", 2, "fair", moves=0)
    ok = FairnessRound(1, "checked", "", events_checked=40)
    m.apply(SessionUpdate(fairness_round=ok))
    m.apply(SessionUpdate(fairness_round=FairnessRound(2, "pending", "")))
    assert m.fairness_summary() == (1, 1)
    assert "FAILED" not in fragments_text(render_table(m, 80, 24))
    bad = FairnessRound(2, "failed", "dealer moved: expected seat 1, host said seat 2",
                        evidence="/tmp/evidence-r2.json")
    m.apply(SessionUpdate(fairness_rounds=(ok, bad)))
    table = fragments_text(render_table(m, 80, 24))
    assert "FAIRNESS CHECK FAILED in round 2: dealer moved" in table
    from rami_lan.core.events import RoundEnded

    v = m.view
    res = RoundEnded(2, False, "out", ((0, ()), (1, ())), ((0, 0), (1, 0)),
                     ((0, 0), (1, 0)), ((0, 0), (1, 0)))
    m.apply(SessionUpdate(view=replace(v, phase="over", last_result=res)))
    result = fragments_text(render_result(m, 100))
    assert "Round 2: fairness check FAILED: dealer moved" in result
    assert "/tmp/evidence-r2.json" in result
    m.fairness_rounds[2] = FairnessRound(2, "checked", "")
    result = fragments_text(render_result(m, 100))
    assert "Fair shuffle and rulings checked: 2 of 2 rounds." in result
