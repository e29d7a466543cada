"""Ghost tables from a lobby (issue 29 item 2): a table opened from the lobby's New table
form leaves the other lobbies' lists within 3 s when the lobby's terminal is closed (the
lobby used to exit on SIGHUP without stopping the table it hosted: its ad stayed listed
for the record's TTL). Real lobby in tmux, loopback only."""

from __future__ import annotations

import os
import re
import secrets
import shlex
import shutil
import sys
import time
from pathlib import Path

import pytest
from aio_helpers import DEADLINE_SCALE, poll_until, run
from test_tmux import Tmux

from rami_lan.net.discovery import TableBrowser

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


@pytest.fixture
def tmux():
    t = Tmux()
    yield t
    t.run("kill-server")


def _open_from_lobby(tmux: Tmux, home: Path, name: str) -> None:
    cmd = " ".join(shlex.quote(x) for x in [
        "env", f"RAMI_LAN_CONFIG_DIR={home}", f"RAMI_LAN_DATA_DIR={home}",
        "RAMI_LAN_INTERFACES=127.0.0.1", f"RAMI_LAN_LOG_DIR={home}", "LANG=C.UTF-8",
        sys.executable, "-m", "rami_lan.cli.main", "--lang", "en"])
    tmux.run("new-session", "-d", "-s", "t", "-x", "100", "-y", "30", cmd)
    tmux.wait_for(r"New table", 15)
    tmux.run("send-keys", "-t", "t", "n")
    tmux.wait_for(r"Open the table", 10)
    tmux.run("send-keys", "-t", "t", "-l", name)
    end = time.monotonic() + 20
    while not re.search(r"Waiting for|Stock|seats taken|Invite", tmux.screen()):
        assert time.monotonic() < end, "the table opens:\n" + tmux.screen()
        tmux.run("send-keys", "-t", "t", "Enter")  # next field ... then "Open the table"
        time.sleep(0.2)


def test_a_table_opened_from_a_lobby_leaves_when_its_terminal_closes(tmux, tmp_path):
    name = f"Pane {secrets.token_hex(2)}"
    _open_from_lobby(tmux, tmp_path / "ana", name)

    async def main() -> float:
        browser = TableBrowser(interfaces=["127.0.0.1"])  # no probes: the goodbye alone
        await browser.start()
        try:
            await poll_until(lambda: any(t.name == name for t in browser.snapshot()),
                             "the table is listed", 20)
            tmux.run("kill-session", "-t", "t")  # the terminal closes: SIGHUP
            return await poll_until(lambda: not any(t.name == name for t in browser.snapshot()),
                                    "the table leaves the list", 3)
        finally:
            await browser.stop()

    took = run(main(), 60)
    print(f"lobby's table left the list {took:.2f} s after its terminal closed")
    assert took < 3 * DEADLINE_SCALE  # (the wait above fails first; scaled under xdist)
    assert os.path.isdir(tmp_path / "ana")


@pytest.mark.parametrize("how", ["hangup", "sigterm"])
def test_a_playing_host_whose_terminal_closes_withdraws_its_table(tmux, tmp_path, how):
    """``rami-lan host`` with its owner playing full screen: a closed terminal (or SIGTERM)
    leaves the table screen and takes the goodbye path (the signal used to become a Ctrl-C
    key press inside the full-screen app, which only arms "press again to leave")."""
    name = f"Owner {secrets.token_hex(2)}"
    home = tmp_path / "own"
    cmd = " ".join(shlex.quote(x) for x in [
        "env", f"RAMI_LAN_CONFIG_DIR={home}", f"RAMI_LAN_DATA_DIR={home}", f"RAMI_LAN_LOG_DIR={home}",
        "RAMI_LAN_INTERFACES=127.0.0.1", "LANG=C.UTF-8", sys.executable, "-m", "rami_lan.cli.main",
        "host", "--name", name, "--seats", "2", "--interface", "127.0.0.1", "--lang", "en"])
    tmux.run("new-session", "-d", "-s", "t", "-x", "100", "-y", "30", cmd + "; sleep 30")

    async def main() -> float:
        browser = TableBrowser(interfaces=["127.0.0.1"])
        await browser.start()
        try:
            await poll_until(lambda: any(t.name == name for t in browser.snapshot()),
                             "the table is listed", 20)
            tmux.wait_for(r"Waiting|fingerprint|Stock", 10)
            if how == "hangup":
                tmux.run("kill-session", "-t", "t")
            else:
                import signal
                import subprocess

                pane = tmux.run("list-panes", "-t", "t", "-F", "#{pane_pid}").strip()
                kids = subprocess.run(["pgrep", "-P", pane], capture_output=True,
                                      text=True).stdout.split()
                pid = next(int(p) for p in [*kids, pane]
                           if b"rami_lan.cli.main" in Path(f"/proc/{p}/cmdline").read_bytes())
                os.kill(pid, signal.SIGTERM)
            return await poll_until(lambda: not any(t.name == name for t in browser.snapshot()),
                                    "the table leaves the list", 3)
        finally:
            await browser.stop()

    took = run(main(), 60)
    print(f"playing host's table left the list {took:.2f} s after {how}")
    assert took < 3 * DEADLINE_SCALE  # (the wait above fails first; scaled under xdist)
