"""`rami-lan verify` checks every mask and lock step and every recorded key (issue 24,
item 8), as docs/fair_shuffle.md says: a private record tampered in exactly one place is
refused, naming what was changed. The three kinds that used to pass (each deck was
checked end to end only): an intermediate mask step, an intermediate lock step, and a
wrong key inside a recorded reveal; and the kinds caught before, as a guard.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import msgpack
import pytest
from record_tables import RecordingTable

from rami_lan.cli.main import main
from rami_lan.masked.group import GROUP_ORDER
from rami_lan.net.record import verify

pytestmark = pytest.mark.usefixtures("isolated_config")


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    """A private round of three remote players and the host (deck order 0, 1, 2, 255)."""
    t = RecordingTable(variant="rami", seats=3, limit=1, private=True)
    t.start()
    t.run()
    rec = t.record
    assert rec["rounds"][0]["masked"]["decks"][0][2] == [0, 1, 2, 255]
    return rec


def _edit(record: dict[str, Any], kind: str, seat: int, change: Any) -> dict[str, Any]:
    """The record with the first recorded masked message ``kind`` of ``seat`` changed."""
    bad = copy.deepcopy(record)
    msgs = bad["rounds"][0]["masked"]["messages"]
    for k, h in enumerate(msgs):
        plain = msgpack.unpackb(bytes.fromhex(h), raw=False)
        if plain["k"] == kind and plain.get("seat") == seat:
            change(plain)
            msgs[k] = msgpack.packb(plain, use_bin_type=True).hex()
            return bad
    raise AssertionError(f"no {kind} of seat {seat}")


def _swap_points(plain: dict[str, Any]) -> None:
    plain["points"][0], plain["points"][1] = plain["points"][1], plain["points"][0]


def _other_key(plain: dict[str, Any]) -> None:
    seat, key = plain["keys"][0]
    # another valid scalar: key + 1 (mod the group order)
    value = (int.from_bytes(key, "little") + 1) % GROUP_ORDER
    plain["keys"][0] = [seat, value.to_bytes(32, "little")]


def _fails(record: dict[str, Any], words: str) -> None:
    report = verify(record)
    assert not report.ok and not report.invalid, report.text()
    assert any(words in p for p in report.problems), report.text()


def test_the_untouched_record_verifies(record: dict[str, Any]) -> None:
    assert verify(record).ok


def test_an_intermediate_mask_step_is_checked(record: dict[str, Any]) -> None:
    # Seat 0 shuffles first: its output was changed, the last output left as it was.
    _fails(_edit(record, "mk_mask", 0, _swap_points), "BAD_MASK by seat 0")


def test_an_intermediate_lock_step_is_checked(record: dict[str, Any]) -> None:
    _fails(_edit(record, "mk_lock", 1, _swap_points), "BAD_LOCK by seat 1")


def test_a_wrong_key_inside_a_recorded_reveal_is_checked(record: dict[str, Any]) -> None:
    _fails(_edit(record, "mk_reveal", 2, _other_key), "BAD_REVEAL by seat 2")


@pytest.mark.parametrize("kind, seat, change, words", [
    ("mk_mask", 255, _swap_points, "BAD_MASK by seat 255"),  # the last mask step
    ("mk_lock", 255, _swap_points, "BAD_LOCK by seat 255"),  # the last lock step
])
def test_the_last_steps_were_and_are_checked(record: dict[str, Any], kind: str, seat: int,
                                             change: Any, words: str) -> None:
    _fails(_edit(record, kind, seat, change), words)


def test_a_wrong_key_in_an_audit_publication_is_checked(record: dict[str, Any]) -> None:
    def change(plain: dict[str, Any]) -> None:
        deck = plain["decks"][0]
        keys = deck["keys"] if isinstance(deck, dict) else deck[3]
        keys[0], keys[1] = keys[1], keys[0]

    report = verify(_edit(record, "mk_audit", 1, change))
    assert not report.ok and not report.invalid, report.text()


def test_the_command_says_exit_1_for_a_tampered_step(record: dict[str, Any], tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(_edit(record, "mk_mask", 0, _swap_points)))
    assert main(["verify", str(path)]) == 1
    assert "BAD_MASK by seat 0" in capsys.readouterr().out
