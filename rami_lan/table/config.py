"""`TableConfig`: every setting of a table, checked once when it is built."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from rami_lan.core.errors import SettingsError
from rami_lan.core.match import MatchOptions
from rami_lan.core.variants import get_variant
from rami_lan.ids import BOT_LEVELS, WHO_MAY_SIT

__all__ = ["TableConfig"]


@dataclass
class TableConfig:
    """Every setting of a table. ``bots`` maps seat -> level for seats the host fills."""

    name: str = "Rami"
    variant: str = "rami"
    seats: int = 4
    bots: dict[int, str] = field(default_factory=dict)
    limit: int | None = None
    quick: bool = False
    knock: bool = False
    timer: int = 0
    join_code: str | None = None
    who_may_sit: str = ""
    """"anyone", "code" (the join code) or "invited" (an invitation's ticket); empty:
    "code" when there is a join code, else "anyone"."""
    advertise: bool = True
    interfaces: list[str] | Literal["all"] = "all"
    port: int = 0
    host_nickname: str = "host"
    record_dir: str | Path | None = None
    headless: bool = False
    # Tuning (sensible defaults; tests shorten them).
    bot_delay: float | None = None
    """Seconds a bot waits before acting; None: the policy's own ``think_delay``."""
    away_delay: float = 3.0
    """A dropped player's turn, timer off: seconds before a bot plays for them."""
    commit_timeout: float = 10.0
    reveal_timeout: float = 10.0
    between_timeout: float = 60.0
    """Seconds to wait for every player's continue/leave between rounds."""
    auto_start: bool = True
    """Start the match as soon as every human seat is taken."""
    identity_dir: str | Path | None = None
    """Folder of the host's TLS identity; None: the default (see `rami_lan.net.tls`)."""
    guard: Any = None
    """Limits against hostile peers (`rami_lan.net.guard.GuardConfig`); None: defaults."""
    journal_dir: str | Path | None = None
    """Folder of the crash-safe journal (``rami-lan host`` uses ``config_dir()/tables``);
    None: no journal (library use, tests)."""
    table_id: bytes | None = None
    """Fixed table id (a resumed table keeps its own); None: a random one."""
    resume_grace: float = 10.0
    """A resumed table between rounds waits this long for its players to come back."""
    private_deal: bool = False
    """Deal from a masked deck (docs/masked_deck.md): the host sees only its own cards
    (and its bots'). Off: the commit-reveal deck, which the host can see."""
    audit_timeout: float = 30.0
    """Private dealing: seconds to wait for every participant's audit after a round."""
    masked_wait: float = 30.0
    """Private dealing: seconds a round waits for a participant who dropped (or who does
    not answer its move timer) before it is void: nobody else can play its hidden cards."""

    def __post_init__(self) -> None:
        get_variant(self.variant)
        if not 2 <= self.seats <= 4:
            raise SettingsError("seats_range")
        for seat, level in self.bots.items():
            if not 0 <= seat < self.seats:
                raise SettingsError("bot_seat", seat=seat)
            if level not in BOT_LEVELS:
                raise SettingsError("bot_level", levels=", ".join(BOT_LEVELS), level=str(level))
        if self.timer < 0:
            raise SettingsError("timer_negative")
        if not self.who_may_sit:
            self.who_may_sit = "code" if self.join_code else "anyone"
        self.who_may_sit = str(self.who_may_sit)
        if self.who_may_sit not in WHO_MAY_SIT:
            raise SettingsError("who_may_sit", choices=", ".join(WHO_MAY_SIT), who=self.who_may_sit)
        if self.who_may_sit == "code" and not self.join_code:
            raise SettingsError("code_needs_code")
        if self.who_may_sit == "anyone" and self.join_code:
            raise SettingsError("code_not_anyone")
        if not self.headless and len(self.bots) >= self.seats:
            raise SettingsError("all_bots")
        MatchOptions(self.limit, self.quick, self.knock).resolved(get_variant(self.variant))

    @property
    def human_seats(self) -> list[int]:
        return [s for s in range(self.seats) if s not in self.bots]
