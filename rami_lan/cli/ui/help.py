"""The help overlay's text: the keys, and the rules of the variant being played."""

from __future__ import annotations

from rami_lan.core.variants import get_variant
from rami_lan.i18n import _


def variant_rules(variant: str) -> list[str]:
    """A short summary of ``variant``'s rules, one line each."""
    v = get_variant(variant)
    common = [
        _("Melds: a set is 3 or 4 cards of one rank in different suits; a run is 3 or more "
          "cards of one suit in order. K A 2 never counts."),
        _("A turn: draw (stock or discard), lay melds or add to the table, then discard."),
    ]
    per = {
        "rami": [
            _("2 decks + 6 jokers, 13 cards each. Open with at least 30 points."),
            _("After opening: add to any meld, take a joker back with the card it stands for."),
            _("Never more jokers than natural cards in a meld (A JK JK is refused)."),
            _("In hand at the end: A 15, joker 30, figures 10. Rami sec doubles the penalties."),
            _("Over the point limit you are eliminated; the last player left wins."),
            _("Frapper (if on): after a discard, take it plus two cards and play at once."),
        ],
        "classique": [
            _("2 decks + 6 jokers, 13 cards each. Open with any meld of your own."),
            _("A joker may not be discarded, except as the last card. A joker taken back "
              "must be played in the same turn."),
            _("You go out by discarding your last card. In hand: A 11, joker 30."),
            _("Rami sec: +25 to every other player. Over the limit: eliminated."),
        ],
        "multi": [
            _("1 deck, no jokers; 10 cards each with 2 players, 7 with 3 or 4."),
            _("No opening: lay off on any meld at any time. Ace low only."),
            _("A card taken from the discard pile may not be discarded the same turn."),
            _("The winner scores the others' hands (rami sec doubles); first to 100 wins."),
        ],
        "500": [
            _("1 deck + 2 jokers, 7 cards each. The whole discard pile is visible."),
            _("Take any card of the pile with every card above it (+/- picks the depth); "
              "the deepest card taken must be laid this turn."),
            _("Every card you lay scores for you; the cards left in hand count against you "
              "(A 15, joker 15)."),
            _("First to the target (500) wins."),
        ],
        "40": [
            _("2 decks + 2 jokers, 13 cards each. Open with at least 40 points."),
            _("Before opening, take the discard only to open with it this turn."),
            _("Ace high only (Q K A, 11 points). In hand: A 11, joker 15."),
            _("Sets free their joker only when both missing suits are added."),
            _("Go out by discarding. Going rami: +25 to every other player."),
        ],
    }
    return [v.name, *per.get(v.id, []), *common]


KeyLine = tuple[str, str]
"""(the keys, as the player types them; what they do)."""


def table_keys(can_invite: bool = True) -> list[KeyLine]:
    """Every key of the table screen (`TableScreen._bindings`; checked by a test)."""
    keys: list[KeyLine] = [
        ("← → h l", _("move in your hand")),
        ("1-9 0", _("jump to a card")),
        (_("Space"), _("select / unselect the card")),
        (_("Shift+← →") + " H L < >", _("move the card in your hand")),
        ("s r", _("sort by suit / by rank")),
        ("d p", _("draw from the stock")),
        ("t", _("take the discard")),
        ("+ = -", _("how deep to take in the discard pile (500)")),
        ("m", _("lay down the selection (nothing selected: prepare the hinted melds)")),
        ("g", _("put the selection aside as one meld, to lay several at once")),
        ("↑ ↓ k j", _("choose a meld on the table")),
        ("o", _("lay the selected card off on it")),
        ("c", _("take its joker back")),
        ("e", _("the end of the chosen run where a joker goes (◀ low, ▶ high)")),
        ("x", _("discard")),
        ("f", _("Frapper, just after another player's discard")),
        (_("Enter"), _("the obvious action")),
        (_("Esc"), _("clear the selection")),
        ("a", _("the history of the round")),
        ("n", _("the score sheet of every round")),
        ("i", _("Info joueur: your card and the other players' (← → next player)")),
        (":", _("chat: type a line, Enter sends, Esc cancels")),
    ]
    if can_invite:
        keys.append(("v", _("invite a player seen on the network (the table's owner)")))
    keys += [
        ("? F1", _("this help")),
        ("q q", _("leave the table (q once asks first)")),
        (_("Ctrl+C"), _("leave at once")),
    ]
    return keys


def result_keys(can_invite: bool = True) -> list[KeyLine]:
    """Every key of the round result screen."""
    keys: list[KeyLine] = [
        (_("Enter") + " c", _("Continue: the next round")),
        ("q t", _("Finish: leave the table")),
        ("a", _("the history of the round")),
        ("n", _("the score sheet of every round")),
        ("i", _("Info joueur")),
        (":", _("chat")),
    ]
    if can_invite:
        keys.append(("v", _("invite a player seen on the network (the table's owner)")))
    keys += [("? F1", _("this help")), (_("Ctrl+C"), _("leave at once"))]
    return keys


def panel_keys() -> list[KeyLine]:
    """The keys of this help (and of the history and score sheet panels)."""
    return [("↑ ↓ k j " + _("PgUp PgDn Home End") + " b " + _("Space") + " g G", _("scroll")),
            (_("Esc") + " q ?", _("close"))]


def key_line(keys: str, what: str) -> str:
    return _("{keys}: {what}").format(keys=keys, what=what)


def key_help(result: bool = False, can_invite: bool = True) -> list[str]:
    """The keys of the screen the help is opened on, one line each, then notes."""
    lines = [key_line(k, w) for k, w in (result_keys(can_invite) if result else
                                         table_keys(can_invite))]
    lines += [_("In this help:") + " " + " · ".join(key_line(k, w) for k, w in panel_keys()), ""]
    lines += [
        _("Mouse: click cards, the stock, the discard, a meld or a button."),
        _("Drag a card: to another place in your hand (any time), onto a blue arrow of a "
          "table meld (lay it off there) or onto the discard pile (discard it)."),
        _("A blue line under cards of your hand: they make a meld. C: cards in two or "
          "four colours (remembered)."),
        _("(8♣) on the table: a joker standing for 8♣."),
        _("Opening: until you open, \"15/30\" shows what your melds make against the "
          "threshold; m prepares only an opening the rules accept."),
    ]
    return lines


def help_lines(variant: str, model: object = None) -> list[str]:
    """The variant's rules, then the keys of the screen ``model`` shows (the table, or
    the round result; ``v`` only for the table's owner)."""
    view = getattr(model, "view", None)
    result = view is not None and view.phase in ("between", "over") and view.last_result is not None
    can_invite = bool(getattr(model, "can_invite", True)) if model is not None else True
    return [*variant_rules(variant), "", *key_help(result, can_invite)]
