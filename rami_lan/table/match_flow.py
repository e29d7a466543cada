"""The course of a match at the host's table machine: its beginning (empty human seats
get bots, the record and the journal open), each round dealt from its seed, each
round's end (every secret out, the record), the between-rounds answers, then the next
round or the match's end, and the last round's audit coming in.

Functions taking the `rami_lan.table.machine.TableMachine` (as `seating`,
`fair_rounds`, `autoplay`, `resume`); the machine's methods (``_begin_match``,
``_deal``, ``_finish_round``, ``next_round``...) call them, so a subclass still
overrides the steps there.
"""

from __future__ import annotations

from typing import Any

from rami_lan.core.errors import IllegalAction
from rami_lan.core.match import withdraw
from rami_lan.table import cards_chat, seating
from rami_lan.table import effects as F
from rami_lan.table import fair_rounds as rounds
from rami_lan.table.fairround import RoundCtx
from rami_lan.table.stage import RESUMING_STAGES, Stage, Step

__all__ = ["audit_in", "begin_match", "deal", "end_match", "enter_between", "finish_round",
           "next_round", "next_round_or_end", "waiting_choices"]

TableMachine = Any
"""A `rami_lan.table.machine.TableMachine` (not imported: the machine imports this)."""


def begin_match(t: TableMachine, now: float) -> None:
    """The match begins: empty human seats get bots, the record and the journal open,
    the first round is set up."""
    t._start_requested = True
    t.standing.clear()
    for st in t.seats.values():
        if st.kind == "human" and st.token is None:
            st.kind = "bot"
            st.nick = st.nick or f"Bot {st.seat + 1}"
            st.policy = t.make_policy("moyen", st.seat)
            cards_chat.broadcast_card(t, st.seat)
    seating.players_changed(t, now, soon=False)
    if t.record is not None:
        t.record.set_players([
            {"seat": s.seat, "nick": s.nick, "kind": "bot" if s.remote_bot else s.kind}
            for s in t.seats.values()])
    if t._journal_on:
        t._out.append(F.JournalOpen())
        t._out.append(F.JournalSnapshot(t.snapshot(t.match, t.seq)))
    t._setup_round(now)


def deal(t: TableMachine, now: float) -> None:
    """Spec steps 3-4: the seed from the secrets, the deck from the seed; deal."""
    ctx = t._round
    assert ctx is not None
    t._announce_exclusions(ctx)
    if ctx.excluded() and t._journal_on:
        t._journal("round", {"tag": ctx.tag, "step": "excluded", "seats": ctx.excluded()})
    seed = t.round_seed(ctx)
    ctx.seed = seed
    t.dealing = t.dealing_for_round(ctx, seed)
    t.dealing.deal(ctx, seed, now)


def finish_round(t: TableMachine, ctx: RoundCtx, now: float, abandoned: bool = False,
                 go_on: bool = True) -> None:
    """Spec step 5: every secret goes out; the record gets the round."""
    ctx.finished = True
    secrets = ctx.secrets()
    if secrets:
        t._to_seated(rounds.secrets_msg(ctx))
    t.dealing.record_end(ctx, abandoned)
    if abandoned or not go_on:
        return
    if t.match.over:
        t._end_match(now)
    else:
        t._enter_between(now)


def enter_between(t: TableMachine, now: float) -> None:
    """A round is over: the players' answers are awaited (or none is: on at once)."""
    t._go(Step.ROUND_END)
    t._stage_deadline = now + t.config.between_timeout
    if not waiting_choices(t):
        t._next_round_or_end(now)


def waiting_choices(t: TableMachine) -> list[int]:
    """The seats whose "continue" or "leave" is still awaited."""
    return [
        s.seat for s in t.seats.values()
        if s.kind == "human" and s.conn is not None and not s.left
        and not t.match.eliminated[s.seat] and s.seat not in t._choices
    ]


def next_round(t: TableMachine, conn: int, choice: str, now: float) -> list[F.Effect]:
    """Between rounds: a player's "continue" or "leave" (journaled)."""
    seat = t.conns.get(conn)
    if seat is None:
        return t._flush(now)
    if t.stage not in (Stage.BETWEEN, Stage.AUDIT) and not (
            t.stage in RESUMING_STAGES and t.match.phase == "between"):
        t._error(conn, "unexpected", "not between rounds")
        if not t.started:
            # Early: the match has not started, there is nothing to answer (protocol.md:
            # unexpected, and the connection is closed).
            t._out.append(F.Close(conn))
        # Else a stray answer (a race with the next deal, or a confused client):
        # refused, the seat plays on.
        return t._flush(now)
    if seat in t._choices:
        return t._flush(now)
    if choice == "leave":
        try:
            m, evs = withdraw(t.match, seat)
        except IllegalAction as exc:
            t._illegal(conn, exc)
            return t._flush(now)
        t._journal("withdraw", {"seq": t.seq + 1, "seat": seat})
        t.seats[seat].left = True
        if t.record is not None:
            t.record.log_withdrawal(seat)
        t._commit_change(m, evs, now)
        seating.players_changed(t, now, soon=False)
    else:
        t._journal("choice", {"round_no": t.match.round_no, "seat": seat,
                                 "choice": choice})
    t._choices[seat] = choice
    if t.stage is Stage.BETWEEN and (t.match.over or not waiting_choices(t)):
        t._next_round_or_end(now)
    elif t.stage is Stage.AUDIT and t.match.over:  # the last player left meanwhile
        t._end_match(now)
    return t._flush(now)


def next_round_or_end(t: TableMachine, now: float) -> None:
    """The answers are in (or their time is up): the next round, or the match's end."""
    t._choices.clear()
    t._stage_deadline = None
    if t.match.over:
        t._end_match(now)
    elif t.may_continue():
        if t.dealing.auditing:
            t._go(Step.AWAIT_AUDIT)  # dealt once the last round's audit is in
        else:
            t._setup_round(now)
    else:
        t._go(Step.HALT)


def end_match(t: TableMachine, now: float) -> None:
    """The match is over: the record is written, the journal closed."""
    t._stage_deadline = None
    if t.record is not None:
        t.record.finish(t.match)
    t._journal("end", {"scores": list(t.match.totals)})
    if t.record is not None:
        t._out.append(F.WriteRecord(t.record.to_plain()))
    if t._journal_on:
        t._out.append(F.JournalClose(delete=True))
    if t.dealing.auditing:  # private dealing: the last round's audit still needs the table
        t._go(Step.END_AWAIT_AUDIT)
        return
    t._go(Step.END)
    t._out.append(F.MatchOver(t.match.winner))


def audit_in(t: TableMachine, now: float) -> None:
    """The last round's audit is in (or closed at its deadline): what waited for it
    goes on (the next round, or the match's end)."""
    if t.stage is Stage.AUDIT:
        t._setup_round(now)
    elif t.stage is Stage.LAST_AUDIT:
        t._go(Step.AUDIT_IN)
        t._out.append(F.MatchOver(t.match.winner))
