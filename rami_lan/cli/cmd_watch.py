"""``rami-lan watch TOURNAMENT|HOST:PORT``: watch a tournament's tables as a spectator.

The spectator registers as nobody (``t_hello`` with ``watch``) and receives every
table's public events and the view for no seat (``t_watch``): never a hidden card, at
plain and private tables alike (the organiser builds it with the core's view for no
seat, `rami_lan.core.views.view_for`), plus the standings. It ends with the tournament
(or Ctrl-C).
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from rami_lan.i18n import _, language
from rami_lan.textsafe import safe_text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tournament", help=_("tournament name on the LAN, or HOST:PORT"))
    parser.add_argument("--timeout", type=float, default=3.0,
                        help=_("seconds to look for the tournament on the LAN (default 3)"))
    parser.add_argument("--interface", action="append", metavar="IP",
                        help=_("only browse on this local address (repeatable; default all)"))


def run(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(_main(args))
    except LookupError:
        print(_("No tournament named {name} on the network.").format(
            name=repr(safe_text(args.tournament, 64))), file=sys.stderr)
        return 1
    except (OSError, ConnectionError) as exc:
        print(_("Could not connect: {err}").format(err=safe_text(str(exc))), file=sys.stderr)
        return 1


async def _main(args: argparse.Namespace) -> int:
    from rami_lan.cli.cmd_join import find_table
    from rami_lan.cli.tournament_join import standings_lines
    from rami_lan.cli.watching import watch_lines
    from rami_lan.ids import env_interfaces
    from rami_lan.net import tls
    from rami_lan.net import tournament_protocol as T
    from rami_lan.net.protocol import RemoteProtocolError
    from rami_lan.net.signals import install_shutdown

    install_shutdown(asyncio.get_running_loop())
    host, port, fp, _code = await find_table(args.tournament, args.timeout,
                                             args.interface or env_interfaces())
    reader, writer = await asyncio.open_connection(host, port, ssl=tls.client_context(),
                                                   ssl_handshake_timeout=10.0)
    if fp:
        tls.check_pinned(writer.get_extra_info("ssl_object"), fp)
    session = T.TSession("client")
    writer.write(session.send(T.THello(nick="spectator", lang=language(), watch=True)))
    over = False
    try:
        while not over:
            data = await reader.read(65536)
            if not data:
                break
            for msg in session.receive_data(data):
                if isinstance(msg, T.TWelcome):
                    print(_("Watching the tournament {name!r}.").format(
                        name=safe_text(str(msg.info.get("name", "")), 64)), flush=True)
                elif isinstance(msg, T.TRefused):
                    print(_("The tournament refused us: {why}").format(why=safe_text(msg.message)))
                    return 1
                elif isinstance(msg, T.TWatch):
                    for line in watch_lines(msg):
                        print(line, flush=True)
                elif isinstance(msg, T.TStandings):
                    print(_("Final standings:") if msg.over else
                          _("Standings after stage {n}:").format(n=msg.stage))
                    print("\n".join(standings_lines(msg.standings, -1)), flush=True)
                    over = msg.over
    except (RemoteProtocolError, ConnectionError, OSError) as exc:
        print(_("The tournament connection was lost: {err}").format(err=safe_text(str(exc))))
    finally:
        writer.close()
    return 0 if over else 1
