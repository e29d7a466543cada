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


SETTINGS_TEMPLATES: dict[str, str] = {
    "seats_range": "a table has 2 to 4 seats",
    "bot_seat": "bot seat {seat} is not a seat of this table",
    "bot_level": "bot level must be one of {levels}, not '{level}'",
    "timer_negative": "the timer is a number of seconds, 0 for none",
    "who_may_sit": "who may sit must be one of {choices}, not '{who}'",
    "code_needs_code": "a 'code only' table needs a join code",
    "code_not_anyone": "a table with a join code is 'code only' (or 'invited only')",
    "all_bots": "every seat is a bot: no seat left for the host's player",
    "limit_choice": "{variant}: the point limit is one of {limits}, not {limit}",
    "target_range": "{variant}: the target must be between 50 and 100000, not {limit}",
    "limit_fixed": "{variant}: the match is played to {limit}",
    "no_quick": "{variant} has no quick match",
    "no_knock": "{variant} is played without frapper",
}
"""The English of each `SettingsError` code (the layers above word the code and data in
the player's language and never read this English back)."""


class SettingsError(ValueError):
    """Table settings or match options the rules can not play (a 5-seat table, a limit
    the variant does not have...): a ``code`` of `SETTINGS_TEMPLATES` and its ``data``;
    ``str()`` is the English."""

    def __init__(self, code: str, **data: str | int) -> None:
        self.code = code
        self.data = dict(data)
        super().__init__(SETTINGS_TEMPLATES[code].format(**data))
