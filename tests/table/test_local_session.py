"""LocalTableSession: seeded deals, the core judging the human, bots, rounds."""

from __future__ import annotations

import asyncio

from rami_lan.cli.local_session import LocalTableSession
from rami_lan.core import actions as A
from rami_lan.core import events as E
from rami_lan.core.match import MatchOptions
from rami_lan.core.reasons import Reason
from rami_lan.core.shadow import legal_actions_for_view


def collect(session: LocalTableSession, out: list) -> asyncio.Task:
    async def read() -> None:
        async for u in session.updates():
            out.append(u)

    return asyncio.ensure_future(read())


async def settle(pred, timeout: float = 5.0) -> None:
    end = asyncio.get_running_loop().time() + timeout
    while not pred():
        assert asyncio.get_running_loop().time() < end, "timed out"
        await asyncio.sleep(0.002)


def new(seed="s1", **kw) -> LocalTableSession:
    kw.setdefault("options", MatchOptions(limit=1))
    return LocalTableSession("rami", 3, 0, {1: "moyen", 2: "expert"}, seed=seed, **kw)


def test_same_seed_same_deal_and_views_hide_other_hands():
    async def main() -> tuple:
        a, b, c = new("same"), new("same"), new("other")
        for s in (a, b, c):
            await s.start()
        hands = (a.state.round.hands, b.state.round.hands, c.state.round.hands)
        ups: list = []
        t = collect(a, ups)
        await settle(lambda: ups)
        for s in (a, b, c):
            await s.close()
        await t
        return hands, ups

    (ha, hb, hc), ups = asyncio.run(main())
    assert ha == hb and ha != hc
    first = next(u for u in ups if u.view is not None and u.view.round_no == 1)
    assert first.view.hand == ha[0]
    dealt = [e for u in ups for e in u.events if isinstance(e, E.CardsDealt)]
    assert {e.seat for e in dealt} == {0, 1, 2}
    assert all(e.cards is None for e in dealt if e.seat != 0)
    assert any(u.nicknames for u in ups) and any(u.connection == "connected" for u in ups)


def test_illegal_action_comes_back_as_error_and_changes_nothing():
    async def main():
        s = new("err")
        ups: list = []
        t = collect(s, ups)
        await s.start()
        await settle(lambda: s.state.round.turn == 0)
        before = s.state
        await s.act(A.Discard(0, s.state.round.hands[0][0]))  # discard before drawing
        await s.act(A.DrawStock(1))  # not our seat
        await settle(lambda: sum(1 for u in ups if u.error) >= 2)
        after = s.state
        await s.close()
        await t
        return before, after, [u.error for u in ups if u.error]

    before, after, errors = asyncio.run(main())
    assert before is after
    assert errors[0].code == "wrong_phase" and "not allowed in the draw phase" in str(errors[0])
    assert errors[0].data == {"kind": "discard", "phase": "draw"}
    assert errors[1] == Reason.of("not_your_seat")


def test_solo_refusals_are_coded_and_read_in_french_with_cards_as_cards():
    """Solo play gets the rules' coded reason without the wire; the player reads it in
    French, the card as a card (issue 27)."""
    from rami_lan import i18n
    from rami_lan.cli.messages import error_text

    async def main():
        s = new("fr")
        ups: list = []
        t = collect(s, ups)
        await s.start()
        await settle(lambda: s.state.round.turn == 0)
        await s.act(A.DrawStock(0))
        await settle(lambda: s.state.round.phase == "play")
        foreign = s.state.round.hands[1][0]
        await s.act(A.Discard(0, foreign))  # a card of another hand
        await settle(lambda: any(u.error for u in ups))
        await s.close()
        await t
        return foreign, next(u.error for u in ups if u.error)

    foreign, why = asyncio.run(main())
    assert why == Reason.of("not_holding", card=str(foreign))
    i18n.set_language("fr")
    try:
        face = i18n.card_face(foreign.rank, foreign.suit)
        assert error_text(why, me=0) == f"Vous n’avez pas {face} en main."
        assert str(foreign) not in error_text(why, me=0)
    finally:
        i18n.set_language("en")
    assert error_text(why, me=0) == f"You do not hold {i18n.card_face(foreign.rank, foreign.suit)}."


def test_bots_play_a_whole_round_and_next_round_deals_again():
    async def main():
        s = LocalTableSession("rami", 2, 0, {1: "moyen"}, MatchOptions(limit=100), seed="r2")
        ups: list = []
        t = collect(s, ups)
        await s.start()
        rng_turns = 0
        while s.state.phase in ("draw", "play"):
            await settle(lambda: s.state.phase not in ("draw", "play") or s.state.round.turn == 0)
            if s.state.phase not in ("draw", "play"):
                break
            view = s.view()
            acts = list(legal_actions_for_view(view))
            lay = [a for a in acts if isinstance(a, A.LayDown | A.LayOff)]
            pick = lay[0] if lay else next(a for a in acts if not isinstance(a, A.Knock))
            await s.act(pick)
            rng_turns += 1
            assert rng_turns < 2000
        phase = s.state.phase
        await s.next_round("continue")
        await settle(lambda: s.state.round_no == 2 or s.state.over)
        state = s.state
        await s.next_round("leave") if state.phase == "between" else None
        await s.close()
        await t
        return phase, state, ups

    phase, state, ups = asyncio.run(main())
    assert phase in ("between", "over")
    ended = [e for u in ups for e in u.events if isinstance(e, E.RoundEnded)]
    assert ended and ended[0].hand_points
    assert state.over or state.round_no == 2
    assert ups[-1].connection == "closed"


def test_move_timer_plays_for_the_absent_human():
    async def main():
        s = LocalTableSession("rami", 2, 0, {1: "moyen"}, MatchOptions(limit=100), seed="t",
                              timer=1)
        s.timer = 0.2  # type: ignore[assignment]  # a short timer for the test
        ups: list = []
        t = collect(s, ups)
        await s.start()
        await settle(lambda: any(isinstance(e, E.TimedOut) for u in ups for e in u.events), 5)
        deadlines = [u.deadline for u in ups if u.deadline is not None]
        await s.close()
        await t
        return deadlines

    assert asyncio.run(main())
