"""The rules' refusals in the player's words: a coded `Reason` worded from its code and data.

The rules core and the table refuse with a `rami_lan.core.reasons.Reason` (a code, its
data); the host sends it beside its English text, the in-process table hands it over as
is. Nothing here reads English back: `reason_words` looks the code's English template up
in the gettext catalogue ``rules`` (the msgids are `TEMPLATES`' English) and fills it
with the data rendered for players (cards as cards, a suit as its name, a nested reason
in turn); `own_refusal_text` says the player's own refused action in the second person
("You do not hold 7♥."). A refusal known only as text (an old host's, or a code this
version does not know) is shown as that text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from rami_lan.core.errors import IllegalAction
from rami_lan.core.reasons import ILLEGAL_NOBODY_TEMPLATE, ILLEGAL_TEMPLATE, TEMPLATES, TEXT, Reason, Value
from rami_lan.i18n import _, cards_text, suit_name

__all__ = ["illegal_text", "own_refusal_text", "reason_words"]

_CARD_KEYS = frozenset({"card", "cards", "meld"})
"""Data keys whose values are cards in the core's text (`rami_lan.core.reasons`)."""


def _value_words(code: str, key: str, value: Value, depth: int) -> str:
    """One datum as players read it: a nested reason worded in turn, cards as cards, a
    suit as its name, a run's end, a meld kind and a phase as words, else as is."""
    if isinstance(value, Reason):
        return reason_words(value, depth + 1)
    text = str(value)
    if key in _CARD_KEYS:
        return cards_text(text)
    if key == "suit" and text in ("c", "s", "h", "d"):
        return suit_name(text)
    if key == "end" and text in ("low", "high"):
        return _("low") if text == "low" else _("high")
    if key == "kind" and code == "meld_kind_unknown" and text.strip("'") in ("set", "run"):
        return _("set") if text.strip("'") == "set" else _("run")
    if key in ("phase", "kind"):  # a phase, an action kind: words of the catalogues
        return _(text)
    return text


def reason_words(reason: Reason, depth: int = 0) -> str:
    """A reason as a clause in the player's language (``does not hold 7♥`` / ``n'a pas
    7♥ en main``), from its code's template in catalogue ``rules`` and its data."""
    if reason.code == TEXT:
        return _(str(reason.data.get("text", "")))
    if depth > 4 or not reason.known:
        return reason.text()
    values = {k: _value_words(reason.code, k, v, depth) for k, v in reason.data.items()}
    return _(TEMPLATES[reason.code]).format(**values)


def illegal_text(exc: IllegalAction) -> str:
    """A whole `IllegalAction` (who, in which phase, why) in the player's language."""
    why = reason_words(exc.why)
    if exc.seat is None:
        return _(ILLEGAL_NOBODY_TEMPLATE).format(phase=_(exc.phase), reason=why)
    return _(ILLEGAL_TEMPLATE).format(seat=exc.seat, phase=_(exc.phase), reason=why)


# --------------------------------------------------------------------------- our own refused actions

_ACTION_WORDS: dict[str, Callable[[], str]] = {
    "draw_stock": lambda: _("Drawing from the stock"),
    "draw_discard": lambda: _("Taking from the discard pile"),
    "lay_down": lambda: _("Laying down"),
    "lay_off": lambda: _("Adding to a meld"),
    "recover_joker": lambda: _("Taking a joker back"),
    "discard": lambda: _("Discarding"),
    "knock": lambda: _("Frapper"),
    "timeout": lambda: _("The automatic move"),
}


def _opening_need(need: Value) -> str:
    """What opening needs (``needs_points`` / ``needs_own_meld``) as what the player must reach."""
    if isinstance(need, Reason) and need.code == "needs_points":
        return _("{points} points").format(points=need.data.get("points", "?"))
    if isinstance(need, Reason) and need.code == "needs_own_meld":
        return _("a meld of your own")
    return reason_words(need) if isinstance(need, Reason) else str(need)


def _phase_refusal(d: Mapping[str, Value]) -> str:
    kind, phase = str(d.get("kind", "")), str(d.get("phase", ""))
    if phase == "draw":
        return _("Draw first: from the stock or the discard pile.")
    if phase == "play" and kind in ("draw_stock", "draw_discard"):
        return _("You have already drawn this turn.")
    word = _ACTION_WORDS.get(kind)
    return _("{action} is not possible now.").format(action=word() if word else kind)


def _cards(d: Mapping[str, Value]) -> dict[str, str]:
    """The data with its cards as cards (the other values as they are)."""
    return {k: cards_text(str(v)) if k in _CARD_KEYS else str(v) for k, v in d.items()}


_OWN: dict[str, Callable[[Mapping[str, Value]], str]] = {
    "not_playing": lambda d: _("You are not playing in this round."),
    "not_holding": lambda d: _("You do not hold {card}.").format(**_cards(d)),
    "open_points": lambda d: _("Your melds make {points} points: opening needs {need}.").format(
        **_cards(d)),
    "lay_off_unopened": lambda d: _(
        "Open first ({need}): then you may add to the melds on the table.").format(
        need=_opening_need(d.get("need", ""))),
    "recover_unopened": lambda d: _("Open first ({need}): then you may take a joker back.").format(
        need=_opening_need(d.get("need", ""))),
    "discard_taken": lambda d: _(
        "You may not discard {card}: you just took it from the discard pile.").format(**_cards(d)),
    "discard_joker": lambda d: _("You may not discard a joker, except as your last card, to go out."),
    "discard_joker_fits": lambda d: _(
        "You may not discard a joker while it can go on a meld on the table (only as your last "
        "card, to go out)."),
    "keep_discard": lambda d: _("Keep a card to discard: you go out by discarding your last card."),
    "take_to_open": lambda d: _(
        "Before opening you may take {card} only to open with it this turn ({need} points); with "
        "it your best opening makes {best}.").format(**_cards(d)),
    "knock_closed": lambda d: _("Frapper is possible only just after another player's discard."),
    "not_proven": lambda d: _(
        "The table has not seen {card} revealed yet (private dealing): try again in a "
        "moment.").format(card=cards_text(str(d.get("card", "?")))),
    "wrong_phase": _phase_refusal,
    # the table's own refusals (`rami_lan.table.machine`, `rami_lan.cli.local_session`)
    "no_round_played": lambda d: _("No round is being played."),
    "not_your_seat": lambda d: _("That is not your seat."),
}
"""Reasons whose subject is the seat that acted (the player reading): code -> the
sentence in the second person. The others are worded by `reason_words` and need no
subject."""


def _sentence(text: str) -> str:
    """A capital first letter and a full stop (the core's reasons are clauses)."""
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?…" else text + "."


def own_refusal_text(refusal: Reason | str, seat_name: Callable[[int], str],
                     me: int | None = None) -> str:
    """Why the table refused our own action, in the player's words: no seat number, no
    phase, no card or suit code; addressed to the player ("You do not hold 7♥.").
    ``seat_name`` names a seat; ``me``: our seat. A refusal known only as text is shown
    as that text (a sentence)."""
    if not isinstance(refusal, Reason):
        return _sentence(_(refusal.strip()))
    if refusal.code == "not_your_turn" and refusal.known:
        seat = refusal.data["seat"]
        if seat == me:
            return _("It is your turn.")
        return _("It is {who}'s turn.").format(who=seat_name(seat) if isinstance(seat, int) else seat)
    own = _OWN.get(refusal.code)
    if own is not None and refusal.known:
        return own(refusal.data)
    return _sentence(reason_words(refusal))
