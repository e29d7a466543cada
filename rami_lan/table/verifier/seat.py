"""`SeatVerifier`: one seat's verifier, fed in order what the seat received and sent.

It answers the queries (each round's fairness, whether we may commit or reveal) and sends
each input to its check (`_HANDLERS`); the checks are in `play`, `protocol`, `replay` and
`checkpoint`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rami_lan.core import events as E
from rami_lan.core.errors import IllegalAction
from rami_lan.core.match import withdraw
from rami_lan.table.verifier.checkpoint import Relaunch
from rami_lan.table.verifier.inputs import (
    ActionSent,
    CommitAsked,
    CommitmentsSeen,
    CommitSent,
    Disconnected,
    EventsSeen,
    Input,
    MaskedOrders,
    MaskedRefused,
    MaskedRoundSeen,
    Refused,
    RevealSent,
    SeatBenched,
    SecretsSeen,
    StreamEnded,
    ViewSeen,
)
from rami_lan.table.verifier.outputs import Finding, RoundFairness, Status
from rami_lan.table.verifier.play import PlayWatch
from rami_lan.table.verifier.state import _GAP
from rami_lan.table.verify_spec import round_tag


class SeatVerifier(Relaunch, PlayWatch):
    """The verifier of one seat (or, with ``seat=OBSERVER``, of a full record)."""

    # ------------------------------------------------------------------ queries

    def rounds(self) -> tuple[RoundFairness, ...]:
        """Every round seen so far, in order, with its fairness state."""
        return tuple(self._fairness(r) for _, r in sorted(self._rounds.items()))

    def round(self, round_no: int) -> RoundFairness | None:
        r = self._rounds.get(round_no)
        return None if r is None else self._fairness(r)

    @property
    def failed(self) -> bool:
        return any(r.status is Status.FAILED for r in self._rounds.values())

    def expected_tag(self) -> bytes:
        """The tag of the next round to set up, derived from table, match and round."""
        return round_tag(self.facts.table_id, self.facts.match_no, self._next_round_no())

    def expected_players(self) -> tuple[int, ...] | None:
        """The next round's players as the rules give them from what we saw (withdrawals
        and eliminations applied); None when we can not tell (continuity lost, a round
        not yet judged, events missed)."""
        m, cur = self._m, self._cur
        if m is None or self._lost or _GAP in self._between:
            return None
        if cur is not None and cur.started and self._done_for != cur.round_no:
            return None  # the last round is not continued yet: ``_m`` is the match before it
        for item in self._between:
            if isinstance(item, E.PlayersEliminated) and m.phase in ("between", "waiting"):
                for seat in item.seats:
                    try:
                        m, _evs = withdraw(m, seat)
                    except IllegalAction:
                        return None
        return tuple(m.next_players())

    def can_commit(self, tag: bytes, seat: int) -> bool:
        """May we answer this commit request (an expected, never used, fresh tag)?"""
        r = self._cur
        return (r is not None and r.tag == tag and r.asked and r.commits is None
                and seat == self.seat and r.status is not Status.FAILED)

    def can_reveal(self, tag: bytes) -> bool:
        """May our secret for ``tag`` go out? Only once, for the current round's tag, after
        a commitment set that holds our commitment, and never for a failed round."""
        r = self._cur
        return (r is not None and r.tag == tag and r.commits is not None and not r.revealed
                and not r.started and r.secret is not None and r.status is not Status.FAILED
                and r.commits.get(self.seat) == r.commit and tag not in self._revealed)

    # ------------------------------------------------------------------ feeding

    def feed(self, item: Input) -> list[Finding]:
        """Take the next message in and return the findings it caused (often none)."""
        before = len(self.findings)
        handler = _HANDLERS.get(type(item))
        if handler is None:
            raise TypeError(f"not a verifier input: {item!r}")
        if self._first_view and not isinstance(item, ViewSeen | Disconnected):
            if isinstance(item, CommitmentsSeen | SecretsSeen | MaskedRoundSeen) or (
                    isinstance(item, EventsSeen) and not any(isinstance(e, E.Event) for e in item.events)):
                # a state resend (or a private round's resync) before the first view, or a
                # table notice (the players list of our reconnect): the view decides first
                self._early.append(item)
                return []
            self._first_view = False  # no view first (a record, a simulation): a normal start
            for early in self._pop_early():
                self._safely(_HANDLERS[type(early)], early)
        self._safely(handler, item)
        return self.findings[before:]

    def feed_all(self, items: Sequence[Input]) -> list[Finding]:
        out: list[Finding] = []
        for item in items:
            out += self.feed(item)
        return out

    # ---- the session

    def _on_disconnected(self, msg: Disconnected) -> None:
        self._disconnected = True
        n = self._next_round_no()
        cur = self._cur
        if cur is not None and not cur.started:
            n = cur.round_no
        self._away |= {n, n + 1}

    def _on_stream_ended(self, msg: StreamEnded) -> None:
        if self._ended:
            return
        self._ended = True
        r = self._cur
        if r is None or r.status is not Status.PENDING:
            return
        if r.started and r.ended and not self._disconnected:
            self._fail(r, "secrets_missing", "the session ended before the round's secrets arrived")
        elif self._disconnected:
            r.status = Status.UNCHECKED
            r.reason = "the connection was lost before the round could be checked"
        else:
            r.status = Status.UNCHECKED
            r.reason = "the session ended before the round did"


_HANDLERS: dict[type, Any] = {
    CommitAsked: SeatVerifier._on_commit_asked,
    CommitSent: SeatVerifier._on_commit_sent,
    CommitmentsSeen: SeatVerifier._on_commitments,
    RevealSent: SeatVerifier._on_reveal_sent,
    EventsSeen: SeatVerifier._on_events,
    ViewSeen: SeatVerifier._on_view,
    ActionSent: SeatVerifier._on_action_sent,
    Refused: SeatVerifier._on_refused,
    SecretsSeen: SeatVerifier._on_secrets,
    Disconnected: SeatVerifier._on_disconnected,
    StreamEnded: SeatVerifier._on_stream_ended,
    MaskedOrders: SeatVerifier._on_masked_orders,
    MaskedRoundSeen: SeatVerifier._on_masked_round,
    MaskedRefused: SeatVerifier._on_masked_refused,
    SeatBenched: SeatVerifier._on_benched,
}

SeatVerifier._handlers = _HANDLERS
