"""The local player's profile: nickname, a stable random player id, preferred language.

Stored as ``profile.json`` (mode 0600) in the config folder, next to ``settings.json``
(:func:`rami_lan.paths.config_dir`: ``$RAMI_LAN_CONFIG_DIR`` when set, else the
platform's, from ``platformdirs``; kept at mode 0700). The nickname rules
(:func:`clean_nickname`, :func:`default_nickname`) live here too, so that
``rami_lan.cli.settings`` uses them and nothing outside ``cli`` imports ``cli``.

The player id is 16 random bytes in lowercase hex, made once on first run and never
changed: it tells the same person apart across nickname changes (presence, invitations,
"Info joueur"). It is an identifier, not a secret: it is advertised on the LAN.

Loading never fails: a missing file makes a new profile (nickname and language taken
from the saved settings when there are some) and saves it; a damaged file is kept
aside as ``profile.json.bad`` and, when its player id is still readable, that id is
kept. Saving writes a temporary file in the same folder, flushes it and renames it
over the old one, so a crash never leaves half a file.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

from rami_lan.fsutil import atomic_write
from rami_lan.paths import config_dir, private_dir

__all__ = [
    "LANGS",
    "MAX_NICKNAME",
    "PLAYER_ID_RE",
    "PROFILE_FILE",
    "PROFILE_VERSION",
    "Profile",
    "clean_nickname",
    "default_nickname",
    "localized_nickname",
    "load_profile",
    "new_player_id",
    "profile_path",
    "save_profile",
]

PROFILE_FILE: Final = "profile.json"
PROFILE_VERSION: Final = 1
LANGS: Final = ("fr", "en")
PLAYER_ID_RE: Final = re.compile(r"[0-9a-f]{32}")
MAX_NICKNAME: Final = 24
SETTINGS_FILE: Final = "settings.json"


def clean_nickname(name: str) -> str:
    """Printable characters only, trimmed, at most `MAX_NICKNAME` characters."""
    text = "".join(ch for ch in str(name)[: MAX_NICKNAME * 4] if ch.isprintable()).strip()
    return text[:MAX_NICKNAME].strip()


DEFAULT_NICKNAMES: Final = {"en": "Player", "fr": "Joueur"}
"""The nickname of a player who has not chosen one, per language."""


def default_nickname(lang: str | None = None) -> str:
    """The nickname of a player who has not chosen one, in ``lang`` (None: the current
    language): "Player" on English screens, "Joueur" on French ones.

    Never the OS login name: a nickname is advertised on the LAN (mDNS ``h``, player
    cards), and a login name is private. Tables tell equal nicknames apart themselves.
    """
    if lang is None:
        from rami_lan.i18n import language

        lang = language()
    return DEFAULT_NICKNAMES.get(lang, DEFAULT_NICKNAMES["en"])


def localized_nickname(nickname: str, lang: str | None = None) -> str:
    """``nickname``, unless it is a default one (never chosen): then the default of
    ``lang`` (a newcomer is "Player" in English, "Joueur" in French)."""
    nick = clean_nickname(nickname)
    if not nick or nick in DEFAULT_NICKNAMES.values():
        return default_nickname(lang)
    return nick


def new_player_id() -> str:
    """A fresh random player id: 32 lowercase hex digits."""
    return secrets.token_hex(16)


def _check_nickname(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError(f"nickname must be a str, got {type(value).__name__}")
    if not value or value != value.strip() or len(value) > MAX_NICKNAME or not value.isprintable():
        raise ValueError(
            f"nickname must be 1..{MAX_NICKNAME} printable characters without outer spaces"
        )
    return value


@dataclass(frozen=True)
class Profile:
    """The local player. Construction validates every field."""

    nickname: str
    player_id: str
    lang: str = "fr"

    def __post_init__(self) -> None:
        _check_nickname(self.nickname)
        if not isinstance(self.player_id, str) or not PLAYER_ID_RE.fullmatch(self.player_id):
            raise ValueError("player_id must be 32 lowercase hex digits")
        if self.lang not in LANGS:
            raise ValueError(f"lang must be one of {LANGS}, not {self.lang!r}")

    @property
    def short_id(self) -> str:
        """The first 6 hex digits, shown next to the nickname to tell namesakes apart."""
        return self.player_id[:6]

    def renamed(self, nickname: str) -> Profile:
        """The same player with a new nickname (cleaned: printable, trimmed, 24 chars)."""
        return replace(self, nickname=clean_nickname(nickname) or default_nickname())

    def with_lang(self, lang: str) -> Profile:
        return replace(self, lang=lang)

    def to_plain(self) -> dict[str, Any]:
        return {
            "version": PROFILE_VERSION,
            "nickname": self.nickname,
            "player_id": self.player_id,
            "lang": self.lang,
        }

    @classmethod
    def from_plain(cls, data: object) -> Profile:
        """Strict: raises ValueError on anything but a valid profile map."""
        if not isinstance(data, dict):
            raise ValueError("a profile is a map")
        version = data.get("version")
        if version != PROFILE_VERSION:
            raise ValueError(f"unknown profile version {version!r}")
        return cls(nickname=data.get("nickname"), player_id=data.get("player_id"),
                   lang=data.get("lang"))  # type: ignore[arg-type]


def profile_path(environ: dict[str, str] | None = None) -> Path:
    """``<config folder>/profile.json``."""
    return config_dir(environ) / PROFILE_FILE


def _defaults(environ: dict[str, str] | None) -> tuple[str, str]:
    """Nickname and language for a new profile, from the saved settings if any."""
    from rami_lan.i18n import detect_language

    saved: Any = None
    with contextlib.suppress(OSError, ValueError):
        saved = json.loads((config_dir(environ) / SETTINGS_FILE).read_text(encoding="utf-8"))
    if not isinstance(saved, dict):
        saved = {}
    nickname = saved.get("nickname")
    nickname = (clean_nickname(nickname) if isinstance(nickname, str) else "") or default_nickname()
    lang = saved.get("lang") if saved.get("lang") in LANGS else detect_language(environ)
    return nickname, lang if lang in LANGS else "en"


def load_profile(path: Path | None = None, *, environ: dict[str, str] | None = None) -> Profile:
    """The saved profile; created (and saved) on first run or when damaged."""
    p = profile_path(environ) if path is None else Path(path)
    data: Any = None
    try:
        raw = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raw = None
    except OSError:
        raw = ""
    if raw is not None:
        with contextlib.suppress(ValueError):
            data = json.loads(raw)
        try:
            return Profile.from_plain(data)
        except ValueError:
            with contextlib.suppress(OSError):
                os.replace(p, p.with_name(p.name + ".bad"))
    nickname, lang = _defaults(environ)
    old_id = data.get("player_id") if isinstance(data, dict) else None
    pid = old_id if isinstance(old_id, str) and PLAYER_ID_RE.fullmatch(old_id) else new_player_id()
    if isinstance(data, dict):
        with contextlib.suppress(ValueError, TypeError):
            nickname = _check_nickname(data.get("nickname"))
        if data.get("lang") in LANGS:
            lang = data["lang"]
    profile = Profile(nickname=nickname, player_id=pid, lang=lang)
    with contextlib.suppress(OSError):
        save_profile(profile, p)
    return profile


def save_profile(profile: Profile, path: Path | None = None) -> Path:
    """Write the profile atomically (temporary file, fsync, rename); returns the path."""
    p = profile_path() if path is None else Path(path)
    private_dir(p.parent)
    atomic_write(p, json.dumps(profile.to_plain(), ensure_ascii=False, indent=2) + "\n")
    return p
