"""End to end in a real terminal: ``rami-lan solo`` in tmux at 80x24, keys, the screen."""

from __future__ import annotations

import re
import secrets
import shlex
import shutil
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


class Tmux:
    def __init__(self) -> None:
        self.socket = f"rl-test-{secrets.token_hex(4)}"

    def run(self, *args: str) -> str:
        out = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True,
                             text=True, timeout=10)
        return out.stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-t", "t", "-p")

    def wait_for(self, pattern: str, timeout: float = 10.0) -> str:
        end = time.monotonic() + timeout
        text = ""
        while time.monotonic() < end:
            text = self.screen()
            if re.search(pattern, text):
                return text
            time.sleep(0.05)
        raise AssertionError(f"{pattern!r} never appeared; the screen was:\n{text}")


@pytest.fixture
def tmux(tmp_path):
    t = Tmux()
    yield t
    t.run("kill-server")


def test_solo_in_tmux_draw_and_discard(tmux, tmp_path):
    cmd = " ".join(shlex.quote(x) for x in [
        "env", f"RAMI_LAN_CONFIG_DIR={tmp_path}", f"RAMI_LAN_DATA_DIR={tmp_path}",
        "LANG=C.UTF-8", sys.executable, "-m",
        "rami_lan.cli.main", "solo", "--seed", "tmux-1", "--think", "0.05", "--lang", "en",
        "--players", "4",
    ])
    tmux.run("new-session", "-d", "-s", "t", "-x", "80", "-y", "24", cmd + "; sleep 30")
    first = tmux.wait_for(r"Stock \[▒▒ \d+\]", 15)
    assert "Round 1" in first
    lines = first.splitlines()
    assert len(lines) <= 24 and all(len(x) <= 80 for x in lines)
    screen = tmux.wait_for(r"\[Draw d\]", 20)  # our turn comes
    stock_before = int(re.search(r"Stock \[▒▒ (\d+)\]", screen).group(1))
    tmux.run("send-keys", "-t", "t", "d")
    screen = tmux.wait_for(r"You draw ", 10)
    assert "[Discard x]" in screen
    stock_after = int(re.search(r"Stock \[▒▒ (\d+)\]", screen).group(1))
    assert stock_after == stock_before - 1
    tmux.run("send-keys", "-t", "t", "Right", "x")
    screen = tmux.wait_for(r"You discard |discards ", 10)
    assert "Refused" not in screen
    tmux.run("send-keys", "-t", "t", "q", "q")
    end = time.monotonic() + 10
    while "Stock [" in tmux.screen():  # the full-screen app has left
        assert time.monotonic() < end, "q q leaves the table"
        time.sleep(0.05)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _timer_shown_and_round_played(tmux: Tmux, panes: tuple[str, str]) -> None:
    """On both screens: the move timer is shown and counts down; then the round is played
    by keys (draw from the stock, discard the card under the cursor) until it ends."""

    def screen(pane: str) -> str:
        return tmux.run("capture-pane", "-t", pane, "-p")

    def clock(pane: str) -> int | None:
        found = re.search(r"⏱ (\d+) s", screen(pane))
        return int(found.group(1)) if found else None

    end = time.monotonic() + 30
    while any(clock(p) is None for p in panes):
        assert time.monotonic() < end, "the move timer is shown on both screens:\n" + \
            "\n".join(screen(p) for p in panes)
        time.sleep(0.05)
    first = {p: clock(p) for p in panes}
    assert all(0 < v <= 15 for v in first.values() if v is not None), first
    end = time.monotonic() + 10
    while not all((clock(p) or 99) < first[p] for p in panes):  # it counts down
        assert time.monotonic() < end, "the timer counts down on both screens"
        time.sleep(0.1)
    end = time.monotonic() + 150
    done: set[str] = set()
    while done != set(panes):
        assert time.monotonic() < end, "the round ends:\n" + "\n".join(screen(p) for p in panes)
        for pane in panes:
            text = screen(pane)
            if "End of round 1" in text:
                done.add(pane)
            elif "Your turn: d draw" in text:
                tmux.run("send-keys", "-t", pane, "d")
            elif "Space select" in text:
                tmux.run("send-keys", "-t", pane, "x")
        time.sleep(0.05)
    for pane in panes:
        assert "Refused" not in screen(pane)


def test_lan_round_in_tmux_with_a_move_timer(tmux, tmp_path):
    """Two players over loopback (``rami-lan host`` and ``rami-lan join``, each in its
    own terminal) play a whole round of 500 with a 15 s move timer: the timer is shown
    on both screens and counts down, every draw and discard is typed as keys."""
    port = _free_port()

    def cmd(name: str, *args: str) -> str:
        home = tmp_path / name
        return " ".join(shlex.quote(x) for x in [
            "env", f"RAMI_LAN_CONFIG_DIR={home}", f"RAMI_LAN_DATA_DIR={home}", "LANG=C.UTF-8",
            sys.executable, "-m", "rami_lan.cli.main", *args, "--lang", "en"]) + "; sleep 30"

    tmux.run("new-session", "-d", "-s", "t", "-x", "100", "-y", "30",
             cmd("ana", "host", "--variant", "500", "--seats", "2", "--timer", "15",
                 "--interface", "127.0.0.1", "--port", str(port), "--no-advertise",
                 "--nick", "Ana"))
    tmux.wait_for(r"Waiting|waiting|Stock|Ana", 15)
    tmux.run("new-session", "-d", "-s", "j", "-x", "100", "-y", "30",
             cmd("ben", "join", f"127.0.0.1:{port}", "--nick", "Ben"))

    _timer_shown_and_round_played(tmux, ("t", "j"))
    for pane in ("t", "j"):
        text = tmux.run("capture-pane", "-t", pane, "-p")
        assert "Ana" in text and "Ben" in text
        tmux.run("send-keys", "-t", pane, "q")


def test_sigterm_leaves_the_lobby_cleanly(tmux, tmp_path):
    """SIGTERM takes the same path as a key press (issue 14): the full-screen app exits
    with status 130 and no traceback, so the presence ad says goodbye."""
    status = tmp_path / "status"
    cmd = " ".join(shlex.quote(x) for x in [
        "env", f"RAMI_LAN_CONFIG_DIR={tmp_path}", f"RAMI_LAN_DATA_DIR={tmp_path}",
        "RAMI_LAN_NO_BROWSE=1", "LANG=C.UTF-8", sys.executable, "-m", "rami_lan.cli.main",
        "--lang", "en",
    ])
    tmux.run("new-session", "-d", "-s", "t", "-x", "80", "-y", "24",
             f"{cmd} 2>{tmp_path / 'err'}; echo $? > {status}; sleep 30")
    tmux.wait_for(r"Solo", 15)
    pid = tmux.run("list-panes", "-t", "t", "-F", "#{pane_pid}").strip()
    child = subprocess.run(["pgrep", "-P", pid, "-f", "rami_lan.cli.main"], capture_output=True,
                           text=True).stdout.split()
    assert child, "the lobby process is running"
    subprocess.run(["kill", "-TERM", child[0]], check=True)
    end = time.monotonic() + 10
    while not status.exists() or not status.read_text().strip():
        assert time.monotonic() < end, "SIGTERM ends the lobby"
        time.sleep(0.05)
    assert status.read_text().strip() == "130"
    assert "Traceback" not in (tmp_path / "err").read_text()


def test_lan_round_between_two_lobbies_with_a_move_timer(tmux, tmp_path):
    """Issue 17: two lobbies on loopback. Ana opens a 500 table with a 15 s timer from the
    New table form, with private dealing on (issue 15: Ben's cards are dealt from the
    masked deck); Ben sees it listed in his lobby and joins with Enter; the timer is shown
    and counts down on both screens, and they play the whole round by keys."""

    def lobby(name: str) -> str:
        home = tmp_path / name
        return " ".join(shlex.quote(x) for x in [
            "env", f"RAMI_LAN_CONFIG_DIR={home}", f"RAMI_LAN_DATA_DIR={home}",
            "RAMI_LAN_INTERFACES=127.0.0.1", "LANG=C.UTF-8", sys.executable, "-m",
            "rami_lan.cli.main", "--lang", "en"]) + "; sleep 30"

    def screen(pane: str) -> str:
        return tmux.run("capture-pane", "-t", pane, "-p")

    def wait(pane: str, pattern: str, timeout: float = 15.0) -> str:
        end = time.monotonic() + timeout
        while not re.search(pattern, text := screen(pane)):
            assert time.monotonic() < end, f"{pattern!r} never appeared:\n{text}"
            time.sleep(0.05)
        return text

    def keys(pane: str, *k: str) -> None:
        for key in k:
            tmux.run("send-keys", "-t", pane, key)
            time.sleep(0.05)

    name = f"Lobby {secrets.token_hex(2)}"
    tmux.run("new-session", "-d", "-s", "a", "-x", "100", "-y", "30", lobby("ana"))
    tmux.run("new-session", "-d", "-s", "b", "-x", "100", "-y", "30", lobby("ben"))
    wait("a", r"New table")
    wait("b", r"New table")
    keys("a", "n")
    wait("a", r"Open the table")
    tmux.run("send-keys", "-t", "a", "-l", name)  # the table name, typed
    keys("a", "Down", "Right", "Right", "Right")  # variant: rami -> classique -> multi -> 500
    wait("a", r"500")
    keys("a", "Down", "Down")  # seats 2; seat 2:
    for _ in range(4):  # to "a player"
        if re.search(r"Seat 2\s+‹ a player ›", screen("a")):
            break
        keys("a", "Left")
    wait("a", r"Seat 2\s+‹ a player ›", 5)
    keys("a", "Down", "Down", "Down")  # who may sit, points, move timer
    keys("a", "Right")
    wait("a", r"Move timer\s+‹ 15 s ›", 5)
    keys("a", "Down")  # private deal: on by default with two humans (500 has no Frapper)
    wait("a", r"Private deal\s+‹ on", 5)
    keys("a", "Down", "Enter")  # to "Open the table", open it
    wait("a", r"Waiting for the table|Stock", 20)
    wait("b", re.escape(name), 20)  # Ben's lobby lists Ana's table as it is advertised
    keys("b", "Enter")
    wait("b", r"Private deal", 20)  # Ben's screen says the deal is private

    _timer_shown_and_round_played(tmux, ("a", "b"))
