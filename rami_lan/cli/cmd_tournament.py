"""``rami-lan tournament``: organise a LAN tournament and host every one of its tables.

Players register with ``rami-lan join ADDR`` (``--bot LEVEL`` for a bot), or by the
tournament's name on the LAN. The tournament starts once ``--players N`` humans have
registered, after ``--start-after S`` seconds, or when Enter is pressed. Tables are
drawn from a seed every registrant checks (docs/tournament.md); each table plays an
ordinary match, its best ``--advance`` players go on, the last table is the final. The
tournament record (``tournament-<id>.json``) and every table's match record are written
in ``--record-dir``; ``rami-lan verify`` checks them.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import sys
from pathlib import Path
from typing import Any

from rami_lan.i18n import _
from rami_lan.ids import BOT_LEVELS, DEFAULT_BOT_LEVEL
from rami_lan.ids import VARIANT_IDS as VARIANTS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--name", default=None, help=_("tournament name"))
    parser.add_argument("--variant", choices=VARIANTS, default="rami", help=_("rules variant"))
    parser.add_argument("--table-size", type=int, choices=(2, 3, 4), default=4,
                        help=_("seats of each table (2-4; tables are balanced)"))
    parser.add_argument("--advance", type=int, choices=(1, 2, 3), default=1,
                        help=_("players of each table who go on (default 1: the winner)"))
    parser.add_argument("--limit", type=int, default=None,
                        help=_("point limit / target of each match (default: the variant's)"))
    parser.add_argument("--quick", action="store_true", help=_("quick matches (500: 3 rounds)"))
    parser.add_argument("--knock", action="store_true", help=_("allow knocking (frapper)"))
    parser.add_argument("--timer", type=int, default=0, help=_("seconds per move, 0 = no timer"))
    parser.add_argument("--private-deal", action="store_true",
                        help=_("deal every table from a masked deck (docs/masked_deck.md)"))
    parser.add_argument("--fill-bots", action="store_true",
                        help=_("fill the first tables with bots"))
    parser.add_argument("--bot-level", choices=BOT_LEVELS, default=DEFAULT_BOT_LEVEL,
                        help=_("level of the bots that fill tables"))
    parser.add_argument("--players", type=int, default=None, metavar="N",
                        help=_("start as soon as N players have registered"))
    parser.add_argument("--start-after", type=float, default=None, metavar="S",
                        help=_("start S seconds after opening"))
    parser.add_argument("--join-wait", type=float, default=60.0, metavar="S",
                        help=_("seconds a table waits for its players before bots take "
                               "the empty seats (default 60)"))
    parser.add_argument("--code", default=None,
                        help=_("join code the players must give to register ('auto': make a "
                               "strong one; a weak code is refused)"))
    parser.add_argument("--port", type=int, default=0, help=_("TCP port (default: any free)"))
    parser.add_argument("--interface", action="append", metavar="IP",
                        help=_("listen and advertise on this local address only (repeatable)"))
    parser.add_argument("--no-advertise", action="store_true",
                        help=_("do not advertise the tournament with mDNS"))
    parser.add_argument("--record-dir", default=None,
                        help=_("write the tournament's records in this folder"))
    parser.add_argument("--nick", default=None, help=_("the organiser's nickname"))
    parser.add_argument("--resume", default=None, metavar="STATE",
                        help=_("take a tournament up after a crash from its state file "
                               "(tournament-<id>.state.json in the record folder)"))
    parser.add_argument("--seed", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--bot-delay", type=float, default=None, help=argparse.SUPPRESS)


def progress_line(kind: str, f: dict[str, Any]) -> str:
    """The organiser's screen line for one event of `TournamentHost.on_event`."""
    from rami_lan.textsafe import safe_name, safe_text

    def names(values: Any) -> str:
        return ", ".join(safe_name(str(v), 24) for v in values) or "-"

    if kind == "registered":
        return _("Registered: {nick} ({n} players)").format(nick=safe_name(f["nick"], 24), n=f["n"])
    if kind == "draw":
        return _("Registration closed. Draw: seed {seed}, {n} tables.").format(
            seed=f["seed"], n=f["tables"])
    if kind == "table_open":
        text = (_("Final table {table} on port {port}: {players}") if f.get("final") else
                _("Table {table} on port {port}: {players}"))
        return text.format(table=f["table"], port=f["port"], players=names(f["players"]))
    if kind == "table_late":
        return _("Table {table}: starting; bots play the seats of the players who did not "
                 "come.").format(table=f["table"])
    if kind == "table_over":
        return _("Table {table} is over; going on: {players}").format(
            table=f["table"], players=names(f["went_on"]))
    if kind == "over":
        return _("The tournament is over. Winner: {nick}").format(nick=safe_name(f["winner"], 24))
    return _("Tournament error: {err}").format(err=safe_text(str(f.get("text", "")), 300))


def _say(kind: str, fields: dict[str, Any]) -> None:
    print(progress_line(kind, fields), flush=True)


def run(args: argparse.Namespace) -> int:
    from rami_lan.cli.messages import interface_problem
    from rami_lan.cli.open_table import local_owner, records_dir
    from rami_lan.ids import env_interfaces
    from rami_lan.tournament.machine import TournamentConfig

    problem = interface_problem(args.interface)
    if problem:
        print(_("Could not open the tournament: {err}").format(err=problem), file=sys.stderr)
        return 2
    if args.players is not None and not 2 <= args.players <= 64:
        print(_("--players is between 2 and 64."), file=sys.stderr)
        return 2
    code = None
    if args.code is not None:
        from rami_lan.net.pake import WeakCodeError, check_code_strength, generate_code

        try:
            code = generate_code() if args.code == "auto" else check_code_strength(args.code)
        except (WeakCodeError, ValueError) as exc:
            from rami_lan.cli.messages import weak_code_text

            why = weak_code_text(exc) if isinstance(exc, WeakCodeError) else str(exc)
            print(_("Invalid join code: {err}").format(err=why), file=sys.stderr)
            return 2
        if args.code == "auto":
            print(_("Join code: {code} (tell it to the players)").format(code=code), flush=True)
    args.join_code = code
    owner = local_owner(args.nick)
    try:
        config = TournamentConfig(
            name=(args.name or "").strip()[:64] or _("{nick}'s tournament").format(
                nick=owner.nickname)[:64],
            variant=args.variant, table_size=args.table_size, advance=args.advance,
            limit=args.limit, quick=args.quick, knock=args.knock, timer=args.timer,
            private_deal=args.private_deal, fill_bots=args.fill_bots, bot_level=args.bot_level)
    except ValueError as exc:
        print(_("Invalid tournament settings: {err}").format(err=exc), file=sys.stderr)
        return 2
    interfaces = args.interface or env_interfaces()
    record_dir = Path(args.record_dir) if args.record_dir else records_dir()
    try:
        return asyncio.run(_main(args, config, interfaces, record_dir, owner.nickname))
    except OSError as exc:
        from rami_lan.cli.messages import os_error_text

        print(_("Could not open the tournament: {err}").format(err=os_error_text(exc)),
              file=sys.stderr)
        return 1


async def _main(args: argparse.Namespace, config: object, interfaces: object,
                record_dir: Path, organiser: str) -> int:
    from rami_lan.net.signals import install_shutdown
    from rami_lan.net.tournament_host import TournamentHost

    install_shutdown(asyncio.get_running_loop())
    ids: dict[str, bytes] = {}
    if args.seed is not None:  # tests: the same tournament id and secret every run
        digest = hashlib.sha256(f"rami-lan tournament test {args.seed}".encode()).digest()
        ids = {"tournament_id": digest[:16], "secret": hashlib.sha256(digest).digest()}
    tuning = {} if args.bot_delay is None else {"bot_delay": args.bot_delay}
    if args.resume:
        try:
            host = TournamentHost.resume(args.resume, interfaces=interfaces,
                                         advertise=not args.no_advertise, table_tuning=tuning,
                                         on_event=_say)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            from rami_lan.textsafe import safe_text

            print(_("Could not resume the tournament: {err}").format(
                err=safe_text(str(exc) or type(exc).__name__, 300)), file=sys.stderr)
            return 2
    else:
        host = TournamentHost(config, interfaces=interfaces,  # type: ignore[arg-type]
                              port=args.port, advertise=not args.no_advertise,
                              record_dir=record_dir, start_at=args.players,
                              join_wait=args.join_wait, organiser=organiser,
                              table_tuning=tuning, on_event=_say, join_code=args.join_code, **ids)
    port = await host.start()
    print(_("Tournament {name!r} open on port {port} ({variant}, tables of {size}).").format(
        name=host.config.name, port=port, variant=host.config.variant,
        size=host.config.table_size), flush=True)
    print(_("Fingerprint: {fp}").format(fp=host.identity.short_fingerprint), flush=True)
    print(_("Commitment to the draw: {c}").format(c=host.machine.commitment.hex()), flush=True)
    starter = None
    if args.start_after is not None:
        async def later() -> None:
            await asyncio.sleep(max(0.0, args.start_after))
            await host.begin()
        starter = asyncio.create_task(later())
    elif args.players is None and sys.stdin.isatty():
        print(_("Press Enter to start the tournament."), flush=True)
        loop = asyncio.get_running_loop()

        def on_enter() -> None:
            sys.stdin.readline()
            loop.remove_reader(sys.stdin)
            loop.create_task(host.begin())
        loop.add_reader(sys.stdin, on_enter)
    try:
        await host.finished.wait()
    finally:
        if starter is not None:
            starter.cancel()
        await host.stop()
    print(_("Tournament record: {path}").format(path=host.record_path), flush=True)
    if host.error:
        print(host.error, file=sys.stderr)
        return 1
    return 0
