"""Shared identifiers: one home for names listed across the package, and for the fair
shuffle's constants (each written here only; the hashes built on them are written once,
in `rami_lan.table.verify_spec` and `rami_lan.core.deckrng`).

Nothing here imports from the package, so every layer (core, table, net, bots, cli) may
use it. Tests check that these lists agree with the rules core (``core.VARIANTS``) and
the bot factory (``bots.make_bot``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

VARIANT_IDS: Final = ("rami", "classique", "multi", "500", "40")
"""Every rules variant, in the order menus show them (= ``tuple(core.VARIANTS)``)."""

BOT_LEVELS: Final = ("debutant", "moyen", "expert")
"""Every bot level, weakest first (= what ``bots.make_bot`` accepts)."""

DEFAULT_BOT_LEVEL: Final = "moyen"

DEDICATED_HOST_SEAT: Final = 255
"""The fair-shuffle seat of a headless host (no player seat of its own)."""

ROUND_TAG_PREFIX: Final = b"rami-lan/v1"
"""Start of every round tag (FAIR_SHUFFLE.md); also the protocol's version."""

COMMIT_LABEL: Final = b"rami-lan commit v1"
"""Domain label of a participant's commitment (FAIR_SHUFFLE.md)."""
SEED_LABEL: Final = b"rami-lan seed v1"
"""Domain label of the round seed."""
DEALER_LABEL: Final = b"rami-lan dealer v1"
"""Domain label of the first-dealer key."""
RESHUFFLE_LABEL: Final = b"rami-lan reshuffle v1"
"""Domain label of the r-th reshuffle key."""

WHO_MAY_SIT: Final = ("anyone", "code", "invited")
"""Who may take a seat: anyone, players with the join code, or invited players only."""

BYE_TABLE_CLOSED: Final = "table closed"
"""The host's ``bye`` reason when its table closes for good (or its match is over)."""
BYE_TABLE_PAUSED: Final = "table paused"
"""The host's ``bye`` reason when it stops mid-match with its journal kept: the table can
be resumed (``rami-lan host --resume``), so its players wait for it to come back."""

TABLE_NOTICE: Final = "TableNotice"
"""``type`` of the host's own entries in an ``events`` message (players, notices)."""

TAG_LABELS: Final = {
    "commit": COMMIT_LABEL,
    "seed": SEED_LABEL,
    "dealer": DEALER_LABEL,
    "reshuffle": RESHUFFLE_LABEL,
}
"""Domain-separation labels of the fair shuffle (FAIR_SHUFFLE.md), by use."""

SEAT_KINDS: Final = ("human", "bot")
"""``kind`` of a seat in the players list and the match record."""

INTERFACES_ENV: Final = "RAMI_LAN_INTERFACES"
"""Comma-separated local addresses to use for mDNS and tables (tests: ``127.0.0.1``)."""


def env_interfaces(environ: Mapping[str, str] | None = None) -> list[str] | str:
    """``$RAMI_LAN_INTERFACES`` as a list of addresses, else ``"all"`` (the one parser of
    that setting: the lobby, ``open_table`` and discovery all use it)."""
    import os

    env = os.environ if environ is None else environ
    found = [a.strip() for a in env.get(INTERFACES_ENV, "").split(",") if a.strip()]
    return found or "all"
