"""Tests of rami_lan.net.journal: round trips, torn tails, corruption, compaction, kill -9."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from rami_lan.core import action_from_plain, action_to_plain, match_from_plain, match_to_plain
from rami_lan.core import actions as A
from rami_lan.core.cards import full_deck
from rami_lan.core.match import new_match, start_round
from rami_lan.net.journal import (
    KEY_FILE,
    MAGIC,
    Journal,
    JournalCorruptError,
    JournalLockedError,
    Record,
    replay,
)

ROOT = Path(__file__).resolve().parents[2]


def snapshot_body(version: int = 0) -> dict[str, Any]:
    """A realistic snapshot: a dealt match and the host's metadata."""
    m = new_match("rami", 3)
    deck = full_deck(m.variant.n_decks, m.variant.n_jokers)
    random.Random(version).shuffle(deck)
    m, _ = start_round(m, deck, b"\x07" * 32)
    return {
        "match": match_to_plain(m),
        "seq": version,
        "seats": [{"seat": 0, "nick": "Anne"}, {"seat": 1, "nick": "Bob", "bot": True}],
        "tokens": {"0": b"\x01" * 16, "1": b"\x02" * 16},
        "table": {"variant": "rami", "limit": 150, "code": None},
    }


def action_body(seq: int) -> dict[str, Any]:
    return {"seq": seq, "seat": seq % 3, "action": action_to_plain(A.DrawStock(seq % 3), "rami")}


def write(path: Path, records: list[tuple[str, dict[str, Any]]]) -> list[int]:
    with Journal.open(path) as journal:
        return [journal.append(kind, body) for kind, body in records]


SAMPLE: list[tuple[str, dict[str, Any]]] = [
    ("round", {"deck": list(range(20)), "seed": b"\x05" * 32, "commits": {"0": b"c" * 32}}),
    ("snapshot", snapshot_body(1)),
    ("action", action_body(1)),
    ("action", action_body(2)),
    ("round", {"round": 2, "seed": b"\x06" * 32}),
    ("action", action_body(3)),
]


# --------------------------------------------------------------------------- round trips


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "match.journal"
    offsets = write(path, SAMPLE)
    snapshot, records = replay(path)
    assert snapshot == SAMPLE[1][1]
    assert [(r.kind, r.body) for r in records] == SAMPLE[2:]
    assert [r.offset for r in records] == offsets[2:]
    # The snapshot rebuilds the match, the actions decode back.
    m = match_from_plain(snapshot["match"])  # type: ignore[index]
    assert match_to_plain(m) == snapshot["match"]  # type: ignore[index]
    assert action_from_plain(records[0].body["action"], "rami") == A.DrawStock(1)
    full = replay(path)
    assert (full.total, full.torn, full.end) == (6, 0, path.stat().st_size)


def test_no_snapshot_yet(tmp_path: Path) -> None:
    path = tmp_path / "j"
    write(path, [("action", action_body(1))])
    snapshot, records = replay(path)
    assert snapshot is None and records == [Record("action", action_body(1), len(MAGIC))]


def test_new_journal_is_synced_header_only(tmp_path: Path) -> None:
    path = tmp_path / "j"
    with Journal.open(path) as journal:
        assert journal.size == len(MAGIC) and journal.replayed.total == 0
    assert path.read_bytes() == MAGIC
    assert replay(path).snapshot is None and replay(path).records == []
    assert oct(path.stat().st_mode & 0o777) == oct(0o600)


def test_reopen_appends_after_existing_records(tmp_path: Path) -> None:
    path = tmp_path / "j"
    write(path, SAMPLE[:3])
    with Journal.open(path) as journal:
        assert journal.replayed.total == 3 and journal.size == path.stat().st_size
        journal.append("action", action_body(9))
    assert [r.body["seq"] for r in replay(path).records] == [1, 9]


def test_bad_bodies_are_refused_before_writing(tmp_path: Path) -> None:
    path = tmp_path / "j"
    with Journal.open(path) as journal:
        for kind, body in [
            ("Action", {}),
            ("", {}),
            (1, {}),
            ("action", [1]),
            ("action", {"x": 1.5}),
            ("action", {"x": (1, 2)}),
            ("action", {1: 2}),
        ]:
            with pytest.raises(ValueError):
                journal.append(kind, body)  # type: ignore[arg-type]
        assert journal.size == len(MAGIC)
    assert path.read_bytes() == MAGIC


def test_closed_journal(tmp_path: Path) -> None:
    journal = Journal.open(tmp_path / "j")
    journal.close()
    journal.close()
    assert journal.closed
    with pytest.raises(Exception, match="closed"):
        journal.append("action", {})


def test_second_writer_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "j"
    with Journal.open(path):
        if os.name == "posix":
            with pytest.raises(JournalLockedError):
                Journal.open(path)
    Journal.open(path).close()  # free again


# --------------------------------------------------------------------------- torn tails


def test_torn_tail_at_every_byte_offset(tmp_path: Path) -> None:
    path = tmp_path / "full"
    offsets = write(path, SAMPLE[:1] + [("action", action_body(i)) for i in range(4)])
    data = path.read_bytes()
    ends = [*offsets[1:], len(data)]  # where each record ends
    cut_path = tmp_path / "cut"
    for cut in range(len(data) + 1):
        cut_path.write_bytes(data[:cut])
        found = replay(cut_path)
        complete = sum(1 for end in ends if end <= cut)
        assert found.total == complete, cut
        good_end = ends[complete - 1] if complete else (len(MAGIC) if cut >= len(MAGIC) else 0)
        assert (found.end, found.torn) == (good_end, cut - good_end), cut
        # Opening cuts the torn bytes off and appends after the last good record.
        with Journal.open(cut_path) as journal:
            journal.append("action", action_body(99))
        after = replay(cut_path)
        assert after.total == complete + 1 and after.torn == 0, cut
        assert after.records[-1].body == action_body(99)


@pytest.mark.parametrize("tail", [b"\x00" * 5, b"\x00" * 100, b"\xff" * 30, b"garbage!" * 3])
def test_garbage_tail_is_torn(tmp_path: Path, tail: bytes) -> None:
    path = tmp_path / "j"
    write(path, SAMPLE)
    size = path.stat().st_size
    with open(path, "ab") as file:
        file.write(tail)
    found = replay(path)
    assert found.total == len(SAMPLE) and found.torn == len(tail) and found.end == size


def test_last_record_with_zeroed_body_is_torn(tmp_path: Path) -> None:
    path = tmp_path / "j"
    offsets = write(path, SAMPLE)
    data = bytearray(path.read_bytes())
    last = offsets[-1]
    data[last + 12 :] = bytes(len(data) - last - 12)  # the fs kept the size, not the data
    path.write_bytes(bytes(data))
    found = replay(path)
    assert found.total == len(SAMPLE) - 1 and found.end == last


# --------------------------------------------------------------------------- corruption


@pytest.mark.parametrize("where", ["header", "body"])
def test_corruption_in_the_middle_is_an_error(tmp_path: Path, where: str) -> None:
    path = tmp_path / "j"
    offsets = write(path, SAMPLE)
    data = bytearray(path.read_bytes())
    spot = offsets[3] + (1 if where == "header" else 20)
    data[spot] ^= 0x40
    path.write_bytes(bytes(data))
    with pytest.raises(JournalCorruptError) as info:
        replay(path)
    error = info.value
    assert error.offset == offsets[3] and "valid records after it" in str(error)
    assert "checksum" in error.problem
    # The consistent prefix is there for a caller that chooses to use it.
    assert error.replay.total == 3 and error.replay.snapshot == SAMPLE[1][1]
    assert [r.body for r in error.replay.records] == [SAMPLE[2][1]]
    # Opening for append refuses and changes nothing.
    with pytest.raises(JournalCorruptError):
        Journal.open(path)
    assert path.read_bytes() == bytes(data)


@pytest.mark.parametrize("content", [b"", b"RLJ", b"NOTAJOURNAL", b"RLJOURN9" + b"\x00" * 20])
def test_not_a_journal(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "j"
    path.write_bytes(content)
    if MAGIC.startswith(content):
        assert replay(path).total == 0  # crashed while being created
        Journal.open(path).close()
        assert path.read_bytes() == MAGIC
    else:
        with pytest.raises(JournalCorruptError, match="not a rami-lan journal"):
            replay(path)


def test_missing_file() -> None:
    with pytest.raises(FileNotFoundError):
        replay("/nonexistent/rami-lan/journal")


# --------------------------------------------------------------------------- compaction


def test_compaction_starts_a_new_file(tmp_path: Path) -> None:
    path = tmp_path / "j"
    with Journal.open(path) as journal:
        for kind, body in SAMPLE:
            journal.append(kind, body)
        inode = path.stat().st_ino
        journal.compact(snapshot_body(7))
        assert path.stat().st_ino != inode and journal.size == path.stat().st_size
        journal.append("action", action_body(8))
    snapshot, records = replay(path)
    assert snapshot == snapshot_body(7) and [r.body for r in records] == [action_body(8)]
    assert replay(path).total == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["j", KEY_FILE]  # no temporary left


def test_compaction_keeps_the_lock(tmp_path: Path) -> None:
    path = tmp_path / "j"
    with Journal.open(path) as journal:
        journal.compact(snapshot_body(1))
        if os.name == "posix":
            with pytest.raises(JournalLockedError):
                Journal.open(path)


# --------------------------------------------------------------------------- kill -9

WRITER = textwrap.dedent(
    """
    import sys
    from rami_lan.net.journal import Journal
    journal = Journal.open(sys.argv[1])
    journal.append("snapshot", {"seq": 0, "pad": b"s" * 3000})
    seq = 0
    while True:
        seq += 1
        journal.append("action", {"seq": seq, "pad": b"x" * (seq % 700)})
        if seq % 3 == 0:
            journal.append("round", {"seq": seq, "deck": list(range(seq % 50))})
        print(seq, flush=True)
    """
)


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
@pytest.mark.parametrize("run", range(3))
def test_sigkill_mid_stream_replays_a_consistent_prefix(tmp_path: Path, run: int) -> None:
    path = tmp_path / "j"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, env=env, text=True
    )
    acknowledged = 0
    # Generous: the loop ends as soon as enough appends are acknowledged (well under a
    # second alone); a loaded machine can take seconds to start Python and fsync.
    deadline = time.monotonic() + 60
    assert proc.stdout is not None
    try:
        while acknowledged < 40 + 30 * run and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            acknowledged = int(line)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        proc.stdout.close()
    assert acknowledged >= 40
    snapshot, records = replay(path)
    assert snapshot == {"seq": 0, "pad": b"s" * 3000}
    actions = [r.body["seq"] for r in records if r.kind == "action"]
    # Every acknowledged (fsync'd) action is there, in order, with nothing skipped.
    assert actions == list(range(1, len(actions) + 1)) and len(actions) >= acknowledged
    for r in records:
        if r.kind == "action":
            assert r.body["pad"] == b"x" * (r.body["seq"] % 700)
        else:
            assert r.kind == "round" and r.body["deck"] == list(range(r.body["seq"] % 50))
    with Journal.open(path) as journal:  # and the host can go on appending
        journal.append("action", {"seq": len(actions) + 1})
    assert replay(path).records[-1].body == {"seq": len(actions) + 1}


# --------------------------------------------------------------------------- authentication


def _recrc(data: bytearray, pos: int) -> None:
    """Recompute both CRCs of the record at ``pos`` after an edit (what an attacker does)."""
    import struct
    import zlib

    n = struct.unpack_from(">I", data, pos)[0]
    body = bytes(data[pos + 28 : pos + 28 + n])
    struct.pack_into(">I", data, pos + 4, zlib.crc32(body))
    struct.pack_into(">I", data, pos + 24, zlib.crc32(bytes(data[pos : pos + 24])))


def test_an_edited_record_with_recomputed_crcs_is_refused(tmp_path: Path) -> None:
    import msgpack

    from rami_lan.net.journal import JournalTamperedError

    path = tmp_path / "j"
    offsets = write(path, SAMPLE)
    data = bytearray(path.read_bytes())
    pos = offsets[2]  # an action: make it another seat's
    n = int.from_bytes(data[pos : pos + 4], "big")
    value = msgpack.unpackb(bytes(data[pos + 28 : pos + 28 + n]))
    value["body"]["seat"] = (value["body"]["seat"] + 1) % 3
    new = msgpack.packb(value, use_bin_type=True)
    assert len(new) == n
    data[pos + 28 : pos + 28 + n] = new
    _recrc(data, pos)
    path.write_bytes(bytes(data))
    with pytest.raises(JournalTamperedError, match="not authentic"):
        replay(path)
    with pytest.raises(JournalTamperedError):
        Journal.open(path)
    assert path.read_bytes() == bytes(data)  # nothing changed


def test_reordered_or_foreign_records_are_refused(tmp_path: Path) -> None:
    from rami_lan.net.journal import JournalTamperedError

    path = tmp_path / "j"
    offsets = write(path, SAMPLE)
    data = path.read_bytes()
    # Swap two records: every CRC still holds, the chain does not.
    a, b, c = offsets[2], offsets[3], offsets[4]
    swapped = data[:a] + data[b:c] + data[a:b] + data[c:]
    path.write_bytes(swapped)
    with pytest.raises(JournalTamperedError):
        replay(path)
    # A journal written under another key (another host, or a forged key file).
    path.write_bytes(data)
    with pytest.raises(JournalTamperedError):
        replay(path, key=b"k" * 32)
    assert replay(path).total == len(SAMPLE)


def test_version_1_journals_are_refused(tmp_path: Path) -> None:
    from rami_lan.net.journal import JournalTamperedError

    path = tmp_path / "j"
    path.write_bytes(b"RLJOURN1" + b"\x00" * 40)
    with pytest.raises(JournalTamperedError, match="without authentication"):
        replay(path)


def test_the_key_is_private_and_stable(tmp_path: Path) -> None:
    import stat

    from rami_lan.net.journal import journal_key

    folder = tmp_path / "tables"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    key = journal_key(folder)
    assert len(key) == 32 and journal_key(folder) == key
    if os.name == "posix":
        assert stat.S_IMODE((folder / KEY_FILE).stat().st_mode) == 0o600
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700


@pytest.mark.parametrize(("field", "value"), [
    ("port", 70000), ("port", -1), ("seq", 2**60), ("match_no", "1"),
    ("table_id", b"short"), ("table", {"seats": 300000000}), ("seats", [{"seat": 99}]),
    ("record", {"data": {"seats": 300000000, "rounds": []}}),
])
def test_snapshots_out_of_bounds_are_refused(tmp_path: Path, field: str, value: Any) -> None:
    from rami_lan.net.journal import JournalInvalidError

    path = tmp_path / "j"
    body = snapshot_body(1)
    body[field] = value
    write(path, [("snapshot", body)])
    with pytest.raises(JournalInvalidError, match=field):
        replay(path)
