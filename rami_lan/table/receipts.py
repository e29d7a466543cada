"""Private dealing at the host: the seats' announced keys, the round's roster, receipts.

Sans-I/O. `HostKeys` keeps each seat's key announcement (``mk_seatkey``, checked: self-
signed, of this seat), and arms each masked round with its roster
(`rami_lan.masked.signing.Roster`): every participant's announced key and the host's own
key for the round (`host_key`, from the round's journaled secret seed). An armed
`rami_lan.table.masked_host.MaskedRound` refuses a client's message that its author did
not sign (named: it came on that seat's connection), signs what the host's participant
sends, and returns a signed receipt (`receipt_for`) for each message it takes.

A round is armed only when every remote participant announced a key; a client that did
announce one refuses a round without its roster, so a host can not drop the signatures
of a round to forge a seat's messages in it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rami_lan.masked.messages import CardReveal, HandGift, KeyRelease, MaskedMessage
from rami_lan.masked.signing import (
    Receipt,
    Roster,
    SeatKeyAnnouncement,
    SignatureError,
    Signing,
    check_announcement,
    host_key,
)

__all__ = ["HostKeys", "lost_round_key", "receipt_for"]


class HostKeys:
    """The seats' key announcements at one table (see the module docstring)."""

    def __init__(self) -> None:
        self.announced: dict[int, dict[str, Any]] = {}

    def announce(self, seat: int, plain: object) -> str:
        """A ``mk_seatkey`` from the client at ``seat``: kept for the rounds to come ("":
        taken; else why not: malformed, not self-signed, or in another seat's name)."""
        if isinstance(plain, SeatKeyAnnouncement):
            plain = plain.to_plain()
        try:
            author, _pub = check_announcement(plain)
        except SignatureError as exc:
            return str(exc)
        if author != seat:
            return f"a key announcement from seat {seat} must be for seat {seat}, not {author}"
        assert isinstance(plain, dict)
        self.announced[seat] = dict(plain)
        return ""

    def roster(self, tag: bytes, host: int, participants: Iterable[int], round_seed: bytes
               ) -> Signing | None:
        """The round's signing state (None: a remote participant announced no key)."""
        remote = [s for s in participants if s != host]
        if any(s not in self.announced for s in remote):
            return None
        key = host_key(round_seed)
        announcements = tuple(self.announced[s] for s in sorted(remote))
        keys = {host: key.public, **{int(a["seat"]): bytes(a["pub"]) for a in announcements}}
        return Signing(Roster(tag, host, keys, announcements), key)

    def to_plain(self, signing: Signing | None) -> list[dict[str, Any]] | None:
        """The announcements a round was armed with (for the host's journal)."""
        return None if signing is None else [dict(a) for a in signing.roster.announcements]

    def restore(self, announcements: Sequence[Any] | None) -> None:
        """A restarted host: the journaled round's announcements are known again."""
        for a in announcements or ():
            if isinstance(a, dict) and isinstance(a.get("seat"), int):
                self.announce(a["seat"], a)


def receipt_for(signing: Signing, seat: int, msg: MaskedMessage, relayed: Iterable[int]) -> dict[str, Any]:
    """The host's signed receipt (plain ``mk_receipt``) for ``msg``, taken from ``seat``
    and passed on to ``relayed``."""
    plain = msg.to_plain()
    deck = getattr(msg, "deck", -1)
    position = getattr(msg, "position", -1)
    to = msg.to if isinstance(msg, KeyRelease) else (
        signing.roster.host if isinstance(msg, HandGift) else None)
    if not isinstance(msg, KeyRelease | CardReveal | HandGift):
        position = -1
    channel = msg.to if isinstance(msg, KeyRelease) and msg.to is not None else (
        signing.roster.host if isinstance(msg, HandGift) else -1)
    r = Receipt(seat, msg.KIND, deck, position, to, channel, msg.n if msg.n is not None else 0,
                signing.message_digest(plain), tuple(sorted(set(relayed))))
    return signing.receipt(r).to_plain()


def lost_round_key(mr: Any, seat: int, plain: dict[str, Any]) -> bool:
    """Does this announcement (already taken) say that ``seat``'s process lost the key the
    round being played lists for it (a client relaunched without its keys file)? Then
    nothing it signs can be taken in this round: it can not go on with it."""
    signing = getattr(mr, "signing", None)
    return (signing is not None and seat in mr.blind and mr.phase.value in ("shuffling", "playing")
            and signing.roster.keys.get(seat) != plain.get("pub"))
