"""The "Info joueur" card as pure values: a player's statistics (`PlayerStats`), the
connection state shown (`Connection`) and the card (`PlayerCard`).

A card is a nickname, a player id, a connection state and statistics. Your own card
comes from your statistics database (`rami_lan.stats.StatsDB.own_card`, complete: every
variant); another player's card carries the statistics *they reported*
(``reported=True``: unverifiable, shown as such). `PlayerCard.to_plain` /
`PlayerCard.from_plain` are the plain-data (msgpack-ready) encoding; decoding is strict,
since it comes off the wire. No I/O and no translated text here: the table machine and
the network client carry cards, `rami_lan.stats` stores what they are made from, and
`rami_lan.cli.card_text` words them.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, fields
from typing import Any, Final

from rami_lan.core.variants import VARIANTS

__all__ = ["MAX_COUNT", "MAX_NICK", "Connection", "PlayerCard", "PlayerStats"]

MAX_COUNT: Final = 10**9
"""Upper bound of every counter accepted from another player's report."""
MAX_NICK: Final = 24
"""The longest nickname a card holds."""
_VARIANT_IDS: Final = tuple(VARIANTS)
_PLAYER_ID_RE: Final = re.compile(r"[0-9a-f]{32}")


def _check_count(name: str, value: object) -> int:
    if type(value) is not int or not 0 <= value <= MAX_COUNT:
        raise ValueError(f"{name} must be an int in 0..{MAX_COUNT}, got {value!r}")
    return value


_PENALTY_TOTAL_MAX: Final = 1000 * MAX_COUNT


@dataclass(frozen=True)
class PlayerStats:
    """Aggregated statistics for one variant (``variant``) or all (``variant=None``).

    Construction checks consistency (won <= played, ...), so a report from another
    player that does not add up is refused by :meth:`from_plain`.
    """

    variant: str | None = None
    matches_played: int = 0
    matches_won: int = 0
    rounds_played: int = 0
    rounds_won: int = 0
    penalty_rounds: int = 0
    """Rounds played in penalty-scored variants (the average penalty's denominator)."""
    penalty_total: int = 0
    rami_secs: int = 0
    best_streak: int = 0
    current_streak: int = 0

    def __post_init__(self) -> None:
        if self.variant is not None and self.variant not in _VARIANT_IDS:
            raise ValueError(f"unknown variant {self.variant!r}")
        for f in fields(self):
            if f.name not in ("variant", "penalty_total"):
                _check_count(f.name, getattr(self, f.name))
        if type(self.penalty_total) is not int or not 0 <= self.penalty_total <= _PENALTY_TOTAL_MAX:
            raise ValueError("penalty_total out of range")
        checks = (
            (self.matches_won <= self.matches_played, "matches_won > matches_played"),
            (self.rounds_won <= self.rounds_played, "rounds_won > rounds_played"),
            (self.penalty_rounds <= self.rounds_played, "penalty_rounds > rounds_played"),
            (self.rami_secs <= self.rounds_won, "rami_secs > rounds_won"),
            (self.best_streak <= self.matches_won, "best_streak > matches_won"),
            (self.current_streak <= self.best_streak, "current_streak > best_streak"),
            (self.penalty_rounds > 0 or self.penalty_total == 0, "penalty without rounds"),
        )
        for ok, why in checks:
            if not ok:
                raise ValueError(f"inconsistent statistics: {why}")

    @property
    def average_penalty(self) -> float | None:
        """Mean penalty per round in penalty-scored variants, None without such rounds."""
        return self.penalty_total / self.penalty_rounds if self.penalty_rounds else None

    @property
    def win_rate(self) -> float | None:
        return self.matches_won / self.matches_played if self.matches_played else None

    def to_plain(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_plain(cls, data: object) -> PlayerStats:
        """Strict decoding: exactly the known keys, ints in range, consistent values."""
        if not isinstance(data, dict):
            raise ValueError("statistics are a map")
        names = {f.name for f in fields(cls)}
        if set(data) != names:
            raise ValueError(f"statistics must have exactly the keys {sorted(names)}")
        return cls(**data)


class Connection(enum.StrEnum):
    """Connection state shown on a player card."""

    YOU = "you"
    CONNECTED = "connected"
    RECONNECTING = "reconnecting"
    STAND_IN = "stand_in"
    """Not connected, and the host's bot plays for them until they are back."""
    LEFT = "left"
    BOT = "bot"


@dataclass(frozen=True)
class PlayerCard:
    """What "Info joueur" shows about one player."""

    nickname: str
    player_id: str | None
    """32 hex digits, or None (bots, players who reported nothing)."""
    connection: Connection
    stats: PlayerStats | None = None
    """All variants together; None when nothing is known."""
    by_variant: tuple[PlayerStats, ...] = ()
    reported: bool = False
    """True for another player's self-reported statistics (not verifiable)."""

    def __post_init__(self) -> None:
        nick = self.nickname
        if (
            not isinstance(nick, str)
            or not 1 <= len(nick) <= MAX_NICK
            or not nick.isprintable()
            or nick != nick.strip()
        ):
            raise ValueError("nickname must be 1..24 printable characters without outer spaces")
        if self.player_id is not None and (
            not isinstance(self.player_id, str) or not _PLAYER_ID_RE.fullmatch(self.player_id)
        ):
            raise ValueError("player_id must be 32 lowercase hex digits or None")
        object.__setattr__(self, "connection", Connection(self.connection))
        if self.stats is not None and (
            not isinstance(self.stats, PlayerStats) or self.stats.variant is not None
        ):
            raise ValueError("stats must be overall PlayerStats (variant=None) or None")
        per = tuple(self.by_variant)
        if any(not isinstance(s, PlayerStats) or s.variant is None for s in per):
            raise ValueError("by_variant holds per-variant PlayerStats")
        if len({s.variant for s in per}) != len(per):
            raise ValueError("by_variant names a variant twice")
        object.__setattr__(self, "by_variant", per)
        if not isinstance(self.reported, bool):
            raise ValueError("reported must be a bool")

    def to_plain(self) -> dict[str, Any]:
        """The card as plain data; this is also what a player reports about themself."""
        return {
            "nick": self.nickname,
            "id": self.player_id,
            "conn": str(self.connection),
            "stats": None if self.stats is None else self.stats.to_plain(),
            "variants": [s.to_plain() for s in self.by_variant],
        }

    @classmethod
    def from_plain(
        cls, data: object, *, reported: bool = True, connection: Connection | str | None = None
    ) -> PlayerCard:
        """Strict decoding of :meth:`to_plain`. Raises ValueError on anything else.

        A card received from the network is ``reported`` (the default). The receiver
        knows the connection state better than the sender: pass it as ``connection``.
        """
        if not isinstance(data, dict):
            raise ValueError("a player card is a map")
        if set(data) != {"nick", "id", "conn", "stats", "variants"}:
            raise ValueError("a player card has exactly nick, id, conn, stats, variants")
        variants = data["variants"]
        if not isinstance(variants, list | tuple) or len(variants) > len(_VARIANT_IDS):
            raise ValueError("variants must be a list of at most one entry per variant")
        stats = data["stats"]
        conn = data["conn"] if connection is None else connection
        if conn not in {c.value for c in Connection}:
            raise ValueError(f"unknown connection state {conn!r}")
        return cls(
            nickname=data["nick"],
            player_id=data["id"],
            connection=Connection(conn),
            stats=None if stats is None else PlayerStats.from_plain(stats),
            by_variant=tuple(PlayerStats.from_plain(v) for v in variants),
            reported=reported,
        )
