"""Cards with identity, their short text form and the canonical card ids.

A card is a rank and a suit plus a *copy* number: with two decks every card exists
twice, and the copy tells the two apart so a physical card can be followed from the
deal to the discard pile. Jokers have rank 0, no suit, and a copy number of their own.

Text form (VARIANTS.md): rank then suit letter, ``10h``, ``Qs``, ``Ac``; joker ``*``.
Canonical ids (FAIR_SHUFFLE.md): for each deck copy, suits ``c s h d``, ranks A..K;
then the jokers.
"""

from __future__ import annotations

from dataclasses import dataclass

from rami_lan.core.errors import MalformedAction

SUITS: tuple[str, ...] = ("c", "s", "h", "d")
"""Suit letters in canonical (and display) order: clubs, spades, hearts, diamonds."""

SUIT_SYMBOLS: dict[str, str] = {"c": "♣", "s": "♠", "h": "♥", "d": "♦"}
SYMBOL_SUITS: dict[str, str] = {v: k for k, v in SUIT_SYMBOLS.items()}
RANK_TEXT: dict[int, str] = {1: "A", 11: "J", 12: "Q", 13: "K"}
TEXT_RANK: dict[str, int] = {"A": 1, "J": 11, "Q": 12, "K": 13}
JOKER_RANK = 0
ACE = 1
KING = 13


def rank_text(rank: int) -> str:
    """``1 -> 'A'``, ``10 -> '10'``, ``13 -> 'K'``; rank 14 (a high ace) is also ``'A'``."""
    if rank == 14:
        return "A"
    return RANK_TEXT.get(rank, str(rank))


@dataclass(frozen=True, order=True, slots=True)
class Card:
    """One physical card. ``rank`` 1..13 (ace = 1) or 0 for a joker."""

    rank: int
    suit: str | None
    copy: int = 0

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other.__class__ is not Card:
            return NotImplemented
        return (
            self.rank == other.rank  # type: ignore[attr-defined]
            and self.suit == other.suit  # type: ignore[attr-defined]
            and self.copy == other.copy  # type: ignore[attr-defined]
        )

    def __hash__(self) -> int:
        return hash((self.rank, self.suit, self.copy))

    def __post_init__(self) -> None:
        if self.rank == JOKER_RANK:
            if self.suit is not None:
                raise MalformedAction("a joker has no suit")
        elif not 1 <= self.rank <= 13 or self.suit not in SUITS:
            raise MalformedAction(f"no such card: rank {self.rank!r} suit {self.suit!r}")
        if self.copy < 0:
            raise MalformedAction("card copy number must be >= 0")

    @property
    def is_joker(self) -> bool:
        return not self.rank

    @property
    def face(self) -> tuple[int, str | None]:
        """Rank and suit without the copy: what a player sees."""
        return (self.rank, self.suit)

    def __str__(self) -> str:
        if self.is_joker:
            return "*"
        return f"{rank_text(self.rank)}{self.suit}"

    def __repr__(self) -> str:
        return f"Card({str(self)!r}{', copy=' + str(self.copy) if self.copy else ''})"

    def sort_key(self) -> tuple[int, int, int]:
        """Order by suit (c s h d) then rank, jokers last."""
        if self.is_joker:
            return (4, 0, self.copy)
        return (SUITS.index(self.suit or "c"), self.rank, self.copy)


def joker(copy: int = 0) -> Card:
    return Card(JOKER_RANK, None, copy)


def parse_card(text: str, copy: int = 0) -> Card:
    """Parse one card in text form (``10h``, ``Qs``, ``*``; ``10♥`` too); case-insensitive."""
    t = text.strip()
    if t in ("*", "JK", "Jk", "jk", "joker"):
        return joker(copy)
    if len(t) < 2:
        raise MalformedAction(f"not a card: {text!r}")
    rank_s, suit = t[:-1].upper(), SYMBOL_SUITS.get(t[-1], t[-1].lower())
    if suit not in SUITS:
        raise MalformedAction(f"not a card: {text!r} (suit must be one of c s h d)")
    if rank_s in TEXT_RANK:
        rank = TEXT_RANK[rank_s]
    elif rank_s.isdigit() and 2 <= int(rank_s) <= 10:
        rank = int(rank_s)
    else:
        raise MalformedAction(f"not a card: {text!r} (rank must be A, 2-10, J, Q or K)")
    return Card(rank, suit, copy)


def parse_cards(text: str) -> list[Card]:
    """Parse space-separated cards. Repeated faces get increasing copy numbers.

    ``parse_cards("10d 10c 10d")`` gives two distinct physical ten of diamonds
    (copies 0 and 1), as with two decks.
    """
    seen: dict[tuple[int, str | None], int] = {}
    out: list[Card] = []
    for tok in text.replace(",", " ").split():
        c = parse_card(tok)
        n = seen.get(c.face, 0)
        seen[c.face] = n + 1
        out.append(Card(c.rank, c.suit, n) if n else c)
    return out


def card_id(card: Card, n_decks: int) -> int:
    """Canonical id of FAIR_SHUFFLE.md for a deck of ``n_decks`` x 52 plus jokers."""
    if card.is_joker:
        return 52 * n_decks + card.copy
    if card.copy >= n_decks:
        raise MalformedAction(f"card {card} copy {card.copy} not in a {n_decks}-deck game")
    return card.copy * 52 + SUITS.index(card.suit or "c") * 13 + card.rank - 1


def card_from_id(cid: int, n_decks: int, n_jokers: int) -> Card:
    """Inverse of `card_id`."""
    if not 0 <= cid < 52 * n_decks + n_jokers:
        raise MalformedAction(f"card id {cid} out of range")
    if cid >= 52 * n_decks:
        return joker(cid - 52 * n_decks)
    copy, rest = divmod(cid, 52)
    suit_i, rank0 = divmod(rest, 13)
    return Card(rank0 + 1, SUITS[suit_i], copy)


def full_deck(n_decks: int, n_jokers: int) -> list[Card]:
    """Every card of the game in canonical id order."""
    return [card_from_id(i, n_decks, n_jokers) for i in range(52 * n_decks + n_jokers)]
