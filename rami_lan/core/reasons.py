"""Why the rules refuse: a coded reason with its data, and the one table of its English.

A refusal of the rules core (`rami_lan.core.errors.IllegalAction`, a meld check's
`rami_lan.core.melds.MeldCheck`, a lay-off's `InvalidMeld`) carries a `Reason`: a short
``code`` and its ``data`` (text, numbers, or a nested `Reason`: a meld refused *because*
...). `TEMPLATES` is the one table code -> English template; `Reason.text` fills it in,
which is the English the core has always spoken (logs, ``str(err)``). The layers above
never read that English back: `rami_lan.cli.refusals` words a reason from its code and
data (the templates are the msgids of the gettext catalogue ``rules``), and the wire
carries the code and data beside the text (`to_plain` / `from_plain`).

The data's keys say how a value reads (the same key means the same thing in every
template): ``card`` one card in the core's text (``7h``, ``*``), ``cards`` cards joined
by ", ", ``meld`` a meld's cards joined by spaces, ``suit`` a suit letter, ``end``
``low`` / ``high``, ``phase`` a phase, ``kind`` an action kind (a meld kind, quoted, in
``meld_kind_unknown``); a nested `Reason` under any key (``reason``, ``need``) reads as a
reason; any other value is a number or a word kept as is.

The table's own refusals (`rami_lan.table`) are coded in the same table, below the core's.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Union

Value = Union[str, int, "Reason"]
"""One datum of a reason: a text, a number or a nested reason."""

MAX_NESTING = 4
"""How deep reasons nest (a lay-down refused because a meld is invalid because ...)."""

TEXT = "text"
"""The code of a reason known only as text (an old peer's, a plugin's): ``{text}``."""

TEMPLATES: dict[str, str] = {
    TEXT: "{text}",
    # --- turn and phase (core.round) -----------------------------------------------
    "not_playing": "is not playing in this round",
    "round_over": "the round is over",
    "wrong_phase": "{kind} is not allowed in the {phase} phase",
    "not_your_turn": "it is seat {seat}'s turn",
    "not_holding": "does not hold {card}",
    "unknown_action": "unknown action {action}",
    # --- drawing ------------------------------------------------------------------
    "stock_empty": "the stock is empty and can not be refilled",
    "discard_empty": "the discard pile is empty",
    "no_depth": "the discard pile has no card at depth {depth}",
    "top_only": "only the top card of the discard pile may be taken",
    "take_to_open": ("may take {card} before opening only to open with it this turn ({need} "
                     "points); best opening with it is {best}"),
    "take_unusable": "{card} can not be melded or laid off this turn, so it may not be taken",
    # --- laying down, laying off, jokers -------------------------------------------
    "no_meld": "lay down at least one meld",
    "card_twice": "the same card is used twice",
    "invalid_meld": "{meld} is not a valid meld: {reason}",
    "open_points": "may not open with {points} points (needs {need})",
    "open_must_use": "the opening must use {card}, taken from the discard pile",
    "no_meld_number": "there is no meld number {n} on the table",
    "lay_off_unopened": "may not lay off before opening ({need})",
    "lay_off_failed": "can not lay {card} on {meld}: {reason}",
    "no_recovery": "this variant has no joker recovery",
    "recover_unopened": "may not take a joker back before opening ({need})",
    "recover_failed": "can not take a joker from {meld}: {reason}",
    "needs_points": "needs {points} points",
    "needs_own_meld": "needs a meld of their own first",
    # --- the end of a turn ----------------------------------------------------------
    "use_before_discard": "{cards} must be melded or laid off this turn before discarding",
    "discard_taken": "may not discard {card}, the card just taken from the discard pile",
    "discard_joker": "may not discard a joker (only as the last card, to go out)",
    "discard_joker_fits": ("may not discard a joker while one can be laid off (only as the "
                           "last card, to go out)"),
    "keep_discard": "must keep a card to discard to go out",
    "unusable": "{card} must be used this turn and could no longer be",
    "all_unusable": "{cards} must all be used this turn and could not all be",
    "no_discard_left": "that would leave no card that may be discarded",
    # --- knocking -----------------------------------------------------------------
    "knock_disabled": "knocking (frapper) is not enabled at this table",
    "knock_closed": "may not knock now (the window is closed or not theirs)",
    # --- the match (core.match) ----------------------------------------------------
    "match_over": "the match is over",
    "round_in_progress": "a round is in progress",
    "no_round": "no round is in progress",
    "leave_between_rounds": "a player may leave only between rounds",
    # --- melds (core.melds) --------------------------------------------------------
    "meld_card_twice": "the same physical card is listed twice",
    "meld_empty": "a meld needs cards",
    "meld_kind_unknown": "unknown meld kind {kind} (set or run)",
    "meld_ambiguous": "ambiguous: say whether this is a set or a run",
    "meld_no_natural": "a meld needs at least one natural card",
    "meld_too_many_jokers": "a meld may never hold more jokers than natural cards",
    "meld_no_jokers": "this variant has no jokers",
    "set_size": "a set has 3 or 4 cards",
    "set_rank": "a set's cards must all have the same rank",
    "set_suit_twice": "a set may not hold the same suit twice ({card})",
    "run_short": "a run has at least 3 cards",
    "run_suit": "a run's cards must all have the same suit",
    "run_long": "a run has at most 13 cards (runs never wrap)",
    "run_no_ace": "an ace can not be used in a run in this variant",
    "run_ace_high": "the ace is high only in this variant (Q K A, never A 2 3)",
    "run_ace_low": "the ace is low only in this variant (A 2 3, never Q K A)",
    "run_not_consecutive": "the cards are not consecutive ranks (runs never wrap: K A 2 is invalid)",
    "set_full": "this set is complete (4 cards)",
    "set_other_rank": "{card} does not have the set's rank",
    "set_has_suit": "the set already holds a card of {suit} ({card})",
    "run_end_closed": "the run can not be extended at its {end} end",
    "run_other_suit": "{card} is not of the run's suit",
    "run_no_extend": "{card} does not extend the run {meld}",
    "no_joker": "there is no joker to take back in this meld",
    "own_set_joker": "only an opponent may free the joker of a set (this set is the player's own)",
    "joker_for_joker": "a joker is taken back with natural cards, not with a joker",
    "set_closed": "this set is closed: its joker can never be taken",
    "set_needs_two": "add both missing suits to free a joker from a set",
    "not_missing_suit": "{card} is not a missing suit of this set",
    "one_card_for_joker": "a joker is taken back with exactly one card",
    "not_joker_card": "{card} is not the card a joker of {meld} stands for",
    # --- the table's own refusals (rami_lan.table, rami_lan.cli.local_session) -----
    "no_round_played": "no round is being played",
    "not_your_seat": "not your seat",
    "benched": "your seat left the private deal: the host's bot plays it",
    "timer_ran_out": "your move timer ran out: the automatic move is being played",
    "not_proven": ("{card} is not proven to be in the hand: reveal deck {deck} position "
                   "{position} first (private dealing)"),
    "private_take_to_open": ("may take {card} before opening only to open with it this turn "
                             "({need} points): reveal the cards of the opening first (private "
                             "dealing); with the cards shown the best opening is {best}"),
    "private_shown": "{reason} (private dealing: with the cards of the hand shown)",
    "private_joker_discard": ("may not discard a joker (only as the last card, to go out, or "
                              "from a hand of jokers: reveal them first, private dealing)"),
    "bot_illegal": "the bot chose an illegal action (or an action of another seat)",
}
"""Every reason code -> its English template (``{key}``: a datum, see the module's doc)."""

ILLEGAL_TEMPLATE = "seat {seat} ({phase}): {reason}"
"""How `IllegalAction` says who was refused, in which phase, and why."""
ILLEGAL_NOBODY_TEMPLATE = "nobody ({phase}): {reason}"
"""The same for a refusal of no seat's (a match-level action)."""


def template_keys(template: str) -> frozenset[str]:
    """The ``{key}`` names of a template."""
    return frozenset(name for _lit, name, _spec, _conv in string.Formatter().parse(template)
                     if name)


@dataclass(frozen=True, slots=True)
class Reason:
    """Why something is refused: a code of `TEMPLATES` and the values its template needs."""

    code: str
    data: Mapping[str, Value] = field(default_factory=dict)

    @classmethod
    def of(cls, code: str, **data: Value) -> Reason:
        """``Reason.of("not_holding", card="7h")``; the code must be in `TEMPLATES`."""
        if code not in TEMPLATES:
            raise KeyError(f"unknown reason code {code!r}")
        return cls(code, data)

    @classmethod
    def of_text(cls, text: str) -> Reason:
        """A reason known only as its text."""
        return cls(TEXT, {"text": text})

    @property
    def known(self) -> bool:
        """Is the code in `TEMPLATES`, with exactly the data its template needs?"""
        tpl = TEMPLATES.get(self.code)
        return (tpl is not None and template_keys(tpl) == frozenset(self.data)
                and all(v.known for v in self.data.values() if isinstance(v, Reason)))

    def text(self) -> str:
        """The English, as the core has always said it (an unknown code: its code and data)."""
        values = {k: v.text() if isinstance(v, Reason) else str(v) for k, v in self.data.items()}
        tpl = TEMPLATES.get(self.code)
        if tpl is not None:
            try:
                return tpl.format(**values)
            except (KeyError, IndexError, ValueError):
                pass
        return self.code + "".join(f" {k}={v}" for k, v in sorted(values.items()))

    def __str__(self) -> str:
        return self.text()

    def to_plain(self) -> dict[str, Any]:
        """``{"code": ..., "data": {...}}``, a nested reason as the same kind of map."""
        return {"code": self.code,
                "data": {k: v.to_plain() if isinstance(v, Reason) else v
                         for k, v in self.data.items()}}

    @classmethod
    def from_plain(cls, plain: Mapping[str, Any], depth: int = MAX_NESTING) -> Reason:
        """The inverse of `to_plain` (the types are checked; the code may be unknown)."""
        code, data = plain.get("code"), plain.get("data", {})
        if type(code) is not str or not isinstance(data, Mapping) or depth < 1:
            raise ValueError("a reason is a map with a str code and a data map, nested <= 4")
        out: dict[str, Value] = {}
        for k, v in data.items():
            if type(k) is not str:
                raise ValueError("a reason's data keys are str")
            if isinstance(v, Mapping):
                out[k] = cls.from_plain(v, depth - 1)
            elif type(v) in (str, int):
                out[k] = v
            else:
                raise ValueError("a reason's data values are str, int or a reason")
        return cls(code, out)
