"""The network client: one seat at a remote (or loopback) table, as a `TableSession`.

`open_session(host, port, nickname=...)` connects, says hello and returns a
`RemoteTableSession` once the host has seated us. The session then

- turns the host's messages into `SessionUpdate`s (views decoded with
  ``view_from_plain``, events with ``event_from_plain``, errors, notices, the move
  timer's deadline, connection state, nicknames);
- takes part in the fair shuffle and verifies the table: every message it receives
  and sends goes to its `FairnessTracker` (`rami_lan.net.fairness`, around the sans-I/O
  `rami_lan.table.verifier.SeatVerifier`), which derives what the host must send and
  replays each round with the rules core; a commitment goes out only for the expected
  round tag, the reveal only once, after a list holding our commitment. Each round's
  state is delivered as ``SessionUpdate(fairness_round=..., fairness_rounds=...)`` (and
  ``fairness=(ok, details)`` once judged); a failure writes an evidence file;
- reconnects with its token after a drop (bounded retries with backoff); the host
  then sends the full view again;
- chat (`send_chat`, relayed lines as ``SessionUpdate(chat=((seat, text),))``) and the
  players' "Info joueur" cards (its own sent after ``welcome`` and after each match,
  the others' as ``SessionUpdate(cards={seat: plain})``);
- ``match_id`` (``"<table id hex>:<match number>"``) names the match the same way for
  every player and across reconnects, for the statistics;
- private dealing: every decision is the sans-I/O `rami_lan.table.seat_machine.SeatMachine`'s
  (the hold queue, what is given away, the timed-out automatic move, the hand-over);
  this session sends what each of its steps says and tells the player and the verifier.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, Literal

from rami_lan.core import actions as A
from rami_lan.core import events as E
from rami_lan.core.codec import action_to_plain, event_from_plain, view_from_plain
from rami_lan.core.errors import MalformedAction
from rami_lan.core.events import Event
from rami_lan.core.reasons import Reason
from rami_lan.core.views import SeatView
from rami_lan.ids import BYE_TABLE_PAUSED, TABLE_NOTICE
from rami_lan.net import protocol as P
from rami_lan.net import tls
from rami_lan.net.chat import ChatPolicy, ChatVerdict
from rami_lan.net.client_fairness import ClientFairness
from rami_lan.net.client_link import (  # noqa: F401  (re-exported: the client's names)
    ClientLink,
    FingerprintMismatch,
    JoinRefused,
    PakeFailed,
    _local_ipv4,
)
from rami_lan.net.client_private import ClientPrivateDeal, _owner_masked  # noqa: F401
from rami_lan.net.fairness import FairnessTracker
from rami_lan.net.notices import Notice, NoticeCode, host_notice
from rami_lan.net.table_session import ConnectionState, SessionUpdate
from rami_lan.table.effects import TableNotice
from rami_lan.table.seat_machine import SeatMachine
from rami_lan.table.shuffle import commitment, new_secret
from rami_lan.textsafe import clip
from rami_lan.wire.masked_table import MkOrders, MkOwn, decode_for_seat

log = logging.getLogger(__name__)

_MOVES = (E.StockDrawn, E.DiscardTaken, E.Melded, E.LaidOff, E.JokerRecovered, E.Discarded, E.Knocked)
"""The events a seat's own move makes (a bot's move for an absent player makes them too)."""

__all__ = ["FingerprintMismatch", "JoinRefused", "PakeFailed", "RemoteTableSession", "open_session"]



def refusal_of(msg: P.Error) -> Reason | str:
    """What the host's ``error`` refuses, for the UI to word: its coded reason when it
    sent one this version knows (code and data), else its text (an older host's, or a
    code of a newer one)."""
    if msg.reason is not None:
        try:
            why = Reason.from_plain(msg.reason)
        except ValueError:
            return msg.message
        if why.known:
            return why
    return msg.message


class RemoteTableSession(ClientLink, ClientFairness, ClientPrivateDeal):
    """A `TableSession` over TCP. Create it with `open_session`.

    Its jobs are split by module: the connection (`rami_lan.net.client_link`), the
    fair-shuffle bookkeeping (`rami_lan.net.client_fairness`) and private dealing
    (`rami_lan.net.client_private`) are mixins; the messages, chat, cards and players
    are here."""

    def __init__(self, host: str, port: int, *, nickname: str, lang: str = "en",
                 code: str | None = None, token: bytes | None = None, bot: bool = False,
                 fingerprint: str | None = None, code_required: bool = False,
                 invitation: str | None = None, player_id: str | None = None,
                 card: Callable[[], dict[str, Any] | None] | dict[str, Any] | None = None,
                 retries: int = 60, backoff: float = 0.1, max_backoff: float = 2.0,
                 reconnect_window: float = 30.0, paused_window: float = 180.0,
                 known_fingerprint: str | None = None, evidence_dir: Any = None,
                 seat_store: Any = None) -> None:
        """``code``: the join code, or an invitation's ticket (with ``invitation``, its
        id, for an "invited only" table): the password of the join-code exchange, never
        sent. ``card``: our "Info joueur" card as plain data, or a callable making it
        (`rami_lan.stats.card_source`: the cli's, from the local statistics; None: a
        card without statistics, with ``player_id``); bots send none.
        ``known_fingerprint``: the certificate this table had when we last joined it
        (``tls.KnownTables``); if the table now shows another one and the join-code
        exchange fails, that is reported as possible interception, not a wrong code.
        ``evidence_dir``: where a failed round's evidence goes (default: the data folder).
        ``seat_store``: a `rami_lan.net.seats.SeatStore` that keeps this seat's credentials
        on disk while the match runs (a relaunched client gets the seat back)."""
        self.host = host
        self.known_fingerprint = (tls.normalize_fingerprint(known_fingerprint)
                                  if known_fingerprint else None)
        self.fingerprint = tls.normalize_fingerprint(fingerprint) if fingerprint else None
        """The pinned certificate fingerprint: the TXT record's (or a remembered one) at
        first, then always the one seen on the first successful connection."""
        self.code_required = code_required
        self.reconnect_window = reconnect_window
        self.paused_window = paused_window
        """How long we wait for a host that said it paused the table (``bye`` reason
        `BYE_TABLE_PAUSED`: it stopped mid-match with its journal kept) to come back."""
        self.port = port
        self.nickname = nickname
        self.lang = lang
        self.code = code
        self.token = token
        self.bot = bot
        self.invitation = invitation
        self.player_id = player_id
        self._card_source = card
        self.match_no = 1
        self.chat_log: list[tuple[int, str]] = []
        """Every chat line received: (seat, text)."""
        self.cards: dict[int, dict[str, Any]] = {}
        """seat -> the last card received for that seat (plain data)."""
        self.chat_policy = ChatPolicy()
        self._card_tasks: set[asyncio.Task[None]] = set()
        self.retries = retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.seat = -1
        self.variant = "rami"
        self.table_id = b""
        self.table: dict[str, Any] = {}
        self.players: list[dict[str, Any]] = []
        self._stood_in: set[int] = set()
        """Seats whose player is not connected and for which the host's bot has played
        (shown "a bot plays for them", not just "reconnecting…", until they are back)."""
        self.view: SeatView | None = None
        self.fairness: list[tuple[bool, str]] = []
        """(ok, reason) of each round once judged (or as soon as it fails)."""
        self.mismatches: list[Any] = []
        """Every fairness `Finding` (rami_lan.table.verifier), in order."""
        self.tracker: FairnessTracker | None = None
        self._checks_key: Any = None  # the verifier's state last kept (`_keep_checks`)
        self._seat_forgotten = False
        """The fairness verifier of this seat (from ``welcome`` on)."""
        self.evidence_dir = evidence_dir
        self._rejoin = token is not None
        self._secrets: dict[bytes, bytes] = {}
        self.connection: ConnectionState = "connecting"
        self._queue: asyncio.Queue[SessionUpdate | None] = asyncio.Queue()
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._session: P.Session | None = None
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self._seq = 0
        self._pending_events: list[Event] = []
        self.seat_machine: SeatMachine | None = None
        """Private dealing: this seat's decisions, sans-I/O (None: not in use)."""
        self._refused_rounds: set[bytes | None] = set()
        self._drawn: Any = None
        self._last_sent = 0.0
        self._ping_task: asyncio.Task[None] | None = None
        self.seat_store = seat_store
        self._local_address: str | None = None
        """Our IPv4 address on the connection to the table (where `_follow_table` browses)."""

    @property
    def connected(self) -> bool:
        return self.connection == "connected"

    @property
    def started(self) -> bool:
        """`open_session` returns a started session (`TableSession.started`)."""
        return self._task is not None or self.connection != "connecting"

    @property
    def state(self) -> None:
        """A remote table's whole match is the host's: never here (`TableSession.state`)."""
        return None

    @property
    def match_id(self) -> str:
        """``"<table id hex>:<match number>"``: the same for every player of the match and
        across reconnects (the statistics record a match once); "" before ``welcome``."""
        if not self.table_id:
            return ""
        return f"{self.table_id.hex()}:{self.match_no}"

    # ------------------------------------------------------------------ TableSession

    async def start(self) -> None:
        """Connect and get seated; raises `JoinRefused` or OSError."""
        await self._connect()
        self._task = asyncio.create_task(self._run(), name=f"rami-client-{self.nickname}")
        self._ping_task = asyncio.create_task(self._pinger())

    async def updates(self) -> AsyncIterator[SessionUpdate]:  # type: ignore[override]
        while True:
            up = await self._queue.get()
            if up is None:
                return
            yield up

    async def act(self, action: A.Action) -> None:
        self._seq += 1
        msg: P.Message
        if isinstance(action, A.Knock):
            msg = P.Knock(seq=self._seq)
        else:
            msg = P.Action(seq=self._seq, action=action_to_plain(action, self.variant))
        if self.seat_machine is not None:  # private dealing: our keys prove the cards are ours
            step = self.seat_machine.before_action(action, self.view)
            await self._send(*(P.Masked(m=out) for out in step.send), msg)
            self._masked_report(step)
        else:
            await self._send(msg)
        self._fair_out(msg, action=action)

    async def next_round(self, choice: Literal["continue", "leave"]) -> None:
        await self._send(P.NextRound(choice=choice))
        if choice == "leave":
            self.forget_seat()

    def _keep_seat(self) -> None:
        """Seated: our credentials go to the seat store (if any), for a relaunch."""
        if self.seat_store is None:
            return
        from rami_lan.net.seats import credentials_of

        cred = credentials_of(self)
        if cred is None:
            return
        try:
            self.seat_store.save(cred)
            self.seat_store.hold(cred.table_id)  # in use: not offered to another client
        except OSError as exc:
            log.warning("could not keep the seat's credentials: %s", clip(str(exc), 200))

    def forget_seat(self) -> None:
        """The match is over for us (ended, left, token refused): no seat to come back to."""
        self._seat_forgotten = True  # nothing more is kept for it (its verifier's checks)
        if self.seat_store is not None and self.table_id:
            self.seat_store.remove(self.table_id.hex())

    async def send_chat(self, text: str) -> None:
        """Say something at the table. The chat rules are checked here first (the host
        checks them again); a refused line comes back as ``SessionUpdate(error=...)``."""
        verdict = self.chat_policy.check(self.seat, text, bot=self.bot)
        if not verdict.ok:
            self._queue.put_nowait(SessionUpdate(error=_chat_notice(verdict)))
            return
        await self._send(P.Chat(text=verdict.text))

    async def chat(self, text: str) -> None:
        """Send a chat line as is (the host alone judges it)."""
        await self._send(P.Chat(text=text))

    def own_card(self) -> dict[str, Any] | None:
        """Our card as plain data: the given one (or what the given callable makes), else
        one without statistics; None for a bot or on error."""
        if self.bot:
            return None
        source = self._card_source
        try:
            if callable(source):
                return source()
            if source is not None:
                return dict(source)
            from rami_lan.player_card import Connection, PlayerCard

            nick = "".join(ch for ch in self.nickname if ch.isprintable()).strip()[:24].strip()
            return PlayerCard(nick or "?", self.player_id, Connection.YOU).to_plain()
        except Exception as exc:  # noqa: BLE001 - statistics must never stop a game
            log.info("no player card to send: %s", exc)
            return None

    async def send_card(self) -> None:
        """Send our card to the table (after ``welcome`` and after each match)."""
        card = await asyncio.to_thread(self.own_card)
        if card is None:
            return
        try:
            msg = P.Card(card=card)
            msg.to_wire()
        except (ValueError, TypeError) as exc:
            log.info("our player card can not be sent: %s", exc)
            return
        await self._send(msg)

    def _schedule_card(self, delay: float = 0.0) -> None:
        if self.bot or self._closing:
            return

        async def later() -> None:
            if delay:
                await asyncio.sleep(delay)
            await self.send_card()

        task = asyncio.get_running_loop().create_task(later())
        self._card_tasks.add(task)
        task.add_done_callback(self._card_tasks.discard)

    async def close(self) -> None:
        if self._closing:
            return
        self._closing = True
        with contextlib.suppress(Exception):
            await self._hand_over()
            await self._send(P.Bye())
        self._drop_transport()
        if self._ping_task is not None:
            self._ping_task.cancel()
        for task in list(self._card_tasks):
            task.cancel()
        if self._task is not None and self._task is not asyncio.current_task():
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task
        self._fair_end()
        if self.seat_store is not None and self.table_id:
            self.seat_store.release(self.table_id.hex())  # kept, free for a relaunch
        self._set_connection("closed")
        self._queue.put_nowait(None)

    # ------------------------------------------------------------------ players

    def _nicknames(self) -> dict[int, str]:
        return {int(p["seat"]): str(p.get("nick", "")) for p in self.players if "seat" in p}

    def _connections(self) -> dict[int, str]:
        """seat -> "you" / "connected" / "reconnecting" / "stand_in" (not connected, the
        host's bot plays for them) / "left" / "bot"."""
        out: dict[int, str] = {}
        for p in self.players:
            seat = p.get("seat")
            if not isinstance(seat, int):
                continue
            if seat == self.seat:
                out[seat] = "you"
            elif p.get("left"):
                out[seat] = "left"
            elif p.get("kind") == "bot":
                out[seat] = "bot"
            elif p.get("connected"):
                out[seat] = "connected"
            else:
                out[seat] = "stand_in" if seat in self._stood_in else "reconnecting"
        return out

    def _absent_seat(self, seat: int) -> bool:
        """Whether ``seat`` is a player's (not a bot's) who is not connected and did not leave."""
        for p in self.players:
            if p.get("seat") == seat:
                return not (p.get("connected") or p.get("left") or p.get("kind") == "bot")
        return False

    def _note_stand_ins(self, events: Sequence[Any]) -> bool:
        """The host's bot played for a seat whose player is away (a move of theirs while
        not connected): that seat reads "a bot plays for them". True if that changed."""
        before = set(self._stood_in)
        for ev in events:
            if isinstance(ev, _MOVES) and ev.seat != self.seat and self._absent_seat(ev.seat):
                self._stood_in.add(ev.seat)
        return self._stood_in != before

    def _back_in(self) -> None:
        """After a players list: a seat whose player is connected again (or left) plays
        itself again."""
        self._stood_in = {s for s in self._stood_in if self._absent_seat(s)}

    # ------------------------------------------------------------------ messages

    async def _handle(self, msg: P.Message) -> None:
        sm = self.seat_machine
        if sm is None:
            await self._handle_now(msg)
            return
        # Private dealing: masked-deck messages are used at once; every other message waits,
        # in order, while a key for one of our own cards is still on its way (`SeatMachine`).
        masked = decode_for_seat(msg.m) if isinstance(msg, P.Masked) else None
        if isinstance(masked, MkOwn | MkOrders):
            self._on_owner_masked(masked)  # a round dealt without us in its masked deck
            return
        if masked is not None:
            step = sm.receive(masked)
        elif isinstance(msg, P.Events):
            decoded = self._decode_events(msg)
            step = sm.receive((msg, decoded), decoded)
        else:
            step = sm.receive(msg)
        if step.send:
            await self._send(*(P.Masked(m=out) for out in step.send))
        for item in step.ready:
            if isinstance(item, tuple):
                self._on_events(*item)
            else:
                await self._handle_now(item)
        self._masked_report(step)
        action = sm.timeout_move(self.view, self._drawn)
        if action is not None:
            # Our move timer ran out (``mk_timeout``): the host can not play our hidden
            # hand, so we play the automatic move ourselves.
            if self.view is not None and self.view.phase == "draw":
                self._queue.put_nowait(SessionUpdate(notice=Notice.of(NoticeCode.TIMER_PLAYED)))
            await self.act(action)

    async def _handle_now(self, msg: P.Message) -> None:
        if isinstance(msg, P.Events):
            self._on_events(msg)
        elif isinstance(msg, P.View):
            try:
                self.view = view_from_plain(msg.view)
                if self.masked is not None:
                    self.view = self.masked.fill_view(self.view)
            except (MalformedAction, TypeError, KeyError, ValueError) as exc:
                log.warning("bad view from the host: %s", exc)
                return
            if self.view.match_over:
                self.forget_seat()  # also when we came back after its MatchEnded
            events, self._pending_events = tuple(self._pending_events), []
            self._queue.put_nowait(SessionUpdate(view=self.view, events=events))
            self._fair_in(msg)
        elif isinstance(msg, P.Error):
            self._fair_in(msg)
            if msg.code == "chat_refused":
                self._queue.put_nowait(SessionUpdate(error=_chat_refusal(msg.message)))
            elif msg.code == "reveal_mismatch":
                self._queue.put_nowait(SessionUpdate(notice=msg.message))
            else:
                self._queue.put_nowait(SessionUpdate(error=refusal_of(msg)))
        elif isinstance(msg, P.CommitRequest):
            await self._on_commit_request(msg)
        elif isinstance(msg, P.Commitments):
            await self._on_commitments(msg)
        elif isinstance(msg, P.RoundSecrets):
            self._on_secrets(msg)
        elif isinstance(msg, P.ChatMsg):
            self.chat_log.append((msg.seat, msg.text))
            self._queue.put_nowait(SessionUpdate(chat=((msg.seat, msg.text),)))
        elif isinstance(msg, P.CardMsg):
            self._on_card(msg)
        elif isinstance(msg, P.Masked):
            self._on_owner_masked(decode_for_seat(msg.m))
        elif isinstance(msg, P.Ping):
            await self._send(P.Pong(n=msg.n))
        elif isinstance(msg, P.Bye) and msg.reason == BYE_TABLE_PAUSED:
            self._queue.put_nowait(SessionUpdate(
                notice=Notice.of(NoticeCode.HOST_PAUSED, secs=self.paused_window)))
        elif isinstance(msg, P.Bye):
            self._queue.put_nowait(SessionUpdate(
                notice=Notice.of(NoticeCode.HOST_CLOSED, why=msg.reason or "-")))

    def _on_card(self, msg: P.CardMsg) -> None:
        from rami_lan.player_card import PlayerCard

        try:
            PlayerCard.from_plain(msg.card)
        except (ValueError, TypeError) as exc:
            log.info("bad player card from the host: %s", exc)
            return
        self.cards[msg.seat] = msg.card
        self._queue.put_nowait(SessionUpdate(cards={msg.seat: msg.card}))

    def _decode_events(self, msg: P.Events) -> list[Any]:
        """The message's events, decoded (table notices as `TableNotice`)."""
        out: list[Any] = []
        for plain in msg.events:
            if plain.get("type") == TABLE_NOTICE:
                out.append(TableNotice.from_plain(plain))
                continue
            try:
                out.append(event_from_plain(plain, self.variant))
            except (MalformedAction, TypeError, KeyError, ValueError) as exc:
                log.warning("bad event from the host: %s", exc)
        return out

    def _on_events(self, msg: P.Events, items: list[Any] | None = None) -> None:
        decoded: list[Event] = []
        for ev in self._decode_events(msg) if items is None else items:
            if isinstance(ev, TableNotice):
                self._on_table_notice(ev)
                continue
            decoded.append(ev)
            if isinstance(ev, E.StockDrawn) and ev.seat == self.seat and ev.card is not None:
                self._drawn = ev.card  # the automatic move discards it (`SeatMachine.timeout_move`)
            self._observe(ev)
            if isinstance(ev, E.MatchEnded):
                # Our statistics change once the UI recorded the match: report them again.
                self._schedule_card(0.5)
                self.forget_seat()
        self._pending_events.extend(decoded)
        if self._note_stand_ins(decoded):
            self._queue.put_nowait(SessionUpdate(connections=self._connections()))
        self._fair_in(msg, decoded)

    def _on_table_notice(self, notice: TableNotice) -> None:
        if notice.players is not None:
            self.players = list(notice.players)
            self._back_in()
        data = notice.data
        if (notice.code == NoticeCode.PRIVATE_DEAL_BENCHED and data is not None
                and data.get("seat") == self.seat and self.tracker is not None):
            self.tracker.benched()  # the host's bot plays our seat from the next round
        coded = host_notice(notice.code, data)
        self._queue.put_nowait(SessionUpdate(
            nicknames=self._nicknames(), connections=self._connections(),
            notice=coded if coded is not None else notice.text))

    # ------------------------------------------------------------------ fair shuffle

    async def _on_commit_request(self, msg: P.CommitRequest) -> None:
        self._fair_in(msg)
        tracker = self.tracker
        if tracker is None or not tracker.can_commit(msg.round_tag, msg.seat):
            self._queue.put_nowait(SessionUpdate(
                notice=Notice.of(NoticeCode.UNEXPECTED_COMMIT_REQUEST)))
            return
        secret = self._secrets.get(msg.round_tag)
        if secret is None:
            secret = self._secrets[msg.round_tag] = new_secret()
        out = P.Commit(round_tag=msg.round_tag, commit=commitment(msg.round_tag, msg.seat, secret))
        await self._send(out)
        self._fair_out(out, secret=secret)

    async def _on_commitments(self, msg: P.Commitments) -> None:
        self._fair_in(msg)
        tracker = self.tracker
        # Reveal only now, once, and only if the list holds the commitment we sent.
        if tracker is not None and tracker.can_reveal(msg.round_tag):
            out = P.Reveal(round_tag=msg.round_tag, secret=self._secrets[msg.round_tag])
            await self._send(out)
            self._fair_out(out)

    def _observe(self, ev: Event) -> None:
        if isinstance(ev, E.TurnStarted):
            timer = self.table.get("timer") or 0
            if isinstance(timer, int) and timer > 0:
                self._queue.put_nowait(SessionUpdate(deadline=time.monotonic() + timer))


def _chat_notice(verdict: ChatVerdict) -> Notice:
    return Notice.of(NoticeCode.CHAT_REFUSED, refusal=verdict.refusal,
                     retry_after=verdict.retry_after)


def _chat_refusal(message: str) -> Notice:
    """The host's ``chat_refused`` error (``"<refusal>: ..."``) as a notice."""
    verdict = ChatVerdict.from_wire(message)
    if verdict is None:
        return Notice.of(NoticeCode.HOST_REFUSED_CHAT, why=message)
    return _chat_notice(verdict)


async def open_session(host: str, port: int, *, nickname: str, lang: str = "en",
                       code: str | None = None, token: bytes | None = None,
                       bot: bool = False, fingerprint: str | None = None,
                       **options: Any) -> RemoteTableSession:
    """Connect to a table and return the seated session (its updates already flowing).

    ``fingerprint``: the certificate fingerprint to pin (the TXT record's ``fp``, or the
    one remembered for this table); a mismatch raises `FingerprintMismatch`. Without it
    (``HOST:PORT``) the connection is still encrypted and the join code's PAKE still
    catches a relay. A wrong code raises `JoinRefused` (``bad_code``) or `PakeFailed`.
    """
    session = RemoteTableSession(host, port, nickname=nickname, lang=lang, code=code,
                                 token=token, bot=bot, fingerprint=fingerprint, **options)
    await session.start()
    return session
