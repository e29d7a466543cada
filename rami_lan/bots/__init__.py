"""Bots at three levels offered to players: ``debutant``, ``moyen``, ``expert``.

A bot sees only its seat's `SeatView` and the events redacted for that seat.
`make_bot(level, seat, seed)` builds one; `Bot.choose(view, new_events)` returns a
legal action; `Bot.wants_knock(view, new_events=())` answers the frapper window;
`Bot.think_delay` is the pause a live host should await before applying the action
(0 by default). The interface is documented in docs/bots.md ("Writing a bot").

`MEASURE_LEVELS` are not offered in the UI: ``expert_v1``, ``expert_v2`` and ``expert_v3``
(the first, second and third experts, kept to measure the new one against) and
``conceal`` (a reference opponent that hides its melds until it can go out in one
turn). `make_bot` builds those too. The experts and ``conceal`` share their base,
`ExpertBase` (`rami_lan.bots.expert_base`: the first expert's play, which ``expert_v1``
keeps frozen under its level name).
"""

from __future__ import annotations

from rami_lan.bots.base import Bot
from rami_lan.bots.conceal import Conceal
from rami_lan.bots.debutant import Debutant
from rami_lan.bots.expert import Expert
from rami_lan.bots.expert_base import ExpertBase
from rami_lan.bots.expert_v1 import ExpertV1
from rami_lan.bots.expert_v2 import ExpertV2
from rami_lan.bots.expert_v3 import ExpertV3
from rami_lan.bots.moyen import Moyen

LEVELS: dict[str, type[Bot]] = {"debutant": Debutant, "moyen": Moyen, "expert": Expert}
"""The levels offered to players (UI, host, solo)."""

MEASURE_LEVELS: dict[str, type[Bot]] = {
    "expert_v1": ExpertV1, "expert_v2": ExpertV2, "expert_v3": ExpertV3, "conceal": Conceal,
}
"""Levels kept for measurement only (`rami-lan simulate`), not offered in the UI."""

ALL_LEVELS: dict[str, type[Bot]] = {**LEVELS, **MEASURE_LEVELS}


def make_bot(level: str, seat: int, seed: int = 0, think_delay: float = 0.0) -> Bot:
    """A bot of ``level`` (see `ALL_LEVELS`) for ``seat``."""
    try:
        cls = ALL_LEVELS[level]
    except KeyError:
        raise ValueError(f"unknown bot level {level!r}; known: {', '.join(ALL_LEVELS)}") from None
    return cls(seat, seed, think_delay)


__all__ = [
    "ALL_LEVELS",
    "LEVELS",
    "MEASURE_LEVELS",
    "Bot",
    "Conceal",
    "Debutant",
    "Expert",
    "ExpertBase",
    "ExpertV1",
    "ExpertV2",
    "ExpertV3",
    "Moyen",
    "make_bot",
]
