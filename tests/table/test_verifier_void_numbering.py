"""A round void before its deal uses up its number (lan2 e, found by the long chaos run,
private tables): a seat whose verifier had lost the match's continuity (relaunched, or
back after the host's restart) kept expecting that number for the next round, and failed
the next round honestly asked for under the next number ("the round tag is not the one
of table, match 1 and round 2", 5 of the 20 private seeds)."""

from __future__ import annotations

import os

from rami_lan.core import events as E
from rami_lan.table import verifier as V
from rami_lan.table.verify_spec import commitment, round_tag

TABLE = bytes.fromhex("fa206ffd5a67f2136d131f3e6a59fefa")
SEAT = 2


def _secrets(tag: bytes, seats: tuple[int, ...]) -> tuple[dict[int, bytes], dict[int, bytes]]:
    secrets = {s: os.urandom(32) for s in seats}
    return secrets, {s: commitment(tag, s, x) for s, x in secrets.items()}


def _void_before_the_deal(v: V.SeatVerifier, round_no: int, seq: int) -> None:
    tag = round_tag(TABLE, 1, round_no)
    secrets, commits = _secrets(tag, (0, 1, 2, 3))
    v.feed(V.CommitAsked(tag, SEAT))
    v.feed(V.CommitSent(tag, commits[SEAT], secrets[SEAT]))
    v.feed(V.CommitmentsSeen(tag, commits))
    v.feed(V.RevealSent(tag, secrets[SEAT]))
    v.feed(V.MaskedRoundSeen(tag))
    v.feed(V.EventsSeen(seq, (E.RoundVoided(round_no, 1, "player_gone"),)))
    v.feed(V.ViewSeen(seq, round_no, "waiting"))
    v.feed(V.SecretsSeen(tag, secrets))


def test_a_late_joiner_counts_a_round_void_before_its_deal() -> None:
    v = V.SeatVerifier(V.TableFacts(table_id=TABLE, match_no=1, variant="500", n_seats=4, seat=SEAT,
                                    host_seat=0, limit=500, quick=True, rejoin=True))
    tag1 = round_tag(TABLE, 1, 1)
    _s, commits = _secrets(tag1, (0, 1, 2, 3))
    v.feed(V.CommitmentsSeen(tag1, commits))  # a relaunched seat, back in round 1
    v.feed(V.MaskedRoundSeen(tag1))
    v.feed(V.ViewSeen(7, 1, "play"))
    v.feed(V.EventsSeen(8, (E.RoundVoided(1, None, "host_restarted"),)))
    v.feed(V.ViewSeen(9, 1, "waiting"))
    _void_before_the_deal(v, 2, 10)  # round 2 void during its shuffle
    v.feed(V.CommitAsked(round_tag(TABLE, 1, 3), SEAT))  # the host asks for round 3
    codes = [f.code for f in v.findings]
    assert "tag_wrong" not in codes, v.findings
    assert not v.failed, v.findings
    assert v.expected_tag() == round_tag(TABLE, 1, 3) or v.round(3) is not None
