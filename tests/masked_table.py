"""A table with private dealing, in process: the machine and its clients over wire bytes.

`MaskedTable` runs a `TableMachine` with ``private_deal`` and one `WireClient` per
remote seat. Every message either way is encoded to its wire bytes and decoded on the
other side, exactly as over TLS; each side keeps the bytes it saw (``seen``), so a spy
test can read what a party could know. Clients play with a bot policy from the view
their `MaskedSeat` fills in, reveal their cards before each action, and answer commit
requests, reveals and between-rounds questions. Time is a number moved to each wake-up.
"""

from __future__ import annotations

import hashlib
from collections import deque
from itertools import combinations
from typing import Any, NamedTuple

import msgpack

from rami_lan.bots import make_bot
from rami_lan.core import events as E
from rami_lan.core.codec import (
    action_from_plain,
    action_to_plain,
    event_from_plain,
    view_from_plain,
)
from rami_lan.core.errors import MalformedAction, RulesError
from rami_lan.core.variants import get_variant
from rami_lan.masked.deck import unmask
from rami_lan.masked.group import card_table
from rami_lan.masked.inbound import decode_inbound
from rami_lan.masked.messages import KINDS as MASKED_MESSAGE_KINDS
from rami_lan.masked.messages import CardReveal, Handover, KeyRelease, LockPass, from_plain
from rami_lan.net import protocol as P
from rami_lan.net.client import _owner_masked
from rami_lan.net.fairness import FairnessTracker, facts_from_welcome
from rami_lan.table import TableConfig, TableMachine
from rami_lan.table import effects as F
from rami_lan.table.masked_seat import MaskedSeat
from rami_lan.table.seat_machine import SeatMachine
from rami_lan.table.shuffle import commitment
from rami_lan.wire.masked_table import decode_for_seat


def masked_round(machine: TableMachine) -> Any:
    """The machine's masked deck of its current (or last) round, None if that round was
    dealt in the clear (`rami_lan.table.dealing.MaskedDealing.mr`)."""
    return getattr(machine.dealing, "mr", None)


def resign(signing: Any, author: int | None, plain: dict[str, Any]) -> dict[str, Any]:
    """``plain`` signed again by its author (when it is ``author``, whose round signing
    state is ``signing``): what a cheater that altered its own message sends."""
    if (signing is None or signing.key is None or not isinstance(plain, dict)
            or plain.get("k") not in MASKED_MESSAGE_KINDS or plain.get("seat") != author
            or plain.get("tag") != signing.roster.tag):
        return plain
    return {**plain, "sig": signing.sign(plain)}


class Entropy:
    def __init__(self, label: bytes) -> None:
        self.label = label
        self.n = 0

    def __call__(self, n: int) -> bytes:
        out = b""
        while len(out) < n:
            self.n += 1
            out += hashlib.sha256(self.label + self.n.to_bytes(8, "big")).digest()
        return out[:n]


def to_wire(msg: F.Msg, variant: str) -> bytes:
    return pack(F.wire_message(msg, variant))


def pack(msg: P.Message) -> bytes:
    """A message's wire bytes (the frame body: msgpack of its plain form)."""
    return msgpack.packb(msg.to_wire(), use_bin_type=True)


def unpack(wire: bytes) -> P.Message:
    return P.Message.from_wire(msgpack.unpackb(wire, raw=False, strict_map_key=True))


class JournalRecord(NamedTuple):
    kind: str
    body: dict[str, Any]


class WireClient:
    """One remote seat: decodes the wire, runs its MaskedSeat, plays with a bot policy."""

    def __init__(self, table: MaskedTable, conn: int, nick: str, level: str, seed: int,
                 owner: bool = False) -> None:
        self.t = table
        self.owner = owner
        """The host's own player: its keys are the host's, so it has no `MaskedSeat`."""
        self.owner_masked: list[str] = []
        """(owner) the kinds of the masked messages it got."""
        self.conn = conn
        self.nick = nick
        self.level = level
        self.seed = seed
        self.seat: int | None = None
        self.ms: MaskedSeat | None = None
        """The seat's masked-deck side (its `SeatMachine`'s), from ``welcome`` on."""
        self.policy: Any = None
        self.view: Any = None
        self.events: list[E.Event] = []
        self.pending: list[E.Event] = []
        self.secrets: dict[bytes, bytes] = {}
        self.seen: list[bytes] = []
        """Every frame this client received or sent (a spying client's bytes)."""
        self.acted = -1
        self.view_no = 0
        self.answered: int = -1
        self.errors: list[str] = []
        self.entropy = Entropy(b"client" + nick.encode())
        self.tracker: Any = None
        self.token: bytes | None = None
        self.sm: SeatMachine | None = None

    def send(self, kind: str, own_secret: bytes | None = None, core_action: Any = None,
             **fields: Any) -> None:
        if kind == "masked" and self.ms is not None and self.ms.p is not None:
            # A cheating client signs its cheat (a subclass may alter what it sends): every
            # masked message of ours goes signed as it is now (an honest one is unchanged).
            fields = dict(fields, m=resign(self.ms.p.signing, self.seat, fields["m"]))
        msg = P.KINDS[kind](**fields)
        if self.tracker is not None and kind in ("commit", "reveal", "action"):
            self.tracker.sent(msg, secret=own_secret, action=core_action)
        wire = pack(msg)
        self.seen.append(wire)
        self.t.host_seen.append(wire)
        self.t.inbox.append((self.conn, wire))

    def receive(self, wire: bytes) -> None:
        self.seen.append(wire)
        msg = unpack(wire)
        v = self.t.variant
        ms = self.ms
        if isinstance(msg, P.Welcome):
            self.token = msg.token
            if self.tracker is not None:  # back after a drop: what we sent goes again on mk_sync
                self.tracker.disconnected()
                if self.sm is not None:  # as `RemoteTableSession` does: our key is announced again
                    for m in self.sm.hello():
                        self.send("masked", m=m)
                return
            self.seat = msg.seat
            self.policy = make_bot(self.level, seat=msg.seat, seed=self.seed)
            self.tracker = FairnessTracker(facts_from_welcome(msg.table_id, msg.table, msg.seat),
                                           self.t.evidence_dir)
            # As `RemoteTableSession` does: the seat's decisions are its `SeatMachine`'s.
            self.sm = None if self.owner else SeatMachine(
                msg.seat, v, self.entropy, expect=self.tracker.verifier.expected_players,
                sign=self.t.config.private_deal)
            self.ms = None if self.sm is None else self.sm.masked
            # (our key is announced before the first thing we send: `SeatMachine.receive`)
            return
        if self.owner:
            self.receive_as_owner(msg)
            return
        assert ms is not None and self.sm is not None
        if isinstance(msg, P.Masked) and msg.m.get("k") in ("mk_own", "mk_orders"):
            self.receive_as_owner(msg)  # as `RemoteTableSession`: a round dealt without us
            return
        if isinstance(msg, P.Events) and any(
                e.get("type") == "TableNotice" and e.get("code") == "private_deal_benched"
                and (e.get("data") or {}).get("seat") == self.seat for e in msg.events):
            self.tracker.benched()  # as `RemoteTableSession`: the bot plays us from the next round
        if isinstance(msg, P.Masked):
            step = self.sm.receive(decode_for_seat(msg.m))
        elif isinstance(msg, P.Events):
            evs = [event_from_plain(e, v) for e in msg.events if e.get("type") != "TableNotice"]
            step = self.sm.receive((msg, evs), evs)
        else:
            step = self.sm.receive(msg)
        for out in step.send:
            self.send("masked", m=out)
        for item in step.ready:
            self.process(item)
        self.report(step)

    def receive_as_owner(self, msg: P.Message) -> None:
        """The host's own player, as `RemoteTableSession` takes ``mk_own`` / ``mk_orders``."""
        v = self.t.variant
        if isinstance(msg, P.Masked):
            self.owner_masked.append(msg.m["k"])
            item = _owner_masked(decode_for_seat(msg.m), v.deck_size)
            if isinstance(item, bytes):
                self.tracker.masked_round(item, stand_in=True)
            else:
                self.tracker.masked_orders(item)
        elif isinstance(msg, P.Events):
            evs = [event_from_plain(e, v) for e in msg.events if e.get("type") != "TableNotice"]
            self.process((msg, evs))
        else:
            self.process(msg)

    def process(self, item: Any) -> None:
        """One host message, in order, once our own cards in it are known."""
        ms = self.ms
        assert ms is not None or self.owner
        if isinstance(item, tuple):
            msg, evs = item
            filled = [ms.fill_event(e) for e in evs] if ms is not None else evs
            self.pending += filled
            self.tracker.received(msg, events=filled)
            return
        msg = item
        self.tracker.received(msg)
        if isinstance(msg, P.CommitRequest):
            secret = self.secrets.setdefault(msg.round_tag, self.entropy(32))
            self.send("commit", round_tag=msg.round_tag,
                      commit=commitment(msg.round_tag, msg.seat, secret), own_secret=secret)
        elif isinstance(msg, P.Commitments):
            if (msg.round_tag in self.secrets and self.t.reveal_secrets
                    and self.tracker.can_reveal(msg.round_tag)):
                self.send("reveal", round_tag=msg.round_tag, secret=self.secrets[msg.round_tag])
        elif isinstance(msg, P.View):
            view = view_from_plain(msg.view)
            self.view = ms.fill_view(view) if ms is not None else view
            self.view_no += 1
        elif isinstance(msg, P.Error):
            self.errors.append(f"{msg.code}: {msg.message}")

    def report(self, step: Any) -> None:
        """What the seat machine found, to the verifier (as `RemoteTableSession` does)."""
        for p in step.refusals:  # refusals fail the round (the host named)
            self.tracker.masked_refused(p.tag, p.kind, p.reason, p.evidence)
        for tag in step.rounds:
            self.tracker.masked_round(tag)
        for orders in step.orders:
            self.tracker.masked_orders(orders)

    def maybe_act(self) -> bool:
        """Play if it is our turn and we know our hand; True if something was sent."""
        ms, view = self.ms, self.view
        if view is None or (ms is None and not self.owner) or (ms is not None and not ms.complete()):
            return False
        if view.phase == "between" and self.answered != view.round_no:
            self.answered = view.round_no
            self.send("next_round", choice="continue")
            return True
        if not view.my_turn:
            return False
        if self.acted == self.view_no:
            return False
        self.acted = self.view_no
        events, self.pending = self.pending, []
        self.events += events
        action = self.policy.choose(view, tuple(events))
        step = self.sm.before_action(action, view) if self.sm is not None else None
        for out in step.send if step is not None else ():
            self.send("masked", m=out)
        if step is not None:
            self.report(step)
        self.send("action", seq=self.t.seq_no(), action=action_to_plain(action, self.t.variant),
                  core_action=action)
        return True


class MaskedTable:
    """A headless host (or one with bots) and remote wire clients, all in process."""

    def __init__(self, *, variant: str = "rami", seats: int = 4, bots: dict[int, str] | None = None,
                 levels: dict[int, str] | None = None, limit: int | None = 1,
                 private: bool = True, machine_cls: type[TableMachine] = TableMachine,
                 evidence_dir: Any = None, journal: bool = False, entropy: bytes = b"host",
                 owner: bool = False) -> None:
        bots = bots or {}
        self.config = TableConfig(name="masked", variant=variant, seats=seats, bots=bots, limit=limit,
                                  headless=not owner, host_nickname="p0", advertise=False,
                                  bot_delay=0.0, commit_timeout=5,
                                  reveal_timeout=5, between_timeout=5, private_deal=private,
                                  masked_wait=20.0, journal_dir="/nowhere" if journal else None,
                                  resume_grace=3.0)
        self.variant = get_variant(variant)
        self.machine = machine_cls(self.config, Entropy(entropy))
        self.now = 10.0
        self.inbox: deque[tuple[int, bytes]] = deque()
        self.host_seen: list[bytes] = []
        """Every frame the host received or sent (the spying host's bytes)."""
        self.clients: dict[int, WireClient] = {}
        self.journal_snap: Any = None
        self.journal_records: list[JournalRecord] = []
        self.reveal_secrets = True
        self.evidence_dir = evidence_dir
        self._seq = 0
        self.wake: float | None = None
        self.steps = 0
        humans = [s for s in range(seats) if s not in bots]
        for k, _ in enumerate(humans):
            conn = k + 1
            level = (levels or {}).get(k, "moyen")
            self.clients[conn] = WireClient(self, conn, f"p{k}", level, seed=k + 7, owner=owner and k == 0)

    def seq_no(self) -> int:
        self._seq += 1
        return self._seq

    def feed(self, effects: list[F.Effect]) -> None:
        for eff in effects:
            mr = masked_round(self.machine)
            if isinstance(eff, F.Send) and isinstance(eff.msg, P.Masked) and mr is not None:
                # A cheating host signs its own cheat (a subclass may alter what it sends).
                m = resign(mr.signing, mr.host_seat, eff.msg.m)
                eff = F.Send(eff.conn, P.Masked(m=m))
            if isinstance(eff, F.Send):
                wire = to_wire(eff.msg, self.variant.id)
                self.host_seen.append(wire)
                self.clients[eff.conn].receive(wire)
            elif isinstance(eff, F.Wake):
                self.wake = eff.at
            elif isinstance(eff, F.JournalSnapshot):
                self.journal_snap, self.journal_records = eff.body, []
            elif isinstance(eff, F.JournalAppend):
                self.journal_records.append(JournalRecord(eff.kind, eff.body))

    def handle(self, conn: int, wire: bytes) -> None:
        m, now = self.machine, self.now
        msg = unpack(wire)
        if isinstance(msg, P.Commit):
            self.feed(m.commit(conn, msg.round_tag, msg.commit, now))
        elif isinstance(msg, P.Reveal):
            self.feed(m.reveal(conn, msg.round_tag, msg.secret, now))
        elif isinstance(msg, P.Masked):
            self.feed(m.masked(conn, decode_inbound(msg.m), now))
        elif isinstance(msg, P.Action):
            try:  # decoded at the edge, as the host does
                action = action_from_plain(msg.action, m.variant)
            except (MalformedAction, RulesError, ValueError, KeyError, TypeError) as exc:
                self.feed(m.refuse(conn, "bad_action", str(exc), msg.seq, now))
            else:
                self.feed(m.action(conn, msg.seq, action, now))
        elif isinstance(msg, P.NextRound):
            self.feed(m.next_round(conn, msg.choice, now))
        else:  # pragma: no cover - the harness sends nothing else
            raise AssertionError(f"unexpected {msg.KIND}")

    def drop(self, conn: int) -> WireClient:
        """The connection dies: what the client had in flight is lost with it."""
        client = self.clients.pop(conn)
        self.inbox = deque(item for item in self.inbox if item[0] != conn)
        self.feed(self.machine.left(conn, self.now))
        return client

    def leave(self, conn: int) -> WireClient:
        """The player quits mid-round: its client hands over first (as
        `RemoteTableSession.close` does), then its connection closes."""
        client = self.clients[conn]
        assert client.ms is not None
        for out in client.ms.hand_over():
            client.send("masked", m=out)
        while self.inbox:
            self.handle(*self.inbox.popleft())
        return self.drop(conn)

    def rejoin(self, client: WireClient) -> None:
        """The same client (same process, same keys) comes back with its token."""
        client.conn = max(self.clients, default=0) + 100
        self.clients[client.conn] = client
        self.feed(self.machine.joined(client.conn, self.now, nick=client.nick, token=client.token))

    def crash_and_resume(self) -> None:
        """The host process dies (every connection with it) and comes back from its
        journal; every client comes back with its token (the same client processes)."""
        self.inbox.clear()
        old = self.machine
        self.machine = type(old).restore(self.journal_snap, self.journal_records, self.config,
                                         Entropy(b"host, restarted"), now=self.now)
        self.feed(self.machine.resumed(self.now))
        clients = list(self.clients.values())
        self.clients = {}
        for c in clients:
            if c.owner:  # the host's own player: with the restarted host's owner token
                c.token = self.machine.owner_token
            self.rejoin(c)

    def start(self) -> None:
        for conn, c in self.clients.items():
            token = self.machine.owner_token if c.owner else None
            self.feed(self.machine.joined(conn, self.now, nick=c.nick, token=token))

    def run(self, max_steps: int = 200_000, until: Any = None) -> None:
        """Deliver, play and move time until the match is over (or ``until()``)."""
        while (not self.machine.over or self.inbox) and self.steps < max_steps:
            if until is not None and until():
                return
            self.steps += 1
            if self.inbox:
                self.handle(*self.inbox.popleft())
                continue
            if any(c.maybe_act() for c in self.clients.values()):
                continue
            if self.wake is None:
                if until is not None:
                    return  # nothing moves: the caller decides (e.g. a player must come back)
                raise AssertionError(f"stuck: stage {self.machine.stage}, phase {self.machine.match.phase}")
            self.now = max(self.now, self.wake)
            self.feed(self.machine.tick(self.now, max_steps=1))
        assert self.machine.over or until is not None, "the match did not end"


# ---------------------------------------------------------------------- spying


Slot = tuple[int, int]


Keys = dict[Slot, dict[int, bytes]]
_PARSED: dict[bytes, Any] = {}
"""Frame -> its masked-deck message (None: another kind): each frame is parsed once."""
Finals = dict[int, tuple[bytes, ...]]


def knowledge(frames: list[bytes], own: Any = None) -> tuple[Keys, Finals]:
    """Every key and every deck's final points that these frames (and a participant's
    own journal, ``own``) hold."""
    keys: dict[Slot, dict[int, bytes]] = {}
    finals: dict[int, tuple[bytes, ...]] = {}
    for wire in dict.fromkeys(frames):
        if wire not in _PARSED:
            msg = unpack(wire) if b"mk_" in wire else None
            _PARSED[wire] = (from_plain(msg.m) if isinstance(msg, P.Masked) and msg.m["k"] not in (
                "mk_round", "mk_deal", "mk_show", "mk_hand", "mk_own", "mk_orders", "mk_seatkey",
                "mk_receipt") else None)
        mm = _PARSED[wire]
        if mm is None:
            continue
        if isinstance(mm, KeyRelease):
            keys.setdefault((mm.deck, mm.position), {})[mm.seat] = mm.key
        elif isinstance(mm, CardReveal):
            keys.setdefault((mm.deck, mm.position), {}).update(dict(mm.keys))
        elif isinstance(mm, Handover):
            for deck, position, key in mm.keys:
                keys.setdefault((deck, position), {})[mm.seat] = key
        elif isinstance(mm, LockPass):
            finals[mm.deck] = mm.points
    if own is not None:
        for d in own.snapshot()["decks"]:
            finals[d["deck"]] = tuple(d["locks"][-1])
            for j, key in enumerate(d["secrets"][2]):
                keys.setdefault((d["deck"], j), {})[own.seat] = key
    return keys, finals


def can_name(slot: Slot, keys: dict[Slot, dict[int, bytes]], finals: dict[int, tuple[bytes, ...]],
             n_cards: int) -> int | None:
    """Try every subset of the keys held for ``slot``: the card id if one unmasks it."""
    point = finals[slot[0]][slot[1]]
    held = list(keys.get(slot, {}).values())
    cards = card_table(n_cards)
    for size in range(len(held) + 1):
        for subset in combinations(held, size):
            card = cards.card_of(unmask(point, subset) if subset else point)
            if card is not None:
                return card
    return None


def frames_size(frames: list[bytes]) -> int:
    return sum(len(f) for f in frames)


__all__ = ["MaskedTable", "WireClient", "can_name", "knowledge", "pack", "unpack"]
