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
from rami_lan.table.record_sink import RecordSink
from rami_lan.table.seats import token_hash

log = logging.getLogger(__name__)

TableMachine = Any
"""A `rami_lan.table.machine.TableMachine` (not imported: the machine imports this)."""

__all__ = ["check_journal", "config_from_snapshot", "restore", "snapshot_body"]


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
        record_plain = t.record.snapshot_state([event_to_plain(e, t.variant) for e in pending_events])
    body = {
        "v": 1,
        "match": match_to_plain(m),
        "seq": seq,
        "table_id": t.table_id,
        "table": {  # (a key added here is added to `_TABLE_KEYS`, or resume refuses it)
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
        "masked_void": t.dealing.void_marker(),
        "masked": t.dealing.header(),
        "record": record_plain,
        "record_path": getattr(t, "record_path", None),
    }
    return _plainify(body)


# ------------------------------------------------------------------ bounds


class _Schema(ValueError):
    pass


def _need(ok: bool, what: str) -> None:
    if not ok:
        raise _Schema(what)


def _int(value: Any, what: str, low: int, high: int, *, null: bool = False) -> None:
    _need((null and value is None) or (type(value) is int and low <= value <= high),
          f"{what} must be an int in {low}..{high}{' or nil' if null else ''}")


def _text(value: Any, what: str, limit: int = 256, *, null: bool = False) -> None:
    _need((null and value is None) or (type(value) is str and len(value) <= limit),
          f"{what} must be a str of at most {limit} characters{' or nil' if null else ''}")


def _bytes(value: Any, what: str, size: int | None = None, *, limit: int = 64,
           null: bool = False) -> None:
    _need((null and value is None) or (type(value) is bytes and len(value) <= limit
                                       and (size is None or len(value) == size)),
          f"{what} must be {size or f'at most {limit}'} bytes{' or nil' if null else ''}")


def _bool(value: Any, what: str) -> None:
    _need(type(value) is bool, f"{what} must be a bool")


def _map(value: Any, what: str, keys: frozenset[str] | set[str] | None, required: Sequence[str] = ()) -> dict:
    """A map with the ``required`` fields; with ``keys``, no other (None: others are left
    alone, for a field a later version adds that this one never reads)."""
    _need(type(value) is dict, f"{what} must be a map")
    extra = [] if keys is None else [k for k in value if k not in keys]
    _need(not extra, f"{what}: unknown field {str(extra[0])[:40] if extra else ''}")
    missing = [k for k in required if k not in value]
    _need(not missing, f"{what}.{missing[0] if missing else ''} is missing")
    return value


def _list(value: Any, what: str, limit: int) -> list:
    _need(type(value) is list and len(value) <= limit, f"{what} must be a list of at most {limit} items")
    return value


_TABLE_KEYS = ("name", "variant", "seats", "bots", "limit", "quick", "knock", "timer", "join_code",
               "who_may_sit", "host_nickname", "headless", "private_deal", "record_dir")
_SEAT_KEYS = ("seat", "kind", "nick", "token_sha256", "bot_level", "owner", "left", "remote_bot",
              "pake_secret")
_SNAP_KEYS = ("v", "match", "seq", "table_id", "table", "port", "match_no", "host_seat", "seats",
              "round", "masked_void", "masked", "record", "record_path")
_RECORD_KINDS = {
    "action": ({"seq", "seat", "by", "action"}, ("seq", "action")),
    "withdraw": ({"seq", "seat"}, ("seq", "seat")),
    "choice": ({"round_no", "seat", "choice"}, ("round_no", "seat", "choice")),
    "round": ({"tag", "step", "secret", "seat", "commits", "seats"}, ("tag", "step")),
    "tick": ({"seq"}, ("seq",)),
    "private": ({"seq", "calls", "match", "events", "actions"}, ("seq", "calls", "match", "events",
                                                                 "actions")),
    "end": ({"scores"}, ()),
}
MAX_PRIVATE_CALLS = 100_000
"""Masked-round calls a journal's ``private`` records may hold in all."""


def check_journal(snap: Any, records: Sequence[Any]) -> None:
    """Check, before `restore` uses any of it, that a journal's snapshot and records
    have every field of its type and in its range (exact types: the journal is
    msgpack); ``ValueError`` naming the first one that does not. The journal is
    authenticated (net/journal.py), so this guards against a buggy or older writer and
    a stolen key, not a passer-by: what it lets through still replays in bounded time
    (the rules core checks each action)."""
    from rami_lan.core.variants import get_variant
    from rami_lan.ids import BOT_LEVELS, WHO_MAY_SIT

    try:
        _check_snap(snap, get_variant, BOT_LEVELS, WHO_MAY_SIT)
        seats = snap["table"]["seats"]
        calls = 0
        for k, r in enumerate(records):
            calls += _check_journal_record(r.kind, r.body, f"journal record {k + 1} ({r.kind})", seats,
                                           get_variant(snap["table"]["variant"]))
            _need(calls <= MAX_PRIVATE_CALLS, f"more than {MAX_PRIVATE_CALLS} masked-round calls")
    except _Schema as exc:
        raise ValueError(str(exc)) from None


def _check_snap(snap: Any, get_variant: Any, levels: Sequence[str], who: Sequence[str]) -> None:
    _map(snap, "snapshot", None, _SNAP_KEYS[:9])
    _int(snap["v"], "v", 1, 1)
    _int(snap["seq"], "seq", 0, 2**53)
    _bytes(snap["table_id"], "table_id", 16)
    # Every key becomes a `TableConfig` argument (`config_from_snapshot`): exactly those
    # `snapshot_body` writes (a journal names no folder or identity of its own choosing).
    table = _map(snap["table"], "table", set(_TABLE_KEYS), _TABLE_KEYS)
    _text(table["name"], "table.name")
    _text(table["variant"], "table.variant", 32)
    try:
        variant = get_variant(table["variant"])
    except ValueError:
        raise _Schema("table.variant is not a known variant") from None
    _int(table["seats"], "table.seats", 2, 4)
    n = table["seats"]
    bots = _list(table["bots"], "table.bots", n)
    for b in bots:
        _need(type(b) is list and len(b) == 2, "table.bots holds [seat, level] pairs")
        _int(b[0], "table.bots seat", 0, n - 1)
        _need(b[1] in levels, f"table.bots level must be one of {', '.join(levels)}")
    _need(len({b[0] for b in bots}) == len(bots), "table.bots lists a seat twice")
    _int(table["limit"], "table.limit", 1, 100_000, null=True)
    for name in ("quick", "knock", "headless", "private_deal"):
        _bool(table[name], f"table.{name}")
    _int(table["timer"], "table.timer", 0, 24 * 3600)
    _text(table["join_code"], "table.join_code", 64, null=True)
    _need(table["who_may_sit"] in who, f"table.who_may_sit must be one of {', '.join(who)}")
    _text(table["host_nickname"], "table.host_nickname", null=True)
    _text(table["record_dir"], "table.record_dir", 4096, null=True)
    _check_match(snap["match"], "match", variant, n)
    _int(snap["port"], "port", 0, 65535)
    _int(snap["match_no"], "match_no", 1, 10**6)
    _int(snap["host_seat"], "host_seat", 0, 255)
    seats = _list(snap["seats"], "seats", n)
    _need(len(seats) == n, f"seats must list the table's {n} seats")
    for st in seats:
        _map(st, "seats[]", None, _SEAT_KEYS[:8])
        _int(st["seat"], "seats[].seat", 0, n - 1)
        _need(st["kind"] in ("human", "bot"), "seats[].kind must be human or bot")
        _text(st["nick"], "seats[].nick", 64)
        _bytes(st["token_sha256"], "seats[].token_sha256", 32, null=True)
        _need(st["bot_level"] in levels, f"seats[].bot_level must be one of {', '.join(levels)}")
        for name in ("owner", "left", "remote_bot"):
            _bool(st[name], f"seats[].{name}")
        _text(st.get("pake_secret"), "seats[].pake_secret", 256, null=True)
    _need(sorted(st["seat"] for st in seats) == list(range(n)), "seats must list each seat once")
    _need(sum(st["owner"] for st in seats) <= 1, "at most one seat is the owner's")
    rnd = snap.get("round")
    if rnd is not None:
        _check_round_ctx(rnd, "round")
    void = snap.get("masked_void")
    if void is not None:
        _map(void, "masked_void", {"round_no", "dealer"}, ("round_no", "dealer"))
        _int(void["round_no"], "masked_void.round_no", 1, 10**6)
        _int(void["dealer"], "masked_void.dealer", 0, n - 1)
    masked = snap.get("masked")
    if masked is not None:
        keys = ("key", "tag", "participants", "n", "seed", "m0")
        _map(masked, "masked", {*keys, "calls", "events", "sigkeys"}, keys)
        sigkeys = masked.get("sigkeys")  # the seats' key announcements (`table/receipts.py`)
        _need(sigkeys is None or (type(sigkeys) is list and len(sigkeys) <= 8
                                  and all(type(a) is dict and len(a) <= 8 for a in sigkeys)),
              "masked.sigkeys must be at most 8 seat key announcements")
        if "calls" in masked:  # the round is over, its audit awaited
            calls = _list(masked["calls"], "masked.calls", MAX_PRIVATE_CALLS)
            _need(all(type(c) is list and 1 <= len(c) <= 8 and type(c[0]) is str for c in calls),
                  "masked.calls holds [name, arguments...] lists")
            from rami_lan.core.codec import event_from_plain

            for e in _list(masked.get("events", []), "masked.events", 100_000):
                try:
                    event_from_plain(e, variant)
                except Exception as exc:  # noqa: BLE001 - the core's decoder
                    raise _Schema(f"masked.events: an event does not decode ({str(exc)[:120]})") from None
        _bytes(masked["key"], "masked.key", 32)
        _bytes(masked["tag"], "masked.tag", limit=64)
        parts = _list(masked["participants"], "masked.participants", 8)
        for x in parts:
            _int(x, "masked.participants[]", 0, 255)
        _need(masked["n"] == variant.deck_size, f"masked.n must be the variant's {variant.deck_size} cards")
        _bytes(masked["seed"], "masked.seed", 32)
        _check_match(masked["m0"], "masked.m0", variant, n)
    record = snap.get("record")
    if record is not None:
        _map(record, "record", {"data", "current"}, ("data", "current"))
        _need(type(record["data"]) is dict, "record.data must be a map")
        cur = record["current"]
        _need(cur is None or type(cur) is dict, "record.current must be a map or nil")
        # (both are checked as a record's parts by `rami_lan.net.journal.check_snapshot`)
    _text(snap.get("record_path"), "record_path", 4096, null=True)


_MATCH_KEYS = ("snapshot", "variant", "options", "n_seats", "totals", "eliminated", "round_no",
               "dealer", "round", "history", "tiebreak", "over", "winner", "end_reason")


def _check_match(m: Any, what: str, variant: Any, n: int) -> None:
    """A ``match_to_plain`` map of this table (its variant and seats), with the types the
    core's decoder takes on trust, then decoded (``match_from_plain``)."""
    from rami_lan.core.codec import match_from_plain

    _map(m, what, set(_MATCH_KEYS), _MATCH_KEYS)
    _need(m["variant"] == variant.id, f"{what}.variant is not the table's")
    _need(m["n_seats"] == n, f"{what}.n_seats is not the table's {n}")
    o = _map(m["options"], f"{what}.options", {"limit", "quick", "knock"}, ("limit", "quick", "knock"))
    _int(o["limit"], f"{what}.options.limit", 1, 100_000, null=True)
    _bool(o["quick"], f"{what}.options.quick")
    _bool(o["knock"], f"{what}.options.knock")
    totals = _list(m["totals"], f"{what}.totals", n)
    _need(len(totals) == n, f"{what}.totals must list {n} scores")
    for x in totals:
        _int(x, f"{what}.totals[]", -10**9, 10**9)
    elim = _list(m["eliminated"], f"{what}.eliminated", n)
    _need(len(elim) == n and all(type(x) is bool for x in elim), f"{what}.eliminated must list {n} bools")
    _int(m["round_no"], f"{what}.round_no", 0, 10**6)
    _int(m["dealer"], f"{what}.dealer", 0, n - 1, null=True)
    _need(m["round"] is None or type(m["round"]) is dict, f"{what}.round must be a map or nil")
    history = _list(m["history"], f"{what}.history", 10**6)
    for h in history:
        _map(h, f"{what}.history[]", {"round_no", "winner", "rami_sec", "reason", "scores"},
             ("round_no", "winner", "rami_sec", "reason", "scores"))
        _int(h["round_no"], f"{what}.history[].round_no", 0, 10**6)
        _int(h["winner"], f"{what}.history[].winner", 0, n - 1, null=True)
        _need(type(h["scores"]) is list and len(h["scores"]) <= n, f"{what}.history[].scores")
        for pair in h["scores"]:
            _need(type(pair) is list and len(pair) == 2, f"{what}.history[].scores holds [seat, score]")
            _int(pair[0], f"{what}.history[].scores seat", 0, n - 1)
            _int(pair[1], f"{what}.history[].scores score", -10**9, 10**9)
    for x in _list(m["tiebreak"], f"{what}.tiebreak", n):
        _int(x, f"{what}.tiebreak[]", 0, n - 1)
    _bool(m["over"], f"{what}.over")
    _int(m["winner"], f"{what}.winner", 0, n - 1, null=True)
    _text(m["end_reason"], f"{what}.end_reason", 64)
    try:
        match_from_plain(m)
    except Exception as exc:  # noqa: BLE001 - the core's decoder: any failure is a bad field
        raise _Schema(f"{what} does not decode ({type(exc).__name__}: {str(exc)[:120]})") from None


def _check_round_ctx(rnd: Any, what: str) -> None:
    keys = ("tag", "host_secret", "participants", "commits", "reveals", "seed", "started", "finished")
    _map(rnd, what, set(keys), keys)
    _bytes(rnd["tag"], f"{what}.tag", limit=64)
    _bytes(rnd["host_secret"], f"{what}.host_secret", 32)
    for x in _list(rnd["participants"], f"{what}.participants", 8):
        _int(x, f"{what}.participants[]", 0, 255)
    for name in ("commits", "reveals"):
        for pair in _list(rnd[name], f"{what}.{name}", 8):
            _need(type(pair) is list and len(pair) == 2, f"{what}.{name} holds [seat, value] pairs")
            _int(pair[0], f"{what}.{name} seat", 0, 255)
            _bytes(pair[1], f"{what}.{name} value", 32)
    _bytes(rnd["seed"], f"{what}.seed", 32, null=True)
    _bool(rnd["started"], f"{what}.started")
    _bool(rnd["finished"], f"{what}.finished")


def _check_journal_record(kind: str, b: Any, what: str, seats: int, variant: Any) -> int:
    """One record after the snapshot; returns how many masked-round calls it holds. A
    kind `restore` does not know is skipped by it (a map, nothing more is asked)."""
    if kind not in _RECORD_KINDS:
        _need(type(b) is dict, f"{what} must be a map")
        return 0
    keys, required = _RECORD_KINDS[kind]
    _map(b, what, None, required)
    if "seq" in b:
        _int(b["seq"], f"{what}.seq", 0, 2**53)
    if "seat" in b:
        _int(b["seat"], f"{what}.seat", 0, 255 if kind == "round" else seats - 1)
    if kind == "action":
        _need(type(b["action"]) is dict and len(b["action"]) <= 16, f"{what}.action must be a small map")
        _text(b.get("by", "player"), f"{what}.by", 16)
    elif kind == "choice":
        _int(b["round_no"], f"{what}.round_no", 0, 10**6)
        _need(b["choice"] in ("continue", "leave"), f"{what}.choice must be continue or leave")
    elif kind == "round":
        _bytes(b["tag"], f"{what}.tag", limit=64)
        step = b["step"]
        _need(step in ("host_secret", "commits", "reveal", "excluded"), f"{what}.step is unknown")
        if step in ("host_secret", "reveal"):
            _bytes(b.get("secret"), f"{what}.secret", 32)
        if step == "reveal":
            _int(b.get("seat"), f"{what}.seat", 0, 255)
        if step == "commits":
            for pair in _list(b.get("commits"), f"{what}.commits", 8):
                _need(type(pair) is list and len(pair) == 2, f"{what}.commits holds [seat, commitment]")
                _int(pair[0], f"{what}.commits seat", 0, 255)
                _bytes(pair[1], f"{what}.commits value", 32)
        if step == "excluded":
            for x in _list(b.get("seats"), f"{what}.seats", 8):
                _int(x, f"{what}.seats[]", 0, 255)
    elif kind == "private":
        calls = _list(b["calls"], f"{what}.calls", MAX_PRIVATE_CALLS)
        _need(all(type(c) is list and 1 <= len(c) <= 8 and type(c[0]) is str for c in calls),
              f"{what}.calls holds [name, arguments...] lists")
        if b["match"] is not None:  # nil: the model was not written (the round is void)
            _check_match(b["match"], f"{what}.match", variant, seats)
        from rami_lan.core.codec import event_from_plain

        for e in _list(b["events"], f"{what}.events", 100_000):
            try:
                event_from_plain(e, variant)
            except Exception as exc:  # noqa: BLE001 - the core's decoder
                raise _Schema(f"{what}.events: an event does not decode ({str(exc)[:120]})") from None
        _need(all(type(a) is list and len(a) == 2 and type(a[0]) is dict and type(a[1]) is str
                  for a in _list(b["actions"], f"{what}.actions", 100_000)),
              f"{what}.actions holds [action, by] pairs")
        return len(calls)
    elif kind == "end":
        scores = b.get("scores", [])
        _need(type(scores) is list and len(scores) <= 4 and all(type(x) is int for x in scores),
              f"{what}.scores must list ints")
    return 0


def config_from_snapshot(snap: dict[str, Any], **overrides: Any) -> TableConfig:
    """The `TableConfig` a journal was written with, plus ``overrides``."""
    t = dict(snap["table"])
    t["bots"] = {int(s): str(lvl) for s, lvl in t["bots"]}
    options: dict[str, Any] = dict(t)
    options.update(table_id=bytes(snap["table_id"]), port=int(snap["port"]))
    options.update(overrides)
    return TableConfig(**options)


def restore(cls: Any, snap: dict[str, Any], records: Sequence[Any],
            config: TableConfig, entropy: Callable[[int], bytes], *, record: RecordSink | None = None,
            now: float = 0.0) -> TableMachine:
    if snap is None or snap.get("v") != 1:
        raise ValueError("the journal holds no match snapshot")
    check_journal(snap, records)
    try:
        return _restore(cls, snap, records, config, entropy, record=record, now=now)
    except ValueError:
        raise
    except Exception as exc:  # noqa: BLE001 - authentic but does not replay: refused, one line
        raise ValueError(f"the journal does not replay ({type(exc).__name__}: {str(exc)[:200]})") from None


def _restore(cls: Any, snap: dict[str, Any], records: Sequence[Any],
             config: TableConfig, entropy: Callable[[int], bytes], *, record: RecordSink | None = None,
             now: float = 0.0) -> TableMachine:
    if record is not None and snap.get("record"):
        record.restore_state(snap["record"])
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
        try:  # a private round was being played (or its audit awaited): go on with it
            # (its audit awaited: the participants are resynced first, then send theirs again)
            t.dealing = t.masked_dealing.restored(t, private, private_bodies, now)
            return t
        except Exception as exc:  # noqa: BLE001 - a journal that does not fit: the round is void
            log.warning("could not take up the private round from the journal (%s: %s): it is void",
                        type(exc).__name__, str(exc)[:200])
            t.match = match_from_plain(snap["match"])
    if void is not None:  # a private round was being played: it is void (its keys are gone)
        t.match = replace(t.match, round=None, round_no=int(void["round_no"]),
                          dealer=int(void["dealer"]))
        t._resume_void = int(void["round_no"])
        if t.record is not None:  # the record says so too: a well-formed void entry
            t.record.void_current(t._resume_void, "host_restarted", t.variant)
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
