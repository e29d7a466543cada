"""Crafted files: well-formed containers (valid JSON; journals with a valid signature)
holding bad content of many kinds, to check that `verify`, `replay` and
`host --resume` refuse each with one line and exit 2, in bounded time and memory.

`crafted_records(base)` mutates a real match record; `crafted_journal_bodies(snap,
records)` mutates a real journal's snapshot and records (the test signs them with the
folder's key, so only the content is wrong). Each item is ``(name, value)``; a value
of type ``bytes`` is the file itself.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from typing import Any

Mutation = Callable[[Any], Any]

HUGE = 10**30
DEEP = 400


def _deep(depth: int = DEEP) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


def _set(path: tuple[Any, ...], value: Any) -> Mutation:
    def mutate(data: Any) -> Any:
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = copy.deepcopy(value) if not callable(value) else value(target[path[-1]])
        return data
    return mutate


def _drop(path: tuple[Any, ...]) -> Mutation:
    def mutate(data: Any) -> Any:
        target = data
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
        return data
    return mutate


def _bad_values() -> list[tuple[str, Any]]:
    """Values of the wrong type or out of any range."""
    return [("str", "7"), ("negative", -1), ("huge", HUGE), ("float", 1.5), ("null", None),
            ("list", [1, 2]), ("map", {"a": 1}), ("bool", True)]


def crafted_records(base: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """Mutations of the record ``base`` (a private round's record has ``masked``)."""
    r0 = ("rounds", 0)
    private = "masked" in base["rounds"][0]
    cases: list[tuple[str, Mutation]] = []
    for field in ("seats", "match_no", "table_id", "variant", "options", "players", "rounds"):
        for kind, value in _bad_values():
            cases.append((f"{field}={kind}", _set((field,), value)))
        cases.append((f"{field} missing", _drop((field,))))
    lists = {"deck", "events", "actions", "players", "participants", "excluded", "played_by",
             "withdrawals"}
    for field in ("round_no", "round_tag", "commitments", "secrets", "seed", "deck", "dealer",
                  "events", "actions", "players", "host_seat", "participants", "excluded",
                  "played_by", "withdrawals", "n_cards", "abandoned"):
        for kind, value in _bad_values():
            if (field == "dealer" and kind == "null") or (field in lists and kind == "list") \
                    or (field == "abandoned" and kind == "bool"):
                continue  # a legal value
            cases.append((f"round.{field}={kind}", _set((*r0, field), value)))
        if field not in ("actions", "played_by", "withdrawals"):  # optional (older records)
            cases.append((f"round.{field} missing", _drop((*r0, field))))
    cases += [
        ("round.deck short", _set((*r0, "deck"), [1, 2])),
        ("round.players out of the table", _set((*r0, "players"), [0, 1, 7])),
        ("round.excluded huge seat", _set((*r0, "excluded"), [HUGE])),
        ("round.withdrawals seat 9", _set((*r0, "withdrawals"), [9])),
        ("round.played_by too short", _set((*r0, "played_by"), ["player"])),
    ]
    cases += [
        ("round duplicated", lambda d: (d["rounds"].insert(0, copy.deepcopy(d["rounds"][0])), d)[1]),
        ("rounds reversed", lambda d: (d["rounds"].reverse(), d)[1]
         if len(d["rounds"]) > 1 else (d["rounds"].append(copy.deepcopy(d["rounds"][0])), d)[1]),
        ("round_no skips", _set((*r0, "round_no"), 5)),
        ("round_no 0", _set((*r0, "round_no"), 0)),
        ("players huge list", _set(("players",), [{"seat": 0, "nick": "x", "kind": "human"}] * 10_000)),
        ("deck huge list", _set((*r0, "deck"), list(range(100)) * 10_000)),
        ("deck card ids huge", _set((*r0, "deck"), lambda d: [HUGE] + d[1:])),
        ("deck card ids negative", _set((*r0, "deck"), lambda d: [-5] + d[1:])),
        ("deck card ids strings", _set((*r0, "deck"), lambda d: [str(c) for c in d])),
        ("events deep", _set((*r0, "events"), [_deep()])),
        ("events ints", _set((*r0, "events"), [1, 2, 3])),
        ("event unknown type", _set((*r0, "events"), lambda e: [{"type": "Nope", "x": 1}] + e)),
        ("event type int", _set((*r0, "events"), lambda e: [{"type": 5}] + e)),
        ("event fields missing", _set((*r0, "events"), lambda e: [{"type": e[0]["type"]}] + e[1:])),
        ("event card huge", _set((*r0, "events"), lambda e: [
            {**ev, "card": {"id": HUGE}} if "card" in ev else ev for ev in e])),
        ("event seat huge", _set((*r0, "events"), lambda e: [
            {**ev, "seat": HUGE} if "seat" in ev else ev for ev in e])),
        ("event seat negative", _set((*r0, "events"), lambda e: [
            {**ev, "seat": -1} if "seat" in ev else ev for ev in e])),
        ("events huge list", _set((*r0, "events"), lambda e: e * (200_000 // max(1, len(e)) + 1))),
        ("actions strings", _set((*r0, "actions"), ["draw"] * 3)),
        ("action unknown kind", _set((*r0, "actions"), lambda a: [{"kind": "nope"}] + a)),
        ("action seat huge", _set((*r0, "actions"), lambda a: [{**x, "seat": HUGE} for x in a])),
        ("action deep", _set((*r0, "actions"), lambda a: [{"kind": "draw", "x": _deep()}] + a)),
        ("commitment not hex", _set((*r0, "commitments"), lambda c: {k: "zz" * 32 for k in c})),
        ("commitment short", _set((*r0, "commitments"), lambda c: {k: "00" for k in c})),
        ("secret seat huge", _set((*r0, "secrets"), lambda s: {str(HUGE): v for v in s.values()})),
        ("secret seat negative", _set((*r0, "secrets"), lambda s: dict.fromkeys(["-1"], "00" * 32))),
        ("result ints", _set(("result",), [1])),
        ("result winner huge", _set(("result",), {"winner": HUGE, "totals": {}, "reason": ""})),
        ("result totals bad", _set(("result",), {"winner": 0, "totals": {"x": "y"}, "reason": 5})),
        ("1000 rounds", lambda d: (d.__setitem__("rounds", [copy.deepcopy(d["rounds"][0])] * 1000), d)[1]),
    ]
    if private:
        mk = (*r0, "masked")
        cases += [
            ("masked=str", _set(mk, "x")),
            ("masked=list", _set(mk, [1])),
            ("masked.decks missing", _drop((*mk, "decks"))),
            ("masked.decks ints", _set((*mk, "decks"), [1, 2])),
            ("masked.decks short items", _set((*mk, "decks"), [[0]])),
            ("masked.decks 64 copies", _set((*mk, "decks"), lambda d: d * 64)),
            ("masked.deck ids huge", _set((*mk, "decks"), lambda d: [[d[0][0], [HUGE] * 3, d[0][2]]])),
            ("masked.deck participants huge", _set((*mk, "decks"), lambda d: [[0, d[0][1], [HUGE]]])),
            ("masked.deck participants many",
         _set((*mk, "decks"), lambda d: [[0, d[0][1], list(range(200))]])),
            ("masked.deck number huge", _set((*mk, "decks"), lambda d: [[HUGE, *d[0][1:]]])),
            ("masked.messages not hex", _set((*mk, "messages"), lambda m: ["zz"] + m)),
            ("masked.messages ints", _set((*mk, "messages"), [1, 2])),
            ("masked.messages not msgpack", _set((*mk, "messages"), lambda m: ["c1c1c1"] + m)),
            ("masked.messages msgpack ints", _set((*mk, "messages"), lambda m: ["01"] + m)),
            ("masked.messages truncated", _set((*mk, "messages"), lambda m: [h[:-2] for h in m])),
            ("masked.gen_decks bad", _set((*mk, "gen_decks"), {"x": "y"})),
            ("masked.gen_decks huge", _set((*mk, "gen_decks"), {str(HUGE): HUGE})),
            ("masked.orders bad", _set((*mk, "orders"), [1])),
            ("masked.orders huge", _set((*mk, "orders"), {"0": [HUGE]})),
        ]
    for name, mutate in cases:
        try:
            value = mutate(copy.deepcopy(base))
        except (KeyError, IndexError, TypeError):
            continue  # a field this record does not have
        yield name, value
    yield "not json", b"\x00\x01 not json at all"
    yield "empty file", b""
    yield "json null", b"null"
    yield "json list", b"[1, 2, 3]"
    yield "not utf-8", b'{"format": "\xff\xfe"}'
    yield "nesting 100000 deep", b"[" * 100_000 + b"]" * 100_000
    yield "deep nesting inside", (json.dumps({**base, "x": None})[:-1] + ', "y": ' + "[" * 50_000
                                  + "]" * 50_000 + "}").encode()
    yield "millions of items", (json.dumps({**base, "rounds": [base["rounds"][0]]})[:-1]
                                + ', "junk": [' + "0," * 3_000_000 + "0]}").encode()
    yield "over the size limit", (json.dumps(base)[:-1] + ', "pad": "' + "a" * (33 * 1024 * 1024)
                                  + '"}').encode()


def crafted_journal_bodies(snap: dict[str, Any], records: list[tuple[str, dict[str, Any]]]
                           ) -> Iterator[tuple[str, dict[str, Any], list[tuple[str, dict[str, Any]]]]]:
    """Mutations of a journal (its snapshot body and the records after it): each is
    ``(name, snapshot, records)``, plain data the journal accepts (`check_plain`), so a
    test can sign it with the folder's key: only the content is wrong."""
    huge = 2**62  # msgpack's range: the journal writes it
    cases: list[tuple[str, Callable[[dict[str, Any], list[Any]], None]]] = []

    def snap_set(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any], list[Any]], None]:
        def mutate(s: dict[str, Any], _r: list[Any]) -> None:
            _set(path, value)(s)
        return mutate

    def snap_drop(path: tuple[Any, ...]) -> Callable[[dict[str, Any], list[Any]], None]:
        def mutate(s: dict[str, Any], _r: list[Any]) -> None:
            _drop(path)(s)
        return mutate

    bad = [("str", "7"), ("negative", -1), ("huge", huge), ("null", None), ("list", [1]),
           ("map", {"a": 1}), ("bytes", b"\x00" * 3)]
    for field in ("v", "seq", "match_no", "host_seat", "table_id", "table", "seats", "match",
                  "round", "port", "record", "masked"):
        for kind, value in bad:
            if field in ("round", "masked", "record") and kind == "null":
                continue  # legal: no round, no private round, no record
            cases.append((f"{field}={kind}", snap_set((field,), value)))
        if field not in ("masked", "record", "round"):
            cases.append((f"{field} missing", snap_drop((field,))))
    legal = {("name", "str"), ("limit", "null"), ("join_code", "null"), ("record_dir", "str"),
             ("record_dir", "null"), ("nick", "str"), ("token_sha256", "null"), ("by", "str"),
             ("match", "null")}
    for field in ("name", "variant", "seats", "bots", "limit", "quick", "knock", "timer",
                  "join_code", "who_may_sit", "private_deal", "record_dir", "headless"):
        for kind, value in bad:
            if (field, kind) not in legal:
                cases.append((f"table.{field}={kind}", snap_set(("table", field), value)))
        cases.append((f"table.{field} missing", snap_drop(("table", field))))
    for field in ("seat", "kind", "nick", "token_sha256", "bot_level", "owner", "left", "remote_bot"):
        for kind, value in bad:
            if (field, kind) not in legal:
                cases.append((f"seats[0].{field}={kind}", snap_set(("seats", 0, field), value)))
        cases.append((f"seats[0].{field} missing", snap_drop(("seats", 0, field))))
    cases += [
        ("seats duplicated", lambda s, r: s.__setitem__("seats", [s["seats"][0]] * len(s["seats"]))),
        ("seats empty", snap_set(("seats",), [])),
        ("seat out of the table", snap_set(("seats", 0, "seat"), 7)),
        ("match.hands huge", snap_set(("match",), lambda m: {**m, "n_seats": huge})),
        ("match deep", snap_set(("match",), _deep(30))),
        ("match totals strings", snap_set(("match",), lambda m: {**m, "totals": ["x"] * 4})),
        ("match variant unknown", snap_set(("match",), lambda m: {**m, "variant": "nope"})),
        ("match round_no huge", snap_set(("match",), lambda m: {**m, "round_no": huge})),
        ("table.bots seat huge", snap_set(("table", "bots"), [[huge, "moyen"]])),
        ("table.bots level unknown", snap_set(("table", "bots"), [[1, "nope"]])),
        ("table.bots many", snap_set(("table", "bots"), [[1, "moyen"]] * 4)),
        ("record.data junk", snap_set(("record",), {"data": {"x": 1}, "current": None})),
        ("record.current junk", snap_set(("record",), {"data": None, "current": [1, 2]})),
        ("record.current deep", snap_set(("record",), {"data": None, "current": {"events": _deep(20)}})),
        ("record_path int", snap_set(("record_path",), 5)),
    ]

    def rec_each(kind: str, mutate_body: Callable[[dict[str, Any]], None]
                 ) -> Callable[[dict[str, Any], list[Any]], None]:
        def mutate(_s: dict[str, Any], r: list[Any]) -> None:
            hit = [b for k, b in r if k == kind]
            if not hit:
                raise KeyError(kind)
            mutate_body(hit[0])
        return mutate

    for kind, fields in (("action", ("seq", "seat", "action", "by")),
                         ("round", ("tag", "step", "secret", "seat")),
                         ("private", ("seq", "calls", "match", "events", "actions")),
                         ("choice", ("round_no", "seat", "choice")), ("withdraw", ("seq", "seat"))):
        for field in fields:
            for label, value in bad:
                if (field, label) not in legal:
                    cases.append((f"{kind}.{field}={label}", rec_each(kind, _set((field,), value))))
            if (kind, field) not in (("action", "seat"), ("action", "by")):  # optional
                cases.append((f"{kind}.{field} missing", rec_each(kind, _drop((field,)))))
    cases += [
        ("action seq replayed", lambda s, r: r.insert(0, next((k, b) for k, b in r if k == "action"))),
        ("action illegal", rec_each("action", _set(("action",), {"kind": "discard", "seat": 0, "card": 0}))),
        ("action unknown kind", rec_each("action", _set(("action",), {"kind": "nope"}))),
        ("actions 10000 copies",
         lambda s, r: r.extend([next((k, b) for k, b in r if k == "action")] * 10_000)),
        ("private calls junk", rec_each("private", _set(("calls",), [[1, 2, 3]] * 50))),
        ("private calls huge list", rec_each("private", _set(("calls",), [{"x": 1}] * 200_000))),
        ("private events junk", rec_each("private", _set(("events",), [{"type": "Nope"}]))),
        ("private match junk", rec_each("private", _set(("match",), {"x": 1}))),
        ("round step unknown", lambda s, r: r.append(("round", {"tag": b"t" * 36, "step": "nope"}))),
        ("round step for an unknown tag",
         lambda s, r: r.append(("round", {"tag": b"t" * 36, "step": "commits", "commits": []}))),
        ("end record junk", lambda s, r: r.append(("end", {"scores": "x"}))),
        ("snapshot masked header junk", snap_set(("masked",), {"key": b"k", "tag": 5, "participants": "x",
                                                              "n": huge, "seed": 1, "m0": None})),
        ("snapshot masked n huge", snap_set(("masked",), lambda h: {**h, "n": 10**9} if h else
                                            {"key": b"k" * 32, "tag": b"t" * 36, "participants": [0],
                                             "n": 10**9, "seed": b"s" * 32, "m0": None})),
        ("masked_void junk", snap_set(("masked_void",), {"round_no": "x", "dealer": huge})),
        ("round ctx junk", snap_set(("round",), {"tag": 5})),
    ]
    for name, mutate in cases:
        s2, r2 = copy.deepcopy(snap), copy.deepcopy(records)
        try:
            mutate(s2, r2)
        except (KeyError, IndexError, TypeError, StopIteration):
            continue  # a field or record kind this journal does not have
        yield name, s2, r2
