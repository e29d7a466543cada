"""A closed terminal from the first instant (issue 29 item 2, lan2 c): SIGHUP (twice, as a
closing terminal sends it) or SIGTERM that reaches a command before its event loop has
installed its handlers takes the Ctrl-C path (exit 130, no traceback) instead of the
default action (killed by the signal, exit -1). Before, a host hung up within ~1.3 s of
its start (on a loaded machine) died on the spot.

The moment is made deterministic with ``python -X importtime``: its stderr says when
``rami_lan.logsetup`` has been imported (``main`` sets logging up before it runs the
command, long before the command's loop starts), and the signal is sent then. Real
processes; loopback only; the lobby and solo run on a pseudo-terminal, as they would in
a terminal."""

from __future__ import annotations

import os
import pty
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rami_lan.net import signals as sigs

ROOT = Path(__file__).resolve().parents[2]

COMMANDS = {
    "host": (["host", "--headless", "--name", "early hup", "--interface", "127.0.0.1", "--seats", "2"],
             "rami_lan.logsetup"),
    "join": (["join", "127.0.0.1:9", "--bot", "moyen", "--timeout", "30"], "rami_lan.logsetup"),
    "list": (["list", "--timeout", "20"], "rami_lan.logsetup"),
    "solo": (["solo"], "rami_lan.logsetup"),
    "lobby": ([], "rami_lan.logsetup"),
}
TERMINAL = {"solo", "lobby"}


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "LANG": "C", "TERM": "xterm",
            "RAMI_LAN_INTERFACES": "127.0.0.1", "RAMI_LAN_NO_BROWSE": "1",
            "RAMI_LAN_CONFIG_DIR": str(tmp_path / "cfg"), "RAMI_LAN_DATA_DIR": str(tmp_path / "data")}


def _hang_up_at_import(tmp_path: Path, which: str, signum: int) -> tuple[int, str]:
    """Start ``rami-lan <which>``, send ``signum`` (twice for SIGHUP) as soon as
    logging is being set up; its exit status and its stderr (without importtime)."""
    args, module = COMMANDS[which]
    master = slave = None
    kwargs: dict[str, object] = {}
    if which in TERMINAL:
        master, slave = pty.openpty()
        kwargs = {"stdin": slave, "stdout": slave}
    else:
        kwargs = {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL}
    proc = subprocess.Popen([sys.executable, "-X", "importtime", "-m", "rami_lan.cli.main", "--lang", "en",
                             *args], stderr=subprocess.PIPE, env=_env(tmp_path), start_new_session=True,
                            **kwargs)  # type: ignore[call-overload]
    if slave is not None:
        os.close(slave)
    err: list[str] = []
    try:
        assert proc.stderr is not None
        deadline = time.monotonic() + 60
        for raw in proc.stderr:
            line = raw.decode("utf-8", "replace")
            err.append(line)
            if line.startswith("import time:") and line.split("|")[-1].strip() == module:
                # main() is setting logging up: the command's loop is far off
                break
            assert time.monotonic() < deadline, "main() never set logging up"
        proc.send_signal(signum)
        if signum == signal.SIGHUP:
            proc.send_signal(signum)  # the kernel's, then the shell's
        rest = proc.communicate(timeout=30)[1] or b""
        err.append(rest.decode("utf-8", "replace"))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        if master is not None:
            os.close(master)
    text = "".join(x for x in "".join(err).splitlines(keepends=True) if not x.startswith("import time:"))
    return proc.returncode, text


@pytest.mark.parametrize("which", sorted(COMMANDS))
def test_a_hang_up_before_the_loop_takes_the_ctrl_c_path(tmp_path: Path, which: str) -> None:
    status, err = _hang_up_at_import(tmp_path, which, signal.SIGHUP)
    assert status == 130, (status, err)  # not -1 (killed by SIGHUP)
    assert "Traceback" not in err, err


@pytest.mark.parametrize("which", ["host", "join"])
def test_a_sigterm_before_the_loop_takes_the_ctrl_c_path(tmp_path: Path, which: str) -> None:
    status, err = _hang_up_at_import(tmp_path, which, signal.SIGTERM)
    assert status == 130, (status, err)
    assert "Traceback" not in err, err


def test_early_handlers_are_given_back_and_nohup_is_respected() -> None:
    """In-process: ``install_early`` replaces the default handlers (not an ignored one),
    ``restore_early`` puts them back, and ``install_shutdown``'s ``remove`` hands the
    signals back to the early handler, not to the default (which kills)."""
    import asyncio

    before_hup = signal.getsignal(signal.SIGHUP)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        saved = sigs.install_early()
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN  # nohup: left ignored
        assert signal.getsignal(signal.SIGTERM) is sigs._early_handler
        sigs.restore_early(saved)
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
        saved = sigs.install_early()
        assert signal.getsignal(signal.SIGHUP) is sigs._early_handler

        async def scenario() -> None:
            handle = sigs.install_shutdown(asyncio.get_running_loop(), stop=lambda: None)
            assert signal.getsignal(signal.SIGHUP) is not sigs._early_handler
            handle.remove()
            assert signal.getsignal(signal.SIGHUP) is sigs._early_handler

        asyncio.run(scenario())
        os.kill(os.getpid(), signal.SIGTERM)  # kept for a safe point, not raised anywhere
        time.sleep(0.2)
        assert sigs.take_pending() == signal.SIGTERM and sigs.take_pending() is None
        sigs.restore_early(saved)
        saved = sigs.install_early()
        deadline, sigs.EARLY_DEADLINE = sigs.EARLY_DEADLINE, 0.05
        try:  # not taken in time (a command without a loop): the Ctrl-C path where it is
            with pytest.raises(KeyboardInterrupt):
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(2)
        finally:
            sigs.EARLY_DEADLINE = deadline
        sigs.restore_early(saved)
        saved = sigs.install_early()

        async def taken_by_the_loop() -> list[int]:
            os.kill(os.getpid(), signal.SIGHUP)  # before the loop's handlers: kept
            time.sleep(0.1)
            fired = asyncio.Event()
            handle = sigs.install_shutdown(asyncio.get_running_loop(), stop=fired.set)
            await asyncio.wait_for(fired.wait(), 5)  # the loop took it: its goodbye path
            handle.remove()
            return handle.received

        assert asyncio.run(taken_by_the_loop()) == [signal.SIGHUP]
        sigs.restore_early(saved)
        assert signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None)
    finally:
        signal.signal(signal.SIGHUP, before_hup if before_hup is not None else signal.SIG_DFL)
        sigs._early_received.clear()
        sigs._early_state.update(force=False, taken=False)


def _python_ready(pid: int, timeout: float = 20.0, sig: int = signal.SIGINT) -> None:
    """Until ``pid`` catches ``sig`` (SIGINT: the interpreter is up, Python's own handler;
    SIGHUP: `rami_lan.cli.main` put its early handlers in)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with open(f"/proc/{pid}/status") as f:
                caught = next(int(line.split()[1], 16) for line in f if line.startswith("SigCgt"))
        except (OSError, StopIteration):
            return
        if caught >> (sig - 1) & 1:
            return
        time.sleep(0.002)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")
def test_hang_ups_at_any_moment_of_the_start_end_with_130(tmp_path: Path) -> None:
    """Hang-ups spread over ``join``'s start (0 to 0.3 s after its early handlers are in:
    imports, arguments, logging). A hang-up while a module is imported often lands in
    code that dataclasses compile from a string; CPython then ended the process with
    SIGINT after our clean exit (status -2, nothing printed: 6 in 30 before), and one
    after ``main`` had put the default handlers back killed it during its exit (-1).
    (Counted from the early handlers, not from the interpreter's start: on a loaded
    machine the imports before them took over 0.1 s and a hang-up then killed the
    process before any code of ours ran, which no program can prevent.)"""
    statuses = []
    for i in range(12):
        proc = subprocess.Popen([sys.executable, "-m", "rami_lan.cli.main", "--lang", "en", "join",
                                 "127.0.0.1:9", "--bot", "moyen", "--timeout", "20"], env=_env(tmp_path),
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            _python_ready(proc.pid, sig=signal.SIGHUP)
            time.sleep(0.3 * i / 11)
            proc.send_signal(signal.SIGHUP)
            err = proc.communicate(timeout=30)[1].decode("utf-8", "replace")
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
        assert "Traceback" not in err, err
        statuses.append(proc.returncode)
    # 130: the goodbye path; 1: it had already given up ("Could not connect") by itself
    assert set(statuses) <= {130, 1}, statuses
    assert 130 in statuses, statuses
