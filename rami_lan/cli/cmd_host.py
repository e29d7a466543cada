"""``rami-lan host``: open a table on the LAN and host it.

Every table setting is an option. Without ``--headless`` the host also plays: after
the table starts, a client connects to it on 127.0.0.1 (the same code path as any
other player) and the game is played in this terminal. With ``--headless`` the host
has no seat; it prints the table's progress and exits when the match is over.

The host prints the *table fingerprint* (the short form of its TLS certificate's SHA-256)
for players to compare with theirs. It journals the match in ``config_dir()/tables``;
``--resume [JOURNAL]`` restarts a table after a crash from there (same table id,
fingerprint and, if free, port); the players' clients reconnect by themselves.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from pathlib import Path
from typing import Any

from rami_lan.i18n import _
from rami_lan.ids import BOT_LEVELS as LEVELS
from rami_lan.ids import VARIANT_IDS as VARIANTS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--name", default=None, help=_("table name (default: NICK's table)"))
    parser.add_argument("--variant", choices=VARIANTS, default="rami", help=_("rules variant"))
    parser.add_argument("--seats", type=int, choices=(2, 3, 4), default=4,
                        help=_("number of seats (2-4)"))
    parser.add_argument("--bot", action="append", default=[], metavar="SEAT=LEVEL",
                        help=_("a bot on seat SEAT (1-based) of LEVEL debutant|moyen|expert "
                               "(repeatable)"))
    parser.add_argument("--limit", type=int, default=None,
                        help=_("point limit / target (default: the variant's)"))
    parser.add_argument("--quick", action="store_true", help=_("quick match (500: 3 rounds)"))
    parser.add_argument("--knock", "--frapper", dest="knock", action="store_true",
                        help=_("allow knocking (frapper)"))
    private = parser.add_mutually_exclusive_group()
    private.add_argument("--private-deal", dest="private_deal", action="store_true", default=None,
                         help=_("deal from a masked deck: the host sees only its own cards and "
                                "its bots' (docs/masked_deck.md; the default with two or more "
                                "human seats)"))
    private.add_argument("--no-private-deal", dest="private_deal", action="store_false",
                         help=_("deal from the seeded deck, which the host can see (a restart "
                                "then keeps the round in progress)"))
    parser.add_argument("--timer", type=int, default=0,
                        help=_("seconds per move, 0 = no timer"))
    parser.add_argument("--code", default=None,
                        help=_("join code the players must give ('auto': make a strong one; "
                               "a weak code is refused)"))
    parser.add_argument("--who", choices=("anyone", "code", "invited"), default=None,
                        help=_("who may sit: anyone, with the join code, or invited players "
                               "only (default: code with --code, else anyone)"))
    parser.add_argument("--no-advertise", action="store_true",
                        help=_("do not advertise the table with mDNS"))
    parser.add_argument("--interface", action="append", metavar="IP",
                        help=_("listen and advertise on this local address only "
                               "(repeatable; default all)"))
    parser.add_argument("--port", type=int, default=0, help=_("TCP port (default: any free)"))
    parser.add_argument("--nick", default=None, help=_("your nickname"))
    parser.add_argument("--record-dir", default=None,
                        help=_("write the match record (for rami-lan verify) in this folder"))
    parser.add_argument("--headless", action="store_true",
                        help=_("host without playing (no seat for the host)"))
    parser.add_argument("--start-after", type=float, default=None, metavar="S",
                        help=_("start after S seconds even if seats are empty (bots fill them)"))
    parser.add_argument("--resume", nargs="?", const="", default=None, metavar="JOURNAL",
                        help=_("resume a table after a crash from its journal "
                               "(default: the newest unfinished one)"))
    parser.add_argument("--bot-delay", type=float, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--away-delay", type=float, default=None, help=argparse.SUPPRESS)


def journal_dir() -> Path:
    """Where hosts keep their crash journals (``rami_lan.paths.journal_dir``); journals
    of tables abandoned for ``journal.GRACE`` (7 days) are removed first."""
    from rami_lan.net.journal import prune_journals
    from rami_lan.paths import journal_dir as folder

    path = folder()
    prune_journals(path)
    return path


def newest_unfinished_journal(folder: Path) -> Path | None:
    """The most recent journal in ``folder`` whose match has no ``end`` record."""
    from rami_lan.net.journal import JournalError, replay

    found = sorted(folder.glob("*.journal"), key=lambda p: p.stat().st_mtime, reverse=True)
    for path in found:
        try:
            _snap, records = replay(path)
        except (JournalError, OSError):
            continue
        if not any(r.kind == "end" for r in records):
            return path
    return None


def parse_bots(specs: list[str], seats: int) -> dict[int, str]:
    """``--bot SEAT=LEVEL`` options as ``{seat index: level}``; a ValueError says, in the
    player's language, what a spec must look like."""
    bots: dict[int, str] = {}
    for spec in specs:
        seat_text, sep, level = spec.partition("=")
        seat = int(seat_text) - 1 if seat_text.isdigit() else -1
        if not sep or level not in LEVELS or not 0 <= seat < seats:
            from rami_lan.textsafe import safe_text

            raise ValueError(_("{option} {spec}: write SEAT=LEVEL, SEAT from 1 to {seats}, "
                               "LEVEL one of {levels}.").format(
                option="--bot", spec=safe_text(spec, 40), seats=seats, levels=", ".join(LEVELS)))
        bots[seat] = level
    return bots


def run(args: argparse.Namespace) -> int:
    from rami_lan.cli.open_table import local_owner, table_config

    if args.resume is not None:
        return _resume(args)
    owner = local_owner(args.nick)
    nick = owner.nickname
    try:
        args.code = _join_code(args)
    except ValueError as exc:
        from rami_lan.cli.messages import weak_code_text
        from rami_lan.net.pake import WeakCodeError

        why = weak_code_text(exc) if isinstance(exc, WeakCodeError) else str(exc)
        print(_("Invalid join code: {err}").format(err=why), file=sys.stderr)
        return 2
    from rami_lan.cli.messages import interface_problem

    if interface_problem(args.interface):
        print(_("Could not open the table: {err}").format(err=interface_problem(args.interface)),
              file=sys.stderr)
        return 2
    if not 0 <= args.port <= 65535:
        print(_("--port is between 1 and 65535 (0, the default: any free port)."), file=sys.stderr)
        return 2
    if args.start_after is not None and not args.start_after >= 0:
        print(_("--start-after is a number of seconds, 0 or more."), file=sys.stderr)
        return 2
    if args.record_dir is not None:
        problem = _folder_problem(Path(args.record_dir))
        if problem:
            print(_("Can not write match records in {path}: {err}").format(
                path=args.record_dir, err=problem), file=sys.stderr)
            return 2
    try:
        bots = parse_bots(args.bot, args.seats)
        extra: dict[str, Any] = {}
        if getattr(args, "private_deal", None) is not None:
            extra["private_deal"] = args.private_deal
        if args.record_dir is not None:
            extra["record_dir"] = args.record_dir
        config = table_config(
            owner,
            name=(args.name or "").strip() or _("{nick}'s table").format(nick=nick)[:64],
            variant=args.variant, seats=args.seats, bots=bots, limit=args.limit,
            quick=args.quick, knock=args.knock, timer=args.timer, join_code=args.code,
            who_may_sit=getattr(args, "who", None) or "",
            advertise=not args.no_advertise, interfaces=args.interface or "all",
            port=args.port, headless=args.headless, **extra, **_tuning(args),
        )
    except ValueError as exc:
        from rami_lan.cli.messages import settings_error_text

        print(_("Invalid table settings: {err}").format(err=settings_error_text(exc)), file=sys.stderr)
        return 2
    try:
        return asyncio.run(_main(config, args.start_after, owner,
                                 code_line=getattr(args, "code_line", "")))
    except OSError as exc:
        from rami_lan.cli.messages import os_error_text

        print(_("Could not open the table: {err}").format(err=os_error_text(exc)), file=sys.stderr)
        return 1


def _folder_problem(folder: Path) -> str:
    """Why records can not be written in ``folder`` (made if missing), or "" if they
    can: found before the table opens, not as a logged traceback after every round."""
    import tempfile

    from rami_lan.cli.messages import os_error_text

    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".rami-lan-check-"):
            pass
    except OSError as exc:
        return os_error_text(exc)
    return ""


def _join_code(args: argparse.Namespace) -> str | None:
    """The table's join code: checked if chosen, generated for ``--code auto`` or
    ``--who code`` without one (and printed); raises ``WeakCodeError`` for a weak one."""
    from rami_lan.net.pake import check_code_strength, generate_code

    code = args.code
    if code == "auto" or (code is None and getattr(args, "who", None) == "code"):
        code = generate_code()
        args.code_line = _("Join code: {code} (tell it to the players)").format(code=code)
        print(args.code_line, flush=True)
        return code
    return check_code_strength(code) if code is not None else None


def _tuning(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if getattr(args, "bot_delay", None) is not None:
        out["bot_delay"] = args.bot_delay
    if getattr(args, "away_delay", None) is not None:
        out["away_delay"] = args.away_delay
    return out


def _resume(args: argparse.Namespace) -> int:
    from rami_lan.cli.open_table import local_owner
    from rami_lan.net.host import TableHost
    from rami_lan.net.journal import (
        JournalCorruptError,
        JournalLockedError,
        JournalTamperedError,
    )

    path = Path(args.resume) if args.resume else newest_unfinished_journal(journal_dir())
    if path is None or not path.exists():
        print(_("No unfinished table to resume."), file=sys.stderr)
        return 1

    async def main() -> int:
        try:
            host = TableHost.resume(
                path, advertise=not args.no_advertise, interfaces=args.interface or "all",
                **_tuning(args))
        except JournalLockedError:
            print(_("This table is already running (its journal is locked)."), file=sys.stderr)
            return 1
        except JournalCorruptError as exc:
            print(_("The journal is damaged: {err}").format(err=_one_line(exc)), file=sys.stderr)
            return 2
        except JournalTamperedError as exc:
            print(_("The journal was edited, or was not written by this host: {err}").format(
                err=_one_line(exc)), file=sys.stderr)
            return 2
        except Exception as exc:  # noqa: BLE001 - a journal that does not replay: one line, exit 2
            print(_("Could not resume the table: {err}").format(err=_one_line(exc)), file=sys.stderr)
            return 2
        print(_("Resuming table {name!r} from {path}.").format(
            name=host.config.name, path=path), flush=True)
        return await _main(host.config, None, local_owner(args.nick), host)

    try:
        return asyncio.run(main())
    except OSError as exc:
        from rami_lan.cli.messages import os_error_text

        print(_("Could not open the table: {err}").format(err=os_error_text(exc)), file=sys.stderr)
        return 1


def _one_line(exc: BaseException) -> str:
    """An error about a journal as one clipped line (a crafted journal may hold anything)."""
    from rami_lan.textsafe import clip

    text = str(exc) or type(exc).__name__
    return clip(" ".join(text.split()), 400)


def _announce(host: Any, port: int) -> None:
    for line in _announcement(host, port):
        print(line, flush=True)


def _announcement(host: Any, port: int) -> list[str]:
    from rami_lan.cli.cmd_join import private_deal_line

    config = host.config
    return [
        _("Table {name!r} open on port {port} ({variant}, {seats} seats).").format(
            name=config.name, port=port, variant=config.variant, seats=config.seats),
        _("Table fingerprint: {fp} (players compare it with the one on their screen)").format(
            fp=host.short_fingerprint),
        private_deal_line(bool(getattr(config, "private_deal", False))),
    ]


async def _let_the_match_end(host: Any) -> None:
    """The owner's screen is closed once the match is over, but the table may still owe
    the last round's secrets (a private table's audit, then the record): wait for that
    (at most the audit's deadline, and a little) before closing, or every other player
    would fail that round. A match left before its end is not waited for."""
    match = getattr(host, "match", None)
    if match is None or not getattr(match, "over", False) or host.finished.is_set():
        return
    wait = float(getattr(host.config, "audit_timeout", 30.0)) + 5.0
    with contextlib.suppress(TimeoutError, asyncio.TimeoutError):
        await host.wait_finished(wait)


async def _main(config: Any, start_after: float | None, owner: Any, host: Any = None,
                code_line: str = "") -> int:
    from rami_lan.cli.open_table import open_table
    from rami_lan.net.signals import install_shutdown

    install_shutdown(asyncio.get_running_loop())  # SIGTERM/SIGHUP: the Ctrl-C path (goodbyes)
    table = await open_table(config, None if config.headless else owner, host=host,
                             announce=_announce)
    host = table.host
    starter = None
    if start_after is not None:
        async def later() -> None:
            await asyncio.sleep(start_after)
            await host.start_match()
        starter = asyncio.create_task(later())
    try:
        if table.session is None:
            await host.finished.wait()
            if host.record_path is not None:
                print(_("Match record: {path}").format(path=host.record_path))
            m = host.match
            if m.winner is not None:
                print(_("Winner: seat {seat}").format(seat=m.winner + 1))
            return 0
        from rami_lan.cli.cmd_join import play_in_terminal

        # The full screen hides what was printed: the owner reads it while waiting.
        intro = _announcement(host, table.port)
        if code_line:
            intro.insert(0, code_line)
        rc = await play_in_terminal(table.session, intro)
        await _let_the_match_end(host)
        return rc
    finally:
        if starter is not None:
            starter.cancel()
        await table.close()
