"""The verifier's judgement of a round once its secrets are out: every commitment and the
seed, the derived deck against the cards seen, then a full replay with the rules core
from the actions read in the public event log; and the match's continuity between rounds.
"""

from __future__ import annotations

import hmac
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any

from rami_lan.core import actions as A
from rami_lan.core import events as E
from rami_lan.core.cards import Card, card_from_id
from rami_lan.core.deckrng import deck_order
from rami_lan.core.errors import IllegalAction
from rami_lan.core.match import MatchState, apply, is_legal, start_round, withdraw
from rami_lan.core.variants import Variant
from rami_lan.table.verifier.describe import _act, _describe, _ev
from rami_lan.table.verifier.inputs import OBSERVER, SecretsSeen, audited_refills
from rami_lan.table.verifier.outputs import Status
from rami_lan.table.verifier.state import _GAP, VerifierState, _Round
from rami_lan.table.verify_spec import commitment, seed_from_secrets


class Replay(VerifierState):
    """A round's judgement and replay, and the match carried on after it."""

    def _judge(self, r: _Round, msg: SecretsSeen) -> None:
        secrets = {int(k): bytes(v) for k, v in msg.secrets.items()}
        commits = r.commits or {}
        excluded = {int(s) for s in msg.excluded}
        if r.commits is None:
            self._fail(r, "no_commitments", "the round's commitments never arrived")
            return
        if excluded != set(r.announced):
            late = sorted(excluded - set(r.announced))
            if late:
                self._fail(r, "late_exclusion",
                           f"seat(s) {late} were excluded without an announcement before the deal")
            missing = sorted(set(r.announced) - excluded)
            if missing:
                self._fail(r, "exclusion_dropped",
                           f"seat(s) {missing} were announced excluded but the end says otherwise")
        if self.seat != OBSERVER and self.seat in excluded and self.seat not in r.announced:
            self._fail(r, "own_excluded", "the host excluded our secret after the deal")
        for seat in sorted(commits.keys() | secrets.keys()):
            c, s = commits.get(seat), secrets.get(seat)
            if s is None:
                if seat not in excluded:
                    self._fail(r, "secret_missing", f"seat {seat} committed but its secret is missing")
                continue
            if seat in excluded:
                self._fail(r, "excluded_secret_used", f"seat {seat} is excluded but its secret is used")
            if c is None:
                self._fail(r, "secret_without_commitment",
                           f"seat {seat} has a secret in the seed but never committed")
            elif len(s) != 32 or not hmac.compare_digest(commitment(r.tag, seat, s), c):
                self._fail(r, "commitment", f"seat {seat}'s secret does not match its commitment")
        if self.facts.host_seat not in secrets:
            self._fail(r, "host_secret_missing", "the host's own secret is missing")
        if self.seat != OBSERVER and r.revealed and r.secret is not None:
            if secrets.get(self.seat) != r.secret:
                self._fail(r, "own_secret_not_used", "the seed does not use our secret")
        if r.status is Status.FAILED or not secrets or any(len(s) != 32 for s in secrets.values()):
            return
        seed = seed_from_secrets(r.tag, secrets)
        if r.voided:  # its commit-reveal is checked above; nothing of its play counts
            r.void_seed = seed
            if r.status is Status.PENDING:
                r.status = Status.CHECKED
                r.reason = _void_reason(r.void)
            return
        if r.withheld:  # no deck order to replay with: the commit-reveal is all we can check
            self._partial(r, _withheld_reason(r.withheld))
            return
        if not r.started:
            r.reason = r.reason or "the round was abandoned before the deal"
            if r.status is Status.PENDING:
                r.status = Status.CHECKED
            return
        if r.gap or r.start_m is None:  # a hole in the log, or the match before it unknown
            self._check_seen_cards(r, seed)
            self._partial(r, r.gap or self._lost)
            return
        self._replay(r, seed)

    def _deck(self, r: _Round, seed: bytes) -> list[Card]:
        """The round's deck: from the masked deck's audit, else from the seed."""
        cards = _cards_by_id(self.variant)
        if r.orders:
            return [cards[i] for i in r.orders[0]]
        return [cards[i] for i in deck_order(seed, len(cards))]

    def _refills(self, r: _Round) -> tuple[tuple[Card, ...], ...] | None:
        """Refill orders from the masked deck's audit (None: shuffled from the seed)."""
        if not r.orders:
            return None
        return audited_refills(_cards_by_id(self.variant), r.orders, r.gen_decks)

    def _check_seen_cards(self, r: _Round, seed: bytes) -> None:
        """A round with a hole in its log: check the cards seen in the original deck."""
        if r.masked and not r.orders:
            return  # a private round's deck is not the seed's: without its audited order, no cards
        deck = self._deck(r, seed)
        seen: list[tuple[int, Card]] = []
        for ev in r.events:
            if isinstance(ev, E.RoundStarted):
                seen.append((len(ev.players) * ev.hand_size, ev.first_discard))
            elif isinstance(ev, E.CardsDealt) and ev.cards is not None:
                seen += list(zip(ev.positions, ev.cards, strict=False))
            elif isinstance(ev, E.StockDrawn) and ev.card is not None and ev.reshuffle == 0:
                seen.append((ev.position, ev.card))
        for pos, card in seen:
            want = deck[pos] if 0 <= pos < len(deck) else None
            if card != want:
                self._fail(r, "replay_card", f"the card at stock position {pos} is {want}, the "
                           f"host gave {card}", expected=str(want), seen=str(card))
                return
        r.cards_checked = len(seen)

    def _replay(self, r: _Round, seed: bytes) -> None:
        deck = self._deck(r, seed)
        m0 = r.start_m
        assert m0 is not None
        got = r.events
        m, produced = start_round(m0, deck, seed, refills=self._refills(r))
        at = self._compare(r, produced, got, 0, "the deal")
        if at < 0:
            return
        refusals = sorted(r.refusals, key=lambda x: x[0])
        own = dict(sorted(r.sent.items()))
        if r.stand_in:
            # Out of the private deal: the host's bot plays our seat (its moves are not
            # ours) and refuses what we send. Every move is still checked against the rules.
            refusals, own = [], {}
        while at < len(got):
            for pos, act in refusals:
                if pos == at and is_legal(m, act):
                    self._fail(r, "refusal", f"the host refused our legal action {_act(act)}")
                    return
            if m.round is None or m.round.phase == "over":
                self._fail(r, "events_after_end",
                           f"the host sent {type(got[at]).__name__} after the round's end")
                return
            action = _infer(got, at, m)
            if action is None:
                self._fail(r, "event_unexpected",
                           f"the host sent {type(got[at]).__name__} where a player's action was due")
                return
            if (getattr(action, "seat", None) == self.seat and not isinstance(action, A.Timeout)
                    and not r.stand_in):
                key = _action_key(action)
                seq = next((q for q, a in own.items() if _action_key(a) == key), None)
                if seq is None:
                    self._fail(r, "own_action_changed",
                               f"the host played {_act(action)} ({key}) for our seat; we never "
                               "asked for it")
                    return
                del own[seq]
            try:
                m, produced = apply(m, action)
            except IllegalAction as exc:
                self._fail(r, "illegal_accepted",
                           f"the host accepted an illegal action {_act(action)}: {exc}")
                return
            at = self._compare(r, produced, got, at, _act(action))
            if at < 0:
                return
        for pos, act in refusals:
            if pos >= at and is_legal(m, act):
                self._fail(r, "refusal", f"the host refused our legal action {_act(act)}")
                return
        if r.ended and (m.round is None or m.round.phase != "over"):
            self._fail(r, "end_unexplained", "the host ended the round; the rules do not")
            return
        r.events_checked = len(got)
        r.cards_checked = sum(len(h) for _, h in (m.round.result.hands if m.round and m.round.result
                                                  else ())) + _cards_seen(got)
        self._m_after = m
        if r.status is Status.PENDING:
            r.status = Status.CHECKED
            r.reason = (f"{len(got)} events replayed with the rules"
                        + ("" if r.ended else " (round abandoned)"))

    def _compare(self, r: _Round, produced: Sequence[E.Event], got: Sequence[E.Event], at: int,
                 what: str) -> int:
        for k, ev in enumerate(produced):
            mine = ev if self.seat == OBSERVER else ev.for_seat(self.seat)
            if at + k >= len(got):
                if r.ended:
                    self._fail(r, "event_missing",
                               f"after {what} the rules give {_ev(mine)}; the host sent nothing")
                    return -1
                return len(got)
            if got[at + k] != mine:
                seen = got[at + k]
                code, reason, exp, saw = _describe(mine, seen, what)
                self._fail(r, code, reason, expected=exp, seen=saw)
                return -1
        return at + len(produced)

    # ---- continuity

    def _continue_after(self, r: _Round) -> None:
        """The match state after round ``r``: the replayed one, else the host's claims."""
        if self._done_for == r.round_no:
            return
        self._done_for = r.round_no
        if r.voided:  # the match as before the round, with its number and dealer used
            started = next((e for e in r.events if isinstance(e, E.RoundStarted)), None)
            self._m_after = None
            m0 = r.start_m if r.start_m is not None else self._m
            if started is None and m0 is not None and r.void_seed is not None:
                # void before its deal: its dealer is the one the seed and rotation give
                m1, _evs = start_round(m0, list(_cards_by_id(self.variant)), r.void_seed)
                self._m = replace(m1, round=None)
            else:
                self._m = (None if m0 is None or started is None else
                           replace(m0, round_no=started.round_no, dealer=started.dealer))
            if self._m is None:
                self._lost = f"round {r.round_no} was void before we saw its deal"
            return
        m_after, self._m_after = self._m_after, None
        if m_after is not None:
            self._m = m_after
            return
        m0 = r.start_m
        if m0 is None or not r.started:
            return
        claim = next((e for e in r.events if isinstance(e, E.RoundEnded)), None)
        started = r.events[0] if r.events and isinstance(r.events[0], E.RoundStarted) else None
        if claim is None or started is None:
            self._lost = f"round {r.round_no} was not seen to its end"
            self._m = None
            return
        self._m = _claimed_after(m0, started, claim)

    def _apply_between(self, r: _Round, ev: E.RoundStarted) -> None:
        m = self._m
        assert m is not None
        gap = _GAP in self._between
        for item in self._between:
            if isinstance(item, E.PlayersEliminated) and m.phase in ("between", "waiting"):
                for seat in item.seats:
                    try:
                        m, _evs = withdraw(m, seat)
                    except IllegalAction as exc:
                        self._fail(r, "withdrawal", f"seat {seat} can not leave now: {exc}")
        if gap:  # withdrawals we may have missed show in the deal
            for seat in m.next_players():
                if seat not in ev.players and m.phase in ("between", "waiting"):
                    m, _evs = withdraw(m, seat)
        self._between = []
        self._m = m


def _withheld_reason(seats: Sequence[int]) -> str:
    """The round's reason (fixed words, translated; the seats are in ``withheld``)."""
    return ("a participant withheld its masked-deck audit: this round's deck order can not be "
            "recomputed, so its cards are not checked (the seed's commit-reveal is)")


def _void_reason(void: tuple[int | None, str] | None) -> str:
    """A void round's reason (fixed words, translated; the seat is in ``void``)."""
    if void is not None and void[1] == "no_answer":
        return "the round was void (a player missed a deadline): no score, nothing to replay"
    return "the round was void (a player was gone): no score, nothing to replay"



@lru_cache(maxsize=8)
def _cards_by_id(v: Variant) -> tuple[Card, ...]:
    """Every card of the variant, indexed by its FAIR_SHUFFLE.md id."""
    return tuple(card_from_id(i, v.n_decks, v.n_jokers) for i in range(v.deck_size))


def _infer(got: Sequence[E.Event], at: int, m: MatchState) -> A.Action | None:
    """The action that caused the events from ``got[at]`` (the first event names it)."""
    ev = got[at]
    if isinstance(ev, E.TimedOut):
        return A.Timeout(ev.seat)
    if isinstance(ev, E.StockRefilled):
        nxt = got[at + 1] if at + 1 < len(got) else None
        if isinstance(nxt, E.StockDrawn) and nxt.reason == "draw":
            return A.DrawStock(nxt.seat)
        return None
    if isinstance(ev, E.StockDrawn) and ev.reason == "draw":
        return A.DrawStock(ev.seat)
    if isinstance(ev, E.DiscardTaken):
        return A.DrawDiscard(ev.seat, ev.depth)
    if isinstance(ev, E.Melded):
        return A.LayDown(ev.seat, tuple(A.MeldSpec(md.cards, md.kind) for md in ev.melds))
    if isinstance(ev, E.LaidOff):
        end = None
        if ev.card.is_joker and ev.meld.kind == "run":
            end = "low" if ev.meld.cards[0] == ev.card else "high"
        return A.LayOff(ev.seat, ev.card, ev.target, end)  # type: ignore[arg-type]
    if isinstance(ev, E.JokerRecovered):
        return A.RecoverJoker(ev.seat, ev.target, ev.cards)
    if isinstance(ev, E.Discarded):
        return A.Discard(ev.seat, ev.card)
    if isinstance(ev, E.Knocked):
        return A.Knock(ev.seat)
    return None


def _action_key(action: A.Action) -> tuple[Any, ...]:
    """What identifies a move whatever the order its cards were given in."""
    if isinstance(action, A.LayDown):
        return ("lay_down", sorted(tuple(sorted(map(repr, md.cards))) for md in action.melds))
    if isinstance(action, A.LayOff):
        return ("lay_off", repr(action.card), action.target)
    if isinstance(action, A.RecoverJoker):
        return ("recover", action.target, tuple(sorted(map(repr, action.cards))))
    if isinstance(action, A.Discard):
        return ("discard", repr(action.card))
    if isinstance(action, A.DrawDiscard):
        return ("draw_discard", action.depth)
    return (type(action).__name__,)


def _claimed_after(m0: MatchState, started: E.RoundStarted, claim: E.RoundEnded) -> MatchState:
    """The match after a round we could not replay, from the host's public claims."""
    from rami_lan.core import match as M

    m = M._evolve(m0, round=None, round_no=m0.round_no + 1, dealer=started.dealer)
    m, _evs = M._score_round(m, claim)
    return m


def _cards_seen(events: Sequence[E.Event]) -> int:
    n = 0
    for ev in events:
        if isinstance(ev, E.CardsDealt) and ev.cards is not None:
            n += len(ev.cards)
        elif isinstance(ev, E.StockDrawn) and ev.card is not None:
            n += 1
        elif isinstance(ev, E.RoundStarted | E.Discarded):
            n += 1
    return n
