"""Back in after a crash, from the lobby (issue 29 item 1): a player's lobby is killed
(``kill -9``) while it plays a round at a table on the LAN; relaunched with the same home
folder, it lists that table first, marked "Rejoin", and Enter puts the player back in
their own seat within 5 s. Real processes on loopback, the lobby in tmux."""

from __future__ import annotations

import os
import re
import secrets
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_tmux import Tmux

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


@pytest.fixture
def tmux():
    t = Tmux()
    yield t
    t.run("kill-server")


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "LANG": "C.UTF-8",
            "RAMI_LAN_INTERFACES": "127.0.0.1", "RAMI_LAN_CONFIG_DIR": str(home),
            "RAMI_LAN_DATA_DIR": str(home), "RAMI_LAN_LOG_DIR": str(home)}


def _lobby(tmux: Tmux, session: str, home: Path) -> None:
    cmd = " ".join(shlex.quote(x) for x in [
        "env", f"RAMI_LAN_CONFIG_DIR={home}", f"RAMI_LAN_DATA_DIR={home}", f"RAMI_LAN_LOG_DIR={home}",
        "RAMI_LAN_INTERFACES=127.0.0.1", "RAMI_LAN_NO_PRESENCE=1", "LANG=C.UTF-8",
        sys.executable, "-m", "rami_lan.cli.main", "--lang", "en"])
    tmux.run("new-session", "-d", "-s", session, "-x", "110", "-y", "30", cmd + "; sleep 60")


def _screen(tmux: Tmux, session: str) -> str:
    return tmux.run("capture-pane", "-t", session, "-p")


def _wait(tmux: Tmux, session: str, pattern: str, timeout: float) -> float:
    start = time.monotonic()
    while not re.search(pattern, text := _screen(tmux, session)):
        assert time.monotonic() - start < timeout, f"{pattern!r} never appeared:\n{text}"
        time.sleep(0.05)
    return time.monotonic() - start


def _lobby_pid(tmux: Tmux, session: str) -> int:
    pane = int(tmux.run("list-panes", "-t", session, "-F", "#{pane_pid}").strip())
    kids = subprocess.run(["pgrep", "-P", str(pane)], capture_output=True, text=True).stdout.split()
    for pid in [*kids, str(pane)]:
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"rami_lan.cli.main" in cmdline:
            return int(pid)
    raise AssertionError("the lobby process was not found")


def test_a_killed_lobby_relaunched_rejoins_its_seat(tmux: Tmux, tmp_path: Path) -> None:
    name = f"!Back {secrets.token_hex(2)}"  # sorted before other tables on loopback
    host = subprocess.Popen(
        [sys.executable, "-m", "rami_lan.cli.main", "host", "--headless", "--name", name,
         "--seats", "2", "--no-private-deal", "--interface", "127.0.0.1"],
        env=_env(tmp_path / "host"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    bot = None
    try:
        assert host.stdout is not None
        port = int(re.search(r"port (\d+)", host.stdout.readline()).group(1))  # type: ignore[union-attr]
        bot = subprocess.Popen(
            [sys.executable, "-m", "rami_lan.cli.main", "join", f"127.0.0.1:{port}", "--bot", "debutant"],
            env=_env(tmp_path / "bot"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        home = tmp_path / "ben"
        _lobby(tmux, "b", home)
        _wait(tmux, "b", re.escape(name), 20)
        tmux.run("send-keys", "-t", "b", "Enter")  # the first row: our table
        _wait(tmux, "b", r"Stock \[", 30)  # at the table, the round dealt
        assert list((home / "seats").glob("*.json")), "the seat is kept on disk"
        os.kill(_lobby_pid(tmux, "b"), signal.SIGKILL)
        tmux.run("kill-session", "-t", "b")
        _lobby(tmux, "b2", home)  # relaunched, same home folder
        _wait(tmux, "b2", r"Rejoin · " + re.escape(name[:18]), 20)
        tmux.run("send-keys", "-t", "b2", "Enter")
        took = _wait(tmux, "b2", r"Stock \[", 5)
        print(f"back in the seat {took:.2f} s after Enter")
        assert "already started" not in _screen(tmux, "b2")
    finally:
        for p in (bot, host):
            if p is not None and p.poll() is None:
                p.kill()
            if p is not None:
                p.communicate(timeout=10)
