"""One masked deck's mutable state inside a participant (`_Deck`), and its journal form
(plain data for `Participant.snapshot` / `Participant.restore`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rami_lan.masked.audit import DeckRecord
from rami_lan.masked.deck import ShuffleSecrets

SNAPSHOT_VERSION = 1
_RECYCLED = -1


class _Deck:
    """Mutable per-deck state (internal)."""

    def __init__(
        self, deck: int, order: tuple[int, ...], card_ids: tuple[int, ...], secrets: ShuffleSecrets
    ) -> None:
        self.deck = deck
        self.order = order
        self.card_ids = card_ids
        self.secrets = secrets
        self.masks: list[tuple[bytes, ...]] = []
        self.locks: list[tuple[bytes, ...]] = []
        self.commitments: list[tuple[bytes, ...]] = []
        #: position -> assigned seat (None: public) and -> the participant receiving it.
        self.assigned: dict[int, int | None] = {}
        self.recipients: dict[int, int | None] = {}
        #: position -> {seat: key} for positions we receive or that are public.
        self.keys: dict[int, dict[int, bytes]] = {}
        #: position -> {leaver seat: key}
        self.handed: dict[int, dict[int, bytes]] = {}
        self.cards: dict[int, int] = {}
        self.public: set[int] = set()
        #: leaver seat -> (round key, permutation) from its hand-over.
        self.left_secrets: dict[int, tuple[bytes, tuple[int, ...]]] = {}
        #: (the relay) positions of a leaver's hand it was given: the relay holds them now.
        self.given: set[int] = set()

    @property
    def n(self) -> int:
        return len(self.card_ids)

    @property
    def ready(self) -> bool:
        return len(self.locks) == len(self.order)

    def commitment_of(self, seat: int, position: int) -> bytes:
        return self.commitments[self.order.index(seat)][position]

    def record(self) -> DeckRecord:
        return DeckRecord(
            self.deck,
            self.order,
            self.card_ids,
            tuple(self.masks),
            tuple(self.locks),
            tuple(self.commitments),
        )



def _pairs(mapping: dict[int, Any]) -> list[list[Any]]:
    return [[k, v] for k, v in sorted(mapping.items())]


def _deck_plain(d: _Deck) -> dict[str, Any]:
    s = d.secrets
    return {
        "deck": d.deck,
        "order": list(d.order),
        "cards": list(d.card_ids),
        "secrets": [s.round_key, list(s.permutation), list(s.position_keys)],
        "masks": [list(m) for m in d.masks],
        "locks": [list(m) for m in d.locks],
        "commits": [list(c) for c in d.commitments],
        "assigned": _pairs(d.assigned),
        "recipients": _pairs(d.recipients),
        "keys": [[j, _pairs(k)] for j, k in sorted(d.keys.items())],
        "handed": [[j, _pairs(k)] for j, k in sorted(d.handed.items())],
        "known": _pairs(d.cards),
        "public": sorted(d.public),
        "left": [[seat, key, list(perm)] for seat, (key, perm) in sorted(d.left_secrets.items())],
        "given": sorted(d.given),
    }


def _deck_from_plain(plain: dict[str, Any]) -> _Deck:
    key, perm, keys = plain["secrets"]
    d = _Deck(
        plain["deck"],
        tuple(plain["order"]),
        tuple(plain["cards"]),
        ShuffleSecrets(key, tuple(perm), tuple(keys)),
    )
    d.masks = [tuple(m) for m in plain["masks"]]
    d.locks = [tuple(m) for m in plain["locks"]]
    d.commitments = [tuple(c) for c in plain["commits"]]
    d.assigned = dict(_tuples(plain["assigned"]))
    d.recipients = dict(_tuples(plain["recipients"]))
    d.keys = {j: dict(_tuples(k)) for j, k in plain["keys"]}
    d.handed = {j: dict(_tuples(k)) for j, k in plain["handed"]}
    d.cards = dict(_tuples(plain["known"]))
    d.public = set(plain["public"])
    d.left_secrets = {seat: (key, tuple(perm)) for seat, key, perm in plain["left"]}
    d.given = set(plain.get("given", ()))
    return d


def _tuples(pairs: Iterable[list[Any]]) -> Iterable[tuple[Any, Any]]:
    return ((a, b) for a, b in pairs)
