"""Player settings remembered between runs: nickname, language, four-colour deck.

Stored as JSON in the platform's config folder (stdlib only):

- ``$RAMI_LAN_CONFIG_DIR`` when set (tests point it at a temporary folder);
- Linux and other Unixes: ``$XDG_CONFIG_HOME/rami-lan`` (default ``~/.config/rami-lan``);
- macOS: ``~/Library/Application Support/rami-lan``;
- Windows: ``%APPDATA%\\rami-lan``.

A missing or damaged file gives the defaults; saving writes a temporary file and
renames it, so a crash never leaves half a file.
"""

from __future__ import annotations

import getpass
import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from rami_lan.fsutil import app_dir, atomic_write

ENV_DIR = "RAMI_LAN_CONFIG_DIR"
FILE_NAME = "settings.json"
MAX_NICKNAME = 24


def config_dir(environ: dict[str, str] | None = None, platform: str | None = None) -> Path:
    """The folder holding rami-lan's settings on this platform."""
    return app_dir(
        ENV_DIR,
        ("APPDATA", "Roaming"),
        ("XDG_CONFIG_HOME", ".config"),
        environ=environ,
        platform=platform,
    )


def default_nickname() -> str:
    try:
        name = getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name on this system
        name = ""
    return clean_nickname(name) or "Joueur"


def clean_nickname(name: str) -> str:
    """Printable characters only, trimmed, at most `MAX_NICKNAME` characters."""
    text = "".join(ch for ch in str(name) if ch.isprintable()).strip()
    return text[:MAX_NICKNAME]


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
    p.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(p, json.dumps(asdict(settings), ensure_ascii=False, indent=2))
    return p
