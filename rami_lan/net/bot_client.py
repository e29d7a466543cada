"""`BotClient`: a bot playing one remote seat, on the table machine's policy interface.

The policy is the same object the table machine asks for its own bot seats
(`rami_lan.table.policy`: ``choose``, ``wants_knock``, ``think_delay``);
`BotClient` drives a `TableSession` with it (``rami-lan join --bot LEVEL`` and the
end-to-end tests) and says ``bot`` in its hello, so the host records it as a bot.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any

from rami_lan.core import actions as A
from rami_lan.core.events import Event, MatchEnded, RoundEnded
from rami_lan.core.views import SeatView
from rami_lan.ids import BOT_LEVELS
from rami_lan.table.policy import Policy, fallback_action, make_policy, think_delay

log = logging.getLogger(__name__)

__all__ = ["LEVELS", "BotClient", "BotSummary", "Policy", "fallback_action", "make_policy",
           "think_delay"]

LEVELS = BOT_LEVELS


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
            if view.my_turn and any(c is None for c in view.hand):
                # Private dealing: a card of our hand we can not unmask (our keys were lost
                # with a crashed process): no move can be chosen from this view; the table's
                # deadline plays the seat.
                log.warning("a view whose hand holds cards we do not know: not playing it")
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
                    knock = self.policy.wants_knock(view, tuple(pending))
                except Exception:
                    knock = False
                pending = []  # each event is given to the bot once
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
