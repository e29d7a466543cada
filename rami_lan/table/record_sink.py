"""The record sink: what the table machine tells the match record, and nothing else.

The machine (and its dealing strategies, its journal replay) emits a match's history into
one `RecordSink`: who plays, each round begun with its commitments and seed, the events
and accepted actions, withdrawals, each round's end (secrets out) or void, the result.
It never reads the record back except as the plain snapshot its journal keeps
(`snapshot_state` / `restore_state`) and the plain record written at a round's end
(`to_plain`, a `WriteRecord` effect). `rami_lan.net.record.MatchRecord` is the sink the
host uses; a table without a record has none (``None``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from rami_lan.core.events import Event
from rami_lan.core.match import MatchState
from rami_lan.core.variants import Variant
from rami_lan.table.shuffle import CommitmentRound


@runtime_checkable
class RecordSink(Protocol):
    """Where a table's match history goes (see the module docstring)."""

    def set_players(self, players: Sequence[Mapping[str, Any]]) -> None:
        """The match's seats: ``seat``, ``nick``, ``kind`` each."""

    def begin_round(self, round_no: int, tag: bytes, commit: CommitmentRound,
                    deck: Sequence[int], seed: bytes) -> None:
        """Round ``round_no`` is dealt: its tag, commitments, deck order (empty when the
        deck is masked) and seed."""

    def recording(self) -> bool:
        """Whether a round is being recorded (begun, not yet ended)."""

    def set_round_players(self, m: MatchState) -> None:
        """The round's players and dealer, once it is dealt."""

    def log_events(self, evs: Sequence[Event], variant: Variant) -> None:
        """Events of the round being recorded."""

    def log_action(self, plain: Mapping[str, Any], by: str) -> None:
        """An action the core accepted (``action_to_plain``), and who chose it."""

    def log_withdrawal(self, seat: int) -> None:
        """A seat left the match."""

    def end_round(self, m: MatchState, secrets: Mapping[int, bytes], excluded: Sequence[int],
                  abandoned: bool = False) -> None:
        """The round being recorded is over: its secrets and exclusions."""

    def void_current(self, round_no: int, reason: str, variant: Variant) -> None:
        """The round being recorded is void before its end."""

    def finish(self, m: MatchState) -> None:
        """The match is over: its result."""

    def to_plain(self) -> dict[str, Any]:
        """The record as written (plain data, ready for JSON)."""

    def snapshot_state(self, pending: Sequence[Mapping[str, Any]] = ()) -> dict[str, Any]:
        """The record's state for the journal's snapshot, ``pending`` plain events added
        to the round being recorded (``{"data", "current"}``)."""

    def restore_state(self, state: Mapping[str, Any]) -> None:
        """Take up the state `snapshot_state` gave (a restarted host)."""
