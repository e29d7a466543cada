"""The table's side of a masked round: the host-to-seat ``mk_*`` messages, typed.

Private dealing (docs/masked_deck.md, docs/protocol.md) carries two families of masked
messages inside the wire's ``masked`` message. The masked deck's own protocol messages
(``mk_mask`` .. ``mk_protest``) are typed in :mod:`rami_lan.masked.messages`; this module
types what the *table* adds, which only the host sends:

| kind | message | what it says |
|---|---|---|
| ``mk_round`` | :class:`MkRound` | a masked round begins: tag, relay, participants, deck size, roster |
| ``mk_deal`` | :class:`MkDeal` | the deal: who gets each position of deck 0 |
| ``mk_hand`` | :class:`MkHand` | where the seat's hand lies in the masked decks |
| ``mk_show`` | :class:`MkShow` | an action ends the round: every participant shows its hand |
| ``mk_sync`` | :class:`MkSync` | after a reconnect: the round's public events so far |
| ``mk_timeout`` | :class:`MkTimeout` | the seat's move timer ran out: its client plays the automatic move |
| ``mk_close`` | :class:`MkClose` | the host closed the round's audit |
| ``mk_own`` | :class:`MkOwn` | to a seat whose keys the host holds: this round is masked |
| ``mk_orders`` | :class:`MkOrders` | to that seat, at the end: the audited orders |

Each has ``to_plain()`` (the wire form, with ``"k"``) and a strict ``from_plain``
(exactly its keys, exact types and ranges; :class:`TableMessageError` says what was
wrong). Whether a message fits the round (its deck size, our seat among the
participants, the events by the rules) is the seat's to judge, not the parser's.

:func:`decode_for_seat` is the client's edge: one ``masked`` map from the host becomes a
table message, a masked-deck message, a host receipt, or an :class:`Unparsed` that says
why it is none; it never raises. The event maps of ``mk_show`` and ``mk_sync`` stay
plain here (decoding them needs the variant: the seat does it, as for ``events``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from rami_lan.masked import kinds as MK
from rami_lan.masked.deck import MAX_DECK
from rami_lan.masked.messages import MaskedMessage, from_plain
from rami_lan.masked.signing import Receipt
from rami_lan.wire.checks import check_plain

__all__ = [
    "MkClose",
    "MkDeal",
    "MkHand",
    "MkOrders",
    "MkOwn",
    "MkRound",
    "MkShow",
    "MkSync",
    "MkTimeout",
    "SeatMasked",
    "TableMessage",
    "TableMessageError",
    "Unparsed",
    "decode_for_seat",
    "kind_of",
    "parse_table_message",
    "plain_of",
]

MAX_TAG = 64
MAX_RID = 32
MAX_SEATS = 256
MAX_DECKS = 64
MAX_GENERATIONS = 1024
MAX_FAULTS = 64
MAX_FAULT_TEXT = 500
MAX_REASON = 32
_POSITION_MAX = 1 << 16
_ROSTER_KEYS = ("hkey", "keys")


class TableMessageError(ValueError):
    """A host's ``mk_*`` map that is no valid table message of its kind."""


# --------------------------------------------------------------------------- field checks


def _exact_keys(plain: object, kind: str, required: tuple[str, ...], optional: tuple[str, ...] = ()
                ) -> dict[str, Any]:
    if type(plain) is not dict:
        raise TableMessageError(f"{kind}: a message must be a map")
    keys = set(plain) - {"k"}
    missing = [k for k in required if k not in keys]
    extra = sorted(str(k) for k in keys - set(required) - set(optional))
    if missing or extra:
        raise TableMessageError(f"{kind}: missing {missing or 'nothing'}, unexpected {extra or 'nothing'}")
    return plain


def _int(kind: str, name: str, value: object, low: int, high: int) -> int:
    if type(value) is not int or not low <= value <= high:
        raise TableMessageError(f"{kind}: {name} must be an integer in [{low}, {high}], got {value!r:.40}")
    return value


def _bytes(kind: str, name: str, value: object, low: int, high: int) -> bytes:
    if type(value) is not bytes or not low <= len(value) <= high:
        raise TableMessageError(f"{kind}: {name} must be {low} to {high} bytes")
    return value


def _list(kind: str, name: str, value: object, high: int) -> list[Any]:
    if type(value) is not list or len(value) > high:
        raise TableMessageError(f"{kind}: {name} must be a list of at most {high} items")
    return value


def _seat(kind: str, name: str, value: object) -> int:
    return _int(kind, name, value, 0, MAX_SEATS - 1)


def _event_maps(kind: str, value: object) -> tuple[dict[str, Any], ...]:
    if type(value) is not list or any(type(e) is not dict for e in value):
        raise TableMessageError(f"{kind}: events must be a list of maps")
    try:
        check_plain(value)
    except ValueError as exc:
        raise TableMessageError(f"{kind}: events: {exc}") from exc
    return tuple(value)


def _position(kind: str, value: object) -> tuple[int, int] | None:
    if value is None:
        return None
    if type(value) is not list or len(value) != 2:
        raise TableMessageError(f"{kind}: a position is [deck, index] or nil")
    top = _POSITION_MAX - 1
    return (_int(kind, "deck", value[0], 0, top), _int(kind, "index", value[1], 0, top))


# --------------------------------------------------------------------------- messages


@dataclass(frozen=True, slots=True)
class MkRound:
    """``mk_round``: a masked round begins (the first message of a seat's log).

    ``rid`` tells this shuffle from another with the same tag (the host restarted during
    the shuffle); ``roster`` holds ``hkey`` and ``keys`` as sent (checked where the table
    id is known: `rami_lan.masked.signing.Roster.from_plain`); None: an unsigned round."""

    KIND: ClassVar[str] = MK.ROUND

    tag: bytes
    host: int
    participants: tuple[int, ...]
    n: int
    rid: bytes | None = None
    roster: dict[str, Any] | None = None

    def to_plain(self) -> dict[str, Any]:
        plain: dict[str, Any] = {"k": self.KIND, "tag": self.tag, "host": self.host,
                                 "participants": list(self.participants), "n": self.n}
        if self.rid is not None:
            plain["rid"] = self.rid
        return {**plain, **(self.roster or {})}

    @classmethod
    def from_plain(cls, plain: object) -> Self:
        k = cls.KIND
        p = _exact_keys(plain, k, ("tag", "host", "participants", "n"), ("rid", *_ROSTER_KEYS))
        seats = _list(k, "participants", p["participants"], MAX_SEATS)
        roster = {key: p[key] for key in _ROSTER_KEYS if key in p}
        try:
            check_plain(roster)
        except ValueError as exc:
            raise TableMessageError(f"{k}: roster: {exc}") from exc
        return cls(_bytes(k, "tag", p["tag"], 1, MAX_TAG), _seat(k, "host", p["host"]),
                   tuple(_seat(k, "a participant", s) for s in seats), _int(k, "n", p["n"], 1, MAX_DECK),
                   None if p.get("rid") is None else _bytes(k, "rid", p["rid"], 1, MAX_RID),
                   roster or None)


@dataclass(frozen=True, slots=True)
class MkDeal:
    """``mk_deal``: position j of ``deck`` goes to ``seats[j]`` (None: turned up for all)."""

    KIND: ClassVar[str] = MK.DEAL

    deck: int
    seats: tuple[int | None, ...]

    def to_plain(self) -> dict[str, Any]:
        return {"k": self.KIND, "deck": self.deck, "seats": list(self.seats)}

    @classmethod
    def from_plain(cls, plain: object) -> Self:
        k = cls.KIND
        p = _exact_keys(plain, k, ("deck", "seats"))
        seats = _list(k, "seats", p["seats"], MAX_DECK)
        return cls(_int(k, "deck", p["deck"], 0, MAX_DECKS - 1),
                   tuple(None if s is None else _seat(k, "a seat", s) for s in seats))


@dataclass(frozen=True, slots=True)
class MkHand:
    """``mk_hand``: where each card of the seat's hand lies, in the view's order: a
    ``(deck, index)`` position of a masked deck, or None for a card the host knows."""

    KIND: ClassVar[str] = MK.HAND

    pos: tuple[tuple[int, int] | None, ...]

    def to_plain(self) -> dict[str, Any]:
        return {"k": self.KIND, "pos": [None if q is None else list(q) for q in self.pos]}

    @classmethod
    def from_plain(cls, plain: object) -> Self:
        k = cls.KIND
        p = _exact_keys(plain, k, ("pos",))
        return cls(tuple(_position(k, q) for q in _list(k, "pos", p["pos"], MAX_DECK)))


@dataclass(frozen=True, slots=True)
class MkShow:
    """``mk_show``: the announced action's public events would end the round
    (``reason``, ``winner``): every participant reveals the rest of its hand first."""

    KIND: ClassVar[str] = MK.SHOW

    events: tuple[dict[str, Any], ...]
    reason: str = ""
    winner: int | None = None

    def to_plain(self) -> dict[str, Any]:
        return {"k": self.KIND, "events": list(self.events), "reason": self.reason, "winner": self.winner}

    @classmethod
    def from_plain(cls, plain: object) -> Self:
        k = cls.KIND
        p = _exact_keys(plain, k, ("events", "reason", "winner"))
        reason = p["reason"]
        if type(reason) is not str or len(reason) > MAX_REASON:
            raise TableMessageError(f"{k}: reason must be a text of at most {MAX_REASON} characters")
        winner = None if p["winner"] is None else _seat(k, "winner", p["winner"])
        return cls(_event_maps(k, p["events"]), reason, winner)


@dataclass(frozen=True, slots=True)
class MkSync:
    """``mk_sync``: the round's public events so far, after the seat's reconnect."""

    KIND: ClassVar[str] = MK.SYNC

    events: tuple[dict[str, Any], ...]

    def to_plain(self) -> dict[str, Any]:
        return {"k": self.KIND, "events": list(self.events)}

    @classmethod
    def from_plain(cls, plain: object) -> Self:
        p = _exact_keys(plain, cls.KIND, ("events",))
        return cls(_event_maps(cls.KIND, p["events"]))


@dataclass(frozen=True, slots=True)
class MkTimeout:
    """``mk_timeout``: the seat's move timer ran out at ``turn``; its client owes the
    automatic move (the host can not play a hidden hand)."""

    KIND: ClassVar[str] = MK.TIMEOUT

    turn: int

    def to_plain(self) -> dict[str, Any]:
        return {"k": self.KIND, "turn": self.turn}

    @classmethod
    def from_plain(cls, plain: object) -> Self:
        p = _exact_keys(plain, cls.KIND, ("turn",))
        return cls(_int(cls.KIND, "turn", p["turn"], 0, 2**32 - 1))


@dataclass(frozen=True, slots=True)
class MkClose:
    """``mk_close``: the host closed the round's audit (close ours with what came)."""

    KIND: ClassVar[str] = MK.CLOSE

    def to_plain(self) -> dict[str, Any]:
        return {"k": self.KIND}

    @classmethod
    def from_plain(cls, plain: object) -> Self:
        _exact_keys(plain, cls.KIND, ())
        return cls()


@dataclass(frozen=True, slots=True)
class MkOwn:
    """``mk_own``: to a seat outside the masked deck whose keys the host holds (the
    host's own player; a player out of the private deal): round ``tag`` is masked."""

    KIND: ClassVar[str] = MK.OWN

    tag: bytes

    def to_plain(self) -> dict[str, Any]:
        return {"k": self.KIND, "tag": self.tag}

    @classmethod
    def from_plain(cls, plain: object) -> Self:
        p = _exact_keys(plain, cls.KIND, ("tag",))
        return cls(_bytes(cls.KIND, "tag", p["tag"], 1, MAX_TAG))


@dataclass(frozen=True, slots=True)
class MkOrders:
    """``mk_orders``: to that seat, the audited card orders of round ``tag``'s decks,
    which deck each stock generation was shuffled into (None: turned over), and the
    audit's faults as texts."""

    KIND: ClassVar[str] = MK.ORDERS

    tag: bytes
    orders: tuple[tuple[int, tuple[int, ...]], ...]
    gens: tuple[tuple[int, int | None], ...]
    faults: tuple[str, ...] = ()

    def to_plain(self) -> dict[str, Any]:
        return {"k": self.KIND, "tag": self.tag,
                "orders": [[d, list(ids)] for d, ids in self.orders],
                "gens": [[g, d] for g, d in self.gens],
                "faults": list(self.faults)}

    @classmethod
    def from_plain(cls, plain: object) -> Self:
        k = cls.KIND
        p = _exact_keys(plain, k, ("tag", "orders", "gens", "faults"))
        orders = []
        for pair in _list(k, "orders", p["orders"], MAX_DECKS):
            deck, ids = _pair(k, pair)
            ids = tuple(_int(k, "a card id", c, 0, MAX_DECK - 1) for c in _list(k, "ids", ids, MAX_DECK))
            orders.append((_int(k, "deck", deck, 0, MAX_DECKS - 1), ids))
        gens = []
        for pair in _list(k, "gens", p["gens"], MAX_GENERATIONS):
            gen, deck = _pair(k, pair)
            gens.append((_int(k, "generation", gen, 0, MAX_GENERATIONS - 1),
                         None if deck is None else _int(k, "deck", deck, 0, MAX_DECKS - 1)))
        faults = _list(k, "faults", p["faults"], MAX_FAULTS)
        if any(type(f) is not str or len(f) > MAX_FAULT_TEXT for f in faults):
            raise TableMessageError(f"{k}: faults must be texts of at most {MAX_FAULT_TEXT} characters")
        return cls(_bytes(k, "tag", p["tag"], 1, MAX_TAG), tuple(orders), tuple(gens), tuple(faults))


def _pair(kind: str, value: object) -> tuple[Any, Any]:
    if type(value) is not list or len(value) != 2:
        raise TableMessageError(f"{kind}: expected a [key, value] pair")
    return value[0], value[1]


TableMessage = (MkRound | MkDeal | MkHand | MkShow | MkSync | MkTimeout
                | MkClose | MkOwn | MkOrders)
"""A host-to-seat table message of a masked round."""

_TABLE: dict[str, Callable[[object], TableMessage]] = {
    cls.KIND: cls.from_plain
    for cls in (MkRound, MkDeal, MkHand, MkShow, MkSync, MkTimeout,
                MkClose, MkOwn, MkOrders)
}


def parse_table_message(plain: object) -> TableMessage:
    """``plain`` as a table message; raises `TableMessageError` if it is none."""
    kind = plain.get("k") if isinstance(plain, dict) else None
    parse = _TABLE.get(kind) if isinstance(kind, str) else None
    if parse is None:
        raise TableMessageError(f"not a table message kind: {kind!r:.40}")
    return parse(plain)


# --------------------------------------------------------------------------- the seat's edge


@dataclass(frozen=True, slots=True)
class Unparsed:
    """A host's masked map that is no valid message of its kind: ``reason`` says why;
    ``plain`` is kept as the evidence of a refusal."""

    kind: str
    reason: str
    plain: Any


SeatMasked = TableMessage | MaskedMessage | Receipt | Unparsed
"""What a seat's masked deck takes from the host, decoded once (`decode_for_seat`)."""


def kind_of(msg: SeatMasked) -> str:
    """The wire kind of a decoded message (``mk_*``)."""
    return msg.kind if isinstance(msg, Unparsed) else msg.KIND


def plain_of(msg: SeatMasked) -> Any:
    """The message's wire form: what came, for an `Unparsed` (a refusal's evidence)."""
    return msg.plain if isinstance(msg, Unparsed) else msg.to_plain()


def decode_for_seat(plain: object) -> SeatMasked:
    """One ``masked`` map from the host as a typed value; never raises.

    A seat is never the relay, so a shuffle output's points are checked for shape here
    and for group membership where the seat multiplies them (`rami_lan.masked.messages`)."""
    kind = str(plain.get("k"))[:20] if isinstance(plain, dict) else "?"
    try:
        if kind in _TABLE:
            return _TABLE[kind](plain)
        if kind == Receipt.KIND:
            return Receipt.parse(plain)
        return from_plain(plain, check_points=False)
    except (ValueError, TypeError, KeyError) as exc:  # TableMessageError, MessageError, SignatureError
        return Unparsed(kind, str(exc), plain)
