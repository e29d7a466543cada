"""Private dealing, the seat's verdicts (issue 24, items 4 and 5): an honest player never
fails a round because of another participant's fault.

- a participant that withholds its masked-deck audit (the host closes the audit at its
  deadline, naming it ``MISSING_AUDIT``) leaves the round *partly checked*, the culprit
  named, never "failed" naming the host, and ``join --bot`` does not exit with the
  failure status (3);
- the host's own missing audit is not excused: that round fails;
- a well-formed void round reads as void with its reason (the culprit left, or missed a
  deadline while still connected), in the log line and the fairness line, in English
  and in French.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from test_private_deal_liveness import NoAudit, NoKeys, _play

from rami_lan import i18n
from rami_lan.cli.cmd_join import fairness_summary
from rami_lan.cli.messages import fairness_details
from rami_lan.cli.ui.describe import describe
from rami_lan.core import events as E
from rami_lan.net.fairness import FairnessRound
from rami_lan.table import verifier as V

NAMES = {0: "Ana", 1: "Bruno", 2: "Chloé", 3: "Dan"}


@pytest.fixture(autouse=True)
def _english() -> Any:
    i18n.set_language("en")
    yield
    i18n.set_language("en")


def _verifier() -> tuple[V.SeatVerifier, bytes]:
    v = V.SeatVerifier(V.TableFacts(table_id=b"t" * 16, match_no=1, variant="rami", n_seats=4, seat=2))
    r = v._open_round(1)
    v.feed(V.MaskedRoundSeen(r.tag))
    return v, r.tag


def test_a_missing_audit_of_another_participant_is_partial_naming_it() -> None:
    v, tag = _verifier()
    v.feed(V.MaskedOrders(tag, {}, {}, ("MISSING_AUDIT by seat 1: seat 1 published no audit",)))
    (r,) = v.rounds()
    assert r.status is V.Status.PARTIAL and r.withheld == (1,), (r.status, r.reason)
    assert not r.findings and not v.failed


def test_the_hosts_own_missing_audit_still_fails_the_round() -> None:
    v, tag = _verifier()
    v.feed(V.MaskedOrders(tag, {}, {}, ("MISSING_AUDIT by seat 255: seat 255 published no audit",)))
    (r,) = v.rounds()
    assert r.status is V.Status.FAILED and r.withheld == ()


def test_a_missing_audit_beside_a_real_fault_still_fails_the_round() -> None:
    v, tag = _verifier()
    v.feed(V.MaskedOrders(tag, {}, {}, ("MISSING_AUDIT by seat 1: seat 1 published no audit",
                                        "BAD_MASK by seat 0: mask pass output does not follow")))
    (r,) = v.rounds()
    assert r.status is V.Status.FAILED and any("BAD_MASK" in f.reason for f in r.findings)


def test_a_withheld_audit_leaves_honest_clients_partial_naming_the_withholder(tmp_path: Any) -> None:
    """End to end (headless host, wire clients): the withholder's rounds are partial for
    every honest client, its seat named; no round fails; ``join --bot`` exits 5 (not
    fully checked), not 3 (a round FAILED)."""
    t, g = _play(NoAudit, tmp_path)
    struck = t.machine.standing.strikes[g.seat]
    assert struck
    for c in t.clients.values():
        if c is g:
            continue
        rounds = c.tracker.rounds()
        assert all(r.status != "failed" for r in rounds), [(r.round_no, r.reason) for r in rounds]
        for r in rounds:
            if r.round_no in struck:
                assert r.status == "partial" and r.withheld == (g.seat,), (r.round_no, r.status, r.reason)
                line = fairness_details(r, NAMES)
                assert NAMES[g.seat] in line and "FAILED" not in line and "host" not in line, line
        session = SimpleNamespace(fairness_rounds=lambda c=c: [r for r in c.tracker.rounds()
                                                                 if r.status != "pending"])
        assert fairness_summary(session, SimpleNamespace(fairness=[], finished=True)) == 5


def test_a_void_for_a_connected_culprit_reads_late_not_gone(tmp_path: Any) -> None:
    """The key-withholding griefer is still connected: its rounds are void "no_answer";
    every honest client checks them as void, naming it, and no log line says "gone"."""
    t, g = _play(NoKeys, tmp_path)
    for c in t.clients.values():
        if c is g or c.seat is None:
            continue
        voids = [r for r in c.tracker.rounds() if r.void is not None]
        assert voids and all(r.status == "checked" and r.void == (g.seat, "no_answer") for r in voids)
        for r in voids:
            line = fairness_details(r, NAMES)
            assert "void" in line and "did not answer in time" in line and NAMES[g.seat] in line, line
        events = [e for e in c.pending + c.events if isinstance(e, E.RoundVoided)]
        assert events
        for e in events:
            line = describe(e, c.seat, lambda s: NAMES.get(s, "?")) or ""
            assert "did not answer in time" in line and "gone" not in line, line


@pytest.mark.parametrize("lang, late, gone", [
    ("en", "did not answer in time", "is gone"),
    ("fr", "n'a pas répondu à temps", "est parti"),
])
def test_the_void_line_follows_its_reason_in_both_languages(lang: str, late: str, gone: str) -> None:
    i18n.set_language(lang)
    name = NAMES.__getitem__
    assert late in describe(E.RoundVoided(2, 1, "no_answer"), 0, name)
    assert gone not in describe(E.RoundVoided(2, 1, "no_answer"), 0, name)
    assert gone in describe(E.RoundVoided(2, 1, "player_gone"), 0, name)
    mine = describe(E.RoundVoided(2, 0, "no_answer"), 0, name)
    assert "Ana" not in mine
    fr = FairnessRound(round_no=2, status="checked", reason="", void=(1, "no_answer"))
    assert late in fairness_details(fr, NAMES) and "Bruno" in fairness_details(fr, NAMES)
    fr = FairnessRound(round_no=2, status="partial", reason="", withheld=(1,))
    assert "Bruno" in fairness_details(fr, NAMES)



def test_a_void_for_a_missed_deadline_is_a_record_verify_accepts() -> None:
    """The host voids a round ``no_answer`` (its culprit still connected): the match
    record's void entry is well formed (it was refused as an unknown reason) and
    ``verify`` explains it."""
    from record_tables import RecordingTable
    from test_private_deal_liveness import GRIEFER

    from rami_lan.net.record import check_record, verify

    t = RecordingTable(variant="rami", seats=4, bots={3: "moyen"}, limit=50, private=True)
    g = t.clients[GRIEFER]
    t.clients[GRIEFER] = NoKeys(t, GRIEFER, g.nick, g.level, g.seed)
    t.start()
    t.run(until=lambda: t.machine.match.round_no >= 2)
    rec = t.record
    voids = [r["void"] for r in rec["rounds"] if r.get("void")]
    assert voids and all(v["reason"] == "no_answer" for v in voids), voids
    check_record(rec)
    report = verify(rec)
    assert report.ok, report.text()
    assert any("missed its deadline" in n for n in report.notes), report.notes


@pytest.mark.parametrize("lang, late, gone", [
    ("en", "did not answer in time", "is gone"),
    ("fr", "n'a pas répondu à temps", "n'est plus là"),
])
def test_the_void_notice_says_left_or_late_by_its_data(lang: str, late: str, gone: str) -> None:
    from rami_lan.cli.messages import notice_text
    from rami_lan.net.notices import Notice, NoticeCode

    i18n.set_language(lang)
    code = NoticeCode.PRIVATE_ROUND_VOID
    text = notice_text(Notice.of(code, seat=1, left=False), NAMES)
    assert late in text and gone not in text and "Bruno" in text, text
    assert gone in notice_text(Notice.of(code, seat=1, left=True), NAMES)
    assert gone in notice_text(Notice.of(code, seat=1), NAMES)  # an older host: no ``left``


def test_the_host_says_whether_a_void_rounds_culprit_left(tmp_path: Any) -> None:
    t, g = _play(NoKeys, tmp_path)
    voids = [d for c, d in t.machine.notices if c == "private_round_void"]
    assert voids and all(d["seat"] == g.seat and d["left"] is False for d in voids), voids
