"""A seat's own replay of the public game, for private dealing: what the rules give away now.

Sans-I/O. A `PublicReplay` is fed, in the order they arrive, the public events of one
masked round (as the host sent them to this seat, before any key goes out) and answers,
for each event that would make the seat give something away, whether the rules give
that card away now (`admit`, `check_layout`, `check_show`). It derives everything from
the events it has admitted and what the seat knows of the table (the round's players
from its verifier, the masked round's participants): never from a host claim.

What makes a seat give a key, a reveal or its audit away, and what is checked first:

* a deal position (``mk_deal``): the layout is the variant's deal one card at a time
  round the table, of the round's players (no seat that is not dealt, no extra seat);
  the public deal (``RoundStarted``, ``CardsDealt``) must then be that layout;
* a draw (``StockDrawn``): by a player of the round, in turn, in its draw phase (or the
  knocker's two cards, or a timed-out seat's automatic draw), at the next position of
  the current stock generation, which is not exhausted;
* a refill (``StockRefilled``, a new deck to shuffle): the stock is empty, the pile is
  the discard pile minus its top;
* a show of every hand (``mk_show``): the ending action's public events, played in turn
  with cards proven to be in the actor's hand (each one revealed with its holder's keys,
  or taken from the pile), end the round by the rules (the actor's hand is empty; the
  stock is out in a variant that ends the round then; the turn cap; a blocked stock);
* the audit (``RoundEnded``): the round ends by the same rules; (``RoundVoided``): it
  names a remote participant of this masked round (only a gone participant voids one).
  A void naming nobody (the host restarted and could not go on with the round) is taken,
  but the seat publishes no audit for it: that round is gone at the host, the audit
  would only give the host our hand.

A refused event is not applied: the replay stays as it was, and the seat gives nothing.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from rami_lan.core import events as E
from rami_lan.core.cards import Card
from rami_lan.core.deckrng import turn_over
from rami_lan.core.variants import MAX_TURNS_PER_ROUND, Variant

__all__ = ["PublicReplay"]


@dataclass
class PublicReplay:
    """One masked round's public game as this seat saw it (see the module docstring)."""

    variant: Variant
    seat: int
    participants: frozenset[int] = frozenset()
    host: int | None = None
    expected_players: tuple[int, ...] | None = None
    """The round's players as the seat's verifier derives them (None: not known)."""
    layout: list[int | None] | None = None
    started: bool = False
    round_no: int | None = None
    """The match's round number of this masked round's deal (``RoundStarted``)."""
    over: bool = False
    players: tuple[int, ...] = ()
    first: int | None = None
    dealt: set[int] = field(default_factory=set)
    turn: int | None = None
    phase: str | None = None
    """"draw" or "play" for the seat in turn; None between a discard and the next turn."""
    turn_no: int = 0
    knocker: int | None = None
    knock_draws: int = 0
    timed_out: int | None = None
    gen: int = 0
    next_pos: int = 0
    gen_size: int = 0
    gen_stock: list[Card] | None = None
    pile: list[Card] = field(default_factory=list)
    counts: dict[int, int] = field(default_factory=dict)
    """Seat -> how many cards its hand holds (public: dealt, drawn, taken, played)."""
    known: dict[int, list[Card]] = field(default_factory=dict)
    """Seat -> cards proven to be in its hand (revealed by it, taken from the pile)."""
    events: list[E.Event] = field(default_factory=list)
    """Every admitted event, as the public sees it (``for_seat(None)``)."""
    shown: tuple[E.Event, ...] | None = None
    """The ending action's events announced by an accepted ``mk_show``."""

    # ------------------------------------------------------------------ queries

    def stock_left(self) -> int:
        return max(0, self.gen_size - self.next_pos)

    # ------------------------------------------------------------------ the deal

    def check_layout(self, seats: Sequence[int | None]) -> str:
        """Why ``mk_deal``'s layout is not the deal of this round (empty: it is)."""
        players = sorted({s for s in seats if s is not None})
        n = len(players)
        if not 2 <= n <= 4 or any(not isinstance(s, int) or isinstance(s, bool) for s in players):
            return f"mk_deal names {n} players (a round has 2 to 4)"
        hs = self.variant.cards_per_player(n)
        first = list(seats[:n])
        if (len(seats) != hs * n + 1 or seats[-1] is not None or sorted(first) != players  # type: ignore[type-var]
                or any(seats[k] != first[k % n] for k in range(hs * n))
                or first != _rotation(players, first[0])):  # type: ignore[arg-type]
            return "mk_deal is not a deal one card at a time round the table"
        if self.expected_players is not None and tuple(players) != tuple(sorted(self.expected_players)):
            return (f"mk_deal deals to seats {players}; the round's players are "
                    f"{sorted(self.expected_players)}")
        return ""

    # ------------------------------------------------------------------ events

    def admit(self, ev: E.Event) -> str:
        """Apply one public event if the rules allow it now; else why not (nothing changes)."""
        if self.over:
            return f"{type(ev).__name__} after the round's end"
        check = getattr(self, "_" + type(ev).__name__, None)
        why = check(ev) if check is not None else ""
        if not why:
            self.events.append(ev.for_seat(None))
        return why

    def admit_all(self, evs: Iterable[E.Event]) -> tuple[int, str]:
        """Admit events in order until one is refused: (how many admitted, why refused)."""
        k = 0
        for ev in evs:
            why = self.admit(ev)
            if why:
                return k, why
            k += 1
        return k, ""

    def card_public(self, holder: int | None, card: Card) -> None:
        """A card of ``holder``'s hand was revealed with its keys (a `CardPublic`)."""
        if holder is not None:
            self.known.setdefault(holder, []).append(card)

    def check_show(self, evs: Sequence[E.Event], reason: object, winner: object) -> str:
        """Why ``mk_show`` (the ending action's events, and the end's reason) does not end
        the round by the rules now (empty: it does; the events are remembered)."""
        if not self.started or self.over:
            return "mk_show while no round is being played"
        if not evs:
            return "mk_show without the action that ends the round"
        trial = copy.deepcopy(self)
        actor = getattr(evs[0], "seat", None)
        for ev in evs:
            if isinstance(ev, E.RoundEnded | E.RoundVoided | E.RoundStarted | E.CardsDealt):
                return f"mk_show announces {type(ev).__name__}"
            for c in E.cards_played(ev):
                hand = trial.known.get(getattr(ev, "seat", -1), [])
                if c not in hand:
                    return (f"mk_show: {c} is not proven to be in seat {getattr(ev, 'seat', '?')}'s "
                            "hand (no reveal by its holder)")
            why = trial.admit(ev)
            if why:
                return f"mk_show: {why}"
        why = trial._ends(reason, winner, actor)
        if why:
            return f"mk_show: {why}"
        self.shown = tuple(e.for_seat(None) for e in evs)
        return ""

    # ---- per event (each returns why it is refused, empty if applied)

    def _RoundStarted(self, ev: E.RoundStarted) -> str:
        if self.started:
            return "a second deal in the same masked round"
        players = tuple(ev.players)
        if self.layout is not None:
            lay = sorted({s for s in self.layout if s is not None})
            n = len(lay)
            if sorted(players) != lay or (n and ev.first_player != self.layout[0]):
                return (f"the deal's players {list(players)} (first {ev.first_player}) are not "
                        f"those of mk_deal {lay} (first {self.layout[0]})")
        n = len(players)
        hs = self.variant.cards_per_player(n) if 2 <= n <= 4 else -1
        if ev.hand_size != hs or ev.first_player not in players:
            return "the deal is not the variant's"
        self.started, self.players, self.first = True, players, ev.first_player
        self.round_no = ev.round_no
        self.counts = {s: 0 for s in players}
        self.known = {s: [] for s in players}
        self.gen, self.next_pos, self.gen_size, self.gen_stock = 0, n * hs + 1, self.variant.deck_size, None
        self.pile = [ev.first_discard]
        return ""

    def _CardsDealt(self, ev: E.CardsDealt) -> str:
        if not self.started or ev.seat not in self.players or ev.seat in self.dealt:
            return f"cards dealt to seat {ev.seat}, which is not dealt in this round (or twice)"
        n, hs = len(self.players), self.variant.cards_per_player(len(self.players))
        i = list(_rotation(sorted(self.players), self.first)).index(ev.seat)  # type: ignore[arg-type]
        want = tuple(k * n + i for k in range(hs))
        if tuple(ev.positions) != want:
            return f"seat {ev.seat} was dealt positions {list(ev.positions)}, the deal gives {list(want)}"
        if self.layout is not None and any(self.layout[p] != ev.seat for p in want):
            return f"the deal gave seat {ev.seat} positions mk_deal gave another seat"
        self.dealt.add(ev.seat)
        self.counts[ev.seat] = len(want)
        return ""

    def _TurnStarted(self, ev: E.TurnStarted) -> str:
        if not self.started or len(self.dealt) != len(self.players):
            return "a turn before the deal"
        if self.knocker is not None:
            want = self.knocker
        elif self.turn is None:
            want = self.first  # type: ignore[assignment]
        else:
            want = next((s for s in self.players if s > self.turn), self.players[0])
        if ev.seat != want:
            return f"seat {ev.seat} was given the turn; the rules give seat {want}"
        self.phase = "play" if self.knocker is not None else "draw"
        self.turn, self.knocker, self.knock_draws, self.timed_out = ev.seat, None, 0, None
        self.turn_no = ev.turn_no
        return ""

    def _TimedOut(self, ev: E.TimedOut) -> str:
        if ev.seat != self.turn or self.phase is None:
            return f"seat {ev.seat} timed out during seat {self.turn}'s turn"
        self.timed_out = ev.seat
        return ""

    def _StockDrawn(self, ev: E.StockDrawn) -> str:
        if ev.seat not in self.players:
            return f"a draw by seat {ev.seat}, which does not play this round"
        if ev.reason == "knock":
            if ev.seat != self.knocker or self.knock_draws <= 0:
                return f"seat {ev.seat} drew knock cards without knocking"
        elif ev.reason in ("draw", "timeout"):
            if ev.seat != self.turn or self.phase != "draw":
                return f"a draw by seat {ev.seat}, whose turn to draw it is not (seat {self.turn}'s turn)"
            if ev.reason == "timeout" and self.timed_out != ev.seat:
                return f"an automatic draw by seat {ev.seat}, which did not time out"
        else:
            return f"a draw for an unknown reason {ev.reason!r}"
        if ev.reshuffle != self.gen or ev.position != self.next_pos or self.next_pos >= self.gen_size:
            return (f"a draw from position {ev.position} of stock {ev.reshuffle}; the next card is "
                    f"position {self.next_pos} of stock {self.gen} ({self.stock_left()} left)")
        self.next_pos += 1
        self.counts[ev.seat] = self.counts.get(ev.seat, 0) + 1
        if self.gen_stock is not None:
            self.known.setdefault(ev.seat, []).append(self.gen_stock[ev.position])
        if ev.reason == "knock":
            self.knock_draws -= 1
        else:
            self.phase = "play"
        return ""

    def _DiscardTaken(self, ev: E.DiscardTaken) -> str:
        if ev.seat != self.turn or self.phase != "draw":
            return f"seat {ev.seat} took from the pile out of turn"
        d = ev.depth
        if d < 1 or d > len(self.pile) or tuple(self.pile[-d:]) != tuple(ev.cards):
            return f"seat {ev.seat} took cards that are not the pile's top"
        del self.pile[-d:]
        self.counts[ev.seat] += len(ev.cards)
        self.known.setdefault(ev.seat, []).extend(ev.cards)
        self.phase = "play"
        return ""

    def _Knocked(self, ev: E.Knocked) -> str:
        if ev.seat == self.turn or ev.seat not in self.players or not self.pile or self.pile[-1] != ev.card:
            return f"seat {ev.seat} knocked out of turn or for a card that is not the pile's top"
        self.pile.pop()
        self.counts[ev.seat] += 1
        self.known.setdefault(ev.seat, []).append(ev.card)
        self.knocker, self.knock_draws = ev.seat, 2
        return ""

    def _play(self, seat: int, cards: Sequence[Card], gained: Sequence[Card] = ()) -> str:
        if seat != self.turn or self.phase != "play":
            return f"seat {seat} played out of turn"
        if len(cards) > self.counts.get(seat, 0):
            return f"seat {seat} played more cards than its hand holds"
        hand = self.known.setdefault(seat, [])
        for c in cards:
            if c in hand:
                hand.remove(c)
        hand.extend(gained)
        self.counts[seat] += len(gained) - len(cards)
        return ""

    def _Melded(self, ev: E.Melded) -> str:
        return self._play(ev.seat, [c for md in ev.melds for c in md.cards])

    def _LaidOff(self, ev: E.LaidOff) -> str:
        return self._play(ev.seat, [ev.card])

    def _JokerRecovered(self, ev: E.JokerRecovered) -> str:
        return self._play(ev.seat, list(ev.cards), [ev.joker])

    def _Discarded(self, ev: E.Discarded) -> str:
        why = self._play(ev.seat, [ev.card])
        if not why:
            self.pile.append(ev.card)
            self.phase = None
        return why

    def _StockRefilled(self, ev: E.StockRefilled) -> str:
        if not self.started or self.variant.stock_rule == "end_round":
            return "a refill the variant does not make"
        if ev.reshuffle != self.gen + 1 or self.next_pos < self.gen_size:
            return f"refill {ev.reshuffle} of stock {self.gen} with {self.stock_left()} card(s) still in it"
        pile, top = self.pile[:-1], (self.pile[-1] if self.pile else None)
        if tuple(ev.pile) != tuple(pile) or ev.kept != top:
            return "the refill is not the discard pile minus its top"
        shuffled = self.variant.stock_rule != "turn_over"
        if ev.shuffled != shuffled:
            return "the refill is not the variant's (shuffled or turned over)"
        self.gen, self.next_pos, self.gen_size = ev.reshuffle, 0, len(pile)
        self.gen_stock = None if shuffled else list(turn_over(pile))
        self.pile = [top] if top is not None else []
        return ""

    def _RoundEnded(self, ev: E.RoundEnded) -> str:
        if self.shown is not None:
            k = len(self.shown)
            if tuple(self.events[-k:]) != self.shown:
                return (f"the round ended after other events than those mk_show announced: "
                        f"{self.events[-k:]} != {self.shown}")
        why = self._ends(ev.reason, ev.winner, ev.winner)
        if why:
            return why
        self.over = True
        return ""

    def _RoundVoided(self, ev: E.RoundVoided) -> str:
        if ev.seat is not None and (ev.seat not in self.participants or ev.seat == self.host):
            return (f"a void round naming seat {ev.seat}: only a gone remote participant of this "
                    "masked round voids it")
        self.over = True
        return ""

    def _PlayersEliminated(self, ev: E.PlayersEliminated) -> str:
        return ""

    def _ends(self, reason: object, winner: object, actor: object) -> str:
        """Why the round does not end now by the rules for ``reason`` (empty: it does)."""
        if not self.started:
            return "a round's end before its deal"
        if reason == "out":
            if not isinstance(winner, int) or winner not in self.players or self.counts.get(winner) != 0:
                return (f"seat {winner} is said to go out; its hand still holds "
                        f"{self.counts.get(winner)} card(s)")
            return ""
        if reason == "stock":
            if self.variant.stock_rule != "end_round" or self.stock_left() or self.phase is not None:
                return f"the round is said to end with the stock out; it holds {self.stock_left()} card(s)"
            return ""
        if reason == "cap":
            if self.turn_no < MAX_TURNS_PER_ROUND:
                return f"the round is said to reach the turn cap at turn {self.turn_no}"
            return ""
        if reason == "blocked":
            if self.stock_left() or len(self.pile) >= 2 or self.phase is not None:
                return "the round is said to be blocked; the stock can still be drawn or refilled"
            return ""
        return f"the round is said to end for an unknown reason {reason!r}"


def _rotation(players: Sequence[int], start: int) -> list[int]:
    players = list(players)
    i = players.index(start)
    return players[i:] + players[:i]


