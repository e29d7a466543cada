"""Settings: the platform's config folder, round trip, damaged files."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from rami_lan.cli.settings import (
    Settings,
    config_dir,
    load_settings,
    save_settings,
    settings_path,
)


def test_config_dir_override_and_platformdirs(monkeypatch: pytest.MonkeyPatch) -> None:
    # The override wins; without it the folder is platformdirs' (rami_lan.paths).
    import platformdirs

    assert config_dir({"RAMI_LAN_CONFIG_DIR": "/x/cfg", "HOME": "/h"}) == Path("/x/cfg")
    monkeypatch.delenv("RAMI_LAN_CONFIG_DIR", raising=False)
    assert config_dir() == platformdirs.user_config_path("rami-lan", appauthor=False, roaming=True)
    if sys.platform.startswith("linux"):
        monkeypatch.setenv("XDG_CONFIG_HOME", "/xdg")
        assert config_dir() == Path("/xdg/rami-lan")
        monkeypatch.delenv("XDG_CONFIG_HOME")
        monkeypatch.setenv("HOME", "/h")
        assert config_dir() == Path("/h/.config/rami-lan")


def test_settings_file_is_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "cfg"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    monkeypatch.setenv("RAMI_LAN_CONFIG_DIR", str(folder))
    written = save_settings(Settings(nickname="Marie"))
    if os.name == "posix":
        assert stat.S_IMODE(written.stat().st_mode) == 0o600
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700  # an existing folder is tightened


def test_round_trip_through_env_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("RAMI_LAN_CONFIG_DIR", str(tmp_path))
    assert settings_path() == tmp_path / "settings.json"
    s = Settings(nickname="Marie", lang="fr", four_colour=True)
    written = save_settings(s)
    assert written == tmp_path / "settings.json"
    back = load_settings()
    assert (back.nickname, back.lang, back.four_colour) == ("Marie", "fr", True)


def test_missing_or_damaged_file_gives_defaults(tmp_path, monkeypatch):
    monkeypatch.setenv("RAMI_LAN_CONFIG_DIR", str(tmp_path / "nothing-here"))
    d = load_settings()
    assert d.lang is None and d.four_colour is False and d.nickname
    (tmp_path / "settings.json").write_text("{not json", encoding="utf-8")
    monkeypatch.setenv("RAMI_LAN_CONFIG_DIR", str(tmp_path))
    assert load_settings().lang is None
    (tmp_path / "settings.json").write_text('{"lang": "de", "nickname": "\\u0007Bob ", "x": 1}')
    s = load_settings()
    assert s.lang is None and s.nickname == "Bob"
