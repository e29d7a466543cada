"""Build a mid-round match state from a short description, to test rules directly.

`scenario` makes a `MatchState` whose round is exactly as described: the hands, the
stock, the discard pile, the melds on the table (with their owners), who has opened,
whose turn it is and in which phase, the running totals. Cards are written in their
short text form (``"10h Jh Qh *"``); a face written several times anywhere in the
description becomes distinct physical cards (copies 0, 1, ...), as with two decks, so
a description never puts one physical card in two places.

>>> from rami_lan.core.scenario import scenario
>>> m = scenario("rami", hands=["As 5c 9d", "Kh Kd"], melds=[("2s 3s 4s 5s 6s 7s 8s 9s 10s Js Qs", 1)],
...              opened=[True, True], turn=0, phase="play")
>>> m.round.melds[0].lo, m.round.melds[0].hi
(2, 12)

The round is not dealt from a shuffled deck: the stock is the given cards (top
first) or, with ``stock=None``, every card of the game not placed elsewhere in
canonical order; ``stock=n`` keeps only the first ``n`` of those. The state is a
plain `RoundState` inside a plain `MatchState`: `apply`, `legal_actions`, `view_for`
and the codec work on it as on any dealt round.
"""

from __future__ import annotations

from collections.abc import Sequence

from rami_lan.core import round as R
from rami_lan.core.cards import Card, full_deck, parse_card
from rami_lan.core.match import MatchOptions, MatchState, _evolve, new_match
from rami_lan.core.melds import Meld, check_meld
from rami_lan.core.variants import Variant, get_variant

MeldText = str | tuple[str, int] | tuple[str, int, str]
"""A table meld: ``"7c 8c 9c"`` (owner 0), ``("7c 8c 9c", owner)`` or
``("5h * *", owner, "run")`` (the kind, when the cards read both ways)."""


class _Cards:
    """Hands out physical cards for faces, a new copy each time a face repeats."""

    def __init__(self, v: Variant) -> None:
        self.v = v
        self.used: set[Card] = set()
        self.deck = full_deck(v.n_decks, v.n_jokers)
        self.free = set(self.deck)

    def take(self, text: str) -> tuple[Card, ...]:
        out = []
        for tok in text.replace(",", " ").split():
            face = parse_card(tok)
            card = next((c for c in self.deck if c.face == face.face and c in self.free), None)
            if card is None:
                raise ValueError(
                    f"{self.v.id}: no card {face} left for {text!r} (the game has "
                    f"{self.v.n_decks if not face.is_joker else self.v.n_jokers} of it)"
                )
            self.free.discard(card)
            out.append(card)
        return tuple(out)

    def rest(self) -> tuple[Card, ...]:
        return tuple(c for c in self.deck if c in self.free)


def scenario(
    variant: str | Variant,
    hands: Sequence[str],
    *,
    melds: Sequence[MeldText] = (),
    discard: str = "",
    stock: str | int | None = None,
    turn: int = 0,
    phase: str = "play",
    opened: Sequence[bool] | None = None,
    laid_before: Sequence[bool] | None = None,
    laid_points: Sequence[int] | None = None,
    totals: Sequence[int] | None = None,
    eliminated: Sequence[bool] | None = None,
    players: Sequence[int] | None = None,
    must_use: str = "",
    taken: str = "",
    dealer: int | None = None,
    round_no: int = 1,
    turn_no: int = 1,
    options: MatchOptions | None = None,
    seed: bytes = bytes(32),
) -> MatchState:
    """A match whose current round is the one described (see the module docstring).

    ``hands``: one text per seat (the number of seats is ``len(hands)``); a seat not in
    ``players`` (default: every seat not ``eliminated``) sits the round out with an
    empty hand. ``discard``: bottom first, the top card last. ``melds``: table melds in
    order (index 0 first). ``opened`` defaults to "owns a meld on the table".
    ``laid_before``: the seat melded or laid off in an earlier turn of this round
    (default: same as ``opened``; it decides rami sec). ``must_use``/``taken``: cards
    of the current seat's hand that the turn obliges to use / that were just taken
    from the discard pile (written as in ``hands``: the first matching card of that
    hand is used). ``phase`` is ``"draw"`` or ``"play"``.

    Raises ValueError when the description is impossible (a card the game does not
    have, an invalid meld, a turn seat that is not playing, ...).
    """
    v = get_variant(variant)
    n = len(hands)
    if not 2 <= n <= 4:
        raise ValueError("a table has 2 to 4 seats")
    if phase not in ("draw", "play"):
        raise ValueError(f"phase is 'draw' or 'play', not {phase!r}")
    elim = tuple(eliminated) if eliminated is not None else (False,) * n
    seats = tuple(sorted(players)) if players is not None else tuple(s for s in range(n) if not elim[s])
    if turn not in seats:
        raise ValueError(f"seat {turn} is not playing this round (players {seats})")
    pool = _Cards(v)
    hand_cards = [pool.take(h) for h in hands]
    for s in range(n):
        if s not in seats and hand_cards[s]:
            raise ValueError(f"seat {s} does not play this round but has cards")
    table: list[Meld] = []
    for spec in melds:
        text, owner, kind = (spec, 0, None) if isinstance(spec, str) else (tuple(spec) + (None,))[:3]
        cards = pool.take(text)
        chk = check_meld(v, cards, kind, owner=owner)  # type: ignore[arg-type]
        if not chk.valid or chk.meld is None:
            raise ValueError(f"{text!r} is not a valid {v.id} meld: {chk.reason}")
        table.append(chk.meld)
    pile = pool.take(discard)
    if stock is None or isinstance(stock, int):
        rest = pool.rest()
        stock_cards = rest if stock is None else rest[:stock]
        if isinstance(stock, int) and len(stock_cards) < stock:
            raise ValueError(f"only {len(rest)} cards are left for the stock, not {stock}")
    else:
        stock_cards = pool.take(stock)
    owners = {m.owner for m in table}
    op = tuple(opened) if opened is not None else tuple(s in owners for s in range(n))
    before = tuple(laid_before) if laid_before is not None else op
    lp = tuple(laid_points) if laid_points is not None else (0,) * n

    def in_hand(text: str) -> tuple[Card, ...]:
        hand = list(hand_cards[turn])
        out = []
        for tok in text.split():
            face = parse_card(tok).face
            c = next((c for c in hand if c.face == face), None)
            if c is None:
                raise ValueError(f"{tok} is not in seat {turn}'s hand")
            hand.remove(c)
            out.append(c)
        return tuple(out)

    taken_cards = in_hand(taken)
    if dealer is None:
        i = seats.index(turn)
        dealer = seats[i - 1]
    z = (0,) * n
    rnd = R.RoundState(
        variant=v,
        players=seats,
        n_seats=n,
        round_no=round_no,
        dealer=dealer,
        seed=seed,
        knock_enabled=bool(options and options.knock),
        hands=tuple(hand_cards),
        stock=tuple(stock_cards),
        stock_gen=0,
        stock_base=len(stock_cards),
        discard=pile,
        melds=tuple(table),
        turn=turn,
        phase=phase,
        turn_no=turn_no,
        opened=op,
        laid_before=before,
        laid_points=lp,
        timeouts=z,
        away=(False,) * n,
        taken=taken_cards[0] if taken_cards else None,
        must_use=in_hand(must_use),
    )
    m = new_match(v, n, options)
    return _evolve(
        m,
        totals=tuple(totals) if totals is not None else z,
        eliminated=elim,
        round=rnd,
        round_no=round_no,
        dealer=dealer,
    )
