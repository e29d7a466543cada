"""``rami-lan verify RECORD``: re-check a match record's fair shuffle offline.

Exit status 0 when every round matches the agreed shuffle, 1 on any mismatch (the
report names each one), 2 when the file is not a readable match record (unreadable, not
JSON, larger than the limits, checked before parsing: `rami_lan.net.record.read_json`;
out of bounds: `rami_lan.net.record.check_record`; or malformed in a way only the replay
shows), with one line on stderr. Never a traceback: whatever the file holds, the answer is
one of these, in bounded time and memory. A void round is no mismatch: the report
explains it ("round 3 void: ...", ``notes`` with ``--json``).
"""

from __future__ import annotations

import argparse
import json
import sys

from rami_lan.i18n import _


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", help=_("the match record file (JSON) written by the host"))
    parser.add_argument("--json", action="store_true", help=_("print the report as JSON"))


def run(args: argparse.Namespace) -> int:
    from rami_lan.cli.cmd_replay import read_json_file
    from rami_lan.cli.messages import record_error_text, verify_report_lines
    from rami_lan.net.record import RECORD_FORMAT, check_record, verify
    from rami_lan.textsafe import clip, safe_text

    path = safe_text(args.record, 300)
    try:
        record = read_json_file(args.record)
    except (OSError, ValueError, RecursionError, MemoryError) as exc:
        print(_("Can not read {path}: {err}").format(path=path, err=record_error_text(exc)),
              file=sys.stderr)
        return 2
    from rami_lan.tournament.record import is_tournament_record

    if is_tournament_record(record):
        from rami_lan.cli.cmd_verify_tournament import verify_tournament

        return verify_tournament(args, record)
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        print(_("{path} is not a match record (a host writes them: rami-lan host "
                "--record-dir, or the data folder's records/).").format(path=path), file=sys.stderr)
        return 2
    try:
        check_record(record)
    except (ValueError, RecursionError, MemoryError) as exc:
        print(_("Invalid match record {path}: {err}").format(path=path, err=record_error_text(exc)),
              file=sys.stderr)
        return 2
    try:
        report = verify(record)
    except Exception as exc:  # noqa: BLE001 - a malformed file, not a proven mismatch
        print(_("Invalid match record {path}: {err}").format(
            path=path, err=clip(f"{type(exc).__name__}: {exc}", 300)), file=sys.stderr)
        return 2
    if report.invalid:  # malformed in a way only the replay shows: not a proven mismatch
        print(_("Invalid match record {path}: {err}").format(
            path=path, err=clip(report.invalid[0], 300)), file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"ok": report.ok, "rounds": report.rounds,
                          "cards": report.checked_cards, "problems": report.problems,
                          "notes": report.notes}))
    else:
        print(_("Match record {path}").format(path=path))
        print("\n".join(verify_report_lines(report)))
    return 0 if report.ok else 1

