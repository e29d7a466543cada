"""Verify a tournament record offline: replay it through a new `TournamentMachine`.

``verify(record, tables)`` takes the tournament record (plain data, as read from its
JSON file) and its tables' match records keyed by the SHA-256 (hex) of their files. It
rebuilds the tournament from the record's own inputs: the settings, the entrants (with
their contributions) in registration order, the organiser's revealed secret, then each
table's match record in the order of the stages. The commitment must be the one of the
secret, and every table, ranking, "went on", the standings and the winner the replay
produces must equal the recorded ones; the first differences are named. The fairness of
each table's own shuffle is `rami_lan.net.record.verify`'s job (``rami-lan verify`` runs
both). Pure: no I/O.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rami_lan.tournament.machine import (
    MAX_ENTRANTS,
    TOURNAMENT_FORMAT,
    TournamentConfig,
    TournamentError,
    TournamentMachine,
)

__all__ = ["TournamentReport", "is_tournament_record", "sha256_hex", "verify"]

MAX_STAGES = 16


def sha256_hex(data: bytes) -> str:
    """The hex SHA-256 of a record file's bytes (how the tournament names its tables)."""
    return hashlib.sha256(data).hexdigest()


def is_tournament_record(data: Any) -> bool:
    return isinstance(data, dict) and data.get("format") == TOURNAMENT_FORMAT


@dataclass
class TournamentReport:
    """What `verify` found: ``problems`` (a mismatch: the record lies or is damaged),
    ``invalid`` (not a well-formed tournament record), ``notes``."""

    problems: list[str] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    tables: int = 0
    entrants: int = 0
    winner: str | None = None

    @property
    def ok(self) -> bool:
        return not self.problems and not self.invalid


def _hex(value: Any, size: int, what: str) -> bytes:
    if not isinstance(value, str) or len(value) != 2 * size:
        raise ValueError(f"{what} is not {size} bytes of hex")
    try:
        return bytes.fromhex(value)
    except ValueError:
        raise ValueError(f"{what} is not hex") from None


def _diff(path: str, a: Any, b: Any, out: list[str], limit: int = 10) -> None:
    """The paths where ``a`` (the record) and ``b`` (the replay) differ."""
    if len(out) >= limit:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            _diff(f"{path}.{k}", a.get(k), b.get(k), out, limit)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _diff(f"{path}[{i}]", x, y, out, limit)
    elif a != b or type(a) is not type(b):
        out.append(f"{path}: the record says {str(a)[:80]!r}, the replay gives {str(b)[:80]!r}")


def verify(record: Mapping[str, Any], tables: Mapping[str, Mapping[str, Any]]) -> TournamentReport:
    """Re-check a tournament record against its tables' match records."""
    report = TournamentReport()
    try:
        if record.get("format") != TOURNAMENT_FORMAT or record.get("version") != 1:
            raise ValueError("not a tournament record of version 1")
        tid = _hex(record.get("tournament_id"), 16, "the tournament id")
        secret = _hex(record.get("secret"), 32, "the organiser's secret")
        config = TournamentConfig.from_plain(record.get("config") or {})
        entrants = record.get("entrants")
        if not isinstance(entrants, list) or not 2 <= len(entrants) <= MAX_ENTRANTS:
            raise ValueError("the entrants are not a list of 2 to 64")
        stages = record.get("stages")
        if not isinstance(stages, list) or not 1 <= len(stages) <= MAX_STAGES:
            raise ValueError(f"the stages are not a list of 1 to {MAX_STAGES}")
    except (ValueError, TypeError) as exc:
        report.invalid.append(str(exc))
        return report
    machine = TournamentMachine(config, tid, secret)
    if machine.commitment.hex() != record.get("commitment"):
        report.problems.append("the organiser's secret does not match its commitment: "
                               "the draw could have been chosen")
    try:
        for e in entrants:
            if not isinstance(e, dict) or e.get("kind") not in ("human", "bot"):
                raise ValueError("an entrant is not a map of kind human or bot")
            if e.get("kind") == "bot":
                continue  # bots are added by the start, from the settings
            if type(e.get("no")) is int and e["no"] > machine.next_no:
                machine.next_no = e["no"]  # an entrant who left before the start
            got = machine.register(str(e.get("nick", "")),
                                   _hex(e.get("contribution"), 32, "a contribution"))
            if got.no != e.get("no") or got.nick != e.get("nick"):
                report.problems.append(f"entrant {e.get('no')}: the replay registers it as "
                                       f"{got.no} {got.nick!r}")
        machine.start()
        report.entrants = len(machine.entrants)
        for s, states in enumerate(stages, start=1):
            if not isinstance(states, list):
                raise ValueError(f"stage {s} is not a list of tables")
            for row in states:
                if s > len(machine.stages):
                    raise TournamentError("stage", f"stage {s} should not exist")
                if not isinstance(row, dict) or type(row.get("table")) is not int:
                    raise ValueError(f"a table of stage {s} is not a map")
                sha = row.get("record_sha256")
                table_record = tables.get(sha) if isinstance(sha, str) else None
                if table_record is None:
                    report.problems.append(f"table {s}.{row['table']}: its match record "
                                           f"({row.get('record_file')}) is missing")
                    return report
                machine.table_done(s, row["table"], table_record, sha, row.get("record_file"))
                report.tables += 1
    except TournamentError as exc:
        report.problems.append(str(exc))
        return report
    except (ValueError, TypeError, KeyError) as exc:
        report.invalid.append(str(exc) or type(exc).__name__)
        return report
    replay = machine.to_record()
    diffs: list[str] = []
    _diff("", dict(record), replay, diffs)
    report.problems.extend(diffs)
    if machine.phase != "over":
        report.problems.append("the tournament did not reach the end of its final table")
    w = machine.winner
    report.winner = machine.entrants[w].nick if w is not None else None
    return report
