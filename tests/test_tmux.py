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
