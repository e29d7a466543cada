"""Phases and end reasons as enums (`enum.StrEnum`: each member equals its string).

``Phase.DRAW == "draw"`` holds, so code that compares with the strings keeps working;
the codec writes the plain strings on the wire and in snapshots (the format is
unchanged).

- `Phase`: a round is in ``draw``, ``play`` or ``over``; a match (`MatchState.phase`,
  `SeatView.phase`) is also ``waiting`` (no round yet) or ``between`` rounds.
- `RoundEnd` (`RoundEnded.reason`): ``out`` (a hand is empty), ``stock`` (500: the
  stock is empty at the end of a turn), ``blocked`` (nobody can draw), ``cap`` (the
  move cap, `MAX_TURNS_PER_ROUND`).
- `MatchEnd` (`MatchState.end_reason`, `MatchEnded.reason`).
"""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    WAITING = "waiting"
    DRAW = "draw"
    PLAY = "play"
    BETWEEN = "between"
    OVER = "over"


class RoundEnd(StrEnum):
    OUT = "out"
    STOCK = "stock"
    BLOCKED = "blocked"
    CAP = "cap"


class MatchEnd(StrEnum):
    SINGLE_ROUND = "single_round"  # limit 1: one round, the lowest total wins
    LAST_PLAYER = "last_player"  # everyone else was eliminated
    ALL_OVER_LIMIT = "all_over_limit"  # every remaining player went over at once
    REACHED_LIMIT = "reached_limit"  # multi: first to 100
    TARGET = "target"  # 500: target (or quick match) reached, ties broken
    WITHDRAWAL = "withdrawal"  # the others left between rounds
