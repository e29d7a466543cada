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
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

__all__ = ["SHUTDOWN_SIGNALS", "ShutdownHandle", "install_shutdown"]

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


@dataclass
class ShutdownHandle:
    """What :func:`install_shutdown` installed; :meth:`remove` restores the defaults."""

    loop: asyncio.AbstractEventLoop
    signals: tuple[int, ...]
    received: list[int] = field(default_factory=list)
    """The signals received so far, in order."""
    _via_loop: bool = True

    def remove(self) -> None:
        for sig in self.signals:
            with contextlib.suppress(Exception):
                if self._via_loop:
                    self.loop.remove_signal_handler(sig)
                else:
                    signal.signal(sig, signal.SIG_DFL)


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
    return handle
