"""Crafted files (issue 29, item 5): a record or a journal that is well formed as a
container (valid JSON; a journal signed with the folder's own key) but holds bad
content of any kind (wrong types, huge lists, deep nesting, negative or huge ints,
missing or unknown keys, duplicated rounds...) is refused by ``rami-lan verify``,
``rami-lan replay`` and ``rami-lan host --resume`` with exit 2 and one line, in bounded
time, never a traceback. The files come from `crafted` (a generator over real records
and journals of in-process tables).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from crafted import crafted_journal_bodies, crafted_records
from record_tables import RecordingTable

from rami_lan.cli import cmd_replay
from rami_lan.cli.main import main
from rami_lan.net.journal import Journal
from rami_lan.table.stage import Stage

pytestmark = pytest.mark.usefixtures("isolated_config")

CPU_LIMIT = 3.0
"""Seconds of CPU a crafted file may cost (the largest ones are 32 MB)."""


@pytest.fixture(scope="module")
def records() -> dict[str, dict[str, Any]]:
    plain = RecordingTable(variant="rami", seats=3, limit=100, private=False)
    plain.start()
    plain.run()
    private = RecordingTable(variant="rami", seats=3, limit=1, private=True)
    private.start()
    private.run()
    return {"plain": plain.record, "private": private.record}


def _one_line_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str], name: str) -> None:
    t = time.process_time()
    code = main(argv)
    spent = time.process_time() - t
    out = capsys.readouterr()
    lines = out.err.strip().splitlines()
    assert code == 2, f"{name}: exit {code}\n{out.out[-500:]}{out.err[-500:]}"
    assert len(lines) == 1 and "Traceback" not in out.err + out.out, f"{name}: {out.err[-800:]}"
    assert spent < CPU_LIMIT, f"{name}: {spent:.1f} s of CPU"


@pytest.mark.parametrize("kind", ["plain", "private"])
def test_every_crafted_record_is_exit_2_with_one_line(records: dict[str, Any], kind: str,
                                                      tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "crafted.json"
    path.write_text(json.dumps(records[kind]))
    assert main(["verify", str(path)]) == 0  # the base verifies: each mutation is the cause
    capsys.readouterr()
    n = 0
    for name, value in crafted_records(records[kind]):
        path.write_bytes(value if isinstance(value, bytes) else json.dumps(value).encode())
        _one_line_exit_2(capsys, ["verify", str(path)], name)
        try:
            cmd_replay.load_replay(path)
        except (ValueError, OSError):
            pass  # exit 2 in `rami-lan replay`, one line
        else:  # a replay may only load what verify merely found wrong... never a crafted file
            raise AssertionError(f"{name}: the replay loaded a crafted record")
        n += 1
    assert n >= 150


def _journal_at(private: bool, moment: str) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    t = RecordingTable(variant="rami", seats=3, limit=100, private=private, journal=True)
    t.start()
    if moment == "mid-round":
        t.run(until=lambda: t.machine.match.round is not None and t.machine.match.round.turn_no >= 5)
    else:
        t.run(until=lambda: t.machine.stage is Stage.BETWEEN)
    return t.journal_snap, [(r.kind, r.body) for r in t.journal_records]


def _write_journal(path: Path, snap: dict[str, Any], records: list[tuple[str, dict[str, Any]]]) -> None:
    path.unlink(missing_ok=True)
    with Journal.open(path, sync=False) as j:  # signed with the folder's key: authentic
        j.append("snapshot", snap)
        for kind, body in records:
            j.append(kind, body)


@pytest.mark.parametrize("private", [False, True], ids=["plain", "private"])
@pytest.mark.parametrize("moment", ["mid-round", "between-rounds"])
def test_every_crafted_journal_is_refused_with_one_line(private: bool, moment: str, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from rami_lan.cli import cmd_host

    async def opened(config: Any, start_after: Any, owner: Any, host: Any = None, **_kw: Any) -> int:
        try:  # what the opened table does first: a journal that passed must go on cleanly
            host.machine.resumed(100.0)
        finally:
            host.files.journal.close()
        raise AssertionError("a crafted journal was resumed")

    monkeypatch.setattr(cmd_host, "_main", opened)
    snap, records = _journal_at(private, moment)
    path = tmp_path / "t.journal"
    # The untouched journal resumes (the table would open: `_main` is replaced here).
    _write_journal(path, snap, records)
    with pytest.raises(AssertionError, match="was resumed"):
        main(["host", "--resume", str(path), "--no-advertise"])
    capsys.readouterr()
    n = 0
    for name, s, r in crafted_journal_bodies(snap, records):
        try:
            _write_journal(path, s, r)
        except ValueError:
            continue  # not even plain data (nested deeper than a journal allows)
        _one_line_exit_2(capsys, ["host", "--resume", str(path), "--no-advertise"], name)
        n += 1
    assert n >= 150


def test_a_crafted_journal_body_of_millions_of_values_is_refused_before_its_memory(tmp_path: Path) -> None:
    """A signed body of 18 million nils (18 MB of msgpack, 144 MB once decoded), in lists
    each under the per-list limit, is refused while it is decoded, by the count of all."""
    import hashlib
    import hmac
    import struct
    import zlib

    import msgpack

    from rami_lan.net import journal as J

    path = tmp_path / "big.journal"
    J.Journal.open(path).close()
    key = J.journal_key(tmp_path)
    data = msgpack.packb({"kind": "snapshot", "body": {"v": 1, "x": [[None] * 900_000] * 20}})
    tag = hmac.digest(key, J._TAG_LABEL + bytes(16) + struct.pack(">I", len(data)) + data,
                      hashlib.sha256)[:16]
    head = struct.pack(">II16s", len(data), zlib.crc32(data), tag)
    path.write_bytes(J.MAGIC + head + struct.pack(">I", zlib.crc32(head)) + data)
    import tracemalloc

    tracemalloc.start()
    with pytest.raises(J.JournalError, match=f"more than {J.MAX_ITEMS} values"):
        J.replay(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 2 * len(data) + 40 * J.MAX_ITEMS, peak


def test_the_real_commands_answer_crafted_files_with_one_line(records: dict[str, Any],
                                                              tmp_path: Path) -> None:
    """As a player runs them (fresh processes): a crafted record, a crafted journal."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, RAMI_LAN_CONFIG_DIR=str(tmp_path / "cfg"), LANG="C.UTF-8")
    bad = dict(records["plain"], rounds=[records["plain"]["rounds"][0]] * 2)  # round 1 twice
    rec = tmp_path / "dup.json"
    rec.write_text(json.dumps(bad))
    snap, journaled = _journal_at(False, "mid-round")
    snap = dict(snap, seats=[snap["seats"][0]] * len(snap["seats"]))  # one seat three times
    folder = tmp_path / "cfg" / "tables"
    folder.mkdir(parents=True)
    journal = folder / "t.journal"
    _write_journal(journal, snap, journaled)
    for argv in (["verify", str(rec)], ["replay", str(rec)],
                 ["host", "--resume", str(journal), "--no-advertise"]):
        done = subprocess.run([sys.executable, "-m", "rami_lan.cli.main", *argv], env=env,
                              capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert done.returncode == 2, (argv, done.stdout, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr, done.stderr
