"""The one interface through which the table machine deals a round (`Dealing`).

`rami_lan.table.machine.TableMachine` deals each round through a strategy it picks when
the round's seed is known (`TableMachine.dealing_for_round`): `PlainDealing` (the host
knows every card: the deck comes from the seed) or `MaskedDealing` (private dealing:
the deck is masked by every participant's machine, docs/masked_deck.md). The strategy
holds its round's own state and lives until the next round is dealt, so a masked
round's audit, which comes after its end, is still its own. The machine asks the
strategy at each point where the two ways differ, and never asks which one it has.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from rami_lan.core.actions import Action
    from rami_lan.core.events import Event
    from rami_lan.core.match import MatchState
    from rami_lan.core.reasons import Reason
    from rami_lan.core.variants import Variant
    from rami_lan.masked.inbound import MaskedInput
    from rami_lan.table import effects as F
    from rami_lan.table.config import TableConfig
    from rami_lan.table.fairround import RoundCtx
    from rami_lan.table.masked_host import MaskedRound, Routed
    from rami_lan.table.seats import Seat
    from rami_lan.table.stage import Stage, Step

__all__ = ["AuditWait", "Dealing", "Halved", "Held", "MaskedState", "Standing", "Table"]


@dataclass
class Standing:
    """Private dealing over a match: each participant's missed deadlines and who left the
    private deal (the machine's, across rounds; cleared when a match begins)."""

    strikes: dict[int, set[int]] = field(default_factory=dict)
    """Participant -> the rounds (numbers) in which it missed a deadline, this match."""
    out: set[int] = field(default_factory=set)
    """Seats out of the private deal (missed `STRIKES_OUT` deadlines): the host's bot plays
    them from the next round; they are no participant any more."""

    def clear(self) -> None:
        self.strikes.clear()
        self.out.clear()

    def benched(self, seat: int) -> bool:
        """Is ``seat`` out of the private deal (played by the host's bot)?"""
        return seat in self.out

    def struck(self, seat: int, round_no: int) -> bool:
        """Did ``seat`` miss a deadline in round ``round_no`` already?"""
        return round_no in self.strikes.get(seat, set())


@dataclass
class AuditWait:
    """The round's audit is awaited: until ``deadline`` (None: closing now)."""

    deadline: float | None
    void: bool = False
    """The round is void: the audit closes once only the one it was void for is missing."""


@dataclass(frozen=True)
class Held:
    """An action held until every blind hand is shown (the round's end)."""

    conn: int | None
    action: Any
    seq: int | None


@dataclass(frozen=True)
class Halved:
    """A timed-out turn split in two (its drawn card is masked): the second half is
    played once the card is known."""

    seat: int
    turn: tuple[int, int] | None
    before: MatchState
    """The match before the timeout (the model's swaps applied)."""


class Table(Protocol):
    """What a dealing strategy uses of its table (`rami_lan.table.machine.TableMachine`,
    which imports the strategies: they name it by this protocol, not by import)."""

    config: TableConfig
    variant: Variant
    entropy: Callable[[int], bytes]
    match: MatchState
    seq: int
    stage: Stage
    record: Any
    seats: dict[int, Seat]
    host_seat: int
    dealing: Dealing
    standing: Standing
    masked_reports: list[Any]
    host_keys: Any
    """The seats' announced signing keys (`rami_lan.table.receipts.HostKeys`)."""
    masked_dealing: Any
    """The class of a privately dealt round (`MaskedDealing`, or a test's)."""
    _round: RoundCtx | None
    _out: list[F.Effect]
    _journal_on: bool
    _cards: list[Any] | None
    _bot_events: dict[int, list[Event]]
    _away_since: dict[int, float]
    _turn_key: tuple[int, int] | None
    _turn_started: float
    _turn_waiting: bool

    # the table's duties (a test overrides them to build a cheating table)
    def deck_for_round(self, seed: bytes, n_cards: int) -> list[int]: ...
    def deal(self, m: MatchState, cards: list[Any], seed: bytes) -> tuple[MatchState, list[Event]]: ...
    def apply_core(self, m: MatchState, action: Action) -> tuple[MatchState, list[Event]]: ...
    def snapshot(self, m: MatchState, seq: int, pending_events: Any = ()) -> dict[str, Any]: ...

    # the machine's own steps
    def try_apply(self, conn: int | None, action: Action, seq: int | None, now: float) -> bool: ...
    def _go(self, step: Step) -> None: ...
    def _match_cards(self) -> list[Any]: ...
    def _commit_change(self, m: MatchState, evs: list[Event], now: float) -> None: ...
    def _finish_round(self, ctx: RoundCtx, now: float, abandoned: bool = False,
                      go_on: bool = True) -> None: ...
    def _next_round_or_end(self, now: float) -> None: ...
    def _audit_in(self, now: float) -> None: ...
    def _send(self, conn: int, msg: F.Msg) -> None: ...
    def _error(self, conn: int, code: str, message: str, ref: int | None = None) -> None: ...
    def _notice(self, text: str, code: str | None = None, **data: Any) -> None: ...
    def _journal(self, kind: str, body: dict[str, Any]) -> None: ...


class Dealing(Protocol):
    """How a round is dealt, shown and recorded (one strategy per round)."""

    @property
    def auditing(self) -> bool:
        """Is the round's audit still awaited (the table's next step waits for it)?"""

    # ---------------------------------------------------------------- the deal

    def deal(self, ctx: RoundCtx, seed: bytes, now: float) -> None:
        """The round's seed is known: deal it (now, or once the masked deck is ready)."""

    def receive(self, conn: int, seat: int, msg: MaskedInput, now: float) -> None:
        """A masked-deck message from a seated connection."""

    def announced(self, seat: int, plain: dict[str, Any], now: float) -> None:
        """``seat`` announced its signing key (``mk_seatkey``, already checked and kept)."""

    # ---------------------------------------------------------------- time

    def deadline(self) -> float | None:
        """The strategy's earliest deadline (None: none)."""

    def step(self, now: float) -> bool:
        """Do one due thing of the strategy's own; False when nothing is due."""

    def settle(self, now: float) -> None:
        """After each input, before the next deadline is computed."""

    # ---------------------------------------------------------------- what a seat sees

    def seat_view(self, m: MatchState, seat: int) -> Any:
        """The view for ``seat`` (sending first what the seat needs to read it)."""

    def redact(self, ev: Event, seat: int) -> Event:
        """What ``seat`` sees of an event."""

    def holds_for(self, seat: int, m: MatchState, evs: list[Event]) -> bool:
        """Are ``seat``'s events and view held back for now (True: held, sent later)?"""

    def resync(self, conn: int, seat: int) -> None:
        """A seat (re)joined: what it needs of the round besides its view."""

    def resumed(self, now: float) -> None:
        """A restarted host goes on with the round being played."""

    # ---------------------------------------------------------------- each change

    def refusal(self, action: Any, evs: list[Event]) -> Reason | str:
        """Why the table may not apply an action the core allows (empty: it may)."""

    def split(self, action: Any, evs: list[Event], now: float) -> bool:
        """A refused automatic move played in two halves (True: the first is applied)."""

    def hold(self, conn: int | None, action: Any, seq: int | None, evs: list[Event],
             now: float) -> bool:
        """Hold an action back until the table may apply it (True: held)."""

    def changing(self, m: MatchState, evs: list[Event], now: float) -> Any:
        """Before a change goes out; what it returns is given to `changed`."""

    def changed(self, evs: list[Event], noted: Any, now: float) -> None:
        """After a change went out to every seat."""

    # ---------------------------------------------------------------- journal and record

    def log_action(self, seat: int, plain: Any, by: str) -> None:
        """Journal an action the table applies (the machine records it)."""

    def record_events(self, evs: list[Event]) -> None:
        """The events of a change, for the match record."""

    def record_end(self, ctx: RoundCtx, abandoned: bool) -> None:
        """The round is finished: its record entry (now, or once its audit is in)."""

    def header(self) -> dict[str, Any] | None:
        """The journal snapshot's part for the round being played (None: nothing)."""

    def void_marker(self) -> dict[str, int | None] | None:
        """The round a restart finds void (journaled; None: none)."""

    # ---------------------------------------------------------------- the turn

    def busy(self) -> bool:
        """Does the table wait for the strategy (no automatic move meanwhile)?"""

    def mover_waits(self) -> bool:
        """Does the player whose turn it is still wait for cards of its hand?"""

    def blind(self, seat: int) -> bool:
        """Does the host not see ``seat``'s hand (nobody but its player can play it)?"""

    def handed_over(self, seat: int) -> bool:
        """Did ``seat``'s player leave this round, its hand given to the host's bot?"""

    def prompted(self) -> bool:
        """Was this turn's player's client asked to play its automatic move already?"""

    def moving_for(self, seat: int) -> bool:
        """Is the table playing ``seat``'s automatic move (its own moves refused)?"""

    def prompt(self, seat: int, now: float) -> None:
        """``seat``'s move timer ran out: its own client plays the automatic move."""


class MaskedState(Protocol):
    """What the private-dealing helpers (`masked_journal`, `masked_live`) use of one
    masked round (`rami_lan.table.dealing.masked.MaskedDealing`)."""

    t: Table
    mr: MaskedRound
    key: bytes
    seed: bytes
    events: list[Event]
    m0: MatchState | None
    model_deck: list[Any] | None
    audit: AuditWait | None
    held: Held | None
    halved: Halved | None
    handed: set[int]
    owed_since: dict[int, tuple[float, str]]
    owed_keys: set[int]
    marker: dict[str, int | None] | None
    mj: dict[str, Any] | None
    mj_actions: list[list[Any]]

    def _greet(self) -> None: ...
    def _deliver(self, routed: Routed) -> None: ...
    def _route(self, routed: Routed, now: float) -> None: ...
    def _card_no(self, card: Any) -> int: ...
    def _struck(self, seat: int) -> bool: ...
    def send(self, seat: int, plain: dict[str, Any]) -> None: ...
    def post(self, seat: int, message: Any) -> None: ...
    def prompted(self) -> bool: ...
    def mover_waits(self) -> bool: ...
    def strike(self, seat: int, what: str, late: bool = True) -> None: ...
