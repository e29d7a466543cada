"""The table machine's journal: the snapshot it writes, and the rebuild after a crash.

A journal holds one snapshot (``v: 1``) then records: ``action`` (seq, seat, by,
action), ``withdraw`` (seq, seat), ``choice`` (round_no, seat, choice: a between-rounds
answer), ``round`` (tag, step: host_secret | commits | reveal | excluded) and ``end``.
Reconnect tokens are kept as their SHA-256 (``token_sha256``), never in clear.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from rami_lan.core.codec import action_from_plain, event_to_plain, match_from_plain, match_to_plain
from rami_lan.core.events import Event
from rami_lan.core.match import MatchState, apply, withdraw
from rami_lan.table.config import TableConfig
from rami_lan.table.fairround import RoundCtx
from rami_lan.table.seats import token_hash

log = logging.getLogger(__name__)

TableMachine = Any
"""A `rami_lan.table.machine.TableMachine` (not imported: the machine imports this)."""

__all__ = ["config_from_snapshot", "restore", "snapshot_body"]


def _plainify(value: Any) -> Any:
    """Tuples to lists, recursively (the journal stores plain data only)."""
    if isinstance(value, dict):
        return {k: _plainify(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plainify(v) for v in value]
    return value


def snapshot_body(t: TableMachine, m: MatchState, seq: int,
                  pending_events: Sequence[Event] = ()) -> dict[str, Any]:
    cfg = t.config
    ctx = t._round
    record_plain = None
    if t.record is not None:
        current = t.record._current
        if current is not None and pending_events:
            current = dict(current)
            current["events"] = list(current["events"]) + [
                event_to_plain(e, t.variant) for e in pending_events]
        record_plain = {"data": t.record.data, "current": current}
    body = {
        "v": 1,
        "match": match_to_plain(m),
        "seq": seq,
        "table_id": t.table_id,
        "table": {
            "name": cfg.name, "variant": cfg.variant, "seats": cfg.seats,
            "bots": [[s, lvl] for s, lvl in sorted(cfg.bots.items())],
            "limit": cfg.limit, "quick": cfg.quick, "knock": cfg.knock, "timer": cfg.timer,
            "join_code": cfg.join_code, "who_may_sit": cfg.who_may_sit,
            "host_nickname": cfg.host_nickname,
            "headless": cfg.headless,
            "private_deal": cfg.private_deal,
            "record_dir": None if cfg.record_dir is None else str(cfg.record_dir),
        },
        "port": getattr(t, "port", 0),
        "match_no": t.match_no,
        "host_seat": t.host_seat,
        "seats": [
            {"seat": st.seat, "kind": st.kind, "nick": st.nick, "token_sha256": st.token,
             "bot_level": st.level, "owner": st.owner, "left": st.left,
             "remote_bot": st.remote_bot, "pake_secret": st.pake_secret}
            for st in t.seats.values()
        ],
        "round": None if ctx is None else ctx.to_plain(),
        "masked_void": getattr(t, "_masked_void_marker", None),
        "masked": t._private_header(),
        "record": record_plain,
        "record_path": getattr(t, "record_path", None),
    }
    return _plainify(body)


def config_from_snapshot(snap: dict[str, Any], **overrides: Any) -> TableConfig:
    """The `TableConfig` a journal was written with, plus ``overrides``."""
    t = dict(snap["table"])
    t["bots"] = {int(s): str(lvl) for s, lvl in t["bots"]}
    options: dict[str, Any] = dict(t)
    options.update(table_id=bytes(snap["table_id"]), port=int(snap["port"]))
    options.update(overrides)
    return TableConfig(**options)


def restore(cls: Any, snap: dict[str, Any], records: Sequence[Any],
            config: TableConfig, entropy: Callable[[int], bytes], *, record: Any = None,
            now: float = 0.0) -> TableMachine:
    if snap is None or snap.get("v") != 1:
        raise ValueError("the journal holds no match snapshot")
    if record is not None and snap.get("record"):
        rec = snap["record"]
        record.data, record._current = rec["data"], rec["current"]
    t = cls(config, entropy, record=record, table_id=bytes(snap["table_id"]))
    t.match = match_from_plain(snap["match"])
    t.seq = int(snap["seq"])
    t.match_no = int(snap["match_no"])
    t.host_seat = int(snap["host_seat"])
    t.owner_seat = None
    t.owner_token = None
    for sp in snap["seats"]:
        st = t.seats[int(sp["seat"])]
        st.kind = sp["kind"]
        st.nick = sp["nick"]
        if "token_sha256" in sp:
            st.token = None if sp["token_sha256"] is None else bytes(sp["token_sha256"])
        else:  # a journal of an older version held the token itself
            st.token = None if sp.get("token") is None else token_hash(bytes(sp["token"]))
        st.level = sp["bot_level"]
        st.owner = bool(sp["owner"])
        st.left = bool(sp["left"])
        st.remote_bot = bool(sp["remote_bot"])
        st.pake_secret = sp.get("pake_secret")
        st.conn = None  # every human seat is held until its player comes back
        if st.kind == "bot" and st.policy is None:
            st.policy = t.make_policy(st.level, st.seat)
        if st.owner:
            # The restarted host is the owner's own process: its seat gets a fresh token.
            t.owner_seat = st.seat
            t.owner_token = entropy(16)
            st.token = token_hash(t.owner_token)
    void, private = snap.get("masked_void"), snap.get("masked")
    rp = snap.get("round")
    if rp is not None:
        t._round = RoundCtx.from_plain(rp, t.host_seat)
        t._tags_used.add(t._round.tag)
    private_bodies: list[dict[str, Any]] = []
    for r in records:
        b = r.body
        if r.kind == "action":
            if int(b["seq"]) != t.seq + 1:
                raise ValueError(f"journal action seq {b['seq']} after {t.seq}")
            m, evs = apply(t.match, action_from_plain(b["action"], t.variant))
            if t.record is not None:
                t.record.log_action(b["action"], str(b.get("by", "player")))
            _replayed(t, m, evs)
        elif r.kind == "withdraw":
            if int(b["seq"]) != t.seq + 1:
                raise ValueError(f"journal withdraw seq {b['seq']} after {t.seq}")
            seat = int(b["seat"])
            m, evs = withdraw(t.match, seat)
            t.seats[seat].left = True
            t._choices[seat] = "leave"
            if t.record is not None:
                t.record.log_withdrawal(seat)
            _replayed(t, m, evs)
        elif r.kind == "choice":
            if int(b["round_no"]) == t.match.round_no:
                t._choices[int(b["seat"])] = str(b["choice"])
        elif r.kind == "round":
            _replay_round_step(t, b)
        elif r.kind == "tick":  # a private round's move (older journals): counted only
            t.seq = max(t.seq, int(b["seq"]))
        elif r.kind == "private":
            private_bodies.append(b)
            t.seq = max(t.seq, int(b["seq"]))
    if private is not None:
        stage = t.stage
        try:  # a private round was being played: go on with it
            t._private_restore(private, private_bodies)
            return t
        except Exception:  # noqa: BLE001 - a journal that does not fit: the round is void
            log.warning("could not take up the private round from the journal", exc_info=True)
            t._masked = t._mj = None
            t._masked_log = {}
            t._hand_told = {}
            t.stage = stage
            t.match = match_from_plain(snap["match"])
    if void is not None:  # a private round was being played: it is void (its keys are gone)
        t.match = replace(t.match, round=None, round_no=int(void["round_no"]),
                          dealer=int(void["dealer"]))
        t._resume_void = int(void["round_no"])
    return t


def _replay_round_step(t: TableMachine, b: dict[str, Any]) -> None:
    """A fair-shuffle step: of the snapshot's round, or of the next one (crash before
    its deal): that one is kept in ``t._resume_next`` to be taken up, never redone."""
    tag = bytes(b["tag"])
    ctx = t._round
    if ctx is not None and ctx.tag == tag:
        if b["step"] == "reveal" and int(b["seat"]) not in ctx.reveals:
            try:
                ctx.add_reveal(int(b["seat"]), bytes(b["secret"]))
            except (ValueError, RuntimeError):
                pass
        return
    nxt = t._resume_next
    if b["step"] == "host_secret":
        t._resume_next = {"tag": tag, "secret": bytes(b["secret"]), "commits": None,
                          "reveals": {}}
    elif nxt is None or nxt["tag"] != tag:
        raise ValueError(f"journal round step {b['step']!r} for an unknown tag")
    elif b["step"] == "commits":
        nxt["commits"] = {int(s): bytes(c) for s, c in b["commits"]}
    elif b["step"] == "reveal":
        nxt["reveals"][int(b["seat"])] = bytes(b["secret"])


def _replayed(t: TableMachine, m: MatchState, evs: list[Event]) -> None:
    """Apply one journaled change while resuming (nobody is connected yet)."""
    t.match = m
    t.seq += 1
    ctx = t._round
    if t.record is not None and ctx is not None and ctx.started and not ctx.finished:
        t.record.log_events(evs, t.variant)
