"""Private dealing's deadlines: every wait has a deadline and a culprit (docs/masked_deck.md).

After each input the round's `MaskedDealing` computes what the table waits for from each
participant alone (`owed_now`) and since when without a break (`watch`); the first one
past its deadline (`void_at`) is named, struck (`strike`: twice in a match and it leaves
the private deal) and the round, which can not go on without it, is void (`void`); an
audit past its deadline is closed with what came (`close_audit`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rami_lan.core.match import start_round, void_round
from rami_lan.table.dealing.base import AuditWait
from rami_lan.table.dealing.masked_journal import record_void
from rami_lan.table.stage import Stage, Step
from rami_lan.wire import masked_table as MT

if TYPE_CHECKING:
    from rami_lan.table.config import TableConfig
    from rami_lan.table.dealing.base import MaskedState

__all__ = ["STEP_WAIT", "STRIKES_OUT", "VOID_AUDIT_WAIT", "close_audit", "owed_now", "step_wait",
           "strike", "void", "void_at", "watch"]

VOID_AUDIT_WAIT = 5.0
"""Seconds a void round waits for the present participants' audits before closing it."""

STEP_WAIT = 20.0
"""Seconds a participant has to send a masked message it owes (its shuffle step, a key
release, the reveal of its hand at the round's end, the automatic move its move timer
asked for) when the table has no move timer; with one, the move timer's seconds."""

STRIKES_OUT = 2
"""Missed deadlines (rounds) after which a participant leaves the private deal: from the
next round its seat is played by the host's bot."""


def step_wait(config: TableConfig) -> float:
    """Seconds a participant has for a masked message it owes (`STEP_WAIT`, or the move
    timer where the table has one)."""
    return float(config.timer) if config.timer > 0 else STEP_WAIT


def owed_now(d: MaskedState) -> dict[int, str]:
    """Participant -> what the table waits for from it now (empty: nobody). Only what
    nobody else can send: its shuffle step, its key releases, the reveal of its hand
    at the round's end, and (blind seat) its own move once its move timer asked for
    it, or at once while its connection is gone."""
    mr, t = d.mr, d.t
    if mr.signing is None and d.owed_keys and t.stage is Stage.SHUFFLE:
        return {s: "its signing key (mk_seatkey)" for s in sorted(d.owed_keys)
                if s not in t.host_keys.announced}
    if mr.phase.value not in ("shuffling", "playing"):
        return {}
    m = t.match
    r = m.round
    if t.stage is not Stage.SHUFFLE and (
            t.stage is not Stage.PLAYING or r is None or m.phase not in ("draw", "play")):
        return {}
    owed = mr.owed()
    if d.held is not None and r is not None:
        for s in sorted(mr.blind):
            if s not in owed and any(mr.position_of(d._card_no(c)) is not None for c in r.hands[s]):
                owed[s] = "the reveal of its hand (the round's end)"
    if t.stage is Stage.PLAYING and r is not None and r.turn in mr.blind and r.turn not in owed:
        st = t.seats[r.turn]
        if st.conn is None and r.turn not in d.handed:
            owed[r.turn] = "its move"
        elif d.prompted():
            owed[r.turn] = "its automatic move (its move timer ran out)"
    return owed


def watch(d: MaskedState, now: float) -> None:
    """After each input: who owes what since when; the turn's move timer starts once
    its player has its cards; a void round's audit closes once only the one it was
    void for is missing."""
    owed = owed_now(d)
    since = d.owed_since
    for s in [s for s in since if s not in owed]:
        del since[s]
    for s, what in owed.items():  # since: the first moment of an unbroken debt
        since[s] = (since[s][0] if s in since else now, what)
    t = d.t
    if t._turn_waiting and not d.mover_waits():
        t._turn_waiting = False
        t._turn_started = max(t._turn_started, now)
    audit = d.audit
    if audit is not None and audit.void:
        missing = d.mr.p.missing_audits()
        if missing and all(d._struck(s) or t.seats[s].conn is None for s in missing):
            audit.deadline = min(audit.deadline or now, now)


def void_at(d: MaskedState) -> tuple[float | None, int | None]:
    """When the first participant owing a message runs out of time, and which (a
    seat that already missed a deadline this round: at once; a gone one: no sooner
    than `masked_wait` after it left)."""
    t = d.t
    wait = step_wait(t.config)
    best: tuple[float | None, int | None] = (None, None)
    for s, (at, _what) in d.owed_since.items():
        due = at if d._struck(s) else at + wait
        away = t._away_since.get(s)
        if away is not None and t.seats[s].conn is None and not d._struck(s):
            due = max(due, away + t.config.masked_wait)
        if best[0] is None or due < best[0]:
            best = (due, s)
    return best


def strike(d: MaskedState, seat: int, what: str, late: bool = True) -> None:
    """A missed deadline (``late``) or a proven fault (named already): once a round;
    the second round it happens in a match, the seat leaves the private deal (the
    host's bot plays it from the next round)."""
    t = d.t
    rounds = t.standing.strikes.setdefault(seat, set())
    if t.match.round_no in rounds:
        return
    rounds.add(t.match.round_no)
    gone = t.seats[seat].conn is None
    if late and gone:
        t._notice(f"seat {seat + 1} left: the table waited for {what}",
                  "private_deal_late", seat=seat, left=True)
    elif late:
        t._notice(f"seat {seat + 1} did not send {what} in time",
                  "private_deal_late", seat=seat, left=False)
    if len(rounds) >= STRIKES_OUT and seat not in t.standing.out:
        t.standing.out.add(seat)
        t._notice(f"seat {seat + 1} missed private-dealing deadlines in {len(rounds)} rounds: it "
                  "leaves the private deal, and the host's bot plays its seat from the next round",
                  "private_deal_benched", seat=seat)


def void(d: MaskedState, seat: int | None, now: float) -> None:
    """A participant is gone, or did not answer in time: nobody can play its hidden
    cards, so the round is void (no score). Every present participant publishes its
    audit; the next round is dealt once it is in (the missing are named)."""
    t = d.t
    ctx = t._round
    if ctx is None:
        return
    if t.stage is Stage.SHUFFLE:
        # Gone during the shuffle: the model is dealt (unseen) only to fix the round's
        # number and dealer, as every client's verifier derives them from the seed.
        record = t.record
        if record is not None and not record.recording():  # its entry: void, numbered
            record.begin_round(t.match.round_no + 1, ctx.tag, ctx.commit, [], d.seed)
        t.match, _evs = start_round(t.match, list(t._match_cards()), d.seed)
        if record is not None:
            record.set_round_players(t.match)
        d.model_deck = []
        ctx.started = True
        t._go(Step.DEAL)
    gone = seat is None or t.seats[seat].conn is None
    who = f"seat {seat + 1}" if seat is not None else "a participant"
    t._notice(f"{who} {'is gone' if gone else 'did not answer'}: this private round "
              "is void (no score); the next round is dealt", "private_round_void", seat=seat,
              left=gone)
    d.held = None
    d.halved = None
    d.owed_since = {}
    m, evs = void_round(t.match, seat, "player_gone" if gone else "no_answer")
    t._commit_change(m, evs, now)
    record_void(d)  # its entry now: a restart during its audit finds it whole
    d.audit = AuditWait(now + min(t.config.audit_timeout, VOID_AUDIT_WAIT), void=True)
    d._route(d.mr.publish_audit(), now)
    t._finish_round(ctx, now, abandoned=True, go_on=False)
    t._next_round_or_end(now)  # dealt once the audit is in


def close_audit(d: MaskedState, now: float) -> None:
    """The audit's time is up: close it with what came (the missing are named)."""
    mr, t = d.mr, d.t
    for s in sorted(mr.p.missing_audits()):  # each named once a round, "left" if gone
        if s != t.host_seat and not d._struck(s):
            d.strike(s, "its audit")
    if d.audit is not None:
        d.audit.void = False
    for s in mr.blind:  # the present participants close theirs too (the missing named)
        if t.seats[s].conn is not None:
            d.post(s, MT.MkClose())
    d._route(mr.close_audit(), now)
