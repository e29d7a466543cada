"""A restarted host goes on (`TableMachine.resumed`, after `TableMachine.restore`).

In a round being played it goes on at once (a private round's players have
``masked_wait`` to come back); a round whose commitments were out is taken up
(`fair_rounds.take_up_round`); else the table waits ``resume_grace`` for its players
(stage ``resuming``), then goes on between rounds, or asks the round again.
"""

from __future__ import annotations

from typing import Any

from rami_lan.table import fair_rounds
from rami_lan.table.stage import RESUMING_STAGES, Stage, Step

__all__ = ["after_resume", "check_resume_grace", "resumed"]

TableMachine = Any
"""A `rami_lan.table.machine.TableMachine` (not imported: the machine imports this)."""


def resumed(t: TableMachine, now: float) -> None:
    """Go on after `restore`, at the point the match was (call once, when listening)."""
    t._start_requested = True
    t._changed_at = now
    t._turn_key = None
    t._note_turn(now)
    ctx = t._round
    if t.match.phase in ("draw", "play"):
        t._go(Step.RESUME_PLAY)
        t.dealing.resumed(now)
        return
    if ctx is not None and ctx.started and not ctx.finished:
        # The round ended just before the crash, or (private dealing) it was being
        # played and the journal could not make its masked deck again: it is void.
        t._finish_round(ctx, now, abandoned=t._resume_void is not None, go_on=False)
    nxt, t._resume_next = t._resume_next, None
    if t.match.over:
        t._end_match(now)
    elif nxt is not None and nxt["commits"] is not None:
        fair_rounds.take_up_round(t, nxt, now)
    else:
        if nxt is not None:
            # Crashed before the commitment list went out: the same tag and host
            # secret, asked again (no commitment set was ever published for that tag).
            t._resume_secret = (nxt["tag"], nxt["secret"])
            t._go(Step.RESUME_ROUND)
        elif t._resume_void is not None:
            t._go(Step.RESUME_VOID)
        else:
            t._go(Step.RESUME_WAIT)
        # Give the players a moment to come back first, so their secrets count.
        t._stage_deadline = now + t.config.resume_grace


def after_resume(t: TableMachine, now: float) -> None:
    """The players are back, or ``resume_grace`` is over: go on, as the stage says."""
    t._stage_deadline = None
    if t.stage is Stage.RESUMING_DEAL:
        t._deal(now)
    elif t.stage is Stage.RESUMING_ROUND:
        t._setup_round(now)
    elif t.stage is Stage.RESUMING_VOID:
        t._next_round_or_end(now)  # a void round has no result to look at: deal on
    else:
        t._enter_between(now)


def check_resume_grace(t: TableMachine, now: float) -> None:
    if t.stage in RESUMING_STAGES and not any(
            st.kind == "human" and st.conn is None and not st.left
            and st.seat != t.owner_seat for st in t.seats.values()):
        after_resume(t, now)
