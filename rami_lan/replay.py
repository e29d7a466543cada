"""Replays: every state of a recorded match, rebuilt with the rules core.

A match record is complete: per round it holds the deck order (card ids, top of the
stock first), the round's seed, the dealer and the ordered list of accepted actions
(plain dicts, decoded with :func:`rami_lan.core.action_from_plain`). :class:`ReplayRecord`
is the minimal shape this module needs (``from_plain`` / ``to_plain``, JSON-ready: the
seed is hex). The host's record file is adapted to it (see docs/players.md).

:class:`Replay` replays the record once, eagerly, and keeps the state after every
step: position 0 is the empty match, then one position after each round is dealt,
after each action, and after each between-rounds withdrawal. A record that does not
replay (a malformed or illegal action, a deck that is not the variant's deck) raises
:class:`ReplayError` naming the round and the action.

Navigation: ``position`` with :meth:`Replay.forward` / :meth:`Replay.back` (by one
step), :meth:`Replay.seek`, :meth:`Replay.jump_to_round` (right after that round's
deal), :meth:`Replay.round_end` (its last step). :meth:`Replay.state_at` gives the core's
``MatchState``; :meth:`Replay.view_all` gives every seat's view and every hand.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from rami_lan.core import (
    MatchOptions,
    MatchState,
    RulesError,
    SeatView,
    action_from_plain,
    apply,
    card_from_id,
    get_variant,
    new_match,
    start_round,
    view_for,
    withdraw,
)
from rami_lan.core.actions import Action
from rami_lan.core.cards import Card
from rami_lan.core.events import Event
from rami_lan.i18n import _

__all__ = [
    "REPLAY_FORMAT",
    "FullView",
    "Replay",
    "ReplayError",
    "ReplayRecord",
    "RoundRecord",
    "Step",
    "replay_from_plain",
    "replay_help",
]

REPLAY_FORMAT: Final = "rami-lan-replay"
REPLAY_VERSION: Final = 1
MAX_ACTIONS_PER_ROUND: Final = 100_000
MAX_ROUNDS: Final = 1000
MAX_TOTAL_ACTIONS: Final = 200_000
"""Actions in a whole record (each one is replayed and its state kept)."""
MAX_NICKNAME: Final = 64


class ReplayError(ValueError):
    """The record is malformed or does not replay with the rules core."""


def _int(value: object, what: str, low: int, high: int) -> int:
    if type(value) is not int or not low <= value <= high:
        raise ReplayError(f"{what} must be an int in {low}..{high}, got {value!r}")
    return value


def _seed(value: object) -> bytes:
    if isinstance(value, bytes | bytearray):
        raw = bytes(value)
    elif isinstance(value, str):
        try:
            raw = bytes.fromhex(value)
        except ValueError:
            raise ReplayError("seed must be hex") from None
    else:
        raise ReplayError("seed must be bytes or hex")
    if len(raw) != 32:
        raise ReplayError("seed must be 32 bytes")
    return raw


@dataclass(frozen=True)
class RoundRecord:
    """One round: how it was dealt and every accepted action, in order."""

    deck: tuple[int, ...]
    """Card ids (FAIR_SHUFFLE.md), top of the stock first."""
    seed: bytes
    dealer: int
    actions: tuple[Mapping[str, Any], ...]
    """Plain actions (``action_to_plain``), in the order the host accepted them."""
    withdrawals: tuple[int, ...] = ()
    """Seats that left the match after this round ended (between rounds)."""
    void: bool = False
    """A void round (private dealing: a player gone for good...): nothing of it counts,
    it uses a round number and its dealer (``deck``, ``seed`` and ``actions`` empty)."""

    @classmethod
    def from_plain(cls, data: object) -> RoundRecord:
        if not isinstance(data, Mapping):
            raise ReplayError("a round is a map")
        if data.get("void") is not None:
            if data.get("void") is not True:
                raise ReplayError("void must be true")
            withdrawals = data.get("withdrawals", [])
            if not isinstance(withdrawals, list | tuple) or len(withdrawals) > 4:
                raise ReplayError("withdrawals must be a list of seats")
            dealer = data.get("dealer")
            return cls(deck=(), seed=bytes(32), dealer=0 if dealer is None else _int(dealer, "dealer", 0, 3),
                       actions=(), void=True,
                       withdrawals=tuple(_int(s, "withdrawn seat", 0, 3) for s in withdrawals))
        deck = data.get("deck")
        if not isinstance(deck, list | tuple) or not 1 <= len(deck) <= 1000:
            raise ReplayError("deck must be a list of card ids")
        actions = data.get("actions")
        if not isinstance(actions, list | tuple) or len(actions) > MAX_ACTIONS_PER_ROUND:
            raise ReplayError("actions must be a list")
        if any(not isinstance(a, Mapping) for a in actions):
            raise ReplayError("every action is a map")
        withdrawals = data.get("withdrawals", [])
        if not isinstance(withdrawals, list | tuple):
            raise ReplayError("withdrawals must be a list of seats")
        return cls(
            deck=tuple(_int(c, "card id", 0, 999) for c in deck),
            seed=_seed(data.get("seed")),
            dealer=_int(data.get("dealer"), "dealer", 0, 3),
            actions=tuple(dict(a) for a in actions),
            withdrawals=tuple(_int(s, "withdrawn seat", 0, 3) for s in withdrawals),
        )

    def to_plain(self) -> dict[str, Any]:
        if self.void:
            return {"void": True, "dealer": self.dealer, "withdrawals": list(self.withdrawals)}
        return {
            "deck": list(self.deck),
            "seed": self.seed.hex(),
            "dealer": self.dealer,
            "actions": [dict(a) for a in self.actions],
            "withdrawals": list(self.withdrawals),
        }


@dataclass(frozen=True)
class ReplayRecord:
    """A whole match: variant, table options, seats, nicknames and rounds."""

    variant: str
    seats: int
    options: MatchOptions = field(default_factory=MatchOptions)
    nicknames: tuple[str, ...] = ()
    """By seat; may be empty (then "Seat N" is shown)."""
    rounds: tuple[RoundRecord, ...] = ()

    @classmethod
    def from_plain(cls, data: object) -> ReplayRecord:
        """Decode ``to_plain`` output (or a host record adapted to it); ReplayError if bad."""
        if not isinstance(data, Mapping):
            raise ReplayError("a record is a map")
        if data.get("format", REPLAY_FORMAT) != REPLAY_FORMAT:
            raise ReplayError(f"not a {REPLAY_FORMAT} record")
        if data.get("version", REPLAY_VERSION) != REPLAY_VERSION:
            raise ReplayError(f"unsupported replay version {data.get('version')!r}")
        variant = data.get("variant")
        try:
            get_variant(variant)  # type: ignore[arg-type]
        except (KeyError, ValueError, TypeError):
            raise ReplayError(f"unknown variant {variant!r}") from None
        opts = data.get("options", {})
        if not isinstance(opts, Mapping) or set(opts) - {"limit", "quick", "knock"}:
            raise ReplayError("options is a map of limit, quick, knock")
        limit = opts.get("limit")
        if limit is not None:
            _int(limit, "limit", 1, 100_000)
        quick, knock = opts.get("quick", False), opts.get("knock", False)
        if not isinstance(quick, bool) or not isinstance(knock, bool):
            raise ReplayError("quick and knock are booleans")
        seats = _int(data.get("seats"), "seats", 2, 4)
        nicks = data.get("nicknames", [])
        if (not isinstance(nicks, list | tuple) or len(nicks) > 4
                or any(not isinstance(n, str) or len(n) > MAX_NICKNAME for n in nicks)):
            raise ReplayError("nicknames must be a list of at most 4 short strings")
        rounds = data.get("rounds")
        if not isinstance(rounds, list | tuple) or len(rounds) > MAX_ROUNDS:
            raise ReplayError("rounds must be a list")
        total = sum(len(r.get("actions") or ()) if isinstance(r, Mapping)
                    and isinstance(r.get("actions"), list | tuple) else 0 for r in rounds)
        if total > MAX_TOTAL_ACTIONS:
            raise ReplayError(f"more than {MAX_TOTAL_ACTIONS} actions in all")
        return cls(
            variant=str(variant),
            seats=seats,
            options=MatchOptions(limit=limit, quick=quick, knock=knock),
            nicknames=tuple(nicks),
            rounds=tuple(RoundRecord.from_plain(r) for r in rounds),
        )

    def to_plain(self) -> dict[str, Any]:
        o = self.options
        return {
            "format": REPLAY_FORMAT,
            "version": REPLAY_VERSION,
            "variant": self.variant,
            "seats": self.seats,
            "options": {"limit": o.limit, "quick": o.quick, "knock": o.knock},
            "nicknames": list(self.nicknames),
            "rounds": [r.to_plain() for r in self.rounds],
        }


StepKind = Literal["start", "deal", "action", "withdraw"]


@dataclass(frozen=True)
class Step:
    """How a position was reached: ``kind``, in round ``round_no`` (0 before any deal)."""

    kind: StepKind
    round_no: int
    action: Action | None = None
    seat: int | None = None
    """The seat that acted (``action``) or withdrew (``withdraw``)."""
    events: tuple[Event, ...] = ()
    """The unredacted events this step produced (for the log area)."""


@dataclass(frozen=True)
class FullView:
    """Everything at one position: the record is complete, so every hand is shown."""

    position: int
    step: Step
    public: SeatView
    """The view of a spectator (table, discard, counts, totals)."""
    views: tuple[SeatView, ...]
    """Each seat's own view, by seat."""
    hands: tuple[tuple[Card, ...], ...]
    """Every seat's hand, by seat (empty outside a round or for a seat not in it)."""
    stock: tuple[Card, ...]
    """The stock, top first (shown only by a replay)."""


class Replay:
    """Every state of a recorded match, with a cursor."""

    def __init__(self, record: ReplayRecord) -> None:
        self.record = record
        variant = get_variant(record.variant)
        try:
            m = new_match(variant, record.seats, record.options)
        except ValueError as exc:
            raise ReplayError(f"bad table: {exc}") from None
        self._states: list[MatchState] = [m]
        self._steps: list[Step] = [Step("start", 0)]
        self._round_starts: list[int] = []
        for index, rnd in enumerate(record.rounds, start=1):
            if rnd.void:  # its number and dealer are used; nothing else of it counts
                from dataclasses import replace

                m = replace(m, round_no=m.round_no + 1, dealer=rnd.dealer)
                m = self._withdraw_all(m, rnd, index)
                continue
            try:
                deck = [card_from_id(c, variant.n_decks, variant.n_jokers) for c in rnd.deck]
                m, evs = start_round(m, deck, rnd.seed, rnd.dealer)
            except (RulesError, ValueError, TypeError, IndexError) as exc:
                raise ReplayError(f"round {index}: cannot deal: {exc}") from None
            self._round_starts.append(len(self._states))
            self._push(m, Step("deal", m.round_no, events=tuple(evs)))
            for n, plain in enumerate(rnd.actions, start=1):
                try:
                    action = action_from_plain(dict(plain), variant)
                    m, evs = apply(m, action)
                except (RulesError, ValueError, TypeError, KeyError, IndexError) as exc:
                    raise ReplayError(f"round {index}, action {n}: {exc}") from None
                self._push(
                    m, Step("action", m.round_no, action, getattr(action, "seat", None), tuple(evs))
                )
            m = self._withdraw_all(m, rnd, index)
        self._pos = 0

    def _withdraw_all(self, m: MatchState, rnd: RoundRecord, index: int) -> MatchState:
        for seat in rnd.withdrawals:
            try:
                m, evs = withdraw(m, seat)
            except (RulesError, IndexError) as exc:
                raise ReplayError(f"round {index}: withdrawal of seat {seat}: {exc}") from None
            self._push(m, Step("withdraw", m.round_no, None, seat, tuple(evs)))
        return m

    def _push(self, m: MatchState, step: Step) -> None:
        self._states.append(m)
        self._steps.append(step)

    # ---- positions

    def __len__(self) -> int:
        """Number of positions (steps + 1)."""
        return len(self._states)

    @property
    def last(self) -> int:
        return len(self._states) - 1

    @property
    def position(self) -> int:
        return self._pos

    @property
    def n_rounds(self) -> int:
        return len(self._round_starts)

    @property
    def final_state(self) -> MatchState:
        return self._states[-1]

    def _check(self, i: int) -> int:
        if type(i) is not int:
            raise TypeError("a position is an int")
        if i < 0:
            i += len(self._states)
        if not 0 <= i < len(self._states):
            raise IndexError(f"position {i} outside 0..{self.last}")
        return i

    def state_at(self, i: int) -> MatchState:
        """The core's match state at position ``i`` (negative counts from the end)."""
        return self._states[self._check(i)]

    def step_at(self, i: int) -> Step:
        """How position ``i`` was reached."""
        return self._steps[self._check(i)]

    def round_at(self, i: int) -> int:
        """The round shown at position ``i`` (0 before the first deal)."""
        i = self._check(i)
        return bisect.bisect_right(self._round_starts, i)

    def view_all(self, i: int) -> FullView:
        """Every seat's view and every hand at position ``i``."""
        i = self._check(i)
        m = self._states[i]
        rnd = m.round
        hands = tuple(rnd.hands[s] if rnd is not None else () for s in range(m.n_seats))
        return FullView(
            position=i,
            step=self._steps[i],
            public=view_for(m, None),
            views=tuple(view_for(m, s) for s in range(m.n_seats)),
            hands=hands,
            stock=tuple(rnd.stock) if rnd is not None else (),
        )

    # ---- cursor

    @property
    def state(self) -> MatchState:
        return self._states[self._pos]

    def seek(self, i: int) -> MatchState:
        self._pos = self._check(i)
        return self.state

    def forward(self, n: int = 1) -> MatchState:
        """Move ``n`` steps forward (stops at the end)."""
        self._pos = min(self.last, self._pos + n)
        return self.state

    def back(self, n: int = 1) -> MatchState:
        """Move ``n`` steps back (stops at the start)."""
        self._pos = max(0, self._pos - n)
        return self.state

    def at_end(self) -> bool:
        return self._pos == self.last

    def at_start(self) -> bool:
        return self._pos == 0

    def round_start(self, round_no: int) -> int:
        """The position right after round ``round_no`` (1-based) was dealt."""
        if not 1 <= round_no <= len(self._round_starts):
            raise IndexError(f"round {round_no} outside 1..{len(self._round_starts)}")
        return self._round_starts[round_no - 1]

    def round_end(self, round_no: int) -> int:
        """The last position of round ``round_no`` (before the next deal)."""
        self.round_start(round_no)  # validates round_no
        if round_no < len(self._round_starts):
            return self._round_starts[round_no] - 1
        return self.last

    def jump_to_round(self, round_no: int) -> MatchState:
        """Move to right after round ``round_no`` was dealt."""
        self._pos = self.round_start(round_no)
        return self.state

    def next_round(self) -> MatchState:
        """Jump to the next round's deal (or the end)."""
        later = [p for p in self._round_starts if p > self._pos]
        self._pos = later[0] if later else self.last
        return self.state

    def previous_round(self) -> MatchState:
        """Jump to this round's deal, or the previous one's if already there."""
        earlier = [p for p in self._round_starts if p < self._pos]
        self._pos = earlier[-1] if earlier else 0
        return self.state

    # ---- text

    def nickname(self, seat: int) -> str:
        if 0 <= seat < len(self.record.nicknames) and self.record.nicknames[seat]:
            return self.record.nicknames[seat]
        return _("Seat {n}").format(n=seat + 1)

    def status_line(self, i: int | None = None) -> str:
        """A translated one-line position indicator for the replay screen."""
        i = self._pos if i is None else self._check(i)
        return _("Replay — round {round} of {rounds} — step {step} of {steps}").format(
            round=self.round_at(i), rounds=self.n_rounds, step=i, steps=self.last
        )


def replay_help() -> list[str]:
    """Translated key help for the replay screen (the keys suggested in docs/players.md)."""
    return [
        _("→ / ← (l / h, Space): next / previous action"),
        _("PgDn / PgUp: next / previous round"),
        _("Home / End: start / end of the match"),
        _("1-9: round n · g: go to round…"),
        _("v: verify the record's fair shuffle"),
        _("? / F1: this help · q / Esc: leave the replay"),
    ]


def replay_from_plain(data: object) -> Replay:
    """Shortcut: ``Replay(ReplayRecord.from_plain(data))``."""
    return Replay(ReplayRecord.from_plain(data))
