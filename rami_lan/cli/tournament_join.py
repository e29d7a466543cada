"""``rami-lan join`` at a tournament: register, play each table drawn, read the standings.

`rami_lan.cli.cmd_join` comes here when the address it was given answers a table
``hello`` with ``refused`` code ``tournament``. The player registers over the ``t_*``
protocol (`rami_lan.net.tournament_protocol`), sends its contribution to the draw once it
has the organiser's commitment, and checks the draw when it is revealed: the secret
matches the commitment, the seed is the hash of the secret and every contribution (its
own included), and every table it is sent to holds exactly the players the draw gives.
At each table it plays an ordinary seat (`rami_lan.net.client.open_session`, with the
table's join code; a bot with ``--bot``), and between tables it prints the standings.
A player who is out stays for the end (the standings) and may leave with Ctrl-C.

Exit status: 0 the tournament ended and every check passed; 3 a check of the draw (or a
table's fairness) FAILED; 1 the tournament did not end (connection lost).
"""

from __future__ import annotations

import argparse
import asyncio
import builtins
import contextlib
import secrets
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from rami_lan.i18n import _, language
from rami_lan.textsafe import safe_name, safe_text

__all__ = ["join_tournament", "standings_lines"]

RECONNECT_WINDOW = 60.0
"""Seconds a player tries to reach its organiser again after losing it."""

def why_text(code: str) -> str:
    """A ranking rule, as the player reads it."""
    texts = {
        "first": "", "winner": _("behind the table's winner"),
        "rounds": _("played fewer rounds"), "total": _("worse match total"),
        "laid": _("tie: fewer points melded and laid off (003's rule)"),
        "hand": _("tie: more points left in hand (003's rule)"),
        "lot": _("tie: drawn by lot from the seed"), "stage": _("out at an earlier stage"),
        "place": _("lower place at the table"),
    }
    return texts.get(code, safe_text(code, 20))


def standings_lines(standings: list[dict[str, Any]], me: int) -> list[str]:
    """The standings, one line a player (``me``: our entrant number, marked)."""
    out = []
    for s in standings:
        place = s.get("place")
        status = {"in": _("still in"), "out": _("out"), "winner": _("WINNER"),
                  "final": _("finalist")}.get(str(s.get("status")), "")
        mark = "*" if s.get("no") == me else " "
        why = why_text(str(s.get("why", "")))
        extra = _(" (a bot played the seat)") if s.get("replaced") else ""
        out.append(f"{mark}{place if place is not None else '-':>3}. "
                   f"{safe_name(str(s.get('nick', '')), 24):<24} {status}{extra}"
                   + (f"  [{why}]" if why else ""))
    return out


class _Checks:
    """What the player checks of the organiser's draw."""

    def __init__(self) -> None:
        self.failed: list[str] = []
        self.seed: bytes | None = None
        self.entrants: list[int] = []
        self.tables: list[dict[str, Any]] = []

    def draw(self, welcome: Any, msg: Any, mine: bytes, no: int) -> str:
        from rami_lan.tournament.draw import DrawEntrant, commitment, draw_seed

        if commitment(welcome.tournament_id, msg.secret) != welcome.commitment:
            self.failed.append(_("the organiser's secret is not the one it committed to"))
        try:
            ents = [DrawEntrant(int(e["no"]), str(e["nick"]), None if e.get("contribution") is None
                                else bytes.fromhex(e["contribution"])) for e in msg.entrants]
            if draw_seed(welcome.tournament_id, msg.secret, ents) != msg.seed:
                self.failed.append(_("the seed is not the hash of the secret and the contributions"))
            if not any(e.no == no and e.contribution == mine for e in ents):
                self.failed.append(_("our contribution is not in the draw"))
            self.entrants = [e.no for e in ents]
        except (KeyError, ValueError, TypeError):
            self.failed.append(_("the draw's list of entrants is malformed"))
        self.seed = msg.seed
        return (_("Draw checked: the secret matches the commitment, the seed covers every "
                  "contribution.") if not self.failed else
                _("Draw check FAILED: {why}").format(why="; ".join(self.failed)))

    def table(self, msg: Any, table_size: int) -> None:
        from rami_lan.tournament.draw import draw_tables

        if self.seed is None:
            return
        if msg.stage == 1:
            pool = self.entrants
        else:
            pool = sorted(no for t in self.tables if t.get("stage") == msg.stage - 1
                          for no in t.get("went_on", ()))
        try:
            tables = draw_tables(self.seed, msg.stage, pool, table_size)
            drawn = tables[msg.table - 1]
        except (ValueError, IndexError):
            drawn = []
        if sorted(drawn) != sorted(int(p.get("no", -1)) for p in msg.players):
            self.failed.append(_("table {stage}.{table} is not the one the draw gives").format(
                stage=msg.stage, table=msg.table))


async def join_tournament(host: str, port: int, args: argparse.Namespace, nick: str,
                          fingerprint: str | None,
                          play_seat: Callable[[Any], Awaitable[int]], *,
                          store: Any = None, seat_store: Any = None,
                          out: Callable[[str], None] | None = None) -> int:
    """Register at the tournament at ``host:port`` and play each table drawn with
    ``play_seat(session)`` (`rami_lan.cli.cmd_join`: a bot, or the terminal).

    ``store``: a `rami_lan.net.tournament_store.TournamentStore` that keeps the
    registration (a relaunched ``join`` comes back with its token); ``seat_store``: a
    `rami_lan.net.seats.SeatStore` that keeps each table's seat, as ``join`` does;
    ``out``: where the lines go (default: printed; the lobby shows them)."""
    kept = store.find(host, port, nick) if store is not None else None
    rc = await _join(host, port, args, nick, fingerprint, play_seat, store, seat_store, kept, out)
    if rc == -1:  # the organiser did not know our token any more: register anew
        rc = await _join(host, port, args, nick, fingerprint, play_seat, store, seat_store, None,
                         out)
    return 1 if rc == -1 else rc


async def _join(host: str, port: int, args: argparse.Namespace, nick: str,
                fingerprint: str | None, play_seat: Callable[[Any], Awaitable[int]],
                store: Any, seat_store: Any, kept: Any,
                out: Callable[[str], None] | None = None) -> int:
    from rami_lan.net import tls
    from rami_lan.net import tournament_protocol as T
    from rami_lan.net.client import open_session
    from rami_lan.net.protocol import RemoteProtocolError

    def print(text: str, flush: bool = False) -> None:  # noqa: A001 - the lines' one way out
        if out is not None:
            out(text)
        else:
            builtins.print(text, flush=True)

    try:
        reader, writer = await asyncio.open_connection(host, port, ssl=tls.client_context(),
                                                       ssl_handshake_timeout=10.0)
    except (OSError, TimeoutError) as exc:
        print(_("Could not connect to {host}:{port}: {err}").format(
            host=safe_text(host, 64), port=port, err=safe_text(str(exc))))
        return 1
    if fingerprint:
        try:
            tls.check_pinned(writer.get_extra_info("ssl_object"), fingerprint)
        except tls.FingerprintMismatch as exc:
            writer.close()
            print(_("The tournament's certificate changed: someone may be intercepting the "
                    "connection. ({err})").format(err=exc))
            return 4
    session = T.TSession("client")
    playing: asyncio.Task[int] | None = None
    held: list[str] = []

    def say(text: str) -> None:
        """A line for the player; held while the full-screen table owns the terminal."""
        if (out is None and playing is not None and not playing.done() and not args.bot
                and sys.stdout.isatty()):
            held.append(text)
            return
        for line in held:
            print(line)
        held.clear()
        print(text, flush=True)

    writer.write(session.send(T.THello(
        nick=nick[:24] or "joueur", lang=language(), bot=bool(args.bot),
        token=bytes.fromhex(kept.token) if kept is not None else None)))
    mine = bytes.fromhex(kept.contribution) if kept is not None else secrets.token_bytes(32)
    code = getattr(args, "code", None)
    pake: Any = None
    seen_fp = tls.peer_fingerprint(writer.get_extra_info("ssl_object")) or ""
    checks = _Checks()
    welcome: Any = None
    table_size = 4
    fairness_bad = False
    over = False

    async def play(msg: Any) -> int:
        from rami_lan.net.joining import join_retrying

        print(_("Table {stage}.{table}{final}: {players}").format(
            stage=msg.stage, table=msg.table, final=_(" (the final)") if msg.final else "",
            players=", ".join(safe_name(str(p.get("nick", "")), 24) for p in msg.players)),
            flush=True)
        from rami_lan.net.client import JoinRefused

        seat = seat_store.find(f"{host}:{msg.port}") if seat_store is not None else None
        try:
            table = await join_retrying(lambda: open_session(
                host, msg.port, nickname=welcome.nick, lang=language(), code=msg.code,
                bot=bool(args.bot), fingerprint=msg.fingerprint or None,
                token=seat.token if seat is not None else None, seat_store=seat_store), 30.0)
        except (JoinRefused, OSError, TimeoutError) as exc:
            if seat is not None and isinstance(exc, JoinRefused):
                seat_store.remove(seat.table_id)  # the table no longer knows that seat
            print(_("Could not sit at table {stage}.{table}: {err}").format(
                stage=msg.stage, table=msg.table, err=safe_text(str(exc), 200)))
            return 1
        try:
            return await play_seat(table)
        finally:
            await table.close()
            for line in held:  # what came while the table's screen was up
                print(line, flush=True)
            held.clear()

    async def after(previous: asyncio.Task[int] | None, msg: Any) -> int:
        nonlocal fairness_bad
        if previous is not None:
            with contextlib.suppress(Exception):
                fairness_bad |= (await previous) == 3
        return await play(msg)

    rejoined = False
    said_bye = False
    tables_started: set[tuple[int, int, int]] = set()

    async def reconnect() -> Any:
        """The organiser went away (a crash, the network): come back with our token for
        `RECONNECT_WINDOW` seconds (a resumed organiser listens on the same port)."""
        print(_("The tournament connection was lost: trying again..."))
        loop = asyncio.get_running_loop()
        end = loop.time() + RECONNECT_WINDOW
        while loop.time() < end:
            await asyncio.sleep(1.0)
            try:
                r, w = await asyncio.open_connection(host, port, ssl=tls.client_context(),
                                                     ssl_handshake_timeout=10.0)
            except (OSError, TimeoutError):
                continue
            if seen_fp and tls.peer_fingerprint(w.get_extra_info("ssl_object")) != seen_fp:
                w.close()  # not the organiser we registered with
                continue
            s2 = T.TSession("client")
            w.write(s2.send(T.THello(nick=nick[:24] or "joueur", lang=language(),
                                     bot=bool(args.bot), token=welcome.token)))
            return r, w, s2
        return None

    try:
        while not over:
            try:
                data = await reader.read(65536)
            except (ConnectionError, OSError):
                data = b""
            if not data:
                if welcome is None or said_bye:
                    break
                back = await reconnect()
                if back is None:
                    break
                reader, writer, session = back
                rejoined = True
                continue
            for msg in session.receive_data(data):
                if isinstance(msg, T.TPake):
                    from rami_lan.net.pake import PakeClient, PakeError

                    if not code:
                        print(_("This tournament needs a join code (--code)."))
                        return 1
                    try:
                        pake = PakeClient(code, seen_fp)
                        reply = pake.receive(msg.msg)
                    except (PakeError, ValueError):
                        print(_("The join code does not match, or someone is intercepting the "
                                "connection."))
                        return 4
                    writer.write(session.send(T.TPake(msg=reply or b""))
                                 + session.send(T.TPakeConfirm(mac=pake.confirm_message())))
                elif isinstance(msg, T.TPakeConfirm):
                    from rami_lan.net.pake import PakeError

                    try:
                        pake.check_confirmation(msg.mac)
                    except PakeError:
                        print(_("The join code does not match, or someone is intercepting the "
                                "connection."))
                        return 4
                elif isinstance(msg, T.TWelcome):
                    if code and not (pake is not None and pake.verified):
                        # An organiser that wants a code always asks for it (a relay may not).
                        print(_("The tournament did not ask for the join code: someone may be "
                                "intercepting the connection."))
                        return 4
                    welcome = msg
                    table_size = int(msg.info.get("table_size", 4))
                    if kept is not None or rejoined:
                        say(_("Back in the tournament {name!r} as {nick} (entrant {no}).").format(
                            name=safe_text(str(msg.info.get("name", "")), 64),
                            nick=safe_name(msg.nick, 24), no=msg.no))
                        continue
                    say(_("Registered for the tournament {name!r} as {nick} (entrant {no}).").format(
                        name=safe_text(str(msg.info.get("name", "")), 64),
                        nick=safe_name(msg.nick, 24), no=msg.no))
                    writer.write(session.send(T.TContribution(value=mine)))
                    if store is not None:
                        from rami_lan.net.tournament_store import Registration

                        with contextlib.suppress(OSError, ValueError):
                            store.save(Registration(
                                msg.tournament_id.hex(), host, port, seen_fp, msg.token.hex(),
                                msg.no, nick[:64], mine.hex()))
                elif isinstance(msg, T.TRefused):
                    if msg.code == "bad_token" and kept is not None:
                        store.remove(kept.tournament_id)
                        writer.close()
                        return -1
                    if msg.code == "bad_code":
                        print(_("Wrong join code for this tournament."))
                        return 4
                    print(_("The tournament refused us: {why}").format(why=safe_text(msg.message)))
                    return 1
                elif isinstance(msg, T.TPlayers):
                    say(_("Registered players: {n}").format(n=len(msg.players)))
                elif isinstance(msg, T.TDraw):
                    say(checks.draw(welcome, msg, mine, welcome.no))
                elif isinstance(msg, T.TTable) and msg.watch:
                    say(_("You are out: watching the final (Ctrl-C to leave)."))
                elif isinstance(msg, T.TWatch):
                    from rami_lan.cli.watching import watch_lines

                    for line in watch_lines(msg):
                        say("  " + line)
                elif isinstance(msg, T.TTable):
                    if (msg.stage, msg.table, msg.port) in tables_started:
                        continue  # sent again after a reconnect: our session goes on
                    tables_started.add((msg.stage, msg.table, msg.port))
                    checks.table(msg, table_size)
                    playing = asyncio.create_task(after(playing, msg))
                elif isinstance(msg, T.TStandings):
                    checks.tables = msg.tables
                    if (playing is not None and playing.done() and not playing.cancelled()
                            and playing.exception() is None):
                        fairness_bad |= playing.result() == 3
                    title = (_("Final standings:") if msg.over else
                             _("Standings after stage {n}:").format(n=msg.stage))
                    say("\n".join([title, *standings_lines(msg.standings, welcome.no)]))
                    over = msg.over
                    if over and store is not None:
                        store.remove(welcome.tournament_id.hex())
                elif isinstance(msg, T.TBye):
                    said_bye = True  # the organiser closed on purpose: no reconnect
    except (RemoteProtocolError, ConnectionError, OSError) as exc:
        print(_("The tournament connection was lost: {err}").format(err=safe_text(str(exc))))
    finally:
        if playing is not None and not playing.done():
            with_timeout = asyncio.wait_for(playing, 5.0)
            try:
                fairness_bad |= (await with_timeout) == 3
            except Exception:  # noqa: BLE001 - the table's own errors were printed
                playing.cancel()
        elif playing is not None and not playing.cancelled() and playing.exception() is None:
            fairness_bad |= playing.result() == 3
        writer.close()
    if checks.failed:
        print(_("Tournament checks FAILED: {why}").format(why="; ".join(checks.failed)))
        return 3
    if fairness_bad:
        return 3
    return 0 if over else 1
