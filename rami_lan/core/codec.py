"""Plain-data encoding of the core's values (msgpack-ready: dict/list/int/str/bool/bytes).

Cards travel as their canonical ids (FAIR_SHUFFLE.md). `action_from_plain` validates
strictly and raises `MalformedAction`; a decoded action may still be illegal, which
only the engine decides. `match_to_plain` / `match_from_plain` make a full snapshot
that can be saved and restored so a match resumes exactly.
"""

from __future__ import annotations

import dataclasses
from enum import Enum
from typing import Any

from rami_lan.core import actions as A
from rami_lan.core import events as E
from rami_lan.core.cards import Card, card_id, full_deck
from rami_lan.core.errors import MalformedAction
from rami_lan.core.match import MatchOptions, MatchState, RoundSummary
from rami_lan.core.melds import Meld
from rami_lan.core.phases import MatchEnd, Phase, RoundEnd
from rami_lan.core.round import RoundState
from rami_lan.core.variants import Variant, get_variant
from rami_lan.core.views import PlayerInfo, SeatView

Plain = Any

SNAPSHOT_VERSION = 1


class CardCodec:
    """Cards <-> ids for one variant's deck (tables built once per variant)."""

    _tables: dict[tuple[int, int], tuple[tuple[Card, ...], dict[Card, int]]] = {}

    def __init__(self, variant: Variant) -> None:
        self.v = variant
        key = (variant.n_decks, variant.n_jokers)
        if key not in self._tables:
            deck = tuple(full_deck(*key))
            self._tables[key] = (deck, {c: i for i, c in enumerate(deck)})
        self._deck, self._ids = self._tables[key]

    def enc(self, c: Card | None) -> int | None:
        if c is None:
            return None
        cid = self._ids.get(c)
        return card_id(c, self.v.n_decks) if cid is None else cid

    def dec(self, x: object) -> Card:
        if type(x) is not int or not 0 <= x < len(self._deck):  # noqa: E721 (bool is not a card)
            if isinstance(x, int) and not isinstance(x, bool):
                raise MalformedAction(f"card id {x} out of range")
            raise MalformedAction(f"a card id must be an integer, not {type(x).__name__}")
        return self._deck[x]

    def dec_opt(self, x: object) -> Card | None:
        return None if x is None else self.dec(x)

    def encs(self, cs: tuple[Card, ...] | list[Card] | None) -> list[int] | None:
        return None if cs is None else [self.enc(c) for c in cs]  # type: ignore[misc]

    def decs(self, xs: object, max_len: int = 200) -> tuple[Card, ...]:
        if not isinstance(xs, list | tuple) or len(xs) > max_len:
            raise MalformedAction("expected a list of card ids")
        return tuple(self.dec(x) for x in xs)

    def meld(self, m: Meld) -> dict:
        return {"k": m.kind, "c": self.encs(m.cards), "r": list(m.ranks), "s": list(m.suits), "o": m.owner}

    def unmeld(self, d: dict) -> Meld:
        return Meld(d["k"], self.decs(d["c"]), tuple(d["r"]), tuple(d["s"]), d["o"])


# --- actions -------------------------------------------------------------------------


def action_to_plain(a: A.Action, variant: str | Variant) -> dict:
    cc = CardCodec(get_variant(variant))
    kind = A.KIND_OF[type(a)]
    d: dict = {"kind": kind, "seat": a.seat}
    if isinstance(a, A.DrawDiscard):
        d["depth"] = a.depth
    elif isinstance(a, A.LayDown):
        d["melds"] = [{"cards": cc.encs(m.cards), "kind": m.kind} for m in a.melds]
    elif isinstance(a, A.LayOff):
        d.update(card=cc.enc(a.card), target=a.target, end=a.end)
    elif isinstance(a, A.RecoverJoker):
        d.update(target=a.target, cards=cc.encs(a.cards))
    elif isinstance(a, A.Discard):
        d["card"] = cc.enc(a.card)
    return d


def _int(d: dict, key: str, lo: int, hi: int) -> int:
    x = d.get(key)
    if not isinstance(x, int) or isinstance(x, bool) or not lo <= x <= hi:
        raise MalformedAction(f"field {key!r} must be an integer in {lo}..{hi}")
    return x


_FIELDS = {
    "draw_stock": {"kind", "seat"},
    "draw_discard": {"kind", "seat", "depth"},
    "lay_down": {"kind", "seat", "melds"},
    "lay_off": {"kind", "seat", "card", "target", "end"},
    "recover_joker": {"kind", "seat", "target", "cards"},
    "discard": {"kind", "seat", "card"},
    "knock": {"kind", "seat"},
    "timeout": {"kind", "seat"},
}


def action_from_plain(d: object, variant: str | Variant) -> A.Action:
    """Decode and strictly validate an action; raise `MalformedAction` if malformed."""
    cc = CardCodec(get_variant(variant))
    if not isinstance(d, dict):
        raise MalformedAction("an action must be a map")
    kind = d.get("kind")
    if kind not in _FIELDS:
        raise MalformedAction(f"unknown action kind {kind!r}")
    extra = set(d) - _FIELDS[kind]
    if extra:
        raise MalformedAction(f"unexpected field(s) {sorted(map(str, extra))} in {kind}")
    seat = _int(d, "seat", 0, 255)
    if kind == "draw_stock":
        return A.DrawStock(seat)
    if kind == "draw_discard":
        return A.DrawDiscard(seat, _int(d, "depth", 1, 200) if "depth" in d else 1)
    if kind == "lay_down":
        melds = d.get("melds")
        if not isinstance(melds, list) or not 1 <= len(melds) <= 20:
            raise MalformedAction("lay_down needs a list of 1 to 20 melds")
        specs = []
        for m in melds:
            if not isinstance(m, dict) or set(m) - {"cards", "kind"}:
                raise MalformedAction("a meld is a map with 'cards' and optional 'kind'")
            k = m.get("kind")
            if k not in (None, "set", "run"):
                raise MalformedAction("meld kind must be 'set', 'run' or null")
            specs.append(A.MeldSpec(cc.decs(m.get("cards"), 14), k))
        return A.LayDown(seat, tuple(specs))
    if kind == "lay_off":
        end = d.get("end")
        if end not in (None, "low", "high"):
            raise MalformedAction("end must be 'low', 'high' or null")
        return A.LayOff(seat, cc.dec(d.get("card")), _int(d, "target", 0, 500), end)
    if kind == "recover_joker":
        return A.RecoverJoker(seat, _int(d, "target", 0, 500), cc.decs(d.get("cards"), 2))
    if kind == "discard":
        return A.Discard(seat, cc.dec(d.get("card")))
    if kind == "knock":
        return A.Knock(seat)
    return A.Timeout(seat)


# --- events and views ----------------------------------------------------------------


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


_SCALARS = (int, str, bool, type(None), bytes)


def _enc_value(x: object, cc: CardCodec) -> Plain:
    t = type(x)
    if t is Card:
        return {"card": cc.enc(x)}  # type: ignore[arg-type]
    if t in _SCALARS:
        return x
    if t is Meld:
        return cc.meld(x)  # type: ignore[arg-type]
    if t is tuple or t is list:
        ids = cc._ids
        # cards and scalars inline: views and events are mostly lists of cards
        return [
            {"card": ids[y]} if type(y) is Card and y in ids
            else y if type(y) in _SCALARS
            else _enc_value(y, cc)
            for y in x  # type: ignore[attr-defined]
        ]
    if t in _FIELD_NAMES or (dataclasses.is_dataclass(x) and not isinstance(x, type)):
        d = {}
        for name in _field_names(t):
            v = getattr(x, name)
            d[name] = v if type(v) in _SCALARS else _enc_value(v, cc)
        d["type"] = t.__name__
        return d
    if isinstance(x, Enum):
        return x.value  # phases and end reasons travel as their plain strings
    return x


def event_to_plain(ev: E.Event, variant: str | Variant) -> dict:
    """Encode an event already redacted for its reader (see `Event.for_seat`)."""
    return _enc_value(ev, CardCodec(get_variant(variant)))


_EVENT_TYPES = {
    cls.__name__: cls
    for cls in vars(E).values()
    if isinstance(cls, type) and issubclass(cls, E.Event) and cls is not E.Event
}


def _dec_value(x: Plain, cc: CardCodec) -> object:
    if isinstance(x, dict):
        if len(x) == 1 and "card" in x:
            return None if x["card"] is None else cc.dec(x["card"])
        if "type" in x:
            cls = _EVENT_TYPES.get(x["type"]) or {"PlayerInfo": PlayerInfo, "SeatView": SeatView}.get(
                x["type"]
            )
            if cls is None:
                raise MalformedAction(f"unknown type {x['type']!r}")
            kw = {k: _dec_value(v, cc) for k, v in x.items() if k != "type"}
            try:
                return cls(**kw)
            except TypeError as e:
                raise MalformedAction(f"bad {x['type']}: {e}") from None
        if set(x) == {"k", "c", "r", "s", "o"}:
            return cc.unmeld(x)
        return {k: _dec_value(v, cc) for k, v in x.items()}
    if isinstance(x, list):
        deck = cc._deck
        n = len(deck)
        out = []
        for y in x:
            ty = type(y)
            if ty is dict and len(y) == 1 and "card" in y:
                cid = y["card"]
                out.append(deck[cid] if type(cid) is int and 0 <= cid < n else cc.dec_opt(cid))
            elif ty in _SCALARS:
                out.append(y)
            else:
                out.append(_dec_value(y, cc))
        return tuple(out)
    return x


def event_from_plain(d: dict, variant: str | Variant) -> E.Event:
    ev = _dec_value(d, CardCodec(get_variant(variant)))
    if not isinstance(ev, E.Event):
        raise MalformedAction("not an event")
    return ev


def view_to_plain(view: SeatView) -> dict:
    return _enc_value(view, CardCodec(get_variant(view.variant)))


def view_from_plain(d: dict) -> SeatView:
    if not isinstance(d, dict) or "variant" not in d:
        raise MalformedAction("not a view")
    v = _dec_value(d, CardCodec(get_variant(d["variant"])))
    if not isinstance(v, SeatView):
        raise MalformedAction("not a view")
    return v


# --- snapshots -----------------------------------------------------------------------


def _round_to_plain(r: RoundState, cc: CardCodec) -> dict:
    return {
        "players": list(r.players),
        "round_no": r.round_no,
        "dealer": r.dealer,
        "seed": r.seed,
        "knock_enabled": r.knock_enabled,
        "hands": [cc.encs(h) for h in r.hands],
        "stock": cc.encs(r.stock),
        "stock_gen": r.stock_gen,
        "stock_base": r.stock_base,
        "discard": cc.encs(r.discard),
        "melds": [cc.meld(m) for m in r.melds],
        "turn": r.turn,
        "phase": r.phase.value if isinstance(r.phase, Enum) else r.phase,
        "turn_no": r.turn_no,
        "opened": list(r.opened),
        "laid_before": list(r.laid_before),
        "laid_points": list(r.laid_points),
        "timeouts": list(r.timeouts),
        "away": list(r.away),
        "taken": cc.enc(r.taken),
        "drawn": cc.enc(r.drawn),
        "must_use": cc.encs(r.must_use),
        "laid_this_turn": r.laid_this_turn,
        "knock_window": list(r.knock_window),
        "result": None if r.result is None else _enc_value(r.result, cc),
        "blind": sorted(r.blind),
        "refills": None if r.refills is None else [cc.encs(p) for p in r.refills],
    }


def _round_from_plain(d: dict, v: Variant, n_seats: int, cc: CardCodec) -> RoundState:
    res = d["result"]
    return RoundState(
        variant=v,
        players=tuple(d["players"]),
        n_seats=n_seats,
        round_no=d["round_no"],
        dealer=d["dealer"],
        seed=bytes(d["seed"]),
        knock_enabled=d["knock_enabled"],
        hands=tuple(cc.decs(h) for h in d["hands"]),
        stock=cc.decs(d["stock"]),
        stock_gen=d["stock_gen"],
        stock_base=d["stock_base"],
        discard=cc.decs(d["discard"]),
        melds=tuple(cc.unmeld(m) for m in d["melds"]),
        turn=d["turn"],
        phase=Phase(d["phase"]),
        turn_no=d["turn_no"],
        opened=tuple(d["opened"]),
        laid_before=tuple(d["laid_before"]),
        laid_points=tuple(d["laid_points"]),
        timeouts=tuple(d["timeouts"]),
        away=tuple(d["away"]),
        taken=cc.dec_opt(d["taken"]),
        drawn=cc.dec_opt(d["drawn"]),
        must_use=cc.decs(d["must_use"]),
        laid_this_turn=d["laid_this_turn"],
        knock_window=tuple(d["knock_window"]),
        result=None if res is None else _dec_value(res, cc),  # type: ignore[arg-type]
        blind=frozenset(d.get("blind", ())),
        refills=None if d.get("refills") is None else tuple(cc.decs(p) for p in d["refills"]),
    )


def match_to_plain(m: MatchState) -> dict:
    """A full snapshot of the match (host-only: it holds every hand and the stock)."""
    cc = CardCodec(m.variant)
    return {
        "snapshot": SNAPSHOT_VERSION,
        "variant": m.variant.id,
        "options": {"limit": m.options.limit, "quick": m.options.quick, "knock": m.options.knock},
        "n_seats": m.n_seats,
        "totals": list(m.totals),
        "eliminated": list(m.eliminated),
        "round_no": m.round_no,
        "dealer": m.dealer,
        "round": None if m.round is None else _round_to_plain(m.round, cc),
        "history": [
            {
                "round_no": h.round_no,
                "winner": h.winner,
                "rami_sec": h.rami_sec,
                "reason": str(h.reason),
                "scores": [list(p) for p in h.scores],
            }
            for h in m.history
        ],
        "tiebreak": list(m.tiebreak),
        "over": m.over,
        "winner": m.winner,
        "end_reason": str(m.end_reason),
    }


def match_from_plain(d: dict) -> MatchState:
    """Restore a snapshot made by `match_to_plain`."""
    if not isinstance(d, dict) or d.get("snapshot") != SNAPSHOT_VERSION:
        raise MalformedAction("not a rami-lan match snapshot (or an unknown version)")
    v = get_variant(d["variant"])
    cc = CardCodec(v)
    o = d["options"]
    return MatchState(
        variant=v,
        options=MatchOptions(o["limit"], o["quick"], o["knock"]),
        n_seats=d["n_seats"],
        totals=tuple(d["totals"]),
        eliminated=tuple(d["eliminated"]),
        round_no=d["round_no"],
        dealer=d["dealer"],
        round=None if d["round"] is None else _round_from_plain(d["round"], v, d["n_seats"], cc),
        history=tuple(
            RoundSummary(
                h["round_no"],
                h["winner"],
                h["rami_sec"],
                RoundEnd(h["reason"]),
                tuple(tuple(p) for p in h["scores"]),  # type: ignore[misc]
            )
            for h in d["history"]
        ),
        tiebreak=tuple(d["tiebreak"]),
        over=d["over"],
        winner=d["winner"],
        end_reason=MatchEnd(d["end_reason"]) if d["end_reason"] else "",
    )
