"""A LAN with delay (issue 24 item 9): latency where a person feels it, plain and private
tables in the same run, four participants each in its own network namespace.

    sudo python -m benchmarks.netem_lan [--matches 3] [--delay-ms 5] [--jitter-ms 1]

A headless ``rami-lan host`` runs in one namespace, three players in three others, all
joined by a private bridge (``ip netns``, veth pairs). Every namespace's link gets
``tc qdisc ... netem delay 5ms 1ms`` (5 ms one-way delay, 1 ms jitter). Where the kernel
has no netem (``Specified qdisc kind is unknown``), the run says so in its JSON
(``"delay": "relay"``, ``"netem_error"``) and puts the same delay in user space instead:
each player reaches the host through a relay in its own namespace that holds every
chunk 5 ms +- 1 ms in each direction (in order, as TCP delivers). ``--no-relay`` skips
the run instead.

Each player is this module in ``--client`` mode inside ``ip netns exec``: the real
network client (`rami_lan.net.client.open_session`, joined by address; mDNS stays
inside the namespaces) with a bot (``moyen``) choosing its moves, instrumented where
its screen would change. Clocks: every process reads ``time.monotonic()``, one clock for
the whole machine (network namespaces do not change it). Measured, p50/p99/max:

- ``next_round_to_hands``: the last player's "continue" to the moment every player's
  client has the new round's hand to show (a private hand only once unmasked);
- ``draw_to_card``: a player's draw sent to the drawn card in that player's hand;
- ``last_move_to_result``: a round's last move sent to the moment every player has
  that round's result with its fairness verdict ("checked") -- the verified result
  screen.

Targets (issue 24): p99 <= 0.5 s, <= 0.05 s and <= 0.5 s. Prints one JSON object.
Every namespace, link and process is made here and removed in a ``finally`` (also on
SIGTERM / Ctrl-C); not root, or no ``ip netns``: a JSON line saying why, exit 0.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TARGETS = {"next_round_to_hands": 0.5, "draw_to_card": 0.05, "last_move_to_result": 0.5}
SUBNET = "10.233.0"


# ------------------------------------------------------------------ the client side


class DelayRelay:
    """A TCP relay on 127.0.0.1 that holds each chunk ``delay`` +- ``jitter`` seconds in
    each direction, in order (the user-space stand-in for netem)."""

    def __init__(self, host: str, port: int, delay: float, jitter: float, seed: int) -> None:
        self.target = (host, port)
        self.delay = delay
        self.jitter = jitter
        self.rng = random.Random(seed)
        self.server: asyncio.Server | None = None

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            ur, uw = await asyncio.open_connection(*self.target)
        except OSError:
            writer.close()
            return
        await asyncio.gather(self._pipe(reader, uw), self._pipe(ur, writer))

    async def _pipe(self, src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def send() -> None:
            while True:
                due, data = await queue.get()
                if not data:
                    break
                wait = due - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                dst.write(data)
                with contextlib.suppress(OSError):
                    await dst.drain()
            with contextlib.suppress(Exception):
                dst.close()

        sender = asyncio.create_task(send())
        last = 0.0
        try:
            while data := await src.read(65536):
                due = max(last, loop.time() + self.delay + self.rng.uniform(-self.jitter, self.jitter))
                last = due
                queue.put_nowait((due, data))
        except OSError:
            pass
        finally:
            queue.put_nowait((0.0, b""))
            with contextlib.suppress(Exception):
                await sender


class Timed:
    """A session wrapper noting, on one clock, what the player's screen would show."""

    def __init__(self, session: Any) -> None:
        self._s = session
        self.marks: list[dict[str, Any]] = []
        self._round = 0
        self._turn = 0
        self._hand_shown: set[int] = set()
        self._draw_sent: float | None = None
        self._hand_len = 0
        self._verdict: set[int] = set()
        self._result_view: set[int] = set()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._s, name)

    def _mark(self, kind: str, **kw: Any) -> None:
        self.marks.append({"k": kind, "t": time.monotonic(), **kw})

    async def act(self, action: Any) -> None:
        from rami_lan.core import actions as A

        now = time.monotonic()
        if isinstance(action, A.DrawStock | A.DrawDiscard):
            self._draw_sent = now
        self.marks.append({"k": "act", "t": now, "round": self._round, "turn": self._turn})
        await self._s.act(action)

    async def next_round(self, choice: Any) -> None:
        self._mark("continue", round=self._round)
        await self._s.next_round(choice)

    async def updates(self):  # type: ignore[no-untyped-def]
        async for up in self._s.updates():
            v = up.view
            if v is not None:
                self._round, self._turn = v.round_no, v.turn_no
                if v.phase in ("draw", "play") and v.hand and v.round_no not in self._hand_shown:
                    self._hand_shown.add(v.round_no)
                    self._mark("hand", round=v.round_no)
                if (self._draw_sent is not None and v.phase == "play" and v.turn == self._s.seat
                        and len(v.hand) > self._hand_len):
                    self._mark("drawn", round=v.round_no, sent=self._draw_sent)
                    self._draw_sent = None
                if v.phase in ("draw", "play"):
                    self._hand_len = len(v.hand)
                if v.phase in ("between", "over") or v.match_over:
                    done = v.round_no
                    if done not in self._result_view:
                        self._result_view.add(done)
                        self._mark("result_view", round=done)
            for fr in (*up.fairness_rounds, *([up.fairness_round] if up.fairness_round else [])):
                if fr.status == "checked" and fr.round_no not in self._verdict:
                    self._verdict.add(fr.round_no)
                    self._mark("verdict", round=fr.round_no)
                if fr.status not in ("checked", "pending") and fr.round_no not in self._verdict:
                    self._verdict.add(fr.round_no)
                    self._mark("verdict_bad", round=fr.round_no, status=fr.status,
                               reason=fr.reason[:200])
            yield up


async def drain(session: Timed, timeout: float) -> None:
    """After the bot's last move: the updates still on their way (the last round's
    verdict may follow the match-over view), until every round is judged."""
    def judged() -> bool:  # every round's verdict seen in an update, as a screen sees it
        rounds = session.fairness_rounds()
        return all(r.status != "pending" and r.round_no in session._verdict for r in rounds)

    async def more() -> None:
        async for _up in session.updates():
            if judged():
                return

    if not judged():
        with contextlib.suppress(asyncio.TimeoutError, TimeoutError):
            await asyncio.wait_for(more(), timeout)


async def client_main(args: argparse.Namespace) -> int:
    from rami_lan.net.bot_client import BotClient
    from rami_lan.net.client import open_session

    host, port = args.client[0], int(args.client[1])
    if args.relay:
        relay = DelayRelay(host, port, args.delay_ms / 1000, args.jitter_ms / 1000, args.seed)
        host, port = "127.0.0.1", await relay.start()
    session = Timed(await open_session(host, port, nickname=f"p{args.seed}", bot=True,
                                       reconnect_window=5.0))
    ok = False
    try:
        summary = await asyncio.wait_for(
            BotClient(session, level="moyen", seed=args.seed, delay=args.bot_delay).run(), 300)
        ok = summary.finished
        await drain(session, 3.0)
    finally:
        rounds = [(r.round_no, r.status) for r in session.fairness_rounds()]
        await session.close()
        Path(args.out).write_text(json.dumps({"seat": session.seat, "finished": ok,
                                              "fairness": rounds, "marks": session.marks}))
    return 0 if ok else 1


# ------------------------------------------------------------------ the namespaces


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], check=check, capture_output=True, text=True, timeout=10)


class Lan:
    """A host namespace and three player namespaces on a private bridge."""

    def __init__(self) -> None:
        tag = secrets.token_hex(2)
        self.names = [f"rlq{tag}h", f"rlq{tag}a", f"rlq{tag}b", f"rlq{tag}c"]
        self.bridge = f"rlqbr{tag}"
        self.addrs = [f"{SUBNET}.{i + 1}" for i in range(4)]
        self.made: list[str] = []
        self.bridge_made = False
        self.netem_error = ""

    def up(self, delay_ms: float, jitter_ms: float) -> None:
        _ip("link", "add", self.bridge, "type", "bridge")
        self.bridge_made = True
        _ip("link", "set", self.bridge, "up")
        for ns, addr in zip(self.names, self.addrs, strict=True):
            _ip("netns", "add", ns)
            self.made.append(ns)
            _ip("link", "add", f"v{ns}", "type", "veth", "peer", "name", f"e{ns}")
            _ip("link", "set", f"v{ns}", "master", self.bridge)
            _ip("link", "set", f"v{ns}", "up")
            _ip("link", "set", f"e{ns}", "netns", ns)
            _ip("-n", ns, "link", "set", "lo", "up")
            _ip("-n", ns, "link", "set", f"e{ns}", "up")
            _ip("-n", ns, "addr", "add", f"{addr}/24", "dev", f"e{ns}")
            _ip("-n", ns, "route", "add", "224.0.0.0/4", "dev", f"e{ns}")
        for ns in self.names:
            done = subprocess.run(
                ["ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", f"e{ns}", "root", "netem",
                 "delay", f"{delay_ms}ms", f"{jitter_ms}ms"], capture_output=True, text=True, timeout=10)
            if done.returncode != 0:
                self.netem_error = (done.stderr or done.stdout).strip() or f"exit {done.returncode}"
                break

    def down(self) -> None:
        for ns in self.made:
            _ip("netns", "del", ns, check=False)
        self.made = []
        if self.bridge_made:
            _ip("link", "del", self.bridge, check=False)
            self.bridge_made = False


def _pctl(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, int(round(q * (len(s) - 1)))))]


def _stats(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"n": 0}
    return {"n": len(values), "median": round(statistics.median(values), 4),
            "p99": round(_pctl(values, 0.99), 4), "max": round(max(values), 4)}


def measure(clients: list[dict[str, Any]]) -> dict[str, list[float]]:
    """The three latencies of one match from its players' marks."""
    out: dict[str, list[float]] = {k: [] for k in TARGETS}
    marks = [c["marks"] for c in clients]
    rounds = sorted({m["round"] for ms in marks for m in ms if m["k"] == "hand"})
    for r in rounds:
        # next round: the last "continue" of round r-1 to the last hand of round r shown
        conts = [m["t"] for ms in marks for m in ms if m["k"] == "continue" and m["round"] == r - 1]
        hands = [m["t"] for ms in marks for m in ms if m["k"] == "hand" and m["round"] == r]
        if r > 1 and len(conts) == len(marks) and len(hands) == len(marks):
            out["next_round_to_hands"].append(max(hands) - max(conts))
        # the round's last move to every player's verified result
        acts = [m["t"] for ms in marks for m in ms if m["k"] == "act" and m["round"] == r]
        shown = []
        for ms in marks:
            view = [m["t"] for m in ms if m["k"] == "result_view" and m["round"] == r]
            verdict = [m["t"] for m in ms if m["k"] == "verdict" and m["round"] == r]
            if view and verdict:
                shown.append(max(view[0], verdict[0]))
        if acts and len(shown) == len(marks):
            out["last_move_to_result"].append(max(shown) - max(acts))
    for ms in marks:
        out["draw_to_card"] += [m["t"] - m["sent"] for m in ms if m["k"] == "drawn"]
    return out


def run_match(lan: Lan, folder: Path, private: bool, relay: bool, args: argparse.Namespace,
              procs: list[subprocess.Popen[Any]]) -> dict[str, Any]:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("RAMI_LAN_")},
           "PYTHONPATH": str(ROOT), "LANG": "C.UTF-8", "RAMI_LAN_CONFIG_DIR": str(folder / "cfg"),
           "RAMI_LAN_DATA_DIR": str(folder / "data"), "RAMI_LAN_LOG_DIR": str(folder / "logs")}
    name = f"netem {secrets.token_hex(2)}"
    host = subprocess.Popen(
        ["ip", "netns", "exec", lan.names[0], sys.executable, "-m", "rami_lan.cli.main", "--lang", "en",
         "host", "--headless", "--name", name, "--seats", "3", "--variant", "500", "--quick",
         "--interface", lan.addrs[0], "--bot-delay", "0", "--record-dir", str(folder / "records"),
         "--private-deal" if private else "--no-private-deal"],
        env={**env, "RAMI_LAN_INTERFACES": lan.addrs[0]}, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True)
    procs.append(host)
    assert host.stdout is not None
    port = 0
    end = time.monotonic() + 30
    while time.monotonic() < end and not port:
        line = host.stdout.readline()
        if not line:
            break
        if m := re.search(r"port (\d+)", line):
            port = int(m.group(1))
    if not port:
        raise RuntimeError("the host did not start")
    players = []
    for i in range(3):
        out = folder / f"client{i}.json"
        ns, addr = lan.names[i + 1], lan.addrs[i + 1]
        cmd = ["ip", "netns", "exec", ns, sys.executable, "-m", "benchmarks.netem_lan",
               "--client", lan.addrs[0], str(port), "--out", str(out), "--seed", str(i + 1),
               "--bot-delay", str(args.bot_delay), "--delay-ms", str(args.delay_ms),
               "--jitter-ms", str(args.jitter_ms), *(["--relay"] if relay else [])]
        p = subprocess.Popen(cmd, env={**env, "RAMI_LAN_INTERFACES": addr}, cwd=str(ROOT),
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        procs.append(p)
        players.append((p, out))
    clients = []
    for p, out in players:
        text = p.communicate(timeout=300)[0]
        if p.returncode != 0 or not out.exists():
            raise RuntimeError(f"a player failed (exit {p.returncode}): {text[-800:]}")
        clients.append(json.loads(out.read_text()))
    host_out = host.communicate(timeout=60)[0]
    if "Traceback" in host_out:
        raise RuntimeError(f"the host printed a traceback: {host_out[-800:]}")
    bad = [m for c in clients for m in c["marks"] if m["k"] == "verdict_bad"]
    return {"samples": measure(clients), "verdicts_not_checked": bad}


def bench(args: argparse.Namespace) -> dict[str, Any]:
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return {"skipped": "network namespaces need root"}
    lan = Lan()
    procs: list[subprocess.Popen[Any]] = []

    def on_signal(signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        try:
            lan.up(args.delay_ms, args.jitter_ms)
        except (subprocess.CalledProcessError, OSError) as exc:
            err = getattr(exc, "stderr", "") or str(exc)
            return {"skipped": f"ip netns / veth / bridge failed: {str(err).strip()}"}
        relay = bool(lan.netem_error)
        if relay and args.no_relay:
            return {"skipped": f"tc netem is unavailable: {lan.netem_error}"}
        out: dict[str, Any] = {
            "delay": "relay" if relay else "netem", "netem_error": lan.netem_error or None,
            "one_way_delay_ms": args.delay_ms, "jitter_ms": args.jitter_ms,
            "participants": 4, "seats": 3, "variant": "500 quick", "matches_per_kind": args.matches,
            "targets_p99_s": TARGETS,
        }
        with tempfile.TemporaryDirectory(prefix="rami-netem-") as tmp_dir:
            tmp = args.keep or tmp_dir
            for kind, private in (("plain", False), ("private", True)):
                if kind not in args.kinds.split(","):
                    continue
                samples: dict[str, list[float]] = {k: [] for k in TARGETS}
                bad: list[Any] = []
                for n in range(args.matches):
                    got = run_match(lan, Path(tmp) / f"{kind}{n}", private, relay, args, procs)
                    for k, v in got["samples"].items():
                        samples[k] += v
                    bad += got["verdicts_not_checked"]
                rows = {k: _stats(v) for k, v in samples.items()}
                for k, row in rows.items():
                    row["target_p99"] = TARGETS[k]
                    row["meets_target"] = bool(row.get("n")) and row["p99"] <= TARGETS[k]
                out[kind] = {**rows, "verdicts_not_checked": bad[:5]}
        return out
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                with contextlib.suppress(Exception):
                    p.wait(5)
        lan.down()
        for s, h in old.items():
            signal.signal(s, h)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=3, help="matches per table kind (default 3)")
    ap.add_argument("--delay-ms", type=float, default=5.0)
    ap.add_argument("--jitter-ms", type=float, default=1.0)
    ap.add_argument("--bot-delay", type=float, default=0.05, help="the players' think time, s")
    ap.add_argument("--kinds", default="plain,private", help="table kinds (plain,private)")
    ap.add_argument("--keep", default=None, help="keep the players' marks in this folder")
    ap.add_argument("--no-relay", action="store_true", help="without netem: skip, no relay")
    ap.add_argument("--client", nargs=2, metavar=("HOST", "PORT"), help=argparse.SUPPRESS)
    ap.add_argument("--relay", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    ap.add_argument("--seed", type=int, default=1, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.client:
        return asyncio.run(client_main(args))
    try:
        result = bench(args)
    except KeyboardInterrupt as exc:
        result = {"interrupted": str(exc)}
    except RuntimeError as exc:
        result = {"failed": str(exc)}
    print(json.dumps(result, indent=1))
    return 0 if "failed" not in result else 1


if __name__ == "__main__":
    raise SystemExit(main())
