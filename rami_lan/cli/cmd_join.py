"""``rami-lan join TABLE|HOST:PORT``: take a seat at a table on the LAN.

``TABLE`` is a table name (or the start of its id) found by mDNS; ``HOST:PORT`` skips
discovery. With ``--bot LEVEL`` a bot plays the seat headless until the match ends and
a summary is printed. Otherwise the table is played in the terminal: the full screen
of ``rami_lan.cli.app`` when it is installed, else a minimal line-based client
(`play_in_terminal`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
import time
from collections.abc import Sequence
from typing import Any

from rami_lan.cli.messages import (
    error_text,
    fairness_details,
    join_refused_text,
    notice_text,
    os_error_text,
    session_text,
)
from rami_lan.i18n import _, language, ngettext
from rami_lan.ids import env_interfaces
from rami_lan.net.joining import RETRY_WINDOW, join_retrying
from rami_lan.stats import card_source
from rami_lan.textsafe import safe_name, safe_text

log = logging.getLogger(__name__)

REJOIN_LOOK = 2.0
"""Seconds one mDNS look for our table lasts before `rejoin` tries the kept address again."""

LEVELS = ("debutant", "moyen", "expert")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("table", help=_("table name (or id) on the LAN, or HOST:PORT"))
    parser.add_argument("--bot", choices=LEVELS, help=_("let a bot of this level play the seat"))
    parser.add_argument("--code", help=_("the table's join code"))
    parser.add_argument("--nick", default=None, help=_("your nickname"))
    parser.add_argument("--timeout", type=float, default=3.0,
                        help=_("seconds to look for the table on the LAN (default 3)"))
    parser.add_argument("--interface", action="append", metavar="IP",
                        help=_("only browse on this local address (repeatable; default all)"))
    # Tests and benchmarks: the --bot's think delay in seconds (default: the level's own).
    parser.add_argument("--bot-delay", type=float, default=None, help=argparse.SUPPRESS)


def _split_address(text: str) -> tuple[str, int] | None:
    host, sep, port = text.rpartition(":")
    if sep and host and port.isdigit():
        return host.strip("[]"), int(port)
    return None


async def find_table(text: str, timeout: float,
                     interfaces: Any) -> tuple[str, int, str | None, bool]:
    """``(host, port, fingerprint, code_required)`` of a table: ``HOST:PORT`` as is (no
    fingerprint to pin), or a table found by name / id with mDNS (its TXT ``fp``),
    returned as soon as it resolves (``timeout`` is only the longest wait). Raises
    LookupError when no table matches in time."""
    addr = _split_address(text)
    if addr is not None:
        return addr[0], addr[1], None, False
    from rami_lan.net import discovery

    try:
        table = await discovery.find_table(text, max(0.1, timeout), interfaces)
    except Exception as exc:  # noqa: BLE001 - a bad --interface, no network: no traceback
        err = os_error_text(exc) if isinstance(exc, OSError) else (str(exc) or type(exc).__name__)
        raise BrowseError(safe_text(err)) from None
    if table is None:
        raise LookupError(text)
    return table.addresses[0], table.port or 0, table.fingerprint or None, table.code_required


class BrowseError(Exception):
    """mDNS could not be used (a bad ``--interface``, no network); the text is safe."""


class TableGone(LookupError):
    """We have a seat at this table (kept on disk), but neither its last address nor
    mDNS found it for the whole join window, nor a table of that name: its host has
    closed, or the match ended while we were away. ``name``: the table's, to print."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def run(args: argparse.Namespace) -> int:
    from rami_lan.cli.messages import interface_problem
    from rami_lan.cli.settings import clean_nickname, load_settings
    from rami_lan.profile import localized_nickname

    problem = interface_problem(args.interface)
    if problem:
        print(_("Can not look for tables on the network: {err}").format(err=problem), file=sys.stderr)
        return 2
    addr = _split_address(args.table)
    if addr is not None and not 1 <= addr[1] <= 65535:
        print(_("Bad address {addr}: the port must be between 1 and 65535.").format(
            addr=repr(safe_text(args.table, 64))), file=sys.stderr)
        return 2
    nick = clean_nickname(args.nick or "") or localized_nickname(load_settings().nickname)
    if args.bot and not args.nick:
        nick = f"bot-{args.bot}"
    try:
        return asyncio.run(_main(args, nick))
    except TableGone as exc:
        print(_("This table is gone: its host no longer answers."), file=sys.stderr)
        print(_("Your seat at {name} is kept for two days: run the same command again if "
                "its host comes back.").format(name=safe_name(exc.name, 64)), file=sys.stderr)
        return 1
    except LookupError:
        print(_("No table named {name} on the network.").format(name=repr(safe_text(args.table, 64))),
              file=sys.stderr)
        return 1
    except BrowseError as exc:
        print(_("Can not look for tables on the network: {err}").format(err=exc), file=sys.stderr)
        return 2


async def _main(args: argparse.Namespace, nick: str) -> int:
    from rami_lan.net.client import FingerprintMismatch, JoinRefused, PakeFailed, open_session
    from rami_lan.net.seats import SeatStore
    from rami_lan.net.signals import install_shutdown
    from rami_lan.net.tls import KnownTables

    install_shutdown(asyncio.get_running_loop())
    store = SeatStore()
    interfaces = args.interface or env_interfaces()
    # The certificate this table (as the player names it) had last time: a failed join
    # code with a changed certificate is then reported as possible interception.
    known = KnownTables()
    host, port, fp = args.table, 0, None
    try:
        kept = store.find(args.table)
        session = None
        if kept is not None:  # our seat at this table, kept when we were seated
            print(_("You have a seat at {name}: looking for the table (its host may be "
                    "restarting)…").format(
                name=safe_name(kept.table_name or kept.table_id[:12], 64)), flush=True)
            session = await rejoin(kept, store, args, interfaces)
            if session is not None:
                print(_("Back in your seat at {name} (seat {seat}).").format(
                    name=safe_name(kept.table_name or kept.table_id[:12], 64),
                    seat=session.seat + 1), flush=True)
        if session is None:
            try:
                host, port, fp, code_required = await find_table(args.table, args.timeout,
                                                                 interfaces)
            except LookupError:
                if kept is not None and store.get(kept.table_id) is not None:
                    # Still kept: the table was not reached (a refused token removes it).
                    raise TableGone(kept.table_name or kept.table_id[:12]) from None
                raise

            async def connect() -> Any:
                return await open_session(host, port, nickname=nick, lang=language(),
                                          code=args.code, bot=bool(args.bot), fingerprint=fp,
                                          code_required=code_required,
                                          known_fingerprint=known.get(args.table),
                                          seat_store=store, card=card_source(nick, None))

            session = await join_retrying(connect, max(0.0, args.timeout) + RETRY_WINDOW)
    except JoinRefused as exc:
        if exc.code == "tournament":  # the address is a tournament's: register with it
            from rami_lan.cli.tournament_join import join_tournament

            async def seat(session: Any) -> int:
                if args.bot:
                    return await run_bot(session, args.bot, getattr(args, "bot_delay", None))
                return await play_in_terminal(session)

            from rami_lan.net.tournament_store import TournamentStore

            return await join_tournament(host, port, args, nick, fp, seat,
                                         store=TournamentStore(), seat_store=store)
        print(_("The table refused us: {why}").format(why=safe_text(join_refused_text(exc))),
              file=sys.stderr)
        return 1
    except FingerprintMismatch as exc:
        print(_("The table's certificate changed: someone may be intercepting the "
                "connection. ({err})").format(err=exc), file=sys.stderr)
        return 4
    except PakeFailed as exc:
        print(safe_text(notice_text(exc.notice)), file=sys.stderr)
        return 4
    except (OSError, ConnectionError, TimeoutError, ValueError, OverflowError) as exc:
        # OSError: unreachable; ValueError: the peer broke the protocol (ProtocolError).
        if isinstance(exc, ConnectionRefusedError) and _split_address(args.table) is None:
            # Found on the LAN, nothing listens: a record left by a host that died.
            print(_("This table is gone: its host no longer answers."), file=sys.stderr)
            return 1
        err = os_error_text(exc) if isinstance(exc, OSError) else str(exc)
        print(_("Could not connect to {host}:{port}: {err}").format(
            host=safe_text(host, 64), port=port, err=safe_text(err)), file=sys.stderr)
        return 1
    if session.fingerprint:
        with contextlib.suppress(OSError):
            known.remember(args.table, session.fingerprint)
    try:
        if args.bot:
            return await run_bot(session, args.bot, getattr(args, "bot_delay", None))
        return await play_in_terminal(session)
    finally:
        await session.close()


async def rejoin(kept: Any, store: Any, args: argparse.Namespace, interfaces: Any) -> Any:
    """Take our own seat again with the kept credentials (`rami_lan.net.seats`): at the
    address we had, else where the table id is advertised now (a host resumed on another
    port). None when the host no longer knows the seat (the file is then removed) or the
    table can not be reached: the caller joins as a newcomer."""
    from rami_lan.net import discovery
    from rami_lan.net.client import JoinRefused, open_session

    async def at(host: str, port: int) -> Any:
        return await join_retrying(lambda: open_session(
            host, port, nickname=kept.nickname, lang=language(), token=kept.token,
            code=args.code or kept.code, code_required=kept.code is not None,
            fingerprint=kept.fingerprint, bot=bool(args.bot), seat_store=store,
            card=card_source(kept.nickname, None)),
            max(0.0, args.timeout) + RETRY_WINDOW)

    # A host being restarted (``host --resume``) neither listens nor advertises for a few
    # seconds: the kept address and the table id are tried again until the join window
    # (``--timeout`` plus RETRY_WINDOW) is spent, not once each.
    end = time.monotonic() + max(0.0, args.timeout) + RETRY_WINDOW
    try:
        while True:
            try:
                return await at(kept.host, kept.port)
            except (OSError, TimeoutError) as exc:
                if isinstance(exc, JoinRefused):
                    raise
                log.info("rejoin: our seat's address %s:%s failed (%s: %s); looking for table %s",
                         kept.host, kept.port, type(exc).__name__, str(exc)[:120],
                         kept.table_id[:12])
            left = end - time.monotonic()
            ad = await discovery.find_table(kept.table_id, max(0.1, min(left, REJOIN_LOOK)),
                                            interfaces)
            if ad is not None:
                return await at(ad.addresses[0], ad.port or 0)
            if end - time.monotonic() <= 0:
                log.info("rejoin: table %s not found on the network", kept.table_id[:12])
                return None
            log.info("rejoin: table %s not advertised yet; trying again", kept.table_id[:12])
    except JoinRefused as exc:
        if exc.code not in ("bad_token", "in_progress"):
            raise
        log.info("rejoin: the table no longer knows our seat (%s): joining as a newcomer", exc.code)
        store.remove(kept.table_id)
        return None
    except (OSError, TimeoutError) as exc:
        log.info("rejoin failed (%s: %s): joining as a newcomer", type(exc).__name__, str(exc)[:120])
        return None


def private_deal_line(on: bool) -> str:
    """Whether the table deals privately, for the host's and ``join``'s output."""
    if on:
        return _("Private dealing: on (the host sees only its own cards and its bots').")
    return _("Private dealing: off (the host can see the whole deck).")


def _print_private_deal(session: Any) -> None:
    """Say whether the table deals privately (``welcome.table.private_deal``)."""
    table = getattr(session, "table", None)
    if isinstance(table, dict):
        print(private_deal_line(bool(table.get("private_deal"))), flush=True)


async def run_bot(session: Any, level: str, delay: float | None = None) -> int:
    """Let a bot play ``session`` until the match ends; print a summary (``delay``: the
    bot's think delay, None: its level's own)."""
    from rami_lan.net.bot_client import BotClient

    print(_("Seated at seat {seat}; a bot ({level}) plays.").format(seat=session.seat + 1,
                                                                  level=level))
    fp = session.table.get("fingerprint")
    if fp:
        print(_("Table fingerprint: {fp}").format(fp=fp), flush=True)
    _print_private_deal(session)
    summary = await BotClient(session, level=level, delay=delay).run()
    print(_("Rounds played: {n}").format(n=summary.rounds))
    if summary.totals:
        totals = ", ".join(f"{s + 1}: {t}" for s, t in sorted(summary.totals.items()))
        print(_("Totals: {totals}").format(totals=totals))
    if summary.winner is not None:
        print(_("Winner: seat {seat}").format(seat=summary.winner + 1))
    return fairness_summary(session, summary)


def fairness_summary(session: Any, summary: Any) -> int:
    """Print how many rounds were checked; the exit status of ``join --bot``.

    0: every round fully checked; 3: a round FAILED (the host cheated or erred); 5: a
    round was not (fully) checked (events missed during a disconnect, or the session
    ended first); 1: the match did not finish.

    A client relaunched after a crash goes on from what its dead process had checked
    (the seat's checkpoint): the round it came back in can only be checked in part (its
    events before the relaunch are unknown to it: its commit-reveal and the cards it saw
    are checked, not the play). That round alone does not make the status 5: the status
    is 0 when everything this seat could check passed.
    """
    if not summary.finished:
        print(_("The match did not finish: the table closed or the connection was lost."))
    rounds = list(session.fairness_rounds()) if hasattr(session, "fairness_rounds") else []
    if not rounds:  # a session without a verifier: the (ok, details) list only
        bad = [d for ok, d in summary.fairness if not ok]
        for d in bad:
            for line in str(d).splitlines()[:20]:
                print(safe_text(line, 300))
        return 3 if bad else (0 if summary.finished else 1)
    from rami_lan.table.verifier import RELAUNCHED

    checked = [r for r in rounds if r.status == "checked"]
    failed = [r for r in rounds if r.status == "failed"]
    relaunched = [r for r in rounds if r.status == "partial" and r.reason == RELAUNCHED]
    other = [r for r in rounds if r.status not in ("checked", "failed") and r not in relaunched]
    print(_("Rounds checked: {n} of {total}").format(n=len(checked), total=len(rounds)))
    if failed:
        print(ngettext("Fairness check FAILED in {n} round:", "Fairness check FAILED in {n} rounds:",
                       len(failed)).format(n=len(failed)))
        for r in failed:
            print(safe_text(fairness_details(r), 2000))
        return 3
    if other:
        print(_("Rounds not fully checked: {n}").format(n=len(other)))
        for r in other:
            print(safe_text(fairness_details(r), 2000))
        return 5
    for r in relaunched:
        print(safe_text(fairness_details(r), 2000))
    print(_("Fairness checks passed: {n}").format(n=len(checked)))
    return 0 if summary.finished else 1


# ---------------------------------------------------------------------- terminal play

HELP = ("""commands: d = draw from the stock, p [N] = take the discard (N deep),
x CARD = discard, l CARDS [/ CARDS ...] = lay down melds, o CARD MELD# [low|high] = lay off,
j MELD# CARDS = take a joker back, k = knock (frapper), c = continue, q = leave, ? = help""")


def _show(view: Any, names: dict[int, str]) -> str:
    hand = " ".join(str(c) for c in view.hand)
    lines = [_("Round {r}, turn {t}: {who} to play ({phase})").format(
        r=view.round_no, t=view.turn_no,
        who=safe_name(names.get(view.turn, str(view.turn))) if view.turn is not None else "-",
        phase=_phase_text(view.phase))]
    for i, m in enumerate(view.melds):
        lines.append(f"  #{i}: " + " ".join(str(c) for c in m.cards))
    top = " ".join(str(c) for c in view.discard) or "-"
    lines.append(_("discard: {top}   stock: {n}").format(top=top, n=view.stock_size))
    lines.append(_("your hand: {hand}").format(hand=hand))
    return "\n".join(lines)


def _phase_text(phase: str) -> str:
    """The view's phase as the player reads it (a host's unknown phase made printable)."""
    return {
        "draw": _("draw"),
        "play": _("play"),
        "between": _("between rounds"),
        "over": _("match over"),
    }.get(phase, safe_text(phase, 16))


def parse_command(line: str, seat: int) -> Any:
    """Turn a typed command into a core action, a between-rounds choice, or None."""
    from rami_lan.core import actions as A
    from rami_lan.core.cards import parse_cards

    parts = line.split()
    if not parts:
        return None
    cmd, rest = parts[0].lower(), parts[1:]
    if cmd == "d":
        return A.DrawStock(seat)
    if cmd == "p":
        return A.DrawDiscard(seat, int(rest[0]) if rest else 1)
    if cmd == "k":
        return A.Knock(seat)
    if cmd == "x" and len(rest) == 1:
        return A.Discard(seat, parse_cards(rest[0])[0])
    if cmd == "l" and rest:
        groups = " ".join(rest).split("/")
        return A.LayDown(seat, tuple(A.MeldSpec(tuple(parse_cards(g))) for g in groups))
    if cmd == "o" and len(rest) >= 2:
        end = rest[2] if len(rest) > 2 and rest[2] in ("low", "high") else None
        return A.LayOff(seat, parse_cards(rest[0])[0], int(rest[1]), end)  # type: ignore[arg-type]
    if cmd == "j" and len(rest) >= 2:
        return A.RecoverJoker(seat, int(rest[0]), tuple(parse_cards(" ".join(rest[1:]))))
    if cmd in ("c", "q"):
        return "continue" if cmd == "c" else "leave"
    raise ValueError(cmd)


def _with_copies(action: Any, hand: tuple[Any, ...]) -> Any:
    """Typed cards have copy 0; pick the physical cards of the same face in the hand."""
    from dataclasses import replace

    from rami_lan.core import actions as A

    pool = list(hand)

    def pick(card: Any) -> Any:
        for c in pool:
            if c.face == card.face:
                pool.remove(c)
                return c
        return card

    if isinstance(action, A.Discard | A.LayOff):
        return replace(action, card=pick(action.card))
    if isinstance(action, A.LayDown):
        return replace(action, melds=tuple(
            A.MeldSpec(tuple(pick(c) for c in m.cards), m.kind) for m in action.melds))
    if isinstance(action, A.RecoverJoker):
        return replace(action, cards=tuple(pick(c) for c in action.cards))
    return action


async def play_in_terminal(session: Any, intro: Sequence[str] = ()) -> int:
    """Play a `TableSession` with the full-screen UI if available, else line by line
    (``intro``: lines the full screen shows while waiting; the line client's terminal
    already shows them)."""
    if sys.stdin.isatty() and sys.stdout.isatty():
        from rami_lan.cli.app import run_table_screen
        from rami_lan.cli.settings import load_settings

        return await run_table_screen(session, load_settings(), intro)
    return await _line_client(session)


def _stdin_lines(loop: asyncio.AbstractEventLoop, stream: Any = None) -> asyncio.Queue[str]:
    """The lines typed on ``stream`` (stdin), "" at its end, read by a daemon thread: a
    read still blocked when the match ends (or on SIGHUP) must not keep the process alive,
    as a read in the loop's default executor did (``asyncio.run`` waits for it)."""
    import threading

    queue: asyncio.Queue[str] = asyncio.Queue()
    source = sys.stdin if stream is None else stream

    def pump() -> None:
        while True:
            try:
                line = source.readline()
            except (OSError, ValueError):
                line = ""
            try:
                loop.call_soon_threadsafe(queue.put_nowait, line)
            except RuntimeError:  # the loop is closed: nobody reads any more
                return
            if not line:
                return

    threading.Thread(target=pump, name="rami-lan-stdin", daemon=True).start()
    return queue


async def _line_client(session: Any) -> int:
    loop = asyncio.get_running_loop()
    names: dict[int, str] = {}
    view = None
    print(_("Seated at seat {seat}. Type ? for help.").format(seat=session.seat + 1))
    fp = getattr(session, "table", {}).get("fingerprint")
    if fp:
        print(_("Table fingerprint: {fp}").format(fp=fp))
    _print_private_deal(session)

    lines = _stdin_lines(loop)

    async def reader() -> None:
        while True:
            line = await lines.get()
            if not line:
                await session.close()
                return
            if line.strip() == "?":
                print(_(HELP))
                continue
            try:
                cmd = parse_command(line, session.seat)
            except (ValueError, IndexError, TypeError):
                print(_("Unknown command. Type ? for help."))
                continue
            if cmd in ("continue", "leave"):
                await session.next_round(cmd)
            elif cmd is not None:
                await session.act(_with_copies(cmd, view.hand if view else ()))

    task = asyncio.create_task(reader())
    try:
        async for up in session.updates():
            names.update(up.nicknames)
            for line in event_lines(up.events, session.seat, names):
                print("  " + line)
            if up.error:
                print(_("Refused: {why}").format(why=safe_text(error_text(up.error, names, session.seat))))
            if up.notice:
                print(safe_text(session_text(up.notice, names), 300))
            if up.fairness is not None:
                details = (fairness_details(up.fairness_round) if up.fairness_round is not None
                           else str(up.fairness[1]))
                for line in details.splitlines()[:20]:
                    print(safe_text(line, 300))
            if up.view is not None:
                view = up.view
                print(_show(view, names))
                if view.match_over:
                    print(_("The match is over."))
                    break
                if view.phase == "between":
                    print(_("Round over: c = continue, q = leave."))
    finally:
        task.cancel()
    return 0


def event_lines(events: Any, seat: int, names: dict[int, str]) -> list[str]:
    """What happened, one translated line per event worth one (the table screen's log
    lines, `rami_lan.cli.ui.describe`), made printable; never a raw event dump."""
    from rami_lan.cli.ui.describe import describe

    def name(s: int) -> str:
        return safe_name(names.get(s) or _("Seat {n}").format(n=s + 1))

    out = []
    for ev in events:
        try:
            line = describe(ev, seat, name)
        except Exception:  # noqa: BLE001 - an event the describer does not know: its fields
            line = type(ev).__name__ + ": " + _short(ev)
        if line:
            out.append(safe_text(line, 300))
    return out


def _short(ev: Any) -> str:
    from dataclasses import fields

    parts = []
    for f in fields(ev):
        value = getattr(ev, f.name)
        if isinstance(value, tuple):
            value = " ".join(str(x) for x in value)
        parts.append(f"{f.name}={value}")
    return safe_text(", ".join(parts), 200)
