"""Dragging cards with the mouse (issue 25, item 3; seed 000: "le joueur clique sur la
carte et la place en appuyant sur la souris"), in-process with SGR mouse sequences on
the pipe input: press, moves with the button held, release.

- a hand card dragged to another place in the hand moves there (local order), also
  while another seat plays;
- a card dragged onto a table meld's blue arrow is laid off at that end, onto the
  discard pile it is discarded; the table (here the recorded actions) judges;
- released on nothing, a drag does nothing; a click is still a click.
"""

from __future__ import annotations

import asyncio

import pytest
import ui_scenes
from ui_drag_scene import scene_screen
from ui_helpers import Driver, locate, locate_style, running, until

from rami_lan.cli.cmd_solo import make_solo_session
from rami_lan.cli.ui.shell import Shell
from rami_lan.cli.ui.table_screen import TableScreen
from rami_lan.core import actions as A

pytestmark = pytest.mark.usefixtures("ui_env")


def drag(d: Driver, start: tuple[int, int], end: tuple[int, int]) -> None:
    """Press at ``start`` (row, col, 0-based), move with the button held, release at ``end``."""
    (r0, c0), (r1, c1) = start, end
    seq = f"\x1b[<0;{c0 + 1};{r0 + 1}M"
    steps = 4
    for k in range(1, steps + 1):
        r = r0 + (r1 - r0) * k // steps
        c = c0 + (c1 - c0) * k // steps
        seq += f"\x1b[<32;{c + 1};{r + 1}M"
    seq += f"\x1b[<0;{c1 + 1};{r1 + 1}m"
    d.keys(seq)


def card_at(screen: TableScreen, i: int) -> tuple[int, int]:
    pos = locate_style(screen.fragments(), f"class:hand.{i}")
    assert pos is not None, f"card {i} is on screen"
    return pos[0] + 1, pos[1] + 1  # inside the card, not on its corner


@pytest.fixture(scope="module", autouse=True)
def _scenes() -> None:
    ui_scenes.table_model("rami", "en")  # seeded before any event loop runs


def test_drag_a_card_to_another_place_in_the_hand_while_a_bot_plays():
    async def main() -> None:
        # the bots think for a long time: the turn is theirs while we reorder
        session = make_solo_session("rami", 3, "moyen", "drag-order-3", limit=1, think=30)
        box: list = []

        def make() -> Shell:
            shell = Shell()
            screen = TableScreen(session, on_leave=shell.exit)
            shell.show(screen)
            box[:] = [shell, screen]
            return shell

        async with running(make, timeout=40) as d:
            shell, screen = box
            m = screen.model
            await until(lambda: m.view is not None and m.hand, what="deal")
            if m.view.my_turn:  # play our turn by keys so that a bot's turn comes
                d.keys("d")
                await until(lambda: m.view.phase == "play", what="drawn")
                d.keys("x")
                await until(lambda: not m.view.my_turn, what="a bot's turn")
            assert not m.view.my_turn
            before, sent = list(m.hand), len(screen.sent)
            await d.settle()
            drag(d, card_at(screen, 0), card_at(screen, 4))
            await until(lambda: m.hand != before, what="reordered")
            assert m.hand == before[1:5] + before[:1] + before[5:]
            assert m.cursor == 4 and m.drag_index is None
            assert len(screen.sent) == sent, "a reorder is local: nothing sent"
            await d.settle()
            drag(d, card_at(screen, 4), card_at(screen, 1))  # and back, leftwards
            await until(lambda: m.hand[1] == before[0], what="moved back")
            assert m.hand == before[1:2] + before[:1] + before[2:]

    asyncio.run(main())


def test_drag_a_card_onto_a_meld_end_and_onto_the_discard_pile():
    async def main() -> None:
        box: list = []

        def make() -> Shell:
            shell, screen, session = scene_screen("rami")
            box[:] = [shell, screen, session]
            return shell

        async with running(make, timeout=20) as d:
            shell, screen, session = box
            m = screen.model
            m.selected, m.target = [], 0
            eight = next(i for i, c in enumerate(m.hand) if c.rank == 8 and c.suit == "s")
            card = m.hand[eight]
            await d.settle()
            start = card_at(screen, eight)
            # press: the drag starts and the arrows show where the card can go
            d.keys(f"\x1b[<0;{start[1] + 1};{start[0] + 1}M")
            await until(lambda: m.drag_index == eight, what="drag started")
            assert m.layoff_ends() == {1: frozenset({"low"})}
            await d.settle()
            frags = screen.fragments()
            assert "Moving 8♠" in "".join(f[1] for f in frags)
            row = locate(frags, lambda t: t.startswith("2["))
            assert row is not None
            arrow = (row[0], row[1] - 1)  # the blue ◀ just before "2["
            drag(d, start, arrow)
            await until(lambda: session.acts, what="lay-off sent")
            assert session.acts == [A.LayOff(m.seat, card, 1, "low")]
            assert m.drag_index is None
            # another card onto the discard pile: discarded
            other = next(i for i, c in enumerate(m.hand) if i != eight)
            await d.settle()
            pile = locate(screen.fragments(), lambda t: t == "7♥")
            assert pile is not None
            drag(d, card_at(screen, other), pile)
            await until(lambda: len(session.acts) == 2, what="discard sent")
            assert session.acts[1] == A.Discard(m.seat, m.hand[other])
            # released on an empty cell: nothing happens. Fence: the keys come in order,
            # so once "?" (help) has opened the panel the drag's release was handled.
            await d.settle()
            sent = len(screen.sent)
            drag(d, card_at(screen, other), (2, 60))
            d.keys("?")
            await until(lambda: m.panel == "help", what="help opened after the drag")
            assert len(screen.sent) == sent and len(session.acts) == 2
            assert m.drag_index is None
            d.keys("?")
            await until(lambda: m.panel is None, what="help closed")
            # a click is still a click: the card lifts
            await d.settle()
            d.click(*card_at(screen, other))
            await until(lambda: m.selected == [m.hand[other]], what="selected by a click")

    asyncio.run(main())
