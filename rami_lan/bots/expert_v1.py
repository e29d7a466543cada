"""``expert_v1``: the first expert, kept as a named level for measurement (the new
``expert`` is measured against it); it is not offered in the UI.

It is `rami_lan.bots.expert_base.ExpertBase` under its own level name, unchanged: the
play described there (exact hand judgement, memory and defence) is the first expert's.
The other experts and ``conceal`` build on `ExpertBase`, not on this level.
"""

from __future__ import annotations

from rami_lan.bots.expert_base import (  # noqa: F401  (the names this module always had)
    JOKER_FACE,
    MAX_DEPTH,
    ExpertBase,
    Face,
    _useful_faces,
)

__all__ = ["ExpertV1"]


class ExpertV1(ExpertBase):
    """The first expert, frozen (measurement only)."""

    level = "expert_v1"
