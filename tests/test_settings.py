"""Settings: the platform's config folder, round trip, damaged files."""

from __future__ import annotations

from pathlib import Path

import pytest

from rami_lan.cli.settings import (
    Settings,
    config_dir,
    load_settings,
    save_settings,
    settings_path,
)


@pytest.mark.parametrize(
    ("env", "platform", "expected"),
    [
        ({"RAMI_LAN_CONFIG_DIR": "/x/cfg", "HOME": "/h"}, "linux", "/x/cfg"),
        ({"XDG_CONFIG_HOME": "/xdg", "HOME": "/h"}, "linux", "/xdg/rami-lan"),
        ({"HOME": "/h"}, "linux", "/h/.config/rami-lan"),
        ({"HOME": "/h"}, "darwin", "/h/Library/Application Support/rami-lan"),
        ({"APPDATA": "C:/Users/m/AppData/Roaming", "HOME": "/h"}, "win32",
         "C:/Users/m/AppData/Roaming/rami-lan"),
    ],
)
def test_config_dir_per_platform(env, platform, expected):
    assert config_dir(env, platform) == Path(expected)


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
