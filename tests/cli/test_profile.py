"""Tests for rami_lan.profile: stable player id, atomic JSON save, damaged files."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from rami_lan.profile import (
    PLAYER_ID_RE,
    PROFILE_FILE,
    Profile,
    load_profile,
    new_player_id,
    profile_path,
    save_profile,
)


def env_for(tmp_path: Path) -> dict[str, str]:
    return {"RAMI_LAN_CONFIG_DIR": str(tmp_path / "cfg"), "LANG": "fr_FR.UTF-8"}


def test_first_run_creates_a_stable_id(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    first = load_profile(environ=env)
    assert PLAYER_ID_RE.fullmatch(first.player_id)
    assert first.lang == "fr"
    assert profile_path(env).is_file()
    again = load_profile(environ=env)
    assert again == first
    # Renaming keeps the id.
    renamed = first.renamed("  Marie\x07 ")
    assert renamed.nickname == "Marie" and renamed.player_id == first.player_id
    save_profile(renamed, profile_path(env))
    assert load_profile(environ=env) == renamed
    assert first.short_id == first.player_id[:6]


def test_defaults_come_from_saved_settings(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    cfg = Path(env["RAMI_LAN_CONFIG_DIR"])
    cfg.mkdir(parents=True)
    (cfg / "settings.json").write_text(json.dumps({"nickname": "Paul", "lang": "en"}))
    prof = load_profile(environ=env)
    assert (prof.nickname, prof.lang) == ("Paul", "en")


def test_config_dir_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = {"RAMI_LAN_CONFIG_DIR": "/a", "XDG_CONFIG_HOME": "/x", "HOME": "/h"}
    assert profile_path(env) == Path("/a") / PROFILE_FILE
    if sys.platform.startswith("linux"):  # the rest is platformdirs' (rami_lan.paths)
        monkeypatch.delenv("RAMI_LAN_CONFIG_DIR", raising=False)
        monkeypatch.setenv("XDG_CONFIG_HOME", "/x")
        assert profile_path() == Path("/x/rami-lan") / PROFILE_FILE
        monkeypatch.delenv("XDG_CONFIG_HOME")
        monkeypatch.setenv("HOME", "/h")
        assert profile_path() == Path("/h/.config/rami-lan") / PROFILE_FILE


def test_profile_does_not_import_cli() -> None:
    import ast
    import inspect

    import rami_lan.net.tls
    import rami_lan.profile

    for module in (rami_lan.profile, rami_lan.net.tls):
        tree = ast.parse(inspect.getsource(module))
        names = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        names += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        assert not [n for n in names if n.startswith("rami_lan.cli")], module.__name__


def test_save_is_atomic_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    path = tmp_path / "p" / "profile.json"
    prof = Profile("Zoé", new_player_id(), "en")
    save_profile(prof, path)
    save_profile(prof.with_lang("fr"), path)
    assert [p.name for p in path.parent.iterdir()] == ["profile.json"]
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data == {"version": 1, "nickname": "Zoé", "player_id": prof.player_id, "lang": "fr"}


def test_damaged_file_is_kept_aside_and_the_id_survives(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    path = profile_path(env)
    path.parent.mkdir(parents=True)
    pid = new_player_id()
    path.write_text(json.dumps({"version": 1, "nickname": "", "player_id": pid, "lang": "xx"}))
    prof = load_profile(environ=env)
    assert prof.player_id == pid and prof.nickname and prof.lang in ("fr", "en")
    assert path.with_name("profile.json.bad").exists()
    assert load_profile(environ=env) == prof
    path.write_text("{not json")
    other = load_profile(environ=env)
    assert other.player_id != pid and PLAYER_ID_RE.fullmatch(other.player_id)


@pytest.mark.parametrize(
    "data",
    [
        None,
        [],
        {"version": 2, "nickname": "a", "player_id": "0" * 32, "lang": "fr"},
        {"version": 1, "nickname": "a", "player_id": "0" * 31, "lang": "fr"},
        {"version": 1, "nickname": "a", "player_id": "G" * 32, "lang": "fr"},
        {"version": 1, "nickname": " a", "player_id": "0" * 32, "lang": "fr"},
        {"version": 1, "nickname": "a" * 25, "player_id": "0" * 32, "lang": "fr"},
        {"version": 1, "nickname": 3, "player_id": "0" * 32, "lang": "fr"},
        {"version": 1, "nickname": "a", "player_id": "0" * 32, "lang": "de"},
    ],
)
def test_from_plain_is_strict(data: object) -> None:
    with pytest.raises(ValueError):
        Profile.from_plain(data)
