"""Shape and bounds of a match record read from a file: :func:`check_record` (split out of
:mod:`rami_lan.net.record`, which re-exports every name).

A record comes from disk or from another machine, so it is never trusted: before
anything decodes or replays it, each field is checked for its type and bounds, and the
first bad one is named in a :class:`RecordBoundsError`. Whether the values are *right*
is :func:`rami_lan.net.record.verify`'s question.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rami_lan.core.codec import event_from_plain
from rami_lan.core.variants import get_variant

MAX_ROUNDS = 1000
MAX_CARDS = 1000
MAX_EVENTS = 100_000
MAX_ACTIONS = 100_000
MAX_TEXT = 1000


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


def _list_field(m: Mapping[str, Any], name: str, limit: int, *, optional: bool = True,
                nullable: bool = False) -> list[Any]:
    if name not in m or (nullable and m[name] is None):
        _need(optional or nullable, f"{name} is missing")
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
    return value is None or (type(value) is dict and len(value) <= 4
                             and type(value.get("card")) is int and 0 <= value["card"] < MAX_CARDS)


def _hex_text(value: Any, what: str, *, size: int | None = None, limit: int = 256) -> None:
    _need(type(value) is str and len(value) <= limit and len(value) % 2 == 0
          and (size is None or len(value) == 2 * size) and _is_hex(value),
          f"{what} must be {'' if size is None else f'{size} bytes of '}hex")


def _is_hex(text: str) -> bool:
    try:
        bytes.fromhex(text)
    except ValueError:
        return False
    return True


def _check_event(ev: Any, label: str) -> None:
    _need(type(ev) is dict and len(ev) <= 32, f"{label}: every event is a small map")
    kind = ev.get("type")
    _need(type(kind) is str and len(kind) <= 64, f"{label}: bad event type")
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
        _need(all(_card_ref(c) for c in _list_field(ev, "cards", 100, nullable=True)),
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
    elif kind == "RoundVoided":
        _int_field(ev, "round_no", 0, 10**6, optional=False)
        _int_field(ev, "seat", 0, 255, optional=False, nullable=True)
        _need(type(ev.get("reason")) is str and len(ev["reason"]) <= 64,
              f"{label}: RoundVoided.reason must be a short str")


MAX_MASKED_MESSAGES = 20_000
"""Most broadcast masked-deck messages a private round may record."""
MAX_MASKED_BYTES = 128 * 1024
"""Largest recorded masked-deck message (an audit publication is about 4.4 KB a deck, and
about 170 bytes for each host's receipt it lists: `rami_lan.masked.signing`)."""
MAX_TOTAL_EVENTS = 400_000
"""Events in a whole record (each one is decoded and replayed by `verify`)."""
MAX_MASKED_DECKS = 64
"""Masked decks of one private round (deck 0 and one per refill)."""
MAX_PARTICIPANTS = 8
"""Participants of one masked deck (4 seats and a dedicated host: 5 at most today)."""
VOID_REASONS = frozenset({"player_gone", "host_restarted", "no_participant", "fault",
                          "shuffle_stopped", "no_answer"})
"""Why a round is void (``void.reason``): `verify` explains each one."""

_TOP_FIELDS = frozenset({"format", "version", "table_id", "match_no", "name", "variant",
                         "options", "seats", "players", "rounds", "result"})
_ROUND_FIELDS = frozenset({"round_no", "round_tag", "host_seat", "participants", "commitments",
                           "secrets", "excluded", "seed", "players", "dealer", "n_cards", "deck",
                           "abandoned", "events", "actions", "played_by", "withdrawals", "masked",
                           "replay_error", "void"})
_ROUND_REQUIRED = ("round_no", "round_tag", "host_seat", "participants", "commitments", "secrets",
                   "excluded", "seed", "players", "dealer", "n_cards", "deck", "abandoned", "events")
"""What every host has written in every round (``actions``, ``played_by`` and
``withdrawals`` came later: optional, of their type when present)."""


def _fields(m: Mapping[str, Any], allowed: frozenset[str], what: str) -> None:
    """Field names are short strings; a field this version does not know is left alone
    (a later rami-lan may add one; it is within the file's bounds and never read)."""
    _need(all(type(k) is str and len(k) <= 64 for k in m), f"{what}: bad field name")


def _check_top(data: Mapping[str, Any]) -> Any:
    """The record's header fields; returns its variant."""

    _fields(data, _TOP_FIELDS, "record")
    _int_field(data, "version", 1, 1000)
    _int_field(data, "seats", 2, 4, optional=False)
    _int_field(data, "match_no", 1, 10**6, optional=False)
    _hex_text(data.get("table_id"), "table_id", size=16)
    for name in ("variant", "name"):
        value = data.get(name)
        _need((value is None and name == "name") or (type(value) is str and len(value) <= MAX_TEXT),
              f"{name} must be a short str")
    try:
        variant = get_variant(data["variant"])
    except ValueError:
        raise RecordBoundsError(f"variant: unknown variant {_clip(data['variant'], 40)}") from None
    options = data.get("options")
    _need(type(options) is dict and set(options) <= {"limit", "quick", "knock"},
          "options must be a map of limit, quick and knock")
    _int_field(options, "limit", 1, 100_000, nullable=True)
    _need(all(type(options.get(k, False)) is bool for k in ("quick", "knock")),
          "options.quick and options.knock are bools")
    seats = data["seats"]
    players = _list_field(data, "players", 8, optional=False)
    for p in players:
        _need(type(p) is dict and set(p) <= {"seat", "nick", "kind"}, "every player is a map")
        _int_field(p, "seat", 0, seats - 1, optional=False)
        nick = p.get("nick")
        _need(nick is None or (type(nick) is str and len(nick) <= MAX_TEXT), "bad nickname")
        kind = p.get("kind")
        _need(kind is None or (type(kind) is str and len(kind) <= 16), "bad player kind")
    result = data.get("result")
    if result is not None:
        _need(type(result) is dict and set(result) <= {"winner", "totals", "reason"}, "bad result")
        _int_field(result, "winner", 0, seats - 1, nullable=True)
        totals = result.get("totals", {})
        _need(type(totals) is dict and len(totals) <= seats
              and all(type(k) is str and k.isdigit() and len(k) <= 1 and type(v) is int
                      and -10**9 <= v <= 10**9 for k, v in totals.items()),
              "result.totals must map seats to scores")
        reason = result.get("reason")
        _need(reason is None or (type(reason) is str and len(reason) <= MAX_TEXT), "bad result.reason")
    return variant


def _check_masked(masked: Any, label: str, variant: Any) -> None:
    _need(type(masked) is dict and set(masked) <= {"decks", "gen_decks", "orders", "messages"},
          f"{label}: masked is a map of decks, gen_decks, orders and messages")
    decks = _list_field(masked, "decks", MAX_MASKED_DECKS, optional=False)
    _need(bool(decks), f"{label}: masked.decks lists the round's masked decks")
    seen: set[int] = set()
    for d in decks:
        _need(type(d) is list and len(d) == 3 and type(d[0]) is int and 0 <= d[0] < MAX_MASKED_DECKS
              and type(d[1]) is list and 1 <= len(d[1]) <= variant.deck_size
              and type(d[2]) is list and 1 <= len(d[2]) <= MAX_PARTICIPANTS,
              f"{label}: masked.decks holds [deck, card ids, participants]")
        _need(d[0] not in seen, f"{label}: masked deck {d[0]} is listed twice")
        seen.add(d[0])
        _ints(d[1], f"{label}: masked deck card ids", 0, variant.deck_size - 1)
        _need(len(set(d[1])) == len(d[1]), f"{label}: a masked deck holds a card twice")
        _ints(d[2], f"{label}: masked deck participants", 0, 255)
        _need(len(set(d[2])) == len(d[2]), f"{label}: a masked deck lists a participant twice")
    _need(decks[0][0] == 0, f"{label}: the first masked deck is deck 0")
    gens = masked.get("gen_decks", {})
    _need(type(gens) is dict and len(gens) <= 1024
          and all(type(k) is str and k.isdigit() and len(k) <= 4
                  and (v is None or (type(v) is int and v in seen)) for k, v in gens.items()),
          f"{label}: masked.gen_decks maps stock generations to masked decks")
    orders = masked.get("orders", {})
    _need(type(orders) is dict and len(orders) <= MAX_MASKED_DECKS
          and all(type(k) is str and k.isdigit() and len(k) <= 2 and type(v) is list
                  and len(v) <= variant.deck_size for k, v in orders.items()),
          f"{label}: masked.orders maps decks to card orders")
    for v in orders.values():
        _ints(v, f"{label}: masked.orders", 0, variant.deck_size - 1)
    msgs = _list_field(masked, "messages", MAX_MASKED_MESSAGES, optional=False)
    _need(all(type(h) is str and len(h) <= 2 * MAX_MASKED_BYTES for h in msgs),
          f"{label}: masked.messages holds hex strings of at most {MAX_MASKED_BYTES} bytes")
    from rami_lan.masked.messages import MessageError, from_plain

    for h in msgs:
        try:
            from_plain(_unpack_masked(h), check_points=False)
        except (MessageError, ValueError, TypeError) as exc:
            raise RecordBoundsError(
                f"{label}: a recorded masked message does not parse: {_clip(exc, 120)}") from None


def _check_void(void: Any, label: str) -> None:
    _need(type(void) is dict and set(void) <= {"reason", "seat", "stage"}
          and type(void.get("reason")) is str and void["reason"] in VOID_REASONS,
          f"{label}: void is a map with a known reason ({', '.join(sorted(VOID_REASONS))})")
    _int_field(void, "seat", 0, 255, nullable=True)
    stage = void.get("stage")
    _need(stage is None or stage in ("shuffle", "play", "commit"), f"{label}: bad void.stage")


def check_round_entry(rnd: Any, label: str, variant: Any, seats: int) -> None:
    """Check one round entry (the one a host is building: a journal snapshot's
    ``record.current``) as :func:`check_record` checks a recorded round, its number apart."""
    _check_round(rnd, label, None, variant, seats)


def _check_round(rnd: Any, label: str, index: int | None, variant: Any, seats: int) -> int:
    """One round's fields; returns its number of events."""
    from rami_lan.core.codec import action_from_plain

    _need(type(rnd) is dict, f"{label}: a round is a map")
    _fields(rnd, _ROUND_FIELDS, label)
    for name in _ROUND_REQUIRED:
        _need(name in rnd, f"{label}: {name} is missing")
    _int_field(rnd, "round_no", 1, MAX_ROUNDS, optional=False)
    _need(index is None or rnd["round_no"] == index, f"{label}: round_no {rnd['round_no']} where "
          f"round {index} was due (rounds are numbered 1, 2, 3... once each)")
    _int_field(rnd, "host_seat", 0, 255)
    _int_field(rnd, "dealer", 0, seats - 1, nullable=True)
    _int_field(rnd, "n_cards", 0, MAX_CARDS)
    _hex_text(rnd["round_tag"], f"{label}: round_tag")
    _hex_text(rnd["seed"], f"{label}: seed", size=32)
    for name in ("commitments", "secrets"):
        value = rnd[name]
        _need(type(value) is dict and len(value) <= MAX_PARTICIPANTS,
              f"{label}: {name} must be a map of at most {MAX_PARTICIPANTS} seats")
        for k, v in value.items():
            _need(type(k) is str and k.isdigit() and len(k) <= 3 and int(k) <= 255,
                  f"{label}: {name}: bad seat key")
            _hex_text(v, f"{label}: {name}[{_clip(k, 8)}]", size=32)
    _ints(_list_field(rnd, "participants", MAX_PARTICIPANTS), f"{label}: participants", 0, 255)
    _ints(_list_field(rnd, "excluded", MAX_PARTICIPANTS), f"{label}: excluded", 0, 255)
    _ints(_list_field(rnd, "players", 4), f"{label}: players", 0, seats - 1)
    _ints(_list_field(rnd, "withdrawals", 8), f"{label}: withdrawals", 0, seats - 1)
    deck = _list_field(rnd, "deck", variant.deck_size, optional=False)
    _need(len(deck) in (0, variant.deck_size),
          f"{label}: deck holds the variant's {variant.deck_size} cards (or none: a void round)")
    _ints(deck, f"{label}: deck", 0, variant.deck_size - 1)
    events = _list_field(rnd, "events", MAX_EVENTS, optional=False)
    for ev in events:
        _check_event(ev, label)
        try:
            event_from_plain(ev, variant)
        except Exception as exc:  # noqa: BLE001 - any decoding failure is a malformed file
            raise RecordBoundsError(f"{label}: an event does not decode ({_clip(exc, 80)})") from None
    actions = _list_field(rnd, "actions", MAX_ACTIONS)
    for a in actions:
        _need(type(a) is dict and len(a) <= 16, f"{label}: every action is a small map")
        try:
            action_from_plain(a, variant)
        except Exception as exc:  # noqa: BLE001
            raise RecordBoundsError(f"{label}: an action does not decode ({_clip(exc, 80)})") from None
    if "played_by" in rnd:
        by = _list_field(rnd, "played_by", MAX_ACTIONS)
        _need(len(by) == len(actions) and all(type(b) is str and len(b) <= 16 for b in by),
              f"{label}: played_by names who chose each action")
    _need(rnd.get("abandoned", False) in (True, False), f"{label}: abandoned is a bool")
    err = rnd.get("replay_error")
    _need(err is None or (type(err) is str and len(err) <= MAX_TEXT), f"{label}: bad replay_error")
    if rnd.get("masked") is not None:
        _check_masked(rnd["masked"], label, variant)
    if rnd.get("void") is not None:
        _check_void(rnd["void"], label)
    return len(events)


def check_record(data: Any) -> None:
    """Check a match record's shape and bounds before anything uses it.

    Raises :class:`RecordBoundsError` (a ``ValueError``) naming the first field of the
    wrong type, missing, unknown or out of bounds: ``seats`` 2..4, ``match_no`` 1..10**6,
    a known variant, at most :data:`MAX_ROUNDS` rounds numbered 1, 2, 3... once each,
    each with its tag, 32-byte hex commitments, secrets and seed, at most the variant's
    deck of cards, :data:`MAX_EVENTS` events and :data:`MAX_ACTIONS` actions that decode
    (:data:`MAX_TOTAL_EVENTS` events in all), a private round's masked decks (distinct,
    at most :data:`MAX_MASKED_DECKS`) and messages within bounds, a void round's reason.
    Whether the values are *right* is :func:`verify`'s question.
    """
    _need(isinstance(data, dict), "a record is a map")
    variant = _check_top(data)
    rounds = _list_field(data, "rounds", MAX_ROUNDS, optional=False)
    total = 0
    for index, rnd in enumerate(rounds, start=1):
        total += _check_round(rnd, f"round {index}", index, variant, data["seats"])
        _need(total <= MAX_TOTAL_EVENTS, f"more than {MAX_TOTAL_EVENTS} events in all")

def _unpack_masked(text: str) -> Any:
    """One recorded masked message (hex of msgpack), decoded with bounds: at most
    :data:`MAX_MASKED_BYTES`, no container larger than the message itself allows."""
    import msgpack

    raw = bytes.fromhex(text)
    if len(raw) > MAX_MASKED_BYTES:
        raise ValueError(f"larger than {MAX_MASKED_BYTES} bytes")
    try:
        return msgpack.unpackb(raw, raw=False, strict_map_key=True,
                               max_str_len=len(raw), max_bin_len=len(raw),
                               max_array_len=len(raw), max_map_len=len(raw) // 2 + 1)
    except (msgpack.ExtraData, msgpack.FormatError, msgpack.StackError) as exc:
        raise ValueError(str(exc) or type(exc).__name__) from None
    except (ValueError, TypeError) as exc:
        raise ValueError(str(exc) or type(exc).__name__) from None
