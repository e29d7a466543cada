"""Bot policies for the network layer, and `BotClient`: a bot playing one remote seat.

`make_policy(level, seat, seed)` returns the project's bot (``rami_lan.bots.make_bot``)
when that package is installed, and otherwise `FallbackBot`, a simple legal player built
only on the seat's view (``rami_lan.core.shadow.legal_actions_for_view``). The host uses
it for bot seats and for dropped players; `BotClient` drives a `TableSession` with it
(``rami-lan join --bot LEVEL`` and the end-to-end tests).
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from rami_lan.core import actions as A
from rami_lan.core.events import Event, MatchEnded, RoundEnded
from rami_lan.core.melds import hand_points
from rami_lan.core.shadow import legal_actions_for_view
from rami_lan.core.variants import get_variant
from rami_lan.core.views import SeatView

log = logging.getLogger(__name__)

LEVELS = ("debutant", "moyen", "expert")


class Policy(Protocol):
    """What a bot offers: ``choose`` an action from its view, decide to knock."""

    def choose(self, view: SeatView, new_events: Sequence[Event]) -> A.Action: ...

    def wants_knock(self, view: SeatView) -> bool: ...


class FallbackBot:
    """A plain legal player: lays what it can, draws from the stock, sheds high cards.

    Used only while ``rami_lan.bots`` is not available. It sees nothing but its view.
    """

    def __init__(self, seat: int, seed: int = 0, knock_rate: float = 0.3) -> None:
        self.seat = seat
        self.think_delay = 0.0
        self._rng = random.Random(seed)
        self._knock_rate = knock_rate

    def choose(self, view: SeatView, new_events: Sequence[Event] = ()) -> A.Action:
        acts = list(legal_actions_for_view(view))
        if not acts:
            return A.Timeout(self.seat)  # refused by the host: it then plays the timeout
        for kind in (A.LayDown, A.LayOff, A.RecoverJoker):
            for a in acts:
                if isinstance(a, kind):
                    return a
        for a in acts:
            if isinstance(a, A.DrawStock):
                return a
        discards = [a for a in acts if isinstance(a, A.Discard)]
        if discards:
            v = get_variant(view.variant)
            return max(
                discards,
                key=lambda a: (not a.card.is_joker, hand_points(v, a.card), a.card.sort_key()),
            )
        non_knock = [a for a in acts if not isinstance(a, A.Knock)]
        return (non_knock or acts)[0]

    def wants_knock(self, view: SeatView) -> bool:
        return view.can_knock and self._rng.random() < self._knock_rate


def make_policy(level: str, seat: int, seed: int = 0) -> Any:
    """The project's bot of ``level`` for ``seat``, or `FallbackBot` if bots are missing."""
    try:
        from rami_lan.bots import make_bot  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return FallbackBot(seat, seed)
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


def fallback_action(view: SeatView) -> A.Action | None:
    """Some legal action of the viewing seat, preferring a draw or a discard."""
    acts = list(legal_actions_for_view(view))
    for kind in (A.DrawStock, A.DrawDiscard, A.Discard):
        for a in acts:
            if isinstance(a, kind):
                return a
    acts = [a for a in acts if not isinstance(a, A.Knock)]
    return acts[0] if acts else None


@dataclass
class BotSummary:
    """How a network bot's match went."""

    seat: int
    rounds: int = 0
    actions: int = 0
    errors: int = 0
    winner: int | None = None
    totals: dict[int, int] = field(default_factory=dict)
    fairness: list[tuple[bool, str]] = field(default_factory=list)
    finished: bool = False

    @property
    def fair(self) -> bool:
        return all(ok for ok, _ in self.fairness)


class BotClient:
    """Plays one seat of a `TableSession` with a policy until the match ends.

    ``delay`` overrides the policy's think delay (0 in tests).
    """

    def __init__(self, session: Any, policy: Any = None, *, level: str = "moyen",
                 seed: int = 0, delay: float | None = None) -> None:
        self.session = session
        self.level = level
        self._policy = policy
        self._seed = seed
        self._delay = delay
        self.summary = BotSummary(seat=-1)

    @property
    def policy(self) -> Any:
        if self._policy is None:
            self._policy = make_policy(self.level, self.session.seat, self._seed)
        return self._policy

    async def run(self) -> BotSummary:
        """Answer every update until the match is over or the session closes."""
        s = self.session
        self.summary.seat = s.seat
        pending: list[Event] = []
        view: SeatView | None = None
        view_id = 0
        answered_between = -1
        acted_on = -1  # the view we last acted on
        retries = 0
        retry = False
        async for up in s.updates():
            pending.extend(up.events)
            for ev in up.events:
                if isinstance(ev, RoundEnded):
                    self.summary.rounds += 1
                if isinstance(ev, MatchEnded):
                    self.summary.winner = ev.winner
                    self.summary.totals = dict(ev.totals)
            if up.fairness is not None:
                self.summary.fairness.append(up.fairness)
            if up.error is not None:
                self.summary.errors += 1
                log.debug("seat %s: refused: %s", s.seat, up.error)
                retry = acted_on == view_id
            if up.view is not None:
                view = up.view
                view_id += 1
                retries = 0
            if view is None:
                continue
            if view.match_over:
                if self._fairness_done(view):
                    self.summary.finished = True
                    break
                continue
            if view.phase == "between" and answered_between != view.round_no:
                answered_between = view.round_no
                await s.next_round("continue")
                continue
            if view.my_turn and (acted_on != view_id or (retry and retries < 3)):
                if acted_on == view_id:  # our action on this very view was refused
                    retries += 1
                    action = fallback_action(view) if retries < 3 else A.Timeout(s.seat)
                else:
                    await self._pause()
                    try:
                        action = self.policy.choose(view, tuple(pending))
                    except Exception:
                        log.exception("bot policy failed; playing a fallback action")
                        action = fallback_action(view)
                pending = []
                retry = False
                acted_on = view_id
                if action is not None and not isinstance(action, A.Timeout):
                    self.summary.actions += 1
                    await s.act(action)
            elif view.can_knock and not view.my_turn and acted_on != view_id:
                acted_on = view_id
                retry = False
                try:
                    knock = self.policy.wants_knock(view)
                except Exception:
                    knock = False
                if knock:
                    self.summary.actions += 1
                    await s.act(A.Knock(s.seat))
        return self.summary

    def _fairness_done(self, view: SeatView) -> bool:
        # The round's secrets follow the last events; wait for the check when we got them.
        return len(self.summary.fairness) >= self.summary.rounds or not getattr(
            self.session, "connected", True
        )

    async def _pause(self) -> None:
        delay = think_delay(self.policy) if self._delay is None else self._delay
        if delay > 0:
            await asyncio.sleep(delay)
