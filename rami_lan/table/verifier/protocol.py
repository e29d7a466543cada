"""The verifier's checks of the commit-reveal protocol (FAIR_SHUFFLE.md steps 1-5): the
requests to commit, the commitment set and its exclusions, our reveal, the secrets at the
round's end, and a private round's masked-deck audit (its orders, faults and refusals).
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping, Sequence

from rami_lan.table.verifier.inputs import (
    CommitAsked,
    CommitmentsSeen,
    CommitSent,
    MaskedOrders,
    MaskedRefused,
    MaskedRoundSeen,
    RevealSent,
    SeatBenched,
    SecretsSeen,
)
from rami_lan.table.verifier.outputs import Status
from rami_lan.table.verifier.replay import Replay, _withheld_reason
from rami_lan.table.verifier.state import _MISSING_AUDIT, RELAUNCHED, _Round
from rami_lan.table.verify_spec import round_tag


class CommitReveal(Replay):
    """The commit-reveal checks, on top of the round's replay (`Replay`)."""

    def _close_unjudged(self) -> None:
        """The host moves on to another round: a finished round without secrets fails."""
        prev = self._cur
        if prev is None or not prev.started:
            return
        if self._gone_while_away(prev):
            return
        if prev.gap == RELAUNCHED and prev.status is Status.PENDING:
            # Relaunched after this round's end: its secrets may have gone to the dead
            # process. What we know of it (its start and end) continues the match.
            self._partial(prev, RELAUNCHED)
            self._continue_after(prev)
            return
        if prev.status is Status.PENDING:
            if prev.ended:
                self._fail(prev, "secrets_missing",
                           "the host moved on to the next round without this round's secrets")
            else:
                self._fail(prev, "round_abandoned_silently",
                           "the host moved on to a new round before this one ended")
        self._continue_after(prev)

    def _on_commit_asked(self, msg: CommitAsked) -> None:
        r = self._cur
        if r is not None and r.started and r.ended:
            self._close_unjudged()
            r = self._cur
        if r is not None and r.tag == msg.tag and r.asked and r.commits is None and not r.started:
            return  # a repeated request for the same round (we answer with the same commitment)
        if r is not None and r.started and not r.ended and self._gone_while_away(r):
            r = self._cur
        if r is not None and r.started and not r.ended:
            self._fail(r, "commit_mid_round",
                       "the host asked for a new commitment while the round was being played")
            return
        expected_no = self._next_round_no()
        r = self._open_round(expected_no)
        r.asked = True
        if msg.tag in self._tags and self._tags[msg.tag] != expected_no:
            self._fail(r, "tag_reused",
                       f"the host asked to commit again under the tag of round "
                       f"{self._tags[msg.tag]}: a tag is used for one round only",
                       expected=r.tag.hex(), seen=msg.tag.hex())
        elif msg.tag != r.tag:
            self._fail(r, "tag_wrong",
                       f"the round tag is not the one of table, match {self.facts.match_no} "
                       f"and round {expected_no}", expected=r.tag.hex(), seen=msg.tag.hex())
        elif r.commits is not None:
            self._fail(r, "round_restarted",
                       "the host asked for a second commitment for a round whose commitments "
                       "were already out (a restarted round)")
        if msg.seat != self.seat:
            self._fail(r, "commit_wrong_seat",
                       f"the host asked us to commit for seat {msg.seat}; we sit at seat "
                       f"{self.seat}", expected=self.seat, seen=msg.seat)

    def _on_commit_sent(self, msg: CommitSent) -> None:
        r = self._cur
        if r is None or r.tag != msg.tag:
            return
        r.commit, r.secret = bytes(msg.commit), bytes(msg.secret)
        self._tags[msg.tag] = r.round_no

    def _on_commitments(self, msg: CommitmentsSeen) -> None:
        commits = {int(k): bytes(v) for k, v in msg.commits.items()}
        r = self._cur
        if r is not None and r.started and not r.ended and r.gap and msg.tag != r.tag:
            self._gone_while_away(r)
        if r is not None and r.started and not r.ended:
            if r.commits is None and r.gap and msg.tag == r.tag:
                r.commits = commits  # joined mid-round: the state sent again
                return
            if msg.tag != r.tag or commits != r.commits:
                self._fail(r, "commitments_mid_round",
                           "a new commitment set arrived while the round was being played")
            elif msg.excluded and dict(msg.excluded) != r.announced:
                self._announce(r, msg.excluded)  # late: fails the round
            return  # the same list again (sent after a reconnect)
        known = self._tags.get(msg.tag)
        old = self._rounds.get(known) if known is not None else None
        if old is not None and old.started:
            if old.commits is None and (old.gap == RELAUNCHED or old.judged_before):
                # relaunched after its deal, or after its verdict (the host resends the list
                # of the round whose audit it awaits): the state sent again. Its verdict is
                # kept; a round dealt again under its tag is caught by the numbering.
                old.commits = commits
                return
            if old.commits == commits and (not msg.excluded or dict(msg.excluded) == old.announced):
                return  # the same list again (sent after a reconnect): nothing new
            self._close_unjudged()
            target = self._cur if self._cur is not None and not self._cur.started else None
            target = target or self._open_round(self._next_round_no())
            self._fail(target, "tag_reused",
                       f"a new commitment set arrived under the tag of round {known}: a tag "
                       "is used for one round only")
            return
        if (known is None
                and (r is None or (not r.started and r.commits is None)
                     or (r.started and r.ended and r.round_no < self._next_round_no() - 1))
                and self._next_round_no() > 1
                and self._next_round_no() - 1 not in self._rounds
                and msg.tag == round_tag(self.facts.table_id, self.facts.match_no,
                                         self._next_round_no() - 1)):
            return  # the last round's list again, a round over before we (re)joined: not ours to judge
        if r is None or r.tag != msg.tag or r.started:
            self._close_unjudged()
            expected_no = self._next_round_no()
            r = self._cur
            if r is None or r.round_no != expected_no or r.started:
                r = self._open_round(expected_no)
            if msg.tag != r.tag:
                self._fail(r, "tag_wrong",
                           f"the commitments' round tag is not the one of round {r.round_no}",
                           expected=r.tag.hex(), seen=msg.tag.hex())
                return
        if r.commits is not None:
            if commits != r.commits:
                self._fail(r, "round_restarted",
                           "a second, different commitment set for the same round tag "
                           "(a restarted round)")
                return
        else:
            r.commits = commits
            self._tags.setdefault(msg.tag, r.round_no)
            self._check_commit_set(r)
        if msg.excluded:
            self._announce(r, msg.excluded)

    def _check_commit_set(self, r: _Round) -> None:
        commits = r.commits or {}
        if self.facts.host_seat not in commits:
            self._fail(r, "host_not_committed",
                       f"the commitment set lacks the host's own (seat {self.facts.host_seat})")
        if self._no_secret_due() or not self._plays_next():
            return  # an observer, the host's own seat, or a seat out of the match
        if r.round_no in self._away and not r.asked:
            self._partial(r, "we were away when the round was set up: our secret is not in it")
            return
        if not r.asked:
            self._fail(r, "not_asked",
                       "the host never asked us to commit: the seed would be its secret alone")
        elif r.commit is None:
            return
        elif self.seat not in commits:
            self._fail(r, "own_commit_missing", "our commitment is missing from the host's list")
        elif not hmac.compare_digest(commits[self.seat], r.commit):
            self._fail(r, "own_commit_altered",
                       "the commitment listed for our seat is not the one we sent")

    def _announce(self, r: _Round, excluded: Mapping[int, str]) -> None:
        if r.started:
            self._fail(r, "late_exclusion",
                       "an exclusion was announced after the deal: the host could pick the deck")
            return
        for seat, why in excluded.items():
            seat = int(seat)
            if not isinstance(why, str) or not why.strip():
                self._fail(r, "exclusion_without_reason",
                           f"seat {seat} was excluded without a reason")
            if r.commits is not None and seat not in r.commits:
                self._fail(r, "exclusion_unknown_seat",
                           f"seat {seat} was excluded but never committed")
            r.announced[seat] = str(why)
            if seat == self.seat and r.round_no in self._away:
                self._partial(r, f"we were away: the host excluded our secret ({why})")
            elif seat == self.seat:
                self._fail(r, "own_excluded",
                           f"the host excluded our secret ({why}): the deck is not ours too")

    def _on_reveal_sent(self, msg: RevealSent) -> None:
        r = self._cur
        previous = [t for t, s in self._revealed.items() if s == msg.secret and t != msg.tag]
        if msg.tag in self._revealed or previous:
            target = r or self._open_round(self._next_round_no())
            self._fail(target, "secret_revealed_twice", "our secret went out a second time")
        self._revealed[msg.tag] = bytes(msg.secret)
        if r is not None and r.tag == msg.tag:
            r.revealed = True

    # ---- end of the round

    def _on_secrets(self, msg: SecretsSeen) -> None:
        r = self._cur
        if r is None or r.tag != msg.tag:
            if r is None or r.status is not Status.PENDING:
                return  # an old round's secrets sent again (after a reconnect)
            self._fail(r, "secrets_tag", "the round's secrets arrived under another round's tag")
            return
        if r.status not in (Status.PENDING, Status.PARTIAL) or r.judged:
            self._continue_after(r)
            return
        if r.masked and r.orders is None and not r.voided:
            r.deferred = msg  # the deck order comes with the masked deck's audit
            return
        r.judged = True
        self._judge(r, msg)
        self._continue_after(r)

    def _on_masked_round(self, msg: MaskedRoundSeen) -> None:
        self._masked_tags.add(bytes(msg.tag))  # (a round opened later learns it: `_open_round`)
        if msg.stand_in and self.seat != self.facts.host_seat:
            self._stand_in_tags.add(bytes(msg.tag))
        r = next((x for x in self._rounds.values() if x.tag == msg.tag), None)
        if r is not None:
            r.masked = True
            r.stand_in = r.stand_in or bytes(msg.tag) in self._stand_in_tags

    def _on_benched(self, msg: SeatBenched) -> None:
        """Every round from the first one not dealt yet is a stand-in round."""
        cur = self._cur
        first = 1 if cur is None else cur.round_no + (1 if cur.started else 0)
        self._stand_in_from = min(self._stand_in_from or first, first)
        for r in self._rounds.values():
            if r.round_no >= first:
                r.stand_in = True

    def _on_masked_orders(self, msg: MaskedOrders) -> None:
        r = next((x for x in self._rounds.values() if x.tag == msg.tag), None)
        if r is None or r.orders is not None:
            return
        r.masked = True
        n = self.variant.deck_size
        if r.voided:  # a participant is gone: its audit is missing, the rest must be right
            faults = tuple(f for f in msg.faults if not f.startswith("MISSING_AUDIT"))
            if faults:
                self._fail(r, "masked_audit", "the masked deck's audit found: " + "; ".join(faults[:4]))
            r.orders = {}
            return
        withheld = _withheld(msg.faults, self.facts.host_seat)
        faults = tuple(f for f in msg.faults if _withheld((f,), self.facts.host_seat) == ())
        whole = 0 in msg.orders and sorted(msg.orders[0]) == list(range(n))
        if whole:
            r.orders = {int(k): tuple(v) for k, v in msg.orders.items()}
            r.gen_decks = dict(msg.gen_decks)
        elif withheld and not faults:
            # Another participant withheld its audit (the host closed it at its deadline,
            # naming it): without its secrets nobody can recompute the deck. Not the
            # host's fault nor ours: the round is partly checked, the culprit named.
            r.withheld = withheld
            r.orders = {}
            self._partial(r, _withheld_reason(withheld))
        else:
            self._fail(r, "masked_audit", "the masked deck's audit gives no whole deck order")
            r.orders = {}
        if faults:
            self._fail(r, "masked_audit", "the masked deck's audit found: " + "; ".join(faults[:4]))
        deferred, r.deferred = r.deferred, None
        if deferred is not None:
            self._on_secrets(deferred)

    def _on_masked_refused(self, msg: MaskedRefused) -> None:
        r = self._rounds.get(self._tags[msg.tag]) if msg.tag in self._tags else None
        r = r or self._cur or self._open_round(self._next_round_no())
        self._fail(r, "masked_refused", f"the host's {msg.kind} asked this seat for what the rules do "
                   f"not give away now, or did not fit the game we saw: {msg.reason}; nothing was given",
                   seen=msg.kind)


def _withheld(faults: Sequence[str], host_seat: int) -> tuple[int, ...]:
    """The participants an audit names for a missing publication (``MISSING_AUDIT by seat
    N: ...``), the host's own seat left out: a host that withholds its own audit is not
    excused (its round fails, naming it)."""
    seats = set()
    for f in faults:
        if f.startswith(_MISSING_AUDIT):
            head = f[len(_MISSING_AUDIT):].split(":", 1)[0]
            if head.isdigit() and int(head) != host_seat:
                seats.add(int(head))
    return tuple(sorted(seats))
