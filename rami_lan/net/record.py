"""The match record a host writes, and `verify`: re-check a whole match offline.

Format (JSON, bytes as lowercase hex)::

    {"format": "rami-lan-record", "version": 1,
     "table_id": hex16, "match_no": 1, "variant": "rami",
     "options": {"limit": 1, "quick": false, "knock": false}, "seats": 3,
     "players": [{"seat": 0, "nick": "...", "kind": "human"}, ...],
     "rounds": [{"round_no": 1, "round_tag": hex, "host_seat": 0 | 255,
                 "participants": [1, 2], "commitments": {"0": hex, ...},
                 "secrets": {"0": hex, ...}, "excluded": [], "seed": hex,
                 "players": [0, 1, 2], "dealer": 2, "n_cards": 110,
                 "deck": [ids, top first], "abandoned": false,
                 "events": [core events as plain data, unredacted],
                 "actions": [action_to_plain(a) for each accepted action, in order],
                 "played_by": ["player" | "bot" | "timer", one per action],
                 "withdrawals": [seats that left the match after this round]}, ...],
     "result": {"winner": 1, "totals": {"0": 12, ...}, "reason": "..."}}

A round is appended to the record only once it is over and its secrets are out, so
the event log (which names every card dealt and drawn) reveals nothing that the
secrets do not already reveal.

`verify(record)` runs the clients' verifier (`rami_lan.table.verifier`) as an observer
who sees every card: every round tag (derived from table id, match and round numbers),
every commitment against its secret, the seed, the deck (= ``deck_order(seed, n)``),
then a full replay of each round with the rules core from the derived deck and the
event log: the dealer (round 1 from the seed, then the rotation), every dealt card and
its stock position, the first discard, every draw position and card, every refill
(the public pile, in order, reshuffled per the spec or turned over), every meld,
lay-off, joker recovery, discard, knock and timeout, the scores, eliminations and the
match's end.

``actions`` (with ``played_by``: who chose each one; the seat is in the action) and
``withdrawals`` make the record a full replay: `rami_lan.cli.cmd_replay.adapt_record`
turns it into a `rami_lan.replay.ReplayRecord` that rebuilds every state of the match.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rami_lan.core.codec import event_from_plain, event_to_plain
from rami_lan.core.errors import MalformedAction
from rami_lan.core.events import Event, PlayersEliminated, RoundStarted, RoundVoided
from rami_lan.core.variants import Variant, get_variant
from rami_lan.net.record_bounds import (  # noqa: F401  (re-exported: importers use net.record)
    MAX_ACTIONS,
    MAX_CARDS,
    MAX_EVENTS,
    MAX_MASKED_BYTES,
    MAX_MASKED_DECKS,
    MAX_MASKED_MESSAGES,
    MAX_PARTICIPANTS,
    MAX_ROUNDS,
    MAX_TEXT,
    MAX_TOTAL_EVENTS,
    VOID_REASONS,
    RecordBoundsError,
    _clip,
    _unpack_masked,
    check_record,
    check_round_entry,
)
from rami_lan.table import verifier as V
from rami_lan.table.shuffle import (
    DEDICATED_HOST_SEAT,
    CommitmentRound,
    deck_order,
    round_tag,
    seed_from_secrets,
)

if TYPE_CHECKING:
    from rami_lan.core.match import MatchState

__all__ = [
    "MAX_RECORD_BYTES",
    "RECORD_FORMAT",
    "MatchRecord",
    "VerifyReport",
    "check_record",
    "check_round_entry",
    "load_record",
    "save_record",
    "verify",
    "verify_file",
]

RECORD_FORMAT = "rami-lan-record"
RECORD_VERSION = 1
MAX_RECORD_BYTES = 32 * 1024 * 1024
"""Largest record file read (a long match is a few MB)."""


def _hexmap(m: Mapping[int, bytes]) -> dict[str, str]:
    return {str(k): v.hex() for k, v in sorted(m.items())}


@dataclass
class MatchRecord:
    """The record being built by a host (plain data, ready for JSON): the host's
    `rami_lan.table.record_sink.RecordSink`."""

    data: dict[str, Any]
    _current: dict[str, Any] | None = None

    @classmethod
    def new(cls, host: Any, config: Any) -> MatchRecord:
        o = host.match.options
        return cls(
            {
                "format": RECORD_FORMAT,
                "version": RECORD_VERSION,
                "table_id": host.table_id.hex(),
                "match_no": host.match_no,
                "name": config.name,
                "variant": config.variant,
                "options": {"limit": o.limit, "quick": o.quick, "knock": o.knock},
                "seats": config.seats,
                "players": [],
                "rounds": [],
                "result": None,
            }
        )

    def set_players(self, players: Sequence[Mapping[str, Any]]) -> None:
        self.data["players"] = [
            {"seat": p["seat"], "nick": p["nick"], "kind": p["kind"]} for p in players
        ]

    def begin_round(
        self, round_no: int, tag: bytes, commit: CommitmentRound, deck: Sequence[int], seed: bytes
    ) -> None:
        self._current = {
            "round_no": round_no,
            "round_tag": tag.hex(),
            "host_seat": commit.host_seat,
            "participants": sorted(commit.participants - {commit.host_seat}),
            "commitments": _hexmap(commit.commitment_list()),
            "secrets": {},
            "excluded": [],
            "seed": seed.hex(),
            "players": [],
            "dealer": None,
            "n_cards": len(deck),
            "deck": list(deck),
            "abandoned": False,
            "events": [],
            "actions": [],
            "played_by": [],
            "withdrawals": [],
        }

    def recording(self) -> bool:
        return self._current is not None

    def set_round_players(self, m: MatchState) -> None:
        if self._current is not None and m.round is not None:
            self._current["players"] = list(m.round.players)
            self._current["dealer"] = m.round.dealer

    def log_events(self, evs: Sequence[Event], variant: Variant) -> None:
        if self._current is not None:
            self._current["events"].extend(event_to_plain(e, variant) for e in evs)

    def log_action(self, plain: Mapping[str, Any], by: str) -> None:
        """An action the core accepted (``action_to_plain``), and who chose it."""
        if self._current is not None:
            self._current.setdefault("actions", []).append(dict(plain))
            self._current.setdefault("played_by", []).append(by)

    def log_withdrawal(self, seat: int) -> None:
        """A seat left the match (between rounds: after the last recorded round)."""
        target = self._current
        if target is None and self.data["rounds"]:
            target = self.data["rounds"][-1]
        if target is not None:
            target.setdefault("withdrawals", []).append(seat)

    def end_round(
        self, m: MatchState, secrets: Mapping[int, bytes], excluded: Sequence[int],
        abandoned: bool = False,
    ) -> None:
        cur, self._current = self._current, None
        if cur is None:
            return
        cur["secrets"] = _hexmap(secrets)
        cur["excluded"] = list(excluded)
        cur["abandoned"] = abandoned
        voided = [e for e in cur.get("events", ()) if isinstance(e, dict) and e.get("type") == "RoundVoided"]
        if voided:  # a void round: a well-formed entry `verify` explains, not an abandoned one
            ev = voided[-1]
            cur["void"] = {"reason": ev.get("reason"), "seat": ev.get("seat")}
            cur["abandoned"] = False
            cur["n_cards"] = get_variant(str(self.data.get("variant"))).deck_size
            cur["events"] = [e for e in cur["events"] if e is not ev] + [ev]  # last, once
        self.data["rounds"].append(cur)

    def void_current(self, round_no: int, reason: str, variant: Variant) -> None:
        """The round being recorded is void before its end (a restarted host could not
        take a private round up): its ``RoundVoided`` goes into its event log."""
        if self._current is not None:
            self._current["events"].append(event_to_plain(RoundVoided(round_no, None, reason), variant))

    def finish(self, m: MatchState) -> None:
        self.data["result"] = {
            "winner": m.winner,
            "totals": {str(s): t for s, t in enumerate(m.totals)},
            "reason": m.end_reason,
        }

    def to_plain(self) -> dict[str, Any]:
        return self.data

    def snapshot_state(self, pending: Sequence[Mapping[str, Any]] = ()) -> dict[str, Any]:
        current = self._current
        if current is not None and pending:
            current = dict(current)
            current["events"] = list(current["events"]) + list(pending)
        return {"data": self.data, "current": current}

    def restore_state(self, state: Mapping[str, Any]) -> None:
        self.data, self._current = state["data"], state["current"]


# ---------------------------------------------------------------------------- verify


@dataclass
class VerifyReport:
    """What `verify` found: ``ok`` when ``problems`` is empty."""

    rounds: int = 0
    checked_cards: int = 0
    problems: list[str] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)
    """Why the record is malformed (``rami-lan verify`` exit 2), not a proven mismatch."""
    notes: list[str] = field(default_factory=list)
    """What the player should know of rounds that verified: "round 3 void: ..."."""
    voids: list[tuple[int, str, int | None]] = field(default_factory=list)
    """Each void round as (round number, ``RoundVoided.reason``, seat or None): the notes'
    facts, for a screen that words them in its player's language."""

    @property
    def ok(self) -> bool:
        return not self.problems and not self.invalid and self.rounds > 0

    def text(self) -> str:
        lines = [f"rounds checked: {self.rounds}, cards checked: {self.checked_cards}"]
        if self.rounds == 0 and not self.problems:
            lines.append("FAIL: the record holds no round")
        lines += [f"INVALID: {p}" for p in self.invalid]
        lines += [f"FAIL: {p}" for p in self.problems]
        lines += [f"NOTE: {n}" for n in self.notes]
        if self.ok:
            lines.append("OK: every round matches the agreed shuffle")
        return "\n".join(lines)


def save_record(folder: str | Path, name: str, data: Mapping[str, Any]) -> Path:
    """Write a record as ``folder/name`` atomically, mode 0600; a missing ``folder`` is
    made with mode 0700 (an existing one, chosen by the player, is left as it is)."""
    from rami_lan.fsutil import atomic_write

    folder = Path(folder)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = folder / name
    atomic_write(path, json.dumps(data, indent=1))
    return path


MAX_JSON_ITEMS = 2_500_000
"""Most values a record file may hold (counted from its separators before parsing: a
record of 32 MB of ``0,`` would otherwise cost over 130 MB of memory once parsed)."""


class RecordTooLargeError(ValueError):
    """A record file is larger than the limits, refused before it is parsed; ``code``:
    ``size`` (bytes), ``items`` (values), ``depth`` (nesting) or ``file`` (not a file)."""

    def __init__(self, text: str, code: str = "size") -> None:
        super().__init__(text)
        self.code = code


def read_json(path: str | Path) -> Any:
    """The JSON value in a record file, read with bounds before any parsing: at most
    :data:`MAX_RECORD_BYTES` (the size is checked before reading), at most
    :data:`MAX_JSON_ITEMS` values, nesting refused as ``ValueError`` (never a
    ``RecursionError``). Raises OSError, UnicodeDecodeError, ``json.JSONDecodeError`` or
    :class:`RecordTooLargeError`."""
    with open(path, "rb") as file:
        import os
        import stat

        info = os.fstat(file.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise RecordTooLargeError("not a regular file", "file")
        if info.st_size > MAX_RECORD_BYTES:
            raise RecordTooLargeError(f"larger than {MAX_RECORD_BYTES} bytes")
        raw = file.read(MAX_RECORD_BYTES + 1)
    if len(raw) > MAX_RECORD_BYTES:
        raise RecordTooLargeError(f"larger than {MAX_RECORD_BYTES} bytes")
    if raw.count(b",") + raw.count(b":") + raw.count(b"[") + raw.count(b"{") > MAX_JSON_ITEMS:
        raise RecordTooLargeError(f"more than {MAX_JSON_ITEMS} values", "items")
    text = raw.decode("utf-8")  # the error names the byte, as for a text file
    del raw  # (peak memory: the text and what it parses to, not the bytes too)
    try:
        return json.loads(text)
    except RecursionError:
        raise RecordTooLargeError("nested too deeply", "depth") from None


def load_record(path: str | Path) -> dict[str, Any]:
    """Read a record file (JSON, :func:`read_json`) and check its shape
    (:func:`check_record`); raise ValueError if it is not a record within bounds."""
    try:
        data = read_json(path)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"can not read {path}: {_clip(exc)}") from None
    if not isinstance(data, dict) or data.get("format") != RECORD_FORMAT:
        raise ValueError(f"{path} is not a rami-lan match record")
    check_record(data)
    return data


MAX_FAILING_ROUNDS = 3
"""`verify` stops after this many rounds with a problem (the verdict is known)."""

def verify_file(path: str | Path) -> VerifyReport:
    return verify(load_record(path))


class _Bad(Exception):
    pass


def _unhex(value: Any, size: int | None, what: str) -> bytes:
    try:
        raw = bytes.fromhex(value)
    except (TypeError, ValueError):
        raise _Bad(f"{what} is not hex") from None
    if size is not None and len(raw) != size:
        raise _Bad(f"{what} is not {size} bytes")
    return raw


def _seat_map(value: Any, what: str) -> dict[int, bytes]:
    if not isinstance(value, dict):
        raise _Bad(f"{what} is not a map")
    out: dict[int, bytes] = {}
    for k, v in value.items():
        try:
            seat = int(k)
        except ValueError:
            raise _Bad(f"{what}: bad seat {k!r}") from None
        out[seat] = _unhex(v, 32, f"{what}[{k}]")
    return out


def verify(record: Mapping[str, Any]) -> VerifyReport:
    """Re-check a match record: the same verifier as the clients, seeing every card.

    Every round's tag, commitments, secrets and seed, the deck, then a full replay of
    the round with the rules core (every card, ruling, score, elimination, the dealer
    of round 1 from the seed and the rotation after it, every reshuffled pile).
    """
    rep = VerifyReport()
    try:
        table_id = _unhex(record.get("table_id"), 16, "table_id")
        variant = get_variant(str(record.get("variant")))
        match_no = int(record.get("match_no", 1))
        rounds = record.get("rounds")
        if not isinstance(rounds, list):
            raise _Bad("rounds is not a list")
        options = record.get("options") or {}
        if not isinstance(options, dict):
            raise _Bad("options is not a map")
        first = rounds[0] if rounds and isinstance(rounds[0], dict) else {}
        host_seat = first.get("host_seat", DEDICATED_HOST_SEAT)
        facts = V.TableFacts(
            table_id=table_id, match_no=match_no, variant=variant.id,
            n_seats=int(record.get("seats", 0)), seat=V.OBSERVER,
            host_seat=host_seat if isinstance(host_seat, int) else DEDICATED_HOST_SEAT,
            limit=options.get("limit"), quick=bool(options.get("quick")),
            knock=bool(options.get("knock")))
        verifier = V.SeatVerifier(facts)
    except (_Bad, ValueError, KeyError, TypeError) as exc:
        rep.invalid.append(f"record header: {_clip(exc)}")
        return rep
    failing = 0
    for index, rnd in enumerate(rounds):
        label = f"round {rnd.get('round_no', index + 1) if isinstance(rnd, dict) else index + 1}"
        before = len(rep.problems) + len(verifier.findings)
        try:
            _verify_round(rep, verifier, rnd, table_id, match_no, variant, label)
        except _Bad as exc:
            rep.problems.append(f"{label}: {exc}")
        except (KeyError, TypeError, ValueError, IndexError, MalformedAction) as exc:
            rep.invalid.append(f"{label}: malformed ({type(exc).__name__}: {_clip(exc)})")
        rep.rounds += 1
        if rep.invalid:
            return rep  # a malformed file: no verdict on the rest
        failing += len(rep.problems) + len(verifier.findings) > before
        if failing >= MAX_FAILING_ROUNDS and index + 1 < len(rounds):
            # The verdict is known: a crafted record of 32 MB of failing private rounds
            # costs no more than these (a whole legal one is checked to its end).
            rep.problems.append(f"verification stopped after {failing} rounds that do not match: "
                                f"the {len(rounds) - index - 1} rounds after them were not checked")
            break
    verifier.feed(V.StreamEnded())
    for f in verifier.findings:
        rep.problems.append(f.text())
    for r in verifier.rounds():
        rep.checked_cards += r.cards_checked
        if r.status is not V.Status.CHECKED and not r.findings:
            rep.problems.append(f"round {r.round_no}: {r.status.value}: {r.reason}")
    return rep


VOID_TEXT = {
    "player_gone": "a player holding hidden cards was gone for good (private dealing): no score",
    "no_answer": "a player holding hidden cards missed its deadline (private dealing): no score",
    "host_restarted": "the host restarted during the private round and could not take it up: "
                      "no score",
    "no_participant": "nobody was left to hold the masked deck's keys: no score",
    "fault": "a participant broke the masked deck's rules: no score",
    "shuffle_stopped": "the masked deck's shuffle could not be finished: no score",
}
"""Why a round is void, as `verify` explains it (``RoundVoided.reason``)."""


def _check_void_round(rep: VerifyReport, rnd: Mapping[str, Any], void: Any,
                      voided: list[RoundVoided], events: list[Event], label: str,
                      round_no: int) -> None:
    """A void round: one ``RoundVoided`` of this round, last in its log, that agrees with
    the entry's ``void`` field; nothing of its play counts. Its explanation is a note."""
    if not voided:
        rep.problems.append(f"{label}: marked void, but its event log has no RoundVoided")
        return
    ev = voided[0]
    if len(voided) > 1 or events[-1] is not ev:
        rep.problems.append(f"{label}: RoundVoided must be the last event of the round, once")
    if ev.round_no != round_no:
        rep.problems.append(f"{label}: RoundVoided names round {ev.round_no}")
    if void is not None and (void.get("reason") != ev.reason or void.get("seat") != ev.seat):
        rep.problems.append(f"{label}: the entry's void reason is not its RoundVoided's")
    if any(type(e).__name__ == "RoundEnded" for e in events):
        rep.problems.append(f"{label}: a round can not both end and be void")
    why = VOID_TEXT.get(ev.reason, ev.reason)
    who = "" if ev.seat is None else f" (seat {ev.seat + 1})"
    rep.notes.append(f"round {round_no} void: {why}{who}")
    rep.voids.append((round_no, ev.reason, ev.seat))


def _masked_orders(rep: VerifyReport, tag: bytes, masked: Any, variant: Variant,
                   label: str, *, voided: bool = False) -> V.MaskedOrders | None:
    """Recompute a private round's masked decks from the broadcast messages it recorded
    (`rami_lan.masked.audit.audit_transcript`): every shuffle step, lock and published
    key; the deck orders come from that, never from the record's own ``orders``."""
    from rami_lan.masked.audit import audit_transcript
    from rami_lan.masked.messages import MessageError, from_plain

    if not isinstance(masked, dict):
        raise _Bad("masked is not a map")
    decks: list[tuple[int, list[int], list[int]]] = [
        (int(d), list(ids), list(seats)) for d, ids, seats in masked["decks"]]
    if decks[0][0] != 0 or sorted(decks[0][1]) != list(range(variant.deck_size)):
        rep.problems.append(f"{label}: masked deck 0 does not hold every card once")
    messages = []
    for h in masked["messages"]:
        try:
            messages.append(from_plain(_unpack_masked(h), check_points=False))
        except (MessageError, ValueError, TypeError) as exc:
            raise RecordBoundsError(
                f"{label}: a recorded masked message does not parse: {_clip(exc, 120)}") from None
    report = audit_transcript(tag, decks, messages, every_step=True)
    recorded = masked.get("orders") or {}
    for d, order in report.orders.items():
        if list(recorded.get(str(d), ())) != list(order):
            rep.problems.append(f"{label}: the recorded order of masked deck {d} is not the audited one")
    gens = {int(g): (None if d is None else int(d)) for g, d in (masked.get("gen_decks") or {}).items()}
    return V.MaskedOrders.from_report(tag, report, gens)



def _verify_round(
    rep: VerifyReport, verifier: V.SeatVerifier, rnd: Any, table_id: bytes, match_no: int,
    variant: Variant, label: str,
) -> None:
    """Feed one recorded round to the verifier, and check the record's own extra fields."""
    if not isinstance(rnd, dict):
        raise _Bad("not a map")
    problems = rep.problems
    round_no = int(rnd["round_no"])
    tag = _unhex(rnd["round_tag"], None, "round_tag")
    if tag != round_tag(table_id, match_no, round_no):
        problems.append(f"{label}: the round tag is not the one of table/match/round numbers")
    commits = _seat_map(rnd["commitments"], "commitments")
    secrets = _seat_map(rnd["secrets"], "secrets")
    excluded = [int(s) for s in rnd.get("excluded") or []]
    if not secrets:
        raise _Bad("no secrets were published: the deck can not be checked")
    seed = seed_from_secrets(tag, secrets)
    if rnd.get("seed") not in (None, seed.hex()):
        problems.append(f"{label}: the recorded seed is not the one the secrets give")
    events = [event_from_plain(e, variant) for e in rnd.get("events") or []]
    voided = [e for e in events if isinstance(e, RoundVoided)]
    void = rnd.get("void")
    if void is not None or voided:
        _check_void_round(rep, rnd, void, voided, events, label, round_no)
    n = int(rnd.get("n_cards", variant.deck_size))
    if n != variant.deck_size:
        problems.append(f"{label}: {n} cards, the variant {variant.id} has {variant.deck_size}")
    masked = rnd.get("masked")
    orders: V.MaskedOrders | None = None
    if masked is not None:  # private dealing: the deck is the masked deck's, from its audit
        orders = _masked_orders(rep, tag, masked, variant, label, voided=bool(voided))
        deck = list(orders.orders.get(0, ())) if orders is not None else []
    else:
        deck = deck_order(seed, variant.deck_size)
    recorded = list(rnd.get("deck") or [])
    if rnd.get("replay_error"):
        problems.append(f"{label}: the host's own replay of the round failed: {rnd['replay_error']}")
    if voided and not recorded:
        pass  # a void round: its deck may be unknown (a participant's secrets are gone)
    elif recorded != deck:
        diff = [i for i in range(min(len(deck), len(recorded))) if deck[i] != recorded[i]]
        what = "the audited masked deck" if masked is not None else "deck_order(seed)"
        problems.append(
            f"{label}: the deck used is not {what} "
            + (f"(differs at positions {diff[:10]}{'...' if len(diff) > 10 else ''})" if diff else
               f"({len(recorded)} cards recorded, {len(deck)} expected)")
        )
    if not any(isinstance(e, RoundStarted) for e in events) and not rnd.get("abandoned") \
            and not voided:
        problems.append(f"{label}: the event log has no RoundStarted")
    verifier.feed(V.CommitmentsSeen(tag, commits, {s: "recorded" for s in excluded} or None))
    verifier.feed(V.EventsSeen(None, tuple(events)))
    if masked is not None:
        verifier.feed(V.MaskedRoundSeen(tag))
    verifier.feed(V.SecretsSeen(tag, secrets, tuple(excluded)))
    if orders is not None:
        verifier.feed(orders)
    for seat in rnd.get("withdrawals") or []:
        verifier.feed(V.EventsSeen(None, (PlayersEliminated((int(seat),)),)))
