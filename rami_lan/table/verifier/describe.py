"""The words of the verifier's findings: cards, actions and events as short text, and the
finding (code, reason, expected, seen) for a replayed event that differs from the host's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rami_lan.core import actions as A
from rami_lan.core import events as E
from rami_lan.core.cards import Card


def _cards(cards: Sequence[Card | None]) -> str:
    return " ".join(str(c) for c in cards) or "-"


def _act(action: A.Action) -> str:
    return f"{type(action).__name__} of seat {getattr(action, 'seat', '?')}"


def _ev(ev: E.Event) -> str:
    text = repr(ev)
    return text if len(text) <= 300 else text[:297] + "..."


def _describe(mine: E.Event, seen: E.Event, what: str) -> tuple[str, str, Any, Any]:
    """A finding (code, reason, expected, seen) for the first replayed event that differs."""
    generic = (_code_of(mine, seen), f"after {what} the rules give {_ev(mine)}; the host sent "
               f"{_ev(seen)}", _ev(mine), _ev(seen))
    if type(mine) is not type(seen):
        return generic
    if isinstance(mine, E.RoundStarted) and isinstance(seen, E.RoundStarted):
        if mine.dealer != seen.dealer:
            return ("dealer_wrong", f"the seed makes seat {mine.dealer} the dealer; the host made "
                    f"seat {seen.dealer} deal", mine.dealer, seen.dealer)
        if mine.first_discard != seen.first_discard:
            return ("replay_card", f"the first discard (stock position "
                    f"{len(mine.players) * mine.hand_size}) is {mine.first_discard} in the agreed "
                    f"shuffle; the host turned up {seen.first_discard}",
                    str(mine.first_discard), str(seen.first_discard))
    if isinstance(mine, E.CardsDealt) and isinstance(seen, E.CardsDealt) and mine.cards and seen.cards:
        for pos, a, b in zip(mine.positions, mine.cards, seen.cards, strict=False):
            if a != b:
                return ("replay_card", f"seat {mine.seat}'s card from stock position {pos} is {a} "
                        f"in the agreed shuffle; the host dealt {b}", str(a), str(b))
    if isinstance(mine, E.StockDrawn) and isinstance(seen, E.StockDrawn) and mine.card != seen.card:
        where = f"position {mine.position} of " + ("the original stock" if mine.reshuffle == 0
                                                    else f"refill {mine.reshuffle}")
        return ("replay_card", f"seat {mine.seat} drew from {where}: the agreed shuffle gives "
                f"{mine.card}, the host gave {seen.card}", str(mine.card), str(seen.card))
    if isinstance(mine, E.RoundEnded) and isinstance(seen, E.RoundEnded) and mine.scores != seen.scores:
        return ("replay_score", f"the round's scores are {dict(mine.scores)} by the rules; the host "
                f"announced {dict(seen.scores)}", dict(mine.scores), dict(seen.scores))
    return generic


def _code_of(ev: E.Event, seen: E.Event) -> str:
    """The finding code of a replay mismatch, by the event the rules give."""
    if isinstance(ev, E.RoundStarted) and isinstance(seen, E.RoundStarted) and ev.dealer != seen.dealer:
        return "dealer_wrong"
    return {
        E.RoundStarted: "replay_deal",
        E.CardsDealt: "replay_card",
        E.StockDrawn: "replay_card",
        E.StockRefilled: "replay_refill",
        E.RoundEnded: "replay_score",
        E.PlayersEliminated: "replay_elimination",
        E.MatchEnded: "replay_match_end",
    }.get(type(ev), "replay_ruling")
