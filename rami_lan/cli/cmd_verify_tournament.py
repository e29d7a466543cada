"""``rami-lan verify TOURNAMENT.json``: a tournament record and every table's match record.

`rami_lan.cli.cmd_verify` hands a file whose ``format`` is ``rami-lan-tournament`` here.
Each table's match record is read from the tournament record's folder (its
``record_file``, a bare file name), its SHA-256 compared with the one the tournament
recorded, its fair shuffle verified like any match record (`rami_lan.net.record.verify`),
and the tournament replayed from its inputs (`rami_lan.tournament.record.verify`): the
draw from the committed secret and the contributions, each table's ranking from its
record, who went on, the standings and the winner. Exit 0: all agree; 1: a mismatch;
2: a file is not a readable record.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rami_lan.i18n import _

__all__ = ["verify_tournament"]


def _table_files(record: dict[str, Any]) -> list[str]:
    names: list[str] = []
    for states in record.get("stages") or ():
        for t in states if isinstance(states, list) else ():
            name = t.get("record_file") if isinstance(t, dict) else None
            if isinstance(name, str) and name not in names:
                names.append(name)
    return names[:64]


def verify_tournament(args: argparse.Namespace, record: dict[str, Any]) -> int:
    from rami_lan.cli.messages import record_error_text
    from rami_lan.net.record import MAX_RECORD_BYTES, check_record, read_json
    from rami_lan.net.record import verify as verify_match
    from rami_lan.textsafe import clip, safe_text
    from rami_lan.tournament.record import sha256_hex, verify

    path = safe_text(args.record, 300)
    folder = Path(args.record).parent
    tables: dict[str, Any] = {}
    lines: list[str] = []
    problems: list[str] = []
    for name in _table_files(record):
        shown = safe_text(name, 100)
        if Path(name).name != name or name in ("", ".", ".."):
            print(_("Invalid tournament record {path}: {err}").format(
                path=path, err=_("a table's record file is not a bare file name")), file=sys.stderr)
            return 2
        file = folder / name
        try:
            if file.stat().st_size > MAX_RECORD_BYTES:
                raise ValueError(_("larger than {n} bytes").format(n=MAX_RECORD_BYTES))
            data = file.read_bytes()
            table = read_json(file)
            check_record(table)
        except FileNotFoundError:
            problems.append(_("table record {name} is missing").format(name=shown))
            continue
        except (OSError, ValueError, RecursionError, MemoryError) as exc:
            print(_("Invalid match record {path}: {err}").format(
                path=shown, err=record_error_text(exc)), file=sys.stderr)
            return 2
        try:
            report = verify_match(table)
        except Exception as exc:  # noqa: BLE001 - a malformed file, not a proven mismatch
            print(_("Invalid match record {path}: {err}").format(
                path=shown, err=clip(f"{type(exc).__name__}: {exc}", 300)), file=sys.stderr)
            return 2
        if report.invalid:
            print(_("Invalid match record {path}: {err}").format(
                path=shown, err=clip(report.invalid[0], 300)), file=sys.stderr)
            return 2
        if not report.ok:
            problems.extend(_("table record {name}: {problem}").format(
                name=shown, problem=safe_text(p, 300)) for p in report.problems)
        lines.append(_("Table record {name}: {n} rounds checked").format(
            name=shown, n=report.rounds) if report.ok else
            _("Table record {name}: FAILED").format(name=shown))
        tables[sha256_hex(data)] = table
    try:
        result = verify(record, tables)
    except Exception as exc:  # noqa: BLE001 - a malformed file, not a proven mismatch
        print(_("Invalid tournament record {path}: {err}").format(
            path=path, err=clip(f"{type(exc).__name__}: {exc}", 300)), file=sys.stderr)
        return 2
    if result.invalid:
        print(_("Invalid tournament record {path}: {err}").format(
            path=path, err=clip(safe_text(result.invalid[0]), 300)), file=sys.stderr)
        return 2
    problems.extend(safe_text(p, 300) for p in result.problems)
    ok = not problems
    if getattr(args, "json", False):
        print(json.dumps({"ok": ok, "tournament": True, "tables": result.tables,
                          "entrants": result.entrants, "winner": result.winner,
                          "problems": problems}))
    else:
        print(_("Tournament record {path}").format(path=path))
        print("\n".join(lines))
        if ok:
            print(_("Tournament verified: the draw, {n} tables, who went on and the "
                    "standings agree; winner: {winner}").format(
                n=result.tables, winner=safe_text(result.winner or "-", 40)))
        else:
            print(_("Tournament verification FAILED:"))
            print("\n".join("  " + p for p in problems[:20]))
    return 0 if ok else 1
