"""The table's colours as a terminal shows them (issue 25, item 1).

Each check renders a real screen through prompt_toolkit's VT100 output at 16, 256 and
true colour (one ANSI capture per check and depth), reads the escape codes back into
cells and asserts on what a player sees: the cursor's ``^`` is a mark of its own (not a
yellow bar along the row, not lost in reverse video), disabled buttons are legible and
not green, the seed's blue line runs under the hand cards that make a meld, blue
arrows mark every table meld end where the selected card can go (as the core says),
and every visible cell reads on a dark and on a light theme (xterm's 16 colours,
WCAG contrast at least 3).
"""

from __future__ import annotations

import copy
import io
import re

import pytest
import ui_scenes
from prompt_toolkit.data_structures import Size
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.output.color_depth import ColorDepth
from prompt_toolkit.output.vt100 import Vt100_Output
from prompt_toolkit.shortcuts import print_formatted_text

from rami_lan.cli.ui.render import render_result, render_table
from rami_lan.cli.ui.styles import STYLE
from rami_lan.core import actions as A
from rami_lan.core.cards import parse_card
from rami_lan.core.shadow import is_legal_for_view
from rami_lan.i18n import set_language

pytestmark = pytest.mark.usefixtures("ui_env")

DEPTHS = (ColorDepth.DEPTH_4_BIT, ColorDepth.DEPTH_8_BIT, ColorDepth.DEPTH_24_BIT)

XTERM = ["000000", "cd0000", "00cd00", "cdcd00", "0000ee", "cd00cd", "00cdcd", "e5e5e5",
         "7f7f7f", "ff0000", "00ff00", "ffff00", "5c5cff", "ff00ff", "00ffff", "ffffff"]
THEMES = {"dark": ("e5e5e5", "000000"), "light": ("000000", "ffffff")}
GREEN, YELLOW, BRIGHT_BLUE = 2, 3, 12


class Cell:
    __slots__ = ("bg", "bold", "ch", "fg", "reverse", "underline")

    def __init__(self, ch: str, st: dict) -> None:
        self.ch = ch
        self.fg, self.bg = st["fg"], st["bg"]
        self.bold, self.reverse, self.underline = st["bold"], st["reverse"], st["underline"]


def capture(frags: list, depth: ColorDepth, width: int = 200) -> str:
    """The fragments as a VT100 terminal receives them (escape codes and text)."""
    buf = io.StringIO()
    out = Vt100_Output(buf, lambda: Size(rows=60, columns=width), term="xterm-256color",
                       default_color_depth=depth)
    print_formatted_text(FormattedText([f[:2] for f in frags]), style=STYLE, output=out,
                         color_depth=depth, end="")
    out.flush()
    return buf.getvalue()


def _colour(params: list[int], i: int) -> tuple[object, int]:
    """A 38/48 colour at ``params[i]``: (16-colour index or an RGB hex string, next i)."""
    if params[i + 1] == 5:
        n = params[i + 2]
        if n < 16:
            return n, i + 3
        if n >= 232:
            g = 8 + 10 * (n - 232)
            return f"{g:02x}" * 3, i + 3
        n -= 16
        lv = [0, 95, 135, 175, 215, 255]
        return "".join(f"{lv[x]:02x}" for x in (n // 36, n // 6 % 6, n % 6)), i + 3
    r, g, b = params[i + 2:i + 5]
    return f"{r:02x}{g:02x}{b:02x}", i + 5


def cells(ansi: str) -> list[list[Cell]]:
    """Read SGR escape codes back: rows of cells with their colours and attributes."""
    st = {"fg": None, "bg": None, "bold": False, "reverse": False, "underline": False}
    rows: list[list[Cell]] = [[]]
    for m in re.finditer(r"\x1b\[([0-9;?]*)([A-Za-z])|\x1b[^\[]|(\n)|([^\x1b\n])", ansi):
        if m.group(3):
            rows.append([])
        elif m.group(4):
            rows[-1].append(Cell(m.group(4), st))
        elif m.group(2) == "m":
            params = [int(x) for x in m.group(1).split(";") if x] or [0]
            i = 0
            while i < len(params):
                p = params[i]
                if p == 0:
                    st = {"fg": None, "bg": None, "bold": False, "reverse": False,
                          "underline": False}
                elif p == 1:
                    st = {**st, "bold": True}
                elif p == 4:
                    st = {**st, "underline": True}
                elif p == 7:
                    st = {**st, "reverse": True}
                elif p in (22,):
                    st = {**st, "bold": False}
                elif p == 24:
                    st = {**st, "underline": False}
                elif p == 27:
                    st = {**st, "reverse": False}
                elif 30 <= p <= 37 or 90 <= p <= 97:
                    st = {**st, "fg": p - 30 if p < 90 else p - 82}
                elif 40 <= p <= 47 or 100 <= p <= 107:
                    st = {**st, "bg": p - 40 if p < 100 else p - 92}
                elif p == 39:
                    st = {**st, "fg": None}
                elif p == 49:
                    st = {**st, "bg": None}
                elif p in (38, 48):
                    c, i = _colour(params, i)
                    st = {**st, ("fg" if p == 38 else "bg"): c}
                    continue
                i += 1
    return rows


def text_of(row: list[Cell]) -> str:
    return "".join(c.ch for c in row)


def _hex(c: object, default: str) -> str:
    if c is None:
        return default
    return XTERM[c] if isinstance(c, int) else str(c)


def _lum(h: str) -> float:
    v = [int(h[k:k + 2], 16) / 255 for k in (0, 2, 4)]
    v = [x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4 for x in v]
    return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]


def contrast(cell: Cell, theme: str) -> float:
    dfg, dbg = THEMES[theme]
    fg, bg = _hex(cell.fg, dfg), _hex(cell.bg, dbg)
    if cell.reverse:
        fg, bg = bg, fg
    a, b = sorted((_lum(fg), _lum(bg)), reverse=True)
    return (a + 0.05) / (b + 0.05)


def _model(variant: str = "rami"):  # type: ignore[no-untyped-def]
    m = copy.deepcopy(ui_scenes.table_model(variant, "en"))
    set_language("en")
    return m


def screen(m, w: int = 120, h: int = 40) -> list:  # type: ignore[no-untyped-def]
    return render_table(m, w, h)


def mark_row(rows: list[list[Cell]]) -> list[Cell]:
    """The row of marks under the hand (the one holding the cursor's ``^``)."""
    found = [r for r in rows if "^" in text_of(r)]
    assert found, "the cursor mark is on screen"
    return found[-1]


@pytest.mark.parametrize("depth", DEPTHS, ids=lambda d: d.value)
def test_the_cursor_mark_is_a_mark_not_a_yellow_bar(depth: ColorDepth) -> None:
    m = _model()
    m.cursor = 3
    for w, h in ((120, 40), (80, 24)):  # the fan and the chips
        row = mark_row(cells(capture(screen(m, w, h), depth, w)))
        caret = [c for c in row if c.ch == "^"]
        assert len(caret) == 1
        assert not caret[0].reverse, "the ^ is not in the cursor's reverse video"
        assert caret[0].bg == YELLOW and caret[0].fg == 0, "black ^ on a yellow cell"
        others = [c for c in row if c.ch != "^"]
        assert not any(c.reverse for c in others), "the row under the hand is no bar"
        assert not any(c.bg == YELLOW for c in others)


@pytest.mark.parametrize("depth", DEPTHS, ids=lambda d: d.value)
def test_disabled_buttons_are_legible_and_not_green(depth: ColorDepth) -> None:
    m = _model()
    m.selected, m.cursor = [], 0
    flags = m.legal()
    assert not flags["layoff"] and flags["discard"], flags  # the scene: one of each
    rows = cells(capture(screen(m), depth))
    line = next(r for r in rows if "[Lay off o]" in text_of(r))
    t = text_of(line)
    off = line[t.index("[Lay off o]"):t.index("[Lay off o]") + len("[Lay off o]")]
    on = line[t.index("[Discard x]"):t.index("[Discard x]") + len("[Discard x]")]
    assert all(c.bg != GREEN and not c.reverse for c in off), "a disabled button is not green"
    assert all(c.bg == GREEN for c in on), "an active button is green"
    for theme in THEMES:
        assert min(contrast(c, theme) for c in off) >= 4.5, theme


@pytest.mark.parametrize("depth", DEPTHS, ids=lambda d: d.value)
def test_blue_line_under_the_hand_cards_that_make_a_meld(depth: ColorDepth) -> None:
    m = _model()
    m.order = [parse_card(x) for x in ("5♠", "6♠", "7♠", "K♦", "2♣", "9♥", "9♣", "9♦", "Q♥")]
    m.cursor, m.selected = 3, []
    groups = m.hints()
    assert groups, "the core sees melds in this hand"
    hinted = {i for i, c in enumerate(m.hand) if any(c in g for g in groups)}
    for w, h in ((120, 40), (80, 24)):
        frags = screen(m, w, h)
        rows = cells(capture(frags, depth, w))
        marks = mark_row(rows)
        # the columns of each card: where its face (rank and suit corner) is drawn
        face_row = next(r for r in rows if "K♦" in text_of(r) and "5♠" in text_of(r))
        t = text_of(face_row)
        for i, card in enumerate(m.hand):
            from rami_lan.cli.ui.cards import face_text

            col = t.index(face_text(card))
            under = marks[col]
            if i in hinted:
                assert under.ch == "━" and under.fg == BRIGHT_BLUE, (w, card, under.ch)
            else:
                assert under.ch != "━", (w, card)


def _meld_cells(rows: list[list[Cell]], n: int) -> tuple[list[Cell], int]:
    """The row holding table meld ``n`` (1-based) and the column of its ``n[``."""
    for r in rows:
        hit = re.search(rf"(?<![0-9]){n}\[", text_of(r))
        if hit and "Discard" not in text_of(r):
            return r, hit.start()
    raise AssertionError(f"meld {n} is on screen")


@pytest.mark.parametrize("depth", DEPTHS, ids=lambda d: d.value)
def test_blue_arrows_on_every_meld_end_where_the_selected_card_goes(depth: ColorDepth) -> None:
    m = _model()
    v = m.view
    card = next(c for c in m.hand if c.rank == 8 and c.suit == "s")  # 8♠ fits 2[9♠ 10♠ …]
    m.selected, m.target = [card], 0
    rows = cells(capture(screen(m), depth))
    fits = {}
    for i, meld in enumerate(v.melds):
        if meld.kind == "run":
            ends = {e for e in ("low", "high") if is_legal_for_view(v, A.LayOff(m.seat, card, i, e))}
            # a natural card fits one end only (the core ignores ``end`` then): the arrow
            # must name that end, not both
            from rami_lan.core.melds import run_extensions
            from rami_lan.core.variants import get_variant

            ends &= {e for e, _r in run_extensions(get_variant(v.variant), meld, card)}
        else:
            ends = {"high"} if is_legal_for_view(v, A.LayOff(m.seat, card, i)) else set()
        fits[i] = ends
    assert any(fits.values()), "the scene's card fits somewhere"
    for i in range(len(v.melds)):
        row, col = _meld_cells(rows, i + 1)
        close = text_of(row).index("]", col)
        before = row[col - 1] if col else None
        after = row[close + 1] if close + 1 < len(row) else None
        lo = before is not None and before.ch == "◀"
        hi = after is not None and after.ch == "▶"
        if "low" in fits[i]:
            assert lo and before.fg == BRIGHT_BLUE, f"meld {i + 1}: a blue ◀"
        elif lo:  # the chosen run keeps its ends, grey where the card can not go
            assert i == m.target and before.fg != BRIGHT_BLUE
        if "high" in fits[i]:
            assert hi and after.fg == BRIGHT_BLUE, f"meld {i + 1}: a blue ▶"
        elif hi:
            assert i == m.target and after.fg != BRIGHT_BLUE
        if i != m.target and not fits[i]:
            assert not lo and not hi, f"meld {i + 1}: no arrow where the card can not go"


SCREENS = {
    "rami": lambda: screen(_model()),
    "rami-selected": lambda: _selected_screen(),
    "500": lambda: screen(_model("500")),
    "40-chips": lambda: screen(_model("40"), 80, 24),
    "classique-four-colours": lambda: render_table(_model("classique"), 120, 40, None, True),
    "result": lambda: render_result(ui_scenes.result_model("en"), 80, None, False, 24),
    "rami-dragging": lambda: _dragging_screen(),
    "lobby": lambda: _lobby("main"),
    "solo-form": lambda: _lobby("solo"),
}


def _dragging_screen() -> list:
    m = _model()
    m.drag_index = next(i for i, c in enumerate(m.hand) if c.rank == 8 and c.suit == "s")
    m.drag_over = ("meld", 1, "low")
    return screen(m, 120, 40)


def _lobby(mode: str) -> list:
    from rami_lan.cli.settings import Settings
    from rami_lan.cli.ui.lobby import Lobby
    from rami_lan.cli.ui.shell import Shell

    set_language("en")
    lobby = Lobby(Shell(), Settings(nickname="Camille"), browser_factory=None,
                  presence=False, profile=ui_scenes._Profile())
    if mode == "solo":
        lobby.open_solo()
    return lobby.fragments(100)


def _selected_screen() -> list:
    m = _model()
    m.selected = [m.hand[2]]
    m.cursor = 4
    return screen(m, 200, 50)


@pytest.mark.parametrize("depth", DEPTHS, ids=lambda d: d.value)
@pytest.mark.parametrize("name", sorted(SCREENS))
def test_every_cell_reads_on_dark_and_light_terminals(name: str, depth: ColorDepth) -> None:
    rows = cells(capture(SCREENS[name](), depth))
    bad = []
    for theme in THEMES:
        for y, row in enumerate(rows):
            for x, c in enumerate(row):
                if c.ch.strip() and contrast(c, theme) < 3.0:
                    bad.append((theme, y, x, c.ch, c.fg, c.bg, round(contrast(c, theme), 2)))
    assert not bad, bad[:12]
