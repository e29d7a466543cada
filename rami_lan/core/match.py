"""A match: rounds one after another, totals, elimination or targets, the winner.

`new_match` makes an empty match; `start_round` deals the next round from a deck
order; `apply` plays an action and, when the round ends, scores it and decides what
happens next (eliminations, tie-break rounds, the end of the match).

Match rules by variant (`Variant.match_rule`):

- ``elimination`` (rami, classique, 40): penalties add up; a player whose total
  *exceeds* the limit is eliminated; the last player left wins. Limit 1 plays a single
  round. If every remaining player goes over at once, the lowest total wins [chosen].
- ``first_to`` (multi): the first total to reach the limit (100) wins.
- ``target`` (500): the first to reach the target wins; several at once: the highest
  total; still tied: tie-break rounds between the tied players. A quick match is 3
  rounds, highest total wins, ties broken the same way [chosen].
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from rami_lan.core import actions as A
from rami_lan.core import events as E
from rami_lan.core import round as R
from rami_lan.core.cards import Card
from rami_lan.core.deckrng import first_dealer_index
from rami_lan.core.errors import IllegalAction, SettingsError
from rami_lan.core.phases import MatchEnd, Phase
from rami_lan.core.reasons import Reason
from rami_lan.core.variants import Variant, get_variant


@dataclass(frozen=True)
class MatchOptions:
    """Table options that change the rules: the limit/target, quick 500, frapper."""

    limit: int | None = None
    quick: bool = False
    knock: bool = False

    def resolved(self, v: Variant) -> MatchOptions:
        limit = v.default_limit if self.limit is None else self.limit
        if v.match_rule == "elimination" and limit not in v.point_limits:
            raise SettingsError("limit_choice", variant=v.id,
                                limits=", ".join(str(x) for x in v.point_limits), limit=limit)
        if v.match_rule == "target" and not 50 <= limit <= 100_000:
            raise SettingsError("target_range", variant=v.id, limit=limit)
        if v.match_rule == "first_to" and limit != v.default_limit:
            raise SettingsError("limit_fixed", variant=v.id, limit=v.default_limit)
        if self.quick and not v.quick_rounds:
            raise SettingsError("no_quick", variant=v.id)
        if self.knock and not v.knock_supported:
            raise SettingsError("no_knock", variant=v.id)
        return replace(self, limit=limit)


@dataclass(frozen=True)
class RoundSummary:
    round_no: int
    winner: int | None
    rami_sec: bool
    reason: str
    scores: tuple[tuple[int, int], ...]


def _evolve(m: MatchState, **changes: object) -> MatchState:
    """A copy of ``m`` with ``changes`` (fast `dataclasses.replace`; no validation in
    ``__init__`` to skip)."""
    new = object.__new__(MatchState)
    new.__dict__.update(m.__dict__)
    new.__dict__.update(changes)
    return new


@dataclass(frozen=True)
class MatchState:
    variant: Variant
    options: MatchOptions
    n_seats: int
    totals: tuple[int, ...]
    eliminated: tuple[bool, ...]
    round_no: int = 0
    dealer: int | None = None
    round: R.RoundState | None = None
    history: tuple[RoundSummary, ...] = ()
    tiebreak: tuple[int, ...] = ()
    over: bool = False
    winner: int | None = None
    end_reason: str = ""

    @property
    def phase(self) -> Phase:
        """``waiting`` (no round yet), ``draw``/``play``, ``between`` rounds, ``over``."""
        if self.over:
            return Phase.OVER
        if self.round is None:
            return Phase.WAITING
        if self.round.phase == Phase.OVER:
            return Phase.BETWEEN
        return self.round.phase

    def next_players(self) -> tuple[int, ...]:
        """Seats that play the next round."""
        if self.tiebreak:
            return self.tiebreak
        return tuple(s for s in range(self.n_seats) if not self.eliminated[s])


def new_match(variant: str | Variant, n_seats: int, options: MatchOptions | None = None) -> MatchState:
    v = get_variant(variant)
    if not 2 <= n_seats <= 4:
        raise SettingsError("seats_range")
    opts = (options or MatchOptions()).resolved(v)
    return MatchState(v, opts, n_seats, (0,) * n_seats, (False,) * n_seats)


def start_round(
    m: MatchState, deck: Sequence[Card], seed: bytes, dealer: int | None = None, *,
    blind: frozenset[int] = frozenset(), refills: tuple[tuple[Card, ...], ...] | None = None,
) -> tuple[MatchState, list[E.Event]]:
    """Deal the next round from ``deck``; the first dealer comes from ``seed``.

    ``blind`` and ``refills`` serve private dealing (`rami_lan.core.round.RoundState`):
    the host's model rules with ``blind`` seats and refills in the pile's order; a
    client's replay passes the refills' real orders, once the round's audit gives them."""
    if m.over:
        raise IllegalAction(None, Phase.OVER, Reason.of("match_over"))
    if m.round is not None and m.round.phase != Phase.OVER:
        raise IllegalAction(None, m.round.phase, Reason.of("round_in_progress"))
    players = m.next_players()
    if dealer is None:
        if m.dealer is None:
            dealer = players[first_dealer_index(seed, len(players))]
        else:
            dealer = next((s for s in players if s > m.dealer), players[0])
    rnd, evs = R.deal(
        m.variant,
        players,
        m.n_seats,
        deck,
        seed,
        dealer,
        m.round_no + 1,
        m.options.knock,
        blind,
        refills,
    )
    return _evolve(m, round=rnd, round_no=m.round_no + 1, dealer=dealer), evs


def apply(m: MatchState, action: A.Action) -> tuple[MatchState, list[E.Event]]:
    """Apply an action to the current round; score and advance the match at its end."""
    if m.round is None or m.over:
        raise IllegalAction(getattr(action, "seat", None), m.phase, Reason.of("no_round"))
    rnd, evs = R.apply(m.round, action)
    m = _evolve(m, round=rnd)
    if rnd.phase == Phase.OVER and rnd.result is not None:
        m, more = _score_round(m, rnd.result)
        evs = evs + more
    return m, evs


def is_legal(m: MatchState, action: A.Action) -> bool:
    if m.round is None or m.over:
        return False
    return R.is_legal(m.round, action)


def legal_actions(m: MatchState, seat: int) -> Iterator[A.Action]:
    if m.round is None or m.over:
        return iter(())
    return R.legal_actions(m.round, seat)


def withdraw(m: MatchState, seat: int) -> tuple[MatchState, list[E.Event]]:
    """A player leaves between rounds: they are out of the match."""
    if m.phase not in (Phase.BETWEEN, Phase.WAITING):
        raise IllegalAction(seat, m.phase, Reason.of("leave_between_rounds"))
    elim = R._set(m.eliminated, seat, True)
    m = replace(m, eliminated=elim, tiebreak=tuple(s for s in m.tiebreak if s != seat))
    evs: list[E.Event] = [E.PlayersEliminated((seat,))]
    left = m.next_players()
    if len(left) <= 1 and not m.over:
        winner = left[0] if left else None
        m = replace(m, over=True, winner=winner, end_reason=MatchEnd.WITHDRAWAL)
        evs.append(E.MatchEnded(winner, _pairs(m.totals, m), MatchEnd.WITHDRAWAL))
    return m, evs


def void_round(m: MatchState, seat: int | None = None,
               reason: str = "player_gone") -> tuple[MatchState, list[E.Event]]:
    """The round in progress is void: no score; the match goes on as if it had not been
    dealt, except that its number and its dealer are used (the next round is the next
    number, dealt by the next dealer). ``seat``: the player it is void for, if any."""
    if m.round is None or m.round.phase == Phase.OVER or m.over:
        raise IllegalAction(seat, m.phase, Reason.of("no_round"))
    return replace(m, round=None), [E.RoundVoided(m.round_no, seat, reason)]


def _pairs(totals: tuple[int, ...], m: MatchState) -> tuple[tuple[int, int], ...]:
    return tuple((s, totals[s]) for s in range(m.n_seats))


def _score_round(m: MatchState, res: E.RoundEnded) -> tuple[MatchState, list[E.Event]]:
    v = m.variant
    totals = list(m.totals)
    for s, sc in res.scores:
        totals[s] += sc
    summary = RoundSummary(m.round_no, res.winner, res.rami_sec, res.reason, res.scores)
    m = replace(m, totals=tuple(totals), history=m.history + (summary,))
    evs: list[E.Event] = []
    limit = m.options.limit or v.default_limit
    players = [s for s, _ in res.scores]
    if v.match_rule == "elimination":
        out = [s for s in players if totals[s] > limit and not m.eliminated[s]]
        if limit <= 1:
            winner = min(players, key=lambda s: (totals[s], s))
            return _finish(m, winner, MatchEnd.SINGLE_ROUND, evs)
        if out:
            elim = list(m.eliminated)
            for s in out:
                elim[s] = True
            m = replace(m, eliminated=tuple(elim))
            evs.append(E.PlayersEliminated(tuple(out)))
        left = m.next_players()
        if len(left) == 1:
            return _finish(m, left[0], MatchEnd.LAST_PLAYER, evs)
        if not left:
            winner = min(players, key=lambda s: (totals[s], s))
            return _finish(m, winner, MatchEnd.ALL_OVER_LIMIT, evs)
        return m, evs
    if v.match_rule == "first_to":
        reached = [s for s in players if totals[s] >= limit]
        if reached:
            best = max(reached, key=lambda s: (totals[s], -s))
            return _finish(m, best, MatchEnd.REACHED_LIMIT, evs)
        return m, evs
    # target (500)
    if m.tiebreak:
        contenders = list(m.tiebreak)
    elif m.options.quick:
        if m.round_no < v.quick_rounds:
            return m, evs
        contenders = [s for s in range(m.n_seats) if not m.eliminated[s]]
    else:
        contenders = [s for s in players if totals[s] >= limit]
        if not contenders:
            return m, evs
    top = max(totals[s] for s in contenders)
    tied = tuple(s for s in contenders if totals[s] == top)
    if len(tied) == 1:
        return _finish(replace(m, tiebreak=()), tied[0], MatchEnd.TARGET, evs)
    return replace(m, tiebreak=tied), evs


def _finish(
    m: MatchState, winner: int | None, reason: str, evs: list[E.Event]
) -> tuple[MatchState, list[E.Event]]:
    m = replace(m, over=True, winner=winner, end_reason=reason)
    evs.append(E.MatchEnded(winner, _pairs(m.totals, m), reason))
    return m, evs
