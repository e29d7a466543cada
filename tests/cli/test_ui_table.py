"""In-process UI tests: a whole solo round driven by keys and mouse clicks."""

from __future__ import annotations

import asyncio

import pytest
from ui_helpers import Driver, locate, locate_style, running, until

from rami_lan.cli.cmd_solo import make_solo_session
from rami_lan.cli.local_session import LocalTableSession
from rami_lan.cli.ui.shell import Shell
from rami_lan.cli.ui.table_screen import TableScreen
from rami_lan.core import actions as A
from rami_lan.core.melds import hand_points
from rami_lan.core.variants import get_variant
from rami_lan.i18n import set_language

pytestmark = pytest.mark.usefixtures("ui_env")  # statistics of finished matches in tmp_path


def table_app(session: LocalTableSession) -> tuple[list, callable]:
    box: list = []

    def make() -> Shell:
        shell = Shell()
        screen = TableScreen(session, on_leave=shell.exit)
        shell.show(screen)
        box[:] = [shell, screen]
        return shell

    return box, make


def worst_card(screen: TableScreen) -> int:
    """Index (in the shown hand) of the card a simple player would throw away."""
    m = screen.model
    v = get_variant(m.variant)
    hinted = m.hinted()
    pending = set(m.view.must_use) if m.view else set()
    cands = [
        (i, c) for i, c in enumerate(m.hand)
        if c not in hinted and c not in pending and c != (m.view.taken if m.view else None)
    ] or list(enumerate(m.hand))
    for i, c in sorted(cands, key=lambda ic: -hand_points(v, ic[1])):
        if screen.model.view and A.Discard(m.seat, c) in set(
            a for a in _legal(screen) if isinstance(a, A.Discard)
        ):
            return i
    return cands[0][0]


def _legal(screen: TableScreen):
    from rami_lan.core.shadow import legal_actions_for_view

    return list(legal_actions_for_view(screen.model.view))


async def play_turn(d: Driver, screen: TableScreen, turn: int, use_mouse: bool) -> None:
    m = screen.model
    session = screen.session
    before = len(session.state.round.hands[m.seat]) if session.state.round else 0
    # draw
    if use_mouse:
        await d.settle()
        pos = locate(screen.fragments(), lambda t: t.startswith("[▒▒"))
        assert pos is not None, "the stock is on screen"
        d.click(*pos)
    else:
        d.keys("d")
    await until(lambda: m.view.phase != "draw" or not m.view.my_turn, what="draw")
    if not m.view.my_turn:
        return
    assert len(session.state.round.hands[m.seat]) == before + 1
    # lay down what the hints show while the core says Déposer is active
    for _ in range(3):
        if not m.legal()["lay"] or not m.view.my_turn:
            break
        seen = m.updates_seen
        d.keys("m")  # prepare the hinted melds
        await until(lambda: bool(m.staged) or m.error is not None, what="staged hints")
        if not m.staged:
            break
        if not m.legal()["lay"]:
            d.keys("\x1b")  # Esc: not legal as a whole (e.g. under 30 points)
            await until(lambda: not m.staged, what="cleared")
            break
        d.keys("m")
        await until(lambda seen=seen: m.updates_seen > seen, what="lay down")
        if m.view.phase not in ("play",):
            return
    if not m.view.my_turn or m.view.phase != "play":
        return
    # discard
    i = worst_card(screen)
    seen = m.updates_seen
    if use_mouse:
        await d.settle()
        frags = screen.fragments()
        # click the card (it lifts), then the Discard button
        card_pos = _card_position(frags, screen, i)
        d.click(*card_pos)
        await until(lambda: m.selected == [m.hand[i]], what="card selected by click")
        await d.settle()
        btn = locate(screen.fragments(), lambda t: t.startswith("[Discard"))
        assert btn is not None
        d.click(*btn)
    else:
        d.keys(str((i + 1) % 10) if i < 10 else "1" + "l" * (i - 0))
        await until(lambda: m.cursor == i, what="cursor")
        d.keys("x")
    await until(lambda: m.updates_seen > seen, what="discard")


def _card_position(frags, screen: TableScreen, index: int) -> tuple[int, int]:
    """Where the hand's card ``index`` is drawn (the fragment styled ``hand.<index>``)."""
    pos = locate_style(frags, f"class:hand.{index}")
    assert pos is not None, f"card {index} is on screen"
    return pos


def test_whole_solo_round_keys_and_mouse():
    async def main() -> None:
        session = make_solo_session("rami", 2, "moyen", "ui-round-1", limit=1, think=0)
        box, make = table_app(session)
        async with running(make, timeout=45) as d:
            shell, screen = box
            m = screen.model
            await until(lambda: m.view is not None and m.view.round_no == 1, what="deal")
            text = screen.text()
            assert "Stock" in text and "Discard" in text and "Round 1" in text
            assert f"{len(m.hand)} cards" in text
            turns = 0
            while m.view.phase in ("draw", "play"):
                await until(
                    lambda: m.view.my_turn or m.view.phase not in ("draw", "play"),
                    what="my turn",
                )
                if m.view.phase not in ("draw", "play"):
                    break
                await play_turn(d, screen, turns, use_mouse=turns % 2 == 1)
                turns += 1
                assert turns < 200, "the round ends"
            # the round is over: the result screen shows every hand and the scores
            await until(lambda: screen.showing_result(), what="result screen")
            res = session.state.round.result
            assert res is not None and session.state.over
            text = screen.text()
            assert "End of round 1" in text
            assert "wins the match" in text or "You win the match!" in text
            for s, pts in res.hand_points:
                if res.hands[[h[0] for h in res.hands].index(s)][1]:
                    assert f"= {pts} pts" in text
            assert turns >= 1
            acted = {type(a) for a in screen.sent}
            assert A.DrawStock in acted and A.Discard in acted
            d.keys("\r")  # Terminer: the match is over, Enter leaves
            await until(lambda: session._closed and not shell.app.is_running, what="left")
        assert session._closed
        assert not shell.app.is_running

    asyncio.run(main())


def test_help_overlay_sort_and_move_cards_while_others_play():
    async def main() -> None:
        session = make_solo_session("40", 3, "moyen", "ui-keys", think=0.3)
        box, make = table_app(session)
        async with running(make, timeout=20) as d:
            shell, screen = box
            m = screen.model
            await until(lambda: len(m.hand) >= 13, what="deal")
            d.keys("?")
            await until(lambda: m.show_help, what="help")
            from rami_lan.cli.ui.help import help_lines

            assert "Rami 40" in help_lines("40")[0]
            assert any("40 points" in line for line in help_lines("40"))
            d.keys("?")
            await until(lambda: not m.show_help, what="help closed")
            d.keys("r")  # sort by rank
            await until(lambda: m.sort_mode == "rank")
            ranks = [c.rank for c in m.hand if not c.is_joker]
            assert ranks == sorted(ranks)
            d.keys("s")  # by suit
            await until(lambda: m.sort_mode == "suit")
            keys = [c.sort_key() for c in m.hand]
            assert keys == sorted(keys)
            first, second = m.hand[0], m.hand[1]
            d.keys("1L")  # cursor on card 1, move it right: a local order only
            await until(lambda: m.hand[1] == first, what="moved")
            assert m.hand[0] == second and m.sort_mode is None
            assert sorted(m.hand) == sorted(session.view().hand)
            d.keys(" ")
            await until(lambda: m.selected == [first])
            assert "Sort" in screen.text()
            d.keys("q")
            d.keys("q")
            await until(lambda: not shell.app.is_running, what="left")

    asyncio.run(main())


def test_french_catalog_covers_every_ui_string():
    import ast
    from pathlib import Path

    import rami_lan
    from rami_lan.i18n_build import load_po

    root = Path(rami_lan.__file__).parent
    po = load_po("fr")  # every catalogue, merged as at run time
    catalog = po.catalog
    files = [root / "cli" / n for n in ("app.py", "cmd_solo.py", "local_session.py",
                                         "settings.py", "cmd_replay.py", "main.py")]
    files += sorted((root / "cli" / "ui").glob("*.py"))
    missing = []
    for f in files:
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "_" and node.args
                    and isinstance(node.args[0], ast.Constant)):
                if not catalog.get(node.args[0].value):
                    missing.append((f.name, node.args[0].value))
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "ngettext" and node.args
                    and isinstance(node.args[0], ast.Constant)):
                if node.args[0].value not in po.plurals:
                    missing.append((f.name, node.args[0].value))
    assert not missing
    set_language("fr")
    from rami_lan.cli.ui.render import button_label

    assert button_label("lay") == "Déposer" and button_label("leave") == "Terminer"
    assert button_label("continue") == "Continuer" and button_label("knock") == "Frapper"


def test_solo_variant_ids_match_the_core():
    from rami_lan.cli.cmd_solo import VARIANT_IDS
    from rami_lan.core.variants import VARIANTS

    assert tuple(VARIANTS) == VARIANT_IDS
