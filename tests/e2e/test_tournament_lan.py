"""A 9-player tournament on loopback with real processes: the organiser
(``rami-lan tournament``) and nine ``rami-lan join --bot`` players (one finds it by name
over mDNS), three first-stage tables of three and a final, to the end. The standings
every player printed equal what the table records say, and ``rami-lan verify`` accepts
the tournament record; a record edited afterwards is refused.

Network rule: sockets and mDNS on 127.0.0.1 only (``RAMI_LAN_INTERFACES``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _env(tmp: Path, who: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(PYTHONPATH=str(ROOT), RAMI_LAN_INTERFACES="127.0.0.1",
               RAMI_LAN_CONFIG_DIR=str(tmp / who / "config"),
               RAMI_LAN_DATA_DIR=str(tmp / who / "data"), RAMI_LAN_LOG_DIR=str(tmp / who / "log"))
    return env


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "rami_lan.cli.main", "--lang", "en", *args]


def _wait_port(proc: subprocess.Popen[str], deadline: float) -> int:
    assert proc.stdout is not None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        m = re.search(r"open on port (\d+)", line)
        if m:
            return int(m.group(1))
    raise AssertionError("the organiser did not say its port")


def _table_winner_nicks(rec_dir: Path, record: dict[str, Any]) -> dict[str, str]:
    out = {}
    for states in record["stages"]:
        for t in states:
            table = json.loads((rec_dir / t["record_file"]).read_text())
            w = table["result"]["winner"]
            out[f"{t['stage']}.{t['table']}"] = table["players"][w]["nick"]
    return out


def test_nine_players_three_tables_and_a_final(tmp_path: Path) -> None:
    rec_dir = tmp_path / "records"
    name = f"T9 {os.getpid()}"
    org = subprocess.Popen(
        _cli("tournament", "--name", name, "--table-size", "3", "--players", "9",
             "--limit", "1", "--record-dir", str(rec_dir), "--seed", "9", "--bot-delay", "0",
             "--join-wait", "20"),
        env=_env(tmp_path, "org"), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    players: list[subprocess.Popen[str]] = []
    try:
        port = _wait_port(org, time.monotonic() + 20)
        watcher = subprocess.Popen(_cli("watch", f"127.0.0.1:{port}"), env=_env(tmp_path, "w"),
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        players.append(watcher)
        for i in range(9):
            target = name if i == 0 else f"127.0.0.1:{port}"  # the first finds it by name
            players.append(subprocess.Popen(
                _cli("join", target, "--bot", "moyen", "--nick", f"p{i}", "--bot-delay", "0",
                     "--timeout", "5"),
                env=_env(tmp_path, f"p{i}"), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                text=True))
        outs = [p.communicate(timeout=60)[0] for p in players]
        org_out = org.communicate(timeout=20)[0]
        watch_out = outs.pop(0)
        players.pop(0)
    finally:
        for p in [*players, org]:
            if p.poll() is None:
                p.kill()
                p.wait()
    assert org.returncode == 0, org_out
    for i, (p, out) in enumerate(zip(players, outs, strict=True)):
        assert p.returncode == 0, f"player {i}:\n{out}"
        assert "Draw checked" in out, out
        assert "Final standings:" in out, out
    # The spectator saw every table and the end; the players who were out watched the final.
    assert watcher.returncode == 0, watch_out
    for label in ("[1.1]", "[1.2]", "[1.3]", "[2.1]"):
        assert label in watch_out, watch_out
    assert "Final standings:" in watch_out
    out_players = [out for out in outs if "You are out: watching the final" in out]
    assert len(out_players) == 6
    assert all("[2.1]" in out for out in out_players)
    (record_file,) = rec_dir.glob("tournament-*.json")
    record = json.loads(record_file.read_text())
    stages = record["stages"]
    assert [len(s) for s in stages] == [3, 1]
    assert all(len(t["players"]) == 3 for t in stages[0]) and stages[1][0]["final"]
    # The standings equal the table records: the finalists are the three first-stage
    # tables' winners (from the tables' own records), the tournament's winner is the
    # final's, and the line every player printed says the same.
    winners = _table_winner_nicks(rec_dir, record)
    nick = {e["no"]: e["nick"] for e in record["entrants"]}
    final_nicks = sorted(nick[no] for no in stages[1][0]["players"])
    assert final_nicks == sorted(winners[f"1.{k}"] for k in (1, 2, 3))
    standings = record["standings"]
    assert nick[standings[0]["no"]] == winners["2.1"] == nick[record["winner"]]
    assert [s["place"] for s in standings] == list(range(1, 10))
    assert sorted(nick[s["no"]] for s in standings[:3]) == final_nicks
    first_line = re.compile(r"^\*?\s+1\. (\S+)\s+WINNER", re.M)
    for out in outs:
        assert first_line.search(out) and first_line.search(out).group(1) == winners["2.1"]
    verify = subprocess.run(_cli("verify", "--json", str(record_file)), env=_env(tmp_path, "v"),
                            capture_output=True, text=True, timeout=60)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert json.loads(verify.stdout)["ok"] and json.loads(verify.stdout)["tables"] == 4
    # The attacker's record: the same tournament with another winner is refused.
    record["winner"] = standings[1]["no"]
    forged = rec_dir / "tournament-forged.json"
    forged.write_text(json.dumps(record))
    bad = subprocess.run(_cli("verify", "--json", str(forged)), env=_env(tmp_path, "v"),
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1 and not json.loads(bad.stdout)["ok"]


pytestmark = pytest.mark.usefixtures("isolated_config")


def test_a_player_killed_mid_table_comes_back(tmp_path: Path) -> None:
    """``kill -9`` of a ``join --bot`` at its first table; relaunched with the same data
    folder it comes back to the tournament (its token) and to its seat (the seat file),
    its draw check still holds its contribution, and the tournament ends for everyone."""
    rec_dir = tmp_path / "records"
    org = subprocess.Popen(
        _cli("tournament", "--no-advertise", "--table-size", "2", "--players", "4",
             "--limit", "1", "--record-dir", str(rec_dir), "--seed", "4", "--bot-delay", "0",
             "--join-wait", "20"),
        env=_env(tmp_path, "org"), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    procs: list[subprocess.Popen[str]] = [org]
    try:
        port = _wait_port(org, time.monotonic() + 20)

        def player(i: int, delay: str = "0") -> subprocess.Popen[str]:
            p = subprocess.Popen(
                _cli("join", f"127.0.0.1:{port}", "--bot", "moyen", "--nick", f"p{i}",
                     "--bot-delay", delay), env=_env(tmp_path, f"p{i}"),
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            procs.append(p)
            return p

        victim = player(0, "1.0")  # slow: it is killed in the middle of its match
        others = [player(i) for i in range(1, 4)]
        assert victim.stdout is not None
        before = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = victim.stdout.readline()
            before.append(line)
            if line.startswith("Seated at seat"):
                break
        assert any(x.startswith("Seated at seat") for x in before), "".join(before)
        victim.kill()
        victim.wait()
        back = player(0, "0")
        back_out = back.communicate(timeout=60)[0]
        outs = [p.communicate(timeout=60)[0] for p in others]
        org_out = org.communicate(timeout=20)[0]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    assert org.returncode == 0, org_out
    assert back.returncode == 0, back_out
    assert "Back in the tournament" in back_out and "Final standings:" in back_out
    assert "FAILED" not in back_out
    for out, p in zip(outs, others, strict=True):
        assert p.returncode == 0, out
    (record_file,) = rec_dir.glob("tournament-*.json")
    verify = subprocess.run(_cli("verify", "--json", str(record_file)), env=_env(tmp_path, "v"),
                            capture_output=True, text=True, timeout=60)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert not list((tmp_path / "p0" / "data" / "tournaments").glob("*.json"))  # gone at the end


def test_the_organiser_killed_mid_stage_resumes(tmp_path: Path) -> None:
    """``kill -9`` of the organiser while its first stage is being played; ``rami-lan
    tournament --resume STATE`` takes it up (same port, same secret, the registrants'
    tokens, each running table from its journal); every player comes back by itself and
    the tournament ends; verify accepts the record."""
    rec_dir = tmp_path / "records"

    def organiser(*extra: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            _cli("tournament", "--no-advertise", "--record-dir", str(rec_dir), "--bot-delay",
                 "0.05", *extra), env=_env(tmp_path, "org"), stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True)

    org = organiser("--table-size", "2", "--players", "4", "--limit", "1", "--seed", "5",
                    "--join-wait", "20")
    procs: list[subprocess.Popen[str]] = [org]
    try:
        port = _wait_port(org, time.monotonic() + 20)
        players = []
        for i in range(4):
            players.append(subprocess.Popen(
                _cli("join", f"127.0.0.1:{port}", "--bot", "moyen", "--nick", f"p{i}",
                     "--bot-delay", "0.2"), env=_env(tmp_path, f"p{i}"),
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
        procs += players
        assert org.stdout is not None
        opened = 0
        deadline = time.monotonic() + 30
        while opened < 2 and time.monotonic() < deadline:
            opened += org.stdout.readline().startswith("Table 1.")
        assert opened == 2
        time.sleep(2.0)  # the two matches under way
        org.kill()
        org.wait()
        (state,) = rec_dir.glob("tournament-*.state.json")
        back = organiser("--resume", str(state))
        procs.append(back)
        outs = [p.communicate(timeout=90)[0] for p in players]
        back_out = back.communicate(timeout=30)[0]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    assert back.returncode == 0, back_out
    for i, (p, out) in enumerate(zip(players, outs, strict=True)):
        assert p.returncode == 0, f"player {i}:\n{out}"
        assert "Final standings:" in out and "FAILED" not in out, out
    assert any("Back in the tournament" in out for out in outs)
    (record_file,) = rec_dir.glob("tournament-*[0-9a-f].json")
    verify = subprocess.run(_cli("verify", "--json", str(record_file)), env=_env(tmp_path, "v"),
                            capture_output=True, text=True, timeout=60)
    assert verify.returncode == 0, verify.stdout + verify.stderr
