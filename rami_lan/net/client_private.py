"""The network client's part in private dealing that is not the seat machine's: the
seat's keys journal kept beside its seat file, the hand-over when leaving mid-round,
what a step of the `SeatMachine` found told to the player and the verifier, and a
round dealt without us (``mk_own`` / ``mk_orders`` at the host's own seat, or while
benched), read by `_owner_masked`.

Split out of `rami_lan.net.client`: `ClientPrivateDeal` is a mixin of
`rami_lan.net.client.RemoteTableSession` (``self`` is the session), which still offers
every name from here.
"""

from __future__ import annotations

import asyncio
import logging

from rami_lan.core.variants import get_variant
from rami_lan.net import protocol as P
from rami_lan.net.notices import Notice, NoticeCode
from rami_lan.net.table_session import SessionUpdate
from rami_lan.table import verifier as V
from rami_lan.table.masked_seat import MaskedSeat
from rami_lan.table.seat_machine import HAND_OVER_WAIT, SeatStep
from rami_lan.textsafe import clip, safe_text
from rami_lan.wire.masked_table import MkOrders, MkOwn, SeatMasked, Unparsed, kind_of

log = logging.getLogger("rami_lan.net.client")

__all__ = ["ClientPrivateDeal"]


class ClientPrivateDeal:
    """Private dealing at a `RemoteTableSession` (a mixin: ``self`` is the session)."""

    @property
    def masked(self) -> MaskedSeat | None:
        """Private dealing: this seat's side of the masked deck (None: not in use)."""
        return self.seat_machine.masked if self.seat_machine is not None else None

    def _keep_keys(self, data: bytes | None) -> None:
        """Our private-deal keys journal (None: no round open) beside the seat file."""
        if self.seat_store is None or not self.table_id:
            return
        try:
            self.seat_store.save_keys(self.table_id.hex(), data)
        except (OSError, ValueError) as exc:
            log.warning("could not keep the seat's private-deal keys: %s", clip(str(exc), 200))

    async def _hand_over(self, wait: float = HAND_OVER_WAIT) -> None:
        """Leaving mid-round at a private table: give the host our hand and everyone our
        stock keys, so the round goes on without us (a card of ours still on its way is
        waited for, up to ``wait`` seconds: `SeatMachine.leave`)."""
        sm = self.seat_machine
        if sm is None:
            return
        loop = asyncio.get_running_loop()
        outs = sm.leave(loop.time(), wait)
        while outs is None:
            await asyncio.sleep(0.02)
            outs = sm.tick(loop.time())
        if not outs and sm.masked.active:
            log.warning("private dealing: left before a card of ours came in: no hand-over "
                        "(the table waits for us, then voids the round)")
        elif outs:
            log.info("private dealing: leaving mid-round, hand-over of %d message(s)", len(outs))
        if outs:
            await self._send(*(P.Masked(m=out) for out in outs))

    def _masked_report(self, step: SeatStep) -> None:
        """Tell the player and our verifier what a step of the seat machine found: host
        messages refused (the host named), faults, masked rounds begun, audited orders."""
        host = self.table.get("host_seat")
        host = host if isinstance(host, int) else 255
        for p in step.refusals:
            log.warning("private dealing: refused the host's %s: %s", p.kind, clip(p.reason, 300))
            if p.tag not in self._refused_rounds:  # the player is told once a round
                self._refused_rounds.add(p.tag)
                self._queue.put_nowait(SessionUpdate(notice=Notice.of(
                    NoticeCode.PRIVATE_DEAL_REFUSED, what=p.kind, seat=host)))
            if self.tracker is not None:
                self.mismatches.extend(self.tracker.masked_refused(p.tag, p.kind, p.reason, p.evidence))
        for f in step.faults:
            log.warning("private dealing: %s by seat %s: %s", f.kind.name, f.seat, f.evidence)
            self._queue.put_nowait(SessionUpdate(notice=Notice.of(
                NoticeCode.PRIVATE_DEAL_FAULT, kind=f.kind.name, seat=f.seat)))
        if self.tracker is None:
            return
        for tag in step.rounds:
            self.tracker.masked_round(tag)
        for orders in step.orders:
            self.mismatches.extend(self.tracker.masked_orders(orders))
        if step.refusals or step.rounds or step.orders:
            self._fair_report()

    def _on_owner_masked(self, m: SeatMasked) -> None:
        """Private dealing, at the host's own seat (its keys are the host's, so this client
        holds none): ``mk_own`` says a round is dealt from a masked deck, ``mk_orders``
        gives the host's audited orders, which our verifier replays the round with. Any
        other masked message, or one that does not parse, is dropped (logged)."""
        ms = self.masked
        tag = m.tag if isinstance(m, MkOwn | MkOrders) else None
        ours = self.seat == self.table.get("host_seat") or (
            ms is not None and ms.tag != tag)  # a round we hold no keys of (benched)
        if self.tracker is None or not ours:
            log.warning("private dealing: a masked message for no participant dropped")
            return
        try:
            item = _owner_masked(m, get_variant(self.variant).deck_size)
        except ValueError as exc:
            log.warning("private dealing: the host's %s is malformed: %s", clip(kind_of(m), 20),
                        clip(str(exc), 200))
            return
        if isinstance(item, bytes):
            self.tracker.masked_round(item, stand_in=True)  # (the verifier: unless the host's seat)
        else:
            self.mismatches.extend(self.tracker.masked_orders(item))
        self._fair_report()


def _owner_masked(m: SeatMasked, n_cards: int) -> bytes | V.MaskedOrders:
    """The round tag of an ``mk_own``, or the audited orders of an ``mk_orders``."""
    if isinstance(m, Unparsed):
        raise ValueError(m.reason)
    if isinstance(m, MkOwn):
        return m.tag
    if not isinstance(m, MkOrders):
        raise ValueError("not for the host's own seat")
    if any(c >= n_cards for _d, ids in m.orders for c in ids):
        raise ValueError(f"card ids: integers in [0, {n_cards}) expected")
    return V.MaskedOrders(m.tag, dict(m.orders), dict(m.gens), tuple(safe_text(f)[:500] for f in m.faults))
