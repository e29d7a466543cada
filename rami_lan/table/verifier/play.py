"""The verifier's checks of the deal and the play as they come: the first view (a late join),
the event stream's sequence, each deal, every stock draw, discard-pile move and refill,
and our own actions and the host's refusals of them.
"""

from __future__ import annotations

from collections.abc import Sequence

from rami_lan.core import events as E
from rami_lan.core.deckrng import turn_over
from rami_lan.core.errors import RulesError
from rami_lan.core.melds import check_meld, lay_off, recover_joker
from rami_lan.table.verifier.describe import _cards
from rami_lan.table.verifier.inputs import ActionSent, EventsSeen, Input, Refused, ViewSeen
from rami_lan.table.verifier.outputs import Status
from rami_lan.table.verifier.protocol import CommitReveal
from rami_lan.table.verifier.state import _GAP, RELAUNCHED, _Round


class PlayWatch(CommitReveal):
    """The checks of the deal and the play, on top of the commit-reveal (`CommitReveal`)."""

    def _on_view(self, msg: ViewSeen) -> None:
        if self._first_view:
            self._first_view = False
            self._join(msg)
        self._check_seq(msg.seq, same_ok=True)

    def _pop_early(self) -> list[Input]:
        early, self._early = self._early, []
        return early

    def _join(self, msg: ViewSeen) -> None:
        """The first view: a match already in progress makes us a late joiner."""
        early = self._pop_early()
        round_no = msg.round_no or 0
        if round_no == 0 and not self._rounds:
            # A rejoin before the first deal: round 1's commit may have been asked of the
            # session we replace (a relaunch after a crash): unchecked if so, not failed.
            self._away.add(1)
        cur = self._cur
        behind = (self.relaunched and self._m is not None and round_no > self._m.round_no
                  and not (cur is not None and cur.round_no == round_no and cur.started))
        if behind:  # relaunched in a round the dead process's checkpoint does not know
            if cur is not None and cur.started and cur.round_no < round_no:
                self._gone_while_away(cur)  # the checkpoint's round ended while we were away
            self._come_in(round_no, msg.phase, f"we were relaunched in round {round_no}", RELAUNCHED)
        elif round_no >= 1 and self._m is not None and self._m.round_no == 0 and not self._rounds:
            self._come_in(round_no, msg.phase, f"we joined the match in round {round_no}",
                          "we joined during this round")
        for item in early:
            self._safely(self._handlers[type(item)], item)

    def _come_in(self, round_no: int, phase: str | None, lost: str, gap: str) -> None:
        """We come in at ``round_no`` of a match (a late join, a relaunch): what came before
        is not known (``lost``), and a round being played is opened, partial (``gap``)."""
        self._lost = lost
        self._m = None
        self._base = round_no
        self._away |= {round_no, round_no + 1}
        if phase in ("draw", "play"):
            r = self._open_round(round_no)
            r.started, r.gap = True, gap
            self._tags.setdefault(r.tag, round_no)

    def _on_events(self, msg: EventsSeen) -> None:
        self._check_seq(msg.seq, same_ok=True)
        # The scoring events come in the same message as RoundEnded; later messages until
        # the next deal are between rounds (withdrawals).
        in_round = self._cur is not None and self._cur.started and not self._cur.ended
        for ev in msg.events:
            if isinstance(ev, E.PlayersEliminated):
                self._out.update(ev.seats)
            if isinstance(ev, E.RoundStarted):
                self._on_round_started(ev)
                in_round = True
                continue
            if isinstance(ev, E.RoundVoided) and not in_round and self._cur is not None \
                    and not self._cur.started and not self._cur.judged:
                self._cur.events.append(ev)  # void before its deal (private dealing)
                self._cur.voided = self._cur.ended = True
                self._cur.void = (ev.seat, ev.reason)
                continue
            if in_round and self._cur is not None:
                r = self._cur
                if r.judged:
                    self._fail(r, "events_after_secrets",
                               "the round went on after its secrets were published")
                    in_round = False
                    continue
                r.events.append(ev)
                self._observe(r, ev)
                if isinstance(ev, E.RoundEnded):
                    r.ended = True
            else:
                self._between.append(ev)

    def _check_seq(self, seq: int | None, *, same_ok: bool) -> None:
        if seq is None:
            return
        last = self._last_seq
        self._last_seq = seq if last is None else max(last, seq)
        if self._disconnected and last is not None:
            # The first numbered message after a reconnect is the state sent again: any
            # change since the last one we saw has events we never received.
            if seq > last:
                self._note_gap()
            self._disconnected = False
            return
        if last is None or seq == last + 1 or (same_ok and seq == last):
            return
        target = self._cur or self._open_round(self._next_round_no())
        self._fail(target, "events_skipped",
                   f"the host's message numbers jumped from {last} to {seq} without a "
                   "disconnect: events were hidden", expected=last + 1, seen=seq)

    def _note_gap(self) -> None:
        self._disconnected = False
        r = self._cur
        if r is not None and r.started and not r.ended:
            r.gap = "events were missed while we were disconnected"
        elif r is None or r.ended:
            # Between rounds: only withdrawals can be missed; they show in the next deal.
            self._between.append(_GAP)

    def _on_round_started(self, ev: E.RoundStarted) -> None:
        self._close_unjudged()
        expected_no = self._next_round_no()
        r = self._cur
        if r is None or r.round_no != expected_no or r.started:
            r = self._open_round(expected_no)
        r.started = True
        self._tags.setdefault(r.tag, r.round_no)
        if self._m is not None:
            self._apply_between(r, ev)
        r.start_m = self._m
        if ev.round_no != expected_no:
            self._fail(r, "round_number", f"the host numbered the round {ev.round_no}",
                       expected=expected_no, seen=ev.round_no)
        self._check_dealt_protocol(r, ev.players)
        self._check_deal(r, ev)
        r.events.append(ev)

    def _check_dealt_protocol(self, r: _Round, players: Sequence[int]) -> None:
        if self._no_secret_due() or self.seat not in players:
            return
        if r.status is Status.FAILED:
            return
        if r.commits is None:
            if self._lost or r.gap or (r.round_no in self._away and not r.asked):
                self._partial(r, "we were away when the round was set up")
                return
            self._fail(r, "dealt_without_commitments",
                       "the round was dealt without a commitment set: the host chose the seed alone")
        elif not r.asked and r.status is not Status.PARTIAL:
            self._fail(r, "not_asked", "the round was dealt without asking us to commit")
        elif r.asked and not r.revealed and r.round_no in self._away:
            self._partial(r, "we were away: the round was dealt without our secret")
        elif r.asked and not r.revealed and r.status is not Status.PARTIAL:
            self._fail(r, "dealt_without_our_secret",
                       "the round was dealt without our secret (we never revealed it)")

    def _check_deal(self, r: _Round, ev: E.RoundStarted) -> None:
        v = self.variant
        m = self._m
        players = tuple(ev.players)
        if m is not None and m.over:
            self._fail(r, "round_after_end", "a round was dealt after the match ended")
        elif m is not None:
            want = m.next_players()
            if players != want:
                self._fail(r, "players", f"the round is dealt to seats {list(players)}, the match "
                           f"gives {list(want)}", expected=list(want), seen=list(players))
            if m.dealer is not None and want:
                dealer = next((s for s in want if s > m.dealer), want[0])
                if ev.dealer != dealer:
                    self._fail(r, "dealer_moved",
                               f"the dealer is seat {ev.dealer}; after seat {m.dealer} the "
                               f"rotation gives seat {dealer}", expected=dealer, seen=ev.dealer)
        if ev.dealer not in players or not 2 <= len(players) <= 4:
            self._fail(r, "dealer_not_playing", f"the dealer {ev.dealer} is not among the players")
            return
        i = players.index(ev.dealer)
        order = players[i + 1:] + players[: i + 1]
        if ev.first_player != order[0]:
            self._fail(r, "first_player", f"seat {ev.first_player} plays first; left of the "
                       f"dealer is seat {order[0]}", expected=order[0], seen=ev.first_player)
        hs = v.cards_per_player(len(players))
        if ev.hand_size != hs:
            self._fail(r, "hand_size", f"hands of {ev.hand_size} cards, the variant deals {hs}",
                       expected=hs, seen=ev.hand_size)
        n = len(players)
        stock = v.deck_size - n * hs - 1
        if ev.stock_size != stock:
            self._fail(r, "stock_size", f"a stock of {ev.stock_size} cards, the deal leaves {stock}",
                       expected=stock, seen=ev.stock_size)
        r.layout = {seat: tuple(k * n + p for k in range(hs)) for p, seat in enumerate(order)}
        r.gen, r.next_pos, r.gen_size, r.gen_stock = 0, n * hs + 1, v.deck_size, None
        r.pile = [ev.first_discard]
        r.players, r.turn, r.first, r.knocker = players, None, order[0], None
        r.table, r.opened = [], set()

    def _observe(self, r: _Round, ev: E.Event) -> None:
        """The online checks of one event of the round in progress."""
        if r.gap:
            return
        self._observe_turn(r, ev)
        if isinstance(ev, E.CardsDealt):
            want = r.layout.get(ev.seat)
            if want is None or ev.seat in r.dealt:
                self._fail(r, "deal_seat", f"cards dealt to seat {ev.seat}, which is not dealt "
                           "in this round (or twice)")
                return
            r.dealt.add(ev.seat)
            if tuple(ev.positions) != want:
                self._fail(r, "deal_positions",
                           f"seat {ev.seat} was dealt from stock positions {list(ev.positions)}, "
                           f"the deal gives {list(want)}", expected=list(want),
                           seen=list(ev.positions))
            if ev.seat == self.seat and (ev.cards is None or len(ev.cards) != len(want)):
                self._fail(r, "deal_count", "our dealt hand does not have the variant's size")
        elif isinstance(ev, E.StockDrawn):
            self._observe_draw(r, ev)
        elif isinstance(ev, E.StockRefilled):
            self._observe_refill(r, ev)
        elif isinstance(ev, E.Discarded):
            r.pile.append(ev.card)
        elif isinstance(ev, E.DiscardTaken):
            depth = ev.depth
            if depth < 1 or depth > len(r.pile) or tuple(r.pile[-depth:]) != tuple(ev.cards):
                self._fail(r, "pile_taken",
                           f"seat {ev.seat} took {_cards(ev.cards)} from the discard pile, whose "
                           f"top {depth} card(s) are {_cards(r.pile[-depth:])}")
                return
            del r.pile[-depth:]
        elif isinstance(ev, E.RoundVoided):
            r.voided = True
            r.ended = True
            r.void = (ev.seat, ev.reason)
        elif isinstance(ev, E.Knocked):
            if not r.pile or r.pile[-1] != ev.card:
                self._fail(r, "pile_knock", f"seat {ev.seat} knocked for {ev.card}, the pile's "
                           f"top is {r.pile[-1] if r.pile else None}")
                return
            r.pile.pop()

    def _observe_turn(self, r: _Round, ev: E.Event) -> None:
        """Whose turn it is, and the public rulings (melds, lay-offs, joker recoveries)."""
        if isinstance(ev, E.TurnStarted):
            if r.knocker is not None:
                want = r.knocker
            elif r.turn is None:
                want = r.first  # left of the dealer
            else:
                want = next((s for s in r.players if s > r.turn), r.players[0])
            if ev.seat != want:
                self._fail(r, "turn_order", f"seat {ev.seat} was given the turn; the rules give "
                           f"seat {want}", expected=want, seen=ev.seat)
            r.turn, r.knocker = ev.seat, None
            return
        if isinstance(ev, E.Knocked):
            if ev.seat == r.turn or ev.seat not in r.players:
                self._fail(r, "knock_turn", f"seat {ev.seat} knocked on its own turn or out of the round")
            r.knocker = ev.seat
            return
        seat = getattr(ev, "seat", None)
        acting = isinstance(ev, E.DiscardTaken | E.Melded | E.LaidOff | E.JokerRecovered | E.Discarded) \
            or (isinstance(ev, E.StockDrawn) and ev.reason != "knock")
        if acting and seat != r.turn:
            self._fail(r, "out_of_turn", f"seat {seat} played ({type(ev).__name__}) during seat "
                       f"{r.turn}'s turn", expected=r.turn, seen=seat)
            return
        if isinstance(ev, E.StockDrawn) and ev.reason == "knock" and seat != r.knocker:
            self._fail(r, "knock_draw", f"seat {seat} drew knock cards without knocking")
        v = self.variant
        try:
            if isinstance(ev, E.DiscardTaken) and ev.depth > 1 and v.discard_draw != "any_depth":
                self._fail(r, "pile_depth", f"seat {ev.seat} took {ev.depth} cards from the pile; "
                           "the variant allows its top card only")
            elif isinstance(ev, E.Melded):
                self._check_melded(r, ev)
            elif isinstance(ev, E.LaidOff):
                self._check_opened(r, ev.seat, "lay off")
                end = None
                if ev.card.is_joker and ev.meld.kind == "run":
                    end = "low" if ev.meld.cards[0] == ev.card else "high"
                new = lay_off(v, r.table[ev.target], ev.card, end)  # type: ignore[arg-type]
                if new != ev.meld:
                    raise RulesError(f"laying {ev.card} off gives {new}, not {ev.meld}")
                r.table[ev.target] = new
            elif isinstance(ev, E.JokerRecovered):
                self._check_opened(r, ev.seat, "take a joker back")
                if v.joker_recovery == "none":
                    raise RulesError("this variant has no joker recovery")
                new, joker = recover_joker(v, r.table[ev.target], ev.cards)
                if (new, joker) != (ev.meld, ev.joker):
                    raise RulesError(f"giving {_cards(ev.cards)} yields {joker} and {new}")
                r.table[ev.target] = new
        except (RulesError, IndexError, ValueError) as exc:
            self._fail(r, "ruling", f"seat {seat}'s {type(ev).__name__} breaks the rules: {exc}")

    def _check_opened(self, r: _Round, seat: int, what: str) -> None:
        if self.variant.requires_opening and seat not in r.opened:
            raise RulesError(f"seat {seat} may not {what} before opening")

    def _check_melded(self, r: _Round, ev: E.Melded) -> None:
        v = self.variant
        if ev.first_index != len(r.table):
            raise RulesError(f"the new melds are numbered from {ev.first_index}, the table has "
                             f"{len(r.table)}")
        for md in ev.melds:
            chk = check_meld(v, md.cards, md.kind, owner=ev.seat)
            if not chk.valid or chk.meld != md:
                raise RulesError(f"{_cards(md.cards)} is not a valid meld ({chk.reason or 'differs'})")
        opening = v.requires_opening and ev.seat not in r.opened
        if ev.opened != opening:
            raise RulesError("the opening flag is wrong")
        points = sum(md.points(v) for md in ev.melds)
        if opening and points < v.open_min_points:
            raise RulesError(f"an opening of {points} points (the variant needs {v.open_min_points})")
        r.opened.add(ev.seat)
        r.table.extend(ev.melds)

    def _observe_draw(self, r: _Round, ev: E.StockDrawn) -> None:
        if ev.reshuffle != r.gen:
            self._fail(r, "draw_generation", f"a card was drawn from stock {ev.reshuffle}; the "
                       f"current stock is number {r.gen}", expected=r.gen, seen=ev.reshuffle)
            return
        if ev.position != r.next_pos:
            self._fail(r, "draw_position",
                       f"a card was drawn from position {ev.position} of stock {r.gen}; its "
                       f"top is position {r.next_pos}", expected=r.next_pos, seen=ev.position)
        elif r.next_pos >= r.gen_size:
            self._fail(r, "draw_past_stock", f"a card was drawn from the empty stock {r.gen}")
        elif r.gen_stock is not None and ev.card is not None:
            want = r.gen_stock[ev.position]
            if ev.card != want:
                self._fail(r, "draw_turned_over",
                           f"we drew {ev.card} from the turned-over pile, whose card at "
                           f"position {ev.position} is {want}", expected=str(want), seen=str(ev.card))
        r.next_pos = ev.position + 1

    def _observe_refill(self, r: _Round, ev: E.StockRefilled) -> None:
        v = self.variant
        if v.stock_rule == "end_round":
            self._fail(r, "refill_forbidden", "the stock was refilled; the variant ends the round")
            return
        if ev.reshuffle != r.gen + 1:
            self._fail(r, "refill_number", f"refill number {ev.reshuffle} after stock {r.gen}",
                       expected=r.gen + 1, seen=ev.reshuffle)
        if r.next_pos < r.gen_size:
            self._fail(r, "refill_early", f"the stock was refilled with {r.gen_size - r.next_pos} "
                       "card(s) still in it")
        pile, top = r.pile[:-1], (r.pile[-1] if r.pile else None)
        if tuple(ev.pile) != tuple(pile):
            kind = "order" if sorted(map(str, ev.pile)) == sorted(map(str, pile)) else "content"
            self._fail(r, f"refill_pile_{kind}",
                       f"the refill took the pile {_cards(ev.pile)}; the discard pile minus its "
                       f"top is {_cards(pile)} (bottom to top)",
                       expected=_cards(pile), seen=_cards(ev.pile))
        if ev.kept != top:
            self._fail(r, "refill_kept", f"the refill kept {ev.kept} on the pile; its top is {top}",
                       expected=str(top), seen=str(ev.kept))
        shuffled = v.stock_rule != "turn_over"
        if ev.shuffled != shuffled:
            self._fail(r, "refill_rule", "the refill was " + ("shuffled" if ev.shuffled else
                       "turned over") + f", the variant {v.id} does the other")
        r.gen = ev.reshuffle
        r.next_pos = 0
        r.gen_size = len(pile)
        r.gen_stock = None if shuffled else turn_over(pile)
        r.pile = [top] if top is not None else []

    # ---- actions and refusals

    def _on_action_sent(self, msg: ActionSent) -> None:
        self._sent[msg.seq] = msg.action
        r = self._cur
        if r is not None and r.started and not r.ended:
            r.sent[msg.seq] = msg.action

    def _on_refused(self, msg: Refused) -> None:
        if msg.code != "illegal" or msg.ref is None:
            return
        action = self._sent.get(msg.ref)
        r = self._cur
        if action is None or r is None or not r.started:
            return
        r.refusals.append((len(r.events), action))
        r.sent.pop(msg.ref, None)
