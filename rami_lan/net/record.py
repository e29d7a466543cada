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
from rami_lan.core.events import Event, PlayersEliminated, RoundStarted
from rami_lan.core.variants import Variant, get_variant
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
    "load_record",
    "save_record",
    "verify",
    "verify_file",
]

RECORD_FORMAT = "rami-lan-record"
RECORD_VERSION = 1
MAX_RECORD_BYTES = 32 * 1024 * 1024
"""Largest record file read (a long match is a few MB)."""
MAX_ROUNDS = 1000
MAX_CARDS = 1000
MAX_EVENTS = 100_000
MAX_ACTIONS = 100_000
MAX_TEXT = 1000


def _hexmap(m: Mapping[int, bytes]) -> dict[str, str]:
    return {str(k): v.hex() for k, v in sorted(m.items())}


@dataclass
class MatchRecord:
    """The record being built by a host (plain data, ready for JSON)."""

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
        self, host: Any, tag: bytes, commit: CommitmentRound, deck: Sequence[int], seed: bytes
    ) -> None:
        self._current = {
            "round_no": host.match.round_no + 1,
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
        self.data["rounds"].append(cur)

    def finish(self, m: MatchState) -> None:
        self.data["result"] = {
            "winner": m.winner,
            "totals": {str(s): t for s, t in enumerate(m.totals)},
            "reason": m.end_reason,
        }

    def to_plain(self) -> dict[str, Any]:
        return self.data


# ---------------------------------------------------------------------------- verify


@dataclass
class VerifyReport:
    """What `verify` found: ``ok`` when ``problems`` is empty."""

    rounds: int = 0
    checked_cards: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and self.rounds > 0

    def text(self) -> str:
        lines = [f"rounds checked: {self.rounds}, cards checked: {self.checked_cards}"]
        if self.rounds == 0 and not self.problems:
            lines.append("FAIL: the record holds no round")
        lines += [f"FAIL: {p}" for p in self.problems]
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


def load_record(path: str | Path) -> dict[str, Any]:
    """Read a record file (JSON) and check its shape (:func:`check_record`); raise
    ValueError if it is not a record within bounds. At most :data:`MAX_RECORD_BYTES` are
    read; deep nesting is refused, never a ``RecursionError``."""
    try:
        with open(path, "rb") as file:
            raw = file.read(MAX_RECORD_BYTES + 1)
        if len(raw) > MAX_RECORD_BYTES:
            raise ValueError(f"larger than {MAX_RECORD_BYTES} bytes")
        data = json.loads(raw.decode("utf-8"))
    except RecursionError:
        raise ValueError(f"can not read {path}: nested too deeply") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"can not read {path}: {_clip(exc)}") from None
    if not isinstance(data, dict) or data.get("format") != RECORD_FORMAT:
        raise ValueError(f"{path} is not a rami-lan match record")
    check_record(data)
    return data


def _clip(value: object, limit: int = 200) -> str:
    from rami_lan.textsafe import clip

    return clip(value, limit)


class RecordBoundsError(ValueError):
    """A record field has the wrong type or is out of bounds."""


def _need(ok: bool, what: str) -> None:
    if not ok:
        raise RecordBoundsError(what)


def _int_field(m: Mapping[str, Any], name: str, low: int, high: int, *, optional: bool = True,
               nullable: bool = False) -> None:
    if name not in m:
        _need(optional, f"{name} is missing")
        return
    value = m[name]
    if value is None and nullable:
        return
    _need(type(value) is int and low <= value <= high,
          f"{name} must be an int in {low}..{high}, not {_clip(value, 40)}")


def _list_field(m: Mapping[str, Any], name: str, limit: int, *, optional: bool = True) -> list[Any]:
    if name not in m or (optional and m[name] is None):
        _need(optional, f"{name} is missing")
        return []
    value = m[name]
    _need(type(value) is list and len(value) <= limit,
          f"{name} must be a list of at most {limit} items")
    return value


def _ints(values: list[Any], what: str, low: int, high: int) -> None:
    _need(all(type(v) is int and low <= v <= high for v in values),
          f"{what} must hold ints in {low}..{high}")


def _hex_map(m: Mapping[str, Any], name: str) -> None:
    value = m.get(name)
    if value is None:
        return
    _need(type(value) is dict and len(value) <= 8, f"{name} must be a map of at most 8 seats")
    for k, v in value.items():
        _need(type(k) is str and k.isdigit() and len(k) <= 3, f"{name}: bad seat key")
        _need(type(v) is str and len(v) <= 128, f"{name}[{_clip(k, 8)}] must be short hex")


def _card_ref(value: Any) -> bool:
    return value is None or (type(value) is dict and len(value) <= 4)


def _check_event(ev: Any, label: str) -> None:
    _need(type(ev) is dict, f"{label}: every event is a map")
    kind = ev.get("type")
    _need(kind is None or (type(kind) is str and len(kind) <= 64), f"{label}: bad event type")
    if kind == "RoundStarted":
        players = _list_field(ev, "players", 4, optional=False)
        _ints(players, f"{label}: RoundStarted.players", 0, 7)
        _int_field(ev, "hand_size", 0, 60, optional=False)
        _int_field(ev, "dealer", 0, 7, optional=False)
        _int_field(ev, "round_no", 0, 10**6, optional=False)
        _need(_card_ref(ev.get("first_discard")), f"{label}: bad first_discard")
    elif kind == "CardsDealt":
        _int_field(ev, "seat", 0, 7, optional=False)
        _ints(_list_field(ev, "positions", 100, optional=False),
              f"{label}: CardsDealt.positions", 0, MAX_CARDS)
        _need(all(_card_ref(c) for c in _list_field(ev, "cards", 100)),
              f"{label}: bad dealt card")
    elif kind == "StockRefilled":
        _int_field(ev, "reshuffle", 0, 10_000, optional=False)
        _need(all(_card_ref(c) for c in _list_field(ev, "pile", MAX_CARDS, optional=False)),
              f"{label}: bad pile card")
        _need(type(ev.get("shuffled")) is bool, f"{label}: shuffled must be a bool")
    elif kind == "StockDrawn":
        _int_field(ev, "reshuffle", 0, 10_000, optional=False)
        _int_field(ev, "position", 0, MAX_CARDS, optional=False)
        _need(_card_ref(ev.get("card")), f"{label}: bad drawn card")


MAX_MASKED_MESSAGES = 20_000
"""Most broadcast masked-deck messages a private round may record."""
MAX_MASKED_BYTES = 64 * 1024
"""Largest recorded masked-deck message (an audit publication is about 4.4 KB a deck)."""


def check_record(data: Any) -> None:
    """Check a match record's shape and bounds before anything uses it.

    Raises :class:`RecordBoundsError` (a ``ValueError``) naming the first field of the
    wrong type or out of bounds: ``seats`` 2..4, ``match_no`` 1..10**6, at most
    :data:`MAX_ROUNDS` rounds, each with at most :data:`MAX_CARDS` deck cards,
    :data:`MAX_EVENTS` events and :data:`MAX_ACTIONS` actions, and the fields of the
    events that :func:`verify` reads (hand size, positions, reshuffle numbers...) in
    their ranges. Whether the values are *right* is :func:`verify`'s question.
    """
    _need(isinstance(data, dict), "a record is a map")
    _int_field(data, "version", 1, 1000)
    _int_field(data, "seats", 2, 4, optional=False)
    _int_field(data, "match_no", 1, 10**6)
    for name in ("table_id", "variant", "name"):
        value = data.get(name)
        _need(value is None or (type(value) is str and len(value) <= MAX_TEXT),
              f"{name} must be a short str")
    options = data.get("options")
    _need(options is None or (type(options) is dict and len(options) <= 16),
          "options must be a small map")
    players = _list_field(data, "players", 8)
    for p in players:
        _need(type(p) is dict, "every player is a map")
        _int_field(p, "seat", 0, 7, optional=False)
        nick = p.get("nick")
        _need(nick is None or (type(nick) is str and len(nick) <= MAX_TEXT), "bad nickname")
    rounds = _list_field(data, "rounds", MAX_ROUNDS, optional=False)
    for index, rnd in enumerate(rounds, start=1):
        label = f"round {index}"
        _need(type(rnd) is dict, f"{label}: a round is a map")
        _int_field(rnd, "round_no", 0, 10**6)
        _int_field(rnd, "host_seat", 0, 255, nullable=True)
        _int_field(rnd, "dealer", 0, 7, nullable=True)
        _int_field(rnd, "n_cards", 1, MAX_CARDS)
        for name in ("round_tag", "seed"):
            value = rnd.get(name)
            _need(value is None or (type(value) is str and len(value) <= 256),
                  f"{label}: {name} must be short hex")
        _hex_map(rnd, "commitments")
        _hex_map(rnd, "secrets")
        _ints(_list_field(rnd, "participants", 8), f"{label}: participants", 0, 255)
        _ints(_list_field(rnd, "excluded", 8), f"{label}: excluded", 0, 255)
        _ints(_list_field(rnd, "players", 4), f"{label}: players", 0, 7)
        _ints(_list_field(rnd, "withdrawals", 8), f"{label}: withdrawals", 0, 7)
        _ints(_list_field(rnd, "deck", MAX_CARDS), f"{label}: deck", 0, MAX_CARDS - 1)
        for ev in _list_field(rnd, "events", MAX_EVENTS):
            _check_event(ev, label)
        actions = _list_field(rnd, "actions", MAX_ACTIONS)
        _need(all(type(a) is dict and len(a) <= 16 for a in actions),
              f"{label}: every action is a small map")
        by = _list_field(rnd, "played_by", MAX_ACTIONS)
        _need(all(type(b) is str and len(b) <= 16 for b in by), f"{label}: bad played_by")
        _need(rnd.get("abandoned") in (None, True, False), f"{label}: abandoned is a bool")
        masked = rnd.get("masked")
        if masked is not None:
            _need(type(masked) is dict and len(masked) <= 8, f"{label}: masked is a small map")
            decks = _list_field(masked, "decks", 64, optional=False)
            _need(all(type(d) is list and len(d) == 3 and type(d[0]) is int
                      and type(d[1]) is list and len(d[1]) <= MAX_CARDS
                      and type(d[2]) is list and len(d[2]) <= 8 for d in decks),
                  f"{label}: masked.decks holds [deck, card ids, participants]")
            msgs = _list_field(masked, "messages", MAX_MASKED_MESSAGES, optional=False)
            _need(all(type(h) is str and len(h) <= 2 * MAX_MASKED_BYTES for h in msgs),
                  f"{label}: masked.messages holds hex strings of at most {MAX_MASKED_BYTES} bytes")
    result = data.get("result")
    _need(result is None or (type(result) is dict and len(result) <= 8), "bad result")


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
        rep.problems.append(f"record header: {exc}")
        return rep
    for index, rnd in enumerate(rounds):
        label = f"round {rnd.get('round_no', index + 1) if isinstance(rnd, dict) else index + 1}"
        try:
            _verify_round(rep, verifier, rnd, table_id, match_no, variant, label)
        except _Bad as exc:
            rep.problems.append(f"{label}: {exc}")
        except (KeyError, TypeError, ValueError, IndexError, MalformedAction) as exc:
            rep.problems.append(f"{label}: malformed ({type(exc).__name__}: {exc})")
        rep.rounds += 1
    verifier.feed(V.StreamEnded())
    for f in verifier.findings:
        rep.problems.append(f.text())
    for r in verifier.rounds():
        rep.checked_cards += r.cards_checked
        if r.status is not V.Status.CHECKED and not r.findings:
            rep.problems.append(f"round {r.round_no}: {r.status.value}: {r.reason}")
    return rep


def _masked_orders(rep: VerifyReport, tag: bytes, masked: Any, variant: Variant,
                   label: str) -> V.MaskedOrders | None:
    """Recompute a private round's masked decks from the broadcast messages it recorded
    (`rami_lan.masked.audit.audit_transcript`): every shuffle step, lock and published
    key; the deck orders come from that, never from the record's own ``orders``."""
    import msgpack

    from rami_lan.masked.audit import audit_transcript
    from rami_lan.masked.messages import MessageError, from_plain

    if not isinstance(masked, dict):
        raise _Bad("masked is not a map")
    decks_in = masked.get("decks")
    if not isinstance(decks_in, list) or not decks_in or len(decks_in) > 64:
        raise _Bad("masked.decks must list the round's masked decks")
    decks: list[tuple[int, list[int], list[int]]] = []
    for item in decks_in:
        d, ids, seats = item
        _ints(list(ids), f"{label}: masked deck ids", 0, variant.deck_size - 1)
        _ints(list(seats), f"{label}: masked deck participants", 0, 255)
        decks.append((int(d), list(ids), list(seats)))
    if decks[0][0] != 0 or sorted(decks[0][1]) != list(range(variant.deck_size)):
        rep.problems.append(f"{label}: masked deck 0 does not hold every card once")
    messages = []
    raw = masked.get("messages")
    if not isinstance(raw, list) or len(raw) > 20_000:
        raise _Bad("masked.messages must be a list")
    for h in raw:
        try:
            messages.append(from_plain(msgpack.unpackb(bytes.fromhex(h), raw=False)))
        except (MessageError, ValueError, TypeError) as exc:
            rep.problems.append(f"{label}: a recorded masked message does not parse: {exc}")
            return None
    report = audit_transcript(tag, decks, messages)
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
    n = int(rnd.get("n_cards", variant.deck_size))
    if n != variant.deck_size:
        problems.append(f"{label}: {n} cards, the variant {variant.id} has {variant.deck_size}")
    masked = rnd.get("masked")
    orders: V.MaskedOrders | None = None
    if masked is not None:  # private dealing: the deck is the masked deck's, from its audit
        orders = _masked_orders(rep, tag, masked, variant, label)
        deck = list(orders.orders.get(0, ())) if orders is not None else []
    else:
        deck = deck_order(seed, variant.deck_size)
    recorded = list(rnd.get("deck") or [])
    if rnd.get("replay_error"):
        problems.append(f"{label}: the host's own replay of the round failed: {rnd['replay_error']}")
    if recorded != deck:
        diff = [i for i in range(min(len(deck), len(recorded))) if deck[i] != recorded[i]]
        problems.append(
            f"{label}: the deck used is not deck_order(seed) "
            f"(differs at positions {diff[:10]}{'...' if len(diff) > 10 else ''})"
        )
    events = [event_from_plain(e, variant) for e in rnd.get("events") or []]
    if not any(isinstance(e, RoundStarted) for e in events) and not rnd.get("abandoned"):
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
