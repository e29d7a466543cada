"""The stages of a table (`rami_lan.table.machine.TableMachine.stage`)."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Stage"]


class Stage(StrEnum):
    WAITING = "waiting"
    COMMIT = "commit"
    REVEAL = "reveal"
    SHUFFLE = "shuffle"
    """Private dealing: the masked deck is being shuffled and dealt."""
    PLAYING = "playing"
    BETWEEN = "between"
    RESUMING = "resuming"
    OVER = "over"
    STOPPED = "stopped"
