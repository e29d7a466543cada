"""A client's fairness tracker: protocol messages in, per-round fairness state out.

`to_inputs` turns one protocol message (received or sent) into the inputs of the
sans-I/O `rami_lan.table.verifier.SeatVerifier`; `FairnessTracker` owns one verifier for
a session, keeps the message log, writes an evidence file (JSON, in the data folder)
the moment a round fails, and reports each round's state as `FairnessRound` values
for the UI and the bot summary.

Evidence file (``<data>/fairness/<table12>-m<match>-r<round>-s<seat>.json``)::

    {"format": "rami-lan-fairness-evidence", "version": 1, "facts": {...},
     "round": {"round_no": 3, "status": "failed", "reason": "...", "findings": [...]},
     "messages": [{"dir": "in" | "out", "msg": <wire map, bytes as {"hex": ..}>}, ...]}

``messages`` is everything this seat received and sent (its own secrets included: the
round is over or failed), so anyone can feed it to a `SeatVerifier` again
(`load_stream`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rami_lan.core import actions as A
from rami_lan.core.codec import action_from_plain, event_from_plain
from rami_lan.core.errors import MalformedAction, RulesError
from rami_lan.ids import TABLE_NOTICE
from rami_lan.net import protocol as P
from rami_lan.table import verifier as V

log = logging.getLogger(__name__)

__all__ = [
    "EVIDENCE_FORMAT",
    "FairnessRound",
    "FairnessTracker",
    "facts_from_welcome",
    "load_stream",
    "to_inputs",
]

EVIDENCE_FORMAT = "rami-lan-fairness-evidence"
#: At most this many messages are kept for the evidence (a long match is ~20k).
MAX_LOG = 200_000


@dataclass(frozen=True, slots=True)
class FairnessRound:
    """One round's fairness, as facts (`rami_lan.cli.messages.fairness_details` makes
    the player's sentence).

    ``status``: ``pending`` (being played, nothing wrong so far), ``checked`` (fully
    replayed), ``partial`` (events were missed during a disconnect: only what was seen is
    checked), ``unchecked`` (the session ended first) or ``failed`` (``reason`` says what
    disagreed; ``evidence`` is the file holding the proof).
    """

    round_no: int
    status: str
    reason: str
    evidence: str | None = None
    cards_checked: int = 0
    events_checked: int = 0
    excluded: tuple[tuple[int, str], ...] = ()
    """(seat, reason code) of every seat the host announced excluded from the seed."""
    void: tuple[int | None, str] | None = None
    """A void round: (the seat it names, the reason code: ``player_gone`` it left,
    ``no_answer`` it missed a deadline)."""
    withheld: tuple[int, ...] = ()
    """Participants that withheld their masked-deck audit (the round is ``partial``:
    their fault, neither the host's nor ours)."""

    @property
    def ok(self) -> bool:
        return self.status == V.Status.CHECKED


def facts_from_welcome(table_id: bytes, table: Mapping[str, Any], seat: int, *,
                       rejoin: bool = False) -> V.TableFacts:
    """The table facts the verifier derives from, as the welcome message gave them.

    ``rejoin``: we connected with a token from an earlier session (a match may be in
    progress: the first view tells)."""
    def _int(key: str, default: int) -> int:
        value = table.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else default

    limit = table.get("limit")
    return V.TableFacts(
        table_id=bytes(table_id), match_no=_int("match_no", 1),
        variant=str(table.get("variant", "rami")), n_seats=_int("seats", 2), seat=seat,
        host_seat=_int("host_seat", 255),
        limit=limit if isinstance(limit, int) and not isinstance(limit, bool) else None,
        quick=bool(table.get("quick")), knock=bool(table.get("knock")), rejoin=rejoin,
    )


def to_inputs(msg: P.Message, variant: str, *, sent: bool, secret: bytes | None = None,
              action: A.Action | None = None) -> list[V.Input]:
    """The verifier inputs of one protocol message (often none).

    ``secret``: with a sent ``commit``, the secret it commits to. ``action``: with a sent
    ``action``/``knock``, the core action (decoded from the message when not given).
    """
    if sent:
        if isinstance(msg, P.Commit) and secret is not None:
            return [V.CommitSent(msg.round_tag, msg.commit, secret)]
        if isinstance(msg, P.Reveal):
            return [V.RevealSent(msg.round_tag, msg.secret)]
        if isinstance(msg, P.Action | P.Knock):
            if action is None and isinstance(msg, P.Action):
                try:
                    action = action_from_plain(msg.action, variant)
                except (MalformedAction, RulesError, ValueError, KeyError, TypeError):
                    return []
            if action is None:
                return []
            return [V.ActionSent(msg.seq, action)]
        return []
    if isinstance(msg, P.CommitRequest):
        return [V.CommitAsked(msg.round_tag, msg.seat)]
    if isinstance(msg, P.Commitments):
        return [V.CommitmentsSeen(msg.round_tag, dict(msg.commits), msg.excluded)]
    if isinstance(msg, P.RoundSecrets):
        return [V.SecretsSeen(msg.round_tag, dict(msg.secrets), tuple(msg.excluded), msg.reasons)]
    if isinstance(msg, P.Events):
        return [V.EventsSeen(msg.seq, tuple(decode_events(msg.events, variant)))]
    if isinstance(msg, P.View):
        plain = msg.view if isinstance(msg.view, dict) else {}
        round_no, phase = plain.get("round_no"), plain.get("phase")
        return [V.ViewSeen(msg.seq, round_no if isinstance(round_no, int) else None,
                           phase if isinstance(phase, str) else None)]
    if isinstance(msg, P.Error):
        return [V.Refused(msg.ref, msg.code, msg.message)]
    return []


def decode_events(plains: Iterable[Any], variant: str) -> list[Any]:
    """Core events of an ``events`` message (table notices and undecodable ones left out)."""
    out = []
    for plain in plains:
        if isinstance(plain, dict) and plain.get("type") == TABLE_NOTICE:
            continue
        try:
            out.append(event_from_plain(plain, variant))
        except (MalformedAction, TypeError, KeyError, ValueError) as exc:
            log.warning("bad event from the host: %s", exc)
    return out


# --------------------------------------------------------------------------- tracker


class FairnessTracker:
    """The fairness side of one client session (no sockets: the client calls it)."""

    def __init__(self, facts: V.TableFacts, evidence_dir: Path | None = None) -> None:
        self.facts = facts
        self.verifier = V.SeatVerifier(facts)
        self.evidence_dir = evidence_dir
        self.evidence: dict[int, str] = {}
        self.log: list[dict[str, Any]] = []
        self._reported: dict[int, str] = {}
        self.found_at: dict[int, int] = {}
        """round -> index in `log` of the message at which the round first failed."""

    # ---- feeding

    def received(self, msg: P.Message, *, events: Sequence[Any] | None = None) -> list[V.Finding]:
        self._log("in", msg)
        if isinstance(msg, P.Events) and events is not None:
            inputs: list[V.Input] = [V.EventsSeen(msg.seq, tuple(events))]
        else:
            inputs = to_inputs(msg, self.facts.variant, sent=False)
        return self._feed(inputs)

    def sent(self, msg: P.Message, *, secret: bytes | None = None,
             action: A.Action | None = None) -> list[V.Finding]:
        self._log("out", msg, secret)
        return self._feed(to_inputs(msg, self.facts.variant, sent=True, secret=secret,
                                    action=action))

    def masked_round(self, tag: bytes, stand_in: bool = False) -> list[V.Finding]:
        """Private dealing: round ``tag`` is dealt from a masked deck (``stand_in``: without
        our seat, which the host's bot plays: `V.MaskedRoundSeen`)."""
        self._log_note("masked_round", {"tag": tag, "stand_in": stand_in})
        return self._feed([V.MaskedRoundSeen(tag, stand_in)])

    def benched(self) -> list[V.Finding]:
        """The host said our seat left the private deal: its bot plays it from the next
        round (`V.SeatBenched`)."""
        self._log_note("benched", {})
        return self._feed([V.SeatBenched()])

    def masked_orders(self, item: V.MaskedOrders) -> list[V.Finding]:
        """Private dealing: a round's audited deck orders (the replay waits for them)."""
        self._log_note("masked_orders", {
            "tag": item.tag, "orders": {str(k): list(v) for k, v in item.orders.items()},
            "gen_decks": {str(k): v for k, v in item.gen_decks.items()}, "faults": list(item.faults)})
        return self._feed([item])

    def masked_refused(self, tag: bytes | None, kind: str, reason: str, evidence: Any = None
                       ) -> list[V.Finding]:
        """Private dealing: our seat refused a host message (``evidence``: that message,
        kept in the log): the round fails naming the host."""
        self._log_note("masked_refused", {"tag": tag, "kind": kind, "reason": reason,
                                          "message": _evidence(evidence, self.facts.variant)})
        return self._feed([V.MaskedRefused(tag, kind, reason)])

    def disconnected(self) -> None:
        self._feed([V.Disconnected()])

    def ended(self) -> None:
        self._feed([V.StreamEnded()])

    def _feed(self, inputs: Sequence[V.Input]) -> list[V.Finding]:
        found: list[V.Finding] = []
        for item in inputs:
            found += self.verifier.feed(item)
        for f in found:
            log.warning("fairness: %s", f.text())
            if f.round_no is not None:
                self.found_at.setdefault(f.round_no, len(self.log) - 1)
        return found

    def _log_note(self, kind: str, body: dict[str, Any]) -> None:
        if len(self.log) < MAX_LOG:
            self.log.append({"dir": "note", "kind": kind, "body": body})

    def _log(self, direction: str, msg: P.Message, secret: bytes | None = None) -> None:
        if len(self.log) >= MAX_LOG:
            return
        entry: dict[str, Any] = {"dir": direction, "msg": msg.to_wire()}
        if secret is not None:
            entry["secret"] = secret
        self.log.append(entry)

    # ---- state

    def can_commit(self, tag: bytes, seat: int) -> bool:
        return self.verifier.can_commit(tag, seat)

    def can_reveal(self, tag: bytes) -> bool:
        return self.verifier.can_reveal(tag)

    def rounds(self) -> tuple[FairnessRound, ...]:
        return tuple(self._view(r) for r in self.verifier.rounds())

    def changes(self) -> list[FairnessRound]:
        """Rounds whose state changed since the last call (writes evidence of new failures)."""
        out = []
        for r in self.verifier.rounds():
            key = f"{r.status.value}|{r.reason}|{r.excluded}|{r.withheld}"
            if self._reported.get(r.round_no) == key:
                continue
            if r.status is V.Status.PENDING and r.round_no not in self._reported:
                self._reported[r.round_no] = key
                continue
            self._reported[r.round_no] = key
            if r.status is V.Status.FAILED and r.round_no not in self.evidence:
                self._write_evidence(r)
            out.append(self._view(r))
        return out

    def _view(self, r: V.RoundFairness) -> FairnessRound:
        return FairnessRound(r.round_no, r.status.value, r.reason, self.evidence.get(r.round_no),
                             r.cards_checked, r.events_checked, r.excluded, r.void, r.withheld)

    def summary(self) -> dict[str, int]:
        """How many rounds are in each state."""
        out = {s.value: 0 for s in V.Status}
        for r in self.verifier.rounds():
            out[r.status.value] += 1
        return out

    def _write_evidence(self, r: V.RoundFairness) -> None:
        folder = self.evidence_dir
        if folder is None:
            from rami_lan.paths import data_dir

            folder = data_dir() / "fairness"
        f = self.facts
        path = Path(folder) / f"{f.table_id.hex()[:12]}-m{f.match_no}-r{r.round_no}-s{f.seat}.json"
        body = {
            "format": EVIDENCE_FORMAT, "version": 1,
            "facts": {"table_id": f.table_id.hex(), "match_no": f.match_no,
                      "variant": f.variant, "seats": f.n_seats, "seat": f.seat,
                      "host_seat": f.host_seat, "limit": f.limit, "quick": f.quick,
                      "knock": f.knock},
            "round": {"round_no": r.round_no, "status": r.status.value, "reason": r.reason,
                      "findings": [{"code": x.code, "reason": x.reason, "expected": _plain(x.expected),
                                    "seen": _plain(x.seen)} for x in r.findings]},
            "messages": [_plain(e) for e in self.log],
        }
        try:
            from rami_lan.fsutil import atomic_write

            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, json.dumps(body))
            self.evidence[r.round_no] = str(path)
        except OSError as exc:
            log.error("could not write the fairness evidence %s: %s", path, exc)


def _evidence(value: Any, variant: str) -> Any:
    """A refused message as plain data (an event object as its wire form)."""
    if value is None or isinstance(value, dict | list | str | int | bytes):
        return value
    try:
        from rami_lan.core.codec import event_to_plain

        return event_to_plain(value, variant) if hasattr(value, "for_seat") else repr(value)[:2000]
    except Exception:  # noqa: BLE001 - evidence is best kept as text then
        return repr(value)[:2000]


def _plain(value: Any) -> Any:
    if isinstance(value, bytes | bytearray):
        return {"hex": bytes(value).hex()}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return repr(value)


def _unplain(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"hex"} and isinstance(value["hex"], str):
            return bytes.fromhex(value["hex"])
        return {k: _unplain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unplain(v) for v in value]
    return value


def load_stream(entries: Iterable[Mapping[str, Any]]) -> list[tuple[str, P.Message, bytes | None]]:
    """The messages of an evidence file (or a test recording): (dir, message, secret)."""
    out = []
    for e in entries:
        if e.get("dir") == "note":
            continue
        raw = _unplain(dict(e))
        out.append((raw["dir"], P.Message.from_wire(raw["msg"]), raw.get("secret")))
    return out


def feed_stream(facts: V.TableFacts, stream: Iterable[tuple[str, P.Message, bytes | None]]
                ) -> V.SeatVerifier:
    """Feed a whole recorded stream to a new verifier (then the stream's end)."""
    v = V.SeatVerifier(facts)
    for direction, msg, secret in stream:
        for item in to_inputs(msg, facts.variant, sent=direction == "out", secret=secret):
            v.feed(item)
    v.feed(V.StreamEnded())
    return v
