"""The bot levels' descriptions as players read them (English and French): the data is
`rami_lan.bots.levels.LEVEL_INFO` (English source strings; bots never translate)."""

from __future__ import annotations

from rami_lan.bots.levels import LEVEL_INFO, LevelInfo
from rami_lan.i18n import _


def describe_level(level: str) -> LevelInfo:
    """The level's description in the current language (KeyError for an unknown level)."""
    info = LEVEL_INFO[level]
    return LevelInfo(info.level, _(info.name), _(info.plays), _(info.strength))
