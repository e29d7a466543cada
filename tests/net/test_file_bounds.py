"""Crafted files: records and journals are parsed with bounds before any allocation, and
``rami-lan verify`` / ``rami-lan replay`` answer every file with an exit code, never a
traceback (exit 2: unreadable or invalid; 1: a proven mismatch). Seeded fuzzing over
hundreds of mutated records and journals (issue 13, finding 6)."""

from __future__ import annotations

import copy
import json
import random
import struct
import zlib
from pathlib import Path
from typing import Any

import aio_helpers
import pytest
from test_record import _record

from rami_lan.cli import cmd_replay
from rami_lan.cli.main import main
from rami_lan.net import journal as J
from rami_lan.net.record import check_record

pytestmark = pytest.mark.usefixtures("isolated_config")

N_RECORDS = 300
N_JOURNALS = 300


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return aio_helpers.run(_record(tmp_path_factory.mktemp("rec"), variant="rami", limit=1,
                                   bots={1: "debutant"}), 60)


def _write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


def test_huge_seats_are_refused_at_once(record: dict[str, Any], tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    for seats in (300_000_000, 2**70, -1, "4", None):
        bad = dict(record, seats=seats)
        path = _write(tmp_path / "r.json", bad)
        with pytest.raises(ValueError, match="seats"):
            check_record(bad)
        with pytest.raises(ValueError):
            cmd_replay.load_replay(path)
        assert main(["verify", str(path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "seats" in err


def test_deep_nesting_and_big_files_are_exit_2(tmp_path: Path) -> None:
    deep = _write(tmp_path / "deep.json", '{"format": "rami-lan-record", "rounds": '
                  + "[" * 200_000 + "]" * 200_000 + "}")
    assert main(["verify", str(deep)]) == 2
    with pytest.raises(ValueError):
        cmd_replay.load_replay(deep)
    missing = tmp_path / "nope.json"
    assert main(["verify", str(missing)]) == 2


def test_a_proven_mismatch_is_exit_1(record: dict[str, Any], tmp_path: Path) -> None:
    good = _write(tmp_path / "good.json", record)
    assert main(["verify", str(good)]) == 0
    bad = copy.deepcopy(record)
    deck = bad["rounds"][0]["deck"]
    deck[0], deck[1] = deck[1], deck[0]
    assert main(["verify", str(_write(tmp_path / "bad.json", bad))]) == 1


JUNK: list[Any] = [None, True, -1, 0, 2**70, 300_000_000, 1.5, "", "x" * 5000, "zz",
                   [], {}, [[[[[]]]]], {"card": "a"}, {"type": "StockDrawn"}, [None] * 50]


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:40]):  # the first 40 items of each list
            out += _paths(v, (*prefix, i))
    return out


def _mutate(record: dict[str, Any], rng: random.Random) -> Any:
    data = copy.deepcopy(record)
    for _ in range(rng.randint(1, 3)):
        paths = [p for p in _paths(data) if p]
        if not paths:
            break
        path = rng.choice(paths)
        parent: Any = data
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1]
        op = rng.randrange(4)
        if op == 0:
            parent[last] = copy.deepcopy(rng.choice(JUNK))
        elif op == 1 and isinstance(parent, dict):
            del parent[last]
        elif op == 2 and isinstance(parent[last], int) and not isinstance(parent[last], bool):
            parent[last] = parent[last] + rng.choice([-1, 1, 1000, -(10**6), 2**40])
        elif isinstance(parent[last], list):
            parent[last] = parent[last] * rng.choice([0, 2, 3])
        else:
            parent[last] = copy.deepcopy(rng.choice(JUNK))
    if rng.random() < 0.1:  # at the text level: cut or garbled
        text = json.dumps(data)
        cut = rng.randrange(len(text))
        return text[:cut] if rng.random() < 0.5 else text[:cut] + "\x00\ufffd" + text[cut + 3 :]
    return data


def test_fuzzed_records_never_raise(record: dict[str, Any], tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(1313)
    codes = {0: 0, 1: 0, 2: 0}
    replay_refused = 0
    path = tmp_path / "m.json"
    for _ in range(N_RECORDS):
        _write(path, _mutate(record, rng))
        code = main(["verify", str(path)])  # any exception fails the test
        codes[code] += 1
        try:
            cmd_replay.load_replay(path)
        except (ValueError, OSError):  # ReplayError, JSON, bounds: exit 2 in run()
            replay_refused += 1
    out = capsys.readouterr()
    assert "Traceback" not in out.err + out.out
    # The mutations reached every answer: invalid files, proven mismatches, harmless ones.
    assert codes[2] >= N_RECORDS // 10 and codes[1] >= 10, codes
    assert replay_refused >= N_RECORDS // 4


def _journal_bytes(tmp_path: Path) -> tuple[bytes, list[int], bytes]:
    from test_journal import SAMPLE

    path = tmp_path / "base.journal"
    with J.Journal.open(path) as journal:
        offsets = [journal.append(kind, body) for kind, body in SAMPLE]
    return path.read_bytes(), offsets, J.journal_key(tmp_path)


def test_fuzzed_journals_are_refused_cleanly(tmp_path: Path) -> None:
    data, offsets, key = _journal_bytes(tmp_path)
    rng = random.Random(4242)
    outcomes: dict[str, int] = {}
    path = tmp_path / "fuzz.journal"
    for i in range(N_JOURNALS):
        mutated = bytearray(data)
        op = i % 4
        if op == 0:  # flip bytes anywhere
            for _ in range(rng.randint(1, 4)):
                mutated[rng.randrange(len(mutated))] ^= 1 << rng.randrange(8)
        elif op == 1:  # edit a body and recompute both CRCs, as an attacker would
            pos = rng.choice(offsets)
            n = struct.unpack_from(">I", mutated, pos)[0]
            at = pos + 28 + rng.randrange(n)
            mutated[at] ^= 1 << rng.randrange(8)
            body = bytes(mutated[pos + 28 : pos + 28 + n])
            struct.pack_into(">I", mutated, pos + 4, zlib.crc32(body))
            struct.pack_into(">I", mutated, pos + 24, zlib.crc32(bytes(mutated[pos : pos + 24])))
        elif op == 2:  # cut anywhere
            del mutated[rng.randrange(len(mutated)) :]
        else:  # insert junk in the middle
            at = rng.randrange(8, len(mutated))
            mutated[at:at] = rng.randbytes(rng.randint(1, 40))
        path.write_bytes(bytes(mutated))
        try:
            found = J.replay(path, key=key)
            outcome = "ok"
            assert op != 1 or mutated == bytearray(data), "an edited record was accepted"
            assert found.total <= len(offsets)
        except J.JournalError as exc:  # corrupt, tampered, invalid: a clear refusal
            outcome = type(exc).__name__
            assert len(str(exc)) < 1000
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    assert outcomes.get("JournalTamperedError", 0) >= N_JOURNALS // 4, outcomes
    assert outcomes.get("JournalCorruptError", 0) >= 10, outcomes
    assert outcomes.get("ok", 0) >= 10, outcomes  # cut tails: a valid shorter journal


def test_abandoned_journals_are_pruned_after_the_grace_period(tmp_path: Path) -> None:
    import os

    old = tmp_path / "old.journal"
    fresh = tmp_path / "fresh.journal"
    running = tmp_path / "running.journal"
    for p in (old, fresh):
        J.Journal.open(p).close()
    live = J.Journal.open(running)
    try:
        now = old.stat().st_mtime + J.GRACE + 10
        os.utime(fresh, (now - 60, now - 60))
        removed = J.prune_journals(tmp_path, now=now)
        assert removed == [old] or sorted(removed) == sorted([old])
        assert fresh.exists() and running.exists()  # young, or locked by a running host
    finally:
        live.close()


def test_records_are_saved_private(tmp_path: Path, record: dict[str, Any]) -> None:
    import os
    import stat

    from rami_lan.net.record import load_record, save_record

    path = save_record(tmp_path / "new", "r.json", record)
    assert load_record(path) == record
    if os.name == "posix":
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_resume_refuses_an_edited_journal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    from test_journal import SAMPLE

    path = tmp_path / "t.journal"
    with J.Journal.open(path) as journal:
        offsets = [journal.append(kind, body) for kind, body in SAMPLE]
    data = bytearray(path.read_bytes())
    pos = offsets[1]
    n = struct.unpack_from(">I", data, pos)[0]
    data[pos + 28 + n // 2] ^= 1
    struct.pack_into(">I", data, pos + 4, zlib.crc32(bytes(data[pos + 28 : pos + 28 + n])))
    struct.pack_into(">I", data, pos + 24, zlib.crc32(bytes(data[pos : pos + 24])))
    path.write_bytes(bytes(data))
    assert main(["host", "--resume", str(path), "--no-advertise"]) == 2  # a refused journal: exit 2
    err = capsys.readouterr().err
    assert "was edited" in err and "Traceback" not in err
