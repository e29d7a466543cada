"""A client seat at a private table, as a sans-I/O machine: the client's twin of the table machine.

The network client (`rami_lan.net.client.RemoteTableSession`) is transport: it gives a
`SeatMachine` every message from the host as it arrives (`receive`), asks it before
sending an action (`before_action`), when the move timer ran out (`timeout_move`) and
when the player leaves (`leave`, then `tick(now)` until it answers), and does what each
`SeatStep` says: send the masked messages (in order, before anything else), handle the
host messages that may go on now (in order), tell the player and the verifier.

The machine owns the seat's masked-deck participant and its secrets (`MaskedSeat`),
through it the seat's own replay of the public game (`rami_lan.table.seat_gate`), and
every decision of private dealing at a client:

* **the hold queue**: the host's messages wait, in order, while a key for one of our
  cards is on its way (`MaskedSeat.must_hold`); ``SeatStep.ready`` releases them;
* **what is given away**: keys, reveals and the audit only as the rules give them
  (`MaskedSeat`, `PublicReplay`); a refused host message is reported once
  (``SeatStep.refusals``: the round fails naming the host);
* **faults** found while playing, once each (``SeatStep.faults``);
* **fairness reporting**: the masked rounds begun (``SeatStep.rounds``) and, once every
  message before them went on, each round's audited deck orders for the verifier's
  replay (``SeatStep.orders``);
* **the timed-out automatic move** (``mk_timeout``): the host can not play our hidden
  hand; the rules choose the move (`core.shadow.automatic_move`), once per view;
* **leaving mid-round**: the hand-over, waiting up to `HAND_OVER_WAIT` seconds for a card
  of ours still on its way;
* **surviving a crash**: what the round needs from us that the host's resync can not give
  back (our secrets' randomness, the reveals we chose: `rami_lan.table.seat_keys`) goes to
  the ``keep`` sink whenever it changes, before the messages it makes possible are handed
  out (write-ahead); a relaunched client gives it back with `restore`.

No sockets, no clock (``now`` is given), no event loop: tests drive it directly.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rami_lan.core import actions as A
from rami_lan.core.cards import Card
from rami_lan.core.variants import Variant
from rami_lan.core.views import SeatView
from rami_lan.masked.audit import Fault
from rami_lan.masked.signing import SeatKey
from rami_lan.table import verifier as V
from rami_lan.table.effects import TableNotice
from rami_lan.table.masked_seat import MaskedSeat, MaskedSeatError, Refusal
from rami_lan.table.seat_keys import decode, encode

__all__ = ["HAND_OVER_WAIT", "SeatMachine", "SeatStep"]

log = logging.getLogger(__name__)

HAND_OVER_WAIT = 3.0
"""Seconds a seat leaving mid-round waits for a card of its own still on its way."""


@dataclass
class SeatStep:
    """What one input made the seat do (each list in order; often all empty)."""

    send: list[dict[str, Any]] = field(default_factory=list)
    """Masked messages (plain) for the host, before anything else is sent."""
    ready: list[Any] = field(default_factory=list)
    """Host messages that may be handled now (an events message as (message, events),
    its events filled with our own cards by `fill_event`)."""
    refusals: list[Refusal] = field(default_factory=list)
    """Host messages refused: nothing was given; the round fails naming the host."""
    faults: list[Fault] = field(default_factory=list)
    """Masked-deck faults found (who, what, evidence)."""
    rounds: list[bytes] = field(default_factory=list)
    """Round tags of masked rounds begun (the verifier waits for their orders)."""
    orders: list[V.MaskedOrders] = field(default_factory=list)
    """Audited deck orders of finished rounds, for the verifier's replay."""

    def __bool__(self) -> bool:
        return bool(self.send or self.ready or self.refusals or self.faults or self.rounds or self.orders)


class SeatMachine:
    """One client seat's private dealing, across the rounds of a match (module docstring)."""

    def __init__(self, seat: int, variant: Variant, entropy: Callable[[int], bytes], *,
                 expect: Callable[[], tuple[int, ...] | None] | None = None,
                 table_id: str = "", keep: Callable[[bytes | None], None] | None = None,
                 sign: bool = True, key_entropy: Callable[[int], bytes] = os.urandom,
                 relaunched: bool = False) -> None:
        """``expect``: the next round's players as the seat's verifier derives them.
        ``keep``: where the seat's keys journal goes (`rami_lan.table.seat_keys`, bound to
        ``table_id``), called with its bytes before any message they make possible is
        handed out, and with None when no round of ours is open any more. ``sign``: the
        seat signs its masked messages with a key of its own, announced to the host
        (``mk_seatkey``) before anything else it sends, and refuses unsigned rounds
        (`rami_lan.masked.signing`; False: an unsigned seat, for tests of older forms),
        its key drawn from ``key_entropy`` (apart from the game's ``entropy``).
        ``relaunched``: a new process at a table it sat at (`MaskedSeat.relaunched`)."""
        self.masked = MaskedSeat(seat, variant, entropy)
        self.masked.expect = expect
        self.masked.relaunched = relaunched
        self.table_id = table_id
        self._keep = keep
        self._kept_at = 0
        self._problems_told = 0
        self._faults_told = 0
        self._round_told: bytes | None = None
        self._orders_given: set[bytes] = set()
        self._auto_view: SeatView | None = None
        self._leave_until: float | None = None
        self._key_entropy = key_entropy
        self._sign = sign
        self._announce_due = sign

    # ------------------------------------------------------------------ input

    def receive(self, item: Any, events: Sequence[Any] | None = None) -> SeatStep:
        """One host message as it arrives: a masked message (decoded at the edge:
        `rami_lan.wire.masked_table.decode_for_seat`), an events
        message as ``(message, decoded events)`` with ``events`` its decoded events (table
        notices as `TableNotice` among them), or any other message (kept as it is)."""
        ms = self.masked
        first = self._announce()
        outs, ready = ms.take(item, events)
        step = SeatStep(send=[*first, *outs], ready=[self._filled(x) for x in ready])
        return self._progress(step)

    def hello(self) -> list[dict[str, Any]]:
        """A new connection to the host (the first, a reconnect, or the host restarted):
        our key's announcement (``mk_seatkey``), to send at once, before anything else
        (if it is not sent, it goes before the next thing we send)."""
        self._announce_due = self._sign
        return self._announce()

    def _announce(self) -> list[dict[str, Any]]:
        if not self._announce_due:
            return []
        self._announce_due = False
        ms = self.masked
        key = ms.key if ms.key is not None else SeatKey.generate(self._key_entropy)
        return [ms.sign_with(key, self.table_id)]

    def before_action(self, action: A.Action, view: SeatView | None = None) -> SeatStep:
        """Before sending ``action``: the reveals proving its cards are ours (none for a
        card that is not ours to reveal: the host then refuses the play itself); with
        ``view``, also the cards a take from the pile must be used with this turn (the
        host rules on the take with them, as a plain host does)."""
        try:
            return self._progress(SeatStep(send=self.masked.reveals_for(action, view)))
        except MaskedSeatError:
            return self._progress(SeatStep())

    def timeout_move(self, view: SeatView | None, drawn: Card | None) -> A.Action | None:
        """The move to play now because our move timer ran out (``mk_timeout`` for this
        turn), if any: the rules' automatic move (`core.shadow.automatic_move`: draw,
        then discard the card drawn, ``drawn``), or any legal draw or discard if the
        turn's obligations forbid that one. Once per view; never while a card of ours is
        on its way (the view is not ours yet)."""
        ms = self.masked
        if (view is None or ms.timeout_turn is None or not view.my_turn
                or view.turn_no != ms.timeout_turn or ms.must_hold() or view is self._auto_view
                or any(c is None for c in view.hand)):
            return None  # (a hand with cards we can not unmask: no move can be chosen)
        from rami_lan.core.shadow import automatic_move, is_legal_for_view
        from rami_lan.table.policy import fallback_action

        action = automatic_move(view, drawn)
        if action is None or not is_legal_for_view(view, action):
            action = fallback_action(view)
        self._auto_view = view
        return action

    def leave(self, now: float, wait: float = HAND_OVER_WAIT) -> list[dict[str, Any]] | None:
        """The player leaves the table for good: the hand-over to send (``[]``: no round
        is being played, or we gave up waiting), or None while a card of ours is still on
        its way (ask again with `tick`; after ``wait`` seconds we leave without it: the
        table waits for us, then voids the round)."""
        if self._leave_until is None:
            self._leave_until = now + wait
        return self.tick(now)

    def tick(self, now: float) -> list[dict[str, Any]] | None:
        """Time passes: while leaving, the hand-over once it can be made (see `leave`)."""
        if self._leave_until is None:
            return []
        outs = self.masked.hand_over()
        if outs is None and now < self._leave_until:
            return None
        self._leave_until = None
        return outs or []

    def restore(self, raw: bytes) -> bool:
        """After a relaunch: the keys journal kept for this table (`keep`'s bytes). A
        journal that is malformed, of another table or seat, is ignored (logged): False."""
        try:
            keys = decode(raw, table_id=self.table_id, seat=self.masked.seat)
            self.masked.restore(keys)
        except (ValueError, MaskedSeatError) as exc:
            log.warning("private dealing: the kept keys file is ignored: %s", str(exc)[:200])
            return False
        return True

    # ------------------------------------------------------------------ internals

    def _save(self) -> None:
        ms = self.masked
        if self._keep is None or ms.journal_changes == self._kept_at:
            return
        self._kept_at = ms.journal_changes
        keys = ms.journal(self.table_id) if self.table_id else None
        self._keep(encode(keys) if keys is not None else None)

    def _filled(self, item: Any) -> Any:
        if isinstance(item, tuple):
            msg, decoded = item
            return msg, [e if isinstance(e, TableNotice) else self.masked.fill_event(e) for e in decoded]
        return item

    def _progress(self, step: SeatStep) -> SeatStep:
        """Refusals and faults found, rounds begun, and (once nothing earlier is held) each
        round's audited orders, each reported once."""
        ms = self.masked
        self._save()  # write-ahead: the secrets and reveals are kept before they leave
        step.refusals += ms.problems[self._problems_told:]
        self._problems_told = len(ms.problems)
        step.faults += ms.faults[self._faults_told:]
        self._faults_told = len(ms.faults)
        if ms.tag is not None and ms.tag != self._round_told:
            self._round_told = ms.tag
            step.rounds.append(ms.tag)
        if ms.must_hold():
            return step  # in order: after the messages still held (a void round's event, say)
        for tag, report in ms.reports.items():
            if tag in self._orders_given:
                continue
            self._orders_given.add(tag)
            step.orders.append(V.MaskedOrders.from_report(tag, report, ms.refill_decks()))
        return step
