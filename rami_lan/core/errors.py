"""The rules core's exception tree.

`RulesError` is the root. `MalformedAction` means an action or card text can not be
understood at all; `IllegalAction` means it is understood but not allowed now. Both
subclass `ValueError` so callers that only care about "bad input" can catch that.
"""

from __future__ import annotations

from rami_lan.core.reasons import ILLEGAL_NOBODY_TEMPLATE, ILLEGAL_TEMPLATE, Reason


class RulesError(ValueError):
    """Base class of every error raised by `rami_lan.core`."""


class MalformedAction(RulesError):
    """An action, a card text or an encoded value that can not be understood."""


class IllegalAction(RulesError):
    """A well-formed action that the rules forbid in the current state.

    The message names the seat, the phase and the reason, e.g.
    ``seat 2 (play): may not lay off before opening (needs 30 points)``. ``why`` is the
    reason as a coded `Reason` (``code`` and ``data`` are its own; a reason given as text
    has the code ``text``); ``reason`` is its English.
    """

    def __init__(self, seat: int | None, phase: str, reason: Reason | str) -> None:
        self.seat = seat
        self.phase = str(phase)  # a plain string, whatever the caller passed
        self.why = reason if isinstance(reason, Reason) else Reason.of_text(reason)
        self.code = self.why.code
        self.data = self.why.data
        self.reason = self.why.text()
        if seat is not None:
            super().__init__(ILLEGAL_TEMPLATE.format(seat=seat, phase=self.phase, reason=self.reason))
        else:
            super().__init__(ILLEGAL_NOBODY_TEMPLATE.format(phase=self.phase, reason=self.reason))
