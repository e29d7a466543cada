"""The 9-player tournament across network namespaces: the organiser in one, the players
in three others (three each), on a private bridge; one player finds the tournament by
name over mDNS across the bridge. Needs root (``ip netns``); skipped otherwise.

Network rule: everything runs in namespaces this test creates (and removes).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SUBNET = "10.236.0"

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("isolated_config")]


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=10)


class Bridge:
    """Namespaces ``names`` on a bridge, each with address SUBNET.(i+1); removed by down."""

    def __init__(self, roles: list[str]) -> None:
        tag = secrets.token_hex(2)
        self.bridge = f"rltnbr{tag}"
        self.ns = {r: f"rltn{tag}{r}" for r in roles}
        self.addr = {r: f"{SUBNET}.{i + 1}" for i, r in enumerate(roles)}
        self.made: list[str] = []
        self.bridge_made = False

    def up(self) -> bool:
        if not hasattr(os, "geteuid") or os.geteuid() != 0:
            return False
        try:
            _ip("link", "add", self.bridge, "type", "bridge")
            self.bridge_made = True
            _ip("link", "set", self.bridge, "up")
            for role, name in self.ns.items():
                _ip("netns", "add", name)
                self.made.append(name)
                _ip("link", "add", f"v{name}", "type", "veth", "peer", "name", f"e{name}")
                _ip("link", "set", f"v{name}", "master", self.bridge)
                _ip("link", "set", f"v{name}", "up")
                _ip("link", "set", f"e{name}", "netns", name)
                _ip("-n", name, "link", "set", "lo", "up")
                _ip("-n", name, "link", "set", f"e{name}", "up")
                _ip("-n", name, "addr", "add", f"{self.addr[role]}/24", "dev", f"e{name}")
                _ip("-n", name, "route", "add", "224.0.0.0/4", "dev", f"e{name}")
            return True
        except (OSError, subprocess.SubprocessError):
            self.down()
            return False

    def down(self) -> None:
        for name in self.made:
            subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=10)
        self.made = []
        if self.bridge_made:
            subprocess.run(["ip", "link", "del", self.bridge], capture_output=True, timeout=10)
            self.bridge_made = False


def _env(tmp: Path, who: str, interface: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(PYTHONPATH=str(ROOT), RAMI_LAN_INTERFACES=interface,
               RAMI_LAN_CONFIG_DIR=str(tmp / who / "config"),
               RAMI_LAN_DATA_DIR=str(tmp / who / "data"), RAMI_LAN_LOG_DIR=str(tmp / who / "log"))
    return env


def test_a_tournament_across_network_namespaces(tmp_path: Path) -> None:
    net = Bridge(["org", "a", "b", "c"])
    if not net.up():
        pytest.skip("network namespaces need root and ip(8)")
    procs: list[subprocess.Popen[str]] = []
    try:
        rec = tmp_path / "records"
        name = f"NS {os.getpid()}"
        org = subprocess.Popen(
            ["ip", "netns", "exec", net.ns["org"], sys.executable, "-m", "rami_lan.cli.main",
             "--lang", "en", "tournament", "--name", name, "--table-size", "3", "--players", "9",
             "--limit", "1", "--record-dir", str(rec), "--bot-delay", "0", "--join-wait", "30"],
            env=_env(tmp_path, "org", net.addr["org"]), stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True)
        procs.append(org)
        assert org.stdout is not None
        port = 0
        deadline = time.monotonic() + 20
        while not port and time.monotonic() < deadline:
            m = re.search(r"open on port (\d+)", org.stdout.readline())
            port = int(m.group(1)) if m else 0
        assert port, "the organiser did not say its port"
        players = []
        for i in range(9):
            role = "abc"[i // 3]
            target = name if i == 0 else f"{net.addr['org']}:{port}"
            players.append(subprocess.Popen(
                ["ip", "netns", "exec", net.ns[role], sys.executable, "-m", "rami_lan.cli.main",
                 "--lang", "en", "join", target, "--bot", "moyen", "--nick", f"p{i}",
                 "--bot-delay", "0", "--timeout", "10"],
                env=_env(tmp_path, f"p{i}", net.addr[role]), stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, text=True))
        procs += players
        outs = [p.communicate(timeout=90)[0] for p in players]
        org_out = org.communicate(timeout=30)[0]
        assert org.returncode == 0, org_out
        for i, (p, out) in enumerate(zip(players, outs, strict=True)):
            assert p.returncode == 0, f"player {i}:\n{out}"
            assert "Final standings:" in out
        (record_file,) = rec.glob("tournament-*.json")
        record = json.loads(record_file.read_text())
        assert [len(s) for s in record["stages"]] == [3, 1] and record["winner"]
        verify = subprocess.run(
            [sys.executable, "-m", "rami_lan.cli.main", "verify", "--json", str(record_file)],
            env=_env(tmp_path, "v", "127.0.0.1"), capture_output=True, text=True, timeout=60)
        assert verify.returncode == 0 and json.loads(verify.stdout)["ok"], verify.stdout
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        net.down()
