"""A masked round's journal (a restarted host goes on with it) and its match record
(written once its audit is in, so `rami-lan verify` recomputes the audit).

The functions here read and write the state of one `MaskedState`
(`rami_lan.table.dealing.masked`): `header` (the journal snapshot's part), `checkpoint`
(one ``private`` record after each input), `restore` (the masked round made again from
the journal) and `record_round` (the round's record entry from its audit).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgpack

from rami_lan.core import events as E
from rami_lan.core.codec import (
    action_from_plain,
    event_from_plain,
    event_to_plain,
    match_from_plain,
    match_to_plain,
)
from rami_lan.core.match import apply, start_round
from rami_lan.masked.audit import AuditReport
from rami_lan.table import effects as F
from rami_lan.table.dealing.base import AuditWait
from rami_lan.table.verifier import audited_refills

if TYPE_CHECKING:
    from rami_lan.table.dealing.base import MaskedState

__all__ = ["MaskedState", "checkpoint", "header", "record_round", "take_up"]


def header(d: MaskedState) -> dict[str, Any] | None:
    """The journal snapshot's part for the private round being played (None: none):
    what a restarted host needs to make the same masked round again."""
    mr = d.mr
    if d.mj is None or d.m0 is None:
        return None
    out = {"key": d.key, "tag": mr.p.tag, "participants": list(mr.participants),
           "n": mr.p.table.n_cards, "seed": d.seed, "m0": match_to_plain(d.m0),
           "sigkeys": d.t.host_keys.to_plain(mr.signing)}
    if d.mj.get("over"):  # the round is over, its audit awaited: the snapshot holds
        v = d.t.variant  # every call and event so far
        out["calls"] = list(mr.calls)
        out["events"] = [event_to_plain(e.for_seat(None), v) for e in d.events]
        d.mj.update(calls=len(mr.calls), events=len(d.events))
    return out


def checkpoint(d: MaskedState) -> None:
    """After each input during a private round: one ``private`` journal record with
    the masked-round calls it made, the model if it changed, the public events and the
    actions, placed before this input's messages (write-ahead). Only a record with an
    action is fsync'd; a restart that lost the others is made whole by the clients,
    which send their messages again when the host resyncs them (``mk_sync``; the host
    drops duplicates)."""
    mj, mr, t = d.mj, d.mr, d.t
    if mj is None or not t._journal_on:
        return
    calls = mr.calls[mj["calls"]:]
    events = d.events[mj["events"]:]
    changed = t.match is not mj["match"]
    if not (calls or events or changed or d.mj_actions):
        return
    v = t.variant
    body = {"seq": t.seq,
            "calls": calls,
            "match": match_to_plain(t.match) if changed else None,
            "events": [event_to_plain(e.for_seat(None), v) for e in events],
            "actions": d.mj_actions}
    out = t._out
    at = max((k + 1 for k, eff in enumerate(out) if isinstance(eff, F.JournalSnapshot)), default=0)
    out.insert(at, F.JournalAppend("private", body, sync=bool(d.mj_actions)))
    mj.update(calls=len(mr.calls), events=len(d.events), match=t.match)
    d.mj_actions = []


def take_up(d: MaskedState, head: dict[str, Any], bodies: list[dict[str, Any]], now: float) -> None:
    """A restarted host goes on with the private round its journal holds (``d``: the
    masked round made again from the journaled key, `MaskedState.restored`): its calls
    replayed (the same secrets from the journaled seed), the model as last written, the
    per-seat logs rebuilt from what the calls sent. Raises (ValueError, KeyError,
    TypeError, ...) if the journal does not fit."""
    t, mr = d.t, d.mr
    v = t.variant
    ctx = t._round
    if ctx is None or ctx.tag != mr.p.tag:
        raise ValueError("the journal's private round is not the round being played")
    d._greet()
    over = "calls" in head  # the round was over, its audit awaited (`header`)
    calls = [*head.get("calls", ()), *(c for b in bodies for c in b["calls"])]
    d._deliver(mr.replay(calls))
    model = next((b["match"] for b in reversed(bodies) if b["match"] is not None), None)
    phases = ("playing", "shuffling", "auditing") if over else ("playing", "shuffling")
    if (model is None and not over) or not mr.ready(0) or mr.phase.value not in phases:
        raise ValueError("the journal holds no dealt private round")  # (shuffling: a refill)
    d.m0 = match_from_plain(head["m0"])
    if model is not None:
        t.match = match_from_plain(model)
    d.events = [event_from_plain(e, v) for e in head.get("events", ())]
    d.events += [event_from_plain(e, v) for b in bodies for e in b["events"]]
    record = t.record
    if record is not None and not over:  # (over: the snapshot's record holds them all)
        for b in bodies:
            for plain, by in b["actions"]:
                record.log_action(plain, str(by))
    t._match_cards()
    d.model_deck = []
    ctx.started = True
    r = t.match.round
    if over:  # its audit goes on: the participants send theirs again when resynced
        if r is None or r.phase != "over":
            raise ValueError("the journal's private round is not over")
        d.audit = AuditWait(now + t.config.resume_grace + t.config.audit_timeout)
        d.mj = {"calls": len(mr.calls), "events": len(d.events), "match": t.match, "over": True}
    else:
        d.marker = {"round_no": t.match.round_no, "dealer": t.match.dealer}
        if r is None or r.phase == "over":
            raise ValueError("the journal's private round is over")
        d.mj = {"calls": len(mr.calls), "events": len(d.events), "match": t.match}


def record_round(d: MaskedState, report: AuditReport) -> None:
    """The round goes into the match record once its audit is in: the deck order from
    the audit, the true events replayed from it and the accepted actions, and the
    broadcast masked messages (so `rami-lan verify` recomputes the audit)."""
    t, mr = d.t, d.mr
    record, ctx = t.record, t._round
    cur = getattr(record, "_current", None)
    if record is None or ctx is None or cur is None:
        return
    v = t.variant
    if any(isinstance(e, E.RoundVoided) for e in d.events):
        record_void(d)
        return
    cards = t._cards
    orders = dict(report.orders)
    gens = dict(mr.gen_decks())
    events: list[E.Event] = []
    if 0 in orders and cards is not None and d.m0 is not None:
        refills = audited_refills(cards, orders, gens)
        try:
            m, events = start_round(d.m0, [cards[i] for i in orders[0]], d.seed, refills=refills)
            for plain in cur.get("actions", []):
                m, more = apply(m, action_from_plain(plain, v))
                events += more
        except Exception as exc:  # noqa: BLE001 - a false claim: the record shows where
            cur["replay_error"] = str(exc)[:500]
    cur["deck"] = list(orders.get(0, ()))
    cur["n_cards"] = v.deck_size
    cur["events"] = [event_to_plain(e, v) for e in events]
    cur["masked"] = {
        "decks": [[dk, list(ids), list(mr.participants)] for dk, ids in mr.deck_cards()],
        "gen_decks": {str(g): dk for g, dk in gens.items()},
        "orders": {str(dk): list(o) for dk, o in orders.items()},
        "messages": [msgpack.packb(plain, use_bin_type=True).hex() for plain in mr.broadcast],
    }
    record.end_round(t.match, ctx.secrets(), ctx.excluded())
    t._out.append(F.WriteRecord(record.to_plain()))
    _journaled(d)


def record_void(d: MaskedState) -> None:
    """A void round goes into the record at once, its audit awaited or not: nothing of
    it counts, and its deck order may not be known (a participant's secrets are
    missing), so the record keeps its public events. A new snapshot holds the entry: a
    host killed while the void round's audit is awaited resumes with a well-formed entry
    (before, the resumed host closed it empty: no events, and `verify` refused it)."""
    t = d.t
    record, ctx = t.record, t._round
    cur = getattr(record, "_current", None)
    if record is None or ctx is None or cur is None:
        return
    v = t.variant
    cur["events"] = [event_to_plain(e.for_seat(None), v) for e in d.events]
    cur["n_cards"] = v.deck_size
    record.end_round(t.match, ctx.secrets(), ctx.excluded(), abandoned=True)
    t._out.append(F.WriteRecord(record.to_plain()))
    _journaled(d)


def _journaled(d: MaskedState) -> None:
    """The round's record entry is complete (its audit is in): a new snapshot holds
    it, so a host killed between this round's end and the next deal resumes with it
    (the snapshot at the round's end holds the entry still empty)."""
    d.mj = None  # nothing of the masked round is left to take up
    t = d.t
    if t._journal_on:
        t._out.append(F.JournalSnapshot(t.snapshot(t.match, t.seq)))
