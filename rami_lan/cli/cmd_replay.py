"""``rami-lan replay RECORD``: step through a recorded match, every hand face up.

RECORD is a host's match record (``rami-lan-record``, see `rami_lan.net.record`; its
rounds must carry their ``actions``) or a replay record (``rami-lan-replay``, see
`rami_lan.replay`). Only argparse and i18n are imported at module level.
"""

from __future__ import annotations

import argparse
import json
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
        seats = int(data["seats"])
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


def load_replay(path: str | Path) -> tuple[Any, bool]:
    """``(Replay, is_host_record)`` from a file; raises OSError, ValueError (JSON,
    ``ReplayError``)."""
    from rami_lan.replay import Replay, ReplayRecord

    data = json.loads(Path(path).read_text(encoding="utf-8"))
    host = isinstance(data, dict) and data.get("format") == HOST_RECORD_FORMAT
    return Replay(ReplayRecord.from_plain(adapt_record(data))), host


def verifier(path: str | Path) -> Any:
    """What ``v`` runs on the replay screen: `verify_file(path)`'s report as text."""

    def run() -> str:
        from rami_lan.net.record import verify_file

        return verify_file(path).text()

    return run


def run(args: argparse.Namespace) -> int:
    from rami_lan.cli.app import apply_settings_language
    from rami_lan.cli.settings import load_settings

    settings = load_settings()
    apply_settings_language(args, settings)
    try:
        replay, host = load_replay(args.record)
    except (OSError, ValueError) as e:  # ReplayError and JSON errors are ValueErrors
        print(_("Can not replay {path}: {err}").format(path=args.record, err=e))
        return 2
    from rami_lan.cli.ui.replay_screen import ReplayScreen
    from rami_lan.cli.ui.shell import Shell

    shell = Shell()
    screen = ReplayScreen(replay, verify=verifier(args.record) if host else None,
                          four_colour=settings.four_colour, on_leave=shell.exit)
    shell.show(screen)
    return shell.run()
