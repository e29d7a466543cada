"""Bot seats: the policy interface the table machine asks, and its safety nets.

A bot is a policy object: ``choose(view, new_events)`` returns an action of its seat,
``wants_knock(view, new_events)`` answers the frapper window, ``think_delay`` (seconds, attribute or
method) is the pause before its move. The machine turns that pause into a deadline; it
never sleeps. `rami_lan.net.bot_client.BotClient` drives the same interface over a
network session.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from rami_lan.bots import make_bot
from rami_lan.core import actions as A
from rami_lan.core.events import Event
from rami_lan.core.shadow import legal_actions_for_view
from rami_lan.core.views import SeatView

__all__ = ["Policy", "fallback_action", "make_policy", "reads_events", "think_delay"]


class Policy(Protocol):
    """What a bot offers: ``choose`` an action from its view, decide to knock."""

    def choose(self, view: SeatView, new_events: Sequence[Event]) -> A.Action: ...

    def wants_knock(self, view: SeatView, new_events: Sequence[Event] = ()) -> bool: ...


def make_policy(level: str, seat: int, seed: int = 0) -> Policy:
    """The project's bot of ``level`` for ``seat`` (`rami_lan.bots.make_bot`)."""
    return make_bot(level, seat, seed)


def think_delay(policy: Any) -> float:
    """A policy's pause before acting, in seconds (attribute or method; default 0.5)."""
    delay = getattr(policy, "think_delay", 0.5)
    if callable(delay):
        delay = delay()
    try:
        return max(0.0, float(delay))
    except (TypeError, ValueError):
        return 0.5


def reads_events(policy: Any) -> bool:
    """Does the policy look at the events it is given? Only a policy that says
    ``reads_events = False`` (the project's bots that ignore them) gets none, so the
    table need not redact events for it."""
    return getattr(policy, "reads_events", True) is not False


def fallback_action(view: SeatView) -> A.Action | None:
    """Some legal action of the viewing seat, preferring a draw or a discard."""
    acts = list(legal_actions_for_view(view))
    for kind in (A.DrawStock, A.DrawDiscard, A.Discard):
        for a in acts:
            if isinstance(a, kind):
                return a
    acts = [a for a in acts if not isinstance(a, A.Knock)]
    return acts[0] if acts else None
