"""Dragging cards in a real terminal (issue 25): tmux passes SGR mouse sequences
(press ``ESC[<0;x;yM``, moves with the button held ``ESC[<32;x;yM``, release
``ESC[<0;x;ym``) to the full-screen app, as a terminal does when the mouse is used.

- ``rami-lan solo``: a hand card dragged to a new place in the hand moves there;
- the ``rami`` scene (`tests/ui_drag_scene.py`, our turn with 8♠ fitting table meld 2):
  the 8♠ dragged onto the meld's blue ◀ is laid off at the low end.
"""

from __future__ import annotations

import re
import shlex
import sys
import time
from pathlib import Path

import pytest
from test_tmux import Tmux, pytestmark  # noqa: F401 - skipped without tmux

FACE = re.compile(r"│((?:10|[2-9AJQKVDR])[♠♥♦♣]|JK)")


@pytest.fixture
def tmux():  # type: ignore[no-untyped-def]
    t = Tmux()
    yield t
    t.run("kill-server")


def sgr_drag(t: Tmux, start: tuple[int, int], end: tuple[int, int]) -> None:
    """Drag from ``start`` to ``end`` (1-based column, row) as the terminal reports it."""
    (x0, y0), (x1, y1) = start, end
    t.run("send-keys", "-t", "t", "-l", f"\x1b[<0;{x0};{y0}M")
    time.sleep(0.15)
    for k in range(1, 5):
        x, y = x0 + (x1 - x0) * k // 4, y0 + (y1 - y0) * k // 4
        t.run("send-keys", "-t", "t", "-l", f"\x1b[<32;{x};{y}M")
        time.sleep(0.05)
    t.run("send-keys", "-t", "t", "-l", f"\x1b[<0;{x1};{y1}m")


def hand_faces(screen: str) -> tuple[int, list[tuple[int, str]]]:
    """(row, [(column, face)]) of the fanned hand's rank-and-suit corners (0-based)."""
    lines = screen.split("\n")
    me = max(i for i, x in enumerate(lines) if "(you)" in x)
    for y in range(me + 1, len(lines)):
        found = [(m.start(), m.group(1)) for m in FACE.finditer(lines[y])]
        if len(found) >= 3:
            return y, found
    raise AssertionError("no fanned hand on screen:\n" + screen)


def _env(tmp_path: Path) -> list[str]:
    root = Path(__file__).resolve().parents[2]
    return ["env", f"RAMI_LAN_CONFIG_DIR={tmp_path}", f"RAMI_LAN_DATA_DIR={tmp_path}",
            "LANG=C.UTF-8", f"PYTHONPATH={root}", "RAMI_LAN_NO_BROWSE=1"]


def test_drag_a_card_to_a_new_place_in_the_hand_in_tmux(tmux, tmp_path):
    cmd = " ".join(shlex.quote(x) for x in [
        *_env(tmp_path), sys.executable, "-m", "rami_lan.cli.main", "solo", "--seed",
        "tmux-drag", "--think", "5", "--lang", "en", "--players", "2"])
    tmux.run("new-session", "-d", "-s", "t", "-x", "120", "-y", "40", cmd + "; sleep 30")
    screen = tmux.wait_for(r"Stock \[▒▒ \d+\]", 20)
    screen = tmux.wait_for(r"│((?:10|[2-9AJQK])[♠♥♦♣]|JK) ", 10)
    y, faces = hand_faces(screen)
    before = [f for _x, f in faces]
    start = (faces[0][0] + 2, y + 1)  # inside the first card (1-based for the terminal)
    end = (faces[3][0] + 2, y + 1)
    sgr_drag(tmux, start, end)
    want = before[1:4] + before[:1] + before[4:]
    deadline = time.monotonic() + 10
    while True:
        now = [f for _x, f in hand_faces(tmux.screen())[1]]
        if now == want:
            break
        assert time.monotonic() < deadline, f"the card moved: {before} -> {now}, wanted {want}"
        time.sleep(0.05)
    assert "Refused" not in tmux.screen()


def test_drag_a_card_onto_a_meld_end_in_tmux(tmux, tmp_path):
    acts = tmp_path / "actions.txt"
    script = Path(__file__).resolve().parents[1] / "ui_drag_scene.py"
    cmd = " ".join(shlex.quote(x) for x in [
        *_env(tmp_path), sys.executable, str(script), str(acts), "rami"])
    tmux.run("new-session", "-d", "-s", "t", "-x", "120", "-y", "40", cmd + "; sleep 30")
    screen = tmux.wait_for(r"Stock \[▒▒ \d+\]", 30)
    y, faces = hand_faces(screen)
    x = next(x for x, f in faces if f == "8♠")
    start = (x + 2, y + 1)
    tmux.run("send-keys", "-t", "t", "-l", f"\x1b[<0;{start[0]};{start[1]}M")
    screen = tmux.wait_for(r"Moving 8♠", 10)  # the drag has begun: arrows where it goes
    row = next(i for i, line in enumerate(screen.split("\n")) if "◀2[" in line)
    col = screen.split("\n")[row].index("◀2[")
    sgr_drag(tmux, start, (col + 1, row + 1))
    deadline = time.monotonic() + 10
    while not (acts.exists() and acts.read_text().strip()):
        assert time.monotonic() < deadline, "an action was sent:\n" + tmux.screen()
        time.sleep(0.05)
    sent = acts.read_text().strip().splitlines()
    assert len(sent) == 1 and sent[0].startswith("LayOff(seat=0, card=Card('8s'")
    assert "target=1" in sent[0] and "end='low'" in sent[0]
