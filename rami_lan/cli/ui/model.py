"""The table screen's view-model: plain data built from `SessionUpdate`s.

It holds what the player sees (the seat's view, nicknames, the log, the clock) and
what is purely local (the order of the hand, the cursor, selected cards, melds being
prepared, the chosen table meld, the depth in the discard pile). Actions are *built*
here from that state; whether they are legal is always asked of the core
(`rami_lan.core.shadow`), never decided here.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from rami_lan.cli.messages import chat_line, error_text, session_text, shown_nickname
from rami_lan.cli.ui.describe import describe
from rami_lan.core import actions as A
from rami_lan.core import events as E
from rami_lan.core import hints as _hints
from rami_lan.core.cards import Card
from rami_lan.core.questions import can_open
from rami_lan.core.shadow import is_legal_for_view, legal_actions_for_view
from rami_lan.core.variants import get_variant
from rami_lan.core.views import SeatView
from rami_lan.i18n import _
from rami_lan.net.notices import NoticeCode
from rami_lan.net.table_session import SessionUpdate
from rami_lan.textsafe import safe_text

LOG_KEEP = 500
PANELS = ("help", "history", "scores")


@dataclass(frozen=True)
class RoundLine:
    """One line of the score sheet: a round's scores, its winner, who was eliminated."""

    round_no: int
    winner: int | None
    rami_sec: bool
    scores: dict[int, int]
    totals: dict[int, int]
    eliminated: tuple[int, ...] = ()

def hint_groups(variant: str, hand: tuple[Card, ...]) -> list[list[Card]]:
    """Groups of hand cards that form melds (underlined on screen), asked of the core."""
    return _hints.hint_groups(variant, hand)


@dataclass
class TableModel:
    seat: int
    variant: str
    view: SeatView | None = None
    nicknames: dict[int, str] = field(default_factory=dict)
    connection: str = "connecting"
    deadline: float | None = None
    log: list[str] = field(default_factory=list)
    error: str | None = None
    notice: str | None = None
    confirm: str | None = None  # a question waiting for the same key again
    fairness: tuple[bool, str] | None = None
    fairness_rounds: dict[int, Any] = field(default_factory=dict)
    """round number -> its `rami_lan.net.fairness.FairnessRound` (status, reason, evidence)."""
    order: list[Card] = field(default_factory=list)
    cursor: int = 0
    selected: list[Card] = field(default_factory=list)
    staged: list[list[Card]] = field(default_factory=list)
    target: int = 0
    depth: int = 1
    sort_mode: str | None = None
    show_help: bool = False
    updates_seen: int = 0
    closed: bool = False
    connections: dict[int, str] = field(default_factory=dict)
    """seat -> you / connected / reconnecting / left / bot (from the session)."""
    cards: dict[int, dict] = field(default_factory=dict)
    """seat -> the "Info joueur" card the table reported (plain data)."""
    table: dict = field(default_factory=dict)
    match_events: list[E.Event] = field(default_factory=list)
    """Every event of the current match (for the statistics of a remote client)."""
    matches_ended: int = 0
    info_seat: int | None = None  # the "Info joueur" panel is open on this seat
    chat_input: str | None = None  # the chat line being typed (None: closed)
    invite_open: bool = False  # the "Inviter" panel is open
    can_invite: bool = False  # the screen has an inviter (the table's owner)
    invite_index: int = 0
    fresh: list[Card] = field(default_factory=list)
    """Cards that came into the hand this turn (drawn or taken): highlighted."""
    why: str | None = None  # why the last key did nothing (out of turn...)
    handed_over: set[int] = field(default_factory=set)
    """Seats whose player left and gave their hand to the host (private dealing's
    notice): shown as having left, not as reconnecting, until they are back."""
    intro: list[str] = field(default_factory=list)
    """Lines shown while waiting for the table (the opener's facts: where the table
    listens, its generated join code); the owner of ``rami-lan host`` reads them there,
    the full screen hides what the command printed before it."""
    error_local: bool = False
    """``error`` answers the player's own last key (an empty chat line, no card selected):
    it stays until their next key, not only until the next table event (bots may play
    several times a second)."""
    end: str = "high"  # the chosen end of a run for a joker laid off ("low" / "high")
    panel: str | None = None  # a full-screen panel: help / history / scores
    panel_scroll: int = 0
    rounds: list[RoundLine] = field(default_factory=list)
    """The score sheet: every round of the match so far."""
    _hint_key: frozenset = frozenset()
    _hints: list[list[Card]] = field(default_factory=list)
    _legal_key: tuple = ()
    _legal: dict[str, bool] = field(default_factory=dict)
    _any_lay_key: object = None
    _any_lay: bool = False
    _lay_hint_key: object = None
    _lay_hint: object = None
    _open_key: tuple = ()
    _open: tuple[int, int] | None = None
    drag_index: int | None = None
    """The hand card being dragged with the mouse (None: no drag)."""
    drag_over: tuple | None = None
    """What the dragged card is over (a `render.Drags` target), for the hint line."""
    _ends_key: tuple = ()
    _ends: dict[int, frozenset[str]] = field(default_factory=dict)

    # --- updates from the session -----------------------------------------------------

    def fairness_failed(self) -> list[Any]:
        """The rounds whose check FAILED, in order (shown loudly on every screen)."""
        return [r for _n, r in sorted(self.fairness_rounds.items()) if r.status == "failed"]

    def fairness_summary(self) -> tuple[int, int]:
        """(rounds fully checked, rounds judged) so far; a round being played is not judged."""
        judged = [r for r in self.fairness_rounds.values() if r.status != "pending"]
        return sum(r.status == "checked" for r in judged), len(judged)

    def name(self, seat: int) -> str:
        return self.nicknames.get(seat) or _("Seat {n}").format(n=seat + 1)

    def apply(self, upd: SessionUpdate) -> None:
        self.updates_seen += 1
        if upd.nicknames:
            self.nicknames.update({s: shown_nickname(n) for s, n in upd.nicknames.items()})
        if upd.connection is not None:
            self.connection = upd.connection
            if upd.connection == "closed":
                self.closed = True
        if upd.notice:
            if getattr(upd.notice, "code", None) == NoticeCode.SEAT_HANDED_OVER:
                seat = upd.notice.get("seat")
                if isinstance(seat, int):
                    self.handed_over.add(seat)
            self.notice = session_text(upd.notice, self.nicknames)
            self._log(self.notice)
        if upd.fairness is not None:
            self.fairness = upd.fairness
        for r in (*upd.fairness_rounds, upd.fairness_round):
            if r is not None:
                self.fairness_rounds[r.round_no] = r
        if upd.connections:
            # Back only when seen coming back: the hand-over notice may come before the
            # table's players list stops calling that seat connected.
            self.handed_over -= {s for s, c in upd.connections.items()
                                 if c == "connected" and self.connections.get(s) not in (None, "connected")}
            self.connections.update(upd.connections)
        if upd.cards:
            self.cards.update(upd.cards)
        if upd.table:
            self.table.update(upd.table)
        for ev in upd.events:
            if isinstance(ev, E.RoundStarted) and ev.round_no == 1:
                self.match_events = []
                self.rounds = []
            self.match_events.append(ev)
            if isinstance(ev, E.MatchEnded):
                self.matches_ended += 1
            elif isinstance(ev, E.RoundEnded):
                self._score_round(ev, upd.view)
            elif isinstance(ev, E.PlayersEliminated) and self.rounds:
                last = self.rounds[-1]
                self.rounds[-1] = RoundLine(last.round_no, last.winner, last.rami_sec,
                                            last.scores, last.totals, tuple(ev.seats))
            line = describe(ev, self.seat, self.name)
            if line:
                self._log(line)
        for seat, text in upd.chat:
            self._log(chat_line(self.name(seat), text))
        if upd.deadline is not None:
            # A remote table sends the deadline alone, when the turn starts.
            self.deadline = upd.deadline
        if upd.view is not None:
            old = self.view
            self.view = upd.view
            if upd.view.phase not in ("draw", "play"):
                self.deadline = None
            new_round = old is None or old.round_no != upd.view.round_no
            new_turn = new_round or old.turn_no != upd.view.turn_no  # type: ignore[union-attr]
            if new_turn:
                self.fresh = []
            if old is None or old.hand != upd.view.hand:
                grown = [c for c in upd.view.hand if c not in set(self.order)]
                self._sync_hand(upd.view.hand)
                if new_round:
                    self.sort(self.sort_mode or "suit", keep_mode=bool(self.sort_mode))
                    self.cursor = 0  # a new hand: the cursor on its first card
                elif old is not None and len(upd.view.hand) > len(old.hand) and upd.view.my_turn:
                    self.fresh = grown
            self.fresh = [c for c in self.fresh if c in upd.view.hand]
            if new_turn:
                self.depth = 1
            if self.target >= len(upd.view.melds):
                self.target = max(0, len(upd.view.melds) - 1)
        if upd.error:
            self.error = error_text(upd.error, self.nicknames, self.seat)
            self.error_local = False
        elif upd.events and not self.error_local:
            self.error = None
        if upd.events or upd.error:
            self.why = None

    def _score_round(self, ev: E.RoundEnded, view: SeatView | None) -> None:
        scores = dict(ev.scores)
        prev = self.rounds[-1].totals if self.rounds else {}
        totals = {s: prev.get(s, 0) + sc for s, sc in scores.items()}
        if view is not None and view.phase in ("between", "over"):
            totals = {p.seat: p.total for p in view.players}
        no = view.round_no if view is not None else len(self.rounds) + 1
        if self.rounds and self.rounds[-1].round_no >= no:
            no = self.rounds[-1].round_no + 1
        self.rounds.append(RoundLine(no, ev.winner, ev.rami_sec, scores, totals))

    def seats(self) -> list[int]:
        """The seats at the table: opponents first, then ours (the screen's order)."""
        if self.view is None:
            known = sorted(set(self.nicknames) | {self.seat})
        else:
            known = [p.seat for p in self.view.players]
        return [s for s in known if s != self.seat] + ([self.seat] if self.seat in known else [])

    def bot_level(self, seat: int) -> str | None:
        """A bot's level when the table says it (``table["bots"]``: seat -> level)."""
        bots = self.table.get("bots")
        if isinstance(bots, dict):
            lv = bots.get(seat, bots.get(str(seat)))
        elif isinstance(bots, list | tuple):
            lv = next((b[1] for b in bots if isinstance(b, list | tuple) and len(b) == 2
                       and b[0] == seat), None)
        else:
            lv = None
        return safe_text(lv, 12) if lv else None  # from the network: printable, bounded

    def seat_connection(self, seat: int) -> str:
        """you / connected / reconnecting / left / bot for ``seat``."""
        if seat == self.seat:
            return "you"
        state = self.connections.get(seat, "connected")
        return "left" if state in ("reconnecting", "stand_in") and seat in self.handed_over else state

    def _log(self, line: str) -> None:
        self.log.append(line)
        del self.log[:-LOG_KEEP]

    def _sync_hand(self, hand: tuple[Card, ...]) -> None:
        left = list(hand)
        kept = []
        for c in self.order:
            if c in left:
                left.remove(c)
                kept.append(c)
        self.order = kept + left
        if self.sort_mode:
            self.sort(self.sort_mode)
        held = set(self.order)
        self.selected = [c for c in self.selected if c in held]
        self.staged = [g for g in self.staged if all(c in held for c in g)]
        self.cursor = min(self.cursor, max(0, len(self.order) - 1))

    # --- local hand handling ---------------------------------------------------------

    @property
    def hand(self) -> list[Card]:
        return self.order

    @property
    def cursor_card(self) -> Card | None:
        return self.order[self.cursor] if 0 <= self.cursor < len(self.order) else None

    def staged_cards(self) -> set[Card]:
        return {c for g in self.staged for c in g}

    def move_cursor(self, delta: int) -> None:
        if self.order:
            self.cursor = (self.cursor + delta) % len(self.order)

    def jump(self, index: int) -> None:
        if 0 <= index < len(self.order):
            self.cursor = index

    def toggle(self, index: int | None = None) -> None:
        i = self.cursor if index is None else index
        if not 0 <= i < len(self.order):
            return
        self.cursor = i
        c = self.order[i]
        if c in self.selected:
            self.selected.remove(c)
        elif c not in self.staged_cards():
            self.selected.append(c)

    def clear_selection(self) -> None:
        self.selected = []
        self.staged = []

    def move_card(self, delta: int) -> None:
        """Move the card under the cursor left or right (a local ordering only)."""
        i, j = self.cursor, self.cursor + delta
        if 0 <= i < len(self.order) and 0 <= j < len(self.order):
            self.order[i], self.order[j] = self.order[j], self.order[i]
            self.cursor = j
            self.sort_mode = None

    def move_to(self, i: int, j: int) -> bool:
        """Put hand card ``i`` at place ``j`` (a drag in the hand: local order, any time)."""
        if not (0 <= i < len(self.order) and 0 <= j < len(self.order)) or i == j:
            return False
        self.order.insert(j, self.order.pop(i))
        self.cursor = j  # the cursor follows the card, as with Shift+← →
        self.sort_mode = None
        return True

    def sort(self, mode: str, keep_mode: bool = True) -> None:
        """``suit``: by suit then rank; ``rank``: by rank then suit; jokers last.

        ``keep_mode``: later cards are sorted in too (False: a one-off sort, the deal's)."""
        cur = self.cursor_card
        if mode == "rank":
            self.order.sort(key=lambda c: (c.is_joker, c.rank, c.sort_key()))
        else:
            self.order.sort(key=lambda c: c.sort_key())
        if keep_mode:
            self.sort_mode = mode
        if cur is not None:
            self.cursor = self.order.index(cur)

    def stage(self) -> bool:
        """Put the selected cards aside as one meld of a coming lay-down."""
        if not self.selected:
            return False
        self.staged.append(list(self.selected))
        self.selected = []
        return True

    def stage_hints(self) -> bool:
        """Prepare the melds the core would accept now (the player confirms with Déposer).

        The proposal comes from `rami_lan.core.hints.lay_down_hint`, which confirms it
        with the engine: below the opening threshold nothing is staged."""
        hint = self.lay_hint()
        if hint is None or not getattr(hint, "legal", False):
            return False
        self.staged = [list(g) for g in hint.melds]
        self.selected = []
        return True

    def lay_hint(self):  # type: ignore[no-untyped-def]
        """The core's `LayDownHint` for the current view (cached), None without one."""
        v = self.view
        if v is None:
            return None
        if self._lay_hint_key is not v:
            self._lay_hint_key = v
            try:
                self._lay_hint = _hints.lay_down_hint(v)
            except Exception:  # noqa: BLE001 - a hint is never worth a crash
                self._lay_hint = None
        return self._lay_hint

    def opening_progress(self) -> tuple[int, int] | None:
        """(points the hand can open with, points needed) while this seat has not opened
        in a variant with a threshold; None otherwise. Asked of the core's solver."""
        v = self.view
        if v is None or v.seat is None or v.phase not in ("draw", "play"):
            return None
        var = get_variant(v.variant)
        if not var.requires_opening or not var.open_min_points:
            return None
        me = next((p for p in v.players if p.seat == v.seat), None)
        if me is None or me.opened or not me.in_round:
            return None
        key = (v.hand, v.must_use)
        if key != self._open_key:
            self._open_key = key
            keep = 1 if var.must_discard_to_go_out else 0
            try:
                plan = can_open(var, list(v.hand), list(v.must_use), keep)
                self._open = (plan.points, var.open_min_points)
            except Exception:  # noqa: BLE001 - no progress shown rather than a crash
                self._open = None
        return self._open

    def set_depth(self, delta: int) -> None:
        v = self.view
        if v is None:
            return
        top = max(1, len(v.discard))
        self.depth = min(max(1, self.depth + delta), top)

    def set_target(self, delta: int) -> None:
        if self.view and self.view.melds:
            self.target = (self.target + delta) % len(self.view.melds)

    # --- hints ------------------------------------------------------------------------

    def hints(self) -> list[list[Card]]:
        key = frozenset(self.order)  # the same cards in another order: the same melds
        if key != self._hint_key:
            self._hint_key = key
            self._hints = hint_groups(self.variant, key) if key else []
        return self._hints

    def hinted(self) -> dict[Card, int]:
        return {c: i for i, g in enumerate(self.hints()) for c in g}

    # --- building actions -------------------------------------------------------------

    def _focus_card(self) -> Card | None:
        if len(self.selected) == 1:
            return self.selected[0]
        if not self.selected:
            return self.cursor_card
        return None

    def draw_stock(self) -> A.Action:
        return A.DrawStock(self.seat)

    def take_discard(self, depth: int | None = None) -> A.Action:
        return A.DrawDiscard(self.seat, depth or self.depth)

    def lay_action(self) -> A.Action | None:
        groups = [list(g) for g in self.staged]
        if self.selected:
            groups.append(list(self.selected))
        if not groups:
            return None
        return A.LayDown(self.seat, tuple(A.MeldSpec(tuple(g)) for g in groups))

    def layoff_action(self) -> A.Action | None:
        card = self._focus_card()
        v = self.view
        if card is None or v is None or not v.melds:
            return None
        target = min(self.target, len(v.melds) - 1)
        if card.is_joker and v.melds[target].kind == "run":
            other = "low" if self.end == "high" else "high"
            for end in (self.end, other):
                a = A.LayOff(self.seat, card, target, end)  # type: ignore[arg-type]
                if is_legal_for_view(v, a):
                    return a
            return A.LayOff(self.seat, card, target, "high")
        return A.LayOff(self.seat, card, target)

    def recover_action(self) -> A.Action | None:
        v = self.view
        cards = tuple(self.selected) or ((self.cursor_card,) if self.cursor_card else ())
        if v is None or not v.melds or not cards:
            return None
        return A.RecoverJoker(self.seat, min(self.target, len(v.melds) - 1), cards)

    def discard_action(self) -> A.Action | None:
        card = self._focus_card()
        return A.Discard(self.seat, card) if card is not None else None

    def knock_action(self) -> A.Action:
        return A.Knock(self.seat)

    # --- legality, asked of the core ------------------------------------------------

    def arrow_card(self) -> Card | None:
        """The card whose places on the table are shown: the dragged card, else the one
        selected card."""
        if self.drag_index is not None and 0 <= self.drag_index < len(self.order):
            return self.order[self.drag_index]
        return self.selected[0] if len(self.selected) == 1 else None

    def layoff_ends(self, card: Card | None = None) -> dict[int, frozenset[str]]:
        """table meld -> the ends ("low" / "high"; a set: "high") where ``card`` (default:
        `arrow_card`) may be laid off now: the core judges each `LayOff`, and
        `rami_lan.core.melds.run_extensions` says at which end of a run a card lands."""
        v = self.view
        card = self.arrow_card() if card is None else card
        if v is None or card is None or not v.my_turn or v.phase != "play" or not v.melds:
            return {}
        key = (id(v), card)
        if key == self._ends_key:
            return self._ends
        from rami_lan.core.melds import run_extensions

        var = get_variant(v.variant)
        out: dict[int, frozenset[str]] = {}
        for i, meld in enumerate(v.melds):
            try:
                if meld.kind != "run":
                    ok = {"high"} if is_legal_for_view(v, A.LayOff(self.seat, card, i)) else set()
                else:
                    fits = {e for e, _r in run_extensions(var, meld, card)}
                    ok = {e for e in ("low", "high") if e in fits
                          and is_legal_for_view(v, A.LayOff(self.seat, card, i, e))}  # type: ignore[arg-type]
            except Exception:  # noqa: BLE001 - no arrow rather than a crash
                ok = set()
            if ok:
                out[i] = frozenset(ok)
        self._ends_key, self._ends = key, out
        return out

    def layoff_at(self, card: Card, target: int, end: str | None) -> A.Action | None:
        """The lay-off of ``card`` dropped on meld ``target`` (at ``end`` when dropped on
        an arrow; else the end the core accepts, the chosen end first)."""
        v = self.view
        if v is None or not 0 <= target < len(v.melds):
            return None
        meld = v.melds[target]
        if meld.kind != "run":
            return A.LayOff(self.seat, card, target)
        ends = self.layoff_ends(card).get(target, frozenset())
        if end in ("low", "high"):
            return A.LayOff(self.seat, card, target, end)  # type: ignore[arg-type]
        for e in (self.end, "high", "low"):
            if e in ends:
                return A.LayOff(self.seat, card, target, e)  # type: ignore[arg-type]
        return A.LayOff(self.seat, card, target, "high" if card.is_joker else None)

    def legal(self) -> dict[str, bool]:
        """Which buttons are active now (cached until the view or the selection changes)."""
        v = self.view
        key = (
            id(v),
            tuple(self.selected),
            tuple(tuple(g) for g in self.staged),
            self.target,
            self.depth,
            self.cursor,
        )
        if key == self._legal_key:
            return self._legal
        self._legal_key = key
        flags = dict.fromkeys(
            ("draw", "take", "lay", "layoff", "recover", "discard", "knock"), False
        )
        if v is not None and v.seat is not None:
            flags["knock"] = v.can_knock and v.phase == "draw"
            if v.my_turn:

                def ok(a: A.Action | None) -> bool:
                    return a is not None and is_legal_for_view(v, a)

                if v.phase == "draw":
                    flags["draw"] = ok(self.draw_stock())
                    flags["take"] = ok(self.take_discard())
                else:
                    lay = self.lay_action()
                    flags["lay"] = ok(lay) if lay is not None else self.any_lay_legal()
                    flags["layoff"] = ok(self.layoff_action())
                    flags["recover"] = ok(self.recover_action())
                    flags["discard"] = ok(self.discard_action())
        self._legal = flags
        return flags

    def any_lay_legal(self) -> bool:
        """Is some lay-down legal now? (Déposer is active when nothing is selected.)"""
        v = self.view
        if v is None:
            return False
        if self._any_lay_key is not v:
            self._any_lay_key = v
            self._any_lay = any(isinstance(a, A.LayDown) for a in legal_actions_for_view(v))
        return self._any_lay

    # --- clock ------------------------------------------------------------------------

    def seconds_left(self, now: float | None = None) -> int | None:
        if self.deadline is None:
            return None
        t = time.monotonic() if now is None else now
        return max(0, int(self.deadline - t + 0.999))
