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
statement: from then until a loop takes the signals over, SIGTERM or SIGHUP raises
``KeyboardInterrupt`` at once, exactly as Ctrl-C there would (nothing is announced on
the LAN yet, so there is nothing to say goodbye to; the command exits 130), and a
repeated SIGHUP is ignored. :meth:`ShutdownHandle.remove` puts the early handler back.
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
           "install_shutdown", "restore_early"]

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
"""The signals the early handler took (in order), since :func:`install_early`."""


def _early_handler(sig: int, _frame: Any) -> None:
    """SIGTERM / SIGHUP before a command's loop handles them: the Ctrl-C path."""
    hangup = sig == getattr(signal, "SIGHUP", None)
    repeated = bool(_early_received)
    _early_received.append(sig)
    if hangup:
        _detach_terminal()
        if repeated:  # the kernel's, then the shell's: the first one is being handled
            return
    raise KeyboardInterrupt(f"signal {sig}")


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
        repeated = bool(handle.received) or (hangup and bool(_early_received))
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
    return handle
