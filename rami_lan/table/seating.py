"""Seating: a connection that proved its right sits (`join`, `attach`), one that closed
leaves its seat held (`leave`), and every seat hears of the players list's changes
(`players_changed`: at once, or after `NOTICE_GRACE` for a drop; `maybe_notice`). A
(re)joining seat gets the whole state it may see (`send_state`).
"""

from __future__ import annotations

from typing import Any

from rami_lan.core.events import RoundVoided
from rami_lan.table import cards_chat, resume
from rami_lan.table import effects as F
from rami_lan.table import fair_rounds as rounds
from rami_lan.table.seats import Seat, token_hash, unique_nick
from rami_lan.table.stage import Stage
from rami_lan.wire import messages as W

__all__ = ["NOTICE_GRACE", "all_seated", "attach", "join", "leave", "maybe_notice", "players_changed",
           "send_state"]

NOTICE_GRACE = 1.0
"""Seconds a dropped seat waits before the table is told (a quick reconnect: no notice)."""

TableMachine = Any
"""A `rami_lan.table.machine.TableMachine` (not imported: the machine imports this)."""



def join(t: TableMachine, conn: int, now: float, *, nick: str, bot: bool = False,
         token: bytes | None = None, pake_secret: str | None = None,
         return_seat: int | None = None) -> None:
    """A connection proved what it had to (join code, ticket): seat it or refuse it.

    ``token``: the reconnect token it gave (its seat, if still valid);
    ``pake_secret``: the invitation ticket it was admitted with (new seats keep it);
    ``return_seat``: the owner's return invitation (its ticket proven) gives this seat
    back to its dropped player: a new token replaces the lost one.
    """
    seat: Seat | None = None
    if token is None and return_seat is not None:
        back = dropped_seat(t, return_seat)
        if back is not None:
            token = t.entropy(16)
            back.token = token_hash(token)
            back.pake_secret = pake_secret
            attach(t, conn, back, token, nick, bot, now)
            return
    if token is not None:
        seat = t.seat_for_token(token)
        if seat is None:
            t._refuse(conn, "bad_token", "unknown or expired reconnect token")
            return
    if seat is None:
        free = [s for s in t.seats.values() if s.kind == "human" and s.token is None]
        if not free:
            if t.started:
                t._refuse(conn, "in_progress", "the match has started")
            else:
                t._refuse(conn, "table_full", "every seat is taken")
            return
        seat = free[0]
        token = t.entropy(16)
        seat.token = token_hash(token)
        seat.nick = unique_nick(nick, [s.nick for s in t.seats.values()])
        seat.pake_secret = pake_secret
    assert token is not None
    attach(t, conn, seat, token, nick, bot, now)


def dropped_seat(t: TableMachine, seat_no: int) -> Seat | None:
    """``seat_no`` if its human player dropped out of the match (held, not connected,
    not left for good): a return invitation may give it back."""
    seat = t.seats.get(seat_no)
    if (seat is None or seat.kind != "human" or seat.token is None or seat.conn is not None
            or seat.left or seat.owner or not t.started):
        return None
    return seat


def dropped_seat_of(t: TableMachine, player_id: str) -> int | None:
    """The seat whose dropped player has ``player_id`` (from its "Info joueur" card)."""
    if not player_id:
        return None
    for seat_no, card in t.cards.items():
        if (isinstance(card, dict) and card.get("id") == player_id
                and dropped_seat(t, seat_no) is not None):
            return seat_no
    return None


def attach(t: TableMachine, conn: int, seat: Seat, token: bytes, nick: str, bot: bool,
            now: float) -> None:
    old = seat.conn
    if old is not None and old != conn:
        t.conns.pop(old, None)
        t._players_sent.pop(old, None)
        t._send(old, W.Bye(reason="seat taken over by a new connection"))
        t._out.append(F.Close(old))
    if not seat.nick:
        seat.nick = nick
    seat.conn = conn
    t._away_since.pop(seat.seat, None)
    seat.remote_bot = bot
    t.conns[conn] = seat.seat
    if bot:
        t._bot_conns.add(conn)
    t.chat_policy.set_bot(seat.seat, bot or seat.kind == "bot")
    players = t.players_info()
    t._send(conn, W.Welcome(table_id=t.table_id, seat=seat.seat, token=token,
                          table=t.table_info(), players=players))
    t._players_sent[conn] = players
    if t.match.round is not None or t._round is not None:
        send_state(t, conn, seat.seat)
    cards_chat.send_cards(t, conn)
    if bot:
        cards_chat.broadcast_card(t, seat.seat, skip=conn)
    players_changed(t, now, soon=False)
    if t.config.auto_start and not t.started and all_seated(t):
        t._begin_match(now)
    resume.check_resume_grace(t, now)


def leave(t: TableMachine, conn: int, now: float) -> None:
    """A connection closed (or was closed)."""
    seat_no = t.conns.pop(conn, None)
    t._players_sent.pop(conn, None)
    t._bot_conns.discard(conn)
    if seat_no is not None:
        seat = t.seats[seat_no]
        if seat.conn == conn:
            seat.conn = None
            t._away_since[seat_no] = now
            if not t.started and not seat.owner:
                seat.free()
                t.cards.pop(seat_no, None)
                t.chat_policy.forget(seat_no)
                players_changed(t, now, soon=False)
            else:
                players_changed(t, now, soon=True)


def all_seated(t: TableMachine) -> bool:
    return all(s.connected for s in t.seats.values())


def players_changed(t: TableMachine, now: float, *, soon: bool) -> None:
    """The players list changed: tell the table now, or after `NOTICE_GRACE` (drops)."""
    t._out.append(F.AdChange(t.seats_taken()))
    if soon:
        at = now + NOTICE_GRACE
        t._notice_at = at if t._notice_at is None else min(t._notice_at, at)
    else:
        t._notice_at = now


def maybe_notice(t: TableMachine, now: float, text: str | None = None) -> None:
    if text is None and (t._notice_at is None or now < t._notice_at):
        return
    t._notice_at = None
    players = t.players_info()
    for conn, seat in t.conns.items():
        if seat is None:
            continue
        if text is None and t._players_sent.get(conn) == players:
            continue  # nothing new for that seat (a quick reconnect, its own welcome)
        entry = F.TableNotice(players, text or None)
        t._players_sent[conn] = players
        t._send(conn, F.EventsMsg(seq=t.seq, events=(entry,)))


def send_state(t: TableMachine, conn: int, seat: int) -> None:
    """Full state for a (re)joining seat: its view, and the round's fair-shuffle data."""
    ctx = t._round
    if t._resume_void is not None:  # restarted during a private round: it is void
        t._send(conn, F.EventsMsg(seq=t.seq, events=(
            RoundVoided(t._resume_void, None, "host_restarted"),)))
    if ctx is not None and ctx.commits_sent:
        t._send(conn, rounds.commitments_msg(ctx))
    elif (ctx is not None and t.stage is Stage.COMMIT and seat in ctx.participants
          and seat in ctx.commit.missing_commits):
        t._send(conn, W.CommitRequest(round_tag=ctx.tag, seat=seat))
    t.dealing.resync(conn, seat)
    if not t.dealing.holds_for(seat, t.match, []):  # else: once its card is known
        t._send(conn, F.SeatViewMsg(seq=t.seq, view=t.dealing.seat_view(t.match, seat)))
    if ctx is not None and ctx.finished and t._resume_secret is None:
        # (resumed before the next round's commitments went out: that round is asked
        # for again, and the last round's secrets, already out, would come after it)
        secrets = ctx.secrets()
        if secrets:
            t._send(conn, rounds.secrets_msg(ctx))
