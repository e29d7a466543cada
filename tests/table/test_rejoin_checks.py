"""A relaunched client keeps checking (issue 29 item 1, lan2 a): what the seat's verifier
has checked is kept beside the seat file (``seats/<table id>.checks``, 0600), so a client
killed mid-round and relaunched goes on from it: every round the dead process judged
keeps its verdict, every later round is checked in full, the round it came back in is
checked as far as it can be (its commit-reveal and the cards it saw), and ``join`` exits
0 when everything it could check passed. Before, every later round read "only partly
checked: match continuity lost" and ``join`` exited 5 (the same test without the file).
Real processes on loopback; the verifier's checkpoint is also attacked in-process."""

from __future__ import annotations

import asyncio
import json
import signal
import stat
from pathlib import Path
from typing import Any

import pytest
from aio_helpers import read_host_port, run, start_host_process
from test_rejoin_crash import _env, _join, _line

from rami_lan.table import verifier as V


async def _mid_round_2(folder: Path, proc: Any) -> list[Path]:
    """Wait until the first process has judged round 1 and plays round 2 (its checkpoint
    says so), then return the checkpoint files."""
    loop = asyncio.get_running_loop()
    end = loop.time() + 90
    while loop.time() < end:
        assert proc.poll() is None, "the match ended before round 2"
        for f in folder.glob("*.checks"):
            try:
                cp = json.loads(f.read_text())
            except (OSError, ValueError):
                continue
            if cp.get("done") and (cp.get("cur") or {}).get("round_no") == 2:
                return [f]
        await asyncio.sleep(0.01)
    raise AssertionError("round 2 never began")


async def _kill_and_relaunch(tmp_path: Path, keep_checks: bool) -> dict[str, Any]:
    host = start_host_process(_env(tmp_path / "host"), "--name", "Checks", "--seats", "2",
                              "--variant", "500", "--quick", "--no-private-deal", "--no-advertise",
                              "--interface", "127.0.0.1", "--away-delay", "30", "--bot-delay", "0.05")
    procs = []
    try:
        port = await read_host_port(host)
        ana, ben = tmp_path / "ana", tmp_path / "ben"
        a = _join(ana, port, "--bot-delay", "0.05")
        procs.append(a)
        await _line(a, "Seated at seat", 20)
        b = _join(ben, port, "--bot-delay", "0.05")
        procs.append(b)
        await _line(b, "Seated at seat", 20)
        checks = await _mid_round_2(ana / "data" / "seats", a)
        mode = stat.S_IMODE(checks[0].stat().st_mode) if checks else None
        a.send_signal(signal.SIGKILL)
        a.wait(10)
        if not keep_checks:
            for f in checks:
                f.unlink()
        again = _join(ana, port, "--bot-delay", "0.05")
        procs.append(again)
        await _line(again, "Back in your seat", 10)
        loop = asyncio.get_running_loop()
        out, err = await loop.run_in_executor(None, lambda: again.communicate(timeout=240))
        await loop.run_in_executor(None, lambda: b.wait(60))
        return {"mode": mode, "status": again.returncode, "out": out, "err": err,
                "left": list((ana / "data" / "seats").glob("*"))}
    finally:
        for p in [*procs, host]:
            if p.poll() is None:
                p.kill()
            p.communicate(timeout=10)


def test_a_relaunched_client_checks_every_later_round_and_exits_0(tmp_path: Path) -> None:
    got = run(_kill_and_relaunch(tmp_path, keep_checks=True), 300)
    out = got["out"]
    assert got["mode"] == 0o600, got
    assert "continuity lost" not in out, out
    assert "FAILED" not in out, out
    assert "Fairness checks passed" in out, out
    assert got["status"] == 0, (got["status"], out, got["err"][-2000:])
    # round 1 (judged by the dead process) and round 3 (after the relaunch) in full; round
    # 2, the one it came back in, as far as a relaunched seat can
    import re

    counted = re.search(r"Rounds checked: (\d+) of (\d+)", out)
    assert counted and int(counted[1]) == int(counted[2]) - 1 >= 2, out
    assert "Round 2: only partly checked: we were relaunched during this round" in out, out
    assert [p.name for p in got["left"] if p.suffix in (".json", ".checks", ".keys")] == []


def test_without_the_checkpoint_later_rounds_are_only_partly_checked(tmp_path: Path) -> None:
    """The same crash with the checkpoint removed: what it brings (exit 5 without it)."""
    got = run(_kill_and_relaunch(tmp_path, keep_checks=False), 300)
    assert got["status"] == 5, (got["status"], got["out"])
    assert "continuity lost" in got["out"]


# ---------------------------------------------------------------------- in-process


def _facts(seat: int = 0, match_no: int = 1, table: bytes = b"\x01" * 8) -> V.TableFacts:
    return V.TableFacts(table_id=table, match_no=match_no, variant="rami", n_seats=2, seat=seat,
                        rejoin=True)


def _checkpoint() -> dict[str, Any]:
    from dataclasses import replace

    from rami_lan.core.codec import match_to_plain
    from rami_lan.core.match import MatchOptions, new_match
    from rami_lan.core.variants import get_variant

    m = replace(new_match(get_variant("rami"), 2, MatchOptions(None, False, False)), round_no=1)
    tag = V.round_tag(b"\x01" * 8, 1, 1)
    return {"v": 1, "seat": 0, "match_no": 1, "table_id": ("01" * 8), "m": match_to_plain(m),
            "done": [[1, tag.hex(), "checked", ""]], "cur": None}


@pytest.mark.parametrize("change", [
    {"seat": 1}, {"match_no": 2}, {"table_id": "02" * 8}, {"v": 2}, {"m": {"snapshot": 99}},
    {"done": [[1, "zz", "checked", ""]]}, {"done": [[1, "00", "nonsense", ""]]},
    {"cur": {"round_no": 2, "tag": "00", "events": []}}, {"done": "x"}, {"m": None},
])
def test_a_checkpoint_of_another_seat_match_or_table_or_malformed_is_refused(change: dict[str, Any]) -> None:
    """A checkpoint that is not this seat's (another seat, match or table: a swapped or
    planted file) or is malformed is refused: the verifier starts as a late joiner,
    never trusting it, and no exception escapes."""
    good = _checkpoint()
    assert V.SeatVerifier(_facts()).restore(good)
    v = V.SeatVerifier(_facts())
    assert not v.restore({**good, **change})
    assert v.rounds() == () and not v.relaunched


def test_a_restored_verdict_is_kept_and_a_failed_one_is_never_undone() -> None:
    v = V.SeatVerifier(_facts())
    cp = _checkpoint()
    cp["done"] = [[1, cp["done"][0][1], "failed", "the card at stock position 3 is 5h"]]
    assert v.restore(cp)
    assert [r.status for r in v.rounds()] == [V.Status.FAILED]
    assert v.failed


def test_a_relaunched_verifier_takes_the_list_of_a_round_it_judged_as_a_resend() -> None:
    """Issue 29 (private chaos): a host restarted while a void round's audit was awaited
    sends that round's commitment list again to a client relaunched after its verdict;
    the checkpoint holds no list, and the restored verifier read it as "a new commitment
    set arrived under the tag of round 1". It is the state sent again: the verdict stays,
    nothing fails. A list under that tag once more, but different, is still caught."""
    from dataclasses import replace

    tag = V.round_tag(b"\x01" * 8, 1, 1)
    v = V.SeatVerifier(replace(_facts(), rejoin=False))  # (no view to wait for first)
    assert v.restore(_checkpoint())
    commits = {0: b"\x11" * 32, 1: b"\x22" * 32}
    assert v.feed(V.CommitmentsSeen(tag, commits)) == []
    assert v.feed(V.CommitmentsSeen(tag, commits)) == []  # and again
    assert [r.status for r in v.rounds()] == [V.Status.CHECKED] and not v.failed
    found = v.feed(V.CommitmentsSeen(tag, {0: b"\x11" * 32, 1: b"\x33" * 32}))
    assert [f.code for f in found] == ["tag_reused"]


def _mid_round_1_checkpoint(seat: int = 1) -> dict[str, Any]:
    """The checkpoint a seat writes while round 1 of a private 3-seat match is played."""
    from rami_lan.core.codec import event_to_plain, match_to_plain
    from rami_lan.core.match import MatchOptions, new_match, start_round
    from rami_lan.core.variants import get_variant
    from rami_lan.table.verifier.replay import _cards_by_id

    v = get_variant("rami")
    m0 = new_match(v, 3, MatchOptions(None, False, False))
    _m1, evs = start_round(m0, list(_cards_by_id(v)), b"\x05" * 32)
    tag = V.round_tag(b"\x01" * 8, 1, 1)
    return {"v": 1, "seat": seat, "match_no": 1, "table_id": "01" * 8, "m": match_to_plain(m0),
            "done": [], "stand_in_from": None,
            "cur": {"round_no": 1, "tag": tag.hex(), "events": [event_to_plain(evs[0], v)],
                    "asked": True, "revealed": True, "commit": "aa" * 32, "secret": "bb" * 32,
                    "status": "pending", "reason": "", "masked": True}}


def test_a_verifier_relaunched_across_two_voids_takes_the_void_rounds_list_as_a_resend() -> None:
    """Issue 29 (private chaos, seed 6): killed in round 1 and relaunched while the host
    voided round 1 and then round 2 during its shuffle (a player did not answer). On the
    reconnect the host sent round 2's commitment list and its ``mk_own``, then the first
    view, which already shows round 2 void (round 2, no round in play). The restored
    verifier numbered the next round from that view (3) and read round 2's list as
    "the commitments' round tag is not the one of round 3": an honest host accused.
    The list is of a round over before we were back: not ours to judge; round 3 is
    checked as the next one, and a list under a wrong tag is still caught."""
    from dataclasses import replace

    facts = replace(_facts(seat=1), n_seats=3, host_seat=0)
    v = V.SeatVerifier(facts)
    assert v.restore(_mid_round_1_checkpoint())
    tag = lambda n: V.round_tag(b"\x01" * 8, 1, n)  # noqa: E731
    commits = {0: b"\x11" * 32, 2: b"\x22" * 32}
    found = v.feed_all([V.CommitmentsSeen(tag(2), commits), V.MaskedRoundSeen(tag(2), stand_in=True),
                        V.ViewSeen(27, 2, "waiting")])
    assert found == [] and not v.failed
    assert v.feed(V.CommitmentsSeen(tag(3), {0: b"\x33" * 32, 2: b"\x44" * 32})) == []
    assert not v.failed
    wrong = v.feed(V.CommitmentsSeen(tag(5), {0: b"\x55" * 32, 2: b"\x66" * 32}))
    assert [f.code for f in wrong] == ["tag_wrong"] and v.failed


def test_a_players_list_before_the_first_view_does_not_start_a_relaunched_verifier_early() -> None:
    """Issue 29 (private chaos, seed 9): a player relaunched during round 2's shuffle
    with no checkpoint (killed before round 1 was dealt) got, before its first view,
    round 2's commitment list, its ``mk_own`` and an events message holding only the
    table's players list (a notice). That notice was taken for "no view will come" and
    the list judged as round 1's: "the commitments' round tag is not the one of round 1",
    an honest host accused. A notice waits for the view like the resends do."""
    from dataclasses import replace

    facts = replace(_facts(seat=1), n_seats=3, host_seat=0)
    v = V.SeatVerifier(facts)
    tag = lambda n: V.round_tag(b"\x01" * 8, 1, n)  # noqa: E731
    found = v.feed_all([V.CommitmentsSeen(tag(2), {0: b"\x11" * 32, 2: b"\x22" * 32}),
                        V.MaskedRoundSeen(tag(2), stand_in=True),
                        V.EventsSeen(54, ()),  # the players list: no game event
                        V.ViewSeen(54, 1, "waiting")])  # round 1 void: round 2 is being set up
    assert found == [] and not v.failed
    assert [r.round_no for r in v.rounds()] == [2]
