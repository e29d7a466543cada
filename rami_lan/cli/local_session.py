"""An in-process table: the table machine with the player's seat held in this process.

`LocalTableSession` implements `rami_lan.net.table_session.TableSession` with no
network: it runs `rami_lan.table.TableMachine` (the same machine a LAN host runs: bots,
move timer, chat limits, between-rounds answers) and turns the messages the machine
addresses to the player's seat into `SessionUpdate`s, as the network client does. The
only thing it adds is a reproducible deal: each round's seed is derived from ``seed``,
so a given seed always deals the same cards (``rami-lan solo --seed``).

`replay_record()` returns the match so far in the replay format of `rami_lan.replay`
(deck, seed, dealer and every accepted action per round).
"""

from __future__ import annotations

import asyncio
import hashlib
import random
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, Literal

from rami_lan.cli.messages import chat_refusal_text
from rami_lan.core import actions as A
from rami_lan.core import events as E
from rami_lan.core.errors import IllegalAction
from rami_lan.core.match import MatchOptions, MatchState
from rami_lan.core.reasons import Reason
from rami_lan.core.shadow import legal_actions_for_view
from rami_lan.core.variants import Variant, get_variant
from rami_lan.core.views import SeatView, view_for
from rami_lan.ids import BOT_LEVELS
from rami_lan.net.table_session import SessionUpdate
from rami_lan.profile import default_nickname
from rami_lan.table import effects as F
from rami_lan.table.chat import ChatPolicy, ChatVerdict
from rami_lan.table.config import TableConfig
from rami_lan.table.fairround import RoundCtx
from rami_lan.table.machine import TableMachine
from rami_lan.wire import messages as W

__all__ = ["BOT_LEVELS", "FallbackBot", "LocalTableSession"]

_CONN = 1
"""The player's connection id inside the machine."""


class FallbackBot:
    """A random legal action, preferring to meld or lay off (a test and demo player)."""

    def __init__(self, level: str, seat: int, seed: int) -> None:
        self.level = level
        self.seat = seat
        self.rng = random.Random(seed)

    def choose(self, view: SeatView, new_events: Sequence[E.Event]) -> A.Action:
        acts = [a for a in legal_actions_for_view(view) if not isinstance(a, A.Knock)]
        if not acts:
            raise IllegalAction(self.seat, view.phase, "no legal action")
        lay = [a for a in acts if isinstance(a, A.LayDown | A.LayOff)]
        return self.rng.choice(lay or acts)

    def wants_knock(self, view: SeatView) -> bool:
        return False


def _seed_bytes(seed: int | str | bytes) -> bytes:
    if isinstance(seed, bytes):
        return seed
    return str(seed).encode("utf-8")


class _ReplayLog:
    """The solo table's `rami_lan.table.record_sink.RecordSink`: what a replay needs (each
    round's deck, seed, dealer, actions and withdrawals, in `rami_lan.replay`'s format);
    the rest of the history is not kept."""

    def __init__(self, variant: str) -> None:
        self.variant = variant
        self.rounds: list[dict[str, Any]] = []
        self._open = False

    def set_players(self, players: Sequence[Mapping[str, Any]]) -> None:
        """(A replay names the seats itself.)"""

    def begin_round(self, round_no: int, tag: bytes, commit: Any, deck: Sequence[int],
                    seed: bytes) -> None:
        self._open = True
        self.rounds.append({"deck": list(deck), "seed": seed.hex(), "dealer": 0,
                            "actions": [], "withdrawals": []})

    def recording(self) -> bool:
        return self._open

    def set_round_players(self, m: MatchState) -> None:
        if self.rounds and m.round is not None:
            self.rounds[-1]["dealer"] = m.round.dealer

    def log_events(self, evs: Sequence[E.Event], variant: Variant) -> None:
        """(A replay derives the events from the deck and the actions.)"""

    def log_action(self, plain: Mapping[str, Any], by: str) -> None:
        if self.rounds:
            self.rounds[-1]["actions"].append(dict(plain))

    def log_withdrawal(self, seat: int) -> None:
        if self.rounds:
            self.rounds[-1]["withdrawals"].append(seat)

    def end_round(self, m: MatchState, secrets: Mapping[int, bytes], excluded: Sequence[int],
                  abandoned: bool = False) -> None:
        self._open = False

    def void_current(self, round_no: int, reason: str, variant: Variant) -> None:
        """(A solo round is never void: every seat is in this process.)"""

    def finish(self, m: MatchState) -> None:
        """(A replay derives the result.)"""

    def to_plain(self) -> dict[str, Any]:
        return {}

    def snapshot_state(self, pending: Sequence[Mapping[str, Any]] = ()) -> dict[str, Any]:
        return {"data": {}, "current": None}

    def restore_state(self, state: Mapping[str, Any]) -> None:
        """(A solo table has no journal to resume from.)"""


class _LocalTable(TableMachine):
    """The machine with rounds seeded from the session's seed."""

    def __init__(self, config: TableConfig, entropy: Any, *, record: Any, seed: bytes) -> None:
        self.seed = seed  # the bots are built from it, in the machine's constructor
        super().__init__(config, entropy, record=record)

    def make_policy(self, level: str, seat: int) -> Any:
        """Bots seeded from the session's seed: the same seed, the same bots' play."""
        from rami_lan.bots import make_bot

        base = int.from_bytes(hashlib.sha256(self.seed).digest()[:4], "big")
        return make_bot(level, seat, base + seat)

    def seats_to_commit(self, players: Sequence[int]) -> tuple[int, ...]:
        return ()  # one process holds every seat: nobody to prove the shuffle to

    def round_seed(self, ctx: RoundCtx) -> bytes:
        return hashlib.sha256(b"rami-lan local table\x00" + self.seed
                              + (self.match.round_no + 1).to_bytes(4, "big")).digest()


class LocalTableSession:
    """A table played in this process; the human sits at ``human_seat``."""

    def __init__(
        self,
        variant: str,
        seats: int,
        human_seat: int,
        bots: Mapping[int, str],
        options: MatchOptions | None = None,
        seed: int | str | bytes = 0,
        think_delay: float = 0.0,
        *,
        timer: int = 0,
        nicknames: Mapping[int, str] | None = None,
        card: Mapping[str, Any] | None = None,
        chat_policy: ChatPolicy | None = None,
    ) -> None:
        v = get_variant(variant)
        if not 0 <= human_seat < seats:
            raise ValueError("the human seat must be one of the table's seats")
        if human_seat in bots:
            raise ValueError("the human seat can not be a bot")
        o = options or MatchOptions()
        self.variant = v.id
        self.seat = human_seat
        self.seats = seats
        self._seed = _seed_bytes(seed)
        names = dict(nicknames or {})
        config = TableConfig(
            name="Solo", variant=v.id, seats=seats,
            bots={s: lvl for s, lvl in bots.items() if s != human_seat},
            limit=o.limit, quick=o.quick, knock=o.knock, timer=timer, advertise=False,
            host_nickname=names.get(human_seat, default_nickname()),
            bot_delay=think_delay, headless=True)
        stream = _Entropy(self._seed)
        self._log = _ReplayLog(v.id)
        self.machine = _LocalTable(config, stream, record=self._log, seed=self._seed)
        for s in range(seats):
            default = f"Bot {s + 1}" if s in bots else default_nickname()
            self.machine.seats[s].nick = names.get(s, default)
        if chat_policy is not None:
            self.machine.chat_policy = chat_policy
        self.chat = self.machine.chat_policy
        for s in bots:
            self.chat.set_bot(s)
        self.nicknames = {s: self.machine.seats[s].nick for s in range(seats)}
        self._card = dict(card) if card is not None else None
        self._queue: asyncio.Queue[SessionUpdate | None] = asyncio.Queue()
        self._wake: asyncio.TimerHandle | None = None
        self._started = False
        self._closed = False
        self._pending: list[E.Event] = []
        self._seq = 0
        self.match_no = 1
        self.table_id = b""
        self.bot = False
        self.table: dict[str, Any] = self.machine.table_info()
        self.table["local"] = True  # in this process: no host but the player's own machine
        self._seed_hex = hashlib.sha256(self._seed).hexdigest()[:16]

    # --- facts -----------------------------------------------------------------------

    @property
    def timer(self) -> float:
        return self.machine.config.timer

    @timer.setter
    def timer(self, seconds: float) -> None:
        self.machine.config.timer = seconds  # type: ignore[assignment]

    @property
    def think_delay(self) -> float:
        return self.machine.config.bot_delay or 0.0

    @property
    def match_id(self) -> str:
        """Unique per match of this table (the statistics' key)."""
        return f"solo:{self._seed_hex}:{self.match_no}"

    @property
    def state(self) -> MatchState:
        """The full match state (tests only: the UI reads views)."""
        return self.machine.match

    @property
    def started(self) -> bool:
        return self._started

    def view(self) -> SeatView:
        return view_for(self.machine.match, self.seat)

    def connections(self) -> dict[int, str]:
        return {s: ("you" if s == self.seat else "bot" if st.kind == "bot" else "connected")
                for s, st in self.machine.seats.items()}

    def cards(self) -> dict[int, dict[str, Any]]:
        """Each seat's "Info joueur" card as plain data (bots: a bare bot card)."""
        from rami_lan.player_card import Connection, PlayerCard

        out: dict[int, dict[str, Any]] = {}
        for s in range(self.seats):
            if s == self.seat and self._card is not None:
                out[s] = dict(self._card)
                continue
            conn = Connection.BOT if self.machine.seats[s].kind == "bot" else Connection.YOU
            try:
                out[s] = PlayerCard(self.nicknames[s], None, conn).to_plain()
            except ValueError:
                continue
        return out

    def replay_record(self) -> dict[str, Any]:
        """The match so far in `rami_lan.replay`'s record format (JSON-ready)."""
        o = self.machine.match.options
        return {
            "format": "rami-lan-replay", "version": 1, "variant": self.variant,
            "seats": self.seats,
            "options": {"limit": o.limit, "quick": o.quick, "knock": o.knock},
            "nicknames": [self.nicknames[s] for s in range(self.seats)],
            "rounds": [{**r, "actions": list(r["actions"]),
                        "withdrawals": list(r["withdrawals"])} for r in self._log.rounds],
        }

    # --- TableSession ----------------------------------------------------------------

    async def start(self) -> None:
        if self._started:
            return
        self._started = True
        self._queue.put_nowait(SessionUpdate(
            connection="connected", nicknames=dict(self.nicknames),
            connections=self.connections(), cards=self.cards()))
        m = self.machine
        m.seats[self.seat].kind = "human"
        token = b"\x00" * 16
        from rami_lan.table.seats import token_hash

        m.seats[self.seat].token = token_hash(token)
        self._run(m.joined(_CONN, self._now(), nick=self.nicknames[self.seat], token=token))
        self._run(m.start(self._now()))

    async def updates(self) -> AsyncIterator[SessionUpdate]:
        while True:
            upd = await self._queue.get()
            if upd is None:
                return
            yield upd

    async def act(self, action: A.Action) -> None:
        if self._closed:
            return
        if getattr(action, "seat", None) != self.seat or isinstance(action, A.Timeout):
            self._queue.put_nowait(SessionUpdate(error=Reason.of("not_your_seat")))
            return
        self._seq += 1
        if isinstance(action, A.Knock):
            self._run(self.machine.knock(_CONN, self._seq, self._now()))
        else:
            self._run(self.machine.action(_CONN, self._seq, action, self._now()))

    async def next_round(self, choice: Literal["continue", "leave"]) -> None:
        if self._closed:
            return
        if self.machine.match.phase == "between":
            self._run(self.machine.next_round(_CONN, choice, self._now()))
        if choice == "leave":
            await self.close()

    async def send_chat(self, text: str) -> None:
        """Say something: the table's chat policy judges it, like any table's."""
        if not self._closed:
            self._run(self.machine.chat(_CONN, text, self._now()))

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._wake is not None:
            self._wake.cancel()
        self.machine.stop(self._now())
        self._queue.put_nowait(SessionUpdate(connection="closed"))
        self._queue.put_nowait(None)

    # --- the machine's effects ------------------------------------------------------

    @staticmethod
    def _now() -> float:
        return asyncio.get_running_loop().time()

    def _run(self, effects: Sequence[F.Effect]) -> None:
        for eff in effects:
            if isinstance(eff, F.Send) and eff.conn == _CONN:
                self._deliver(eff.msg)
            elif isinstance(eff, F.Wake):
                if self._wake is not None:
                    self._wake.cancel()
                    self._wake = None
                if eff.at is not None and not self._closed:
                    self._wake = asyncio.get_running_loop().call_at(eff.at, self._tick)

    def _tick(self) -> None:
        self._wake = None
        if not self._closed:
            self._run(self.machine.tick(self._now()))

    def _deliver(self, msg: F.Msg) -> None:
        q = self._queue
        if isinstance(msg, F.EventsMsg):
            for e in msg.events:
                if isinstance(e, F.TableNotice):
                    q.put_nowait(SessionUpdate(connections=self.connections(), notice=e.text))
                else:
                    self._pending.append(e)
        elif isinstance(msg, F.SeatViewMsg):
            events, self._pending = tuple(self._pending), []
            q.put_nowait(SessionUpdate(view=msg.view, events=events,
                                       deadline=self.machine.move_deadline()))
        elif isinstance(msg, W.Error):
            if msg.code == "chat_refused":
                q.put_nowait(SessionUpdate(notice=_chat_refusal(msg.message)))
            else:
                why = msg.reason
                q.put_nowait(SessionUpdate(error=Reason.from_plain(why) if why else msg.message,
                                           view=self.view()))
        elif isinstance(msg, W.ChatMsg):
            q.put_nowait(SessionUpdate(chat=((msg.seat, msg.text),)))


def _chat_refusal(message: str) -> str:
    """The table's ``chat_refused`` text (``"<refusal>: ..."``) as the policy's sentence."""
    verdict = ChatVerdict.from_wire(message)
    return message if verdict is None else chat_refusal_text(verdict)


class _Entropy:
    """Deterministic bytes from the session's seed (the host secret, bot seeds)."""

    def __init__(self, seed: bytes) -> None:
        self._seed = seed
        self._n = 0

    def __call__(self, n: int) -> bytes:
        out = b""
        while len(out) < n:
            self._n += 1
            out += hashlib.sha256(b"rami-lan local entropy\x00" + self._seed
                                  + self._n.to_bytes(8, "big")).digest()
        return out[:n]
