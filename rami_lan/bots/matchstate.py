"""What a penalty point is worth at a given match score (heads-up elimination matches).

In an elimination match (``rami``, ``classique``, ``40``) a seat whose total exceeds the
limit is out; heads-up, the other seat wins the match. A round's penalty therefore does
not weigh the same at every score: caught with 60 points when 20 points of room are left
loses the match whatever the hand (shedding a 10 does not help, going out sooner does),
while with a hundred points of room the cost grows with every point.

`win_chance(room_me, room_opp)` is a simple model of the chance of winning the match:
each round either seat loses it with even chance, and the loser takes a penalty drawn
from `PENALTY` (measured in ``40`` between the experts: most rounds are lost with a
laid hand, about 15 points; about one in eight with the whole hand hidden, about 90);
a seat is out when its penalty exceeds its room. It is solved once by dynamic
programming on a grid of `STEP` points. `penalty_weight` is the local cost of one more
penalty point at the current score relative to the start of a match (1.0): near 0 when
the hand, caught now, loses the match anyway or when there is so much room that a point
barely matters, above 1 where a few points decide elimination.
"""

from __future__ import annotations

from functools import lru_cache

STEP = 2  # grid of the model, in points

# loser's penalty distribution (points, probability): laid hands 4..40, hidden 70..110
_OPEN = [(x, 1.0) for x in range(4, 42, 2)]
_HIDDEN = [(x, 1.0) for x in range(70, 112, 4)]


def _penalty() -> list[tuple[int, float]]:
    out: list[tuple[int, float]] = []
    wo = sum(w for _, w in _OPEN)
    wh = sum(w for _, w in _HIDDEN)
    for x, w in _OPEN:
        out.append((x, 0.88 * w / wo))
    for x, w in _HIDDEN:
        out.append((x, 0.12 * w / wh))
    return out


PENALTY = _penalty()


@lru_cache(maxsize=8)
def _table(limit: int) -> tuple[tuple[float, ...], ...]:
    """V[a][b]: chance to win with room a*STEP for this seat and b*STEP for the other."""
    n = limit // STEP + 1
    steps = [(x // STEP if x % STEP == 0 else x // STEP + 1, p) for x, p in PENALTY]
    v = [[0.0] * n for _ in range(n)]
    for s in range(2 * n - 1):  # increasing total room: each value needs smaller ones only
        for a in range(max(0, s - n + 1), min(n, s + 1)):
            b = s - a
            me = 0.0
            opp = 0.0
            for k, p in steps:
                me += p * (v[a - k][b] if a - k >= 0 else 0.0)
                opp += p * (v[a][b - k] if b - k >= 0 else 1.0)
            v[a][b] = 0.5 * me + 0.5 * opp
    return tuple(tuple(row) for row in v)


def win_chance(limit: int, room_me: int, room_opp: int) -> float:
    """Chance to win the heads-up match (model above), rooms in points (< 0: out)."""
    if room_me < 0:
        return 0.0
    if room_opp < 0:
        return 1.0
    t = _table(limit)
    n = len(t)
    a = min(n - 1, room_me // STEP)
    b = min(n - 1, room_opp // STEP)
    return t[a][b]


def penalty_weight(limit: int, room_me: int, room_opp: int, hand: int, span: int = 10) -> float:
    """Cost of one penalty point for a seat holding ``hand`` points, relative to the
    same hand at the start of the match: the slope of `win_chance` around a penalty of
    ``hand`` (over ``span`` points each side)."""

    def slope(rm: int, ro: int) -> float:
        hi = win_chance(limit, rm - max(0, hand - span), ro)
        lo = win_chance(limit, rm - hand - span, ro)
        return (hi - lo) / (hand + span - max(0, hand - span))

    ref = slope(limit, limit)
    if ref <= 0:
        return 1.0
    return slope(room_me, room_opp) / ref
