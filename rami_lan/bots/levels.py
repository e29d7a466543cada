"""Short, honest descriptions of the bot levels, as data the UI can show.

`LEVEL_INFO` holds, per level offered to players, its display name, one line on how
it plays and one line on how strong it measured and against what (the full figures,
with their 95 % intervals and match counts, are in docs/bots.md). The texts are
English source strings (bots use `core` only and never translate):
`rami_lan.cli.level_text.describe_level` returns them translated (French catalog:
``rami_lan/locale/fr/bots.po``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LevelInfo:
    level: str
    name: str  # English display name (translated by `rami_lan.cli.level_text`)
    plays: str  # how it plays, one line
    strength: str  # how strong it measured and against what, one line


def _n(text: str) -> str:
    """Mark a string for translation without translating it now (read at display time)."""
    return text


LEVEL_INFO: dict[str, LevelInfo] = {
    "debutant": LevelInfo(
        "debutant",
        _n("beginner"),
        _n("Draws from the stock, lays its melds when it can, discards almost at random."),
        _n("Weakest level: loses nearly every match against medium."),
    ),
    "moyen": LevelInfo(
        "moyen",
        _n("medium"),
        _n("Opens as soon as it can, lays off, discards its highest loose card; no memory."),
        _n("Beats beginner in about 99 matches out of 100; loses most matches to expert."),
    ),
    "expert": LevelInfo(
        "expert",
        _n("expert"),
        _n(
            "Exact hand judgement and card memory; reads how close each opponent is to going "
            "out, sheds high cards in time and hides its melds for a rami sec when that pays."
        ),
        _n(
            "Beats medium in 8 to 10 matches out of 10 and the previous expert in 6 to 8 out of "
            "10; wins 56 to 67 % against a strong player who hides its melds for a rami sec."
        ),
    ),
}
