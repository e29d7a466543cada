"""One seat's verifier of the table: the fair shuffle as a protocol, and a full replay.

Sans-I/O. A `SeatVerifier` is fed, in order, what one seat received from the host and
sent to it (`CommitAsked`, `CommitSent`, `CommitmentsSeen`, `RevealSent`,
`EventsSeen`, `ViewSeen`, `ActionSent`, `Refused`, `SecretsSeen`, `Disconnected`,
`StreamEnded`), with that seat's own secrets. It **derives, never copies**: from the
table facts (`TableFacts`) and the public information it computes what the host must
send, and reports every disagreement as a `Finding` the moment the information allows:

* the commit-reveal protocol (FAIR_SHUFFLE.md steps 1-5): the round tag is
  ``round_tag(table_id, match_no, round_no)`` of the next round; we are asked to commit
  for our own seat; a tag is used for one round only and never gets two commitment
  sets (no restarted rounds); our commitment is in the set, the host's too; a round is
  never dealt without our commitment, before the commitments, or with us excluded;
  every exclusion is announced (with its reason) before the deal and the secrets at the
  end exclude exactly those seats; `can_reveal` never lets a secret go out twice, for a
  second tag, or for a round that already failed;
* the deal as soon as it is seen: round number, players (eliminations and withdrawals
  applied), the dealer of rounds 2+ (rotation), who plays first, hand size, stock size,
  every seat's deal positions, and our own dealt cards' count;
* during play: every stock draw's position (consecutive per stock generation), the
  discard pile from public events (takes, knocks), every refill (its number, content
  and order = the pile minus its top, the kept card, shuffled or turned over per
  variant), and for ``multi`` our draws from the turned-over pile;
* at the round's end, once the secrets are out: every commitment and the seed, then a
  **full replay** with the rules core (`rami_lan.core.match`) from the derived deck and
  the actions read from the public event log: every card, every ruling (meld validity,
  lay-offs, joker recoveries, knocks, timeouts, our refused actions), the round-1
  dealer from the seed, scores, eliminations, totals and the match's end.

`rounds()` gives each round's `RoundFairness`: ``pending``, ``checked``, ``partial``
(events missed during a disconnect: only what was seen is checked), ``unchecked`` or
``failed`` with its reason. The same class checks a whole match record offline
(`rami_lan.net.record`), fed from a seat that sees everything.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import lru_cache
from typing import Any

from rami_lan.core import actions as A
from rami_lan.core import events as E
from rami_lan.core.cards import Card, card_from_id
from rami_lan.core.deckrng import deck_order, turn_over
from rami_lan.core.errors import IllegalAction, RulesError
from rami_lan.core.match import MatchOptions, MatchState, apply, is_legal, new_match, start_round, withdraw
from rami_lan.core.melds import Meld, check_meld, lay_off, recover_joker
from rami_lan.core.variants import Variant, get_variant
from rami_lan.table.verify_spec import DEDICATED_HOST_SEAT, commitment, round_tag, seed_from_secrets

__all__ = [
    "ActionSent",
    "CommitAsked",
    "CommitSent",
    "CommitmentsSeen",
    "Disconnected",
    "EventsSeen",
    "Finding",
    "Input",
    "Refused",
    "RevealSent",
    "RoundFairness",
    "SecretsSeen",
    "MaskedOrders",
    "MaskedRefused",
    "audited_refills",
    "MaskedRoundSeen",
    "SeatVerifier",
    "Status",
    "StreamEnded",
    "TableFacts",
    "ViewSeen",
    "OBSERVER",
]

#: Seat of an observer that sees every card (offline record checks).
OBSERVER = -1


# --------------------------------------------------------------------------- inputs


@dataclass(frozen=True, slots=True)
class TableFacts:
    """What the table announced when we joined (the same for every seat)."""

    table_id: bytes
    match_no: int
    variant: str
    n_seats: int
    seat: int
    host_seat: int = DEDICATED_HOST_SEAT
    limit: int | None = None
    quick: bool = False
    knock: bool = False
    rejoin: bool = False
    """We came back with a token (a new process): the match may be in progress."""


@dataclass(frozen=True, slots=True)
class CommitAsked:
    """Received ``commit_request``: the host asks ``seat`` to commit for ``tag``."""

    tag: bytes
    seat: int


@dataclass(frozen=True, slots=True)
class CommitSent:
    """We sent ``commit`` for ``tag``; ``secret`` is the one it commits to (ours)."""

    tag: bytes
    commit: bytes
    secret: bytes


@dataclass(frozen=True, slots=True)
class CommitmentsSeen:
    """Received ``commitments``; ``excluded`` (seat -> reason) announces exclusions."""

    tag: bytes
    commits: Mapping[int, bytes]
    excluded: Mapping[int, str] | None = None


@dataclass(frozen=True, slots=True)
class RevealSent:
    """We sent our secret for ``tag``."""

    tag: bytes
    secret: bytes


@dataclass(frozen=True, slots=True)
class EventsSeen:
    """Received ``events`` (already decoded, redacted for our seat) numbered ``seq``."""

    seq: int | None
    events: tuple[E.Event, ...]


@dataclass(frozen=True, slots=True)
class ViewSeen:
    """Received a view numbered ``seq``, showing round ``round_no`` in ``phase``.

    Only the first view matters beyond its number: a seat that joins a match already in
    progress (a new process with its token) learns the round from it.
    """

    seq: int | None
    round_no: int | None = None
    phase: str | None = None


@dataclass(frozen=True, slots=True)
class ActionSent:
    """We sent ``action`` as our action number ``seq``."""

    seq: int
    action: A.Action


@dataclass(frozen=True, slots=True)
class Refused:
    """Received an error about our action ``ref`` (``code`` "illegal" = a ruling)."""

    ref: int | None
    code: str
    message: str = ""


@dataclass(frozen=True, slots=True)
class SecretsSeen:
    """Received ``round_secrets``: the secrets used, the excluded seats and why."""

    tag: bytes
    secrets: Mapping[int, bytes]
    excluded: tuple[int, ...] = ()
    reasons: Mapping[int, str] | None = None


@dataclass(frozen=True, slots=True)
class Disconnected:
    """Our connection dropped: what the host sent meanwhile is lost."""


@dataclass(frozen=True, slots=True)
class StreamEnded:
    """The session is over: nothing more will come."""


@dataclass(frozen=True, slots=True)
class MaskedRoundSeen:
    """Private dealing: round ``tag`` is dealt from a masked deck (``mk_round`` came):
    its replay waits for the audited deck orders (`MaskedOrders`). ``stand_in``: our seat is
    no participant of that round although it is not the host's (it left the private deal:
    ``mk_own``), so the host's bot plays it with the host's keys; our own actions are
    refused and the moves made for our seat are the bot's."""

    tag: bytes
    stand_in: bool = False


@dataclass(frozen=True, slots=True)
class SeatBenched:
    """The host said our seat left the private deal (``private_deal_benched``): from the
    next round its bot plays our seat, in a masked round (``mk_own``) or in a round with
    no other key holder left (dealt from the seed). Those rounds are stand-in rounds."""


@dataclass(frozen=True, slots=True)
class MaskedOrders:
    """Private dealing: our audit of round ``tag``'s masked decks is complete.

    ``orders``: masked deck -> its card ids in stock order (0: the round's deck);
    ``gen_decks``: stock generation -> its masked deck (None: turned over, public);
    ``faults``: the audit's findings ("KIND by seat N: evidence"), empty when fair."""

    tag: bytes
    orders: Mapping[int, tuple[int, ...]]
    gen_decks: Mapping[int, int | None]
    faults: tuple[str, ...] = ()

    @classmethod
    def from_report(cls, tag: bytes, report: Any, gen_decks: Mapping[int, int | None]) -> MaskedOrders:
        """From an audit report (`rami_lan.masked.audit.AuditReport`): its orders and its
        faults as text."""
        faults = tuple(f"{f.kind.name} by seat {f.seat}: {f.evidence}" for f in report.faults)
        return cls(tag, dict(report.orders), dict(gen_decks), faults)


@dataclass(frozen=True, slots=True)
class MaskedRefused:
    """Private dealing: our seat refused a host message of round ``tag`` (``kind``, why:
    ``reason``): it asked for a key, a reveal or an audit the rules do not give away
    now, or did not fit what we saw. Nothing was given; the round fails naming the host."""

    tag: bytes | None
    kind: str
    reason: str


def audited_refills(cards: Sequence[Card], orders: Mapping[int, Sequence[int]],
                    gen_decks: Mapping[int, int | None]) -> tuple[tuple[Card, ...], ...]:
    """Each refill's order (stock generations 1, 2, ...) from a round's audited masked
    decks, for `start_round`'s ``refills`` (a turned-over generation: empty)."""
    out: list[tuple[Card, ...]] = []
    for gen in range(1, max(gen_decks, default=0) + 1):
        deck = gen_decks.get(gen)
        out.append(tuple(cards[i] for i in orders.get(deck, ())) if deck is not None else ())
    return tuple(out)


Input = (
    CommitAsked | CommitSent | CommitmentsSeen | RevealSent | EventsSeen | ViewSeen
    | ActionSent | Refused | SecretsSeen | Disconnected | StreamEnded | MaskedOrders
    | MaskedRoundSeen | MaskedRefused | SeatBenched
)


# --------------------------------------------------------------------------- outputs


class Status(StrEnum):
    """Fairness state of one round."""

    PENDING = "pending"
    CHECKED = "checked"
    PARTIAL = "partial"
    UNCHECKED = "unchecked"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class Finding:
    """One disagreement between what the host sent and what the rules and the spec give.

    ``code`` is a stable short name (tests, evidence), ``reason`` an English sentence,
    ``expected``/``seen`` the derived and the host's values when they are simple.
    """

    round_no: int | None
    code: str
    reason: str
    expected: Any = None
    seen: Any = None

    def text(self) -> str:
        where = f"round {self.round_no}: " if self.round_no is not None else ""
        return where + self.reason


@dataclass(frozen=True, slots=True)
class RoundFairness:
    """The fairness state of one round, for the UI, the bot summary and the evidence."""

    round_no: int
    tag: bytes
    status: Status
    reason: str = ""
    cards_checked: int = 0
    events_checked: int = 0
    findings: tuple[Finding, ...] = ()
    excluded: tuple[tuple[int, str], ...] = ()
    """Seats whose secret the host announced it would not use, with the reason code."""
    void: tuple[int | None, str] | None = None
    """A void round: the seat it names and the event's reason code (``player_gone``: it
    left; ``no_answer``: it missed a deadline), else None."""
    withheld: tuple[int, ...] = ()
    """Participants that withheld their masked-deck audit: the round's deck order can not
    be recomputed, so its cards are not checked (their fault, neither the host's nor ours)."""

    @property
    def ok(self) -> bool:
        return self.status is Status.CHECKED


# --------------------------------------------------------------------------- per round


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


class SeatVerifier:
    """The verifier of one seat (or, with ``seat=OBSERVER``, of a full record)."""

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

    # ---- a relaunched process goes on checking (the seat's checkpoint)

    def checkpoint_key(self) -> tuple[Any, ...]:
        """Changes whenever `checkpoint` would say something new (cheap: compared after
        every input, the checkpoint is written only when this changes)."""
        cur = self._cur
        return (len(self._rounds), self._done_for, self._lost != "",
                None if cur is None else (cur.round_no, cur.started, cur.ended, cur.judged,
                                          str(cur.status), cur.asked, cur.revealed,
                                          len(cur.events) > 1 and isinstance(cur.events[-1], E.RoundEnded)),
                tuple((n, str(r.status)) for n, r in self._rounds.items() if r.judged))

    def checkpoint(self) -> dict[str, Any] | None:
        """What this seat's verifier has established, for a relaunched process of the same
        seat (kept 0600 on the player's disk: `rami_lan.net.seats`): every judged round's
        verdict, the match as checked at the start of the round being played (or after
        the last one) with that round's ``RoundStarted`` (and ``RoundEnded``, once seen),
        and our own commit for it. JSON-able plain data; None when there is nothing a
        relaunch could build on (an observer, continuity already lost, no round yet)."""
        if self.seat == OBSERVER or self._lost:
            return None
        from rami_lan.core.codec import event_to_plain, match_to_plain

        cur = self._cur
        in_round = (cur is not None and cur.started and not cur.voided and cur.start_m is not None
                    and self._done_for != cur.round_no and bool(cur.events)
                    and isinstance(cur.events[0], E.RoundStarted))
        m = cur.start_m if in_round and cur is not None else self._m
        if m is not None and m.round is not None and m.round.phase == "over":
            m = replace(m, round=None)  # between rounds: the last round's end is in the totals
        if m is None or m.round is not None or (m.round_no == 0 and not in_round):
            return None
        done = [[r.round_no, r.tag.hex(), str(f.status), f.reason]
                for r, f in ((r, self._fairness(r)) for _, r in sorted(self._rounds.items()))
                if r.judged and (not in_round or r is not cur) and f.status is not Status.PENDING]
        out: dict[str, Any] = {"v": 1, "seat": self.seat, "match_no": self.facts.match_no,
                               "table_id": self.facts.table_id.hex(), "m": match_to_plain(m),
                               "done": done, "cur": None, "stand_in_from": self._stand_in_from}
        if in_round and cur is not None:
            evs = [cur.events[0]] + [e for e in cur.events[1:] if isinstance(e, E.RoundEnded)][:1]
            out["cur"] = {"round_no": cur.round_no, "tag": cur.tag.hex(),
                          "events": [event_to_plain(e, self.variant) for e in evs],
                          "asked": cur.asked, "revealed": cur.revealed,
                          "commit": None if cur.commit is None else cur.commit.hex(),
                          "secret": None if cur.secret is None else cur.secret.hex(),
                          "status": str(cur.status), "reason": cur.reason, "masked": cur.masked}
        return out

    def restore(self, cp: Any) -> bool:
        """A relaunched process of this seat: go on from ``cp`` (`checkpoint` of the dead
        one), before any input. The rounds it judged keep their verdicts; the match state
        it checked lets every later round be checked in full; the round being played is
        checked as far as a late joiner can (the commit-reveal, its deck against the
        cards seen, our own secret if it was kept), its events before the relaunch being
        unknown ("partly checked: we were relaunched during this round"). A checkpoint
        that is malformed, of another table, seat or match is refused (False)."""
        from rami_lan.core.codec import event_from_plain, match_from_plain

        if self._rounds or self._cur is not None or not isinstance(cp, dict) or cp.get("v") != 1:
            return False
        if (cp.get("seat") != self.seat or cp.get("match_no") != self.facts.match_no
                or cp.get("table_id") != self.facts.table_id.hex()):
            return False
        try:
            m = match_from_plain(cp["m"])
            if m.variant.id != self.variant.id or m.n_seats != self.facts.n_seats or m.round is not None:
                return False
            rounds: dict[int, _Round] = {}
            for no, tag_hex, status, reason in cp.get("done") or ():
                if type(no) is not int or not 1 <= no <= 1000 or no in rounds:
                    return False
                r = _Round(no, bytes.fromhex(tag_hex))
                r.status, r.reason = Status(status), str(reason)[:500]
                r.judged = r.started = r.ended = True
                rounds[no] = r
            cur_plain = cp.get("cur")
            cur = None
            if cur_plain is not None:
                no = cur_plain["round_no"]
                evs = [event_from_plain(e, self.variant) for e in cur_plain["events"]]
                if (type(no) is not int or no in rounds or not evs or not isinstance(evs[0], E.RoundStarted)
                        or evs[0].round_no != no or m.round_no + 1 != no):
                    return False
                cur = _Round(no, bytes.fromhex(cur_plain["tag"]))
                if cur.tag != round_tag(self.facts.table_id, self.facts.match_no, no):
                    return False
                cur.started, cur.start_m, cur.events = True, m, evs
                cur.ended = any(isinstance(e, E.RoundEnded) for e in evs)
                cur.players = tuple(evs[0].players)
                cur.gap = RELAUNCHED
                cur.asked, cur.revealed = bool(cur_plain["asked"]), bool(cur_plain["revealed"])
                cur.masked = bool(cur_plain.get("masked"))
                if cur_plain.get("commit") is not None:
                    cur.commit = bytes.fromhex(cur_plain["commit"])
                if cur_plain.get("secret") is not None:
                    cur.secret = bytes.fromhex(cur_plain["secret"])
                if cur_plain.get("status") == str(Status.FAILED):  # a verdict is never undone
                    cur.status, cur.reason = Status.FAILED, str(cur_plain.get("reason", ""))[:500]
                rounds[no] = cur
            elif max(rounds, default=0) > m.round_no:
                return False
        except (KeyError, TypeError, ValueError, AttributeError, RulesError, IndexError) as exc:
            del exc
            return False
        except Exception:  # noqa: BLE001 - a damaged file must not stop the client
            return False
        self._rounds = rounds
        benched = cp.get("stand_in_from")
        if type(benched) is int and 1 <= benched <= 1000:
            self._stand_in_from = benched
        for r in rounds.values():
            self._tags[r.tag] = r.round_no
        self._m = m
        self._done_for = m.round_no
        if cur is not None:
            self._cur = cur
            self._away |= {cur.round_no, cur.round_no + 1}
        else:
            self._cur = rounds.get(max(rounds)) if rounds else None
            self._between = [_GAP]  # withdrawals we missed show in the next deal
            self._away |= {m.round_no + 1, m.round_no + 2}
        self.relaunched = True
        return True

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
            if isinstance(item, CommitmentsSeen | SecretsSeen | MaskedRoundSeen):
                # a state resend (or a private round's resync) before the first view?
                self._early.append(item)
                return []
            self._first_view = False  # no view first (a record, a simulation): a normal start
            for early in self._pop_early():
                self._safely(_HANDLERS[type(early)], early)
        self._safely(handler, item)
        return self.findings[before:]

    def _safely(self, handler: Any, item: Input) -> None:
        """Run a handler; data that breaks the verifier fails the round (never the client)."""
        try:
            handler(self, item)
        except Exception as exc:  # noqa: BLE001 - hostile data must not stop the session
            r = self._cur or self._open_round(self._next_round_no())
            self._fail(r, "unverifiable", f"the host's data can not be checked ({type(exc).__name__}: "
                       f"{str(exc)[:200]})")

    def feed_all(self, items: Sequence[Input]) -> list[Finding]:
        out: list[Finding] = []
        for item in items:
            out += self.feed(item)
        return out

    # ---- commit-reveal

    def _gone_while_away(self, r: _Round) -> bool:
        """A round with a hole in its log went on (and ended) while we were away."""
        if not r.gap or r.ended:
            return False
        r.ended = True
        self._partial(r, r.gap)
        self._lost = f"round {r.round_no} ended while we were away"
        self._m = None
        return True

    def _close_unjudged(self) -> None:
        """The host moves on to another round: a finished round without secrets fails."""
        prev = self._cur
        if prev is None or not prev.started:
            return
        if self._gone_while_away(prev):
            return
        if prev.gap == RELAUNCHED and prev.status is Status.PENDING:
            # Relaunched after this round's end: its secrets may have gone to the dead
            # process. What we know of it (its start and end) continues the match.
            self._partial(prev, RELAUNCHED)
            self._continue_after(prev)
            return
        if prev.status is Status.PENDING:
            if prev.ended:
                self._fail(prev, "secrets_missing",
                           "the host moved on to the next round without this round's secrets")
            else:
                self._fail(prev, "round_abandoned_silently",
                           "the host moved on to a new round before this one ended")
        self._continue_after(prev)

    def _on_commit_asked(self, msg: CommitAsked) -> None:
        r = self._cur
        if r is not None and r.started and r.ended:
            self._close_unjudged()
            r = self._cur
        if r is not None and r.tag == msg.tag and r.asked and r.commits is None and not r.started:
            return  # a repeated request for the same round (we answer with the same commitment)
        if r is not None and r.started and not r.ended and self._gone_while_away(r):
            r = self._cur
        if r is not None and r.started and not r.ended:
            self._fail(r, "commit_mid_round",
                       "the host asked for a new commitment while the round was being played")
            return
        expected_no = self._next_round_no()
        r = self._open_round(expected_no)
        r.asked = True
        if msg.tag in self._tags and self._tags[msg.tag] != expected_no:
            self._fail(r, "tag_reused",
                       f"the host asked to commit again under the tag of round "
                       f"{self._tags[msg.tag]}: a tag is used for one round only",
                       expected=r.tag.hex(), seen=msg.tag.hex())
        elif msg.tag != r.tag:
            self._fail(r, "tag_wrong",
                       f"the round tag is not the one of table, match {self.facts.match_no} "
                       f"and round {expected_no}", expected=r.tag.hex(), seen=msg.tag.hex())
        elif r.commits is not None:
            self._fail(r, "round_restarted",
                       "the host asked for a second commitment for a round whose commitments "
                       "were already out (a restarted round)")
        if msg.seat != self.seat:
            self._fail(r, "commit_wrong_seat",
                       f"the host asked us to commit for seat {msg.seat}; we sit at seat "
                       f"{self.seat}", expected=self.seat, seen=msg.seat)

    def _on_commit_sent(self, msg: CommitSent) -> None:
        r = self._cur
        if r is None or r.tag != msg.tag:
            return
        r.commit, r.secret = bytes(msg.commit), bytes(msg.secret)
        self._tags[msg.tag] = r.round_no

    def _on_commitments(self, msg: CommitmentsSeen) -> None:
        commits = {int(k): bytes(v) for k, v in msg.commits.items()}
        r = self._cur
        if r is not None and r.started and not r.ended and r.gap and msg.tag != r.tag:
            self._gone_while_away(r)
        if r is not None and r.started and not r.ended:
            if r.commits is None and r.gap and msg.tag == r.tag:
                r.commits = commits  # joined mid-round: the state sent again
                return
            if msg.tag != r.tag or commits != r.commits:
                self._fail(r, "commitments_mid_round",
                           "a new commitment set arrived while the round was being played")
            elif msg.excluded and dict(msg.excluded) != r.announced:
                self._announce(r, msg.excluded)  # late: fails the round
            return  # the same list again (sent after a reconnect)
        known = self._tags.get(msg.tag)
        old = self._rounds.get(known) if known is not None else None
        if old is not None and old.started:
            if old.commits is None and old.gap == RELAUNCHED:
                old.commits = commits  # relaunched after its deal: the state sent again
                return
            if old.commits == commits and (not msg.excluded or dict(msg.excluded) == old.announced):
                return  # the same list again (sent after a reconnect): nothing new
            self._close_unjudged()
            target = self._cur if self._cur is not None and not self._cur.started else None
            target = target or self._open_round(self._next_round_no())
            self._fail(target, "tag_reused",
                       f"a new commitment set arrived under the tag of round {known}: a tag "
                       "is used for one round only")
            return
        if (known is None and (r is None or (not r.started and r.commits is None))
                and self._next_round_no() > 1
                and self._next_round_no() - 1 not in self._rounds
                and msg.tag == round_tag(self.facts.table_id, self.facts.match_no,
                                         self._next_round_no() - 1)):
            return  # the last round's list again, a round over before we (re)joined: not ours to judge
        if r is None or r.tag != msg.tag or r.started:
            self._close_unjudged()
            expected_no = self._next_round_no()
            r = self._cur
            if r is None or r.round_no != expected_no or r.started:
                r = self._open_round(expected_no)
            if msg.tag != r.tag:
                self._fail(r, "tag_wrong",
                           f"the commitments' round tag is not the one of round {r.round_no}",
                           expected=r.tag.hex(), seen=msg.tag.hex())
                return
        if r.commits is not None:
            if commits != r.commits:
                self._fail(r, "round_restarted",
                           "a second, different commitment set for the same round tag "
                           "(a restarted round)")
                return
        else:
            r.commits = commits
            self._tags.setdefault(msg.tag, r.round_no)
            self._check_commit_set(r)
        if msg.excluded:
            self._announce(r, msg.excluded)

    def _check_commit_set(self, r: _Round) -> None:
        commits = r.commits or {}
        if self.facts.host_seat not in commits:
            self._fail(r, "host_not_committed",
                       f"the commitment set lacks the host's own (seat {self.facts.host_seat})")
        if self._no_secret_due() or not self._plays_next():
            return  # an observer, the host's own seat, or a seat out of the match
        if r.round_no in self._away and not r.asked:
            self._partial(r, "we were away when the round was set up: our secret is not in it")
            return
        if not r.asked:
            self._fail(r, "not_asked",
                       "the host never asked us to commit: the seed would be its secret alone")
        elif r.commit is None:
            return
        elif self.seat not in commits:
            self._fail(r, "own_commit_missing", "our commitment is missing from the host's list")
        elif not hmac.compare_digest(commits[self.seat], r.commit):
            self._fail(r, "own_commit_altered",
                       "the commitment listed for our seat is not the one we sent")

    def _announce(self, r: _Round, excluded: Mapping[int, str]) -> None:
        if r.started:
            self._fail(r, "late_exclusion",
                       "an exclusion was announced after the deal: the host could pick the deck")
            return
        for seat, why in excluded.items():
            seat = int(seat)
            if not isinstance(why, str) or not why.strip():
                self._fail(r, "exclusion_without_reason",
                           f"seat {seat} was excluded without a reason")
            if r.commits is not None and seat not in r.commits:
                self._fail(r, "exclusion_unknown_seat",
                           f"seat {seat} was excluded but never committed")
            r.announced[seat] = str(why)
            if seat == self.seat and r.round_no in self._away:
                self._partial(r, f"we were away: the host excluded our secret ({why})")
            elif seat == self.seat:
                self._fail(r, "own_excluded",
                           f"the host excluded our secret ({why}): the deck is not ours too")

    def _on_reveal_sent(self, msg: RevealSent) -> None:
        r = self._cur
        previous = [t for t, s in self._revealed.items() if s == msg.secret and t != msg.tag]
        if msg.tag in self._revealed or previous:
            target = r or self._open_round(self._next_round_no())
            self._fail(target, "secret_revealed_twice", "our secret went out a second time")
        self._revealed[msg.tag] = bytes(msg.secret)
        if r is not None and r.tag == msg.tag:
            r.revealed = True

    # ---- play

    def _on_view(self, msg: ViewSeen) -> None:
        if self._first_view:
            self._first_view = False
            self._join(msg)
        self._check_seq(msg.seq, same_ok=True)

    def _pop_early(self) -> list[Input]:
        early, self._early = self._early, []
        return early

    def _join(self, msg: ViewSeen) -> None:
        """The first view: a match already in progress makes us a late joiner."""
        early = self._pop_early()
        round_no = msg.round_no or 0
        if round_no == 0 and not self._rounds:
            # A rejoin before the first deal: round 1's commit may have been asked of the
            # session we replace (a relaunch after a crash): unchecked if so, not failed.
            self._away.add(1)
        cur = self._cur
        behind = (self.relaunched and self._m is not None and round_no > self._m.round_no
                  and not (cur is not None and cur.round_no == round_no and cur.started))
        if behind:  # relaunched in a round the dead process's checkpoint does not know
            self._lost = f"we were relaunched in round {round_no}"
            self._m = None
            self._base = round_no
            self._away |= {round_no, round_no + 1}
            if msg.phase in ("draw", "play"):
                r = self._open_round(round_no)
                r.started, r.gap = True, RELAUNCHED
                self._tags.setdefault(r.tag, round_no)
        elif round_no >= 1 and self._m is not None and self._m.round_no == 0 and not self._rounds:
            self._lost = f"we joined the match in round {round_no}"
            self._m = None
            self._base = round_no
            self._away |= {round_no, round_no + 1}
            if msg.phase in ("draw", "play"):
                r = self._open_round(round_no)
                r.started, r.gap = True, "we joined during this round"
                self._tags.setdefault(r.tag, round_no)
        for item in early:
            self._safely(_HANDLERS[type(item)], item)

    def _on_events(self, msg: EventsSeen) -> None:
        self._check_seq(msg.seq, same_ok=True)
        # The scoring events come in the same message as RoundEnded; later messages until
        # the next deal are between rounds (withdrawals).
        in_round = self._cur is not None and self._cur.started and not self._cur.ended
        for ev in msg.events:
            if isinstance(ev, E.PlayersEliminated):
                self._out.update(ev.seats)
            if isinstance(ev, E.RoundStarted):
                self._on_round_started(ev)
                in_round = True
                continue
            if isinstance(ev, E.RoundVoided) and not in_round and self._cur is not None \
                    and not self._cur.started and not self._cur.judged:
                self._cur.events.append(ev)  # void before its deal (private dealing)
                self._cur.voided = self._cur.ended = True
                self._cur.void = (ev.seat, ev.reason)
                continue
            if in_round and self._cur is not None:
                r = self._cur
                if r.judged:
                    self._fail(r, "events_after_secrets",
                               "the round went on after its secrets were published")
                    in_round = False
                    continue
                r.events.append(ev)
                self._observe(r, ev)
                if isinstance(ev, E.RoundEnded):
                    r.ended = True
            else:
                self._between.append(ev)

    def _check_seq(self, seq: int | None, *, same_ok: bool) -> None:
        if seq is None:
            return
        last = self._last_seq
        self._last_seq = seq if last is None else max(last, seq)
        if self._disconnected and last is not None:
            # The first numbered message after a reconnect is the state sent again: any
            # change since the last one we saw has events we never received.
            if seq > last:
                self._note_gap()
            self._disconnected = False
            return
        if last is None or seq == last + 1 or (same_ok and seq == last):
            return
        target = self._cur or self._open_round(self._next_round_no())
        self._fail(target, "events_skipped",
                   f"the host's message numbers jumped from {last} to {seq} without a "
                   "disconnect: events were hidden", expected=last + 1, seen=seq)

    def _note_gap(self) -> None:
        self._disconnected = False
        r = self._cur
        if r is not None and r.started and not r.ended:
            r.gap = "events were missed while we were disconnected"
        elif r is None or r.ended:
            # Between rounds: only withdrawals can be missed; they show in the next deal.
            self._between.append(_GAP)

    def _on_round_started(self, ev: E.RoundStarted) -> None:
        self._close_unjudged()
        expected_no = self._next_round_no()
        r = self._cur
        if r is None or r.round_no != expected_no or r.started:
            r = self._open_round(expected_no)
        r.started = True
        self._tags.setdefault(r.tag, r.round_no)
        if self._m is not None:
            self._apply_between(r, ev)
        r.start_m = self._m
        if ev.round_no != expected_no:
            self._fail(r, "round_number", f"the host numbered the round {ev.round_no}",
                       expected=expected_no, seen=ev.round_no)
        self._check_dealt_protocol(r, ev.players)
        self._check_deal(r, ev)
        r.events.append(ev)

    def _check_dealt_protocol(self, r: _Round, players: Sequence[int]) -> None:
        if self._no_secret_due() or self.seat not in players:
            return
        if r.status is Status.FAILED:
            return
        if r.commits is None:
            if self._lost or r.gap or (r.round_no in self._away and not r.asked):
                self._partial(r, "we were away when the round was set up")
                return
            self._fail(r, "dealt_without_commitments",
                       "the round was dealt without a commitment set: the host chose the seed alone")
        elif not r.asked and r.status is not Status.PARTIAL:
            self._fail(r, "not_asked", "the round was dealt without asking us to commit")
        elif r.asked and not r.revealed and r.round_no in self._away:
            self._partial(r, "we were away: the round was dealt without our secret")
        elif r.asked and not r.revealed and r.status is not Status.PARTIAL:
            self._fail(r, "dealt_without_our_secret",
                       "the round was dealt without our secret (we never revealed it)")

    def _check_deal(self, r: _Round, ev: E.RoundStarted) -> None:
        v = self.variant
        m = self._m
        players = tuple(ev.players)
        if m is not None and m.over:
            self._fail(r, "round_after_end", "a round was dealt after the match ended")
        elif m is not None:
            want = m.next_players()
            if players != want:
                self._fail(r, "players", f"the round is dealt to seats {list(players)}, the match "
                           f"gives {list(want)}", expected=list(want), seen=list(players))
            if m.dealer is not None and want:
                dealer = next((s for s in want if s > m.dealer), want[0])
                if ev.dealer != dealer:
                    self._fail(r, "dealer_moved",
                               f"the dealer is seat {ev.dealer}; after seat {m.dealer} the "
                               f"rotation gives seat {dealer}", expected=dealer, seen=ev.dealer)
        if ev.dealer not in players or not 2 <= len(players) <= 4:
            self._fail(r, "dealer_not_playing", f"the dealer {ev.dealer} is not among the players")
            return
        i = players.index(ev.dealer)
        order = players[i + 1:] + players[: i + 1]
        if ev.first_player != order[0]:
            self._fail(r, "first_player", f"seat {ev.first_player} plays first; left of the "
                       f"dealer is seat {order[0]}", expected=order[0], seen=ev.first_player)
        hs = v.cards_per_player(len(players))
        if ev.hand_size != hs:
            self._fail(r, "hand_size", f"hands of {ev.hand_size} cards, the variant deals {hs}",
                       expected=hs, seen=ev.hand_size)
        n = len(players)
        stock = v.deck_size - n * hs - 1
        if ev.stock_size != stock:
            self._fail(r, "stock_size", f"a stock of {ev.stock_size} cards, the deal leaves {stock}",
                       expected=stock, seen=ev.stock_size)
        r.layout = {seat: tuple(k * n + p for k in range(hs)) for p, seat in enumerate(order)}
        r.gen, r.next_pos, r.gen_size, r.gen_stock = 0, n * hs + 1, v.deck_size, None
        r.pile = [ev.first_discard]
        r.players, r.turn, r.first, r.knocker = players, None, order[0], None
        r.table, r.opened = [], set()

    def _observe(self, r: _Round, ev: E.Event) -> None:
        """The online checks of one event of the round in progress."""
        if r.gap:
            return
        self._observe_turn(r, ev)
        if isinstance(ev, E.CardsDealt):
            want = r.layout.get(ev.seat)
            if want is None or ev.seat in r.dealt:
                self._fail(r, "deal_seat", f"cards dealt to seat {ev.seat}, which is not dealt "
                           "in this round (or twice)")
                return
            r.dealt.add(ev.seat)
            if tuple(ev.positions) != want:
                self._fail(r, "deal_positions",
                           f"seat {ev.seat} was dealt from stock positions {list(ev.positions)}, "
                           f"the deal gives {list(want)}", expected=list(want),
                           seen=list(ev.positions))
            if ev.seat == self.seat and (ev.cards is None or len(ev.cards) != len(want)):
                self._fail(r, "deal_count", "our dealt hand does not have the variant's size")
        elif isinstance(ev, E.StockDrawn):
            self._observe_draw(r, ev)
        elif isinstance(ev, E.StockRefilled):
            self._observe_refill(r, ev)
        elif isinstance(ev, E.Discarded):
            r.pile.append(ev.card)
        elif isinstance(ev, E.DiscardTaken):
            depth = ev.depth
            if depth < 1 or depth > len(r.pile) or tuple(r.pile[-depth:]) != tuple(ev.cards):
                self._fail(r, "pile_taken",
                           f"seat {ev.seat} took {_cards(ev.cards)} from the discard pile, whose "
                           f"top {depth} card(s) are {_cards(r.pile[-depth:])}")
                return
            del r.pile[-depth:]
        elif isinstance(ev, E.RoundVoided):
            r.voided = True
            r.ended = True
            r.void = (ev.seat, ev.reason)
        elif isinstance(ev, E.Knocked):
            if not r.pile or r.pile[-1] != ev.card:
                self._fail(r, "pile_knock", f"seat {ev.seat} knocked for {ev.card}, the pile's "
                           f"top is {r.pile[-1] if r.pile else None}")
                return
            r.pile.pop()

    def _observe_turn(self, r: _Round, ev: E.Event) -> None:
        """Whose turn it is, and the public rulings (melds, lay-offs, joker recoveries)."""
        if isinstance(ev, E.TurnStarted):
            if r.knocker is not None:
                want = r.knocker
            elif r.turn is None:
                want = r.first  # left of the dealer
            else:
                want = next((s for s in r.players if s > r.turn), r.players[0])
            if ev.seat != want:
                self._fail(r, "turn_order", f"seat {ev.seat} was given the turn; the rules give "
                           f"seat {want}", expected=want, seen=ev.seat)
            r.turn, r.knocker = ev.seat, None
            return
        if isinstance(ev, E.Knocked):
            if ev.seat == r.turn or ev.seat not in r.players:
                self._fail(r, "knock_turn", f"seat {ev.seat} knocked on its own turn or out of the round")
            r.knocker = ev.seat
            return
        seat = getattr(ev, "seat", None)
        acting = isinstance(ev, E.DiscardTaken | E.Melded | E.LaidOff | E.JokerRecovered | E.Discarded) \
            or (isinstance(ev, E.StockDrawn) and ev.reason != "knock")
        if acting and seat != r.turn:
            self._fail(r, "out_of_turn", f"seat {seat} played ({type(ev).__name__}) during seat "
                       f"{r.turn}'s turn", expected=r.turn, seen=seat)
            return
        if isinstance(ev, E.StockDrawn) and ev.reason == "knock" and seat != r.knocker:
            self._fail(r, "knock_draw", f"seat {seat} drew knock cards without knocking")
        v = self.variant
        try:
            if isinstance(ev, E.DiscardTaken) and ev.depth > 1 and v.discard_draw != "any_depth":
                self._fail(r, "pile_depth", f"seat {ev.seat} took {ev.depth} cards from the pile; "
                           "the variant allows its top card only")
            elif isinstance(ev, E.Melded):
                self._check_melded(r, ev)
            elif isinstance(ev, E.LaidOff):
                self._check_opened(r, ev.seat, "lay off")
                end = None
                if ev.card.is_joker and ev.meld.kind == "run":
                    end = "low" if ev.meld.cards[0] == ev.card else "high"
                new = lay_off(v, r.table[ev.target], ev.card, end)  # type: ignore[arg-type]
                if new != ev.meld:
                    raise RulesError(f"laying {ev.card} off gives {new}, not {ev.meld}")
                r.table[ev.target] = new
            elif isinstance(ev, E.JokerRecovered):
                self._check_opened(r, ev.seat, "take a joker back")
                if v.joker_recovery == "none":
                    raise RulesError("this variant has no joker recovery")
                new, joker = recover_joker(v, r.table[ev.target], ev.cards)
                if (new, joker) != (ev.meld, ev.joker):
                    raise RulesError(f"giving {_cards(ev.cards)} yields {joker} and {new}")
                r.table[ev.target] = new
        except (RulesError, IndexError, ValueError) as exc:
            self._fail(r, "ruling", f"seat {seat}'s {type(ev).__name__} breaks the rules: {exc}")

    def _check_opened(self, r: _Round, seat: int, what: str) -> None:
        if self.variant.requires_opening and seat not in r.opened:
            raise RulesError(f"seat {seat} may not {what} before opening")

    def _check_melded(self, r: _Round, ev: E.Melded) -> None:
        v = self.variant
        if ev.first_index != len(r.table):
            raise RulesError(f"the new melds are numbered from {ev.first_index}, the table has "
                             f"{len(r.table)}")
        for md in ev.melds:
            chk = check_meld(v, md.cards, md.kind, owner=ev.seat)
            if not chk.valid or chk.meld != md:
                raise RulesError(f"{_cards(md.cards)} is not a valid meld ({chk.reason or 'differs'})")
        opening = v.requires_opening and ev.seat not in r.opened
        if ev.opened != opening:
            raise RulesError("the opening flag is wrong")
        points = sum(md.points(v) for md in ev.melds)
        if opening and points < v.open_min_points:
            raise RulesError(f"an opening of {points} points (the variant needs {v.open_min_points})")
        r.opened.add(ev.seat)
        r.table.extend(ev.melds)

    def _observe_draw(self, r: _Round, ev: E.StockDrawn) -> None:
        if ev.reshuffle != r.gen:
            self._fail(r, "draw_generation", f"a card was drawn from stock {ev.reshuffle}; the "
                       f"current stock is number {r.gen}", expected=r.gen, seen=ev.reshuffle)
            return
        if ev.position != r.next_pos:
            self._fail(r, "draw_position",
                       f"a card was drawn from position {ev.position} of stock {r.gen}; its "
                       f"top is position {r.next_pos}", expected=r.next_pos, seen=ev.position)
        elif r.next_pos >= r.gen_size:
            self._fail(r, "draw_past_stock", f"a card was drawn from the empty stock {r.gen}")
        elif r.gen_stock is not None and ev.card is not None:
            want = r.gen_stock[ev.position]
            if ev.card != want:
                self._fail(r, "draw_turned_over",
                           f"we drew {ev.card} from the turned-over pile, whose card at "
                           f"position {ev.position} is {want}", expected=str(want), seen=str(ev.card))
        r.next_pos = ev.position + 1

    def _observe_refill(self, r: _Round, ev: E.StockRefilled) -> None:
        v = self.variant
        if v.stock_rule == "end_round":
            self._fail(r, "refill_forbidden", "the stock was refilled; the variant ends the round")
            return
        if ev.reshuffle != r.gen + 1:
            self._fail(r, "refill_number", f"refill number {ev.reshuffle} after stock {r.gen}",
                       expected=r.gen + 1, seen=ev.reshuffle)
        if r.next_pos < r.gen_size:
            self._fail(r, "refill_early", f"the stock was refilled with {r.gen_size - r.next_pos} "
                       "card(s) still in it")
        pile, top = r.pile[:-1], (r.pile[-1] if r.pile else None)
        if tuple(ev.pile) != tuple(pile):
            kind = "order" if sorted(map(str, ev.pile)) == sorted(map(str, pile)) else "content"
            self._fail(r, f"refill_pile_{kind}",
                       f"the refill took the pile {_cards(ev.pile)}; the discard pile minus its "
                       f"top is {_cards(pile)} (bottom to top)",
                       expected=_cards(pile), seen=_cards(ev.pile))
        if ev.kept != top:
            self._fail(r, "refill_kept", f"the refill kept {ev.kept} on the pile; its top is {top}",
                       expected=str(top), seen=str(ev.kept))
        shuffled = v.stock_rule != "turn_over"
        if ev.shuffled != shuffled:
            self._fail(r, "refill_rule", "the refill was " + ("shuffled" if ev.shuffled else
                       "turned over") + f", the variant {v.id} does the other")
        r.gen = ev.reshuffle
        r.next_pos = 0
        r.gen_size = len(pile)
        r.gen_stock = None if shuffled else turn_over(pile)
        r.pile = [top] if top is not None else []

    # ---- actions and refusals

    def _on_action_sent(self, msg: ActionSent) -> None:
        self._sent[msg.seq] = msg.action
        r = self._cur
        if r is not None and r.started and not r.ended:
            r.sent[msg.seq] = msg.action

    def _on_refused(self, msg: Refused) -> None:
        if msg.code != "illegal" or msg.ref is None:
            return
        action = self._sent.get(msg.ref)
        r = self._cur
        if action is None or r is None or not r.started:
            return
        r.refusals.append((len(r.events), action))
        r.sent.pop(msg.ref, None)

    # ---- end of the round

    def _on_secrets(self, msg: SecretsSeen) -> None:
        r = self._cur
        if r is None or r.tag != msg.tag:
            if r is None or r.status is not Status.PENDING:
                return  # an old round's secrets sent again (after a reconnect)
            self._fail(r, "secrets_tag", "the round's secrets arrived under another round's tag")
            return
        if r.status not in (Status.PENDING, Status.PARTIAL) or r.judged:
            self._continue_after(r)
            return
        if r.masked and r.orders is None and not r.voided:
            r.deferred = msg  # the deck order comes with the masked deck's audit
            return
        r.judged = True
        self._judge(r, msg)
        self._continue_after(r)

    def _judge(self, r: _Round, msg: SecretsSeen) -> None:
        secrets = {int(k): bytes(v) for k, v in msg.secrets.items()}
        commits = r.commits or {}
        excluded = {int(s) for s in msg.excluded}
        if r.commits is None:
            self._fail(r, "no_commitments", "the round's commitments never arrived")
            return
        if excluded != set(r.announced):
            late = sorted(excluded - set(r.announced))
            if late:
                self._fail(r, "late_exclusion",
                           f"seat(s) {late} were excluded without an announcement before the deal")
            missing = sorted(set(r.announced) - excluded)
            if missing:
                self._fail(r, "exclusion_dropped",
                           f"seat(s) {missing} were announced excluded but the end says otherwise")
        if self.seat != OBSERVER and self.seat in excluded and self.seat not in r.announced:
            self._fail(r, "own_excluded", "the host excluded our secret after the deal")
        for seat in sorted(commits.keys() | secrets.keys()):
            c, s = commits.get(seat), secrets.get(seat)
            if s is None:
                if seat not in excluded:
                    self._fail(r, "secret_missing", f"seat {seat} committed but its secret is missing")
                continue
            if seat in excluded:
                self._fail(r, "excluded_secret_used", f"seat {seat} is excluded but its secret is used")
            if c is None:
                self._fail(r, "secret_without_commitment",
                           f"seat {seat} has a secret in the seed but never committed")
            elif len(s) != 32 or not hmac.compare_digest(commitment(r.tag, seat, s), c):
                self._fail(r, "commitment", f"seat {seat}'s secret does not match its commitment")
        if self.facts.host_seat not in secrets:
            self._fail(r, "host_secret_missing", "the host's own secret is missing")
        if self.seat != OBSERVER and r.revealed and r.secret is not None:
            if secrets.get(self.seat) != r.secret:
                self._fail(r, "own_secret_not_used", "the seed does not use our secret")
        if r.status is Status.FAILED or not secrets or any(len(s) != 32 for s in secrets.values()):
            return
        seed = seed_from_secrets(r.tag, secrets)
        if r.voided:  # its commit-reveal is checked above; nothing of its play counts
            r.void_seed = seed
            if r.status is Status.PENDING:
                r.status = Status.CHECKED
                r.reason = _void_reason(r.void)
            return
        if r.withheld:  # no deck order to replay with: the commit-reveal is all we can check
            self._partial(r, _withheld_reason(r.withheld))
            return
        if not r.started:
            r.reason = r.reason or "the round was abandoned before the deal"
            if r.status is Status.PENDING:
                r.status = Status.CHECKED
            return
        if r.gap or r.start_m is None:  # a hole in the log, or the match before it unknown
            self._check_seen_cards(r, seed)
            self._partial(r, r.gap or self._lost)
            return
        self._replay(r, seed)

    def _on_masked_round(self, msg: MaskedRoundSeen) -> None:
        self._masked_tags.add(bytes(msg.tag))  # (a round opened later learns it: `_open_round`)
        if msg.stand_in and self.seat != self.facts.host_seat:
            self._stand_in_tags.add(bytes(msg.tag))
        r = next((x for x in self._rounds.values() if x.tag == msg.tag), None)
        if r is not None:
            r.masked = True
            r.stand_in = r.stand_in or bytes(msg.tag) in self._stand_in_tags

    def _on_benched(self, msg: SeatBenched) -> None:
        """Every round from the first one not dealt yet is a stand-in round."""
        cur = self._cur
        first = 1 if cur is None else cur.round_no + (1 if cur.started else 0)
        self._stand_in_from = min(self._stand_in_from or first, first)
        for r in self._rounds.values():
            if r.round_no >= first:
                r.stand_in = True

    def _on_masked_orders(self, msg: MaskedOrders) -> None:
        r = next((x for x in self._rounds.values() if x.tag == msg.tag), None)
        if r is None or r.orders is not None:
            return
        r.masked = True
        n = self.variant.deck_size
        if r.voided:  # a participant is gone: its audit is missing, the rest must be right
            faults = tuple(f for f in msg.faults if not f.startswith("MISSING_AUDIT"))
            if faults:
                self._fail(r, "masked_audit", "the masked deck's audit found: " + "; ".join(faults[:4]))
            r.orders = {}
            return
        withheld = _withheld(msg.faults, self.facts.host_seat)
        faults = tuple(f for f in msg.faults if _withheld((f,), self.facts.host_seat) == ())
        whole = 0 in msg.orders and sorted(msg.orders[0]) == list(range(n))
        if whole:
            r.orders = {int(k): tuple(v) for k, v in msg.orders.items()}
            r.gen_decks = dict(msg.gen_decks)
        elif withheld and not faults:
            # Another participant withheld its audit (the host closed it at its deadline,
            # naming it): without its secrets nobody can recompute the deck. Not the
            # host's fault nor ours: the round is partly checked, the culprit named.
            r.withheld = withheld
            r.orders = {}
            self._partial(r, _withheld_reason(withheld))
        else:
            self._fail(r, "masked_audit", "the masked deck's audit gives no whole deck order")
            r.orders = {}
        if faults:
            self._fail(r, "masked_audit", "the masked deck's audit found: " + "; ".join(faults[:4]))
        deferred, r.deferred = r.deferred, None
        if deferred is not None:
            self._on_secrets(deferred)

    def _deck(self, r: _Round, seed: bytes) -> list[Card]:
        """The round's deck: from the masked deck's audit, else from the seed."""
        cards = _cards_by_id(self.variant)
        if r.orders:
            return [cards[i] for i in r.orders[0]]
        return [cards[i] for i in deck_order(seed, len(cards))]

    def _refills(self, r: _Round) -> tuple[tuple[Card, ...], ...] | None:
        """Refill orders from the masked deck's audit (None: shuffled from the seed)."""
        if not r.orders:
            return None
        return audited_refills(_cards_by_id(self.variant), r.orders, r.gen_decks)

    def _check_seen_cards(self, r: _Round, seed: bytes) -> None:
        """A round with a hole in its log: check the cards seen in the original deck."""
        if r.masked and not r.orders:
            return  # a private round's deck is not the seed's: without its audited order, no cards
        deck = self._deck(r, seed)
        seen: list[tuple[int, Card]] = []
        for ev in r.events:
            if isinstance(ev, E.RoundStarted):
                seen.append((len(ev.players) * ev.hand_size, ev.first_discard))
            elif isinstance(ev, E.CardsDealt) and ev.cards is not None:
                seen += list(zip(ev.positions, ev.cards, strict=False))
            elif isinstance(ev, E.StockDrawn) and ev.card is not None and ev.reshuffle == 0:
                seen.append((ev.position, ev.card))
        for pos, card in seen:
            want = deck[pos] if 0 <= pos < len(deck) else None
            if card != want:
                self._fail(r, "replay_card", f"the card at stock position {pos} is {want}, the "
                           f"host gave {card}", expected=str(want), seen=str(card))
                return
        r.cards_checked = len(seen)

    def _replay(self, r: _Round, seed: bytes) -> None:
        deck = self._deck(r, seed)
        m0 = r.start_m
        assert m0 is not None
        got = r.events
        m, produced = start_round(m0, deck, seed, refills=self._refills(r))
        at = self._compare(r, produced, got, 0, "the deal")
        if at < 0:
            return
        refusals = sorted(r.refusals, key=lambda x: x[0])
        own = dict(sorted(r.sent.items()))
        if r.stand_in:
            # Out of the private deal: the host's bot plays our seat (its moves are not
            # ours) and refuses what we send. Every move is still checked against the rules.
            refusals, own = [], {}
        while at < len(got):
            for pos, act in refusals:
                if pos == at and is_legal(m, act):
                    self._fail(r, "refusal", f"the host refused our legal action {_act(act)}")
                    return
            if m.round is None or m.round.phase == "over":
                self._fail(r, "events_after_end",
                           f"the host sent {type(got[at]).__name__} after the round's end")
                return
            action = _infer(got, at, m)
            if action is None:
                self._fail(r, "event_unexpected",
                           f"the host sent {type(got[at]).__name__} where a player's action was due")
                return
            if (getattr(action, "seat", None) == self.seat and not isinstance(action, A.Timeout)
                    and not r.stand_in):
                key = _action_key(action)
                seq = next((q for q, a in own.items() if _action_key(a) == key), None)
                if seq is None:
                    self._fail(r, "own_action_changed",
                               f"the host played {_act(action)} ({key}) for our seat; we never "
                               "asked for it")
                    return
                del own[seq]
            try:
                m, produced = apply(m, action)
            except IllegalAction as exc:
                self._fail(r, "illegal_accepted",
                           f"the host accepted an illegal action {_act(action)}: {exc}")
                return
            at = self._compare(r, produced, got, at, _act(action))
            if at < 0:
                return
        for pos, act in refusals:
            if pos >= at and is_legal(m, act):
                self._fail(r, "refusal", f"the host refused our legal action {_act(act)}")
                return
        if r.ended and (m.round is None or m.round.phase != "over"):
            self._fail(r, "end_unexplained", "the host ended the round; the rules do not")
            return
        r.events_checked = len(got)
        r.cards_checked = sum(len(h) for _, h in (m.round.result.hands if m.round and m.round.result
                                                  else ())) + _cards_seen(got)
        self._m_after = m
        if r.status is Status.PENDING:
            r.status = Status.CHECKED
            r.reason = (f"{len(got)} events replayed with the rules"
                        + ("" if r.ended else " (round abandoned)"))

    def _compare(self, r: _Round, produced: Sequence[E.Event], got: Sequence[E.Event], at: int,
                 what: str) -> int:
        for k, ev in enumerate(produced):
            mine = ev if self.seat == OBSERVER else ev.for_seat(self.seat)
            if at + k >= len(got):
                if r.ended:
                    self._fail(r, "event_missing",
                               f"after {what} the rules give {_ev(mine)}; the host sent nothing")
                    return -1
                return len(got)
            if got[at + k] != mine:
                seen = got[at + k]
                code, reason, exp, saw = _describe(mine, seen, what)
                self._fail(r, code, reason, expected=exp, seen=saw)
                return -1
        return at + len(produced)

    # ---- continuity

    def _continue_after(self, r: _Round) -> None:
        """The match state after round ``r``: the replayed one, else the host's claims."""
        if self._done_for == r.round_no:
            return
        self._done_for = r.round_no
        if r.voided:  # the match as before the round, with its number and dealer used
            started = next((e for e in r.events if isinstance(e, E.RoundStarted)), None)
            self._m_after = None
            m0 = r.start_m if r.start_m is not None else self._m
            if started is None and m0 is not None and r.void_seed is not None:
                # void before its deal: its dealer is the one the seed and rotation give
                m1, _evs = start_round(m0, list(_cards_by_id(self.variant)), r.void_seed)
                self._m = replace(m1, round=None)
            else:
                self._m = (None if m0 is None or started is None else
                           replace(m0, round_no=started.round_no, dealer=started.dealer))
            if self._m is None:
                self._lost = f"round {r.round_no} was void before we saw its deal"
            return
        m_after, self._m_after = self._m_after, None
        if m_after is not None:
            self._m = m_after
            return
        m0 = r.start_m
        if m0 is None or not r.started:
            return
        claim = next((e for e in r.events if isinstance(e, E.RoundEnded)), None)
        started = r.events[0] if r.events and isinstance(r.events[0], E.RoundStarted) else None
        if claim is None or started is None:
            self._lost = f"round {r.round_no} was not seen to its end"
            self._m = None
            return
        self._m = _claimed_after(m0, started, claim)

    def _apply_between(self, r: _Round, ev: E.RoundStarted) -> None:
        m = self._m
        assert m is not None
        gap = _GAP in self._between
        for item in self._between:
            if isinstance(item, E.PlayersEliminated) and m.phase in ("between", "waiting"):
                for seat in item.seats:
                    try:
                        m, _evs = withdraw(m, seat)
                    except IllegalAction as exc:
                        self._fail(r, "withdrawal", f"seat {seat} can not leave now: {exc}")
        if gap:  # withdrawals we may have missed show in the deal
            for seat in m.next_players():
                if seat not in ev.players and m.phase in ("between", "waiting"):
                    m, _evs = withdraw(m, seat)
        self._between = []
        self._m = m

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


_GAP = object()

RELAUNCHED = "we were relaunched during this round: its events before that are not known to us"
"""The reason of the round a relaunched seat came back in (checked as far as it can be)."""

_MISSING_AUDIT = "MISSING_AUDIT by seat "


def _withheld(faults: Sequence[str], host_seat: int) -> tuple[int, ...]:
    """The participants an audit names for a missing publication (``MISSING_AUDIT by seat
    N: ...``), the host's own seat left out: a host that withholds its own audit is not
    excused (its round fails, naming it)."""
    seats = set()
    for f in faults:
        if f.startswith(_MISSING_AUDIT):
            head = f[len(_MISSING_AUDIT):].split(":", 1)[0]
            if head.isdigit() and int(head) != host_seat:
                seats.add(int(head))
    return tuple(sorted(seats))


def _withheld_reason(seats: Sequence[int]) -> str:
    """The round's reason (fixed words, translated; the seats are in ``withheld``)."""
    return ("a participant withheld its masked-deck audit: this round's deck order can not be "
            "recomputed, so its cards are not checked (the seed's commit-reveal is)")


def _void_reason(void: tuple[int | None, str] | None) -> str:
    """A void round's reason (fixed words, translated; the seat is in ``void``)."""
    if void is not None and void[1] == "no_answer":
        return "the round was void (a player missed a deadline): no score, nothing to replay"
    return "the round was void (a player was gone): no score, nothing to replay"


def _on_masked_refused(self: SeatVerifier, msg: MaskedRefused) -> None:
    r = self._rounds.get(self._tags[msg.tag]) if msg.tag in self._tags else None
    r = r or self._cur or self._open_round(self._next_round_no())
    self._fail(r, "masked_refused", f"the host's {msg.kind} asked this seat for what the rules do "
               f"not give away now, or did not fit the game we saw: {msg.reason}; nothing was given",
               seen=msg.kind)


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
    MaskedRefused: _on_masked_refused,
    SeatBenched: SeatVerifier._on_benched,
}


# --------------------------------------------------------------------------- replay helpers


@lru_cache(maxsize=8)
def _cards_by_id(v: Variant) -> tuple[Card, ...]:
    """Every card of the variant, indexed by its FAIR_SHUFFLE.md id."""
    return tuple(card_from_id(i, v.n_decks, v.n_jokers) for i in range(v.deck_size))


def _infer(got: Sequence[E.Event], at: int, m: MatchState) -> A.Action | None:
    """The action that caused the events from ``got[at]`` (the first event names it)."""
    ev = got[at]
    if isinstance(ev, E.TimedOut):
        return A.Timeout(ev.seat)
    if isinstance(ev, E.StockRefilled):
        nxt = got[at + 1] if at + 1 < len(got) else None
        if isinstance(nxt, E.StockDrawn) and nxt.reason == "draw":
            return A.DrawStock(nxt.seat)
        return None
    if isinstance(ev, E.StockDrawn) and ev.reason == "draw":
        return A.DrawStock(ev.seat)
    if isinstance(ev, E.DiscardTaken):
        return A.DrawDiscard(ev.seat, ev.depth)
    if isinstance(ev, E.Melded):
        return A.LayDown(ev.seat, tuple(A.MeldSpec(md.cards, md.kind) for md in ev.melds))
    if isinstance(ev, E.LaidOff):
        end = None
        if ev.card.is_joker and ev.meld.kind == "run":
            end = "low" if ev.meld.cards[0] == ev.card else "high"
        return A.LayOff(ev.seat, ev.card, ev.target, end)  # type: ignore[arg-type]
    if isinstance(ev, E.JokerRecovered):
        return A.RecoverJoker(ev.seat, ev.target, ev.cards)
    if isinstance(ev, E.Discarded):
        return A.Discard(ev.seat, ev.card)
    if isinstance(ev, E.Knocked):
        return A.Knock(ev.seat)
    return None


def _action_key(action: A.Action) -> tuple[Any, ...]:
    """What identifies a move whatever the order its cards were given in."""
    if isinstance(action, A.LayDown):
        return ("lay_down", sorted(tuple(sorted(map(repr, md.cards))) for md in action.melds))
    if isinstance(action, A.LayOff):
        return ("lay_off", repr(action.card), action.target)
    if isinstance(action, A.RecoverJoker):
        return ("recover", action.target, tuple(sorted(map(repr, action.cards))))
    if isinstance(action, A.Discard):
        return ("discard", repr(action.card))
    if isinstance(action, A.DrawDiscard):
        return ("draw_discard", action.depth)
    return (type(action).__name__,)


def _claimed_after(m0: MatchState, started: E.RoundStarted, claim: E.RoundEnded) -> MatchState:
    """The match after a round we could not replay, from the host's public claims."""
    from rami_lan.core import match as M

    m = M._evolve(m0, round=None, round_no=m0.round_no + 1, dealer=started.dealer)
    m, _evs = M._score_round(m, claim)
    return m


def _cards_seen(events: Sequence[E.Event]) -> int:
    n = 0
    for ev in events:
        if isinstance(ev, E.CardsDealt) and ev.cards is not None:
            n += len(ev.cards)
        elif isinstance(ev, E.StockDrawn) and ev.card is not None:
            n += 1
        elif isinstance(ev, E.RoundStarted | E.Discarded):
            n += 1
    return n


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
