"""Cards as text: plain suit symbols, red/black or four colours, chips like ``[10♥]``."""

from __future__ import annotations

from rami_lan.core.cards import SUIT_SYMBOLS, Card
from rami_lan.i18n import JOKER_FACE, card_face, cards_in_text

JOKER_TEXT = JOKER_FACE

TWO_COLOURS = {"c": "class:card.black", "s": "class:card.black",
               "h": "class:card.red", "d": "class:card.red"}
FOUR_COLOURS = {"c": "class:card.clubs", "s": "class:card.black",
                "h": "class:card.red", "d": "class:card.diamonds"}


def face_text(card: Card) -> str:
    """``10♥``, ``A♠``, ``Q♠`` (``D♠`` in French), ``JK`` for a joker."""
    return card_face(card.rank, card.suit)


def stands_text(text: str) -> str:
    """A meld position from `Meld.stands_for_text` (``10c``, ``Ah``, ``5?``) with a symbol."""
    shown = cards_in_text(text)
    if shown != text:
        return shown
    rank, suit = text[:-1], text[-1]
    return rank + SUIT_SYMBOLS.get(suit, "?")


def card_style(card: Card, four_colour: bool = False) -> str:
    if card.is_joker:
        return "class:card.joker"
    table = FOUR_COLOURS if four_colour else TWO_COLOURS
    return table[card.suit or "c"]


def cards_plain(cards: tuple[Card, ...] | list[Card]) -> str:
    return " ".join(face_text(c) for c in cards)


def chip_width(card: Card) -> int:
    """Width of ``[10♥]`` on screen (the brackets included)."""
    return len(face_text(card)) + 2
