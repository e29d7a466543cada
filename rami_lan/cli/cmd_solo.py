"""``rami-lan solo``: play at once against bots, on a table held in this process.

Only argparse and i18n are imported at module level: ``rami-lan --help`` imports every
command module, and must stay fast. The rules core is imported when a game starts.
"""

from __future__ import annotations

import argparse
import secrets
import sys
from typing import TYPE_CHECKING

from rami_lan.i18n import _

if TYPE_CHECKING:
    from rami_lan.cli.local_session import LocalTableSession

from rami_lan.ids import BOT_LEVELS, VARIANT_IDS

__all__ = ["BOT_LEVELS", "VARIANT_IDS", "add_arguments", "make_solo_session", "run"]

DEFAULT_THINK = 0.5


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--variant", choices=VARIANT_IDS, default="rami",
                        help=_("the variant (default: rami)"))
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4),
                        help=_("players at the table, you included (default: 2)"))
    parser.add_argument("--level", choices=BOT_LEVELS, default="moyen",
                        help=_("the bots' level (default: moyen)"))
    parser.add_argument("--seed", default=None,
                        help=_("deal seed, to replay the same cards (plays in-process)"))
    parser.add_argument("--limit", type=int, default=None,
                        help=_("point limit or target (default: the variant's)"))
    parser.add_argument("--quick", action="store_true", help=_("quick match (500: 3 rounds)"))
    parser.add_argument("--knock", "--frapper", dest="frapper", action="store_true",
                        help=_("allow knocking (frapper)"))
    parser.add_argument("--timer", type=int, default=0, choices=(0, 15, 30, 60),
                        help=_("seconds per move, 0 = off"))
    parser.add_argument("--think", type=float, default=DEFAULT_THINK,
                        help=_("seconds a bot waits before playing"))


def make_solo_session(
    variant: str = "rami",
    players: int = 2,
    level: str = "moyen",
    seed: str | int | None = None,
    *,
    limit: int | None = None,
    knock: bool = False,
    timer: int = 0,
    think: float = DEFAULT_THINK,
    nickname: str = "",
    bots: dict[int, str] | None = None,
    quick: bool = False,
) -> LocalTableSession:
    """A table machine in this process (reproducible deals): you at seat 0, bots elsewhere."""
    from rami_lan.cli.local_session import LocalTableSession
    from rami_lan.core.match import MatchOptions
    from rami_lan.core.variants import get_variant
    from rami_lan.profile import localized_nickname

    v = get_variant(variant)
    levels = bots if bots is not None else {s: level for s in range(1, players)}
    names = {0: localized_nickname(nickname)}
    names.update({s: f"Bot {s + 1}" for s in levels})  # as every table names its bots
    return LocalTableSession(
        v.id,
        players,
        0,
        levels,
        MatchOptions(limit=limit, quick=quick and bool(v.quick_rounds),
                     knock=knock and v.knock_supported),
        seed if seed is not None else secrets.token_hex(8),
        think,
        timer=timer,
        nicknames=names,
    )


def run(args: argparse.Namespace) -> int:
    """Solo: a table opened with `open_table` (loopback, not advertised), like any table.

    With ``--seed`` the deal is reproducible, so the table machine runs in-process
    instead (the fair shuffle draws fresh secrets every round).
    """
    from rami_lan.cli.app import apply_settings_language, run_table_app
    from rami_lan.cli.messages import settings_error_text
    from rami_lan.cli.settings import load_settings

    settings = load_settings()
    apply_settings_language(args, settings)
    if not args.think >= 0:
        print(_("--think is a number of seconds, 0 or more."), file=sys.stderr)
        return 2
    if args.seed is None:
        import asyncio

        try:
            return asyncio.run(_solo_over_loopback(args, settings))
        except (OSError, ValueError) as e:
            print(_("Can not open this table: {err}").format(err=settings_error_text(e)),
                  file=sys.stderr)
            return 2
    try:
        session = make_solo_session(
            args.variant,
            args.players,
            args.level,
            args.seed,
            limit=args.limit,
            quick=args.quick,
            knock=args.frapper,
            timer=args.timer,
            think=args.think,
            nickname=settings.nickname,
        )
    except ValueError as e:
        print(_("Can not open this table: {err}").format(err=settings_error_text(e)),
              file=sys.stderr)
        return 2
    return run_table_app(session, settings)


async def _solo_over_loopback(args: argparse.Namespace, settings: object) -> int:
    from rami_lan.cli.app import run_table_screen
    from rami_lan.cli.open_table import Owner, open_table, solo_config
    from rami_lan.i18n import language
    from rami_lan.profile import localized_nickname

    owner = Owner(localized_nickname(getattr(settings, "nickname", "")), language())
    config = solo_config(owner, variant=args.variant, players=args.players, level=args.level,
                         limit=args.limit, quick=args.quick, knock=args.frapper,
                         timer=args.timer, bot_delay=args.think)
    table = await open_table(config, owner)
    try:
        return await run_table_screen(table.session, settings)  # type: ignore[arg-type]
    finally:
        await table.close()
