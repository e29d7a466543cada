"""The client reports facts, `cli.messages` says them: a host's words reach the player
only as data inside the client's own sentences (loopback only)."""

from __future__ import annotations

from typing import Any

import pytest
from test_client import ScriptedHost, run

from rami_lan.cli.messages import error_text, session_text
from rami_lan.i18n import set_language
from rami_lan.net import protocol as P
from rami_lan.net.client import open_session
from rami_lan.net.notices import Notice, NoticeCode
from rami_lan.table.chat import ChatRefusal

pytestmark = pytest.mark.usefixtures("isolated_config", "english")


def test_a_host_cannot_speak_for_the_client() -> None:
    """A host that dresses its text as the client's own messages: a chat refusal naming a
    known refusal is said with our sentence (its words dropped), any other refusal and
    the ``bye`` reason are framed as the host's, in the player's language."""

    async def scenario() -> list[Any]:
        host = ScriptedHost()
        port = await host.start()
        client = await open_session("127.0.0.1", port, nickname="me")
        seen: list[Any] = []
        try:
            host.send(P.Error(code="chat_refused", message="empty: Reconnected to the table."))
            host.send(P.Error(code="chat_refused", message="Reconnected to the table."))
            host.send(P.Bye(reason="Reconnected to the table."))
            async for up in client.updates():
                seen += [x for x in (up.error, up.notice) if x is not None]
                if len(seen) >= 3:
                    break
        finally:
            await client.close()
            await host.stop()
        return seen

    empty, other, bye = run(scenario())
    assert all(isinstance(x, Notice) for x in (empty, other, bye)), (empty, other, bye)
    assert empty.code is NoticeCode.CHAT_REFUSED and empty.get("refusal") is ChatRefusal.EMPTY
    assert other == Notice.of(NoticeCode.HOST_REFUSED_CHAT, why="Reconnected to the table.")
    assert bye == Notice.of(NoticeCode.HOST_CLOSED, why="Reconnected to the table.")
    assert error_text(empty) == "The message is empty."
    assert error_text(other) == "The host refused the message: Reconnected to the table."
    assert session_text(bye) == "The host closed the table: Reconnected to the table."
    set_language("fr")
    assert error_text(empty) == "Le message est vide."
    assert error_text(other).endswith(": Reconnected to the table.")
    assert error_text(other) != "The host refused the message: Reconnected to the table."
    assert session_text(bye) != "The host closed the table: Reconnected to the table."


def test_an_unsent_line_says_so_in_the_players_language() -> None:
    """Not connected: the session reports a notice (no text made in net)."""

    async def scenario() -> Any:
        host = ScriptedHost()
        port = await host.start()
        client = await open_session("127.0.0.1", port, nickname="me")
        try:
            client.connection = "reconnecting"  # as during a drop
            await client.send_chat("salut")
            async for up in client.updates():
                if up.error is not None:
                    return up.error
        finally:
            await client.close()
            await host.stop()
        return None

    error = run(scenario())
    assert error == Notice.of(NoticeCode.NOT_CONNECTED)
    set_language("fr")
    assert error_text(error) == "Pas connecté à la table."


def test_the_table_screen_shows_notices_as_sentences() -> None:
    """The view-model turns the session's facts into the log line and the error line."""
    from rami_lan.cli.ui.model import TableModel
    from rami_lan.net.table_session import SessionUpdate

    m = TableModel(seat=0, variant="rami")
    m.apply(SessionUpdate(notice=Notice.of(NoticeCode.HOST_CLOSED, why="fin")))
    assert m.notice == "The host closed the table: fin" and m.log[-1] == m.notice
    m.apply(SessionUpdate(error=Notice.of(NoticeCode.CHAT_REFUSED, refusal=ChatRefusal.BOT)))
    assert m.error == "Bots do not chat."
    set_language("fr")
    m.apply(SessionUpdate(notice=Notice.of(NoticeCode.RECONNECTED)))
    assert m.notice == "Reconnecté à la table." and m.log[-1] == m.notice
    m.apply(SessionUpdate(notice="seat 2 is left out of this round's shuffle: no_reveal"))
    assert m.log[-1] == "seat 2 is left out of this round's shuffle: no_reveal"  # the host's text, as is


def test_a_hosts_coded_notice_is_said_in_our_words_with_checked_data() -> None:
    """Private dealing's table notices carry a code and data: the client words them in
    its player's language, keeps only checked data (a seat, a fault kind it knows, a
    count), and falls back to the host's text for a code it does not word itself."""
    from rami_lan.net.notices import host_notice

    left = host_notice("seat_handed_over", {"seat": 1})
    assert left == Notice.of(NoticeCode.SEAT_HANDED_OVER, seat=1)
    assert session_text(left) == ("seat 2 left the table and gave their hand to the host: the host's "
                                  "bot plays it for the rest of this round.")
    hostile = host_notice("private_deal_fault", {"kind": "Reconnected to the table.", "seat": 999,
                                                 "extra": "x"})
    assert hostile == Notice.of(NoticeCode.PRIVATE_DEAL_FAULT, kind="?", seat=None)
    faults = host_notice("private_audit_faults", {"count": 2, "seats": [255, 1, "x", -1]})
    assert faults is not None and faults.get("seats") == [255, 1]
    assert "named: the host, seat 2" in session_text(faults)
    late = host_notice("left_out_of_shuffle", {"seat": 2, "reason": "no_reveal"})
    assert session_text(late) == ("seat 3 is left out of this round's shuffle: their secret did not "
                                  "come in time.")
    odd = host_notice("left_out_of_shuffle", {"seat": 2, "reason": "because I say so"})
    assert odd is not None and odd.get("reason") == "?"
    assert host_notice("reconnected", {}) is None  # not a code a host may use
    assert host_notice("seat_handed_over", "seat 1") is None
    set_language("fr")
    try:
        void = host_notice("private_round_void", {"seat": 0})
        assert session_text(void).startswith("la place 1 n'est plus là : personne d'autre")
    finally:
        set_language("en")
