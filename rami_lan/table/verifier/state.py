"""The verifier's state: one round's record (`_Round`) and `VerifierState`, the match-wide
state with the bookkeeping every check shares (opening a round, failing it, its verdict).

The checks are layered on it, each in its own module: `replay` (a round's replay once its
secrets are out), `protocol` (the commit-reveal), `play` (the deal and the play as they
come), `checkpoint` (a relaunched process); `seat.SeatVerifier` feeds them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from rami_lan.core import actions as A
from rami_lan.core import events as E
from rami_lan.core.cards import Card
from rami_lan.core.match import MatchOptions, MatchState, new_match
from rami_lan.core.melds import Meld
from rami_lan.core.variants import Variant, get_variant
from rami_lan.table.verifier.inputs import OBSERVER, Input, TableFacts
from rami_lan.table.verifier.outputs import Finding, RoundFairness, Status
from rami_lan.table.verify_spec import round_tag

_GAP = object()

RELAUNCHED = "we were relaunched during this round: its events before that are not known to us"
"""The reason of the round a relaunched seat came back in (checked as far as it can be)."""

_MISSING_AUDIT = "MISSING_AUDIT by seat "




@dataclass
class _Round:
    round_no: int
    tag: bytes
    asked: bool = False
    commit: bytes | None = None
    secret: bytes | None = None
    commits: dict[int, bytes] | None = None
    announced: dict[int, str] = field(default_factory=dict)
    revealed: bool = False
    started: bool = False
    ended: bool = False
    events: list[E.Event] = field(default_factory=list)
    refusals: list[tuple[int, A.Action]] = field(default_factory=list)
    sent: dict[int, A.Action] = field(default_factory=dict)  # our actions this round, by seq
    findings: list[Finding] = field(default_factory=list)
    gap: str = ""
    judged: bool = False
    status: Status = Status.PENDING
    reason: str = ""
    cards_checked: int = 0
    events_checked: int = 0
    # online tracking of the play
    start_m: MatchState | None = None
    layout: dict[int, tuple[int, ...]] = field(default_factory=dict)
    dealt: set[int] = field(default_factory=set)
    gen: int = 0
    next_pos: int = 0
    gen_size: int = 0
    gen_stock: list[Card] | None = None  # the known stock of a turned-over generation
    pile: list[Card] = field(default_factory=list)
    players: tuple[int, ...] = ()
    turn: int | None = None
    first: int | None = None
    knocker: int | None = None
    table: list[Meld] = field(default_factory=list)
    opened: set[int] = field(default_factory=set)
    voided: bool = False  # RoundVoided: nothing of the round counts
    void_seed: bytes | None = None
    void: tuple[int | None, str] | None = None  # the RoundVoided's (seat, reason)
    withheld: tuple[int, ...] = ()  # participants whose masked-deck audit never came
    # private dealing
    masked: bool = False
    orders: dict[int, tuple[int, ...]] | None = None
    gen_decks: dict[int, int | None] = field(default_factory=dict)
    deferred: Any = None  # the secrets, waiting for the masked deck's audit
    stand_in: bool = False  # out of the private deal: the host's bot plays our seat
    judged_before: bool = False  # judged by the process before a relaunch (its checkpoint)



class VerifierState:
    """The match-wide state of one seat's verifier, and the helpers every check uses."""

    _handlers: ClassVar[Mapping[type, Any]] = {}
    """Input type -> its check (`seat._HANDLERS`, set by `SeatVerifier`)."""

    def __init__(self, facts: TableFacts) -> None:
        self.facts = facts
        self.variant: Variant = get_variant(facts.variant)
        self.seat = facts.seat
        self._m: MatchState | None = new_match(
            self.variant, facts.n_seats, MatchOptions(facts.limit, facts.quick, facts.knock))
        self._rounds: dict[int, _Round] = {}
        self._cur: _Round | None = None
        self._tags: dict[bytes, int] = {}
        self._revealed: dict[bytes, bytes] = {}
        self._between: list[E.Event] = []
        self._last_seq: int | None = None
        self._disconnected = False
        self._away: set[int] = set()  # rounds whose set-up may have happened while we were away
        self._first_view = facts.rejoin
        self._early: list[Input] = []  # inputs before the first view (a late join decides)
        self._base = 0  # rounds played before we joined (a late join)
        self._out: set[int] = set()  # seats seen eliminated or withdrawn
        self._lost = ""  # why continuity of the match is lost (later rounds are partial)
        self._sent: dict[int, A.Action] = {}
        self._ended = False
        self._m_after: MatchState | None = None
        self._done_for = 0
        self.findings: list[Finding] = []
        """Every finding so far, in order."""
        self._masked_tags: set[bytes] = set()
        self._stand_in_tags: set[bytes] = set()  # rounds the host's bot plays our seat in
        self._stand_in_from: int | None = None  # benched: every round from this one
        """Tags the host said are private rounds (the notice may come before the round opens)."""
        self.relaunched = False
        """Restored from a dead process's checkpoint (`restore`)."""

    def _safely(self, handler: Any, item: Input) -> None:
        """Run a handler; data that breaks the verifier fails the round (never the client)."""
        try:
            handler(self, item)
        except Exception as exc:  # noqa: BLE001 - hostile data must not stop the session
            r = self._cur or self._open_round(self._next_round_no())
            self._fail(r, "unverifiable", f"the host's data can not be checked ({type(exc).__name__}: "
                       f"{str(exc)[:200]})")

    def _gone_while_away(self, r: _Round) -> bool:
        """A round with a hole in its log went on (and ended) while we were away."""
        if not r.gap or r.ended:
            return False
        r.ended = True
        self._partial(r, r.gap)
        self._lost = f"round {r.round_no} ended while we were away"
        self._m = None
        return True

    # ------------------------------------------------------------------ helpers

    def _no_secret_due(self) -> bool:
        """An observer, or the host's own seat (the host's secret is its own), commits nothing."""
        return self.seat == OBSERVER or self.seat == self.facts.host_seat

    def _plays_next(self) -> bool:
        """Does our seat play the next round (withdrawals seen since the last one applied)?"""
        m = self._m
        if m is None:  # continuity lost: the eliminations seen in public events
            return self.seat not in self._out
        gone = {s for e in self._between if isinstance(e, E.PlayersEliminated) for s in e.seats}
        return self.seat in m.next_players() and self.seat not in gone

    def _next_round_no(self) -> int:
        if self._m is not None:
            return self._m.round_no + 1
        cur = self._cur
        if cur is not None and not cur.started and not cur.voided:
            return cur.round_no  # (a round void before its deal used its number up)
        return max(max(self._rounds, default=0), self._base) + 1

    def _open_round(self, round_no: int) -> _Round:
        r = self._rounds.get(round_no)
        if r is None:
            tag = round_tag(self.facts.table_id, self.facts.match_no, round_no)
            r = self._rounds[round_no] = _Round(round_no, tag)
            r.masked = tag in self._masked_tags
            r.stand_in = tag in self._stand_in_tags or (
                self._stand_in_from is not None and round_no >= self._stand_in_from)
            if self._lost:
                self._partial(r, f"match continuity lost: {self._lost}")
        self._cur = r
        return r

    def _fail(self, r: _Round, code: str, reason: str, *, expected: Any = None,
              seen: Any = None) -> None:
        f = Finding(r.round_no, code, reason, expected, seen)
        r.findings.append(f)
        self.findings.append(f)
        if r.status is not Status.FAILED:
            r.status = Status.FAILED
            r.reason = reason

    def _partial(self, r: _Round, reason: str) -> None:
        if r.status in (Status.PENDING, Status.CHECKED):
            r.status = Status.PARTIAL
            r.reason = reason

    def _fairness(self, r: _Round) -> RoundFairness:
        status, reason = r.status, r.reason
        if status is Status.CHECKED and r.gap:
            status, reason = Status.PARTIAL, r.gap
        return RoundFairness(r.round_no, r.tag, status, reason, r.cards_checked,
                             r.events_checked, tuple(r.findings), tuple(sorted(r.announced.items())),
                             r.void if r.voided else None, r.withheld)
