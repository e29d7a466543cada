"""Solo races to a rami sec: how soon a hidden hand goes out, over sampled draws.

While every seat keeps its melds in hand (both sides aiming at a rami sec, as in
``classique``), a round is a race: the first hand that can be laid whole at once wins,
and the loser pays its whole hand (plus the bonus). What one seat does barely changes
the other's race (nobody lays, so there is nothing to lay off on; a discard is taken
only when it helps), so a seat's decision is judged by **its own** race alone:

- `solo_turn` plays one hand on against a fixed sequence of draws with a fast discard
  rule (`race_pick`: the greedy melds' loose card with the fewest neighbours among the
  loose cards, then the most points) and returns the turn it goes out on;
- `race_values` scores candidate hands (one per candidate discard, or per draw) over
  the **same** sampled draw sequences (common random numbers): the mean over samples
  of the chance that the opponents are still in the round when this hand goes out
  (`survival[t]`: given by the caller from its opponent model).

Pure functions of their arguments; the caller passes the draws (sampled from its own
seeded random source), so a seeded match replays exactly.
"""

from __future__ import annotations

from collections.abc import Sequence

from rami_lan.bots.quick import quick_partition
from rami_lan.core.cards import Card
from rami_lan.core.melds import hand_points
from rami_lan.core.variants import Variant


def goes_out(v: Variant, cards: Sequence[Card]) -> tuple[bool, list[Card]]:
    """(the greedy melds place every card bar one discard, the cards they leave)."""
    q = quick_partition(v, cards)
    left = [c for c in cards if c not in q.melded]
    if v.must_discard_to_go_out:
        ok = len(left) == 1 or (not left and any(len(m) >= 4 for m in q.melds))
    else:
        ok = len(left) <= 1
    return ok, left


def race_pick(v: Variant, cards: Sequence[Card], left: Sequence[Card]) -> Card:
    """The play-out's discard: of the loose cards ``left`` (all cards if none), the one
    with the fewest neighbours among them (same rank, or same suit within two ranks),
    then the most hand points; a joker never while a natural can go."""
    pool = [c for c in left if c.rank] or [c for c in cards if c.rank] or list(cards)
    best = pool[0]
    best_s = None
    for c in pool:
        conn = 0
        for d in left:
            if d is c or not d.rank:
                continue
            if d.rank == c.rank:
                conn += 2 if d.suit != c.suit else 0
            elif d.suit == c.suit and abs(d.rank - c.rank) <= 2:
                conn += 3 - abs(d.rank - c.rank)
        s = (-conn, hand_points(v, c))
        if best_s is None or s > best_s:
            best, best_s = c, s
    return best


def solo_turn(v: Variant, hand: Sequence[Card], draws: Sequence[Card]) -> int:
    """The draw (0-based) on which ``hand`` goes out at once, drawing ``draws`` in turn
    and discarding with `race_pick`; ``len(draws)`` if it does not."""
    h = list(hand)
    for t, card in enumerate(draws):
        h.append(card)
        out, left = goes_out(v, h)
        if out:
            return t
        h.remove(race_pick(v, h, left))
    return len(draws)


def race_values(
    v: Variant,
    hands: Sequence[Sequence[Card]],
    samples: Sequence[Sequence[Card]],
    survival: Sequence[float],
    first: Sequence[Card | None] | None = None,
) -> list[list[float]]:
    """Per candidate hand, per sample: ``survival[t]`` for the draw ``t`` it goes out on
    (0 if it does not within the sample). With ``first``, candidate ``k`` draws
    ``first[k]`` instead of the sample's first card when it is not None (the top of the
    pile taken; its later draws are the sample's, as for the other candidates)."""
    horizon = len(survival)
    out: list[list[float]] = []
    for k, hand in enumerate(hands):
        row: list[float] = []
        f = first[k] if first is not None else None
        for s in samples:
            draws = list(s[:horizon])
            if f is not None:
                draws[0] = f
            t = solo_turn(v, hand, draws)
            row.append(survival[t] if t < horizon else 0.0)
        out.append(row)
    return out


__all__ = ["goes_out", "race_pick", "race_values", "solo_turn"]
