"""Plain dealing: the host knows every card; the round's deck comes from its seed.

The fair shuffle (commit-reveal, FAIR_SHUFFLE.md) gives the seed; `deck_order` gives
the deck; the core deals it. Every seat sees what `Event.for_seat` and `view_for` give
it; the record gets each round's deck, events and secrets at its end.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rami_lan.core.reasons import Reason
from rami_lan.core.views import view_for
from rami_lan.masked.inbound import MaskedInput
from rami_lan.table import effects as F
from rami_lan.table.stage import Step

if TYPE_CHECKING:
    from rami_lan.core.events import Event
    from rami_lan.core.match import MatchState
    from rami_lan.table.dealing.base import Table
    from rami_lan.table.fairround import RoundCtx

__all__ = ["PlainDealing"]


class PlainDealing:
    """A round dealt in the clear (`rami_lan.table.dealing.Dealing`)."""

    def __init__(self, table: Table) -> None:
        self.t = table

    @property
    def auditing(self) -> bool:
        return False

    def deal(self, ctx: RoundCtx, seed: bytes, now: float) -> None:
        """Spec step 4: the deck from the seed; the core deals it, journaled first."""
        t = self.t
        v = t.variant
        deck_ids = t.deck_for_round(seed, v.deck_size)
        cards = [t._match_cards()[i] for i in deck_ids]
        if t.record is not None:
            t.record.begin_round(t.match.round_no + 1, ctx.tag, ctx.commit, deck_ids, seed)
        new_m, evs = t.deal(t.match, cards, seed)
        ctx.started = True
        t._go(Step.DEAL)
        if t.record is not None:
            t.record.set_round_players(new_m)
        if t._journal_on:
            # Write-ahead: the dealt round is on disk before anyone sees a card of it.
            t._out.append(F.JournalSnapshot(t.snapshot(new_m, t.seq + 1, evs)))
        t._commit_change(new_m, evs, now)

    def receive(self, conn: int, seat: int, msg: MaskedInput, now: float) -> None:
        """A masked message at a plain round (e.g. a client's audit of a round a host
        restart voided): dropped."""

    def announced(self, seat: int, plain: dict[str, Any], now: float) -> None:
        """A seat's signing key at a plain round: kept by the machine for a later private one."""

    def deadline(self) -> float | None:
        return None

    def step(self, now: float) -> bool:
        return False

    def settle(self, now: float) -> None:
        return None

    def seat_view(self, m: MatchState, seat: int) -> Any:
        return view_for(m, seat)

    def redact(self, ev: Event, seat: int) -> Event:
        return ev.for_seat(seat)

    def holds_for(self, seat: int, m: MatchState, evs: list[Event]) -> bool:
        return False

    def resync(self, conn: int, seat: int) -> None:
        return None

    def resumed(self, now: float) -> None:
        return None

    def refusal(self, action: Any, evs: list[Event]) -> Reason | str:
        return ""

    def split(self, action: Any, evs: list[Event], now: float) -> bool:
        return False

    def hold(self, conn: int | None, action: Any, seq: int | None, evs: list[Event],
             now: float) -> bool:
        return False

    def changing(self, m: MatchState, evs: list[Event], now: float) -> Any:
        return None

    def changed(self, evs: list[Event], noted: Any, now: float) -> None:
        return None

    def log_action(self, seat: int, plain: Any, by: str) -> None:
        t = self.t
        t._journal("action", {"seq": t.seq + 1, "seat": seat, "by": by, "action": plain})

    def record_events(self, evs: list[Event]) -> None:
        t = self.t
        if t.record is not None:
            t.record.log_events(evs, t.variant)

    def record_end(self, ctx: RoundCtx, abandoned: bool) -> None:
        t = self.t
        if t.record is not None:
            t.record.end_round(t.match, ctx.secrets(), ctx.excluded(), abandoned)
            t._out.append(F.WriteRecord(t.record.to_plain()))

    def header(self) -> dict[str, Any] | None:
        return None

    def void_marker(self) -> dict[str, int | None] | None:
        return None

    def busy(self) -> bool:
        return False

    def mover_waits(self) -> bool:
        return False

    def blind(self, seat: int) -> bool:
        return False

    def handed_over(self, seat: int) -> bool:
        return False

    def prompted(self) -> bool:
        return False

    def moving_for(self, seat: int) -> bool:
        return False

    def prompt(self, seat: int, now: float) -> None:
        return None
