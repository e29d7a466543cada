"""The log cannot be used to fill the disk: O(1) protocol error texts, clipped arguments,
flood damping per template, a rotating size-capped private file (issue 13, finding 1)."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

import msgpack
import pytest

from rami_lan import logsetup
from rami_lan.net import messages as M
from rami_lan.net import protocol as P


def _big_hello() -> bytes:
    """One unseated hello of ~117 KB with 16,000 unknown keys (the finding's frame)."""
    wire = {"k": "hello", "v": 1, "nick": "n", "lang": "en"}
    for i in range(16_000):
        wire[f"u{i}"] = None
    body = msgpack.packb(wire, use_bin_type=True)
    assert 100_000 < len(body) < 130_000
    return P._HEADER.pack(len(body)) + body


class CountingShow:
    """Counts the calls of ``protocol._show``: the work of building the error text."""

    def __init__(self) -> None:
        self.calls = 0
        self._real = P._show

    def __call__(self, value: object) -> str:
        self.calls += 1
        return self._real(value)


def test_unknown_keys_error_names_one_key_and_a_count(monkeypatch: pytest.MonkeyPatch) -> None:
    counter = CountingShow()
    monkeypatch.setattr(M, "_show", counter)  # where Message.from_wire finds it
    session = P.Session("host")
    with pytest.raises(P.RemoteProtocolError) as info:
        session.receive_data(_big_hello())
    err = info.value
    assert err.code == "bad_field"
    assert "'u0'" in err.message and "15999 more" in err.message
    assert "16000 in all" in err.message
    assert len(err.message) <= P.MAX_ERROR_TEXT and len(str(err)) < 400
    assert 1 <= counter.calls <= 2  # one key shown, never all 16,000
    reply = session.error_reply(err)
    assert isinstance(reply, P.Refused) and len(reply.message) <= P.MAX_ERROR_TEXT


def test_remote_error_text_is_capped_when_raised() -> None:
    err = P.RemoteProtocolError("bad_field", "x" * 1_000_000)
    assert len(err.message) == P.MAX_ERROR_TEXT


def _record(msg: str, *args: object, name: str = "rami_lan.net.host") -> logging.LogRecord:
    return logging.LogRecord(name, logging.INFO, __file__, 1, msg, args, None)


def test_clip_filter_bounds_every_argument_and_the_line() -> None:
    record = _record("protocol error from %s: %s", "1.2.3.4", "\x1b[2J" + "k" * 150_000)
    assert logsetup.ClipFilter().filter(record)
    line = logsetup.CappedFormatter().format(record)
    assert len(line) < 400 and "\x1b" not in line
    huge = _record("x" * 100_000 + " %d", 5)
    logsetup.ClipFilter().filter(huge)
    assert len(logsetup.CappedFormatter().format(huge)) <= logsetup.MAX_LINE


def test_flood_filter_lets_n_per_window_per_template_then_summarises() -> None:
    now = [0.0]
    flood = logsetup.FloodFilter(lines=3, window=10.0, clock=lambda: now[0])
    passed = [flood.filter(_record("protocol error from %s: %s", i, "e")) for i in range(50)]
    assert passed == [True] * 3 + [False] * 47
    # Another template is not starved by the flood.
    assert flood.filter(_record("table %r on port %d", "t", 1))
    now[0] = 10.0
    first = _record("protocol error from %s: %s", 99, "e")
    assert flood.filter(first)
    assert first.getMessage().startswith("[47 similar lines suppressed] protocol error from 99")
    assert flood.suppressed_total == 47


def test_the_big_hello_makes_one_short_log_line(tmp_path: Path) -> None:
    session = P.Session("host")
    with pytest.raises(P.RemoteProtocolError) as info:
        session.receive_data(_big_hello())
    handler = logsetup.file_handler(tmp_path / "log")
    log = logging.getLogger("rami_lan.test_harden_logs")
    log.propagate = False
    log.setLevel(logging.INFO)
    log.addHandler(handler)
    try:
        for _ in range(527):  # the finding: 527 such frames wrote 78 MB
            log.info("protocol error from %s: %s", "('10.0.0.9', 4242)", info.value)
    finally:
        log.removeHandler(handler)
        handler.close()
    path = tmp_path / "log" / logsetup.LOG_FILE
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == logsetup.LINES_PER_WINDOW
    assert max(len(line) for line in lines) < 500
    assert path.stat().st_size < 10_000
    if os.name == "posix":
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE((tmp_path / "log").stat().st_mode) == 0o700


def test_the_log_file_rotates_with_a_cap(tmp_path: Path) -> None:
    handler = logsetup.file_handler(tmp_path, max_bytes=2000, backups=2)
    handler.filters = [f for f in handler.filters if not isinstance(f, logsetup.FloodFilter)]
    log = logging.getLogger("rami_lan.test_harden_logs.rotate")
    log.propagate = False
    log.setLevel(logging.INFO)
    log.addHandler(handler)
    try:
        for i in range(500):
            log.info("line %d %s", i, "y" * 100)
    finally:
        log.removeHandler(handler)
        handler.close()
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["rami-lan.log", "rami-lan.log.1", "rami-lan.log.2"]
    assert sum(p.stat().st_size for p in tmp_path.iterdir()) <= 3 * 2000 + 200
