"""Both table sessions offer everything `TableSession` lists (the UI probes nothing)."""

from __future__ import annotations

import inspect

from rami_lan.cli.local_session import LocalTableSession
from rami_lan.net.client import RemoteTableSession
from rami_lan.net.table_session import TableSession


def _members() -> set[str]:
    names = set(getattr(TableSession, "__annotations__", {}))
    names |= {n for n, v in vars(TableSession).items()
              if not n.startswith("_") and (callable(v) or isinstance(v, property))}
    return names


def test_the_protocol_lists_what_the_table_screen_reads() -> None:
    assert {"seat", "variant", "table_id", "match_no", "bot", "table", "started", "match_id",
            "state", "start", "updates", "act", "next_round", "close",
            "send_chat"} <= _members()


def test_the_local_session_has_every_member() -> None:
    s = LocalTableSession("rami", 2, 0, {1: "moyen"}, seed="x")
    missing = [n for n in _members() if not hasattr(s, n)]
    assert not missing
    assert s.state is s.machine.match and s.started is False and isinstance(s.match_id, str)


def test_the_remote_session_has_every_member() -> None:
    s = RemoteTableSession("127.0.0.1", 1, nickname="n")
    missing = [n for n in _members() if not hasattr(s, n)]
    assert not missing
    assert s.state is None and s.match_id == ""
    for name in ("start", "act", "next_round", "close", "send_chat"):
        assert inspect.iscoroutinefunction(getattr(s, name)), name
