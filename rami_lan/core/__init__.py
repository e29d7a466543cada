"""The rules core of rami-lan: pure, deterministic, no I/O.

Public API (stable; see docs/core.md):

- `VARIANTS`: the five variants by id (``"rami" "classique" "multi" "500" "40"``).
- `parse_cards` / `str(card)`: the short text form (``10h Jh Qh *``).
- `check_meld(variant, cards, kind=None) -> MeldCheck`.
- `new_match`, `start_round`, `apply`, `is_legal`, `legal_actions`, `view_for`.
- `best_partition` and friends (the exact meld solver).
- `match_to_plain` / `match_from_plain`: snapshots; `action_to_plain` / `action_from_plain`.
- Every event type (`RoundStarted` ... `MatchEnded`), `Phase` / `RoundEnd` / `MatchEnd`.
- `scenario`: a mid-round match from a short description (for tests).
"""

from rami_lan.core.actions import (
    Action,
    Discard,
    DrawDiscard,
    DrawStock,
    Knock,
    LayDown,
    LayOff,
    MeldSpec,
    RecoverJoker,
    Timeout,
)
from rami_lan.core.cards import Card, card_from_id, card_id, full_deck, parse_card, parse_cards
from rami_lan.core.codec import (
    action_from_plain,
    action_to_plain,
    event_from_plain,
    event_to_plain,
    match_from_plain,
    match_to_plain,
    view_from_plain,
    view_to_plain,
)
from rami_lan.core.errors import IllegalAction, MalformedAction, RulesError
from rami_lan.core.events import (
    CardsDealt,
    Discarded,
    DiscardTaken,
    Event,
    JokerRecovered,
    Knocked,
    LaidOff,
    MatchEnded,
    Melded,
    PlayersEliminated,
    RoundEnded,
    RoundStarted,
    RoundVoided,
    StockDrawn,
    StockRefilled,
    TimedOut,
    TurnStarted,
)
from rami_lan.core.match import (
    MatchOptions,
    MatchState,
    RoundSummary,
    apply,
    is_legal,
    legal_actions,
    new_match,
    start_round,
    void_round,
    withdraw,
)
from rami_lan.core.melds import Meld, MeldCheck, check_meld, hand_points
from rami_lan.core.phases import MatchEnd, Phase, RoundEnd
from rami_lan.core.questions import (
    OpeningPlan,
    best_lay_down,
    can_open,
    joker_recoveries,
    lay_off_options,
)
from rami_lan.core.round import RoundState
from rami_lan.core.scenario import scenario
from rami_lan.core.solver import (
    Partition,
    best_partition,
    best_partition_with,
    enumerate_melds,
    min_hand_partition,
)
from rami_lan.core.variants import VARIANTS, Variant, get_variant
from rami_lan.core.views import PlayerInfo, SeatView, view_for

__all__ = [
    "VARIANTS",
    "Action",
    "Card",
    "CardsDealt",
    "Discard",
    "DiscardTaken",
    "Discarded",
    "DrawDiscard",
    "DrawStock",
    "Event",
    "IllegalAction",
    "JokerRecovered",
    "Knock",
    "Knocked",
    "LaidOff",
    "LayDown",
    "LayOff",
    "MalformedAction",
    "MatchEnd",
    "MatchEnded",
    "MatchOptions",
    "MatchState",
    "Meld",
    "MeldCheck",
    "MeldSpec",
    "Melded",
    "OpeningPlan",
    "Partition",
    "Phase",
    "PlayerInfo",
    "PlayersEliminated",
    "RecoverJoker",
    "RoundEnd",
    "RoundEnded",
    "RoundVoided",
    "RoundStarted",
    "RoundState",
    "RoundSummary",
    "RulesError",
    "SeatView",
    "StockDrawn",
    "StockRefilled",
    "TimedOut",
    "Timeout",
    "TurnStarted",
    "Variant",
    "action_from_plain",
    "action_to_plain",
    "apply",
    "best_lay_down",
    "best_partition",
    "best_partition_with",
    "can_open",
    "card_from_id",
    "card_id",
    "check_meld",
    "enumerate_melds",
    "event_from_plain",
    "event_to_plain",
    "full_deck",
    "get_variant",
    "hand_points",
    "is_legal",
    "joker_recoveries",
    "lay_off_options",
    "legal_actions",
    "match_from_plain",
    "match_to_plain",
    "min_hand_partition",
    "new_match",
    "parse_card",
    "parse_cards",
    "scenario",
    "start_round",
    "view_for",
    "view_from_plain",
    "view_to_plain",
    "void_round",
    "withdraw",
]
