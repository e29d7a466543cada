"""What a seat's verifier reports: a round's `Status`, each `Finding` and a round's `RoundFairness`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

# --------------------------------------------------------------------------- outputs


class Status(StrEnum):
    """Fairness state of one round."""

    PENDING = "pending"
    CHECKED = "checked"
    PARTIAL = "partial"
    UNCHECKED = "unchecked"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class Finding:
    """One disagreement between what the host sent and what the rules and the spec give.

    ``code`` is a stable short name (tests, evidence), ``reason`` an English sentence,
    ``expected``/``seen`` the derived and the host's values when they are simple.
    """

    round_no: int | None
    code: str
    reason: str
    expected: Any = None
    seen: Any = None

    def text(self) -> str:
        where = f"round {self.round_no}: " if self.round_no is not None else ""
        return where + self.reason


@dataclass(frozen=True, slots=True)
class RoundFairness:
    """The fairness state of one round, for the UI, the bot summary and the evidence."""

    round_no: int
    tag: bytes
    status: Status
    reason: str = ""
    cards_checked: int = 0
    events_checked: int = 0
    findings: tuple[Finding, ...] = ()
    excluded: tuple[tuple[int, str], ...] = ()
    """Seats whose secret the host announced it would not use, with the reason code."""
    void: tuple[int | None, str] | None = None
    """A void round: the seat it names and the event's reason code (``player_gone``: it
    left; ``no_answer``: it missed a deadline), else None."""
    withheld: tuple[int, ...] = ()
    """Participants that withheld their masked-deck audit: the round's deck order can not
    be recomputed, so its cards are not checked (their fault, neither the host's nor ours)."""

    @property
    def ok(self) -> bool:
        return self.status is Status.CHECKED
