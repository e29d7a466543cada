"""An in-process table: one human seat plus bots, for solo play and for tests.

`LocalTableSession` implements `rami_lan.net.table_session.TableSession` without any
network: it holds the `MatchState`, applies the human's actions with the core, plays
the other seats with bots, and delivers what the human seat may see (its view and
the events redacted for it). Rounds are dealt from a shuffle seeded by ``seed``, so a
given seed always deals the same cards.

Bots come from `rami_lan.bots.make_bot` when that package is installed; otherwise a
small fallback plays a random legal action, preferring to lay cards.

It also behaves like a table for the player-facing features: `send_chat` applies the
chat policy and echoes the line as the human seat's (bots never chat), the first update
carries every seat's connection state (``you`` / ``bot``) and an "Info joueur" card
per seat, and `replay_record()` returns the match so far in the replay format of
`rami_lan.replay` (deck, seed, dealer and every accepted action per round).
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import time
from collections.abc import AsyncIterator, Mapping
from typing import Any, Literal, Protocol

from rami_lan.core import actions as A
from rami_lan.core import events as E
from rami_lan.core.cards import card_id, full_deck
from rami_lan.core.codec import action_to_plain
from rami_lan.core.deckrng import deck_order
from rami_lan.core.errors import IllegalAction
from rami_lan.core.match import MatchOptions, MatchState, apply, new_match, start_round, withdraw
from rami_lan.core.shadow import legal_actions_for_view
from rami_lan.core.variants import get_variant
from rami_lan.core.views import SeatView, view_for
from rami_lan.net.chat import ChatPolicy
from rami_lan.net.table_session import SessionUpdate

BOT_LEVELS = ("debutant", "moyen", "expert")


class Bot(Protocol):
    def choose(self, view: SeatView, new_events: list[E.Event]) -> A.Action: ...

    def wants_knock(self, view: SeatView) -> bool: ...


class FallbackBot:
    """A random legal action, preferring to meld or lay off (used until real bots exist)."""

    def __init__(self, level: str, seat: int, seed: int) -> None:
        self.level = level
        self.seat = seat
        self.rng = random.Random(seed)

    def choose(self, view: SeatView, new_events: list[E.Event]) -> A.Action:
        acts = [a for a in legal_actions_for_view(view) if not isinstance(a, A.Knock)]
        if not acts:
            raise IllegalAction(self.seat, view.phase, "no legal action")
        lay = [a for a in acts if isinstance(a, A.LayDown | A.LayOff)]
        return self.rng.choice(lay or acts)

    def wants_knock(self, view: SeatView) -> bool:
        return False


def make_bot(level: str, seat: int, seed: int) -> Bot:
    """A bot of ``level`` from `rami_lan.bots`, or the fallback when it is missing."""
    try:
        from rami_lan.bots import make_bot as real_make_bot
    except ImportError:
        return FallbackBot(level, seat, seed)
    return real_make_bot(level, seat, seed)


def _seed_bytes(seed: int | str | bytes) -> bytes:
    if isinstance(seed, bytes):
        return seed
    return str(seed).encode("utf-8")


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
        self.variant = v.id
        self.seat = human_seat
        self.seats = seats
        self.think_delay = think_delay
        self.timer = timer
        self._seed = _seed_bytes(seed)
        self._match: MatchState = new_match(v, seats, options)
        base = int.from_bytes(hashlib.sha256(self._seed).digest()[:4], "big")
        self._bot_levels = dict(bots)
        self._bots: dict[int, Bot] = {
            s: make_bot(level, s, base + s) for s, level in sorted(bots.items())
        }
        self._bot_events: dict[int, list[E.Event]] = {s: [] for s in self._bots}
        self.nicknames: dict[int, str] = dict(nicknames or {})
        for s in range(seats):
            if s not in self.nicknames:
                self.nicknames[s] = f"Bot {s}" if s in self._bots else f"Joueur {s + 1}"
        self._queue: asyncio.Queue[SessionUpdate | None] = asyncio.Queue()
        self._wake = asyncio.Event()
        self._driver: asyncio.Task[None] | None = None
        self._closed = False
        self._deadline: float | None = None
        self._deadline_turn: tuple[int, int] | None = None
        self._knock_asked: tuple[int, int] | None = None
        self.match_no = 1
        self._seed_hex = hashlib.sha256(self._seed).hexdigest()[:16]
        self.chat = chat_policy or ChatPolicy()
        for s in self._bots:
            self.chat.set_bot(s)
        self._card = dict(card) if card is not None else None
        self._rounds: list[dict[str, Any]] = []

    @property
    def match_id(self) -> str:
        """Unique per match of this table (the statistics' key)."""
        return f"solo:{self._seed_hex}:{self.match_no}"

    def connections(self) -> dict[int, str]:
        return {s: ("bot" if s in self._bots else "you") for s in range(self.seats)}

    def cards(self) -> dict[int, dict[str, Any]]:
        """Each seat's "Info joueur" card as plain data (bots: a bare bot card)."""
        from rami_lan.stats import Connection, PlayerCard

        out: dict[int, dict[str, Any]] = {}
        for s in range(self.seats):
            if s == self.seat and self._card is not None:
                out[s] = dict(self._card)
                continue
            conn = Connection.BOT if s in self._bots else Connection.YOU
            try:
                out[s] = PlayerCard(self.nicknames[s], None, conn).to_plain()
            except ValueError:
                continue
        return out

    def replay_record(self) -> dict[str, Any]:
        """The match so far in `rami_lan.replay`'s record format (JSON-ready)."""
        o = self._match.options
        return {
            "format": "rami-lan-replay",
            "version": 1,
            "variant": self.variant,
            "seats": self.seats,
            "options": {"limit": o.limit, "quick": o.quick, "knock": o.knock},
            "nicknames": [self.nicknames[s] for s in range(self.seats)],
            "rounds": [
                {**r, "actions": list(r["actions"]), "withdrawals": list(r["withdrawals"])}
                for r in self._rounds
            ],
        }

    # --- what tests and the UI may read -------------------------------------------

    @property
    def state(self) -> MatchState:
        """The full match state (tests only: the UI reads views)."""
        return self._match

    def view(self) -> SeatView:
        return view_for(self._match, self.seat)

    # --- TableSession ----------------------------------------------------------------

    @property
    def started(self) -> bool:
        return self._driver is not None

    async def start(self) -> None:
        if self._driver is not None:
            return
        self._emit(
            [],
            connection="connected",
            nicknames=dict(self.nicknames),
            connections=self.connections(),
            cards=self.cards(),
        )
        self._deal()
        self._driver = asyncio.get_running_loop().create_task(self._drive())

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
            self._queue.put_nowait(SessionUpdate(error="not your seat"))
            return
        self._apply(action, error_to_ui=True)
        self._wake.set()

    async def next_round(self, choice: Literal["continue", "leave"]) -> None:
        m = self._match
        if choice == "leave":
            if m.phase == "between":
                self._match, evs = withdraw(m, self.seat)
                if self._rounds:
                    self._rounds[-1]["withdrawals"].append(self.seat)
                self._emit(evs)
            await self.close()
            return
        if m.phase == "between":
            self._deal()
            self._wake.set()

    async def send_chat(self, text: str) -> None:
        """Say something: the chat policy judges it; accepted lines come back as ours."""
        if self._closed:
            return
        verdict = self.chat.check(self.seat, text)
        if verdict.ok:
            self._queue.put_nowait(SessionUpdate(chat=((self.seat, verdict.text),)))
        else:
            self._queue.put_nowait(SessionUpdate(notice=verdict.message()))

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._driver is not None:
            self._driver.cancel()
            try:
                await self._driver
            except (asyncio.CancelledError, Exception):  # noqa: BLE001 - shutting down
                pass
        self._queue.put_nowait(SessionUpdate(connection="closed"))
        self._queue.put_nowait(None)

    # --- the table ------------------------------------------------------------------

    def _round_seed(self, round_no: int) -> bytes:
        return hashlib.sha256(
            b"rami-lan local table\x00" + self._seed + round_no.to_bytes(4, "big")
        ).digest()

    def _deal(self) -> None:
        m = self._match
        v = m.variant
        seed = self._round_seed(m.round_no + 1)
        cards = full_deck(v.n_decks, v.n_jokers)
        deck = [cards[i] for i in deck_order(seed, v.deck_size)]
        self._match, evs = start_round(m, deck, seed)
        r = self._match.round
        self._rounds.append({
            "deck": [card_id(c, v.n_decks) for c in deck],
            "seed": seed.hex(),
            "dealer": r.dealer if r is not None else 0,
            "actions": [],
            "withdrawals": [],
        })
        self._emit(evs)

    def _apply(self, action: A.Action, *, error_to_ui: bool) -> bool:
        try:
            self._match, evs = apply(self._match, action)
        except IllegalAction as e:
            if error_to_ui:
                self._queue.put_nowait(SessionUpdate(error=e.reason, view=self.view()))
            return False
        if self._rounds:
            self._rounds[-1]["actions"].append(action_to_plain(action, self.variant))
        self._emit(evs)
        return True

    def _emit(self, evs: list[E.Event], **extra: Any) -> None:
        for s, buf in self._bot_events.items():
            buf.extend(e.for_seat(s) for e in evs)
        self._update_deadline()
        self._queue.put_nowait(
            SessionUpdate(
                view=self.view(),
                events=tuple(e.for_seat(self.seat) for e in evs),
                deadline=self._deadline,
                **extra,
            )
        )

    def _update_deadline(self) -> None:
        m = self._match
        r = m.round
        if not self.timer or r is None or m.phase not in ("draw", "play"):
            self._deadline, self._deadline_turn = None, None
            return
        key = (m.round_no, r.turn_no)
        if key != self._deadline_turn:
            self._deadline_turn = key
            self._deadline = time.monotonic() + self.timer

    async def _drive(self) -> None:
        """Play the bots' seats; time the human's moves when the table has a timer."""
        while not self._closed:
            if await self._bot_step():
                continue
            self._wake.clear()
            m = self._match
            human_turn = m.round is not None and m.phase in ("draw", "play")
            human_turn = human_turn and m.round is not None and m.round.turn == self.seat
            if human_turn and self._deadline is not None:
                left = self._deadline - time.monotonic()
                try:
                    await asyncio.wait_for(self._wake.wait(), max(0.0, left))
                except TimeoutError:
                    if self._match is m:
                        self._apply(A.Timeout(self.seat), error_to_ui=False)
            else:
                await self._wake.wait()

    def _bot_view(self, seat: int) -> tuple[SeatView, list[E.Event]]:
        evs, self._bot_events[seat] = self._bot_events[seat], []
        return view_for(self._match, seat), evs

    async def _bot_step(self) -> bool:
        m = self._match
        r = m.round
        if r is None or m.phase not in ("draw", "play"):
            return False
        key = (m.round_no, r.turn_no)
        if m.phase == "draw" and r.knock_window and self._knock_asked != key:
            self._knock_asked = key
            for s in r.knock_window:
                bot = self._bots.get(s)
                if bot is not None and bot.wants_knock(view_for(m, s)):
                    if self._apply(A.Knock(s), error_to_ui=False):
                        return True
        bot = self._bots.get(r.turn)
        if bot is None:
            return False
        await asyncio.sleep(self.think_delay)
        if self._match is not m:  # the human knocked meanwhile
            return True
        seat = r.turn
        view, evs = self._bot_view(seat)
        try:
            action = bot.choose(view, evs)
        except Exception:  # noqa: BLE001 - a broken bot must not stop the table
            action = None
        if action is None or not self._apply(action, error_to_ui=False):
            fallback = FallbackBot("debutant", seat, key[1])
            self._apply(fallback.choose(view_for(self._match, seat), []), error_to_ui=False)
        return True
