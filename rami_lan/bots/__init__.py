"""Bots at three levels: ``debutant``, ``moyen``, ``expert``.

A bot sees only its seat's `SeatView` and the events redacted for that seat.
`make_bot(level, seat, seed)` builds one; `Bot.choose(view, new_events)` returns a
legal action; `Bot.wants_knock(view)` answers the frapper window; `Bot.think_delay` is
the pause a live host should await before applying the action (0 by default).
"""

from __future__ import annotations

from rami_lan.bots.base import Bot
from rami_lan.bots.debutant import Debutant
from rami_lan.bots.expert import Expert
from rami_lan.bots.moyen import Moyen

LEVELS: dict[str, type[Bot]] = {"debutant": Debutant, "moyen": Moyen, "expert": Expert}


def make_bot(level: str, seat: int, seed: int = 0, think_delay: float = 0.0) -> Bot:
    """A bot of ``level`` (``debutant``, ``moyen`` or ``expert``) for ``seat``."""
    try:
        cls = LEVELS[level]
    except KeyError:
        raise ValueError(f"unknown bot level {level!r}; known: {', '.join(LEVELS)}") from None
    return cls(seat, seed, think_delay)


__all__ = ["LEVELS", "Bot", "Debutant", "Expert", "Moyen", "make_bot"]
