"""The players' "Info joueur" cards and the chat at the host's table machine: a seat's
card checked, stamped with its nick and relayed (bots get the host's bare bot card),
every card to a (re)joining seat, and chat lines through the chat policy.

Functions taking the `rami_lan.table.machine.TableMachine` (as `seating`,
`fair_rounds`, `autoplay`, `resume`); its `card` and `chat` inputs call them.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from rami_lan.table import effects as F
from rami_lan.table.chat import ChatRefusal
from rami_lan.table.seats import card_nick
from rami_lan.wire import messages as W

if TYPE_CHECKING:
    from rami_lan.player_card import PlayerCard

__all__ = ["broadcast_card", "card", "card_of", "chat", "send_cards"]

TableMachine = Any
"""A `rami_lan.table.machine.TableMachine` (not imported: the machine imports this)."""


def card(t: TableMachine, conn: int, card: PlayerCard | None, now: float) -> list[F.Effect]:
    """A player's "Info joueur" card (decoded at the network edge; None: it did not
    decode, ``bad_card``): stamped with the seat's nick, relayed."""
    from rami_lan.player_card import Connection, PlayerCard

    seat = t.conns.get(conn)
    if seat is None:
        return t._flush(now)
    st = t.seats[seat]
    if conn in t._bot_conns or st.kind == "bot":
        return t._flush(now)  # bots get the host's bare bot card
    if card is None:
        t._error(conn, "bad_card", "the player card does not decode")
        return t._flush(now)
    card = PlayerCard(card_nick(st.nick, card.nickname), card.player_id,
                      Connection.CONNECTED, card.stats, card.by_variant)
    plain_card = card.to_plain()
    if t.cards.get(seat) != plain_card:  # the same card again: nothing to tell
        t.cards[seat] = plain_card
        broadcast_card(t, seat)
    return t._flush(now)


def card_of(t: TableMachine, seat: int) -> dict[str, Any] | None:
    """The card shown for ``seat``: the host's bare bot card for a bot, else the last one
    its player sent (None: none yet)."""
    from rami_lan.player_card import Connection, PlayerCard

    st = t.seats[seat]
    if st.kind == "bot" or st.remote_bot:
        return PlayerCard(card_nick(st.nick, f"bot {seat + 1}"), None,
                          Connection.BOT).to_plain()
    return t.cards.get(seat)


def broadcast_card(t: TableMachine, seat: int, skip: int | None = None) -> None:
    """``seat``'s card to every seated connection (but ``skip``)."""
    card = card_of(t, seat)
    if card is None:
        return
    msg = W.CardMsg(seat=seat, card=card)
    for conn, s in t.conns.items():
        if s is not None and conn != skip:
            t._send(conn, msg)


def send_cards(t: TableMachine, conn: int) -> None:
    """Every seat's card to ``conn`` (a seat (re)joined)."""
    for seat in t.seats:
        card = card_of(t, seat)
        if card is not None:
            t._send(conn, W.CardMsg(seat=seat, card=card))


def chat(t: TableMachine, conn: int, text: str, now: float) -> list[F.Effect]:
    """Relay a chat line through the chat policy, or tell its sender why not."""
    t._now = now
    seat = t.conns.get(conn)
    if seat is None:
        return t._flush(now)
    verdict = t.chat_policy.check(
        seat, text, bot=conn in t._bot_conns or t.seats[seat].kind == "bot")
    if not verdict.ok:
        whys: dict[ChatRefusal | None, str] = {
            ChatRefusal.EMPTY: "empty message",
            ChatRefusal.RATE_LIMITED:
                f"too many messages, wait {max(1, math.ceil(verdict.retry_after))} s",
            ChatRefusal.BOT: "bots do not chat",
        }
        why = whys.get(verdict.refusal, "refused")
        t._error(conn, "chat_refused", f"{verdict.refusal}: {why}")
        return t._flush(now)
    t._to_seated(W.ChatMsg(seat=seat, text=verdict.text))
    return t._flush(now)
