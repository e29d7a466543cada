"""Benchmark: start-up of ``rami-lan --help`` and of the lobby's first frame.

``--help``: wall time of the whole process (``python -m rami_lan.cli.main --help``, and
the ``rami-lan`` console script when installed). Lobby: from spawning ``rami-lan``
(no command) in an 80x24 pseudo-terminal to the first frame of the lobby on that
terminal (the title text seen on the pty). The LAN browser is disabled
(``RAMI_LAN_NO_BROWSE=1``) so nothing is multicast; it starts after the first frame
anyway. Baseline in the same run: a bare ``python -c pass``.

Prints one JSON object; times in ms. Targets: lobby first frame <= 500 ms, ``--help``
<= 300 ms (median).

    cd /work/main && python -m benchmarks.startup [--runs 10]
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time


def stats(samples: list[float]) -> dict[str, float]:
    s = sorted(samples)
    p99 = s[min(len(s) - 1, int(round(0.99 * (len(s) - 1))))]
    return {
        "median": round(statistics.median(s), 1),
        "p99": round(p99, 1),
        "max": round(s[-1], 1),
        "count": len(s),
    }


def timed_run(cmd: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter_ns()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                   check=True)
    return (time.perf_counter_ns() - t0) / 1e6


def lobby_first_frame(cmd: list[str], env: dict[str, str], timeout: float = 10.0) -> float:
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    t0 = time.perf_counter_ns()
    proc = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, env=env,
                            start_new_session=True)
    os.close(slave)
    seen = b""
    try:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            r, _w, _x = select.select([master], [], [], 0.05)
            if r:
                try:
                    seen += os.read(master, 65536)
                except OSError:
                    break
                if b"rami-lan" in seen and (b"Lobby" in seen or b"Salon" in seen):
                    return (time.perf_counter_ns() - t0) / 1e6
        raise RuntimeError(f"no lobby frame within {timeout} s: {seen[-300:]!r}")
    finally:
        with_kill(proc)
        os.close(master)


def with_kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    try:
        proc.wait(timeout=3)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    args = ap.parse_args()
    cfg = tempfile.mkdtemp(prefix="rami-lan-bench-")
    env = dict(os.environ, RAMI_LAN_CONFIG_DIR=cfg, RAMI_LAN_NO_BROWSE="1",
               LANG="C.UTF-8", TERM="xterm-256color")
    py = [sys.executable]
    module_cmd = [*py, "-m", "rami_lan.cli.main"]
    script = shutil.which("rami-lan")
    results: dict[str, object] = {"unit": "ms", "runs": args.runs}
    for _ in range(args.warmup):
        timed_run([*py, "-c", "pass"], env)
        timed_run([*module_cmd, "--help"], env)
        lobby_first_frame(module_cmd, env)
    base = [timed_run([*py, "-c", "pass"], env) for _ in range(args.runs)]
    results["python_baseline"] = stats(base)
    helps = [timed_run([*module_cmd, "--help"], env) for _ in range(args.runs)]
    results["help_module"] = stats(helps)
    if script:
        results["help_script"] = stats([timed_run([script, "--help"], env)
                                        for _ in range(args.runs)])
    lobby = [lobby_first_frame(module_cmd, env) for _ in range(args.runs)]
    results["lobby_first_frame"] = stats(lobby)
    help_key = "help_script" if script else "help_module"
    results["help_target_ms"] = 300
    results["lobby_target_ms"] = 500
    results["help_ok"] = results[help_key]["median"] <= 300  # type: ignore[index]
    results["lobby_ok"] = results["lobby_first_frame"]["median"] <= 500  # type: ignore[index]
    results["lobby_vs_baseline"] = round(
        results["lobby_first_frame"]["median"] / max(0.1, results["python_baseline"]["median"]), 2  # type: ignore[index]
    )
    shutil.rmtree(cfg, ignore_errors=True)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
