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
