"""A seat kept on disk is offered only once its client is gone (`SeatStore.hold`).

Two players sharing a home folder (or one player with a second terminal) used to take
each other's seat: the second `rami-lan join` found the first one's seat file and
reconnected with its token, pushing the live client out."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from rami_lan.net.seats import SeatCredentials, SeatStore

TID = "ab" * 16


def _cred() -> SeatCredentials:
    return SeatCredentials(table_id=TID, fingerprint="cd" * 32, token=b"\x01" * 16,
                           host="127.0.0.1", port=4000, seat=1, nickname="ana", table_name="T")


def test_a_held_seat_is_not_offered_until_released(tmp_path: Path) -> None:
    store = SeatStore(tmp_path / "seats")
    store.save(_cred())
    assert [c.table_id for c in store.all()] == [TID]  # nobody holds it: offered
    fd = store.hold(TID)
    assert fd is not None
    assert store.in_use(TID)
    assert store.all() == [] and store.find("T") is None  # a live client holds it
    assert store.hold(TID) is None  # nor can a second session of this process take it
    store.release(fd)
    assert not store.in_use(TID)
    assert store.find("T") is not None and store.get(TID) is not None


def test_a_dead_holder_lets_the_seat_go(tmp_path: Path) -> None:
    """The kernel drops the lock with the process (here: one that exits while holding)."""
    store = SeatStore(tmp_path / "seats")
    store.save(_cred())
    code = textwrap.dedent(f"""
        import os, sys
        from pathlib import Path
        from rami_lan.net.seats import SeatStore
        fd = SeatStore(Path({str(tmp_path / "seats")!r})).hold({TID!r})
        print("held" if fd is not None else "busy", flush=True)
        sys.stdin.readline()
        os._exit(9)
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        assert store.in_use(TID) and store.all() == []
    finally:
        proc.communicate("\n", timeout=20)
    assert not store.in_use(TID)
    assert [c.table_id for c in store.all()] == [TID]


def test_removing_a_seat_removes_its_lock_file(tmp_path: Path) -> None:
    store = SeatStore(tmp_path / "seats")
    store.save(_cred())
    store.release(store.hold(TID))
    store.remove(TID)
    assert list((tmp_path / "seats").iterdir()) == []
