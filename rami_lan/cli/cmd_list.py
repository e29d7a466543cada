"""``rami-lan list``: the tables advertised on the LAN (mDNS), as text or JSON."""

from __future__ import annotations

import argparse
import asyncio
import json

from rami_lan.i18n import _


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help=_("print the tables as JSON"))
    parser.add_argument("--timeout", type=float, default=2.0,
                        help=_("seconds to listen for tables (default 2)"))
    parser.add_argument("--interface", action="append", metavar="IP",
                        help=_("only browse on this local address (repeatable; default all)"))


def run(args: argparse.Namespace) -> int:
    from rami_lan.net.discovery import find_tables

    interfaces = args.interface or "all"
    tables = asyncio.run(find_tables(max(0.1, args.timeout), interfaces))
    if args.json:
        print(json.dumps([
            {
                "name": t.name, "host": t.host, "variant": t.variant,
                "seats_taken": t.seats_taken, "seats_total": t.seats_total,
                "point_limit": t.point_limit, "code_required": t.code_required,
                "frapper": t.frapper, "timer": t.timer, "table_id": t.table_id,
                "addresses": list(t.addresses), "port": t.port,
                "compatible": t.compatible, "service": t.service_name,
                "fingerprint": t.fingerprint,
            }
            for t in tables
        ], ensure_ascii=False))
        return 0
    if not tables:
        print(_("No table found on the network."))
        return 0
    for t in tables:
        where = f"{t.addresses[0] if t.addresses else '?'}:{t.port}"
        flags = []
        if t.code_required:
            flags.append(_("code"))
        if t.frapper:
            flags.append(_("frapper"))
        if t.timer:
            flags.append(_("timer {s}s").format(s=t.timer))
        if not t.compatible:
            flags.append(_("incompatible version"))
        print(_("{name} — {host} — {variant} — {taken}/{total} seats — {where} {flags}").format(
            name=t.name, host=t.host, variant=t.variant, taken=t.seats_taken,
            total=t.seats_total, where=where, flags=" ".join(flags)).rstrip())
    return 0
