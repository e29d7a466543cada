"""``rami-lan replay RECORD``: step through a recorded match, every hand face up.

RECORD is a host's match record (``rami-lan-record``, see `rami_lan.net.record`; its
rounds must carry their ``actions``) or a replay record (``rami-lan-replay``, see
`rami_lan.replay`). Only argparse and i18n are imported at module level.

The file is read with bounds before anything is built from it (at most
``record.MAX_RECORD_BYTES``; a host record passes `rami_lan.net.record.check_record`, so
``"seats": 300000000`` is refused at once). Exit status 2, with one line and no
traceback, for any file that cannot be replayed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rami_lan.i18n import _

HOST_RECORD_FORMAT = "rami-lan-record"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", metavar="RECORD",
                        help=_("a match record (JSON) written by a host, or a replay record"))


def adapt_record(data: Any) -> dict[str, Any]:
    """A host's match record as `rami_lan.replay.ReplayRecord` plain data (docs/players.md's
    adapter); a replay record is returned unchanged. Raises ``ReplayError``."""
    from rami_lan.replay import ReplayError

    if not isinstance(data, dict):
        raise ReplayError(_("not a match record"))
    if data.get("format") != HOST_RECORD_FORMAT:
        return data
    try:
        nicks = {int(p["seat"]): str(p.get("nick") or "") for p in data.get("players") or []}
        rounds = []
        for x in data["rounds"]:
            if x.get("abandoned"):
                break  # an abandoned round ends the replay
            if x.get("void") is not None:  # nothing of it counts: only its number and dealer
                rounds.append({"void": True, "dealer": x["dealer"],
                               "withdrawals": x.get("withdrawals", [])})
                continue
            if "actions" not in x:
                raise ReplayError(_("this record has no actions (written by an older "
                                    "rami-lan): `rami-lan verify` can still check it"))
            rounds.append({
                "deck": x["deck"],
                "seed": x["seed"],
                "dealer": x["dealer"],
                "actions": x["actions"],
                "withdrawals": x.get("withdrawals", []),
            })
        seats = data["seats"]
        if type(seats) is not int or not 2 <= seats <= 4:
            raise ReplayError(_("not a match record: {err}").format(err="seats"))
        return {
            "variant": data["variant"],
            "seats": seats,
            "options": data.get("options") or {},
            "nicknames": [nicks.get(s, "") for s in range(seats)],
            "rounds": rounds,
        }
    except (KeyError, TypeError, ValueError) as e:
        if isinstance(e, ReplayError):
            raise
        raise ReplayError(_("not a match record: {err}").format(err=e)) from None


def read_json_file(path: str | Path) -> Any:
    """The JSON in a record file, read with bounds; raises OSError, UnicodeDecodeError,
    ``json.JSONDecodeError`` (the exceptions themselves, so the message can say what
    went wrong: `rami_lan.cli.messages.record_error_text`) or ``ValueError`` (too large,
    too many values, nested too deeply: `rami_lan.net.record.read_json`)."""
    from rami_lan.net.record import read_json

    return read_json(path)


def load_replay(path: str | Path) -> tuple[Any, bool]:
    """``(Replay, is_host_record)`` from a file; raises OSError, ValueError (JSON,
    ``ReplayError``, out of bounds)."""
    from rami_lan.net.record import check_record
    from rami_lan.replay import Replay, ReplayRecord

    data = read_json_file(path)
    host = isinstance(data, dict) and data.get("format") == HOST_RECORD_FORMAT
    if host:
        check_record(data)
    return Replay(ReplayRecord.from_plain(adapt_record(data))), host


def verifier(path: str | Path) -> Any:
    """What ``v`` runs on the replay screen: `verify_file(path)`'s report as text."""

    def run() -> str:
        from rami_lan.cli.messages import verify_report_lines
        from rami_lan.net.record import verify_file

        return "\n".join(verify_report_lines(verify_file(path)))

    return run


def run(args: argparse.Namespace) -> int:
    from rami_lan.cli.app import apply_settings_language
    from rami_lan.cli.settings import load_settings

    settings = load_settings()
    apply_settings_language(args, settings)
    try:
        replay, host = load_replay(args.record)
    except Exception as e:  # noqa: BLE001 - any bad file: one line, exit 2, no traceback
        from rami_lan.cli.messages import record_error_text
        from rami_lan.textsafe import safe_text

        print(_("Can not replay {path}: {err}").format(path=safe_text(args.record, 300),
                                                        err=record_error_text(e)), file=sys.stderr)
        return 2
    from rami_lan.cli.app import NOT_A_TERMINAL, terminal_missing

    if terminal_missing():
        return NOT_A_TERMINAL
    from rami_lan.cli.ui.replay_screen import ReplayScreen
    from rami_lan.cli.ui.shell import Shell

    shell = Shell()
    screen = ReplayScreen(replay, verify=verifier(args.record) if host else None,
                          four_colour=settings.four_colour, on_leave=shell.exit)
    shell.show(screen)
    return shell.run()
