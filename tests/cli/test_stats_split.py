"""The statistics split: the card is a pure value carried by the table and the client; the
database is the cli's (`rami_lan.stats.card_source`), the words are the cli's."""

from __future__ import annotations

import ast
from pathlib import Path

from test_stats import MATCHES, played

import rami_lan
from rami_lan.cli.card_text import card_lines
from rami_lan.net.client import RemoteTableSession
from rami_lan.player_card import Connection, PlayerCard
from rami_lan.stats import StatsDB, card_source

PID = "0123456789abcdef0123456789abcdef"
ROOT = Path(rami_lan.__file__).parent


def _db_with_a_match(path: Path) -> None:
    m = played(*MATCHES[0]).final
    with StatsDB(path) as db:
        assert db.record_match(0, m, "m-1")


def test_the_card_source_reads_the_database_and_never_creates_it(tmp_path: Path) -> None:
    path = tmp_path / "stats.sqlite3"
    bare = card_source("  Ann\x07  ", PID, path)()
    assert not path.exists()  # joining never creates the database
    assert PlayerCard.from_plain(bare, reported=False) == PlayerCard("Ann", PID, Connection.YOU)
    _db_with_a_match(path)
    full = PlayerCard.from_plain(card_source("Ann", PID, path)(), reported=False)
    assert full.stats is not None and full.stats.matches_played == 1
    assert full.by_variant and full.connection is Connection.YOU


def test_a_session_without_a_card_source_sends_a_card_without_statistics(tmp_path, monkeypatch) -> None:
    """The network client never opens the statistics database, even where one exists."""
    monkeypatch.setenv("RAMI_LAN_DATA_DIR", str(tmp_path))
    _db_with_a_match(tmp_path / "stats.sqlite3")
    opened = []
    monkeypatch.setattr(StatsDB, "__init__", lambda *a, **k: opened.append(a))
    s = RemoteTableSession("127.0.0.1", 1, nickname="Ann", player_id=PID)
    assert PlayerCard.from_plain(s.own_card(), reported=False) == PlayerCard("Ann", PID, Connection.YOU)
    assert opened == []
    monkeypatch.undo()
    given = RemoteTableSession("127.0.0.1", 1, nickname="Ann", player_id=PID,
                               card=card_source("Ann", PID, tmp_path / "stats.sqlite3"))
    assert PlayerCard.from_plain(given.own_card()).stats is not None


def test_the_card_values_do_no_io_and_say_no_words() -> None:
    tree = ast.parse((ROOT / "player_card.py").read_text(encoding="utf-8"))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not imported & {"sqlite3", "os", "pathlib", "rami_lan.i18n", "rami_lan.paths", "gettext"}
    assert card_lines(PlayerCard("Ann", None, Connection.BOT))[1] == "Connection: bot"


def test_the_bot_levels_say_no_words() -> None:
    from rami_lan.bots import levels

    assert not hasattr(levels, "describe") and "i18n" not in (ROOT / "bots" / "levels.py").read_text()


def test_the_lobby_joins_with_our_card_from_the_statistics(tmp_path, monkeypatch) -> None:
    """`rami_lan.cli.app` hands the lobby `open_session_with_card`: the session gets the
    cli's card source (the client itself would send a card without statistics)."""
    import asyncio

    from rami_lan.cli import app
    from rami_lan.cli.own_card import open_session_with_card
    from rami_lan.net import client

    monkeypatch.setenv("RAMI_LAN_DATA_DIR", str(tmp_path))
    _db_with_a_match(tmp_path / "stats.sqlite3")
    seen: dict = {}

    async def fake(host, port, **options):
        seen.update(options, host=host, port=port)
        return "session"

    monkeypatch.setattr(client, "open_session", fake)
    got = asyncio.run(open_session_with_card("10.0.0.2", 4000, nickname="Ann", player_id=PID, code="x"))
    assert got == "session" and seen["host"] == "10.0.0.2" and seen["code"] == "x"
    card = PlayerCard.from_plain(seen["card"]())
    assert card.nickname == "Ann" and card.player_id == PID and card.stats is not None
    assert "open_session=open_session_with_card" in Path(app.__file__).read_text(encoding="utf-8")
