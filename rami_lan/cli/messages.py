"""Sentences for players, in English and French, made from the facts `net` and `table` report.

The layers below `cli` never translate: the client reports a `Notice` (a `NoticeCode`
plus data), a join code is refused with a `WeakCode`, a chat line with a `ChatRefusal`,
a round's fairness is a `FairnessRound`, a player on the LAN has a `PlayerStatus`, an
action is refused with a coded `rami_lan.core.reasons.Reason`. This module is the one
place that turns each of them into the player's language (gettext, `rami_lan.i18n`; the
French is in ``rami_lan/locale/fr/*.po``); the rules' refusals are worded by its helper
`rami_lan.cli.refusals`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from rami_lan.cli import refusals
from rami_lan.core.reasons import Reason
from rami_lan.i18n import _, ngettext
from rami_lan.ids import DEDICATED_HOST_SEAT
from rami_lan.net.notices import Notice, NoticeCode
from rami_lan.table.chat import ChatRefusal, ChatVerdict, clean_chat_text
from rami_lan.table.verifier import Status

if TYPE_CHECKING:  # compared by value below: the table screen need not load zeroconf
    from rami_lan.net.fairness import FairnessRound
    from rami_lan.net.pake import WeakCodeError
    from rami_lan.net.presence import Invitation, InviteReply, PlayerStatus, WhoMaySit

__all__ = [
    "chat_line",
    "chat_refusal_text",
    "error_text",
    "fairness_details",
    "invitation_prompt",
    "invitation_sent_text",
    "invite_reply_text",
    "bot_mark",
    "join_refused_text",
    "level_name",
    "notice_text",
    "own_refusal_text",
    "player_status_text",
    "quit_confirmation",
    "rami_sec_note",
    "refusal_text",
    "session_text",
    "shown_nickname",
    "weak_code_text",
    "who_may_sit_label",
]


# --------------------------------------------------------------------------- the client's notices


def _chat_refused(n: Notice) -> str:
    refusal = n.get("refusal")
    try:
        refusal = ChatRefusal(refusal) if refusal is not None else None
    except ValueError:
        refusal = None
    return chat_refusal_text(ChatVerdict(ok=False, refusal=refusal,
                                         retry_after=float(n.get("retry_after", 1.0))))


def _private_deal_fault(n: Notice) -> str:
    seat = n.get("seat")
    who = (_seat_name(seat) if isinstance(seat, int)
           else _("someone (the round's audit will tell who)"))
    return _("Private dealing: the masked deck was not followed ({kind}) by {who}. "
             "This round can not be trusted.").format(kind=n.get("kind", "?"), who=who)


_NAMES: ContextVar[Mapping[int, str] | None] = ContextVar("seat_names", default=None)
"""The seats' nicknames while `notice_text` makes a sentence (None: "seat N")."""


def _seat_name(seat: object) -> str:
    if seat == DEDICATED_HOST_SEAT:
        return _("the host")
    names = _NAMES.get()
    if isinstance(seat, int) and names and names.get(seat):
        from rami_lan.textsafe import safe_name

        return safe_name(names[seat])
    return _("seat {n}").format(n=seat + 1) if isinstance(seat, int) else "?"


def _audit_faults(n: Notice) -> str:
    seats = n.get("seats") or []
    named = ", ".join(_seat_name(s) for s in seats) or "-"
    count = n.get("count", 0)
    count = count if isinstance(count, int) else 0
    return ngettext(
        "Private dealing: this round's audit found {count} fault; named: {named}. This round "
        "can not be trusted.",
        "Private dealing: this round's audit found {count} faults; named: {named}. This round "
        "can not be trusted.", count).format(count=count, named=named)


def _left_out(n: Notice) -> str:
    who = _seat_name(n.get("seat"))
    reason = n.get("reason")
    if reason == "no_reveal":
        return _("{who} is left out of this round's shuffle: their secret did not come in "
                 "time.").format(who=who)
    if reason == "bad_reveal":
        return _("{who} is left out of this round's shuffle: their secret did not match "
                 "their commitment.").format(who=who)
    return _("{who} is left out of this round's shuffle: no commitment in time.").format(who=who)


_NOTICES: dict[NoticeCode, Callable[[Notice], str]] = {
    NoticeCode.NOT_CONNECTED: lambda n: _("Not connected to the table."),
    NoticeCode.INVALID_DATA: lambda n: _("The host sent invalid data."),
    NoticeCode.RECONNECTED: lambda n: _("Reconnected to the table."),
    NoticeCode.REJOIN_REFUSED: lambda n: _("The table refused to take us back: {why}").format(
        why=n.get("why", "-")),
    NoticeCode.CERTIFICATE_CHANGED: lambda n: _(
        "The table's certificate changed: someone may be intercepting the "
        "connection. Not reconnecting."),
    NoticeCode.RECONNECT_GAVE_UP: lambda n: _(
        "Could not reconnect to the table: no answer at {where} for {secs:.0f} s, and no "
        "table with its id on the network. Giving up."
    ).format(where=n.get("where", "?"), secs=float(n.get("secs", 0))),
    NoticeCode.HOST_PAUSED: lambda n: _(
        "The host paused the table; its match can go on. Waiting up to {secs:.0f} s for it "
        "to come back (rami-lan host --resume)."
    ).format(secs=float(n.get("secs", 0))),
    NoticeCode.HOST_CLOSED: lambda n: _("The host closed the table: {why}").format(
        why=_(str(n.get("why") or "-"))),  # the table's own reasons are in the catalogue
    NoticeCode.UNEXPECTED_COMMIT_REQUEST: lambda n: _(
        "The host's commitment request is not the expected one: we do not commit."),
    NoticeCode.CHAT_REFUSED: _chat_refused,
    NoticeCode.HOST_REFUSED_CHAT: lambda n: _("The host refused the message: {why}").format(
        why=n.get("why", "-")),
    NoticeCode.CODE_NEEDED: lambda n: _("This table needs a join code."),
    NoticeCode.WRONG_CODE: lambda n: _("Wrong join code, or the connection is being intercepted."),
    NoticeCode.PAKE_ERROR: lambda n: str(n.get("why", "")),
    NoticeCode.CODE_NOT_ASKED: lambda n: _(
        "The table did not ask for the join code: the connection may be intercepted."),
    NoticeCode.PRIVATE_DEAL_FAULT: lambda n: _private_deal_fault(n),
    NoticeCode.PRIVATE_DEAL_REFUSED: lambda n: _(
        "Private dealing: the host asked for hidden cards the rules do not give away now, or "
        "sent what does not fit the game ({what}). Nothing was given. This round can not be "
        "trusted."
    ).format(what=n.get("what", "?")),
    NoticeCode.TIMER_PLAYED: lambda n: _("Time is up: the automatic move is played for you."),
    NoticeCode.SEAT_HANDED_OVER: lambda n: _(
        "{who} left the table and gave their hand to the host: the host's bot plays it for "
        "the rest of this round."
    ).format(who=_seat_name(n.get("seat"))),
    NoticeCode.PRIVATE_ROUND_VOID: lambda n: (_(
        "{who} did not answer in time: nobody else can play their hidden cards, so this round "
        "is void (no score). The next round is dealt.")
        if n.get("left") is False else _(  # (an older host sends no ``left``: it was gone)
        "{who} is gone: nobody else can play their hidden cards, so this round is void (no "
        "score). The next round is dealt."
    )).format(who=_seat_name(n.get("seat"))),
    NoticeCode.PRIVATE_DEAL_LATE: lambda n: (_(
        "{who} left: the table went on without what it waited for from them.")
        if n.get("left") else _(
        "{who} did not send a private-dealing message in time (the table waited one deadline)."
    )).format(who=_seat_name(n.get("seat"))),
    NoticeCode.PRIVATE_DEAL_BENCHED: lambda n: _(
        "{who} missed private-dealing deadlines in two rounds: they leave the private deal, "
        "and the host's bot plays their seat from the next round."
    ).format(who=_seat_name(n.get("seat"))),
    NoticeCode.PRIVATE_AUDIT_FAULTS: _audit_faults,
    NoticeCode.LEFT_OUT_OF_SHUFFLE: _left_out,
    NoticeCode.POSSIBLE_INTERCEPTION: lambda n: _(
        "Possible interception: the table's certificate changed since you last "
        "joined it ({old} -> {new}) and the join code was not accepted. Compare the "
        "table fingerprint with the host before trying again."
    ).format(old=n.get("old", "?"), new=n.get("new", "?")),
}


def notice_text(notice: Notice, names: Mapping[int, str] | None = None) -> str:
    """The player's sentence for one of the client's notices; ``names`` (seat ->
    nickname) names the seats it speaks of, else they are "seat N"."""
    token = _NAMES.set(names)
    try:
        return _NOTICES[notice.code](notice)
    finally:
        _NAMES.reset(token)


def session_text(item: Notice | str | None, names: Mapping[int, str] | None = None) -> str:
    """A `SessionUpdate`'s ``notice`` as the player reads it: a `Notice` in the player's
    language (``names``: the seats' nicknames); text (a sentence the in-process table
    made, a host's table notice) as is."""
    if item is None:
        return ""
    return notice_text(item, names) if isinstance(item, Notice) else str(item)


def error_text(item: Notice | Reason | str | None, names: Mapping[int, str] | None = None,
               me: int | None = None) -> str:
    """A `SessionUpdate`'s ``error``: a `Notice` in the player's language; the table's
    refusal of our own action (a coded `Reason`, or an old host's text) as
    `own_refusal_text` says it. ``names``: the seats' nicknames; ``me``: our seat (the
    refusal speaks to us)."""
    if item is None:
        return ""
    if isinstance(item, Notice):
        return notice_text(item, names)
    return own_refusal_text(item if isinstance(item, Reason) else str(item), names, me)


# --------------------------------------------------------------------------- our own refused actions


def own_refusal_text(refusal: Reason | str, names: Mapping[int, str] | None = None,
                     me: int | None = None) -> str:
    """Why the table refused our own action, in the player's words (worded from its code
    and data by `rami_lan.cli.refusals.own_refusal_text`; ``names``: the seats'
    nicknames; ``me``: our seat). Text (an old host's refusal) is shown as it is."""
    token = _NAMES.set(names)
    try:
        return refusals.own_refusal_text(refusal, _seat_name, me)
    finally:
        _NAMES.reset(token)


def refusal_text(code: str) -> str:
    """The host's ``refused`` code (`rami_lan.net.protocol.REFUSED_CODES`) as a sentence
    for the player."""
    return {
        "bad_code": _("Wrong join code."),
        "not_invited": _("This table is by invitation only."),
        "table_full": _("This table is full."),
        "in_progress": _("The match has already started at this table."),
        "rate_limited": _("Too many attempts: try again in a moment."),
        "bad_token": _("The table does not know this seat any more."),
        "bad_version": _("This table runs another version of rami-lan."),
    }.get(code, _("The table refused: {code}").format(code=code))


def join_refused_text(exc: Any) -> str:
    """Why a `JoinRefused` turned us away, in the player's language: our own notice, else
    the host's refusal code (its English text is only a detail for the log)."""

    notice = getattr(exc, "notice", None)
    if isinstance(notice, Notice):
        return notice_text(notice)
    code = str(getattr(exc, "code", ""))
    retry_after = getattr(exc, "retry_after", None)
    if code == "rate_limited" and isinstance(retry_after, int | float) and retry_after > 0:
        return _("Too many attempts: try again in {n} s.").format(n=max(1, math.ceil(retry_after)))
    return refusal_text(code)


# --------------------------------------------------------------------------- chat


def chat_refusal_text(verdict: ChatVerdict) -> str:
    """The sentence for a player whose chat line was refused ("" if it was not)."""
    if verdict.refusal is ChatRefusal.EMPTY:
        return _("The message is empty.")
    if verdict.refusal is ChatRefusal.RATE_LIMITED:
        return _("Too many messages: wait {seconds} s.").format(
            seconds=max(1, round(verdict.retry_after)))
    if verdict.refusal is ChatRefusal.BOT:
        return _("Bots do not chat.")
    return ""


def chat_line(nickname: str, text: str) -> str:
    """A relayed chat message as one line of the table's log area (cleaned, translated)."""
    shown, _cut = clean_chat_text(text)
    return _("{nick}: {text}").format(nick=nickname, text=shown)


# --------------------------------------------------------------------------- fairness


def _exclusion_reason(code: str) -> str:
    """Why a seat was left out of a round's shuffle (the host's code) in words."""
    return {
        "no_commit": _("no commitment in time"),
        "no_reveal": _("their secret did not come in time"),
        "bad_reveal": _("their secret did not match their commitment"),
    }.get(code, _("no reason given"))


def fairness_details(r: FairnessRound, names: Mapping[int, str] | None = None) -> str:
    """A round's fairness for the player, with the verifier's reason appended: its fixed
    reasons (a session that ended first, a void round...) are translated, a finding's
    detail stays as the verifier wrote it (English evidence)."""
    r = replace(r, reason=_(r.reason) if r.reason else r.reason)
    excluded = ""
    if r.excluded:  # named by nickname when the screen knows them (``names``)
        token = _NAMES.set(names)
        try:
            seats = ", ".join(f"{_seat_name(s)} ({_exclusion_reason(why)})" for s, why in r.excluded)
        finally:
            _NAMES.reset(token)
        excluded = " " + _("Excluded from the shuffle: {seats}.").format(seats=seats)
    token = _NAMES.set(names)
    try:
        culprit = _seat_name(r.void[0]) if r.void is not None and r.void[0] is not None else "?"
        withheld = ", ".join(_seat_name(s) for s in r.withheld)
    finally:
        _NAMES.reset(token)
    if r.status == Status.CHECKED and r.void is not None:  # a well-formed void: not a fault of the host
        if r.void[1] == "no_answer":
            return _("Round {n}: void because {who} did not answer in time; no score. Its "
                     "shuffle's commitments are checked.").format(n=r.round_no, who=culprit) + excluded
        return _("Round {n}: void because {who} left; no score. Its shuffle's commitments are "
                 "checked.").format(n=r.round_no, who=culprit) + excluded
    if r.status == Status.CHECKED:
        return _("Round {n}: fair shuffle and rulings checked ({e} events replayed).").format(
            n=r.round_no, e=r.events_checked) + excluded
    if r.status == Status.PARTIAL and r.withheld:
        # (who owed the audit; the host only relays it: see docs/fair_shuffle.md, limits)
        return _("Round {n}: only partly checked: the audit of the masked deck owed by {who} never "
                 "came, so nobody can recompute this round's deck. Its shuffle's commitments are "
                 "checked, its cards are not.").format(n=r.round_no, who=withheld)
    if r.status == Status.FAILED:
        text = _("Round {n}: fairness check FAILED: {why}").format(n=r.round_no, why=r.reason)
        if r.evidence:
            text += "\n" + _("Evidence kept in {path}").format(path=r.evidence)
        return text
    if r.status == Status.PARTIAL:
        return _("Round {n}: only partly checked: {why}").format(n=r.round_no, why=r.reason)
    if r.status == Status.UNCHECKED:
        return _("Round {n}: not checked: {why}").format(n=r.round_no, why=r.reason)
    return _("Round {n}: fairness check pending.").format(n=r.round_no)


# --------------------------------------------------------------------------- join codes


def weak_code_text(exc: WeakCodeError) -> str:
    """Why a chosen join code is refused, for the player."""
    d = exc.data
    if exc.reason == "bad_length":
        return _("A join code is 1 to {n} printable characters.").format(n=d.get("max_chars"))
    if exc.reason == "few_symbols":
        return _(
            "This join code is too easy to guess: it uses {n} different characters or fewer."
        ).format(n=d.get("max_distinct"))
    if exc.reason == "sequence":
        return _("This join code is too easy to guess: it is mostly a sequence like 1234 or abcd.")
    return _(
        "This join code is too easy to guess ({bits} bits, at least {min} needed): use "
        "at least 8 letters and digits, or 11 digits, or let rami-lan make one."
    ).format(bits=d.get("bits"), min=d.get("min_bits"))


# --------------------------------------------------------------------------- players and invitations


def level_name(level: str | None) -> str:
    """A bot level as players read it, the same word on every screen (forms, the table,
    Info joueur): beginner / medium / expert (débutant / moyen / expert)."""
    return {"debutant": _("beginner"), "moyen": _("medium"), "expert": _("expert")}.get(
        str(level), str(level))


def bot_mark(level: str | None) -> str:
    """"bot, medium": what the table and the forms show for a bot seat."""
    return _("bot, {lv}").format(lv=level_name(level)) if level else _("bot")


_BOT_NAME = re.compile(r"[Bb]ot ([1-9])")


def shown_nickname(nick: str) -> str:
    """A seat's nickname as this player reads it: a table's default bot name ("Bot 2",
    the same on every table) in the player's language ("Robot 2" in French)."""
    m = _BOT_NAME.fullmatch(nick or "")
    return _("Bot {n}").format(n=m.group(1)) if m else nick


def rami_sec_note(multiplier: int, bonus: int) -> str:
    """What a rami sec did to a loser's hand on the result screen: "×2 (rami sec)"
    (rami, multi), "+25 (rami sec)" (classique, 40); "" when it changes nothing."""
    if multiplier > 1:
        return _("×{n} (rami sec)").format(n=multiplier)
    if bonus:
        return _("+{n} (rami sec)").format(n=bonus)
    return ""


def quit_confirmation(model: Any) -> str:
    """What the first ``q`` of ``q q`` says: the table's owner (its host seat) closes the
    table for everyone, unless everyone else is a bot; anyone else only leaves."""
    table = getattr(model, "table", {}) or {}
    seat = getattr(model, "seat", None)
    if table.get("host_seat") == seat and seat is not None and not table.get("local"):
        others = [s for s in getattr(model, "seats", lambda: [])() if s != seat]
        conns = getattr(model, "connections", {}) or {}
        bots = {b[0] for b in table.get("bots") or [] if isinstance(b, list | tuple) and b}
        if not others or any(conns.get(s) != "bot" and s not in bots for s in others) \
                or len(others) + 1 < int(table.get("seats") or 0):
            return _("Press q again to close the table for everyone.")
    return _("Press q again to leave the table.")


def player_status_text(status: PlayerStatus | str) -> str:
    """A player's status in the lobby's player list."""
    if status == "at_table":
        return _("at a table")
    return _("in the lobby")


def who_may_sit_label(who: WhoMaySit | str) -> str:
    """The owner's choice of who may take a free seat."""
    return {
        "anyone": _("Anyone"),
        "code": _("Code only"),
        "invited": _("Invited only"),
    }[str(who)]


def invitation_sent_text(nickname: str) -> str:
    """The line for the owner's log area once an invitation is sent."""
    return _("Invitation sent to {nick}.").format(nick=nickname)


def invitation_prompt(inv: Invitation) -> str:
    """The one-line prompt shown to the invited player."""
    return _("{nick} invites you to the table “{table}” ({variant}). Join?").format(
        nick=inv.from_nick, table=inv.table_name, variant=inv.variant)


def invite_reply_text(reply: InviteReply, nickname: str) -> str:
    """An invitation's answer, for the owner's log area."""
    if reply.answer == "accept":
        return _("{nick} accepted your invitation.").format(nick=nickname)
    if reply.answer == "decline":
        return _("{nick} declined your invitation.").format(nick=nickname)
    return _("{nick} is busy.").format(nick=nickname)


def os_error_text(exc: BaseException) -> str:
    """What went wrong with a file or a connection, in the player's words (no Python
    class names): refused, unknown host, no answer, no such file, a folder, ..."""
    import errno
    import json
    import socket

    if isinstance(exc, socket.gaierror):
        return _("unknown host name")
    if isinstance(exc, ConnectionRefusedError):
        return _("connection refused (no table is listening there)")
    if isinstance(exc, TimeoutError):
        return _("no answer in time")
    if isinstance(exc, ConnectionError):
        return _("the connection was lost")
    if isinstance(exc, FileNotFoundError):
        return _("no such file")
    if isinstance(exc, IsADirectoryError):
        return _("it is a folder, not a file")
    if isinstance(exc, PermissionError):
        return _("permission denied")
    if isinstance(exc, OSError) and exc.errno in (errno.EHOSTUNREACH, errno.ENETUNREACH):
        return _("the host can not be reached")
    if isinstance(exc, OSError) and exc.errno == errno.EADDRINUSE:
        return _("the port is already in use (another table? choose another --port)")
    if isinstance(exc, OSError) and exc.errno in (errno.EADDRNOTAVAIL, errno.ENODEV):
        return _("this address is not one of this computer's (--interface)")
    if isinstance(exc, NotADirectoryError):
        return _("a part of the path is a file, not a folder")
    if isinstance(exc, json.JSONDecodeError):
        return _("not valid JSON (line {line}, column {col}): the file is damaged or cut short").format(
            line=exc.lineno, col=exc.colno)
    if isinstance(exc, UnicodeDecodeError):
        return _("not a text file (UTF-8)")
    if isinstance(exc, RecursionError):
        return _("nested too deeply")
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


def record_error_text(exc: BaseException) -> str:
    """Why a record file (``verify``, ``replay``) can not be used, in the player's words:
    the file error or JSON position, or the field that is wrong; never a Python repr."""
    import json

    from rami_lan.net.record import RecordBoundsError
    from rami_lan.textsafe import clip

    if isinstance(exc, OSError | UnicodeDecodeError | RecursionError | json.JSONDecodeError):
        return os_error_text(exc)
    from rami_lan.net.record import MAX_RECORD_BYTES, RecordTooLargeError

    if isinstance(exc, RecordTooLargeError):
        return _("larger than {n} bytes").format(n=MAX_RECORD_BYTES) if exc.code == "size" \
            else _("too large or nested too deeply to be a match record")
    if isinstance(exc, RecordBoundsError):
        return _("a field is missing, of the wrong type or out of bounds: {what}").format(
            what=clip(str(exc), 200))
    return clip(str(exc) or type(exc).__name__, 300)


# The table settings' and match options' refusals (`rami_lan.core.errors.SettingsError`:
# a code and its data) as the player's sentence.
_SETTINGS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "seats_range": lambda d: _("A table has 2 to 4 seats."),
    "bot_seat": lambda d: _("Seat {seat} is not a seat of this table.").format(seat=int(d["seat"]) + 1),
    "bot_level": lambda d: _("The bot level is one of {levels}, not {level}.").format(**d),
    "timer_negative": lambda d: _("The move timer is a number of seconds, 0 for none."),
    "who_may_sit": lambda d: _("Who may sit is one of {choices}, not {who}.").format(**d),
    "code_needs_code": lambda d: _("A table with a join code needs a code."),
    "code_not_anyone": lambda d: _("A table with a join code lets in only those who give it: "
                                   "--who code (or invited)."),
    "all_bots": lambda d: _("Every seat is a bot: none is left for you (--headless hosts without "
                            "playing)."),
    "limit_choice": lambda d: _("{variant}: the point limit is one of {limits}, not {limit}.").format(**d),
    "target_range": lambda d: _("{variant}: the target is between 50 and 100000, not {limit}.").format(**d),
    "limit_fixed": lambda d: _("{variant}: the match is played to {limit} (no other limit).").format(**d),
    "no_quick": lambda d: _("{variant} has no quick match.").format(**d),
    "no_knock": lambda d: _("{variant} is played without frapper.").format(**d),
}


def coded_error_text(exc: BaseException | str,
                     words: Mapping[str, Callable[[Mapping[str, Any]], str]]) -> str:
    """An error that carries a ``code`` and its ``data`` (`SettingsError`, `PluginError`)
    in the player's language through ``words`` (code -> sentence from the data); an
    error without a known code, or whose data does not fit, as its text."""
    word = words.get(getattr(exc, "code", ""))
    if word is not None:
        try:
            return str(word(getattr(exc, "data", {})))
        except (KeyError, ValueError, TypeError):
            pass
    return str(exc)


def settings_error_text(exc: BaseException | str) -> str:
    """Why a table's settings (or a simulation's options) were refused, in the player's
    language, from the `SettingsError`'s code and data; any other error is passed on as
    its text."""
    return coded_error_text(exc, _SETTINGS)


def interface_problem(values: list[str] | None) -> str:
    """Why an ``--interface`` value can not be used ("" when each is an IP address):
    said before any socket is opened, in the player's language."""
    import ipaddress

    from rami_lan.textsafe import safe_text

    for value in values or []:
        try:
            ipaddress.ip_address(value)
        except ValueError:
            return _("--interface {value} is not an IP address (one of this computer's, such "
                     "as 192.168.1.20)").format(value=repr(safe_text(value, 64)))
    return ""


def void_round_text(round_no: int, reason: str, seat: int | None) -> str:
    """Why a round of a record is void (`rami_lan.net.record.VOID_TEXT`), in the player's
    language: "round 3 void: ..."."""
    why = {
        "player_gone": _("a player holding hidden cards was gone for good (private dealing): "
                         "no score"),
        "host_restarted": _("the host restarted during the private round and could not take it "
                            "up: no score"),
        "no_participant": _("nobody was left to hold the masked deck's keys: no score"),
        "fault": _("a participant broke the masked deck's rules: no score"),
        "shuffle_stopped": _("the masked deck's shuffle could not be finished: no score"),
    }.get(reason, reason)
    if seat is None:
        return _("round {n} void: {why}").format(n=round_no, why=why)
    return _("round {n} void: {why} (seat {seat})").format(n=round_no, why=why, seat=seat + 1)


def verify_report_lines(report: Any) -> list[str]:
    """A `rami_lan.net.record.VerifyReport` as the player reads it (``rami-lan verify``
    and the replay screen's ``v``): counts, each mismatch, the verdict."""
    lines = [_("rounds checked: {r}, cards checked: {c}").format(
        r=report.rounds, c=report.checked_cards)]
    if report.rounds == 0 and not report.problems:
        lines.append(_("MISMATCH: {what}").format(what=_("the record holds no round")))
    lines += [_("MISMATCH: {what}").format(what=p) for p in report.problems]
    lines += [_("NOTE: {what}").format(what=void_round_text(*v)) for v in getattr(report, "voids", ())]
    if report.ok:
        lines.append(_("OK: every round matches the agreed shuffle."))
    else:
        lines.append(_("FAILED: this record does not match the fair shuffle."))
    return lines
