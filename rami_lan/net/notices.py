"""What the network layer tells a player, as facts: a `NoticeCode` plus its data.

`net` (and `table` below it) never make sentences for players: the client reports
``SessionUpdate(notice=Notice(...))`` / ``error=Notice(...)`` and raises exceptions that
carry a `Notice`; `rami_lan.cli.messages` turns each code into an English or French
sentence. ``str(notice)`` is a plain, untranslated form for log files
(``reconnect_gave_up where='10.0.0.2:4242' secs=30.0``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

__all__ = ["Notice", "NoticeCode"]


class NoticeCode(enum.StrEnum):
    """Every fact the client reports to its player; the data each one carries."""

    NOT_CONNECTED = "not_connected"
    """An action or chat line could not be sent: no connection to the table."""
    INVALID_DATA = "invalid_data"
    """The host broke the protocol; the connection is dropped."""
    RECONNECTED = "reconnected"
    REJOIN_REFUSED = "rejoin_refused"
    """``why``: the host's refusal (its own text, from the wire)."""
    CERTIFICATE_CHANGED = "certificate_changed"
    """On reconnecting, the table showed another certificate: not reconnecting."""
    RECONNECT_GAVE_UP = "reconnect_gave_up"
    """``where`` (host:port), ``secs`` (the reconnect window)."""
    HOST_CLOSED = "host_closed"
    """``why``: the host's ``bye`` reason (its own text, from the wire; "-" if none)."""
    HOST_PAUSED = "host_paused"
    """The host stopped mid-match keeping its journal (``bye`` reason "table paused"):
    we wait up to ``secs`` seconds for it to be resumed, then give up."""
    UNEXPECTED_COMMIT_REQUEST = "unexpected_commit_request"
    """The host asked for a commitment the verifier did not expect: none sent."""
    CHAT_REFUSED = "chat_refused"
    """``refusal`` (a `rami_lan.table.chat.ChatRefusal`), ``retry_after`` (seconds)."""
    HOST_REFUSED_CHAT = "host_refused_chat"
    """``why``: a ``chat_refused`` error whose reason is not a known refusal."""
    CODE_NEEDED = "code_needed"
    """The table asked for a join code and we have none."""
    WRONG_CODE = "wrong_code"
    """The join-code exchange failed: a wrong code, or a man in the middle."""
    PAKE_ERROR = "pake_error"
    """The table's join-code message was malformed: ``why`` (plain text, not translated)."""
    CODE_NOT_ASKED = "code_not_asked"
    """We hold a code (or the ad says one is needed) but the table never asked for it."""
    PRIVATE_DEAL_FAULT = "private_deal_fault"
    """Private dealing: a participant broke the masked-deck protocol: ``kind`` (a
    `rami_lan.masked.audit.FaultKind` name, or ``HOST_MESSAGE``), ``seat`` (who; None:
    the audit will tell)."""
    PRIVATE_DEAL_REFUSED = "private_deal_refused"
    """Private dealing: the host asked this seat for a key, a reveal or its audit the
    rules do not give away now, or sent what does not fit the game we saw: nothing was
    given. ``what`` (the message's kind), ``seat`` (the host's)."""
    SEAT_HANDED_OVER = "seat_handed_over"
    """Private dealing, from the host: ``seat`` left mid-round and gave the host its hand;
    the host's bot plays that seat for the rest of the round."""
    PRIVATE_ROUND_VOID = "private_round_void"
    """Private dealing, from the host: ``seat`` (None: unknown) is gone for good, or
    (``left`` False) still connected but missed a deadline, so this round is void (no
    score); the next round is dealt."""
    PRIVATE_DEAL_LATE = "private_deal_late"
    """Private dealing, from the host: ``seat`` did not send a masked message it owed
    before its deadline (``left``: its connection is gone: it left)."""
    PRIVATE_DEAL_BENCHED = "private_deal_benched"
    """Private dealing, from the host: ``seat`` missed its deadlines in two rounds: it
    leaves the private deal, and the host's bot plays its seat from the next round."""
    PRIVATE_AUDIT_FAULTS = "private_audit_faults"
    """Private dealing, from the host: the round's audit found ``count`` faults; ``seats``
    (a list) were named."""
    LEFT_OUT_OF_SHUFFLE = "left_out_of_shuffle"
    """From the host: ``seat`` contributes no secret to this round's shuffle; ``reason``:
    ``no_commit`` (no commitment in time), ``no_reveal`` (its secret came too late) or
    ``bad_reveal`` (its secret did not match its commitment)."""
    TIMER_PLAYED = "timer_played"
    """Private dealing: our move timer ran out; the client plays the automatic move."""
    POSSIBLE_INTERCEPTION = "possible_interception"
    """The join code failed and the certificate is not the one we knew: ``old``, ``new``
    (short fingerprints)."""


@dataclass(frozen=True, slots=True)
class Notice:
    """One fact for the player: ``code`` and its data (see `NoticeCode`)."""

    code: NoticeCode
    args: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def of(cls, code: NoticeCode, **data: Any) -> Notice:
        return cls(NoticeCode(code), tuple(sorted(data.items())))

    @property
    def data(self) -> dict[str, Any]:
        return dict(self.args)

    def get(self, name: str, default: Any = None) -> Any:
        return self.data.get(name, default)

    def __str__(self) -> str:
        return " ".join([str(self.code), *(f"{k}={v!r}" for k, v in self.args)])


HOST_NOTICE_CODES: dict[str, NoticeCode] = {
    c.value: c for c in (NoticeCode.SEAT_HANDED_OVER, NoticeCode.PRIVATE_ROUND_VOID,
                         NoticeCode.PRIVATE_AUDIT_FAULTS, NoticeCode.PRIVATE_DEAL_FAULT,
                         NoticeCode.LEFT_OUT_OF_SHUFFLE, NoticeCode.PRIVATE_DEAL_LATE,
                         NoticeCode.PRIVATE_DEAL_BENCHED)
}
"""Codes a host's table notice may carry: the client words those facts itself."""


def host_notice(code: object, data: object) -> Notice | None:
    """A host's coded table notice as our own `Notice` (None: not one we word ourselves).

    Only checked data goes in: seats are ints 0 .. 255 (or None), a fault kind is one
    of `rami_lan.masked.audit.FaultKind`'s names, counts are small ints; anything else
    from the host is dropped (its words never reach the player as ours)."""
    from rami_lan.masked.audit import FaultKind

    notice_code = HOST_NOTICE_CODES.get(code) if isinstance(code, str) else None
    if notice_code is None or not isinstance(data, dict):
        return None

    def small(value: object, top: int) -> int | None:
        return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= top else None

    def seat(value: object) -> int | None:
        return small(value, 255)

    out: dict[str, Any] = {}
    if "seat" in data:
        out["seat"] = seat(data["seat"])
    if "kind" in data:
        kind = data["kind"]
        out["kind"] = kind if isinstance(kind, str) and kind in FaultKind.__members__ else "?"
    if "left" in data:
        out["left"] = data["left"] is True
    if "count" in data:
        out["count"] = small(data["count"], 9999) or 0
    if "reason" in data:
        reason = data["reason"]
        out["reason"] = reason if reason in ("no_commit", "no_reveal", "bad_reveal") else "?"
    if "seats" in data:
        seats = data["seats"] if isinstance(data["seats"], list) else []
        out["seats"] = [s for s in (seat(x) for x in seats[:256]) if s is not None]
    return Notice.of(notice_code, **out)
