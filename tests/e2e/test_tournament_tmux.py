"""A tournament from the lobby (issue 28): real processes on loopback, the lobby in tmux.
The lobby lists the tournament, Enter registers (three ``join --bot`` players fill it),
the player is sent to a table and plays it in the table screen (its move timer plays
for a player who does not move), leaves it at the match's end, and the lobby's message
then follows the tournament to its final standings; a player who is out there watches
the final (its moves appear in the lobby's message)."""

from __future__ import annotations

import os
import re
import secrets
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_tmux import Tmux

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
              pytest.mark.slow]


@pytest.fixture
def tmux():
    t = Tmux()
    yield t
    t.run("kill-server")


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "LANG": "C.UTF-8",
            "RAMI_LAN_INTERFACES": "127.0.0.1", "RAMI_LAN_CONFIG_DIR": str(home),
            "RAMI_LAN_DATA_DIR": str(home), "RAMI_LAN_LOG_DIR": str(home)}


def _screen(tmux: Tmux) -> str:
    return tmux.run("capture-pane", "-t", "t", "-p", "-J")


REVERSE = re.compile(r"\x1b\[(?:[0-9;]*;)?7m")
"""The highlighted row (reverse video)."""


def _select(tmux: Tmux, name: str) -> None:
    """Move the lobby's highlight onto the row of ``name`` (other tables on loopback may
    be listed, and the highlight stays on the row first seen)."""
    for _i in range(20):
        rows = tmux.run("capture-pane", "-t", "t", "-p", "-e").splitlines()
        lit = next((i for i, r in enumerate(rows) if REVERSE.search(r)), None)
        ours = next((i for i, r in enumerate(rows) if name in r), None)
        if lit is not None and ours is not None and lit == ours:
            return
        if lit is not None and ours is not None:
            tmux.run("send-keys", "-t", "t", "Up" if lit > ours else "Down")
        time.sleep(0.2)
    raise AssertionError("could not select the tournament's row:\n" + "\n".join(
        repr(r) for r in rows[:12]))


def test_register_from_the_lobby_play_a_table_and_follow_to_the_end(
        tmux: Tmux, tmp_path: Path) -> None:
    name = f"!Tour {secrets.token_hex(2)}"  # sorted before other tables on loopback
    org = subprocess.Popen(
        [sys.executable, "-m", "rami_lan.cli.main", "--lang", "en", "tournament", "--name", name,
         "--table-size", "2", "--players", "4", "--limit", "1", "--timer", "2",
         "--bot-delay", "0", "--join-wait", "30", "--record-dir", str(tmp_path / "rec")],
        env=_env(tmp_path / "org"), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    bots: list[subprocess.Popen[str]] = []
    try:
        assert org.stdout is not None
        port = int(re.search(r"port (\d+)", org.stdout.readline()).group(1))  # type: ignore[union-attr]
        home = tmp_path / "lobby"
        cmd = " ".join(shlex.quote(x) for x in [
            "env", f"RAMI_LAN_CONFIG_DIR={home}", f"RAMI_LAN_DATA_DIR={home}",
            f"RAMI_LAN_LOG_DIR={home}", "RAMI_LAN_INTERFACES=127.0.0.1", "RAMI_LAN_NO_PRESENCE=1",
            "LANG=C.UTF-8", sys.executable, "-m", "rami_lan.cli.main", "--lang", "en"])
        tmux.run("new-session", "-d", "-s", "t", "-x", "150", "-y", "40", cmd + "; sleep 60")
        tmux.wait_for(re.escape(name), 20)
        _select(tmux, name)
        tmux.run("send-keys", "-t", "t", "Enter")  # the tournament's row
        tmux.wait_for(r"Registered", 15)
        for i in range(3):  # stage 1: two tables of two (the lobby's player at one of them)
            bots.append(subprocess.Popen(
                [sys.executable, "-m", "rami_lan.cli.main", "join", f"127.0.0.1:{port}",
                 "--bot", "expert", "--nick", f"bot{i}", "--bot-delay", "0"],
                env=_env(tmp_path / f"b{i}"), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                text=True))
        tmux.wait_for(r"Stock \[", 40)  # at the table, the round dealt
        saw: list[str] = []
        end = time.monotonic() + 150
        while time.monotonic() < end:
            text = _screen(tmux)
            saw.append(text)
            if "Final standings" in text:
                break
            tmux.run("send-keys", "-t", "t", "Enter")  # draw when it is our turn; leave at the end
            time.sleep(1.0)
        screens = "\n".join(saw)
        assert "Final standings" in saw[-1], saw[-1]
        assert "Stock [" in screens  # it played its table
        if "You are out" in screens or "[2.1]" in screens:
            assert "[2.1]" in screens  # out: it watched the final from the lobby
            print("the lobby's player went out and watched the final")
        else:
            print("the lobby's player won its table and played the final")
    finally:
        for p in (*bots, org):
            if p.poll() is None:
                p.kill()
            p.communicate(timeout=10)
