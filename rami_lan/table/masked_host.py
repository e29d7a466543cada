"""Private dealing at the host: one round's masked deck and the host's model of it.

The host is one participant of the masked deck (`rami_lan.masked.session.Participant`,
docs/masked_deck.md) and the relay of every other participant's messages. It never
learns a card it does not hold, so its rules engine works on a **model**: a full
`MatchState` in which every card still hidden from the host is a *stand-in*, a card id
the host knows is somewhere among the hidden positions. Any consistent assignment is as
good as another, since nobody's decision may depend on what the host cannot see. When a
position becomes known to the host (a card revealed in play, a card dealt to a bot seat
it holds), `MaskedRound.learn` reports the swap that makes the model true at that
position: the stand-in and the real card trade places in the model. So a player who lays
a card first reveals its position (its keys prove it was dealt to them); the host swaps
it into its model, and the rules engine rules as usual.

Routing: `receive` checks a client's message (author = sender's seat, a valid masked
message), feeds the host's participant what is meant for it, and says where to forward
the rest; the host never keeps a key meant for another seat (it could not use it: the
recipient's own key is missing).

This module is sans-I/O and pure apart from the ``entropy`` function it is given.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgpack

from rami_lan.masked import session as MS
from rami_lan.masked.audit import AuditReport, Fault, FaultKind
from rami_lan.masked.group import HashRandom
from rami_lan.masked.inbound import MaskedInput, Undecoded, decode_inbound
from rami_lan.masked.messages import (
    AuditPublication,
    CardReveal,
    HandGift,
    Handover,
    KeyRelease,
    MaskedMessage,
    Protest,
)
from rami_lan.masked.session import MaskedProtocolError, MaskedStateError, Participant, Phase
from rami_lan.masked.signing import Signing
from rami_lan.table.receipts import receipt_for
from rami_lan.wire.masked_table import MkDeal, MkShow

__all__ = ["Delivery", "MaskedRound", "Routed", "deal_assignments", "host_randomness"]



@dataclass(frozen=True, slots=True)
class Delivery:
    """A masked message (plain) for one seat, or for every participant but ``skip``."""

    to: int | None
    plain: dict[str, Any]
    skip: int | None = None


@dataclass(slots=True)
class Routed:
    """What one call produced: deliveries, swaps for the model, and what happened."""

    deliveries: list[Delivery] = field(default_factory=list)
    swaps: list[tuple[int, int]] = field(default_factory=list)
    """(real card id, stand-in card id) pairs: exchange them in the model, in order."""
    ready: list[int] = field(default_factory=list)
    """Decks whose shuffle just completed."""
    faults: list[Fault] = field(default_factory=list)
    report: AuditReport | None = None
    left: list[int] = field(default_factory=list)
    """Seats that handed over and left: the host holds their hands now."""


def host_randomness(key: bytes) -> Callable[[int], bytes]:
    """The host participant's randomness for one round: a hash stream from a 32-byte key
    drawn from the OS CSPRNG. The host journals the key (on its own disk, like any
    participant's secrets), so a restarted host makes the very same secrets again."""
    if len(key) != 32:
        raise ValueError("the host's round key is 32 bytes")
    return HashRandom(b"rami-lan host participant v1" + key)


def deal_assignments(dealt: Iterable[tuple[int, Sequence[int]]], top: int) -> list[int | None]:
    """Deck-0 positions ``0 .. top`` -> the seat dealt each (None: the card turned up)."""
    seats: list[int | None] = [None] * (top + 1)
    for seat, positions in dealt:
        for p in positions:
            seats[p] = seat
    return seats


class MaskedRound:
    """The host's side of one round's masked deck (decks 0, 1, ... of that round)."""

    def __init__(self, tag: bytes, host_seat: int, participants: Sequence[int], n_cards: int,
                 entropy: Callable[[int], bytes]) -> None:
        self.participants = tuple(sorted(participants))
        self.host_seat = host_seat
        self.p = Participant(tag, host_seat, host_seat, n_cards, entropy)
        self.blind = frozenset(s for s in self.participants if s != host_seat)
        """Participant seats whose cards the host does not see."""
        self._stand_in: dict[tuple[int, int], int] = {}
        """(deck, position) still hidden from the host -> the model's card id there."""
        self._where: dict[int, tuple[int, int]] = {}
        self._held: dict[int, tuple[int, int]] = {}
        """Card id -> (deck, position) of a card the host holds privately (its player's, a bot's)."""
        self._ready: set[int] = set()
        self._later: list[tuple[str, int, int, int | None]] = []
        self._gen_deck: dict[int, int | None] = {0: 0}
        """Stock generation -> masked deck number (None: a turned-over, public stock)."""
        self._n_decks = 0
        self._deck_ids: dict[int, tuple[int, ...]] = {}
        self.faults: list[Fault] = []
        self.report: AuditReport | None = None
        self._got: dict[int, set[bytes]] = {}
        """Seat -> every message it sent this round (a reconnect sends them again)."""
        self.broadcast: list[dict[str, Any]] = []
        """Every masked message sent to all (for the record and `rami-lan verify`)."""
        self._heard: set[tuple[str, int, int, int, int | None]] = set()
        """(kind, deck, position, sender, to) of every key message a seat sent the host,
        used, refused or dropped as a duplicate alike (what an audit's "sent" may list)."""
        self._relayed: set[tuple[int, int, int]] = set()
        """(deck, position, sender) of every key the host passed on to another seat."""
        self.signing: Signing | None = None
        """The round's roster and the host's key (`sign_with`; None: an unsigned round)."""
        self.calls: list[list[Any]] = []
        """Every call that changed this round, in order, as plain data: the host's journal
        keeps them, and `replay` makes the same round again after a restart (with the
        same ``entropy`` stream, so the host's participant has the same secrets)."""

    # ------------------------------------------------------------------ queries

    @property
    def phase(self) -> Phase:
        return self.p.phase

    def ready(self, deck: int = 0) -> bool:
        return deck in self._ready

    def waiting(self) -> bool:
        """Keys the host is still waiting for (a bot's card, a card turned up) or queued calls."""
        return bool(self.p.pending()) or bool(self._later) or self.p.phase is Phase.SHUFFLING

    def gen_decks(self) -> dict[int, int | None]:
        """Stock generation -> masked deck (None: turned over, public)."""
        return dict(self._gen_deck)

    def deck_cards(self) -> list[tuple[int, tuple[int, ...]]]:
        """Each masked deck of the round and its card ids (0: every id; a refill: the pile)."""
        return list(self._deck_ids.items())

    def position_of(self, card_id: int) -> tuple[int, int] | None:
        """Where a stand-in card id sits (None: the card is known to the host)."""
        return self._where.get(card_id)

    def held_position(self, card_id: int) -> tuple[int, int] | None:
        """Where a card the host holds privately lies (None: not one of those)."""
        return self._held.get(card_id)

    def hand_positions(self, hand_ids: Sequence[int]) -> list[list[int] | None]:
        """A blind seat's model hand -> [deck, position] per hidden card (None: a known card)."""
        out: list[list[int] | None] = []
        for c in hand_ids:
            w = self._where.get(c)
            out.append(None if w is None else [w[0], w[1]])
        return out

    def owed(self) -> dict[int, str]:
        """Participant seat (never the host) -> the first masked message it owes now: its
        step of the shuffle in progress, or a key release a position waits for (to the
        host, to all, or relayed by the host to another seat). Its audit is not in here
        (the audit has its own deadline)."""
        out: dict[int, str] = {}
        turn = self.p.shuffle_turn()
        if turn is not None and turn[1] != self.host_seat:
            out[turn[1]] = f"its {turn[2]} pass of deck {turn[0]}"
        for deck, j, holder, sender, came in self.p.key_debts():
            if sender == self.host_seat or sender not in self.blind or sender in out:
                continue
            if came is None:
                came = (deck, j, sender) in self._relayed
            if not came:
                to = "everyone" if holder is None else f"seat {holder}"
                out[sender] = f"its key for position {j} of deck {deck} (for {to})"
        return out

    def owed_to(self, seat: int) -> bool:
        """Is a key on its way to ``seat`` still missing (relayed by the host)?"""
        return any(holder == seat and sender in self.blind and sender != self.host_seat
                   and (deck, j, sender) not in self._relayed
                   for deck, j, holder, sender, _came in self.p.key_debts())

    # ------------------------------------------------------------------ local calls

    def start(self) -> Routed:
        """Begin the shuffle of deck 0 (every card id; the model starts in id order)."""
        n = self.p.table.n_cards
        self.calls.append(["start"])
        for j in range(n):
            self._stand_in[(0, j)] = j
            self._where[j] = (0, j)
        self._n_decks = 1
        self._deck_ids[0] = tuple(range(n))
        return self._result(self.p.start_deck(0, range(n), self.participants))

    def assign_deal(self, seats: Sequence[int | None]) -> Routed:
        """The deal: position j of deck 0 to ``seats[j]`` (None: turned up for all)."""
        self.calls.append(["deal", list(seats)])
        out = Routed([Delivery(None, MkDeal(0, tuple(seats)).to_plain())])
        for j, seat in enumerate(seats):
            self._merge(out, self._call("assign", 0, j, seat))
        return out

    def drawn(self, gen: int, position: int, seat: int) -> Routed:
        """A public draw of ``position`` of stock generation ``gen`` by ``seat``."""
        deck = self._gen_deck.get(gen)
        if deck is None:
            return Routed()
        self.calls.append(["draw", gen, position, seat])
        return self._call("assign", deck, position, seat)

    def refilled(self, gen: int, pile_ids: Sequence[int], shuffled: bool) -> Routed:
        """The discard pile went back as stock generation ``gen`` (model: as it lies)."""
        self.calls.append(["refill", gen, list(pile_ids), shuffled])
        if not shuffled:
            self._gen_deck[gen] = None  # turned over: public, nothing masked
            return Routed()
        deck = self._n_decks
        self._n_decks += 1
        self._gen_deck[gen] = deck
        self._deck_ids[deck] = tuple(pile_ids)
        for j, c in enumerate(pile_ids):
            self._stand_in[(deck, j)] = c
            self._where[c] = (deck, j)
        return self._result(self.p.start_deck(deck, pile_ids, sorted(self.p.present)))

    def reveal(self, deck: int, position: int) -> Routed:
        """Make public a card the host holds (its own player's or a bot seat's)."""
        self.calls.append(["reveal", deck, position])
        return self._call("reveal", deck, position, None)

    def show(self, events: Sequence[dict[str, Any]] = (), reason: str = "", winner: int | None = None
             ) -> Routed:
        """Round end: ask every participant to reveal the rest of its hand. ``events``:
        the ending action's public events (plain), ``reason`` and ``winner`` the end's
        (each participant checks with its own replay that they end the round now)."""
        return Routed([Delivery(None, MkShow(tuple(events), reason, winner).to_plain())])

    def publish_audit(self) -> Routed:
        if self.p.phase not in (Phase.PLAYING, Phase.SHUFFLING):
            return Routed()
        self.calls.append(["audit"])
        return self._result(self.p.publish_audit())

    def close_audit(self) -> Routed:
        if self.p.phase is not Phase.AUDITING:
            return Routed()
        self.calls.append(["close"])
        return self._result(self.p.close_audit())

    # ------------------------------------------------------------------ messages

    def sign_with(self, signing: Signing | None) -> None:
        """Arm the round with its roster and the host's key (`rami_lan.table.receipts`):
        the host's participant signs what it sends, a client's message is taken only with
        its author's signature, and each one taken gets the host's signed receipt."""
        self.signing = signing
        if signing is not None:
            self.p.sign_with(signing)

    def receive_plain(self, seat: int, plain: object) -> Routed:
        """`receive` of a plain map (a journal's calls; tests): decoded here."""
        return self.receive(seat, decode_inbound(plain))

    def receive(self, seat: int, msg: MaskedInput) -> Routed:
        """A masked message from the client at ``seat``, decoded at the network edge
        (`rami_lan.masked.inbound`); raises ValueError if refused (one that did not
        decode, and one its author did not sign in a signed round, included: it came on
        that seat's own connection, so the seat is the one named)."""
        if seat not in self.blind:
            raise ValueError(f"seat {seat} is not a participant of the masked deck")
        if isinstance(msg, Undecoded):
            raise ValueError(msg.reason)
        if not isinstance(msg, MaskedMessage):  # a seat key: the table takes those
            raise ValueError(f"{msg.to_plain()['k']} is not a masked-deck protocol message")
        plain = msg.to_plain()  # what the author signed, and what the journal replays
        author = getattr(msg, "seat", None)
        if author != seat:
            raise ValueError(f"a message from seat {seat} must be written by seat {seat}, not {author}")
        sg = self.signing
        if sg is None:
            return self._take(seat, msg, plain)
        if not sg.valid(seat, plain):
            raise ValueError(f"seat {seat}'s {msg.KIND} is not signed with the key it announced")
        again = msgpack.packb(plain, use_bin_type=True) in self._got.get(seat, set()) or (
            isinstance(msg, KeyRelease) and (msg.deck, msg.position, seat) in self._relayed)
        out = self._take(seat, msg, plain)
        if again or seat not in self.blind and not isinstance(msg, Handover):
            return out  # (a message sent again: its receipt went with the first one)
        relayed: set[int] = set()
        for d in out.deliveries:
            if d.plain == plain:
                relayed |= {d.to} if d.to is not None else {s for s in self.participants
                                                             if s in self.blind | {seat} and s != d.skip}
        relayed.discard(self.host_seat)
        out.deliveries.append(Delivery(seat, receipt_for(sg, seat, msg, relayed)))
        return out

    def _take(self, seat: int, msg: MaskedMessage, plain: dict[str, Any]) -> Routed:
        out = Routed()
        if isinstance(msg, Protest):  # the named seat's receipts against a void: relayed as it is
            if self.signing is not None:
                out.deliveries.append(Delivery(None, msg.to_plain(), skip=seat))
            return out
        if isinstance(msg, KeyRelease | CardReveal | HandGift):  # heard, whatever comes of it
            to = (msg.to if isinstance(msg, KeyRelease)
                  else self.host_seat if isinstance(msg, HandGift) else None)
            self._heard.add((msg.KIND, msg.deck, msg.position, seat, to))
        fingerprint = msgpack.packb(plain, use_bin_type=True)
        got = self._got.setdefault(seat, set())
        if fingerprint in got:
            return out  # sent again after a reconnect: already used and relayed
        got.add(fingerprint)
        if isinstance(msg, HandGift):  # for the host alone: never relayed, never in the record
            try:
                fed = self._feed(msg)
            except ValueError:
                got.discard(fingerprint)
                raise
            self.calls.append(["in", seat, plain])
            return fed
        if isinstance(msg, KeyRelease) and msg.to is not None and msg.to != self.host_seat:
            if msg.to not in self.blind:
                got.discard(fingerprint)
                raise ValueError(f"no participant at seat {msg.to}")
            slot = (msg.deck, msg.position, seat)
            if slot in self._relayed:
                return out  # one key per sender and position: a second one goes nowhere
            try:  # checked before it goes on: a wrong key is named here, never relayed
                fault = self.p.check_relayed_key(msg)
            except MaskedProtocolError as exc:
                got.discard(fingerprint)
                raise ValueError(f"masked deck: {exc}") from exc
            self.calls.append(["in", seat, plain])
            if fault is not None:
                self.faults.append(fault)
                out.faults.append(fault)
                return out
            self._relayed.add(slot)
            out.deliveries.append(Delivery(msg.to, msg.to_plain()))
            return out
        plain_msg = msg.to_plain()
        logged = not isinstance(msg, KeyRelease)
        if logged:  # in the order received: before anything it makes the host send
            self.broadcast.append(plain_msg)
        try:
            fed = self._feed(msg)  # refused (ValueError): forwarded to nobody
        except ValueError:
            if logged:
                self.broadcast.pop()
            got.discard(fingerprint)
            raise
        if isinstance(msg, KeyRelease) and fed.faults:
            # A wrong key (to the host, or for all) is named here and goes no further.
            self.calls.append(["in", seat, plain])
            self._merge(out, fed)
            return out
        if isinstance(msg, Handover) and fed.faults:
            # A hand-over with a wrong key changes nothing: it is not relayed, the seat
            # stays a participant (and still owes what it owed); the fault names it.
            self.broadcast.pop()
            self.calls.append(["in", seat, plain])
            self._merge(out, fed)
            return out
        if not (isinstance(msg, KeyRelease) and msg.to == self.host_seat):
            out.deliveries.append(Delivery(None, plain_msg, skip=seat))
        self._merge(out, fed)
        if isinstance(msg, Handover):  # it gave us its hand: its seat is no longer blind
            self.blind = self.blind - {seat}
            out.left.append(seat)
        if isinstance(msg, AuditPublication):
            false = self._false_claims(seat, msg)
            if false:  # the relay saw every message: a "sent" it never got is the sender's lie
                fault = Fault(FaultKind.FALSE_CLAIM, seat, None,
                              f"seat {seat}'s audit lists {len(false)} message(s) the host never got "
                              f"from it: {false[:4]}")
                self.faults.append(fault)
                out.faults.append(fault)
        self.calls.append(["in", seat, plain])
        return out

    def _false_claims(self, seat: int, pub: AuditPublication) -> list[tuple[str, int, int, int | None]]:
        """The entries of ``seat``'s audit "sent" list that never reached the host (every
        message passes through it, whoever it is for)."""
        return [(s.kind, s.deck, s.position, s.to) for s in pub.sent
                if (s.kind, s.deck, s.position, seat, s.to) not in self._heard]

    def replay(self, calls: Iterable[Sequence[Any]]) -> Routed:
        """Make ``calls`` (a journal's `calls`) again, in order, on a new round built with
        the same tag, participants and entropy: the same state as when they were made,
        and everything they sent (a restarted host rebuilds its per-seat logs from it)."""
        steps: dict[str, Callable[..., Routed]] = {
            "start": self.start, "deal": self.assign_deal, "draw": self.drawn,
            "refill": self.refilled, "reveal": self.reveal, "audit": self.publish_audit,
            "close": self.close_audit, "in": self.receive_plain}
        out = Routed()
        for call in calls:
            step = steps.get(str(call[0])) if call else None
            if step is None:
                raise ValueError(f"not a masked-round call: {list(call)[:1]!r}")
            self._merge(out, step(*call[1:]))
        return out

    # ------------------------------------------------------------------ internals

    def _feed(self, msg: MaskedMessage) -> Routed:
        try:
            return self._result(self.p.receive(msg))
        except (MaskedProtocolError, MaskedStateError) as exc:
            raise ValueError(f"masked deck: {exc}") from exc

    def _call(self, what: str, deck: int, position: int, seat: int | None) -> Routed:
        if deck not in self._ready or self.p.phase is not Phase.PLAYING:
            self._later.append((what, deck, position, seat))
            return Routed()
        if what == "assign":
            return self._result(self.p.assign(deck, position, seat))
        return self._result(self.p.reveal(deck, position))

    def _result(self, res: MS.Result) -> Routed:
        out = Routed()
        for o in res.outgoing:
            plain = o.message.to_plain()
            out.deliveries.append(Delivery(o.to, plain))
            if o.to is None and not isinstance(o.message, KeyRelease | CardReveal):
                self.broadcast.append(plain)
            elif isinstance(o.message, CardReveal):
                self.broadcast.append(plain)
        for ev in res.events:
            if isinstance(ev, MS.DeckReady):
                self._ready.add(ev.deck)
                out.ready.append(ev.deck)
            elif isinstance(ev, MS.CardReceived | MS.CardPublic):
                if isinstance(ev, MS.CardReceived):
                    self._held[ev.card_id] = (ev.deck, ev.position)
                else:
                    self._held.pop(ev.card_id, None)
                self._learn(ev.deck, ev.position, ev.card_id, out)
            elif isinstance(ev, MS.FaultFound):
                self.faults.append(ev.fault)
                out.faults.append(ev.fault)
            elif isinstance(ev, MS.AuditComplete):
                self.report = ev.report
                out.report = ev.report
        if out.ready and self._later:
            later, self._later = self._later, []
            for what, deck, position, seat in later:
                self._merge(out, self._call(what, deck, position, seat))
        return out

    def _learn(self, deck: int, position: int, card: int, out: Routed) -> None:
        stand_in = self._stand_in.pop((deck, position), None)
        if stand_in is None:
            return  # already known (a bot's card made public)
        del self._where[stand_in]
        if stand_in == card:
            return
        other = self._where.get(card)
        if other is None:  # the participant refuses duplicates; keep the model whole anyway
            self.faults.append(Fault(FaultKind.DUPLICATE_CARD, None, deck,
                                     f"card {card} is not hidden in the host's model"))
            return
        del self._where[card]
        self._stand_in[other] = stand_in
        self._where[stand_in] = other
        out.swaps.append((card, stand_in))

    @staticmethod
    def _merge(into: Routed, more: Routed) -> None:
        into.deliveries += more.deliveries
        into.swaps += more.swaps
        into.ready += more.ready
        into.faults += more.faults
        into.left += more.left
        if more.report is not None:
            into.report = more.report
