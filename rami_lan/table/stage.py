"""The stages of a table (`rami_lan.table.machine.TableMachine.stage`) and their one
transition table.

The table is in exactly one `Stage`. It moves only by a `Step` (what happened), through
`TRANSITIONS`: a dict of (stage, step) -> next stage, as h11's ``_state.py`` does it.
`next_stage` refuses a step the table does not allow in its stage with an
`IllegalTransition` naming both and what the stage allows (a bug of the table's own,
never a player's doing: a player's message out of place is refused before any step).

    waiting -> commit -> reveal -> (shuffle ->) playing -> between -> commit ...
                                                     \\-> over
    private dealing: between -> audit -> commit (the next round waits for the last
    round's audit), playing/between -> last_audit -> over (the match's last audit);
    a resumed host: waiting -> resuming (-> between) / resuming_round (-> commit) /
    resuming_void (-> commit, audit, over) / resuming_deal (-> shuffle, playing) / reveal
    / playing.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["RESUMING_STAGES", "TRANSITIONS", "IllegalTransition", "Stage", "Step", "next_stage"]


class Stage(StrEnum):
    WAITING = "waiting"
    """Seating: the match has not started."""
    COMMIT = "commit"
    """The round's commitments are awaited (fair shuffle, spec steps 1-2)."""
    REVEAL = "reveal"
    """The round's secrets are awaited (spec step 3)."""
    SHUFFLE = "shuffle"
    """Private dealing: the masked deck is being shuffled and dealt."""
    PLAYING = "playing"
    BETWEEN = "between"
    """Between rounds: the players' "continue"/"leave" answers are awaited."""
    AUDIT = "audit"
    """Private dealing: the answers are in; the next round is set up once the last
    round's audit is in (or its deadline passed)."""
    RESUMING = "resuming"
    """A restarted host waits for its players to come back (``resume_grace``), then goes
    on between rounds."""
    RESUMING_ROUND = "resuming_round"
    """A restarted host waits for its players, then asks the round it crashed in the
    setup of again (the same tag and host secret: no commitment list went out)."""
    RESUMING_VOID = "resuming_void"
    """A restarted host waits for its players, then deals on: the private round it
    crashed in is void (it has no result to look at)."""
    RESUMING_DEAL = "resuming_deal"
    """A restarted host's round has its seed; its masked deck is shuffled by the players'
    own machines once they are back (``resume_grace``)."""
    OVER = "over"
    LAST_AUDIT = "last_audit"
    """Private dealing: the match is over; the table closes once its last round's audit
    is in (or its deadline passed)."""
    STOPPED = "stopped"


class Step(StrEnum):
    """What moves the table from one stage to the next."""

    SETUP = "setup"
    """A round's commit-reveal begins."""
    REVEALS = "reveals"
    """The commitment list is out: the secrets are awaited."""
    SHUFFLE = "shuffle"
    """The seed is known; the round is dealt from a masked deck being shuffled."""
    DEAL = "deal"
    """The round is dealt: play begins."""
    ROUND_END = "round_end"
    """A round is over: the between-rounds answers are awaited."""
    AWAIT_AUDIT = "await_audit"
    """The next round is due, but the last round's audit is not in."""
    AUDIT_IN = "audit_in"
    """The last round's audit is in (or closed at its deadline): the match ends."""
    END = "end"
    """The match is over."""
    END_AWAIT_AUDIT = "end_await_audit"
    """The match is over, its last round's audit not in."""
    HALT = "halt"
    """No more rounds (self-play's cap)."""
    STOP = "stop"
    """The table is closed."""
    RESUME_PLAY = "resume_play"
    """A restarted host goes on with the round being played."""
    RESUME_WAIT = "resume_wait"
    """A restarted host waits for its players (between rounds)."""
    RESUME_ROUND = "resume_round"
    """A restarted host waits for its players, then asks its round again."""
    RESUME_VOID = "resume_void"
    """A restarted host waits for its players, its private round void."""
    RESUME_DEAL = "resume_deal"
    """A restarted host's round is dealt again once its players are back."""


S, G = Stage, Step

RESUMING_STAGES = frozenset({S.RESUMING, S.RESUMING_ROUND, S.RESUMING_VOID, S.RESUMING_DEAL})
"""A restarted host waits for its players (``resume_grace``) in these, then goes on."""

_NEXT_ROUND = {G.SETUP: S.COMMIT, G.AWAIT_AUDIT: S.AUDIT, G.END: S.OVER,
               G.END_AWAIT_AUDIT: S.LAST_AUDIT, G.HALT: S.STOPPED}
"""The steps of `TableMachine._next_round_or_end`: a round set up, or the match over."""
_DEALT = {G.DEAL: S.PLAYING, G.SHUFFLE: S.SHUFFLE}

_BY_STAGE: dict[Stage, dict[Step, Stage]] = {
    S.WAITING: {G.SETUP: S.COMMIT, G.END: S.OVER, G.END_AWAIT_AUDIT: S.LAST_AUDIT,
                G.RESUME_PLAY: S.PLAYING, G.RESUME_WAIT: S.RESUMING,
                G.RESUME_ROUND: S.RESUMING_ROUND, G.RESUME_VOID: S.RESUMING_VOID,
                G.RESUME_DEAL: S.RESUMING_DEAL, G.REVEALS: S.REVEAL, **_DEALT},
    S.COMMIT: {G.REVEALS: S.REVEAL, **_DEALT},
    S.REVEAL: dict(_DEALT),
    S.SHUFFLE: {G.DEAL: S.PLAYING},
    S.PLAYING: {G.ROUND_END: S.BETWEEN, **_NEXT_ROUND},
    S.BETWEEN: dict(_NEXT_ROUND),
    S.AUDIT: {G.SETUP: S.COMMIT, G.END: S.OVER, G.END_AWAIT_AUDIT: S.LAST_AUDIT},
    S.RESUMING: {G.ROUND_END: S.BETWEEN},
    S.RESUMING_ROUND: {G.SETUP: S.COMMIT},
    S.RESUMING_VOID: dict(_NEXT_ROUND),
    S.RESUMING_DEAL: dict(_DEALT),
    S.OVER: {},
    S.LAST_AUDIT: {G.AUDIT_IN: S.OVER},
    S.STOPPED: {},
}
for _steps in _BY_STAGE.values():
    _steps[G.STOP] = S.STOPPED  # a table can be closed at any time
_BY_STAGE[S.STOPPED].clear()

TRANSITIONS: dict[tuple[Stage, Step], Stage] = {
    (stage, step): to for stage, steps in _BY_STAGE.items() for step, to in steps.items()}
"""(stage, step) -> the next stage: every move the table may make, and no other."""


class IllegalTransition(RuntimeError):
    """The table tried a step its stage does not allow (a bug of its own)."""

    def __init__(self, stage: Stage, step: Step) -> None:
        allowed = sorted(s.value for (st, s) in TRANSITIONS if st is stage)
        super().__init__(f"the table can not take step {step.value!r} in stage {stage.value!r} "
                         f"(allowed there: {', '.join(allowed) or 'none'})")
        self.stage = stage
        self.step = step


def next_stage(stage: Stage, step: Step) -> Stage:
    """The stage after ``step`` in ``stage``; `IllegalTransition` if it is not allowed."""
    try:
        return TRANSITIONS[(stage, step)]
    except KeyError:
        raise IllegalTransition(stage, step) from None
