"""Masked deck: participants (and a relay) that cheat in exactly one way are named.

Each cheater is a :class:`Participant` subclass overriding one hook; the honest
participants catch it at once where the data shows it (a wrong key against its
commitment, a skipped or duplicating step) and in every case the end-of-round audit
names the cheater, and only the cheater, with evidence. Small 12-card decks keep
these tests fast; the 110-card round is in ``test_masked_round.py``.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from rami_lan.masked.audit import Fault, FaultKind, audit_chain, audit_transcript
from rami_lan.masked.deck import initial_points
from rami_lan.masked.group import card_point, invert, mul, scalar_mul
from rami_lan.masked.memory import MemoryTable, deal
from rami_lan.masked.messages import (
    AuditPublication,
    CardReveal,
    DeckSecretsRecord,
    KeyRelease,
    MaskedMessage,
    MaskPass,
    MessageError,
)
from rami_lan.masked.session import (
    FaultFound,
    MaskedProtocolError,
    MaskedStateError,
    Outgoing,
    Participant,
    Phase,
    Result,
)

TAG = b"rami-lan/v1" + bytes(16) + (3).to_bytes(4, "big") + (2).to_bytes(4, "big")
SEATS = (0, 1, 2, 3)
HOST = 0
N = 12
DEAL_ORDER = (1, 2, 3, 0)
HAND = 2  # positions 0..7 dealt, 8 turned up, 9.. stock
TORSION = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")


def _other(key: bytes) -> bytes:
    """A different valid scalar (key squared)."""
    return scalar_mul(key, key)


def make(kinds: Mapping[int, type[Participant]] | None = None) -> MemoryTable:
    return MemoryTable(TAG, SEATS, HOST, N, kinds=kinds)


def runtime_faults(table: MemoryTable, seat: int) -> list[Fault]:
    return [e.fault for e in table.events[seat] if isinstance(e, FaultFound)]


def audited(table: MemoryTable) -> dict[int, frozenset[int]]:
    """Run the audit; every live participant's set of named seats."""
    table.audit()
    named = {}
    for seat in table.live:
        report = table.participants[seat].report
        assert report is not None
        named[seat] = report.named
    return named


def kinds_named(table: MemoryTable, seat: int) -> set[FaultKind]:
    report = table.participants[seat].report
    assert report is not None
    return {f.kind for f in report.faults}


# --------------------------------------------------------------------------- the honest baseline


def test_honest_small_round_is_fair() -> None:
    table = make()
    table.start_deck(0, range(N))
    deal(table, DEAL_ORDER, HAND)
    table.assign(0, 9, 1)
    table.reveal(1, 0, 9)
    assert set(audited(table).values()) == {frozenset()}
    assert table.errors == []


# --------------------------------------------------------------------------- cheaters


class WrongKey(Participant):
    """Releases a wrong key for position 3 (dealt to seat 0)."""

    def _release_key(self, d, position):  # type: ignore[no-untyped-def]
        key = super()._release_key(d, position)
        return _other(key) if position == 3 else key


def test_wrong_key_is_named_on_arrival_and_by_the_audit() -> None:
    table = make({2: WrongKey})
    table.start_deck(0, range(N))
    deal(table, DEAL_ORDER, HAND)
    [fault] = runtime_faults(table, 0)
    assert fault.kind is FaultKind.WRONG_KEY and fault.seat == 2 and fault.positions == (3,)
    assert table.participants[0].card_at(0, 3) is None  # the bad key was not used
    assert (0, 3) in table.participants[0].pending()
    named = audited(table)
    assert named[0] == {2}
    assert named[1] == named[3] == frozenset()  # they never saw the bad key


class Substitute(Participant):
    """Mask pass: replaces its first output point by a point of its own choosing."""

    def _make_mask(self, d, previous):  # type: ignore[no-untyped-def]
        out = list(super()._make_mask(d, previous))
        out[0] = mul(_other(d.secrets.round_key), card_point(5))
        return tuple(out)


@pytest.mark.parametrize("cheater", [0, 2, 3])
def test_substituted_point_names_only_the_substituter(cheater: int) -> None:
    table = make({cheater: Substitute})
    table.start_deck(0, range(N))
    deal(table, DEAL_ORDER, HAND)
    named = audited(table)
    assert set(named.values()) == {frozenset({cheater})}
    report = table.participants[1].report
    assert report is not None
    bad = [f for f in report.faults if f.kind is FaultKind.BAD_MASK]
    assert len(bad) == 1 and bad[0].positions == (0,) and "expected" in bad[0].evidence


class CopyCard(Participant):
    """Lock pass: position 1 gets a copy of position 0's card under its own key."""

    def _make_lock(self, d, previous):  # type: ignore[no-untyped-def]
        out = list(super()._make_lock(d, previous))
        out[1] = mul(scalar_mul(d.secrets.position_keys[1], invert(d.secrets.round_key)), previous[0])
        return tuple(out)


def test_duplicated_card_is_seen_in_play_and_named_by_the_audit() -> None:
    # Only the first to lock (here the host) can copy a card: later, the earlier
    # position keys differ between the two positions and the copy is no card at all.
    table = make({0: CopyCard})
    table.start_deck(0, range(N))
    deal(table, DEAL_ORDER, HAND)  # position 0 -> seat 1, position 1 -> seat 2
    assert table.participants[1].card_at(0, 0) == table.participants[2].card_at(0, 1)
    table.reveal(1, 0, 0)
    table.reveal(2, 0, 1)
    dup = [f for f in runtime_faults(table, 3) if f.kind is FaultKind.DUPLICATE_CARD]
    assert dup and dup[0].positions == (1,)
    named = audited(table)
    assert all(seats == {0} for seats in named.values())
    assert kinds_named(table, 3) == {FaultKind.BAD_LOCK, FaultKind.DUPLICATE_CARD}
    # Seat 2 played the copy: the recomputed deck shows which card it should have had.
    assert FaultKind.DEAL_MISMATCH in kinds_named(table, 2)


def test_copied_card_from_a_later_locker_is_no_card_and_named() -> None:
    table = make({3: CopyCard})
    table.start_deck(0, range(N))
    deal(table, DEAL_ORDER, HAND)
    [fault] = runtime_faults(table, 2)  # seat 2 was dealt position 1
    assert fault.kind is FaultKind.NOT_A_CARD and fault.positions == (1,)
    assert table.participants[2].card_at(0, 1) is None
    named = audited(table)
    assert all(seats == {3} for seats in named.values())


class SamePoint(Participant):
    """Mask pass: outputs the same point twice (a plainly duplicated card)."""

    def _make_mask(self, d, previous):  # type: ignore[no-untyped-def]
        out = list(super()._make_mask(d, previous))
        out[4] = out[5]
        return tuple(out)


def test_identical_points_are_refused_and_named_at_once() -> None:
    table = make({1: SamePoint})
    table.start_deck(0, range(N))
    for seat in (0, 2, 3):
        [fault] = runtime_faults(table, seat)
        assert fault.kind is FaultKind.DUPLICATE_POINT and fault.seat == 1
        assert table.participants[seat].phase is Phase.SHUFFLING  # the deck never completes
    named = audited(table)  # the round is void; the audit still names
    assert set(named.values()) == {frozenset({1})}


class SkipMask(Participant):
    """Skips its mask pass: forwards its input unchanged."""

    def _make_mask(self, d, previous):  # type: ignore[no-untyped-def]
        return tuple(previous)


class SkipLock(Participant):
    """Skips its lock pass: forwards its input unchanged."""

    def _make_lock(self, d, previous):  # type: ignore[no-untyped-def]
        return tuple(previous)


@pytest.mark.parametrize(("cheater", "kind"), [(0, SkipMask), (2, SkipMask), (3, SkipLock), (0, SkipLock)])
def test_skipped_shuffle_is_named(cheater: int, kind: type[Participant]) -> None:
    table = make({cheater: kind})
    table.start_deck(0, range(N))
    for seat in SEATS:
        if seat == cheater:
            continue
        [fault] = runtime_faults(table, seat)
        assert fault.kind is FaultKind.SKIPPED_STEP and fault.seat == cheater
    named = audited(table)
    assert set(named.values()) == {frozenset({cheater})}


class HalfSkip(Participant):
    """Mask pass: keys every point but leaves one input point as it was."""

    def _make_mask(self, d, previous):  # type: ignore[no-untyped-def]
        out = list(super()._make_mask(d, previous))
        out[7] = previous[d.secrets.permutation[7]]
        return tuple(out)


def test_partly_skipped_step_is_named() -> None:
    table = make({2: HalfSkip})
    table.start_deck(0, range(N))
    faults = runtime_faults(table, 3)
    assert [(f.kind, f.seat) for f in faults] == [(FaultKind.SKIPPED_STEP, 2)]


def test_relay_that_drops_a_reveal_is_named() -> None:
    table = make()
    table.drop = lambda sender, target, msg: isinstance(msg, CardReveal) and target == 3
    table.start_deck(0, range(N))
    deal(table, DEAL_ORDER, HAND)
    table.assign(0, 9, 1)
    table.reveal(1, 0, 9)
    assert table.participants[3].card_at(0, 9) is None
    # The sender's audit lists the reveal; it never came. Its word alone names nobody
    # (it could be lying to frame the relay): an unproven claim, never a fault.
    named = audited(table)
    assert named[3] == named[1] == named[2] == frozenset()
    report = table.participants[3].report
    assert report is not None and report.fair
    [claim] = report.claims
    assert "seat 1" in claim and "position 9" in claim and "unproven" in claim


def test_relay_that_drops_a_key_release_is_named() -> None:
    table = make()
    table.drop = lambda sender, target, msg: isinstance(msg, KeyRelease) and sender == 3 and msg.position == 9
    table.start_deck(0, range(N))
    deal(table, DEAL_ORDER, HAND)
    table.assign(0, 9, 2)
    assert table.participants[2].pending() == ((0, 9),)
    named = audited(table)
    assert named[2] == frozenset()
    report = table.participants[2].report
    assert report is not None and report.fair and len(report.claims) == 1


class ClaimsUnsent(Participant):
    """Lists, in its audit's "sent" list, a key release to seat 2 it never sent."""

    def publish_audit(self) -> Result:
        from rami_lan.masked.messages import SentRecord

        self._sent.append(SentRecord(KeyRelease.KIND, 0, 11, 2))
        return super().publish_audit()


def test_a_lying_audit_frames_nobody() -> None:
    """A participant claims a release that never happened: no honest participant names
    the relay (or anyone) for it, and every report stays fair."""
    table = make({3: ClaimsUnsent})
    table.start_deck(0, range(N))
    deal(table, DEAL_ORDER, HAND)
    named = audited(table)
    assert all(n == frozenset() for n in named.values()), named
    assert all(table.participants[s].report.fair for s in table.live)
    assert table.participants[2].report.claims


class Withhold(Participant):
    """Never releases its key for position 9 (and does not claim it did)."""

    def assign(self, deck, position, seat):  # type: ignore[no-untyped-def]
        result = super().assign(deck, position, seat)
        if position != 9:
            return result
        self._sent = [s for s in self._sent if s.position != 9]
        kept = tuple(o for o in result.outgoing if not isinstance(o.message, KeyRelease))
        return Result(kept, result.events)


def test_withheld_key_is_named() -> None:
    table = make({3: Withhold})
    table.start_deck(0, range(N))
    deal(table, DEAL_ORDER, HAND)
    table.assign(0, 9, 2)
    assert table.participants[2].pending() == ((0, 9),)
    named = audited(table)
    assert named[2] == {3}
    assert kinds_named(table, 2) == {FaultKind.WITHHELD}


class BadReveal(Participant):
    """Reveals a card with a wrong key in another seat's name."""

    def _reveal_keys(self, d, position):  # type: ignore[no-untyped-def]
        keys = dict(super()._reveal_keys(d, position))
        keys[2] = _other(keys[2])
        return tuple(sorted(keys.items()))


def test_reveal_with_a_wrong_key_is_named() -> None:
    table = make({1: BadReveal})
    table.start_deck(0, range(N))
    deal(table, DEAL_ORDER, HAND)
    table.reveal(1, 0, 0)
    for seat in (0, 2, 3):
        [fault] = runtime_faults(table, seat)
        assert fault.kind is FaultKind.BAD_REVEAL and fault.seat == 1
        assert table.participants[seat].card_at(0, 0) is None
    named = audited(table)
    assert named[0] == named[2] == named[3] == {1}


class LyingAudit(Participant):
    """Publishes another round key (or other position keys) than it used."""

    lie = "round"

    def publish_audit(self):  # type: ignore[no-untyped-def]
        result = super().publish_audit()
        pub = result.outgoing[0].message
        assert isinstance(pub, AuditPublication)
        d = pub.decks[0]
        if self.lie == "round":
            d = DeckSecretsRecord(d.deck, _other(d.round_key), d.permutation, d.position_keys)
        else:
            keys = (_other(d.position_keys[0]),) + d.position_keys[1:]
            d = DeckSecretsRecord(d.deck, d.round_key, d.permutation, keys)
        lie = AuditPublication(pub.seat, (d,), pub.sent, pub.tag)
        return Result((Outgoing(None, lie),), result.events)


class LyingKeys(LyingAudit):
    lie = "keys"


def test_audit_publication_that_lies_is_named() -> None:
    table = make({2: LyingAudit})
    table.start_deck(0, range(N))
    deal(table, DEAL_ORDER, HAND)
    named = audited(table)
    assert named[0] == named[1] == named[3] == {2}
    assert kinds_named(table, 1) == {FaultKind.BAD_MASK, FaultKind.BAD_LOCK}
    table = make({2: LyingKeys})
    table.start_deck(0, range(N))
    deal(table, DEAL_ORDER, HAND)
    named = audited(table)
    assert named[1] == {2}
    assert kinds_named(table, 1) == {FaultKind.BAD_LOCK, FaultKind.BAD_COMMITMENT}


def test_missing_audit_is_named_on_close() -> None:
    table = make()
    table.start_deck(0, range(N))
    deal(table, DEAL_ORDER, HAND)
    table.drop = lambda sender, target, msg: isinstance(msg, AuditPublication) and sender == 2
    table.audit()
    p = table.participants[1]
    assert p.phase is Phase.AUDITING and p.report is None
    result = p.close_audit()
    assert p.phase is Phase.COMPLETE and result.events
    assert p.report is not None and p.report.named == {2}
    assert {f.kind for f in p.report.faults} == {FaultKind.MISSING_AUDIT}


# --------------------------------------------------------------------------- invalid data


class TorsionMask(Participant):
    """Mask pass with a point outside the prime-order group."""

    def _make_mask(self, d, previous):  # type: ignore[no-untyped-def]
        out = list(super()._make_mask(d, previous))
        out[2] = TORSION
        return tuple(out)


def test_invalid_points_never_reach_a_participant() -> None:
    table = make({1: TorsionMask})
    table.start_deck(0, range(N))
    assert {(sender, type(exc)) for sender, _, exc in table.errors} == {(1, MessageError)}
    assert all("prime-order" in str(exc) for _, _, exc in table.errors)
    # Only seat 0's mask pass (before the bad one) was taken.
    assert all(len(table.participants[s].snapshot()["decks"][0]["masks"]) == 1 for s in (2, 3))


def test_a_relay_that_passes_on_a_bad_point_is_named_by_the_next_step() -> None:
    """Only the relay checks every point on arrival: when the relay itself sends one, the
    participant that would multiply it refuses its step and names the author, and the
    others (who keep it for the audit) name it there."""
    table = make({HOST: TorsionMask})
    table.start_deck(0, range(N))
    nxt = SEATS[SEATS.index(HOST) + 1]
    assert [(f.kind, f.seat, f.positions) for f in runtime_faults(table, nxt)] == [
        (FaultKind.BAD_POINT, HOST, (2,))
    ]
    assert table.errors == []  # shape-checked, taken, refused only where used
    p = table.participants[nxt]
    assert len(p.snapshot()["decks"][0]["masks"]) == 1  # its own step was not made
    # The audit of the stopped deck (a bystander's record, the author's secrets) names it.
    record = table.participants[SEATS[-1]]._view().decks[0]
    own = table.participants[HOST]._decks[0].secrets
    published = {HOST: DeckSecretsRecord(0, own.round_key, own.permutation, own.position_keys)}
    faults, order = audit_chain(TAG, record, published, unverifiable=frozenset(SEATS) - {HOST})
    assert order is None and [(f.kind, f.seat, f.positions) for f in faults] == [
        (FaultKind.BAD_MASK, HOST, (2,))
    ]
    # An honest relay would have refused it on arrival, before relaying it.
    relay = Participant(TAG, HOST, HOST, N, lambda n: bytes(n))
    with pytest.raises(MessageError, match="prime-order"):
        relay.receive_plain({"k": "mk_mask", "deck": 0, "seat": 1, "points": [TORSION] * N})


def test_refused_messages_leave_the_state_unchanged() -> None:
    table = make()
    table.start_deck(0, range(N))
    p = table.participants[2]
    before = p.snapshot()
    points = initial_points(range(N))
    with pytest.raises(MaskedProtocolError, match="not being shuffled"):
        p.receive(MaskPass(0, 1, points))  # deck 0 is already shuffled
    with pytest.raises(MaskedProtocolError, match="not assigned"):
        p.receive(KeyRelease(0, 1, 2, 10, card_point(0)[:31] + b"\x00"))
    with pytest.raises(MaskedProtocolError, match="own name"):
        p.receive(KeyRelease(0, 2, 2, 10, b"\x01" + bytes(31)))
    with pytest.raises(MaskedStateError, match="not a card we hold"):
        p.reveal(0, 3)
    with pytest.raises(MaskedStateError, match="not public"):
        p.start_deck(1, [0, 1], SEATS)
    with pytest.raises(MaskedStateError, match="next deck"):
        p.start_deck(3, [0, 1], SEATS)
    assert p.snapshot() == before


def test_hand_over_gives_stock_keys_only_and_play_goes_on() -> None:
    table = make()
    table.start_deck(0, range(N))
    deal(table, DEAL_ORDER, HAND)
    table.hand_over(3)
    leaver = table.participants[3]
    assert leaver.phase is Phase.LEFT
    handover = [m for m in table.seen_by[3][-1:]]
    assert handover
    # Its hand went to the relay (which plays that seat from now on), and to nobody else.
    hand = [k * 4 + DEAL_ORDER.index(3) for k in range(HAND)]
    assert all(table.participants[HOST].card_at(0, j) is not None for j in hand)
    assert all(table.participants[s].card_at(0, j) is None for s in (1, 2) for j in hand)
    gifts = [(to, target) for _, to, target, data in table.relay_log if b"mk_give" in data]
    assert gifts and {(to, target) for to, target in gifts} == {(HOST, HOST)}
    stock = set(range(4 * HAND + 1, N))
    snap = table.participants[0].snapshot()["decks"][0]
    assert {j for j, keys in snap["handed"] for seat, _ in keys if seat == 3} == stock
    table.assign(0, 9, 1)  # a player draws: seat 3's key comes from the hand-over
    assert table.participants[1].card_at(0, 9) is not None
    table.assign(0, 10, 3)  # seat 3 is now a bot held by the host: the host sees its draws
    assert table.participants[HOST].card_at(0, 10) is not None
    assert table.participants[1].card_at(0, 10) is None
    # A reshuffle after the departure is done by the participants still there.
    table.reveal(1, 0, 9)
    table.start_deck(1, [table.participants[0].card_at(0, 8), table.participants[0].card_at(0, 9)])
    assert table.participants[0].snapshot()["decks"][1]["order"] == [0, 1, 2]
    named = audited(table)
    assert set(named.values()) == {frozenset()}
    assert table.errors == []


class WrongGift(Participant):
    """Leaves with one card of its hand given with a wrong key of another seat."""

    def hand_over(self):  # type: ignore[no-untyped-def]
        from rami_lan.masked.messages import HandGift

        result = super().hand_over()
        first = result.outgoing[0].message
        assert isinstance(first, HandGift)
        keys = tuple((s, _other(k) if s != self.seat else k) for s, k in first.keys)
        lie = Outgoing(result.outgoing[0].to, HandGift(first.deck, first.seat, first.position, keys))
        return Result((lie, *result.outgoing[1:]), result.events)


def test_a_leaver_that_gives_a_wrong_key_is_named_and_may_not_leave() -> None:
    table = make({3: WrongGift})
    table.start_deck(0, range(N))
    deal(table, DEAL_ORDER, HAND)
    table.hand_over(3)
    assert [(f.kind, f.seat) for f in runtime_faults(table, HOST)] == [(FaultKind.WRONG_KEY, 3)]
    # The relay can not hold a hand it was not given: it refuses the hand-over, so the
    # seat stays its own (the table voids the round after its wait, as for a gone player).
    assert any(target == HOST and "before giving" in str(exc) for _, target, exc in table.errors)
    assert 3 not in table.participants[HOST].snapshot().get("left", [])


def test_hand_over_of_its_own_hand_or_without_the_stock_is_refused() -> None:
    table = make()
    table.start_deck(0, range(N))
    deal(table, DEAL_ORDER, HAND)
    p = table.participants[1]
    before = p.snapshot()
    from rami_lan.masked.messages import Handover

    keys = table.participants[3].snapshot()["decks"][0]["secrets"][2]
    own = DEAL_ORDER.index(3)  # a position of seat 3's own hand, instead of the stock
    with pytest.raises(MaskedProtocolError, match="lacks stock positions"):
        p.receive(Handover(3, ((0, own, keys[own]),)))
    other = DEAL_ORDER.index(2)  # another hand's position, instead of the stock
    with pytest.raises(MaskedProtocolError, match="lacks stock positions"):
        p.receive(Handover(3, ((0, other, keys[other]),)))
    turned = 4 * HAND  # the card turned up (by `deal`): public, no key of it is handed over
    with pytest.raises(MaskedProtocolError, match="may only hold stock keys"):
        p.receive(Handover(3, ((0, turned, keys[turned]),)))
    assert p.snapshot() == before


def test_a_hand_over_that_crossed_its_own_draw_gives_that_card_to_the_relay() -> None:
    """The leaver quits just as its own draw is made: it never saw that card, so it did
    not give it; its key is among its "stock" keys. Everyone else releases its key for
    that position to the relay, which now holds the card; nobody else learns it."""
    table = make()
    table.start_deck(0, range(N))
    first = deal(table, DEAL_ORDER, HAND)
    result = table.participants[3].hand_over()  # made before it saw its draw
    table.gone.add(3)
    table.assign(0, first, 3)  # its draw: the others release their keys to seat 3 (gone)
    table._handle(3, result)
    table.pump()
    assert table.errors == []
    assert table.participants[HOST].card_at(0, first) is not None
    assert all(table.participants[s].card_at(0, first) is None for s in (1, 2))
    table.reveal(HOST, 0, first)  # the host's bot plays it: everyone checks it
    assert all(table.participants[s].card_at(0, first) is not None for s in (1, 2))
    assert set(audited(table).values()) == {frozenset()}


def test_a_hand_over_that_crossed_a_draw_releases_that_key() -> None:
    """The leaver hands over just as another seat draws: its hand-over still counts that
    position as stock. Its key there is taken as the draw's release (the drawer unmasks
    with it), and the card stays hidden from everyone else (the drawer's own key)."""
    table = make()
    table.start_deck(0, range(N))
    first = deal(table, DEAL_ORDER, HAND)
    leaver = table.participants[3]
    result = leaver.hand_over()  # made before it saw the draw below
    table.gone.add(3)
    table.assign(0, first, 1)  # seat 1 draws; seat 3's release is not sent (it left)
    assert table.participants[1].card_at(0, first) is None  # waits for seat 3's key
    table._handle(3, result)
    table.pump()
    assert table.participants[1].card_at(0, first) is not None
    assert all(table.participants[s].card_at(0, first) is None for s in (0, 2))
    assert set(audited(table).values()) == {frozenset()}


# --------------------------------------------------------------------------- an outsider's audit


def _public_record(table: MemoryTable) -> list[MaskedMessage]:
    """The broadcast messages as the relay saw them, once each, in order."""
    import msgpack

    from rami_lan.masked.messages import from_plain

    seen: dict[bytes, None] = {}
    for _, to, _, data in table.relay_log:
        if to is None:
            seen.setdefault(data)
    return [from_plain(msgpack.unpackb(d, raw=False, strict_map_key=True)) for d in seen]


def test_an_outsider_audits_the_public_record() -> None:
    table = make()
    table.start_deck(0, range(N))
    deal(table, DEAL_ORDER, HAND)
    table.audit()
    report = audit_transcript(TAG, [(0, range(N), SEATS)], _public_record(table))
    assert report.fair
    assert report.orders == table.participants[1].report.orders  # type: ignore[union-attr]


def test_an_outsider_names_a_substituter_and_a_missing_audit() -> None:
    table = make({2: Substitute})
    table.start_deck(0, range(N))
    deal(table, DEAL_ORDER, HAND)
    table.audit()
    record = [m for m in _public_record(table) if not (isinstance(m, AuditPublication) and m.seat == 3)]
    report = audit_transcript(TAG, [(0, range(N), SEATS)], record)
    assert {(f.kind, f.seat) for f in report.faults} == {
        (FaultKind.BAD_MASK, 2),
        (FaultKind.MISSING_AUDIT, 3),
    }
    assert report.orders == {}


def test_a_leaver_is_still_audited_from_its_hand_over() -> None:
    table = make({3: Substitute})
    table.start_deck(0, range(N))
    deal(table, DEAL_ORDER, HAND)
    table.hand_over(3)  # it cheated in its mask pass, then left
    table.assign(0, 9, 1)
    table.reveal(1, 0, 9)
    named = audited(table)
    assert set(named.values()) == {frozenset({3})}
    assert kinds_named(table, 2) == {FaultKind.BAD_MASK}
    assert kinds_named(table, 1) == {FaultKind.BAD_MASK, FaultKind.NOT_A_CARD}  # it was dealt the fake
    record = _public_record(table)
    report = audit_transcript(TAG, [(0, range(N), SEATS)], record)
    assert {(f.kind, f.seat) for f in report.faults} == {(FaultKind.BAD_MASK, 3)}


def test_an_honest_leaver_leaves_a_fully_recomputed_deck() -> None:
    table = make()
    table.start_deck(0, range(N))
    deal(table, DEAL_ORDER, HAND)
    table.hand_over(2)
    table.assign(0, 9, 1)
    table.reveal(1, 0, 9)
    assert set(audited(table).values()) == {frozenset()}
    report = table.participants[1].report
    assert report is not None and sorted(report.orders[0]) == list(range(N))
    assert report.orders[0][9] == table.participants[0].card_at(0, 9)
    outsider = audit_transcript(TAG, [(0, range(N), SEATS)], _public_record(table))
    assert outsider.fair and outsider.orders == report.orders
