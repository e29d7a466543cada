"""The organiser of a LAN tournament: one asyncio process that hosts every table.

Theory of operation
-------------------
`rami_lan.tournament.machine.TournamentMachine` decides everything; this module carries
it out. The organiser listens on one TLS port for registrations (the ``t_*`` messages of
`rami_lan.net.tournament_protocol`), advertises the tournament over mDNS (a table ad
whose name says it is a tournament, on the interfaces of ``RAMI_LAN_INTERFACES``), and
hosts every table of every stage itself: each is an ordinary `rami_lan.net.host.TableHost`
(headless, the same machine, rules, fair shuffle and private dealing as any table) on a
port of its own, with a join code of its own that only its drawn players receive. The
tables of a stage run at the same time in this one event loop (the table machine is
sans-I/O: several cost one loop nothing but their own work). When a table's match is
over its record file is read back, hashed, and given to the machine; the next stage is
drawn when the stage's last table is done. The tournament record is written next to the
tables' records after every table (``tournament-<id>.json``).

A client that says a table ``hello`` at the organiser's port is refused with code
``tournament`` (`rami-lan join` then registers instead).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rami_lan.net import protocol as P
from rami_lan.net import tls
from rami_lan.net import tournament_protocol as T
from rami_lan.tournament.machine import (
    RegistrationError,
    TableState,
    TournamentConfig,
    TournamentError,
    TournamentMachine,
)
from rami_lan.tournament.record import sha256_hex

log = logging.getLogger(__name__)

__all__ = ["TournamentHost"]

FIRST_FRAME_DEADLINE = 10.0
MAX_CONNECTIONS = 200
MAX_PER_ADDRESS = 24
"""Connections from one address at once (several players may share a machine)."""


@dataclass(eq=False)
class _Conn:
    writer: asyncio.StreamWriter
    session: T.TSession
    no: int = 0
    token: bytes = b""
    watch: bool = False
    """A spectator (``t_hello.watch``): it watches every table."""
    watching: set[tuple[int, int]] = field(default_factory=set)
    """Tables a player who is out watches (the final)."""
    key: str = ""
    """The peer's address, for the admission limits."""
    hello: Any = None
    pake: Any = None
    ticket: Any = None
    task: Any = None


@dataclass
class _Running:
    state: TableState
    host: Any
    port: int
    code: str


class TournamentHost:
    """A tournament on the LAN. ``await start()`` returns the registration port."""

    def __init__(self, config: TournamentConfig, *, interfaces: list[str] | str = "all",
                 port: int = 0, advertise: bool = True, record_dir: str | Path,
                 identity_dir: str | Path | None = None, start_at: int | None = None,
                 join_wait: float = 60.0, organiser: str = "organiser",
                 table_tuning: dict[str, Any] | None = None,
                 on_event: Callable[[str, dict[str, Any]], None] | None = None,
                 tournament_id: bytes | None = None, secret: bytes | None = None,
                 join_code: str | None = None) -> None:
        from rami_lan.net.guard import HostGuard

        self.config = config
        self.join_code = join_code
        """Registration needs it (proven by SPAKE2, never sent); None: anyone may register."""
        self.guard = HostGuard()
        from rami_lan.net.guard import ConnectionLimiter

        self._per_address = ConnectionLimiter(MAX_CONNECTIONS, MAX_PER_ADDRESS)
        self.tournament_id = tournament_id or secrets.token_bytes(16)
        self.machine = TournamentMachine(config, self.tournament_id,
                                         secret or secrets.token_bytes(32))
        self.interfaces = interfaces
        self.port_wanted = port
        self.advertise = advertise
        self.record_dir = Path(record_dir)
        self.identity_dir = identity_dir
        self.identity = tls.load_or_create_identity("rami-lan", Path(identity_dir)
                                                    if identity_dir is not None else None)
        self.start_at = start_at
        self.join_wait = join_wait
        self.organiser = organiser
        self.table_tuning = dict(table_tuning or {})
        self.on_event = on_event or (lambda kind, fields: log.info("%s %s", kind, fields))
        """Progress for the organiser's screen: ``(kind, fields)``, worded by the CLI
        (``registered``, ``draw``, ``table_open``, ``table_late``, ``table_over``,
        ``over``, ``error``)."""
        self.port = 0
        self.finished = asyncio.Event()
        self.record_path = self.record_dir / f"tournament-{self.tournament_id.hex()}.json"
        self.error: str | None = None
        self._servers: list[asyncio.Server] = []
        self._conns: set[_Conn] = set()
        self._by_no: dict[int, _Conn] = {}
        self._tokens: dict[bytes, int] = {}
        self._running: dict[tuple[int, int], _Running] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._advertiser: Any = None
        self._starting = False
        self._stopped = False
        self._resume_running: dict[tuple[int, int], str] = {}
        self._address_of: dict[int, str] = {}
        """entrant number -> the address it registered from (a cap per address)."""
        self.resumed = False

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> int:
        ctx = tls.server_context(self.identity)
        hosts = ["0.0.0.0"] if self.interfaces == "all" else list(self.interfaces)
        try:
            first = await asyncio.start_server(self._on_connect, host=hosts[0],
                                               port=self.port_wanted, ssl=ctx)
        except OSError:
            if not self.port_wanted:
                raise
            first = await asyncio.start_server(self._on_connect, host=hosts[0], port=0, ssl=ctx)
        self.port = first.sockets[0].getsockname()[1]
        self._servers = [first]
        for extra in hosts[1:]:
            self._servers.append(await asyncio.start_server(
                self._on_connect, host=extra, port=self.port, ssl=ctx))
        if self.advertise:
            await self._start_advertising()
        if self.resumed and self.machine.phase == "playing":
            await self._take_up()
        return self.port

    async def _start_advertising(self) -> None:
        from zeroconf import IPVersion

        from rami_lan.net.discovery import MAX_NAME_BYTES, TableAd, TableAdvertiser, ad_text

        cfg = self.config
        ad = TableAd(table_id=self.tournament_id.hex(),
                     name=ad_text(cfg.name, MAX_NAME_BYTES, "Tournoi"),
                     host=ad_text(self.organiser, 32, "organiser"), variant=cfg.variant,
                     seats_total=cfg.table_size, seats_taken=0,
                     point_limit=cfg.limit or 0, frapper=cfg.knock, timer=cfg.timer,
                     code_required=self.join_code is not None,
                     fingerprint=self.identity.fingerprint, private_deal=cfg.private_deal)
        self._advertiser = TableAdvertiser(ad, self.port, interfaces=self.interfaces,
                                           ip_version=IPVersion.V4Only)
        try:
            await self._advertiser.start()
        except Exception:  # noqa: BLE001 - no multicast here: registration by address still works
            log.warning("could not advertise the tournament", exc_info=True)
            self._advertiser = None

    async def stop(self) -> None:
        """Close everything (a table's own task may call it: it is not cancelled)."""
        if self._stopped:
            return
        self._stopped = True
        for srv in self._servers:
            srv.close()
        for run in list(self._running.values()):
            with contextlib.suppress(Exception):
                await run.host.stop()
        handlers = []
        for conn in list(self._conns):
            self._send(conn, T.TBye(reason="the tournament is closed"))
            conn.writer.close()
            if conn.task is not None and conn.task is not asyncio.current_task():
                handlers.append(conn.task)
        if handlers:  # each ends once its connection is closed
            await asyncio.wait(handlers, timeout=1.0)
        me = asyncio.current_task()
        for task in list(self._tasks):
            if task is not me:
                task.cancel()
        if self._advertiser is not None:
            with contextlib.suppress(Exception):
                await self._advertiser.stop()
        self.finished.set()

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # ------------------------------------------------------------------ connections

    def _send(self, conn: _Conn, msg: Any) -> None:
        if conn.session.closed or conn.writer.is_closing():
            return
        try:
            conn.writer.write(conn.session.send(msg))
        except (ValueError, OSError) as exc:
            log.warning("tournament: could not send %s: %s", type(msg).__name__, exc)

    def _broadcast(self, msg: Any, *, watchers: bool = True) -> None:
        for conn in list(self._conns):
            if conn.session.established and (watchers or not conn.watch):
                self._send(conn, msg)

    async def _on_connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        from rami_lan.net.guard import address_key

        key = address_key(writer.get_extra_info("peername"))
        if len(self._conns) >= MAX_CONNECTIONS or not self._per_address.admit(key):
            writer.close()  # a flood from one address never fills the organiser
            return
        conn = _Conn(writer, T.TSession("host"), key=key)
        conn.task = asyncio.current_task()
        self._conns.add(conn)
        try:
            header = await asyncio.wait_for(reader.readexactly(4), FIRST_FRAME_DEADLINE)
            n = int.from_bytes(header, "big")
            if not 0 < n <= T.T_MAX_FRAME:
                return
            body = await asyncio.wait_for(reader.readexactly(n), FIRST_FRAME_DEADLINE)
            if T.first_kind(body) == "hello":
                self._refuse_table_hello(writer, header + body)
                return
            data = header + body
            while data:
                for msg in conn.session.receive_data(data):
                    self._on_message(conn, msg)
                if conn.session.closed:
                    break
                data = await reader.read(65536)
        except (asyncio.IncompleteReadError, TimeoutError, ConnectionError, OSError):
            pass
        except P.RemoteProtocolError as exc:
            log.info("tournament: a peer broke the protocol: %s", exc)
        except Exception:  # our own bug: this connection ends, the tournament goes on
            log.exception("tournament: a connection failed")
        finally:
            self._per_address.release(conn.key)
            m = self.machine
            e = m.entrants.get(conn.no) if conn.no else None
            if (e is not None and m.phase == "registration" and e.contribution is None
                    and self._by_no.get(conn.no) is conn):
                m.unregister(conn.no)  # gone before its contribution: not an entrant
                self._tokens = {t: n for t, n in self._tokens.items() if n != conn.no}
                self._address_of.pop(conn.no, None)
            if conn.ticket is not None:
                self.guard.admission.end(conn.ticket, False)
            self._conns.discard(conn)
            if self._by_no.get(conn.no) is conn:
                del self._by_no[conn.no]
            writer.close()

    def _refuse_table_hello(self, writer: asyncio.StreamWriter, frame: bytes) -> None:
        session = P.Session("host")
        try:
            session.receive_data(frame)
            writer.write(session.send(P.Refused(
                code="tournament", message="this address is a tournament: rami-lan join "
                "registers with it")))
        except P.ProtocolError:
            pass

    # ------------------------------------------------------------------ messages

    def _info(self) -> dict[str, Any]:
        plain = self.config.to_plain()
        plain["start_at"] = self.start_at or 0
        plain["code"] = self.join_code is not None
        return plain

    def _on_message(self, conn: _Conn, msg: Any) -> None:
        m = self.machine
        if isinstance(msg, T.THello):
            if msg.token is None and self.join_code is not None:
                self._start_pake(conn, msg)
            else:
                self._hello(conn, msg)
        elif isinstance(msg, T.TPake | T.TPakeConfirm):
            self._on_pake(conn, msg)
        elif isinstance(msg, T.TContribution):
            if conn.watch or not conn.no:
                return
            try:
                m.contribute(conn.no, msg.value)
            except RegistrationError as exc:
                log.info("tournament: %s", exc)
                return
            self.on_event("registered", {"nick": m.entrants[conn.no].nick, "n": m.ready})
            self._save_state()
            self._broadcast_players()
            if (self.start_at and m.ready >= self.start_at and not self._starting):
                self._spawn(self.begin())
        elif isinstance(msg, T.TBye):
            conn.writer.close()

    def _start_pake(self, conn: _Conn, hello: T.THello) -> None:
        """A newcomer at a tournament with a join code proves it (SPAKE2) first."""
        from rami_lan.net.guard import KIND_CODE, Refusal
        from rami_lan.net.pake import PakeHost

        answer = self.guard.admission.begin(conn.key, KIND_CODE)
        if isinstance(answer, Refusal):
            self._send(conn, T.TRefused(code="rate_limited", message=answer.reason[:200]))
            conn.writer.close()
            return
        conn.ticket, conn.hello = answer, hello
        conn.pake = PakeHost(self.join_code or "", self.identity.fingerprint)
        self._send(conn, T.TPake(msg=conn.pake.start()))

    def _on_pake(self, conn: _Conn, msg: Any) -> None:
        from rami_lan.net.pake import PakeError

        pake = conn.pake
        if pake is None:
            return
        try:
            if isinstance(msg, T.TPake):
                pake.receive(msg.msg)
                return
            pake.check_confirmation(msg.mac)
        except PakeError:
            conn.pake = None
            self.guard.admission.end(conn.ticket, False)
            conn.ticket = None
            self._send(conn, T.TRefused(code="bad_code", message="wrong join code"))
            conn.writer.close()
            return
        self.guard.admission.end(conn.ticket, True)
        conn.ticket = None
        self._send(conn, T.TPakeConfirm(mac=pake.confirm_message()))
        conn.pake = None
        self._hello(conn, conn.hello)

    def _hello(self, conn: _Conn, hello: T.THello) -> None:
        m = self.machine
        if hello.token is not None:
            no = self._tokens.get(hello.token)
            if no is None:
                self._send(conn, T.TRefused(code="bad_token", message="unknown token"))
                return
            old = self._by_no.get(no)
            if old is not None and old is not conn:
                old.writer.close()
            conn.no, conn.token = no, hello.token
            self._by_no[no] = conn
            self._welcome(conn, m.entrants[no].nick if no in m.entrants else hello.nick)
            self._catch_up(conn)
            return
        conn.token = secrets.token_bytes(16)
        if hello.watch:
            conn.watch = True
            self._welcome(conn, "")
            self._catch_up(conn)
            return
        if sum(1 for a in self._address_of.values() if a == conn.key) >= MAX_PER_ADDRESS:
            self._send(conn, T.TRefused(code="busy", message="too many registrations from "
                                        "this address"))
            return
        try:
            entrant = m.register(hello.nick, None)
        except RegistrationError as exc:
            self._send(conn, T.TRefused(code=exc.code if exc.code in T.T_REFUSED_CODES
                                        else "closed", message=str(exc)))
            return
        conn.no = entrant.no
        self._address_of[entrant.no] = conn.key
        self._tokens[conn.token] = entrant.no
        self._by_no[entrant.no] = conn
        self._welcome(conn, entrant.nick)

    def _welcome(self, conn: _Conn, nick: str) -> None:
        self._send(conn, T.TWelcome(tournament_id=self.tournament_id, no=conn.no, nick=nick,
                                    token=conn.token, commitment=self.machine.commitment,
                                    info=self._info()))

    def _players_plain(self) -> list[dict[str, Any]]:
        return [{"no": e.no, "nick": e.nick, "kind": e.kind}
                for e in self.machine.entrants.values()
                if e.kind == "bot" or e.contribution is not None]

    def _broadcast_players(self) -> None:
        self._broadcast(T.TPlayers(players=self._players_plain(), start_at=self.start_at or 0))

    def _draw_msg(self) -> T.TDraw:
        rec = self.machine.to_record()
        return T.TDraw(secret=bytes.fromhex(rec["secret"]), seed=bytes.fromhex(rec["seed"]),
                       entrants=rec["entrants"])

    def _catch_up(self, conn: _Conn) -> None:
        """A player back (or a spectator): what it missed."""
        m = self.machine
        if m.phase == "registration":
            self._send(conn, T.TPlayers(players=self._players_plain(), start_at=self.start_at or 0))
            return
        self._send(conn, self._draw_msg())
        self._send(conn, self._standings_msg())
        for run in self._running.values():
            if conn.no in run.state.players and not run.state.done:
                self._send(conn, self._table_msg(run, watch=False))
        self._watch_now(conn)

    # ------------------------------------------------------------------ stages

    async def begin(self) -> None:
        """Close registration, draw the first stage and open its tables."""
        if self._starting:
            return
        self._starting = True
        try:
            tables = self.machine.start()
        except TournamentError as exc:
            self.error = str(exc)
            self.on_event("error", {"text": self.error})
            await self.stop()
            return
        self._save_state()
        self._broadcast(self._draw_msg())
        self.on_event("draw", {"seed": self.machine.seed.hex(),  # type: ignore[union-attr]
                               "tables": len(tables)})
        for t in tables:
            await self._open_table(t)

    def _table_msg(self, run: _Running, *, watch: bool) -> T.TTable:
        m = self.machine
        return T.TTable(stage=run.state.stage, table=run.state.table, port=run.port,
                        fingerprint=self.identity.fingerprint, code="" if watch else run.code,
                        final=run.state.final, watch=watch,
                        players=[{"no": no, "nick": m.entrants[no].nick}
                                 for no in run.state.players])

    def _table_observer(self, label: tuple[int, int]) -> Any:
        """What table ``label``'s host shows us: its every change, made public to its
        spectators (`rami_lan.net.host.HostObserver`)."""
        from rami_lan.net.host import HostObserver

        outer = self

        class _Spectators(HostObserver):
            def applied(self, host: Any, change: Any) -> None:
                outer._relay(label, host, change.events)

        return _Spectators()

    def _table_overrides(self) -> dict[str, Any]:
        from rami_lan.net.guard import AdmissionConfig, GuardConfig

        return {"advertise": False, "identity_dir": self.identity_dir,
                "interfaces": ["0.0.0.0"] if self.interfaces == "all" else list(self.interfaces),
                "guard": GuardConfig(admission=AdmissionConfig(max_in_flight=4, hello_burst=40.0)),
                **self.table_tuning}

    async def _open_table(self, t: TableState, journal: Path | None = None) -> None:
        """Open table ``t`` (``journal``: take it up from its crash journal instead)."""
        from rami_lan.net.pake import generate_code
        from rami_lan.table.config import TableConfig

        cfg = self.config
        m = self.machine
        label = (t.stage, t.table)
        from rami_lan.net.host import TableHost

        observer = self._table_observer(label)
        host = None
        if journal is not None:
            try:
                host = TableHost.resume(journal, observer=observer, **self._table_overrides())
            except Exception as exc:  # noqa: BLE001 - a journal that does not replay: a new table
                log.warning("table %s: could not resume %s: %s", t.label, journal, exc)
                host = None
        if host is None:
            bots = {seat: cfg.bot_level for seat in t.bot_seats(m.entrants)}
            host = TableHost(TableConfig(
                name=f"{cfg.name} {t.label}"[:64], variant=cfg.variant, seats=len(t.players),
                bots=bots, limit=cfg.limit, quick=cfg.quick, knock=cfg.knock, timer=cfg.timer,
                join_code=generate_code(), who_may_sit="code",
                host_nickname=self.organiser[:24] or "organiser", record_dir=self.record_dir,
                journal_dir=self.record_dir / "journals", headless=True,
                private_deal=cfg.private_deal, **self._table_overrides()), observer=observer)
        port = await host.start()
        run = _Running(t, host, port, host.config.join_code or "")
        self._running[label] = run
        self._save_state()
        self.on_event("table_open", {"table": t.label, "port": port, "final": t.final,
                                     "players": [m.entrants[no].nick for no in t.players]})
        for no in t.players:
            conn = self._by_no.get(no)
            if conn is not None:
                self._send(conn, self._table_msg(run, watch=False))
        if t.final:  # the players who are out watch the final (they may leave)
            for conn in list(self._conns):
                if conn.no and conn.no not in t.players and conn.session.established:
                    conn.watching.add(label)
                    self._send(conn, self._table_msg(run, watch=True))
        self._spawn(self._start_later(run))
        self._spawn(self._watch_table(run))

    async def _start_later(self, run: _Running) -> None:
        """A drawn player who does not come in time: a bot plays the seat."""
        await asyncio.sleep(self.join_wait)
        if not run.host.machine.started:
            self.on_event("table_late", {"table": run.state.label})
            await run.host.start_match()

    async def _watch_table(self, run: _Running) -> None:
        host = run.host
        await host.finished.wait()
        for _i in range(100):  # the record follows the match's last audit
            if host.record_path is not None:
                break
            await asyncio.sleep(0.05)
        await host.stop()
        self._running.pop((run.state.stage, run.state.table), None)
        path = host.record_path
        if path is None:
            self.error = f"table {run.state.label} ended without a match record"
            self.on_event("error", {"text": self.error})
            await self.stop()
            return
        data = Path(path).read_bytes()
        try:
            nxt = self.machine.table_done(run.state.stage, run.state.table, json.loads(data),
                                          sha256_hex(data), Path(path).name)
        except (TournamentError, ValueError) as exc:
            self.error = f"table {run.state.label}: {exc}"
            self.on_event("error", {"text": self.error})
            await self.stop()
            return
        self._write_record()
        self._save_state()
        self.on_event("table_over", {"table": run.state.label, "went_on": [
            self.machine.entrants[no].nick for no in run.state.went_on]})
        self._broadcast(self._standings_msg())
        for t in nxt:
            await self._open_table(t)
        if self.machine.phase == "over":
            w = self.machine.winner
            self.on_event("over", {"winner": self.machine.entrants[w].nick if w else "-"})
            with contextlib.suppress(OSError):
                self.state_path.unlink()  # nothing to take up any more
            await asyncio.sleep(0.2)
            await self.stop()

    # ------------------------------------------------------------------ spectators

    def _watchers(self, label: tuple[int, int]) -> list[_Conn]:
        return [c for c in self._conns if c.session.established
                and (c.watch or label in c.watching)]

    def _public(self, label: tuple[int, int], host: Any, events: Any,
                match: Any = None) -> T.TWatch:
        """One change of a table as a spectator may see it: nothing but public facts
        (``match``: the table's state after the change; default: now)."""
        from rami_lan.core.codec import event_to_plain, view_to_plain
        from rami_lan.core.views import view_for

        variant = host.machine.variant
        return T.TWatch(
            stage=label[0], table=label[1],
            events=[event_to_plain(e.for_seat(None), variant) for e in events],
            view=view_to_plain(view_for(host.match if match is None else match, None)),
            players=[{"seat": st.seat, "nick": st.nick or f"Bot {st.seat + 1}"}
                     for st in host.seats.values()])

    def _relay(self, label: tuple[int, int], host: Any, events: Any) -> None:
        """A table changed: its spectators hear of it once the seats have (the match
        state is immutable: the one after this change is kept for later)."""
        if not self._watchers(label):
            return
        asyncio.get_running_loop().call_soon(self._relay_now, label, host, host.match,
                                             tuple(events))

    def _relay_now(self, label: tuple[int, int], host: Any, match: Any, events: Any) -> None:
        watchers = self._watchers(label)
        if not watchers:
            return
        msg = self._public(label, host, events, match)
        frame = T.encode(msg)  # one encoding for every spectator
        for conn in watchers:
            if conn.session.closed or conn.writer.is_closing():
                continue
            try:
                conn.writer.write(conn.session.send_encoded(msg, frame))
            except (ValueError, OSError) as exc:
                log.warning("tournament: could not send t_watch: %s", exc)

    def _watch_now(self, conn: _Conn) -> None:
        """A new spectator (or one back) gets each watched table's public view now."""
        for label, run in list(self._running.items()):
            if conn.watch or label in conn.watching:
                self._send(conn, self._public(label, run.host, ()))

    def _standings_msg(self) -> T.TStandings:
        m = self.machine
        tables = [{"stage": t.stage, "table": t.table, "players": list(t.players),
                   "went_on": list(t.went_on), "final": t.final,
                   "ranking": [{"no": r["no"], "place": r["place"], "why": r["why"]}
                               for r in t.ranking]}
                  for states in m.stages for t in states if t.done]
        return T.TStandings(stage=len(m.stages), over=m.phase == "over",
                            standings=[s.to_plain() for s in m.standings()], tables=tables)

    # ------------------------------------------------------------------ crash journal

    @property
    def state_path(self) -> Path:
        return self.record_dir / f"tournament-{self.tournament_id.hex()}.state.json"

    def _save_state(self) -> None:
        """What ``rami-lan tournament --resume`` needs, written at every change (0600,
        atomic): the record so far, the secret, the registrants' tokens, the tables
        being played (their table ids: their journals are in ``journals/``)."""
        from rami_lan.net.record import save_record

        state = {
            "format": "rami-lan-tournament-state", "v": 1,
            "record": self.machine.to_record(), "secret": self.machine._secret.hex(),
            "tokens": {tok.hex(): no for tok, no in self._tokens.items()},
            "start_at": self.start_at, "join_wait": self.join_wait, "port": self.port,
            "organiser": self.organiser, "join_code": self.join_code,
            "running": [{"stage": r.state.stage, "table": r.state.table,
                         "table_id": r.host.table_id.hex()} for r in self._running.values()],
        }
        try:
            save_record(self.record_dir, self.state_path.name, state)
        except OSError:
            log.exception("could not write the tournament's state")

    @classmethod
    def resume(cls, path: str | Path, **kwargs: Any) -> TournamentHost:
        """An organiser back after a crash, from its state file: the same tournament id,
        secret, registrants (and their tokens), port if free, finished tables (their
        records) and running tables (their journals). ``kwargs``: as the constructor
        (interfaces, advertise, identity_dir, table_tuning, on_event...)."""
        path = Path(path)
        state = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(state, dict) or state.get("format") != "rami-lan-tournament-state":
            raise ValueError(f"{path} is not a tournament's state file")
        rec = state["record"]
        config = TournamentConfig.from_plain(rec["config"])
        host = cls(config, record_dir=path.parent, port=int(state.get("port") or 0),
                   start_at=state.get("start_at"), join_wait=float(state.get("join_wait", 60.0)),
                   organiser=str(state.get("organiser", "organiser")),
                   tournament_id=bytes.fromhex(rec["tournament_id"]),
                   secret=bytes.fromhex(state["secret"]), join_code=state.get("join_code"),
                   **kwargs)
        m = host.machine
        for e in rec["entrants"]:
            if e["kind"] != "human":
                continue
            m.next_no = max(m.next_no, int(e["no"]))
            contribution = e.get("contribution")
            m.register(e["nick"], bytes.fromhex(contribution) if contribution else None)
        host._tokens = {bytes.fromhex(t): int(no) for t, no in state.get("tokens", {}).items()}
        if rec["stages"]:
            m.start()
            host._starting = True
            for states in rec["stages"]:
                for t in states:
                    if t.get("record_sha256"):
                        data = (path.parent / t["record_file"]).read_bytes()
                        m.table_done(t["stage"], t["table"], json.loads(data), sha256_hex(data),
                                     t["record_file"])
        host._resume_running = {(r["stage"], r["table"]): r["table_id"]
                                for r in state.get("running", ())}
        host.resumed = True
        return host

    async def _take_up(self) -> None:
        """After a resume: every table of the stage being played, from its journal if it
        had one (its match had started), else anew."""
        for t in self.machine.current:
            if t.done:
                continue
            tid = self._resume_running.get((t.stage, t.table))
            journal = self.record_dir / "journals" / f"{tid}.journal" if tid else None
            await self._open_table(t, journal if journal is not None and journal.exists()
                                   else None)

    def _write_record(self) -> None:
        from rami_lan.net.record import save_record

        try:
            save_record(self.record_dir, self.record_path.name, self.machine.to_record())
        except OSError:
            log.exception("could not write the tournament record")
