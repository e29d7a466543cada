"""A bug in handling one host message never stops the client reading (chaos, private
tables: an exception in the timed-out move's choice ended the read loop, and the player
hung, connected, until the match was long over)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from rami_lan.net import protocol as P
from rami_lan.net.client_link import ClientLink


class _Link(ClientLink):
    def __init__(self) -> None:  # only what `_handle_safely` uses
        self.handled: list[Any] = []

    async def _handle(self, msg: P.Message) -> None:
        if isinstance(msg, P.Ping) and msg.n == 1:
            raise AttributeError("'NoneType' object has no attribute 'is_joker'")
        if isinstance(msg, P.Ping) and msg.n == 2:
            raise ConnectionResetError("the host went away")
        self.handled.append(msg)


def test_a_handler_bug_drops_that_message_logs_it_and_the_next_one_is_handled(
        caplog: pytest.LogCaptureFixture) -> None:
    link = _Link()

    async def scenario() -> None:
        with caplog.at_level(logging.ERROR, logger="rami_lan.net.client"):
            await link._handle_safely(P.Ping(n=1))
        await link._handle_safely(P.Ping(n=3))
        with pytest.raises(ConnectionResetError):  # a lost connection still ends the read loop
            await link._handle_safely(P.Ping(n=2))

    asyncio.run(scenario())
    assert link.handled == [P.Ping(n=3)]
    assert "a Ping message from the host could not be handled" in caplog.text
    assert "is_joker" in caplog.text  # with its traceback
