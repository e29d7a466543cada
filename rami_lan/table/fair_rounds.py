"""A round's commit-reveal at the table (FAIR_SHUFFLE.md spec steps 1-3).

`TableMachine` calls these for each round: `setup_round` (one tag, one commitment set,
a ``commit_request`` to each remote human), `commit` and `close_commits` (the list goes
out), `reveal` and `close_reveals` (then the machine's `_deal`), the exclusions
announced with their reasons (`announce_exclusions`), and `take_up_round` (a restarted
host's round whose commitments were out). The table's duties (`round_tag_for`,
`seats_to_commit`, `host_secret_for`, ...) stay methods of the machine: a test overrides
one to build a cheating table.
"""

from __future__ import annotations

import contextlib
from typing import Any

from rami_lan.table.fairround import RoundCtx, pairs
from rami_lan.table.shuffle import CommitmentRound, Phase, RevealOutcome
from rami_lan.table.stage import Stage, Step
from rami_lan.wire import messages as W

__all__ = ["announce_exclusions", "close_commits", "close_reveals", "commit", "commitments_msg",
           "exclusion_codes", "reveal", "secrets_msg", "setup_round", "take_up_round"]

TableMachine = Any
"""A `rami_lan.table.machine.TableMachine` (not imported: the machine imports this)."""



def exclusion_codes(ctx: RoundCtx) -> dict[int, str]:
    """Excluded seat -> reason code (``bad_reveal``, ``no_reveal``), for the verifiers."""
    return {s: why.name.lower() for s, why in sorted(ctx.commit.excluded.items())}


def setup_round(t: TableMachine, now: float) -> None:
    """Commit-reveal with the seated remote clients (spec steps 1-2)."""
    m = t.match
    t._resume_void = None
    tag = t.round_tag_for(m.round_no + 1)
    if tag in t._tags_used:
        raise RuntimeError(f"round tag {tag.hex()} used twice")  # our own bug
    t._tags_used.add(tag)
    remote = t.seats_to_commit(m.next_players())
    host_secret = t.host_secret_for(tag)
    t._journal("round", {"tag": tag, "step": "host_secret", "secret": host_secret})
    ctx = RoundCtx(tag, CommitmentRound(tag, t.host_seat, host_secret, remote), remote,
                   host_secret)
    t._round = ctx
    t._go(Step.SETUP)
    for s in remote:
        conn = t.seats[s].conn
        if conn is not None:
            t._send(conn, W.CommitRequest(round_tag=tag, seat=s))
    if ctx.commit.missing_commits:
        t._stage_deadline = now + t.config.commit_timeout
    else:
        close_commits(t, now)


def commit(t: TableMachine, conn: int, tag: bytes, commitment: bytes, now: float) -> None:
    seat = t.conns.get(conn)
    ctx = t._round
    if seat is None:
        return
    if (ctx is None or ctx.tag != tag or t.stage is not Stage.COMMIT
            or ctx.commit.phase is not Phase.COMMIT):
        t._error(conn, "unexpected", "no commitment is expected")
        return
    try:
        ctx.commit.add_commit(seat, commitment)
    except (ValueError, RuntimeError) as exc:
        t._error(conn, "unexpected", str(exc))
        return
    if not ctx.commit.missing_commits:
        close_commits(t, now)


def close_commits(t: TableMachine, now: float) -> None:
    """Spec step 2: the commitment list goes out (seats that did not commit: absent)."""
    ctx = t._round
    assert ctx is not None
    commits = ctx.commit.commitment_list(drop_missing=True)
    ctx.commits_sent = True
    t._journal("round", {"tag": ctx.tag, "step": "commits", "commits": pairs(commits)})
    t._to_seated(W.Commitments(round_tag=ctx.tag, commits=commits))
    t._announce_exclusions(ctx)
    if ctx.commit.phase is Phase.REVEAL:
        t._go(Step.REVEALS)
        t._stage_deadline = now + t.config.reveal_timeout
    else:
        t._deal(now)


def reveal(t: TableMachine, conn: int, tag: bytes, secret: bytes, now: float) -> None:
    seat = t.conns.get(conn)
    ctx = t._round
    if seat is None:
        return
    if (ctx is None or ctx.tag != tag or t.stage is not Stage.REVEAL
            or ctx.commit.phase is not Phase.REVEAL):
        t._error(conn, "unexpected", "no reveal is expected")
        return
    try:
        outcome = ctx.add_reveal(seat, secret)
    except (ValueError, RuntimeError) as exc:
        t._error(conn, "unexpected", str(exc))
        return
    t._journal("round", {"tag": ctx.tag, "step": "reveal", "seat": seat, "secret": secret})
    if outcome is RevealOutcome.MISMATCH:
        text = f"seat {seat} revealed a secret that does not match its commitment"
        for c, s in t.conns.items():
            if s is not None:
                t._error(c, "reveal_mismatch", text)
        t._announce_exclusions(ctx)
    if ctx.commit.phase is Phase.COMPLETE:
        t._stage_deadline = None
        t._deal(now)


def close_reveals(t: TableMachine, now: float) -> None:
    ctx = t._round
    assert ctx is not None
    if ctx.commit.phase is Phase.REVEAL:
        ctx.commit.close_reveals()
    t._deal(now)


def announce_exclusions(t: TableMachine, ctx: RoundCtx) -> None:
    """Every seat left out of the round's seed is announced to all, with the reason."""
    fresh = False
    codes = {s: "no_commit" for s in ctx.commit.absent} | exclusion_codes(ctx)
    for seat, why in sorted(ctx.exclusions().items()):
        if seat in ctx.announced:
            continue
        ctx.announced.add(seat)
        fresh = fresh or seat in ctx.commit.excluded
        t._notice(f"seat {seat + 1} is left out of this round's shuffle: {why}",
                     "left_out_of_shuffle", seat=seat, reason=codes.get(seat, "no_commit"))
    if fresh:  # the verifiers' structured announcement: the same list, with the reasons
        t._to_seated(commitments_msg(ctx))


def commitments_msg(ctx: RoundCtx) -> W.Commitments:
    """``commitments``, with ``excluded`` (seat -> reason code) once seats are excluded."""
    return W.Commitments(round_tag=ctx.tag, commits=ctx.commitments(),
                         excluded=exclusion_codes(ctx) if ctx.commit.excluded else None)


def secrets_msg(ctx: RoundCtx) -> W.RoundSecrets:
    return W.RoundSecrets(round_tag=ctx.tag, secrets=ctx.secrets(), excluded=ctx.excluded(),
                          reasons=exclusion_codes(ctx) if ctx.commit.excluded else None)


def take_up_round(t: TableMachine, nxt: dict[str, Any], now: float) -> None:
    """Crashed in the reveal phase: the published commitments stand; wait for reveals."""
    tag = nxt["tag"]
    commits: dict[int, bytes] = nxt["commits"]
    remote = tuple(s for s in sorted(commits) if s != t.host_seat)
    commit = CommitmentRound(tag, t.host_seat, nxt["secret"], remote)
    for s in remote:
        commit.add_commit(s, commits[s])
    ctx = RoundCtx(tag, commit, remote, nxt["secret"])
    commit.commitment_list(drop_missing=True)
    ctx.commits_sent = True
    for s, secret in nxt["reveals"].items():
        with contextlib.suppress(ValueError, RuntimeError):
            ctx.add_reveal(s, secret)
    t._round = ctx
    t._tags_used.add(tag)
    if commit.phase is Phase.REVEAL:
        t._go(Step.REVEALS)
        t._stage_deadline = now + t.config.reveal_timeout
    elif t.config.private_deal:
        # The masked deck is shuffled by the players' own machines: they come back
        # first (a shuffle cut by the crash starts again, with a new ``mk_round``).
        t._go(Step.RESUME_DEAL)
        t._stage_deadline = now + t.config.resume_grace
    else:
        t._deal(now)
