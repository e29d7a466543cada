"""Chat policy at the table: what a chat line may be, and how often a seat may speak.

Sans I/O, one small class (:class:`ChatPolicy`) used in two places:

* the host, on every ``chat`` message, before relaying ``chat_msg`` to the table
  (the authority: a client that ignores the policy is still held to it);
* the client, on the line the player typed, so they get immediate feedback instead of
  a silently dropped message.

Rules:

* text is cleaned: every whitespace run (tabs, newlines, no-break spaces...) becomes one
  space, every other non-printable character (control, format, bidi, private use,
  unassigned) is removed, and the ends are trimmed;
* at most :data:`MAX_CHAT_CHARS` (200) characters, the protocol's limit: longer text is
  cut (``truncated`` in the verdict);
* an empty line after cleaning is refused (``empty``);
* a token bucket per seat: ``burst`` lines at once, then one every
  ``1 / rate`` seconds (``rate_limited``); a refused line costs nothing;
* bots never chat (``bot``): a seat marked as a bot, or ``bot=True`` in the call.

The clock is injectable (``clock=``, seconds, monotonic) so tests need no sleeping.
"""

from __future__ import annotations

import enum
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

__all__ = [
    "DEFAULT_BURST",
    "DEFAULT_RATE",
    "MAX_CHAT_CHARS",
    "ChatPolicy",
    "ChatRefusal",
    "ChatVerdict",
    "TokenBucket",
    "clean_chat_text",
]

MAX_CHAT_CHARS: Final = 200
"""Same as ``rami_lan.net.protocol.MAX_CHAT``."""
DEFAULT_BURST: Final = 4
DEFAULT_RATE: Final = 0.5
"""Lines per second once the burst is spent: one every 2 s."""


def clean_chat_text(text: str, max_chars: int = MAX_CHAT_CHARS) -> tuple[str, bool]:
    """``(cleaned, truncated)``: printable text only, whitespace folded, at most ``max_chars``."""
    if not isinstance(text, str):
        raise TypeError(f"chat text must be a str, not {type(text).__name__}")
    kept: list[str] = []
    for ch in text:
        if ch.isspace() or unicodedata.category(ch) in ("Zl", "Zp"):
            kept.append(" ")
        elif ch.isprintable():
            kept.append(ch)
    cleaned = " ".join("".join(kept).split())
    if len(cleaned) > max_chars:
        return cleaned[:max_chars].rstrip(), True
    return cleaned, False


class TokenBucket:
    """``capacity`` tokens, refilled at ``rate`` per second; :meth:`take` spends one."""

    def __init__(self, capacity: float, rate: float, clock: Callable[[], float]) -> None:
        if capacity < 1 or rate <= 0:
            raise ValueError("capacity must be >= 1 and rate > 0")
        self.capacity = float(capacity)
        self.rate = float(rate)
        self._clock = clock
        self._tokens = float(capacity)
        self._stamp = clock()

    def _refill(self) -> None:
        now = self._clock()
        elapsed = max(0.0, now - self._stamp)  # a clock going back refills nothing
        self._stamp = now
        self._tokens = min(self.capacity, self._tokens + elapsed * self.rate)

    @property
    def tokens(self) -> float:
        self._refill()
        return self._tokens

    def take(self) -> bool:
        """Spend one token if there is one; True if spent."""
        self._refill()
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False

    def wait_time(self) -> float:
        """Seconds until a token is available (0 if one is)."""
        self._refill()
        return 0.0 if self._tokens >= 1.0 else (1.0 - self._tokens) / self.rate


class ChatRefusal(enum.StrEnum):
    EMPTY = "empty"
    RATE_LIMITED = "rate_limited"
    BOT = "bot"


@dataclass(frozen=True)
class ChatVerdict:
    """The policy's answer: relay ``text`` if ``ok``, else drop it for ``refusal``."""

    ok: bool
    text: str = ""
    truncated: bool = False
    refusal: ChatRefusal | None = None
    retry_after: float = 0.0

    @classmethod
    def from_wire(cls, message: str) -> ChatVerdict | None:
        """The refusal a ``chat_refused`` error carries (``"<refusal>: ..."``, the
        ``rate_limited`` one ending ``wait <n> s``); None if it names no known refusal.

        The sentence for the player is made in `rami_lan.cli.messages`."""
        head = message.split(":", 1)[0]
        try:
            refusal = ChatRefusal(head)
        except ValueError:
            return None
        retry = 1.0
        if refusal is ChatRefusal.RATE_LIMITED:
            digits = "".join(ch for ch in message.split("wait", 1)[-1] if ch.isdigit())
            retry = float(digits) if digits else 1.0
        return cls(ok=False, refusal=refusal, retry_after=retry)


class ChatPolicy:
    """Size, content and rate rules for table chat, per seat."""

    def __init__(
        self,
        *,
        max_chars: int = MAX_CHAT_CHARS,
        burst: int = DEFAULT_BURST,
        rate: float = DEFAULT_RATE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not 1 <= max_chars <= MAX_CHAT_CHARS:
            raise ValueError(f"max_chars must be in 1..{MAX_CHAT_CHARS}")
        TokenBucket(burst, rate, clock)  # validates burst and rate
        self.max_chars = max_chars
        self.burst = burst
        self.rate = rate
        self._clock = clock
        self._buckets: dict[int, TokenBucket] = {}
        self._bots: set[int] = set()

    def set_bot(self, seat: int, bot: bool = True) -> None:
        """Mark ``seat`` as played by a bot (from ``hello.bot`` or a host-side bot)."""
        if bot:
            self._bots.add(seat)
        else:
            self._bots.discard(seat)

    def is_bot(self, seat: int) -> bool:
        return seat in self._bots

    def forget(self, seat: int) -> None:
        """Drop a seat's state (it left; a new player there starts fresh)."""
        self._buckets.pop(seat, None)
        self._bots.discard(seat)

    def check(self, seat: int, text: str, *, bot: bool | None = None) -> ChatVerdict:
        """Judge one line from ``seat``; an accepted line spends one of its tokens."""
        if bot or (bot is None and seat in self._bots):
            return ChatVerdict(ok=False, refusal=ChatRefusal.BOT)
        cleaned, truncated = clean_chat_text(text, self.max_chars)
        if not cleaned:
            return ChatVerdict(ok=False, refusal=ChatRefusal.EMPTY)
        bucket = self._buckets.get(seat)
        if bucket is None:
            bucket = self._buckets[seat] = TokenBucket(self.burst, self.rate, self._clock)
        if not bucket.take():
            return ChatVerdict(
                ok=False, refusal=ChatRefusal.RATE_LIMITED, retry_after=bucket.wait_time()
            )
        return ChatVerdict(ok=True, text=cleaned, truncated=truncated)
