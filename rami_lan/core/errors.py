"""The rules core's exception tree.

`RulesError` is the root. `MalformedAction` means an action or card text can not be
understood at all; `IllegalAction` means it is understood but not allowed now. Both
subclass `ValueError` so callers that only care about "bad input" can catch that.
"""

from __future__ import annotations


class RulesError(ValueError):
    """Base class of every error raised by `rami_lan.core`."""


class MalformedAction(RulesError):
    """An action, a card text or an encoded value that can not be understood."""


class IllegalAction(RulesError):
    """A well-formed action that the rules forbid in the current state.

    The message names the seat, the phase and the reason, e.g.
    ``seat 2 may not lay off before opening (needs 30 points)``.
    """

    def __init__(self, seat: int | None, phase: str, reason: str) -> None:
        self.seat = seat
        self.phase = str(phase)  # a plain string, whatever the caller passed
        self.reason = reason
        who = f"seat {seat}" if seat is not None else "nobody"
        super().__init__(f"{who} ({self.phase}): {reason}")
