"""The table's own moves: bots, the frapper window, the move timer (`next_move`).

`TableMachine.tick` asks `next_move` when the table's next own move is due and what it
is ("ask" the bots in the frapper window, a "bot" move, a blind seat's "prompt", or the
timer's "timeout"), then plays it (`ask_knocks`, `bot_move`). Deadlines belong to the
turn, never to a connection (the machine's docstring).
"""

from __future__ import annotations

from typing import Any

from rami_lan.core import actions as A
from rami_lan.core.views import view_for
from rami_lan.table.policy import fallback_action, think_delay
from rami_lan.table.seats import Seat
from rami_lan.table.stage import Stage

__all__ = ["ask_knocks", "bot_delay", "bot_move", "next_move"]

TableMachine = Any
"""A `rami_lan.table.machine.TableMachine` (not imported: the machine imports this)."""


def bot_delay(t: TableMachine, st: Seat) -> float:
    if t.config.bot_delay is not None:
        return t.config.bot_delay
    return think_delay(st.policy) if st.policy is not None else 0.5


def next_move(t: TableMachine) -> tuple[float | None, int, str]:
    """(when, seat, what) of the table's next own move: "knock", "bot" or "timeout"."""
    m = t.match
    r = m.round
    if t.stage is not Stage.PLAYING or r is None or m.phase not in ("draw", "play"):
        return (None, -1, "")
    if t.dealing.busy():
        return (None, -1, "")  # a key the host waits for (a bot's card), or a showdown
    if (m.phase == "draw" and r.knock_window and t._knock_asked != t._turn_key):
        for s in r.knock_window:
            st = t.seats[s]
            if st.kind == "bot":
                return (t._changed_at + bot_delay(t, st), s, "ask")
    s = r.turn
    st = t.seats[s]
    if st.kind == "bot" or t.standing.benched(s):
        return (t._changed_at + bot_delay(t, st), s, "bot")
    if t._turn_waiting:
        return (None, -1, "")  # its cards are on their way: its move timer starts then
    if t.dealing.blind(s):
        # Nobody but the player can play its hidden hand: when the move timer runs out,
        # its own client is asked to play the automatic move (once per turn); it owes
        # that move from then on (a deadline, then the round is void).
        if t.config.timer > 0 and st.conn is not None and not t.dealing.prompted():
            return (t._turn_started + t.config.timer, s, "prompt")
        return (None, -1, "")
    if st.conn is None:
        wait = float(t.config.timer) if t.config.timer > 0 else t.config.away_delay
        at = t._turn_started + wait
        if r.away[s] or t.dealing.handed_over(s):  # gone for good: no wait for it
            at = min(at, t._changed_at + bot_delay(t, st))
        return (at, s, "bot")
    if t.config.timer > 0:
        if t._timeout_refused == t._turn_key:
            return (None, -1, "")  # the core refused it this turn: no deadline to spin on
        return (t._turn_started + t.config.timer, s, "timeout")
    return (None, -1, "")


def ask_knocks(t: TableMachine, now: float) -> bool:
    """Ask the bots in the frapper window, once per turn; True if one knocked."""
    m = t.match
    r = m.round
    t._knock_asked = t._turn_key
    assert r is not None
    for s in r.knock_window:
        st = t.seats[s]
        if st.kind != "bot" or st.policy is None:
            continue
        new_events, t._bot_events[s] = t._bot_events[s], []  # each event given once
        try:
            wants = st.policy.wants_knock(view_for(m, s), tuple(new_events))
        except Exception:  # noqa: BLE001 - a broken bot must not stop the table
            wants = False
        if wants and t.try_apply(None, A.Knock(s), None, now):
            return True
    return False


def bot_move(t: TableMachine, seat: int, now: float) -> None:
    st = t.seats[seat]
    if st.policy is None:
        st.policy = t.make_policy("moyen", seat)
    view = view_for(t.match, seat)
    new_events, t._bot_events[seat] = t._bot_events[seat], []
    try:
        action = t.choose(seat, st.policy, view, new_events)
    except Exception as exc:  # noqa: BLE001 - a broken bot must not stop the table
        t.bot_failed(seat, exc)
        action = None
    t.last_refusal = None
    if action is not None and getattr(action, "seat", None) == seat and t.try_apply(
            None, action, None, now):
        return
    t.bot_failed(seat, t.last_refusal)
    fb = fallback_action(view)
    if fb is not None and t.try_apply(None, fb, None, now):
        return
    t.try_apply(None, A.Timeout(seat), None, now)
