"""Layouts that use the terminal (issue 25, items 4 and 5) and card colours changed
from the table (item 4 of the brief: a key, remembered in the settings).

- at 200x50 the table is spread (melds as boxes of card faces, a blank row between
  owners) and the hand is fanned wide and centred, not narrow at the left under
  thirty empty rows;
- lifted cards never cut a border: every card of the fan is whole where it shows;
- the round-end buttons wrap at 80 columns in French (never "… [Discuter" cut);
- ``multi`` has no jokers and no elimination: no [Joker c], no "c joker", no
  "X eliminated" legend (decided from the `Variant` data);
- ``C`` switches two / four colours at the table and the settings file keeps it.
"""

from __future__ import annotations

import asyncio
import copy
import json

import pytest
import ui_scenes
from ui_drag_scene import scene_screen
from ui_helpers import running, until

from rami_lan.cli.settings import Settings, load_settings, save_settings
from rami_lan.cli.ui.render import render_result, render_table
from rami_lan.cli.ui.text import fragments_text
from rami_lan.i18n import set_language

pytestmark = pytest.mark.usefixtures("ui_env")


def _model(variant: str = "rami", lang: str = "en"):  # type: ignore[no-untyped-def]
    m = copy.deepcopy(ui_scenes.table_model(variant, lang))
    set_language(lang)
    return m


def _lines(frags: list) -> list[str]:
    return fragments_text(frags).split("\n")


def hand_block(lines: list[str]) -> list[str]:
    """The rows of the fanned hand: from the first row with a card corner under our seat
    line to the row of marks."""
    me = next(i for i, x in enumerate(lines) if "(you)" in x or "(vous)" in x)
    end = next(i for i in range(me + 1, len(lines)) if "[" in lines[i] and "]" in lines[i]
               and "┌" not in lines[i] and "│" not in lines[i])
    return lines[me + 1:end]


def test_200x50_spreads_the_table_and_fans_the_hand():
    m = _model()
    lines = _lines(render_table(m, 200, 50))
    assert len(lines) <= 50
    hand = [x for x in hand_block(lines) if x.strip()]
    widths = [len(x.rstrip()) - (len(x) - len(x.lstrip())) for x in hand if "┌" in x]
    assert max(widths) >= 60, f"the fan is wide: {widths}"
    lead = min(len(x) - len(x.lstrip()) for x in hand if x.strip())
    assert lead >= 40, "the hand is centred, not against the left edge"
    assert len([x for x in hand if "│" in x]) >= 5, "taller cards on a tall terminal"
    melds = [x for x in lines if "┬" in x]
    assert melds, "the melds are boxes of card faces"
    # the middle of the table is used: no run of 25 empty rows left of the history
    left = [x[:130].strip() for x in lines]
    run = longest = 0
    for x in left:
        run = run + 1 if not x else 0
        longest = max(longest, run)
    assert longest < 25, f"{longest} empty rows in the middle of the table"


BORDER = set("─│┌┐└┘┬┴├┤┼")


def border_breaks(block: list[str]) -> list[tuple[int, int, str]]:
    """Cells where a card's border ends in empty space (a card cut, not covered).

    Cards overlap as on a table: a border may run into another card's border (the card
    on top), never into nothing."""
    bad = []
    width = max(len(r) for r in block)
    grid = [x.ljust(width + 2) for x in [" " * width, *block, " " * width]]
    for y, row in enumerate(grid):
        for x, ch in enumerate(row):
            left, right = row[x - 1] if x else " ", row[x + 1] if x + 1 < len(row) else " "
            up, down = grid[y - 1][x] if y else " ", grid[y + 1][x] if y + 1 < len(grid) else " "
            if ch == "─" and (left not in BORDER or right not in BORDER):
                bad.append((y - 1, x, "─"))
            elif ch in "┌┐" and down not in BORDER:
                bad.append((y - 1, x, ch))
            elif ch in "└┘" and up not in BORDER:
                bad.append((y - 1, x, ch))
            elif ch == "│" and (up not in BORDER or down not in BORDER):
                bad.append((y - 1, x, ch))
    return bad


@pytest.mark.parametrize("size", [(120, 40), (200, 50), (80, 30)])
@pytest.mark.parametrize("lift", [(2,), (2, 3), (0,), (-1,), (1, 3, 5)])
def test_lifted_cards_never_cut_a_card_border(size: tuple[int, int], lift: tuple[int, ...]):
    m = _model()
    m.selected = [m.hand[i] for i in lift]
    block = hand_block(_lines(render_table(m, *size)))
    assert any("┌" in x for x in block), "the card-shaped layout"
    assert not border_breaks(block), (border_breaks(block)[:6], "\n".join(block))


def _between_rounds_model(lang: str):  # type: ignore[no-untyped-def]
    set_language(lang)
    return ui_scenes.play("rami", 3, "snap-result", 0, until_over=True, limit=100)


def test_french_round_end_buttons_wrap_at_80_columns():
    m = _between_rounds_model("fr")
    assert not m.view.match_over  # "Continuer" is offered: the longest row of buttons
    text = fragments_text(render_result(m, 80, None, False, 24))
    lines = text.split("\n")
    assert all(len(x) <= 80 for x in lines)
    for label in ("[Continuer ⏎]", "[Terminer q]", "[Historique a]", "[Scores n]",
                  "[Info joueur i]", "[Discuter :]"):
        assert label in text, f"{label} whole on screen"
    set_language("en")


def test_multi_shows_no_joker_and_no_elimination_controls():
    m = _model("multi")
    for w, h in ((80, 24), (120, 40), (200, 50)):
        text = fragments_text(render_table(m, w, h))
        assert "[Joker c]" not in text and "c joker" not in text, (w, h)
    m.panel = "scores"
    sheet = fragments_text(render_table(m, 120, 40))
    assert "★ won the round" in sheet and "eliminated" not in sheet
    # the key says why instead of sending what the table would refuse
    from ui_drag_scene import SceneSession

    from rami_lan.cli.ui.table_screen import TableScreen

    screen = TableScreen(SceneSession(m), stats=None)
    screen.model.__dict__.update(copy.deepcopy(m).__dict__)
    screen.do("recover")
    assert not screen.sent and "no joker" in (screen.model.why or "")
    # the variants that have them keep them
    rami = fragments_text(render_table(_model("rami"), 120, 40))
    assert "[Joker c]" in rami
    r = _model("rami")
    r.panel = "scores"
    assert "X eliminated" in fragments_text(render_table(r, 120, 40))


def test_card_colours_change_from_the_table_and_are_remembered(tmp_path):
    ui_scenes.table_model("classique", "en")  # seeded before the event loop runs
    path = tmp_path / "settings.json"
    settings = Settings(nickname="Camille")
    save_settings(settings, path)

    async def main() -> None:
        box: list = []

        def make():  # type: ignore[no-untyped-def]
            shell, screen, session = scene_screen("classique")
            screen.settings = settings
            screen.save_settings = lambda s: save_settings(s, path)
            screen.four_colour = settings.four_colour
            box[:] = [shell, screen]
            return shell

        async with running(make, timeout=20) as d:
            shell, screen = box
            clubs = next(i for i, c in enumerate(screen.model.hand) if c.suit == "c")

            def club_style() -> str:
                return next(f[0] for f in screen.fragments()
                            if f"class:hand.{clubs}" in f[0] and f[1].strip()
                            and "cardframe" not in f[0])

            assert "class:card.black" in club_style()
            d.keys("C")
            await until(lambda: screen.four_colour, what="four colours")
            assert "class:card.clubs" in club_style()
            assert json.loads(path.read_text())["four_colour"] is True
            assert load_settings(path).four_colour is True
            d.keys("C")
            await until(lambda: not screen.four_colour, what="two colours again")
            assert load_settings(path).four_colour is False
            # the header's [Colours C] button does the same with the mouse (seed 001)
            await d.settle()
            from ui_helpers import locate

            btn = locate(screen.fragments(), lambda t: t in ("[Colours C]", "[C]"))
            assert btn is not None
            d.click(*btn)
            await until(lambda: screen.four_colour, what="four colours by a click")
            assert load_settings(path).four_colour is True

    asyncio.run(main())
