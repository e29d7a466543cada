"""``rami-lan verify RECORD``: re-check a match record's fair shuffle offline.

Exit status 0 when every round matches the agreed shuffle, 1 on any mismatch (the
report names each one), 2 when the file is not a readable match record (unreadable, not
JSON, out of bounds: see `rami_lan.net.record.check_record`, or malformed in a way the
checks trip over). Never a traceback: whatever the file holds, the answer is one of these.
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
    from rami_lan.net.record import load_record, verify
    from rami_lan.textsafe import clip

    try:
        record = load_record(args.record)
    except (ValueError, RecursionError, MemoryError) as exc:
        print(_("Not a match record: {err}").format(err=clip(exc, 300)), file=sys.stderr)
        return 2
    try:
        report = verify(record)
    except Exception as exc:  # noqa: BLE001 - a malformed file, not a proven mismatch
        print(_("Invalid match record: {err}").format(
            err=clip(f"{type(exc).__name__}: {exc}", 300)), file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"ok": report.ok, "rounds": report.rounds,
                          "cards": report.checked_cards, "problems": report.problems}))
    else:
        print(_("Match record {path}").format(path=args.record))
        print(_("rounds checked: {r}, cards checked: {c}").format(
            r=report.rounds, c=report.checked_cards))
        for problem in report.problems:
            print(_("MISMATCH: {what}").format(what=problem))
        if report.ok:
            print(_("OK: every round matches the agreed shuffle."))
        else:
            print(_("FAILED: this record does not match the fair shuffle."))
    return 0 if report.ok else 1
