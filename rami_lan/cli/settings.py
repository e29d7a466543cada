"""Player settings remembered between runs: nickname, language, four-colour deck.

Stored as JSON (``settings.json``, mode 0600) in the config folder of
:mod:`rami_lan.paths` (``$RAMI_LAN_CONFIG_DIR`` when set, else the platform's, from
``platformdirs``), which is kept at mode 0700.

A missing or damaged file gives the defaults; saving writes a temporary file and
renames it, so a crash never leaves half a file.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from rami_lan.fsutil import atomic_write
from rami_lan.paths import ENV_CONFIG, config_dir, private_dir
from rami_lan.profile import MAX_NICKNAME, clean_nickname, default_nickname

__all__ = [
    "ENV_DIR",
    "FILE_NAME",
    "MAX_NICKNAME",
    "Settings",
    "clean_nickname",
    "config_dir",
    "default_nickname",
    "load_settings",
    "save_settings",
    "settings_path",
]

ENV_DIR = ENV_CONFIG
FILE_NAME = "settings.json"


@dataclass
class Settings:
    nickname: str = ""
    lang: str | None = None  # None: from the locale
    four_colour: bool = False

    def __post_init__(self) -> None:
        self.nickname = clean_nickname(self.nickname) or default_nickname()
        if self.lang not in (None, "en", "fr"):
            self.lang = None
        self.four_colour = bool(self.four_colour)


def settings_path(environ: dict[str, str] | None = None) -> Path:
    return config_dir(environ) / FILE_NAME


def load_settings(path: Path | None = None) -> Settings:
    """The saved settings, or the defaults when there are none (or they are damaged)."""
    p = settings_path() if path is None else path
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return Settings()
    if not isinstance(data, dict):
        return Settings()
    known = {f.name for f in fields(Settings)}
    return Settings(**{k: v for k, v in data.items() if k in known})


def save_settings(settings: Settings, path: Path | None = None) -> Path:
    """Write the settings atomically; returns the file written."""
    p = settings_path() if path is None else path
    private_dir(p.parent)
    atomic_write(p, json.dumps(asdict(settings), ensure_ascii=False, indent=2))
    return p
