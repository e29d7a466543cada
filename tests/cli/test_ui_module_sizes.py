"""Issue 27: the terminal UI in rooms of one job each. Every module of `rami_lan.cli.ui`
(the lobby and render packages included) stays under 800 lines and says its job in a
module docstring; the names other modules and tests import from the old single modules
still come from the same place."""

from __future__ import annotations

import ast
from pathlib import Path

UI = Path(__file__).resolve().parents[2] / "rami_lan" / "cli" / "ui"
LIMIT = 800


def _modules() -> list[Path]:
    return sorted(UI.rglob("*.py"))


def test_every_ui_module_is_under_800_lines() -> None:
    sizes = {str(p.relative_to(UI)): len(p.read_text(encoding="utf-8").splitlines()) for p in _modules()}
    big = {name: n for name, n in sizes.items() if n >= LIMIT}
    assert not big, f"modules of {LIMIT} lines or more: {big}"


def test_every_ui_module_says_its_job() -> None:
    missing = [str(p.relative_to(UI)) for p in _modules()
               if not ast.get_docstring(ast.parse(p.read_text(encoding="utf-8")))]
    assert not missing, f"no module docstring: {missing}"


def test_the_old_import_paths_still_work() -> None:
    from rami_lan.cli.ui import lobby, render, table_screen

    for name in ("Lobby", "default_browser", "load_solo_choices", "save_solo_choices",
                 "LEVELS", "NO_BROWSE_ENV", "PROBE_INTERVAL", "item_key", "limit_choices"):
        assert hasattr(lobby, name), name
    for name in ("render_table", "render_result", "button_label", "dealing_rows",
                 "has_joker_recovery", "render_melds", "render_piles", "render_players",
                 "Clicks", "Drags"):
        assert hasattr(render, name), name
    assert hasattr(table_screen, "TableScreen") and hasattr(table_screen, "Inviter")


def test_the_lobby_presence_is_one_service() -> None:
    """``lobby.invites`` and friends are the `Presence` service's, read and written."""
    from rami_lan.cli.ui.lobby import Lobby

    for name in ("invites", "inbox", "listener", "players", "advertiser", "player_browser"):
        assert isinstance(getattr(Lobby, name), property), name
