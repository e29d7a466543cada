"""The chaos test, short form (issue 29 item 7; the long one is ``benchmarks/chaos.py``).

Real ``rami-lan`` processes on 127.0.0.1 (the host with its own player, two ``join --bot``
players, a bot of the host), disturbed by a seeded schedule of kills, hang-ups and
stops with restarts, the host resumed from its journal. Each match must finish with
totals that add up, no round void without a departure, nobody named for a crash, honest
fairness verdicts, a record ``rami-lan verify`` accepts, no traceback anywhere and no
journal left (`tests/chaos.py` says what each check means).

Kept here to what passes today (docs/testing.md lists what the long run still finds):
the plain table takes every kind of event on every participant (as root, the host and
each player in a network namespace of its own, on a bridge); the private table takes
everyone's stops, the host's included (it was an expected failure until the host's
deadlines stopped counting its own pauses: `rami_lan/net/awake_clock.py`). The long
run takes kills and hang-ups at private tables too.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from chaos import ChaosConfig, ChaosResult, Event, Proc, run_match

CASES = {
    "plain": ChaosConfig(seed=25, private=False, events=5, timer=1, gap=(0.3, 1.0), across=True),
    "private-stops": ChaosConfig(seed=8, private=True, events=4, timer=1, gap=(0.3, 1.0),
                                 kinds=("stop",), timeout=120.0),
}
KNOWN_BUGS: dict[str, str] = {}
"""Cases that still find a bug: run, reported as xfail / xpass, never hidden."""


@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.xfail(reason=KNOWN_BUGS[c], strict=False))
                                  if c in KNOWN_BUGS else c for c in sorted(CASES)])
def test_a_match_survives_chaos(case: str, tmp_path: Path) -> None:
    cfg = CASES[case]
    res = run_match(cfg, tmp_path)
    report = [e.to_plain() for e in res.events]
    assert res.events, "no event happened: the match ended first"
    problems = res.problems()
    assert not problems, "\n".join([*problems, "events:", *map(str, report)])  # each problem whole
    assert res.finished and res.verify_rc == 0
    played = len(res.rounds()) - len(res.void_rounds())
    assert played >= 1, report


# ------------------------------------------------------------ the checks can fail


def _result(tmp_path: Path, **record: object) -> ChaosResult:
    rounds = [{"round_no": 1, "events": [{"type": "RoundEnded", "scores": [[0, 10], [1, 0]]}]},
              {"round_no": 2, "events": [{"type": "RoundEnded", "scores": [[0, 5], [1, 7]]}]}]
    plain = {"rounds": rounds, "result": {"totals": {"0": 15, "1": 7}}, **record}
    res = ChaosResult(ChaosConfig(seed=0), tmp_path, finished=True, record=plain, verify_rc=0)
    res.exits = {"host": 0, "p1": 0, "p2": 0}
    return res


def test_the_checks_pass_a_good_match_and_name_each_broken_promise(tmp_path: Path) -> None:
    assert _result(tmp_path).problems() == []
    wrong = _result(tmp_path, result={"totals": {"0": 15, "1": 8}})
    assert any("totals do not add up" in p for p in wrong.problems())
    void = _result(tmp_path)
    void.rounds()[1]["abandoned"] = True
    void.rounds()[1]["events"] = [{"type": "RoundVoided", "round_no": 2, "seat": 1, "reason": "x"}]
    assert any("void at a plain table" in p for p in void.problems())
    assert any("nobody was disturbed" in p for p in void.problems())
    assert any("names no departure: 'x'" in p for p in void.problems())
    void.rounds()[1]["events"][0]["reason"] = "player_gone"
    void.events.append(Event("stop", "host", 1.0, 2))
    assert any("naming seat 2, which was not disturbed" in p for p in void.problems())
    bad = _result(tmp_path)
    bad.verify_rc = 1
    (tmp_path / "p1.1.out").write_text("Round 1: fairness check FAILED: named: Bruno\n"
                                       "Traceback (most recent call last):\n")
    bad.procs.append(Proc("p1", None, tmp_path / "p1.1.out", 0.0))  # type: ignore[arg-type]
    found = bad.problems()
    assert any("verify exited 1" in p for p in found)
    assert any("accuses someone" in p for p in found)
    assert any("traceback in p1.1.out" in p for p in found)
    (tmp_path / "host" / "cfg" / "tables").mkdir(parents=True)
    (tmp_path / "host" / "cfg" / "tables" / "x.journal").write_text("")
    assert any("journal is still there" in p for p in _result(tmp_path).problems())


def test_an_unchecked_round_is_honest_only_where_that_player_was_disturbed(tmp_path: Path) -> None:
    res = _result(tmp_path)
    res.exits["p1"] = 5
    (tmp_path / "p1.1.out").write_text("Round 2: not checked: the session ended first\n")
    res.procs.append(Proc("p1", None, tmp_path / "p1.1.out", 0.0))  # type: ignore[arg-type]
    assert any("unchecked though nothing happened" in p for p in res.problems())
    res.events.append(Event("kill", "p1", 3.0, 2))
    assert res.problems() == []


def test_a_stop_that_lasts_across_rounds_disturbs_each_round_it_spans(tmp_path: Path) -> None:
    """The short private case's one failure under load: p1 stopped when the driver still
    read round 1; rounds 2 and 3 were dealt and voided, naming p1, before it ran again."""
    res = _result(tmp_path)
    res.config = ChaosConfig(seed=0, private=True)
    (tmp_path / "p1.1.out").write_text("Seated at seat 2; a bot (moyen) plays.\n")
    res.procs.append(Proc("p1", None, tmp_path / "p1.1.out", 0.0))  # type: ignore[arg-type]
    res.record["rounds"].append({"round_no": 3, "abandoned": True, "events": [
        {"type": "RoundVoided", "round_no": 3, "seat": 1, "reason": "no_answer"}]})
    stop = Event("stop", "p1", 10.5, 1)
    res.events.append(stop)
    assert any("round 3 is void though nobody" in p for p in res.problems())
    stop.round_end = 3  # the driver read round 3 once p1 was running again
    assert res.problems() == []
    assert stop.rounds() == {0, 1, 2, 3, 4}
    assert Event("kill", "p2", 1.0, 2).rounds() == {1, 2, 3}
