"""Shut down cleanly on SIGTERM and SIGHUP, exactly as on Ctrl-C.

``asyncio.run`` turns Ctrl-C (SIGINT) into a cancellation of the main task: every
``finally`` runs, so the table's mDNS goodbye packets go out, the journal is closed and
the connections say ``bye``; then ``KeyboardInterrupt`` reaches ``rami_lan.cli.main``,
which exits with status 130. SIGTERM (``kill``, systemd, a closing desktop session) and
SIGHUP (the terminal went away) used to kill the process on the spot instead, and a dead
table stayed listed on the LAN for the PTR record's TTL (75 minutes).

:func:`install_shutdown` makes those signals take the Ctrl-C path. Call it once from
inside the running event loop of a command::

    async def main() -> int:
        install_shutdown(asyncio.get_running_loop())
        ...

By default the handler raises SIGINT in the process, so whatever handles Ctrl-C (the
``asyncio.run`` runner) handles the signal; pass ``stop`` to do something else instead
(it is called in the event loop, once per signal). A second SIGTERM while shutting down
acts like a second Ctrl-C (the runner then raises ``KeyboardInterrupt`` at once).

A closed terminal often sends SIGHUP twice (the kernel to the foreground group, the
shell to its jobs): a SIGHUP after the first shutdown signal is ignored, so the goodbyes
are not cut short. On SIGHUP the standard output and error, when they are the dead
terminal, are pointed at ``os.devnull``: a line printed while shutting down would
otherwise fail (EIO) and end the process before its goodbyes.

From the first instant: a command's event loop (and so :func:`install_shutdown`) starts
only after its imports, its arguments and its files (about 0.4 s, more than a second on
a loaded machine); until then SIGTERM and SIGHUP had their default action and killed the
process on the spot. ``rami_lan.cli.main`` calls :func:`install_early` as its first
statement: from then on SIGTERM or SIGHUP is kept (a repeated SIGHUP ignored) and taken
at a safe point: by ``main`` before it runs the command (``KeyboardInterrupt``: nothing
is announced on the LAN yet; exit 130), or by `install_shutdown` as soon as the
command's loop exists (the goodbye path, as for Ctrl-C); one not taken within
:data:`EARLY_DEADLINE` seconds raises ``KeyboardInterrupt`` where the command is.
:meth:`ShutdownHandle.remove` puts the early handler back.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # asyncio is not imported by install_early's caller before it is needed
    import asyncio

__all__ = ["SHUTDOWN_SIGNALS", "ShutdownHandle", "ignore_shutdown_signals", "install_early",
           "install_shutdown", "restore_early", "take_pending"]

log = logging.getLogger(__name__)

SHUTDOWN_SIGNALS: tuple[signal.Signals, ...] = tuple(
    s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s is not None
)


def _interrupt() -> None:
    """Behave as if Ctrl-C had been pressed.

    When SIGINT is not Python's to handle (a shell that starts a command in the
    background without job control sets it to "ignore", and the child inherits that),
    raising it would do nothing (or kill on the spot): ``KeyboardInterrupt`` is raised
    here instead, out of the event loop; ``asyncio.run`` then cancels the command's task
    (its ``finally`` blocks run: goodbyes, journal) and passes it on, as for Ctrl-C.
    """
    if signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, signal.SIG_DFL, None):
        raise KeyboardInterrupt
    signal.raise_signal(signal.SIGINT)


def _detach_terminal() -> None:
    """Point standard output and error at ``os.devnull`` where they are a terminal (the
    one that just hung up); files and pipes are left alone."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    try:
        for fd in (1, 2):
            with contextlib.suppress(OSError):
                if os.isatty(fd):
                    os.dup2(null, fd)
    finally:
        os.close(null)


_early_received: list[int] = []
"""The signals the early handler took and no loop has taken over yet (`take_pending`)."""
_early_state = {"force": False, "taken": False}

EARLY_DEADLINE = 2.0
"""Seconds a signal the early handler took waits for a command's loop (or ``main``) to
take it; then it ends the process with ``KeyboardInterrupt`` wherever it is (a command
that never starts a loop: ``verify``, ``simulate``)."""
RETRY_IN_IMPORT = 0.02
"""Seconds after which a forced signal that came during an import is taken again."""


def _in_import(frame: Any) -> bool:
    """Whether ``frame`` runs inside an import (a module being executed)."""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


def _send_again(sig: int, after: float) -> None:
    """Send ``sig`` to ourselves after ``after`` seconds (a timer thread), unless it was
    taken meanwhile or the command is ending (the default action would kill it now)."""
    import threading

    def again() -> None:
        if _early_state["taken"] or signal.getsignal(sig) in (signal.SIG_DFL, signal.SIG_IGN, None):
            return
        _early_state["force"] = True
        os.kill(os.getpid(), sig)

    timer = threading.Timer(after, again)
    timer.daemon = True
    timer.start()


def _early_handler(sig: int, frame: Any) -> None:
    """SIGTERM / SIGHUP before a command's loop handles them: kept for the loop.

    Raising ``KeyboardInterrupt`` at any bytecode is not safe during the start: inside an
    import CPython may turn it into another exception (any exception in a class body's
    ``__set_name__``, as a dataclass field has, becomes a ``RuntimeError``: a traceback)
    or note an unhandled interrupt (a silent SIGINT at exit, status -2), and inside the
    event loop's construction it leaves a half-made loop (a traceback at exit). So the
    signal is kept: ``main`` takes it before it runs the command (`take_pending`), and
    `install_shutdown` as soon as the command's loop exists; the goodbye path then runs
    as for Ctrl-C. Not taken within :data:`EARLY_DEADLINE` seconds, it raises
    ``KeyboardInterrupt`` wherever the command is (outside an import)."""
    hangup = sig == getattr(signal, "SIGHUP", None)
    if hangup:
        _detach_terminal()
    if _early_state["force"]:
        if _in_import(frame):
            _send_again(sig, RETRY_IN_IMPORT)
            return
        _early_state["taken"] = True
        raise KeyboardInterrupt(f"signal {sig}")
    if _early_received:
        return  # the first one is still waiting to be taken (a closed terminal sends two)
    _early_received.append(sig)
    _send_again(sig, EARLY_DEADLINE)


def take_pending() -> int | None:
    """The signal the early handler kept for us, if any (it is ours from now on)."""
    if not _early_received:
        return None
    _early_state["taken"] = True
    sig = _early_received[0]
    _early_received.clear()
    return sig


def install_early(signals: Iterable[int] = SHUTDOWN_SIGNALS) -> dict[int, Any]:
    """From now on, SIGTERM and SIGHUP end the process as Ctrl-C would (``KeyboardInterrupt``
    in the main thread) instead of killing it, until :func:`install_shutdown` takes them
    over in a command's event loop. Call it first thing in the main thread; a signal whose
    disposition is "ignore" (``nohup``) is left ignored. Returns the handlers it replaced
    (for :func:`restore_early`); nothing is installed off the main thread."""
    before: dict[int, Any] = {}
    try:
        for sig in signals:
            old = signal.getsignal(sig)
            if old is signal.SIG_IGN:
                continue
            signal.signal(sig, _early_handler)
            before[sig] = old
    except ValueError:  # not the main thread
        pass
    _early_received.clear()
    _early_state.update(force=False, taken=False)
    return before


def ignore_shutdown_signals(signals: Iterable[int] = SHUTDOWN_SIGNALS) -> None:
    """The process is exiting (its goodbyes are done): SIGTERM and SIGHUP no longer
    matter; neither kills it on the spot nor interrupts its exit."""
    for sig in signals:
        with contextlib.suppress(Exception):
            signal.signal(sig, signal.SIG_IGN)


def restore_early(before: dict[int, Any]) -> None:
    """Put back the handlers :func:`install_early` replaced (a command run in-process, as
    the tests do, leaves its caller's signals as they were)."""
    for sig, old in before.items():
        with contextlib.suppress(Exception):
            signal.signal(sig, old if old is not None else signal.SIG_DFL)


@dataclass
class ShutdownHandle:
    """What :func:`install_shutdown` installed; :meth:`remove` restores the defaults."""

    loop: asyncio.AbstractEventLoop
    signals: tuple[int, ...]
    received: list[int] = field(default_factory=list)
    """The signals received so far, in order."""
    _via_loop: bool = True
    _before: dict[int, Any] = field(default_factory=dict)

    def remove(self) -> None:
        """Hand the signals back: to the early handler where :func:`install_early` had
        installed it (the process still ends as on Ctrl-C), else to their defaults."""
        for sig in self.signals:
            with contextlib.suppress(Exception):
                if self._via_loop:
                    self.loop.remove_signal_handler(sig)
                else:
                    signal.signal(sig, signal.SIG_DFL)
                if self._before.get(sig) is _early_handler:
                    signal.signal(sig, _early_handler)


def install_shutdown(
    loop: asyncio.AbstractEventLoop,
    stop: Callable[[], object] | None = None,
    signals: Iterable[int] = SHUTDOWN_SIGNALS,
) -> ShutdownHandle:
    """Handle ``signals`` (default SIGTERM and SIGHUP) like Ctrl-C, or by calling ``stop``.

    Must be called from the thread running ``loop`` (the main thread for signals).
    Returns a handle recording the signals received. Where the loop cannot install
    signal handlers (Windows), ``signal.signal`` is used with a thread-safe call into the
    loop.
    """
    action = stop or _interrupt
    handle = ShutdownHandle(loop, tuple(signals))
    for sig in handle.signals:
        with contextlib.suppress(Exception):
            handle._before[sig] = signal.getsignal(sig)

    def on_signal(sig: int) -> None:
        hangup = sig == getattr(signal, "SIGHUP", None)
        repeated = bool(handle.received)
        handle.received.append(sig)
        if hangup:
            _detach_terminal()
        if repeated and hangup:
            log.info("signal %s received again: already shutting down", sig)
            return
        log.info("signal %s received: shutting down", sig)
        try:
            action()
        except KeyboardInterrupt:
            raise
        except Exception as exc:  # noqa: BLE001 - the shutdown must go on
            log.error("shutdown callback failed: %s", type(exc).__name__)

    for sig in handle.signals:
        try:
            loop.add_signal_handler(sig, on_signal, sig)
        except (NotImplementedError, RuntimeError):
            handle._via_loop = False
            signal.signal(sig, lambda s, _f: loop.call_soon_threadsafe(on_signal, s))
    pending = take_pending()
    if pending is not None:  # it came before this loop existed: handled now, in the loop
        loop.call_soon(on_signal, pending)
    return handle
