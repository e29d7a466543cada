"""Three "laptops" in their own network namespaces joined by a private bridge: the host
advertises with mDNS, two bot clients find it across the bridge, play a match to the
end and check the shuffle; the record verifies. Each namespace also runs a second,
independent mDNS stack (another zeroconf on port 5353, as avahi-daemon would be), and a
second test checks that tables are listed across the bridge within a second in both
orders (lobby first, tables first). Needs root and ``ip netns``; skipped otherwise.
Every namespace, link and address is made by this test and removed in a ``finally``;
nothing leaves the machine."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("isolated_config")


ROOT = Path(__file__).resolve().parents[2]


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=10)


@pytest.fixture
def lan() -> Iterator[dict[str, str]]:
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("network namespaces need root")
    tag = secrets.token_hex(2)
    names = {"host": f"rlh{tag}", "c1": f"rla{tag}", "c2": f"rlb{tag}"}
    bridge = f"rlbr{tag}"
    addrs = {"host": "10.231.0.1", "c1": "10.231.0.2", "c2": "10.231.0.3"}
    made: list[str] = []
    try:
        try:
            _ip("link", "add", bridge, "type", "bridge")
        except (subprocess.CalledProcessError, FileNotFoundError, OSError) as exc:
            pytest.skip(f"cannot make a bridge: {exc}")
        _ip("link", "set", bridge, "up")
        for role, ns in names.items():
            try:
                _ip("netns", "add", ns)
            except (subprocess.CalledProcessError, OSError) as exc:
                pytest.skip(f"ip netns fails: {exc}")
            made.append(ns)
            _ip("link", "add", f"v{ns}", "type", "veth", "peer", "name", f"e{ns}")
            _ip("link", "set", f"v{ns}", "master", bridge)
            _ip("link", "set", f"v{ns}", "up")
            _ip("link", "set", f"e{ns}", "netns", ns)
            _ip("-n", ns, "link", "set", "lo", "up")
            _ip("-n", ns, "link", "set", f"e{ns}", "up")
            _ip("-n", ns, "addr", "add", f"{addrs[role]}/24", "dev", f"e{ns}")
            _ip("-n", ns, "route", "add", "224.0.0.0/4", "dev", f"e{ns}")
        yield names
    finally:
        for ns in made:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=10)
        subprocess.run(["ip", "link", "del", bridge], capture_output=True, timeout=10)


def _ns_environ() -> dict[str, str]:
    """The environment of a process inside the test's own namespaces: without the
    session's loopback-only ``$RAMI_LAN_INTERFACES`` (conftest), so it uses the
    namespace's veth as a LAN would."""
    return {k: v for k, v in os.environ.items() if k != "RAMI_LAN_INTERFACES"}


def _cmd(ns: str, *args: str) -> list[str]:
    return ["ip", "netns", "exec", ns, sys.executable, "-m", "rami_lan.cli.main", *args]


def _probe(ns: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        ["ip", "netns", "exec", ns, sys.executable, str(ROOT / "tests" / "netns_mdns_probe.py"), *args],
        env={**_ns_environ(), "PYTHONPATH": str(ROOT)}, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )


def _line(proc: subprocess.Popen[str]) -> dict[str, object]:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line, proc.stderr.read() if proc.stderr else "no output"
    return json.loads(line)  # type: ignore[no-any-return]


@contextlib.contextmanager
def second_mdns_stacks(lan: dict[str, str]) -> Iterator[None]:
    """One more mDNS responder on port 5353 in each namespace, until the block ends."""
    procs = [_probe(ns, "noise") for ns in lan.values()]
    try:
        for p in procs:
            assert _line(p) == {"ready": True}
        yield
    finally:
        _stop(*procs)


def _stop(*procs: subprocess.Popen[str]) -> None:
    for p in procs:
        if p.poll() is None:
            with contextlib.suppress(Exception):
                assert p.stdin is not None
                p.stdin.close()
    for p in procs:
        try:
            p.wait(5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(5)


LISTED_WITHIN = 0.5  # seconds, for the median: QU questions take ~1.1 s every time
LISTED_AT_WORST = 2.5  # one slow listing on a loaded CI machine is not a regression
# (the 0.5 s p99 target over 20 runs is checked by python -m benchmarks.discovery)


def test_tables_listed_fast_beside_a_second_mdns_stack(lan: dict[str, str]) -> None:
    """Two tables (in "host" and "c2"), a lobby in "c1", a second mDNS stack everywhere."""
    times: list[float] = []
    with second_mdns_stacks(lan):
        for run in range(2):
            names = [f"nsfast {secrets.token_hex(2)} {k}" for k in range(2)]
            # Lobby first: time from each table's start to the lobby listing it.
            lobbies = [_probe(lan["c1"], "browse", n) for n in names]
            tables: list[subprocess.Popen[str]] = []
            try:
                for lobby in lobbies:
                    assert _line(lobby) == {"browsing": True}
                for ns, name in zip((lan["host"], lan["c2"]), names, strict=True):
                    tables.append(_probe(ns, "advertise", name))
                started = [float(_line(t)["started"]) for t in tables]  # type: ignore[arg-type]
                listed = [float(_line(lobby)["listed"]) for lobby in lobbies]  # type: ignore[arg-type]
                times += [b - a for a, b in zip(started, listed, strict=True)]
                # Tables first: a lobby started later lists both.
                if run == 0:
                    # The tables have been open a while (RFC 6762 section 6: a record is
                    # multicast again only a second after it last was).
                    time.sleep(1.2)
                    late = [_probe(lan["c1"], "browse", n) for n in names]
                    try:
                        for lobby in late:
                            assert _line(lobby) == {"browsing": True}
                        for lobby in late:
                            got = _line(lobby)
                            times.append(float(got["listed"]) - float(got["browse_started"]))  # type: ignore[arg-type]
                    finally:
                        _stop(*late)
            finally:
                _stop(*lobbies, *tables)
    print(json.dumps({"listed_s": [round(t, 3) for t in times]}))
    assert statistics.median(times) <= LISTED_WITHIN, times
    assert max(times) <= LISTED_AT_WORST, times


def test_match_across_namespaces(lan: dict[str, str], tmp_path: Path) -> None:
    with second_mdns_stacks(lan):
        _match_across_namespaces(lan, tmp_path)


def _match_across_namespaces(lan: dict[str, str], tmp_path: Path) -> None:
    env = {**_ns_environ(), "PYTHONPATH": str(ROOT), "LANG": "C"}
    name = f"netns {secrets.token_hex(2)}"
    host = subprocess.Popen(
        _cmd(lan["host"], "--lang", "en", "host", "--headless", "--name", name, "--seats", "2",
             "--variant", "rami", "--limit", "1", "--record-dir", str(tmp_path)),
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    clients = []
    try:
        for role in ("c1", "c2"):
            clients.append(subprocess.Popen(
                _cmd(lan[role], "--lang", "en", "join", name, "--bot", "moyen",
                     "--timeout", "4"),
                env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            ))
        outs = [c.communicate(timeout=60)[0] for c in clients]
        for c, out in zip(clients, outs, strict=True):
            assert c.returncode == 0, out
            assert "Fairness checks passed: 1" in out, out
        host_out = host.communicate(timeout=20)[0]
        assert host.returncode == 0, host_out
    finally:
        for p in [host, *clients]:
            if p.poll() is None:
                p.kill()
                p.wait(5)
    records = list(tmp_path.glob("*.json"))
    assert len(records) == 1
    check = subprocess.run(
        [sys.executable, "-m", "rami_lan.cli.main", "verify", str(records[0])],
        env=env, capture_output=True, text=True, timeout=30,
    )
    assert check.returncode == 0, check.stdout + check.stderr
