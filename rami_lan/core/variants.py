"""The five Rami variants as data.

Every rule difference between variants is a field of `Variant`; the engine reads the
fields and never tests a variant's id. The presets follow ``shared/rules/VARIANTS.md``;
decisions the sources leave open are marked **[chosen]** in the field comments and
listed in ``docs/rules.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

JokerLimit = Literal["not_more_than_naturals", "at_least_one_natural"]
JokerRecovery = Literal["none", "replace", "complete_set"]
DiscardDraw = Literal["top", "any_depth"]
StockRule = Literal["reshuffle", "turn_over", "end_round"]
Scoring = Literal["penalty", "winner_collects", "laid_minus_hand"]
MatchRule = Literal["elimination", "first_to", "target"]

MAX_TURNS_PER_ROUND = 600
"""Move cap: a round that reaches this many turns ends as *blocked* (no winner).

Rounds between sensible players end long before; the cap only guarantees that a
round between stubborn (or random) players terminates. Documented in docs/rules.md.
"""


@dataclass(frozen=True)
class Variant:
    """Every rule parameter of one variant of Rami."""

    id: str
    name: str
    source: str
    # Deck and deal
    n_decks: int
    n_jokers: int
    hand_size: tuple[tuple[int, int], ...]  # (players, cards each)
    # Drawing
    discard_draw: DiscardDraw  # "top" or "any_depth" (500: a card and all above it)
    discard_pile_visible: bool  # the whole pile is public (500) vs its top card only
    unopened_take_must_open: bool  # 40: take the discard before opening => open with it
    # Opening
    requires_opening: bool  # False: lay off on any meld at any time (multi, 500)
    open_min_points: int  # meld points of the opening turn's new melds (0 = any meld)
    # Aces
    ace_low: bool
    ace_high: bool
    ace_low_points: int  # meld points of an ace in A 2 3
    ace_high_points: int  # meld points of an ace in a set or in Q K A
    # Jokers
    joker_limit: JokerLimit
    joker_recovery: JokerRecovery  # how a table joker can be taken back
    recovered_joker_must_be_played: bool  # classique: play it in the same turn
    set_joker_recovery_needs_two: bool  # 40: sets free a joker only with both missing suits
    joker_discard_allowed: bool  # classique: False (unless it is the winning last card)
    # Discards and going out
    no_discard_of_taken: bool  # multi, 500: the card taken from the pile stays this turn
    must_discard_to_go_out: bool  # classique, 40, 500: the last card must be discarded
    stock_rule: StockRule
    # Scoring
    hand_ace_points: int
    hand_joker_points: int
    scoring: Scoring
    rami_sec_multiplier: int  # rami, multi: x2
    rami_sec_bonus: int  # classique, 40: +25 to each other player
    # Match
    match_rule: MatchRule
    point_limits: tuple[int, ...]  # the choices offered at the table
    default_limit: int
    # Rules settled in issue 10 (docs/rules.md quotes the source line of each):
    # 40: "le Joker peut être libéré si un adversaire le remplace": the owner of a set may
    # not free its joker (runs: "un joueur qui détient la carte", anyone).
    set_joker_freed_by_opponent_only: bool = False
    # classique, when joker discards are refused: a joker may still be discarded when the
    # hand holds nothing but jokers and none of them can be laid this turn (else the turn
    # could never end) [chosen]; while one can be laid off, it must be.
    joker_discard_when_stuck: bool = True
    # A card the turn obliges to use (500's deep card, classique's recovered joker, 40's
    # taken discard) is used only if it is still on the table when the turn ends: taken
    # back into the hand by a joker recovery, it is owed again (500: "doit être utilisée
    # ... au même tour").
    obligation_ends_on_table: bool = True
    quick_rounds: int = 0  # 500: a "quick" match is 3 rounds
    knock_supported: bool = False  # "frapper" may be enabled at the table
    notes: tuple[str, ...] = field(default=())

    def cards_per_player(self, n_players: int) -> int:
        for players, size in self.hand_size:
            if players == n_players:
                return size
        raise ValueError(f"{self.id} is played by 2 to 4 players, not {n_players}")

    @property
    def deck_size(self) -> int:
        return 52 * self.n_decks + self.n_jokers


def _hs(n: int) -> tuple[tuple[int, int], ...]:
    return ((2, n), (3, n), (4, n))


RAMI = Variant(
    id="rami",
    name="Rami",
    source="000_f54c573fb434c357.txt",
    n_decks=2,
    n_jokers=6,
    hand_size=_hs(13),
    discard_draw="top",
    discard_pile_visible=False,
    unopened_take_must_open=False,
    requires_opening=True,
    open_min_points=30,
    ace_low=True,
    ace_high=True,
    ace_low_points=1,
    ace_high_points=10,  # 000 says 10 [chosen: follow the source]
    joker_limit="not_more_than_naturals",  # [chosen] one rule for 000 and 001
    joker_recovery="replace",
    recovered_joker_must_be_played=False,
    set_joker_recovery_needs_two=False,
    joker_discard_allowed=True,
    no_discard_of_taken=False,
    must_discard_to_go_out=False,  # [chosen] empty hand wins however the last card went
    stock_rule="reshuffle",  # [chosen] source silent
    hand_ace_points=15,
    hand_joker_points=30,
    scoring="penalty",
    rami_sec_multiplier=2,
    rami_sec_bonus=0,
    match_rule="elimination",
    point_limits=(1, 50, 100),
    default_limit=100,
    knock_supported=True,
)

CLASSIQUE = Variant(
    id="classique",
    name="Rami classique",
    source="001_3c631da9307726b4.txt",
    n_decks=2,
    n_jokers=6,
    hand_size=_hs(13),
    discard_draw="top",
    discard_pile_visible=False,
    unopened_take_must_open=False,
    requires_opening=True,
    open_min_points=0,
    ace_low=True,
    ace_high=True,
    ace_low_points=1,
    ace_high_points=11,
    joker_limit="not_more_than_naturals",
    joker_recovery="replace",
    recovered_joker_must_be_played=True,
    set_joker_recovery_needs_two=False,
    joker_discard_allowed=False,
    no_discard_of_taken=False,
    must_discard_to_go_out=True,
    stock_rule="reshuffle",
    hand_ace_points=11,
    hand_joker_points=30,  # [chosen] the source's value table is missing
    scoring="penalty",
    rami_sec_multiplier=1,
    rami_sec_bonus=25,
    match_rule="elimination",  # [chosen] same limits as rami
    point_limits=(1, 50, 100),
    default_limit=100,
    knock_supported=True,  # [chosen] "as rami": the table may enable frapper
)

MULTI = Variant(
    id="multi",
    name="Rami multi",
    source="002_5736626b8208523a.txt",
    n_decks=1,
    n_jokers=0,
    hand_size=((2, 10), (3, 7), (4, 7)),
    discard_draw="top",
    discard_pile_visible=False,
    unopened_take_must_open=False,
    requires_opening=False,
    open_min_points=0,
    ace_low=True,
    ace_high=False,
    ace_low_points=1,
    ace_high_points=1,
    joker_limit="not_more_than_naturals",
    joker_recovery="none",
    recovered_joker_must_be_played=False,
    set_joker_recovery_needs_two=False,
    joker_discard_allowed=True,
    no_discard_of_taken=True,
    must_discard_to_go_out=False,
    stock_rule="turn_over",
    hand_ace_points=1,
    hand_joker_points=0,
    scoring="winner_collects",
    rami_sec_multiplier=2,
    rami_sec_bonus=0,
    match_rule="first_to",
    point_limits=(100,),
    default_limit=100,
)

CINQ_CENTS = Variant(
    id="500",
    name="Rami 500",
    source="003_10070de841b13b65.txt",
    n_decks=1,
    n_jokers=2,
    hand_size=_hs(7),
    discard_draw="any_depth",
    discard_pile_visible=True,
    unopened_take_must_open=False,
    requires_opening=False,
    open_min_points=0,
    ace_low=True,
    ace_high=True,
    ace_low_points=1,
    ace_high_points=11,
    joker_limit="not_more_than_naturals",  # [chosen]
    joker_recovery="replace",
    recovered_joker_must_be_played=False,
    set_joker_recovery_needs_two=False,
    joker_discard_allowed=True,
    no_discard_of_taken=True,
    must_discard_to_go_out=True,
    stock_rule="end_round",
    hand_ace_points=15,
    hand_joker_points=15,
    scoring="laid_minus_hand",
    rami_sec_multiplier=1,
    rami_sec_bonus=0,
    match_rule="target",
    point_limits=(500,),
    default_limit=500,
    quick_rounds=3,
)

QUARANTE = Variant(
    id="40",
    name="Rami 40",
    source="004_95887d3715dccb08.txt",
    n_decks=2,
    n_jokers=2,
    hand_size=_hs(13),
    discard_draw="top",
    discard_pile_visible=False,
    unopened_take_must_open=True,
    requires_opening=True,
    open_min_points=40,
    ace_low=False,
    ace_high=True,
    ace_low_points=11,
    ace_high_points=11,
    joker_limit="at_least_one_natural",
    joker_recovery="replace",
    recovered_joker_must_be_played=False,
    set_joker_recovery_needs_two=True,
    joker_discard_allowed=True,
    no_discard_of_taken=False,
    must_discard_to_go_out=True,
    stock_rule="reshuffle",
    hand_ace_points=11,
    hand_joker_points=15,
    scoring="penalty",
    rami_sec_multiplier=1,
    rami_sec_bonus=25,
    match_rule="elimination",
    point_limits=(1, 50, 100, 101),
    default_limit=101,  # [chosen] the traditional limit of this family
    set_joker_freed_by_opponent_only=True,
)

VARIANTS: Mapping[str, Variant] = MappingProxyType(
    {v.id: v for v in (RAMI, CLASSIQUE, MULTI, CINQ_CENTS, QUARANTE)}
)
"""The five presets by id: ``"rami" "classique" "multi" "500" "40"``."""


def get_variant(variant: str | Variant) -> Variant:
    """Accept an id or a Variant; raise ValueError naming the known ids."""
    if isinstance(variant, Variant):
        return variant
    try:
        return VARIANTS[variant]
    except KeyError:
        raise ValueError(f"unknown variant {variant!r}; known: {', '.join(VARIANTS)}") from None
