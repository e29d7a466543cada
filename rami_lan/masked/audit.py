"""End-of-round audit of the masked deck: recompute every step, name whoever deviated.

At round end each participant publishes, for every deck of the round, its round key,
permutation and position keys (:class:`~rami_lan.masked.messages.AuditPublication`).
With them, anyone holding the public transcript (the broadcast mask and lock outputs
and key commitments) recomputes the chain:

1. ``D_0`` from the public card ids; for each participant ``t_i`` in the deck's order,
   ``r_i * D_{i-1}[perm_i[j]]`` must equal the ``D_i`` it sent — else ``t_i`` mis-masked,
   substituted or duplicated a point (:attr:`FaultKind.BAD_MASK`);
2. ``(k_{i,j} * r_i^-1) * E_{i-1}[j]`` must equal its ``E_i[j]`` (:attr:`FaultKind.BAD_LOCK`),
   and ``k_{i,j}`` must match its commitment (:attr:`FaultKind.BAD_COMMITMENT`);
3. the deck's card order is the card ids permuted by each ``perm_i`` in turn.

:func:`audit_chain` does this for one deck from public data only, and
:func:`audit_transcript` for a whole recorded round (what ``rami-lan verify`` needs).
:func:`audit_view` adds what one participant alone can check: the keys it received
privately, the cards it drew and saw revealed, and the key messages each participant
says it sent against those that reached it (a release its sender does not list names
that participant; one it lists that never came names the relay, ``DROPPED``, only with
the relay's own signed receipt saying it relays it to us, in the sender's audit; without
one it is an unproven claim, `AuditReport.claims`: the sender's word alone names nobody,
so a participant can not frame the relay).

Every check compares each participant's step against the data as it was received:
one cheater's deviation is charged to that cheater only, and later honest steps
(which worked on the bad data faithfully) are not blamed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from rami_lan.masked.deck import initial_points, key_commitment, permute_ids
from rami_lan.masked.group import card_point, invert, mul_many, scalar_mul, scalar_product
from rami_lan.masked.messages import (
    AuditPublication,
    CardReveal,
    DeckSecretsRecord,
    Handover,
    KeyRelease,
    LockPass,
    MaskedMessage,
    MaskPass,
)
from rami_lan.masked.signing import Receipt

__all__ = [
    "AuditReport",
    "DeckRecord",
    "Fault",
    "FaultKind",
    "PartialSecrets",
    "ReceivedKey",
    "ViewRecord",
    "audit_chain",
    "audit_transcript",
    "audit_view",
]

#: How many bad positions a fault lists as evidence (the count is always given).
_EVIDENCE_POSITIONS = 4


class FaultKind(StrEnum):
    """What a participant (or the relay) did wrong."""

    BAD_MASK = "mask pass output does not follow from its round key and permutation"
    BAD_LOCK = "lock pass output does not follow from its round key and position keys"
    BAD_COMMITMENT = "a published position key does not match its commitment"
    BAD_POINT = "a shuffle output holds a value that is not a point of the group"
    DUPLICATE_POINT = "a shuffle output holds the same point twice"
    SKIPPED_STEP = "a shuffle output reuses input points: the step was skipped"
    WRONG_KEY = "a released key does not match its commitment"
    BAD_REVEAL = "a card reveal carries a wrong key"
    NOT_A_CARD = "a position's keys do not unmask to a card"
    DUPLICATE_CARD = "a card showed up twice"
    WITHHELD = "a key that had to be released was never sent"
    DROPPED = "a key message was sent but never delivered by the relay"
    MISSING_AUDIT = "no audit publication"
    FALSE_CLAIM = "an audit lists a message its sender never sent (the relay's log)"
    BAD_SECRETS = "audit publication does not fit the deck"
    DEAL_MISMATCH = "a card seen in play differs from the recomputed deck"


@dataclass(frozen=True, slots=True)
class Fault:
    """One deviation: who (``seat``; None when only the audit can tell), what, and the evidence."""

    kind: FaultKind
    seat: int | None
    deck: int | None
    evidence: str
    positions: tuple[int, ...] = ()

    def to_plain(self) -> dict[str, object]:
        return {
            "kind": self.kind.name,
            "seat": self.seat,
            "deck": self.deck,
            "evidence": self.evidence,
            "positions": list(self.positions),
        }

    @classmethod
    def from_plain(cls, plain: Mapping[str, object]) -> Fault:
        """Rebuild a fault from :meth:`to_plain` (a participant's own journal)."""
        seat, deck, positions = plain["seat"], plain["deck"], plain["positions"]
        if not (seat is None or isinstance(seat, int)) or not (deck is None or isinstance(deck, int)):
            raise ValueError("a fault's seat and deck are ints or None")
        if not isinstance(positions, list) or not all(isinstance(j, int) for j in positions):
            raise ValueError("a fault's positions are a list of ints")
        return cls(FaultKind[str(plain["kind"])], seat, deck, str(plain["evidence"]), tuple(positions))


@dataclass(frozen=True, slots=True)
class DeckRecord:
    """The public transcript of one deck: who shuffled, the cards, every output."""

    deck: int
    order: tuple[int, ...]
    card_ids: tuple[int, ...]
    masks: tuple[tuple[bytes, ...], ...]
    locks: tuple[tuple[bytes, ...], ...]
    commitments: tuple[tuple[bytes, ...], ...]


@dataclass(frozen=True, slots=True)
class ReceivedKey:
    """A key message as it reached this participant."""

    kind: str
    deck: int
    position: int
    sender: int


@dataclass(frozen=True, slots=True)
class ViewRecord:
    """What one participant saw beyond the public transcript."""

    seat: int
    relay: int
    tag: bytes
    decks: tuple[DeckRecord, ...]
    #: (deck, position) -> recipient participant (None: public) of every assignment.
    recipients: Mapping[tuple[int, int], int | None]
    #: (deck, position) -> card id, for every card this participant learnt in play.
    cards_seen: Mapping[tuple[int, int], int]
    received: frozenset[ReceivedKey]
    #: Seats that handed their stock keys over and left.
    left: frozenset[int]
    #: deck -> leaver seat -> what is known of its secrets.
    leavers: Mapping[int, Mapping[int, PartialSecrets]] = field(default_factory=dict)
    #: Whether a receipt is signed by the round's host (None: the round is not signed).
    receipt_ok: Callable[[Receipt], bool] | None = None


@dataclass(frozen=True, slots=True)
class AuditReport:
    """The outcome of an audit: the faults (empty: fair) and each deck's card order."""

    faults: tuple[Fault, ...]
    orders: Mapping[int, tuple[int, ...]] = field(default_factory=dict)
    claims: tuple[str, ...] = ()
    """Unproven claims: a participant's audit says it sent a message that never reached
    us. Its word alone proves nothing against anyone (it may lie to frame the relay, or
    the relay may have dropped it): noted, never a fault (docs/masked_deck.md)."""

    @property
    def fair(self) -> bool:
        return not self.faults

    @property
    def named(self) -> frozenset[int]:
        """Every seat named by a fault."""
        return frozenset(f.seat for f in self.faults if f.seat is not None)


def _diff(expected: Sequence[bytes | None], seen: Sequence[bytes]) -> list[int]:
    """Positions where a step's output differs from what its input and secrets give.

    A position whose input was not a point (``None``) is not charged to this step: the
    step that sent that value is (its own expected output is a point).
    """
    return [j for j, (a, b) in enumerate(zip(expected, seen, strict=True)) if a is not None and a != b]


def _final_holds(
    tag: bytes, record: DeckRecord, steps: Mapping[int, PartialSecrets]
) -> tuple[int, ...] | None:
    """The deck's order if both passes' last outputs are what every secret gives, else None.

    For every position, with the order from the permutations:
    ``D_m[j] = (prod_i r_i) * P(card at j)`` and ``E_m[j] = (prod_i k_{i,j}) * P(card at j)``,
    and every position key matches its commitment. Then play used exactly the deck an
    honest shuffle with these secrets makes, and one participant's wrong secret (or step)
    can not pass unless another's makes up for it exactly. Two multiplications per
    position instead of two per participant and position: the chain is recomputed only
    when this fails, to name who deviated.
    """
    n = len(record.card_ids)
    if any(len(steps[s].keys) != n for s in record.order):
        return None  # a leaver's keys are partly unknown: the chain checks what it can
    order = permute_ids(record.card_ids, [steps[s].permutation for s in record.order])
    masked, final = record.masks[-1], record.locks[-1]
    round_keys = scalar_product([steps[s].round_key for s in record.order])
    pairs: list[tuple[bytes, bytes]] = []
    for j, card in enumerate(order):
        point = card_point(card)
        pairs.append((scalar_product([steps[s].keys[j] for s in record.order]), point))
        pairs.append((round_keys, point))
    if mul_many(pairs, strict=False) != [p for j in range(n) for p in (final[j], masked[j])]:
        return None
    for i, seat in enumerate(record.order):
        own, commitments = steps[seat].keys, record.commitments[i]
        if any(key_commitment(tag, record.deck, seat, j, own[j]) != commitments[j] for j in range(n)):
            return None
    return order


def _evidence(what: str, positions: list[int], expected: Sequence[bytes], seen: Sequence[bytes]) -> str:
    shown = ", ".join(
        f"position {j}: expected {expected[j].hex()}, sent {seen[j].hex()}"
        for j in positions[:_EVIDENCE_POSITIONS]
    )
    return f"{what}: {len(positions)} position(s) differ ({shown})"


def _fit(record: DeckRecord, seat: int, secrets: DeckSecretsRecord | None) -> Fault | None:
    n = len(record.card_ids)
    if secrets is None:
        return Fault(FaultKind.BAD_SECRETS, seat, record.deck, f"no secrets published for deck {record.deck}")
    if len(secrets.permutation) != n or len(secrets.position_keys) != n:
        return Fault(
            FaultKind.BAD_SECRETS,
            seat,
            record.deck,
            f"secrets for {len(secrets.permutation)} positions, the deck has {n}",
        )
    return None


@dataclass(frozen=True, slots=True)
class PartialSecrets:
    """What is known of a participant that left: round key, permutation, some keys.

    The keys are those the auditor holds for it: its handed-over stock keys, keys it
    released to the auditor, and keys published in reveals. Its mask pass is checked in
    full, its lock pass at those positions.
    """

    round_key: bytes
    permutation: tuple[int, ...]
    keys: Mapping[int, bytes]


def audit_chain(
    tag: bytes,
    record: DeckRecord,
    secrets: Mapping[int, DeckSecretsRecord],
    *,
    unverifiable: frozenset[int] = frozenset(),
    partial: Mapping[int, PartialSecrets] | None = None,
    every_step: bool = False,
) -> tuple[list[Fault], tuple[int, ...] | None]:
    """Recompute one deck from its public transcript and the published secrets.

    Returns the faults and the deck's card order (None when a participant's secrets
    are missing or unusable, so the order can not be recomputed). Seats in
    ``unverifiable`` (they left, or never published) are not blamed for missing
    secrets; ``partial`` gives what is known of participants that left.

    By default the last outputs of both passes are checked first (`_final_holds`: the
    deck played is the one the secrets give) and the chain is recomputed only to name
    who deviated. ``every_step=True`` recomputes every mask and lock step against the
    output it was sent as, as ``rami-lan verify`` does: a recorded transcript whose
    intermediate step was edited (while its last outputs were left alone) is a fault
    of that step's participant, not a deck that "checks".
    """
    faults: list[Fault] = []
    n, m = len(record.card_ids), len(record.order)
    steps: dict[int, PartialSecrets] = {}
    for seat in record.order:
        problem = _fit(record, seat, secrets.get(seat))
        known = (partial or {}).get(seat)
        if problem is None:
            full = secrets[seat]
            steps[seat] = PartialSecrets(
                full.round_key, full.permutation, dict(enumerate(full.position_keys))
            )
        elif known is not None and len(known.permutation) == n:
            steps[seat] = known
        elif seat not in unverifiable:
            faults.append(problem)
    if not every_step and not faults and len(record.masks) == len(record.locks) == len(steps) == m:
        order = _final_holds(tag, record, steps)
        if order is not None:
            return faults, order
    # A deck whose shuffle was stopped (a refused step) is checked as far as it went.
    previous = initial_points(record.card_ids)
    for i, seat in enumerate(record.order[: len(record.masks)]):
        own = steps.get(seat)
        if own is not None:
            expected = mul_many(((own.round_key, previous[k]) for k in own.permutation), strict=False)
            bad = _diff(expected, record.masks[i])
            if bad:
                what = f"seat {seat}, mask pass of deck {record.deck}"
                evidence = _evidence(what, bad, expected, record.masks[i])
                faults.append(Fault(FaultKind.BAD_MASK, seat, record.deck, evidence, tuple(bad)))
        previous = record.masks[i]
    for i, seat in enumerate(record.order[: len(record.locks)]):
        own = steps.get(seat)
        if own is not None:
            faults += _check_lock(tag, record, i, seat, own, previous)
        previous = record.locks[i]
    if len(steps) != m or len(record.locks) != m:
        return faults, None
    order = permute_ids(record.card_ids, [steps[s].permutation for s in record.order])
    return faults, order


def _check_lock(
    tag: bytes, record: DeckRecord, i: int, seat: int, own: PartialSecrets, previous: Sequence[bytes]
) -> list[Fault]:
    """The lock pass at every position whose key is known (all, for a full publication)."""
    faults: list[Fault] = []
    inverse = invert(own.round_key)
    positions = sorted(own.keys)
    expected = dict(zip(positions, mul_many(
        ((scalar_mul(own.keys[j], inverse), previous[j]) for j in positions), strict=False), strict=True))
    bad = [j for j in positions if expected[j] is not None and expected[j] != record.locks[i][j]]
    if bad:
        shown = ", ".join(
            f"position {j}: expected {expected[j].hex()}, sent {record.locks[i][j].hex()}"
            for j in bad[:_EVIDENCE_POSITIONS]
        )
        evidence = f"seat {seat}, lock pass of deck {record.deck}: {len(bad)} position(s) differ ({shown})"
        faults.append(Fault(FaultKind.BAD_LOCK, seat, record.deck, evidence, tuple(bad)))
    wrong = [
        j
        for j in positions
        if key_commitment(tag, record.deck, seat, j, own.keys[j]) != record.commitments[i][j]
    ]
    if wrong:
        faults.append(
            Fault(
                FaultKind.BAD_COMMITMENT,
                seat,
                record.deck,
                f"seat {seat}: {len(wrong)} published key(s) of deck {record.deck} do not match "
                f"the commitments sent with its lock pass (positions {wrong[:_EVIDENCE_POSITIONS]})",
                tuple(wrong),
            )
        )
    return faults


def audit_view(
    view: ViewRecord,
    publications: Mapping[int, AuditPublication],
    runtime_faults: Sequence[Fault] = (),
) -> AuditReport:
    """The full audit from one participant's records; see the module docstring."""
    faults = list(runtime_faults)
    participants = sorted({s for d in view.decks for s in d.order})
    for seat in participants:
        if seat not in publications and seat not in view.left:
            faults.append(Fault(FaultKind.MISSING_AUDIT, seat, None, f"seat {seat} published no audit"))
    orders: dict[int, tuple[int, ...]] = {}
    for record in view.decks:
        secrets = {seat: d for seat, pub in publications.items() for d in pub.decks if d.deck == record.deck}
        missing = frozenset(s for s in record.order if s not in publications)
        deck_faults, order = audit_chain(
            view.tag, record, secrets, unverifiable=view.left | missing, partial=view.leavers.get(record.deck)
        )
        faults += deck_faults
        if order is not None:
            orders[record.deck] = order
    faults += _check_cards(view, orders)
    delivery, claims = _check_delivery(view, publications)
    faults += delivery
    return AuditReport(tuple(_unique(faults)), orders, tuple(claims))


def audit_transcript(
    tag: bytes,
    decks: Sequence[tuple[int, Sequence[int], Sequence[int]]],
    messages: Sequence[MaskedMessage],
    *,
    every_step: bool = False,
) -> AuditReport:
    """Audit a round from its public record alone (what ``rami-lan verify`` needs).

    ``decks`` lists each deck as ``(deck, card_ids, participants in order)``, known from
    the public game; ``messages`` are the broadcast masked-deck messages in the order the
    record holds them (``mk_mask``, ``mk_lock``, ``mk_reveal``, ``mk_handover``,
    ``mk_audit``; private ``mk_key`` ones are not needed). A step recorded out of turn
    or twice is reported, not used. A participant that left is checked from its
    hand-over (round key, permutation, stock keys) and the keys revealed in play.

    ``every_step=True`` (``rami-lan verify``) recomputes every mask and lock step (see
    :func:`audit_chain`) and checks every key the transcript carries against the
    commitment its owner sent with its lock pass: each key of a card reveal
    (:attr:`FaultKind.BAD_REVEAL`, naming the revealer) and of a hand-over
    (:attr:`FaultKind.WRONG_KEY`, naming the leaver).
    """
    masks: dict[int, list[tuple[bytes, ...]]] = {d: [] for d, _, _ in decks}
    locks: dict[int, list[tuple[bytes, ...]]] = {d: [] for d, _, _ in decks}
    commits: dict[int, list[tuple[bytes, ...]]] = {d: [] for d, _, _ in decks}
    orders_in = {d: tuple(order) for d, _, order in decks}
    publications: dict[int, AuditPublication] = {}
    handovers: dict[int, Handover] = {}
    public_keys: dict[tuple[int, int], dict[int, bytes]] = {}
    faults: list[Fault] = []
    for msg in messages:
        if isinstance(msg, MaskPass | LockPass) and msg.deck in orders_in:
            order = orders_in[msg.deck]
            done = masks[msg.deck] if isinstance(msg, MaskPass) else locks[msg.deck]
            turn = len(done) < len(order) and order[len(done)] == msg.seat
            if isinstance(msg, LockPass):
                turn = turn and len(masks[msg.deck]) == len(order)
            if not turn:
                faults.append(
                    Fault(FaultKind.BAD_SECRETS, msg.seat, msg.deck, f"seat {msg.seat}: a step out of turn")
                )
                continue
            done.append(msg.points)
            if isinstance(msg, LockPass):
                commits[msg.deck].append(msg.commitments)
        elif isinstance(msg, AuditPublication):
            publications.setdefault(msg.seat, msg)
        elif isinstance(msg, Handover):
            handovers.setdefault(msg.seat, msg)
        elif isinstance(msg, CardReveal):
            for seat, key in msg.keys:
                public_keys.setdefault((msg.deck, seat), {})[msg.position] = key
    if every_step:
        faults += _check_transcript_keys(tag, orders_in, commits, messages)
    everyone = sorted({s for order in orders_in.values() for s in order})
    faults += [
        Fault(FaultKind.MISSING_AUDIT, s, None, f"seat {s} published no audit")
        for s in everyone
        if s not in publications and s not in handovers
    ]
    orders: dict[int, tuple[int, ...]] = {}
    for deck, card_ids, order in decks:
        record = DeckRecord(
            deck,
            tuple(order),
            tuple(card_ids),
            tuple(masks[deck]),
            tuple(locks[deck]),
            tuple(commits[deck]),
        )
        secrets = {s: d for s, pub in publications.items() for d in pub.decks if d.deck == deck}
        missing = frozenset(s for s in order if s not in publications)
        partial = {}
        for seat, handover in handovers.items():
            for d, round_key, perm in handover.decks:
                if d == deck:
                    keys = dict(public_keys.get((deck, seat), {}))
                    keys.update({j: k for d2, j, k in handover.keys if d2 == deck})
                    partial[seat] = PartialSecrets(round_key, perm, keys)
        deck_faults, found = audit_chain(tag, record, secrets, unverifiable=missing, partial=partial,
                                         every_step=every_step)
        faults += deck_faults
        if found is not None:
            orders[deck] = found
    return AuditReport(tuple(_unique(faults)), orders)


def _check_transcript_keys(
    tag: bytes,
    orders: Mapping[int, tuple[int, ...]],
    commits: Mapping[int, Sequence[tuple[bytes, ...]]],
    messages: Sequence[MaskedMessage],
) -> list[Fault]:
    """Every position key a recorded transcript carries (card reveals, hand-overs)
    against its owner's commitment for that deck and position."""
    faults: list[Fault] = []

    def wrong(deck: int, seat: int, position: int, key: bytes) -> str | None:
        order = orders.get(deck)
        if order is None or seat not in order:
            return f"seat {seat} does not shuffle deck {deck}"
        i = order.index(seat)
        if i >= len(commits.get(deck, ())):
            return f"seat {seat} sent no lock pass (no commitments) for deck {deck}"
        row = commits[deck][i]
        if not 0 <= position < len(row):
            return f"position {position} is outside deck {deck}"
        if key_commitment(tag, deck, seat, position, key) != row[position]:
            return f"seat {seat}'s key for position {position} of deck {deck} does not match its commitment"
        return None

    for msg in messages:
        if isinstance(msg, CardReveal):
            for seat, key in msg.keys:
                problem = wrong(msg.deck, seat, msg.position, key)
                if problem is not None:
                    faults.append(Fault(FaultKind.BAD_REVEAL, msg.seat, msg.deck,
                                        f"seat {msg.seat}'s reveal: {problem}", (msg.position,)))
        elif isinstance(msg, Handover):
            for deck, position, key in msg.keys:
                problem = wrong(deck, msg.seat, position, key)
                if problem is not None:
                    faults.append(Fault(FaultKind.WRONG_KEY, msg.seat, deck,
                                        f"seat {msg.seat}'s hand-over: {problem}", (position,)))
    return faults


def _check_cards(view: ViewRecord, orders: Mapping[int, tuple[int, ...]]) -> list[Fault]:
    faults = []
    for (deck, position), card in sorted(view.cards_seen.items()):
        order = orders.get(deck)
        if order is not None and order[position] != card:
            faults.append(
                Fault(
                    FaultKind.DEAL_MISMATCH,
                    None,
                    deck,
                    f"position {position} of deck {deck} was played as card {card}, "
                    f"the recomputed deck holds card {order[position]} there",
                    (position,),
                )
            )
    return faults


def _check_delivery(
    view: ViewRecord, publications: Mapping[int, AuditPublication]
) -> tuple[list[Fault], list[str]]:
    """Key messages meant for this participant: a release its sender does not list is
    withheld (the sender's own word names it); one it lists that never reached us is an
    unproven claim (the relay is named by no one's word alone)."""
    faults = []
    claims: list[str] = []
    claimed: dict[int, set[tuple[str, int, int]]] = {}
    for seat, pub in publications.items():
        claimed[seat] = {(s.kind, s.deck, s.position) for s in pub.sent if s.to in (None, view.seat)}
    received = {(r.kind, r.deck, r.position, r.sender) for r in view.received}
    for seat, items in sorted(claimed.items()):
        if seat == view.seat:
            continue
        for kind, deck, position in sorted(items):
            if (kind, deck, position, seat) in received:
                continue
            receipt = _receipt(view, publications[seat], kind, deck, position)
            if receipt is not None:
                faults.append(Fault(
                    FaultKind.DROPPED, view.relay, deck,
                    f"seat {seat}'s {kind} for position {position} of deck {deck}: the host's signed "
                    f"receipt (number {receipt.n}) says it took it and relays it to seat {view.seat}; "
                    "it never came", (position,)))
                continue
            claims.append(
                f"seat {seat} says it sent {kind} for position {position} of deck {deck} "
                f"to seat {view.seat}; it never came, and its audit holds no receipt of the host's for it "
                "(unproven: the sender's word only)"
            )
    orders = {d.deck: d.order for d in view.decks}
    for (deck, position), recipient in sorted(view.recipients.items(), key=lambda kv: kv[0]):
        if recipient not in (view.seat, None):
            continue
        for seat in orders.get(deck, ()):
            if seat == view.seat or seat in view.left or seat not in publications:
                continue
            if (KeyRelease.KIND, deck, position) not in claimed.get(seat, set()):
                faults.append(
                    Fault(
                        FaultKind.WITHHELD,
                        seat,
                        deck,
                        f"position {position} of deck {deck} went to seat {view.seat}, "
                        f"but seat {seat} never released its key for it",
                        (position,),
                    )
                )
    return faults, claims


def _receipt(view: ViewRecord, pub: AuditPublication, kind: str, deck: int, position: int) -> Receipt | None:
    """The host's valid receipt, in ``pub``, for its author's ``kind`` message of that
    position, relayed to ``view.seat`` (None: there is none)."""
    ok = view.receipt_ok
    if ok is None:
        return None
    for r in pub.receipts:
        if (r.author == pub.seat and r.kind == kind and r.deck == deck and r.position == position
                and r.to in (None, view.seat) and view.seat in r.relayed and ok(r)):
            return r
    return None


def _unique(faults: Sequence[Fault]) -> list[Fault]:
    seen: set[Fault] = set()
    out = []
    for f in faults:
        if f not in seen:
            seen.add(f)
            out.append(f)
    return out
