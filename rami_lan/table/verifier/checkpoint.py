"""A seat's verifier across a relaunch: the checkpoint a seat keeps of what it established,
and the restore that lets a relaunched process of the same seat go on checking.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rami_lan.core import events as E
from rami_lan.core.errors import RulesError
from rami_lan.table.verifier.inputs import OBSERVER
from rami_lan.table.verifier.outputs import Status
from rami_lan.table.verifier.state import _GAP, RELAUNCHED, VerifierState, _Round
from rami_lan.table.verify_spec import round_tag


class Relaunch(VerifierState):
    """`checkpoint` and `restore`: what a relaunched process builds on."""

    def checkpoint_key(self) -> tuple[Any, ...]:
        """Changes whenever `checkpoint` would say something new (cheap: compared after
        every input, the checkpoint is written only when this changes)."""
        cur = self._cur
        return (len(self._rounds), self._done_for, self._lost != "",
                None if cur is None else (cur.round_no, cur.started, cur.ended, cur.judged,
                                          str(cur.status), cur.asked, cur.revealed,
                                          len(cur.events) > 1 and isinstance(cur.events[-1], E.RoundEnded)),
                tuple((n, str(r.status)) for n, r in self._rounds.items() if r.judged))

    def checkpoint(self) -> dict[str, Any] | None:
        """What this seat's verifier has established, for a relaunched process of the same
        seat (kept 0600 on the player's disk: `rami_lan.net.seats`): every judged round's
        verdict, the match as checked at the start of the round being played (or after
        the last one) with that round's ``RoundStarted`` (and ``RoundEnded``, once seen),
        and our own commit for it. JSON-able plain data; None when there is nothing a
        relaunch could build on (an observer, continuity already lost, no round yet)."""
        if self.seat == OBSERVER or self._lost:
            return None
        from rami_lan.core.codec import event_to_plain, match_to_plain

        cur = self._cur
        in_round = (cur is not None and cur.started and not cur.voided and cur.start_m is not None
                    and self._done_for != cur.round_no and bool(cur.events)
                    and isinstance(cur.events[0], E.RoundStarted))
        m = cur.start_m if in_round and cur is not None else self._m
        if m is not None and m.round is not None and m.round.phase == "over":
            m = replace(m, round=None)  # between rounds: the last round's end is in the totals
        if m is None or m.round is not None or (m.round_no == 0 and not in_round):
            return None
        done = [[r.round_no, r.tag.hex(), str(f.status), f.reason]
                for r, f in ((r, self._fairness(r)) for _, r in sorted(self._rounds.items()))
                if r.judged and (not in_round or r is not cur) and f.status is not Status.PENDING]
        out: dict[str, Any] = {"v": 1, "seat": self.seat, "match_no": self.facts.match_no,
                               "table_id": self.facts.table_id.hex(), "m": match_to_plain(m),
                               "done": done, "cur": None, "stand_in_from": self._stand_in_from}
        if in_round and cur is not None:
            evs = [cur.events[0]] + [e for e in cur.events[1:] if isinstance(e, E.RoundEnded)][:1]
            out["cur"] = {"round_no": cur.round_no, "tag": cur.tag.hex(),
                          "events": [event_to_plain(e, self.variant) for e in evs],
                          "asked": cur.asked, "revealed": cur.revealed,
                          "commit": None if cur.commit is None else cur.commit.hex(),
                          "secret": None if cur.secret is None else cur.secret.hex(),
                          "status": str(cur.status), "reason": cur.reason, "masked": cur.masked}
        return out

    def restore(self, cp: Any) -> bool:
        """A relaunched process of this seat: go on from ``cp`` (`checkpoint` of the dead
        one), before any input. The rounds it judged keep their verdicts; the match state
        it checked lets every later round be checked in full; the round being played is
        checked as far as a late joiner can (the commit-reveal, its deck against the
        cards seen, our own secret if it was kept), its events before the relaunch being
        unknown ("partly checked: we were relaunched during this round"). A checkpoint
        that is malformed, of another table, seat or match is refused (False)."""
        from rami_lan.core.codec import event_from_plain, match_from_plain

        if self._rounds or self._cur is not None or not isinstance(cp, dict) or cp.get("v") != 1:
            return False
        if (cp.get("seat") != self.seat or cp.get("match_no") != self.facts.match_no
                or cp.get("table_id") != self.facts.table_id.hex()):
            return False
        try:
            m = match_from_plain(cp["m"])
            if m.variant.id != self.variant.id or m.n_seats != self.facts.n_seats or m.round is not None:
                return False
            rounds: dict[int, _Round] = {}
            for no, tag_hex, status, reason in cp.get("done") or ():
                if type(no) is not int or not 1 <= no <= 1000 or no in rounds:
                    return False
                r = _Round(no, bytes.fromhex(tag_hex))
                r.status, r.reason = Status(status), str(reason)[:500]
                r.judged = r.started = r.ended = r.judged_before = True
                rounds[no] = r
            cur_plain = cp.get("cur")
            cur = None
            if cur_plain is not None:
                no = cur_plain["round_no"]
                evs = [event_from_plain(e, self.variant) for e in cur_plain["events"]]
                if (type(no) is not int or no in rounds or not evs or not isinstance(evs[0], E.RoundStarted)
                        or evs[0].round_no != no or m.round_no + 1 != no):
                    return False
                cur = _Round(no, bytes.fromhex(cur_plain["tag"]))
                if cur.tag != round_tag(self.facts.table_id, self.facts.match_no, no):
                    return False
                cur.started, cur.start_m, cur.events = True, m, evs
                cur.ended = any(isinstance(e, E.RoundEnded) for e in evs)
                cur.players = tuple(evs[0].players)
                cur.gap = RELAUNCHED
                cur.asked, cur.revealed = bool(cur_plain["asked"]), bool(cur_plain["revealed"])
                cur.masked = bool(cur_plain.get("masked"))
                if cur_plain.get("commit") is not None:
                    cur.commit = bytes.fromhex(cur_plain["commit"])
                if cur_plain.get("secret") is not None:
                    cur.secret = bytes.fromhex(cur_plain["secret"])
                if cur_plain.get("status") == str(Status.FAILED):  # a verdict is never undone
                    cur.status, cur.reason = Status.FAILED, str(cur_plain.get("reason", ""))[:500]
                rounds[no] = cur
            elif max(rounds, default=0) > m.round_no:
                return False
        except (KeyError, TypeError, ValueError, AttributeError, RulesError, IndexError) as exc:
            del exc
            return False
        except Exception:  # noqa: BLE001 - a damaged file must not stop the client
            return False
        self._rounds = rounds
        benched = cp.get("stand_in_from")
        if type(benched) is int and 1 <= benched <= 1000:
            self._stand_in_from = benched
        for r in rounds.values():
            self._tags[r.tag] = r.round_no
        self._m = m
        self._done_for = m.round_no
        if cur is not None:
            self._cur = cur
            self._away |= {cur.round_no, cur.round_no + 1}
        else:
            self._cur = rounds.get(max(rounds)) if rounds else None
            self._between = [_GAP]  # withdrawals we missed show in the next deal
            self._away |= {m.round_no + 1, m.round_no + 2}
        self.relaunched = True
        return True
