"""Every record verifies, whatever happened (issue 29, item 5): a host killed at any
moment and resumed from its journal (before a deal, during the masked shuffle,
mid-round, between rounds), a void round (a player gone for good mid-round or during
the shuffle, a restarted host that can not take a private round up), an eliminated or
withdrawn seat. The tables run in process (`record_tables.RecordingTable`: the machine,
its wire clients, no sockets); each record goes through `check_record` and `verify`.
"""

from __future__ import annotations

from typing import Any

import pytest
from masked_table import JournalRecord, masked_round
from record_tables import RecordingTable

from rami_lan.net.record import check_record, verify
from rami_lan.table.stage import Stage


def _verifies(t: RecordingTable) -> Any:
    rec = t.record
    check_record(rec)  # well formed: never exit 2
    report = verify(rec)
    assert report.ok, report.text()
    assert [r["round_no"] for r in rec["rounds"]] == list(range(1, t.machine.match.round_no + 1))
    return report


def _table(private: bool, limit: int = 50, **kw: Any) -> RecordingTable:
    return RecordingTable(variant="rami", seats=4, bots={3: "moyen"}, limit=limit, private=private, **kw)


MOMENTS = {
    "before a deal": lambda m: m.stage is Stage.COMMIT and m.match.round_no >= 1,
    "during the shuffle": lambda m: m.stage is Stage.SHUFFLE and m.match.round_no >= 1,
    "mid-round": lambda m: m.match.round is not None and m.match.round_no >= 1
    and m.match.phase in ("draw", "play") and m.match.round.turn_no >= 4,
    "after the round's end, its audit awaited": lambda m: m.match.round_no >= 1 and m.dealing.auditing
    and m.match.phase == "between",
    "between rounds": lambda m: m.stage is Stage.BETWEEN and not m.dealing.auditing,
}


@pytest.mark.parametrize("private", [False, True], ids=["plain", "private"])
@pytest.mark.parametrize("moment", list(MOMENTS))
def test_a_host_killed_at_any_moment_leaves_a_record_that_verifies(private: bool, moment: str) -> None:
    if moment in ("during the shuffle", "after the round's end, its audit awaited") and not private:
        pytest.skip("a plain round has no shuffle and no audit")
    t = _table(private, journal=True)
    t.start()
    t.run(until=lambda: MOMENTS[moment](t.machine))
    assert MOMENTS[moment](t.machine), f"the match ended before {moment}"
    t.crash_and_resume()
    t.run()
    _verifies(t)
    for c in t.clients.values():  # and every player's own verifier checked every round
        statuses = [(r.round_no, r.status, r.reason) for r in c.tracker.rounds()]
        assert all(s == "checked" for _, s, _ in statuses), statuses


def test_a_round_void_mid_round_is_a_well_formed_entry_verify_explains() -> None:
    t = _table(True)
    t.start()
    t.run(until=lambda: t.machine.match.round is not None and t.machine.match.round.turn_no >= 6)
    round_no = t.machine.match.round_no
    gone = t.drop(2)
    t.run()
    rnd = t.record["rounds"][round_no - 1]
    assert rnd["void"] == {"reason": "player_gone", "seat": gone.seat}
    assert rnd["events"][-1]["type"] == "RoundVoided" and rnd["n_cards"] == 110
    report = _verifies(t)
    assert any(n.startswith(f"round {round_no} void: a player holding hidden cards") for n in report.notes)


def test_a_round_void_during_the_shuffle_keeps_the_round_numbers() -> None:
    t = _table(True)
    t.start()
    t.run(until=lambda: t.machine.match.round_no == 1 and t.machine.stage is Stage.SHUFFLE
          and masked_round(t.machine) is not None and t.machine.masked_reports)
    t.drop(2)
    t.run()
    rec = t.record
    assert rec["rounds"][1]["void"]["reason"] == "player_gone"
    assert [e["type"] for e in rec["rounds"][1]["events"]] == ["RoundVoided"]
    report = _verifies(t)
    assert any(n.startswith("round 2 void:") for n in report.notes)


@pytest.mark.parametrize("when", ["mid-round", "during the shuffle"])
def test_a_host_killed_while_a_void_rounds_audit_is_awaited_leaves_a_record_that_verifies(
        when: str) -> None:
    """Issue 29 (private chaos): the void round's entry is written with the void, not
    with its audit; a host killed before that audit came in resumed and closed the entry
    empty (no events, no void), and `verify` refused the whole record."""
    t = _table(True, journal=True)
    t.start()
    if when == "mid-round":
        t.run(until=lambda: t.machine.match.round is not None and t.machine.match.round.turn_no >= 6)
    else:
        t.run(until=lambda: t.machine.match.round_no == 1 and t.machine.stage is Stage.SHUFFLE
              and masked_round(t.machine) is not None and t.machine.masked_reports)
    t.drop(2)

    def void_audit_awaited() -> bool:
        audit = getattr(t.machine.dealing, "audit", None)
        return audit is not None and audit.void

    t.run(until=void_audit_awaited)
    assert void_audit_awaited(), "no void round's audit to wait for"
    void_no = t.machine.match.round_no
    t.crash_and_resume()
    t.run()
    rnd = t.record["rounds"][void_no - 1]
    assert rnd["void"]["reason"] == "player_gone" and rnd["events"][-1]["type"] == "RoundVoided"
    report = _verifies(t)
    assert any(n.startswith(f"round {void_no} void:") for n in report.notes)


def test_a_private_round_a_restarted_host_can_not_take_up_is_void_in_the_record() -> None:
    t = _table(True, journal=True)
    t.start()
    t.run(until=lambda: t.machine.match.round is not None and t.machine.match.round_no == 2
          and t.machine.match.round.turn_no >= 4)
    t.journal_records = [JournalRecord(r.kind, {**r.body, "match": None}) if r.kind == "private" else r
                         for r in t.journal_records]
    t.crash_and_resume()
    t.run()
    rnd = t.record["rounds"][1]
    assert rnd["void"] == {"reason": "host_restarted", "seat": None}
    report = _verifies(t)
    assert any(n.startswith("round 2 void: the host restarted") for n in report.notes)


def test_a_record_with_a_void_round_replays(tmp_path: Any) -> None:
    """`rami-lan replay` steps over a void round: its number is used, nothing of it
    counts, the next round is dealt as recorded."""
    import json

    from rami_lan.cli.cmd_replay import load_replay

    t = _table(True)
    t.start()
    t.run(until=lambda: t.machine.match.round is not None and t.machine.match.round.turn_no >= 6)
    round_no = t.machine.match.round_no
    t.drop(2)
    t.run()
    path = tmp_path / "void.json"
    path.write_text(json.dumps(t.record))
    replay, host = load_replay(path)
    assert host and replay.n_rounds == t.machine.match.round_no - 1  # the void one is not dealt
    assert replay.final_state.totals == t.machine.match.totals
    after = replay.state_at(replay.round_start(round_no))  # the round after the void one
    assert after.round_no == round_no + 1


@pytest.mark.parametrize("private", [False, True], ids=["plain", "private"])
def test_eliminated_seats_leave_a_record_that_verifies(private: bool) -> None:
    t = _table(private, limit=100)  # a longer match: seats reach the limit, are eliminated
    t.start()
    t.run()
    rec = t.record
    assert any(e["type"] == "PlayersEliminated" for r in rec["rounds"] for e in r["events"])
    _verifies(t)


def test_a_hand_over_to_the_host_bot_leaves_a_record_that_verifies() -> None:
    t = _table(True)
    t.start()
    t.run(until=lambda: t.machine.match.round is not None and t.machine.match.round.turn_no >= 6)
    t.leave(2)  # the player quits: its client hands its hand over, the host's bot plays on
    t.run()
    assert any(b == "bot" for r in t.record["rounds"] for b in r.get("played_by", ()))
    _verifies(t)
