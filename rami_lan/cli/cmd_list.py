"""``rami-lan list``: the tables advertised on the LAN (mDNS), as text or JSON.

Every table is confirmed before it is listed: a TCP connection to its port
(`rami_lan.net.discovery.probe_table`), so a host killed without its goodbye, whose
record other mDNS caches still hold, is not offered. Text mode leaves such a table
out (one line on stderr says so); ``--json`` keeps it with ``"reachable": false``.

In text mode each table is printed as soon as it is resolved and answered (the browser asks QM
questions, so answers arrive within a fraction of a second even beside avahi-daemon or
another rami-lan); ``--json`` prints the whole list at the end of ``--timeout``.
Every string that came from the network is made printable and cut
(:mod:`rami_lan.textsafe`); an advertisement that does not follow the protocol (bad TXT
value, 5 seats, a fingerprint that is not 64 hex digits, a missing key) is skipped with
a one-line reason on stderr. SIGTERM and SIGHUP end it like Ctrl-C.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from rami_lan.i18n import _
from rami_lan.ids import env_interfaces
from rami_lan.textsafe import safe_name, safe_text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help=_("print the tables as JSON"))
    parser.add_argument("--timeout", type=float, default=2.0,
                        help=_("seconds to listen for tables (default 2)"))
    parser.add_argument("--interface", action="append", metavar="IP",
                        help=_("only browse on this local address (repeatable; default all)"))


def table_line(t: Any) -> str:
    """One line for a table, every network string made safe."""
    where = f"{t.addresses[0] if t.addresses else '?'}:{t.port}"
    flags = []
    if t.code_required:
        flags.append(_("code"))
    if getattr(t, "private_deal", False):
        flags.append(_("private deal"))
    if t.frapper:
        flags.append(_("frapper"))
    if t.timer:
        flags.append(_("timer {s}s").format(s=t.timer))
    if not t.compatible:
        flags.append(_("incompatible version"))
    return _("{name} — {host} — {variant} — {taken}/{total} seats — {where} {flags}").format(
        name=safe_name(t.name, 64), host=safe_name(t.host, 32), variant=safe_text(t.variant, 16),
        taken=t.seats_taken, total=t.seats_total, where=safe_text(where, 60),
        flags=" ".join(flags)).rstrip()


def table_json(t: Any, reachable: bool | None = None) -> dict[str, Any]:
    """The table as JSON; ``reachable``: its port accepted a connection (True), refused
    it or did not answer (False), not probed (None)."""
    return {
        "name": t.name, "host": t.host, "variant": t.variant,
        "seats_taken": t.seats_taken, "seats_total": t.seats_total,
        "point_limit": t.point_limit, "code_required": t.code_required,
        "frapper": t.frapper, "timer": t.timer, "table_id": t.table_id,
        "addresses": list(t.addresses), "port": t.port,
        "compatible": t.compatible, "service": t.service_name,
        "fingerprint": t.fingerprint,
        "private_deal": bool(getattr(t, "private_deal", False)),
        "reachable": reachable,
    }


async def _browse(args: argparse.Namespace) -> int:
    from rami_lan.cli.messages import interface_problem, os_error_text
    from rami_lan.net.discovery import find_tables, probe_table
    from rami_lan.net.signals import install_shutdown

    problem = interface_problem(args.interface)
    if problem:
        print(_("Can not look for tables on the network: {err}").format(err=problem), file=sys.stderr)
        return 2
    install_shutdown(asyncio.get_running_loop())
    interfaces = args.interface or env_interfaces()
    printed = 0
    probes: dict[str, asyncio.Task[bool | None]] = {}

    async def probed(t: Any) -> bool | None:
        up = await probe_table(t)
        if not args.json:
            show(t, up)
        return up

    def show(t: Any, up: bool | None) -> None:
        nonlocal printed
        if up:
            printed += 1
            print(table_line(t), flush=True)
        else:
            print(_("{name}: this table is gone (its host does not answer); not listed.").format(
                name=safe_name(t.name, 64)), file=sys.stderr, flush=True)

    def seen(t: Any) -> None:
        probes[t.service_name] = asyncio.create_task(probed(t))

    try:
        tables = await find_tables(max(0.1, args.timeout), interfaces, on_table=seen)
        for t in tables:  # a record updated after it was first seen: probe its last state
            if t.service_name not in probes:
                seen(t)
        reach = {name: await task for name, task in probes.items()}
    except Exception as exc:  # noqa: BLE001 - a bad --interface, no network: say it, no traceback
        err = os_error_text(exc) if isinstance(exc, OSError) else (str(exc) or type(exc).__name__)
        print(_("Can not look for tables on the network: {err}").format(err=safe_text(err)),
              file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps([table_json(t, bool(reach.get(t.service_name))) for t in tables],
                         ensure_ascii=False))
        return 0
    if not printed:
        print(_("No table found on the network."))
    return 0


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_browse(args))
