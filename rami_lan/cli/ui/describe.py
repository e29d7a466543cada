"""Events as one line of text for the log ("what just happened"), in the UI language."""

from __future__ import annotations

from collections.abc import Callable

from rami_lan.cli.ui.cards import cards_plain, face_text
from rami_lan.core import events as E
from rami_lan.i18n import _, ngettext

Names = Callable[[int], str]


def reason_text(reason: str) -> str:
    return {
        "out": _("a player went out"),
        "stock": _("the stock is empty"),
        "blocked": _("nobody can draw any more"),
        "cap": _("the round reached its move limit"),
    }.get(reason, reason)


def void_text(ev: E.RoundVoided, me: int, name: Names) -> str:
    """A void round's line, by its reason: its culprit left (``player_gone``) or, still
    connected, missed a deadline (``no_answer``)."""
    late = ev.reason == "no_answer"
    if ev.seat is not None and ev.seat == me:
        if late:
            return _("Round {n} is void: you did not answer in time and nobody else can play "
                     "your hidden cards. No score; the next round is dealt.").format(n=ev.round_no)
        return _("Round {n} is void: you left and nobody else can play your hidden cards. "
                 "No score; the next round is dealt.").format(n=ev.round_no)
    who = name(ev.seat) if ev.seat is not None else "?"
    if late:
        return _("Round {n} is void: {who} did not answer in time and nobody else can play "
                 "their hidden cards. No score; the next round is dealt.").format(n=ev.round_no, who=who)
    return _("Round {n} is void: {who} is gone and nobody else can play their hidden "
             "cards. No score; the next round is dealt.").format(n=ev.round_no, who=who)


def describe(ev: E.Event, me: int, name: Names) -> str | None:
    """One log line for ``ev`` as seen by seat ``me``; None for events not worth a line."""
    mine = getattr(ev, "seat", None) == me
    who = name(getattr(ev, "seat", -1)) if hasattr(ev, "seat") else ""
    if isinstance(ev, E.RoundStarted):
        if ev.first_player == me:
            return _("Round {n}: {dealer} deals, you play first.").format(
                n=ev.round_no, dealer=name(ev.dealer))
        if ev.dealer == me:
            return _("Round {n}: you deal, {first} plays first.").format(
                n=ev.round_no, first=name(ev.first_player))
        return _("Round {n}: {dealer} deals, {first} plays first.").format(
            n=ev.round_no, dealer=name(ev.dealer), first=name(ev.first_player)
        )
    if isinstance(ev, E.StockDrawn):
        if ev.reason != "draw":
            return None
        if mine and ev.card is not None:
            return _("You draw {card}.").format(card=face_text(ev.card))
        return _("{who} draws from the stock.").format(who=who)
    if isinstance(ev, E.DiscardTaken):
        if mine:
            return _("You take {cards} from the discard pile.").format(cards=cards_plain(ev.cards))
        return _("{who} takes {cards} from the discard pile.").format(
            who=who, cards=cards_plain(ev.cards)
        )
    if isinstance(ev, E.Melded):
        melds = "  ".join(cards_plain(m.cards) for m in ev.melds)
        if mine:
            text = _("You lay {melds}.").format(melds=melds)
        else:
            text = _("{who} lays {melds}.").format(who=who, melds=melds)
        return text + (" " + _("(opened)") if ev.opened else "")
    if isinstance(ev, E.LaidOff):
        if mine:
            return _("You add {card} to meld {n}.").format(card=face_text(ev.card), n=ev.target + 1)
        return _("{who} adds {card} to meld {n}.").format(
            who=who, card=face_text(ev.card), n=ev.target + 1
        )
    if isinstance(ev, E.JokerRecovered):
        if mine:
            return _("You take the joker back from meld {n} with {cards}.").format(
                n=ev.target + 1, cards=cards_plain(ev.cards))
        return _("{who} takes the joker back from meld {n} with {cards}.").format(
            who=who, n=ev.target + 1, cards=cards_plain(ev.cards)
        )
    if isinstance(ev, E.Discarded):
        if mine:
            return _("You discard {card}.").format(card=face_text(ev.card))
        return _("{who} discards {card}.").format(who=who, card=face_text(ev.card))
    if isinstance(ev, E.Knocked):
        if mine:
            return _("You knock and take {card} plus two cards!").format(card=face_text(ev.card))
        return _("{who} knocks and takes {card} plus two cards!").format(
            who=who, card=face_text(ev.card)
        )
    if isinstance(ev, E.StockRefilled):
        return _("The stock is rebuilt from the discard pile.")
    if isinstance(ev, E.TimedOut):
        if mine:
            if ev.away:
                return _("You ran out of time again and are marked away.")
            return _("You ran out of time: the table played for you.")
        if ev.away:
            return _("{who} ran out of time again and is marked away.").format(who=who)
        return _("{who} ran out of time: the table played for them.").format(who=who)
    if isinstance(ev, E.TurnStarted):
        return _("Your turn!") if mine else None
    if isinstance(ev, E.RoundEnded):
        if ev.winner is None:
            return _("Round over: {reason}.").format(reason=reason_text(ev.reason))
        if ev.winner == me:
            return _("You go out in one go: rami!") if ev.rami_sec else _("You go out!")
        if ev.rami_sec:
            return _("{who} goes out in one go: rami!").format(who=name(ev.winner))
        return _("{who} goes out!").format(who=name(ev.winner))
    if isinstance(ev, E.RoundVoided):
        return void_text(ev, me, name)
    if isinstance(ev, E.PlayersEliminated):
        if tuple(ev.seats) == (me,):
            return _("You are eliminated.")
        names = [_("you") if s == me else name(s) for s in ev.seats]
        return ngettext("Eliminated: {names}.", "Eliminated: {names}.", len(names)).format(
            names=", ".join(names))
    if isinstance(ev, E.MatchEnded):
        if ev.winner is None:
            return _("The match is over.")
        if ev.winner == me:
            return _("You win the match!")
        return _("{who} wins the match!").format(who=name(ev.winner))
    return None
