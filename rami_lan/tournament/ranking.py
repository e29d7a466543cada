"""A table's ranking, read from its match record, and 003's multi-table tie rule.

A table sends on its best players; the tournament's standings compare players of
different tables. Both use one order, built from the match record alone (so
``rami-lan verify`` recomputes it):

1. ``winner``: the match's winner first;
2. ``rounds``: more rounds played (a player eliminated later, or in a tie-break, lasted
   longer);
3. ``total``: the better match total (lower for a penalty variant, higher where points
   are scored: the variant's ``scoring``);
4. 003's multi-table rule ("le joueur dont les combinaisons et cartes ajoutées atteint le
   score le plus élevé ... S'il y a toujours égalité, le joueur dont la somme des cartes
   restantes a la valeur la plus basse"): ``laid``, the higher sum of the points of the
   cards the player melded and laid off (``RoundEnded.laid_points``, every round), then
   ``hand``, the lower sum of the cards left in hand (``RoundEnded.hand_points``);
5. ``lot``: a number drawn from the tournament's seed (`rami_lan.tournament.draw.lot`).

Each place names the first rule that put the player behind the one before it (its
``why``), so the screen and the record show which rule decided. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rami_lan.core.variants import get_variant

__all__ = ["RULES", "SeatResult", "rank", "rule_between", "seat_results"]

RULES = ("winner", "rounds", "total", "laid", "hand", "lot")
"""The order's rules, first to last (``why`` is one of them, or ``first``)."""


@dataclass(frozen=True)
class SeatResult:
    """What a match record says of one seat."""

    seat: int
    nick: str
    kind: str
    winner: bool
    rounds: int
    total: int
    laid: int
    hand: int

    def to_plain(self) -> dict[str, Any]:
        return {"seat": self.seat, "nick": self.nick, "kind": self.kind, "winner": self.winner,
                "rounds": self.rounds, "total": self.total, "laid": self.laid, "hand": self.hand}


def _pairs(value: Any) -> dict[int, int]:
    out: dict[int, int] = {}
    if isinstance(value, list | tuple):
        for item in value:
            if (isinstance(item, list | tuple) and len(item) == 2
                    and all(type(x) is int for x in item)):
                out[item[0]] = item[1]
    return out


def seat_results(record: Mapping[str, Any]) -> list[SeatResult]:
    """Every seat's result in a finished match record (`rami_lan.net.record` format).

    Raises ValueError when the record has no result (the match did not finish).
    """
    result = record.get("result")
    if not isinstance(result, dict):
        raise ValueError("the match record has no result: its match did not finish")
    seats = record.get("seats")
    if type(seats) is not int or not 2 <= seats <= 4:
        raise ValueError("the match record's seat count is not 2 to 4")
    totals_raw = result.get("totals")
    if not isinstance(totals_raw, dict):
        raise ValueError("the match record's result has no totals")
    totals: dict[int, int] = {}
    for key, value in totals_raw.items():
        if not (isinstance(key, str) and key.isdigit() and type(value) is int):
            raise ValueError("the match record's totals are not seat -> points")
        totals[int(key)] = value
    winner = result.get("winner")
    rounds = dict.fromkeys(range(seats), 0)
    laid = dict.fromkeys(range(seats), 0)
    hand = dict.fromkeys(range(seats), 0)
    for rnd in record.get("rounds") or ():
        if not isinstance(rnd, dict):
            continue
        for ev in rnd.get("events") or ():
            if not isinstance(ev, dict) or ev.get("type") != "RoundEnded":
                continue
            for s in _pairs(ev.get("scores")):
                if s in rounds:
                    rounds[s] += 1
            for s, p in _pairs(ev.get("laid_points")).items():
                if s in laid:
                    laid[s] += p
            for s, p in _pairs(ev.get("hand_points")).items():
                if s in hand:
                    hand[s] += p
    names: dict[int, tuple[str, str]] = {}
    for p in record.get("players") or ():
        if isinstance(p, dict) and type(p.get("seat")) is int:
            names[p["seat"]] = (str(p.get("nick", "")), str(p.get("kind", "")))
    return [SeatResult(s, names.get(s, ("", ""))[0], names.get(s, ("", ""))[1],
                       winner == s, rounds[s], totals.get(s, 0), laid[s], hand[s])
            for s in range(seats)]


def _key(r: SeatResult, lower_total_wins: bool, lot: int) -> tuple[int, ...]:
    return (0 if r.winner else 1, -r.rounds, r.total if lower_total_wins else -r.total,
            -r.laid, r.hand, lot)


def lower_total_wins(variant: str) -> bool:
    """Whether a lower match total is the better one (the variant counts penalties)."""
    return get_variant(variant).scoring == "penalty"


def rule_between(a: SeatResult, b: SeatResult, lower_wins: bool, lot_a: int, lot_b: int) -> str:
    """The first rule of `RULES` that puts ``b`` behind ``a`` ("" if none does)."""
    ka, kb = _key(a, lower_wins, lot_a), _key(b, lower_wins, lot_b)
    for name, x, y in zip(RULES, ka, kb, strict=True):
        if x != y:
            return name
    return ""


def rank(results: Sequence[SeatResult], variant: str,
         lot: Callable[[SeatResult], int]) -> list[tuple[SeatResult, str]]:
    """``results`` best first, each with the rule that put it behind the one before
    (``first`` for the first)."""
    lower = lower_total_wins(variant)
    ordered = sorted(results, key=lambda r: _key(r, lower, lot(r)))
    out: list[tuple[SeatResult, str]] = []
    for i, r in enumerate(ordered):
        why = "first" if i == 0 else rule_between(ordered[i - 1], r, lower,
                                                  lot(ordered[i - 1]), lot(r))
        out.append((r, why))
    return out
