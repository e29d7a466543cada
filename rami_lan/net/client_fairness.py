"""The network client's fair-shuffle bookkeeping: its `FairnessTracker` (started after
``welcome``, kept across reconnects and, through the seat store's checkpoint, across a
relaunch), fed every message received and sent, and each round's fairness state told to
the UI as it changes.

Split out of `rami_lan.net.client`: `ClientFairness` is a mixin of
`rami_lan.net.client.RemoteTableSession` (``self`` is the session). The commit and
reveal themselves are the session's (`RemoteTableSession._on_commit_request`).
"""

from __future__ import annotations

import logging

from rami_lan.core import actions as A
from rami_lan.core.events import Event
from rami_lan.net import protocol as P
from rami_lan.net.fairness import FairnessRound, FairnessTracker, facts_from_welcome
from rami_lan.net.table_session import SessionUpdate
from rami_lan.textsafe import clip

log = logging.getLogger("rami_lan.net.client")

__all__ = ["ClientFairness"]


class ClientFairness:
    """The fairness verifier of a `RemoteTableSession` (a mixin: ``self`` is the session)."""

    def _fair_end(self) -> None:
        if self.tracker is not None:
            self.tracker.ended()
            self._fair_report()

    def _fair_start(self) -> None:
        """After ``welcome``: the verifier of this seat (kept across reconnects). A new
        process back in its seat goes on from what the dead one had checked (the seat
        store's checkpoint), if it is one of this table, seat and match."""
        if self.tracker is None:
            facts = facts_from_welcome(self.table_id, self.table, self.seat,
                                       rejoin=self._rejoin)
            self.tracker = FairnessTracker(facts, self.evidence_dir)
            store = self.seat_store
            if store is not None and self._rejoin:
                kept = store.load_checks(self.table_id.hex())
                if kept is not None and not self.tracker.verifier.restore(kept):
                    log.warning("the kept verifier checkpoint is not of this seat or match: ignored")

    def _keep_checks(self) -> None:
        """What our verifier has checked goes to the seat store when it changed."""
        store, tracker = self.seat_store, self.tracker
        if store is None or tracker is None or not self.table_id or self._seat_forgotten:
            return
        verifier = tracker.verifier
        key = verifier.checkpoint_key()
        if key == self._checks_key:
            return
        self._checks_key = key
        try:
            store.save_checks(self.table_id.hex(), verifier.checkpoint())
        except OSError as exc:
            log.warning("cannot keep the verifier checkpoint: %s", clip(exc))

    def _fair_in(self, msg: P.Message, events: list[Event] | None = None) -> None:
        if self.tracker is not None:
            self.mismatches.extend(self.tracker.received(msg, events=events))
            self._fair_report()

    def _fair_out(self, msg: P.Message, *, secret: bytes | None = None,
                  action: A.Action | None = None) -> None:
        if self.tracker is not None:
            self.mismatches.extend(self.tracker.sent(msg, secret=secret, action=action))
            self._fair_report()

    def fairness_rounds(self) -> tuple[FairnessRound, ...]:
        """Every round's fairness state so far (empty before ``welcome``)."""
        return self.tracker.rounds() if self.tracker is not None else ()

    def _on_secrets(self, msg: P.RoundSecrets) -> None:
        self._fair_in(msg)

    def _fair_report(self) -> None:
        """Tell the UI about every round whose fairness state changed."""
        if self.tracker is None:
            return
        self._keep_checks()
        changed = self.tracker.changes()
        for r in changed:
            self._report_fairness(r)

    def _report_fairness(self, r: FairnessRound) -> None:
        if r.status == "pending":  # e.g. an exclusion announced: shown, nothing judged yet
            self._queue.put_nowait(SessionUpdate(fairness_round=r,
                                                 fairness_rounds=self.fairness_rounds()))
            return
        ok = r.status in ("checked", "partial")
        if r.status == "failed":
            log.warning("fairness check failed: %s", r.reason)
        self.fairness.append((ok, r.reason))
        self._queue.put_nowait(SessionUpdate(fairness=(ok, r.reason), fairness_round=r,
                                             fairness_rounds=self.fairness_rounds()))
