"""RemoteTableSession against a scripted host: the commit-reveal order, updates,
refusal and a failed fairness check (loopback only)."""

from __future__ import annotations

import asyncio
from typing import Any

import aio_helpers
import pytest

from rami_lan.core import actions as A
from rami_lan.net import protocol as P
from rami_lan.net import tls
from rami_lan.net.client import JoinRefused, open_session
from rami_lan.table.shuffle import commitment, round_tag

pytestmark = pytest.mark.usefixtures("isolated_config")


TABLE_ID = bytes(range(16))


@pytest.fixture(autouse=True)
def _private_data_dir(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A failed fairness check writes its evidence to the test's folder, not the user's."""
    monkeypatch.setenv("RAMI_LAN_DATA_DIR", str(tmp_path))


def run(coro: Any, timeout: float = 20.0) -> Any:
    return aio_helpers.run(coro, timeout)


class ScriptedHost:
    """A one-connection host speaking the protocol by hand."""

    def __init__(self) -> None:
        self.received: asyncio.Queue[P.Message] = asyncio.Queue()
        self.session = P.Session("host")
        self.writer: asyncio.StreamWriter | None = None
        self.server: asyncio.Server | None = None
        self.refuse: str | None = None
        self._pings = 0

    async def start(self) -> int:
        identity = tls.load_or_create_identity("scripted")
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0,
                                                 ssl=tls.server_context(identity))
        return self.server.sockets[0].getsockname()[1]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.writer = writer
        while data := await reader.read(65536):
            for msg in self.session.receive_data(data):
                if isinstance(msg, P.Hello):
                    if self.refuse:
                        self.send(P.Refused(code=self.refuse, message="no"))
                        return
                    self.send(P.Welcome(table_id=TABLE_ID, seat=1, token=bytes(16),
                                        table={"variant": "rami", "timer": 0, "seats": 2, "host_seat": 0},
                                        players=[{"seat": 0, "nick": "h"},
                                                 {"seat": 1, "nick": "me"}]))
                await self.received.put(msg)

    def send(self, msg: P.Message) -> None:
        assert self.writer is not None
        self.writer.write(self.session.send(msg))

    async def next(self, kind: type, timeout: float = 2.0) -> Any:
        while True:
            msg = await asyncio.wait_for(self.received.get(), timeout)
            if isinstance(msg, kind):
                return msg

    async def fence(self) -> list[P.Message]:
        """Send a ``ping`` and return what the client sent before its ``pong``. The client
        handles the host's messages one at a time, in order, on one ordered connection:
        whatever it sends in answer to an earlier message comes before that pong."""
        self._pings += 1
        n = self._pings
        self.send(P.Ping(n=n))
        before: list[P.Message] = []
        while True:
            msg = await asyncio.wait_for(self.received.get(), 5.0 * aio_helpers.DEADLINE_SCALE)
            if isinstance(msg, P.Pong) and msg.n == n:
                return before
            before.append(msg)

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()


async def _commit_reveal_order() -> None:
    host = ScriptedHost()
    port = await host.start()
    client = await open_session("127.0.0.1", port, nickname="me")
    try:
        assert client.seat == 1 and client.variant == "rami"
        await host.next(P.Hello)
        tag = round_tag(TABLE_ID, 1, 1)
        host.send(P.CommitRequest(round_tag=tag, seat=1))
        commit = await host.next(P.Commit)
        assert commit.round_tag == tag
        # no reveal before the commitment list: nothing the client sent after its
        # commitment, up to its answer to a later ping, is a reveal
        before = await host.fence()
        assert not any(isinstance(m, P.Reveal) for m in before), before
        host_secret = bytes([7]) * 32
        host.send(P.Commitments(round_tag=tag, commits={
            0: commitment(tag, 0, host_secret), 1: commit.commit}))
        reveal = await host.next(P.Reveal)
        assert commitment(tag, 1, reveal.secret) == commit.commit
        # end of round with a wrong secret for seat 0: the client reports it
        host.send(P.RoundSecrets(round_tag=tag, secrets={0: bytes(32), 1: reveal.secret},
                                 excluded=[]))
        async for up in client.updates():
            if up.fairness is not None:
                ok, details = up.fairness
                assert not ok and "commitment" in details
                break
        # actions go out as protocol messages
        await client.act(A.DrawStock(1))
        msg = await host.next(P.Action)
        assert msg.action == {"kind": "draw_stock", "seat": 1}
        await client.act(A.Knock(1))
        assert isinstance(await host.next(P.Knock), P.Knock)
        await client.next_round("continue")
        assert (await host.next(P.NextRound)).choice == "continue"
    finally:
        await client.close()
        await host.stop()


def test_reveal_only_after_the_commitment_list() -> None:
    run(_commit_reveal_order())


async def _commitments_without_ours() -> None:
    host = ScriptedHost()
    port = await host.start()
    client = await open_session("127.0.0.1", port, nickname="me")
    try:
        tag = round_tag(TABLE_ID, 1, 1)
        host.send(P.CommitRequest(round_tag=tag, seat=1))
        await host.next(P.Commit)
        host.send(P.Commitments(round_tag=tag, commits={0: bytes(32)}))
        # the client judges the list (the round fails: our commitment is not in it) ...
        failed = None
        async for up in client.updates():
            r = up.fairness_round
            if r is not None and r.status == "failed":
                failed = r
                break
        assert failed is not None and "our commitment is missing" in failed.reason
        # ... and what it sends next is the next message, never a reveal (one connection
        # keeps its order, so a reveal would have come first)
        await client.next_round("continue")
        seen = []
        while not seen or not isinstance(seen[-1], P.NextRound):
            seen.append(await asyncio.wait_for(host.received.get(), 2.0))
        assert not any(isinstance(m, P.Reveal) for m in seen), seen
    finally:
        await client.close()
        await host.stop()


def test_no_reveal_if_our_commitment_is_missing() -> None:
    run(_commitments_without_ours())


async def _wrong_tag_then_reused() -> None:
    host = ScriptedHost()
    port = await host.start()
    client = await open_session("127.0.0.1", port, nickname="me", evidence_dir=None)
    try:
        wrong = round_tag(TABLE_ID, 1, 2)  # round 2's tag for round 1
        host.send(P.CommitRequest(round_tag=wrong, seat=1))
        async for up in client.updates():
            if up.fairness_round is not None:
                assert up.fairness_round.status == "failed"
                assert up.fairness is not None and not up.fairness[0]
                break
        # no commitment for a wrong tag: none in all the client sent before its answer
        # to a ping sent after the request
        before = await host.fence()
        assert not any(isinstance(m, P.Commit) for m in before), before
        assert client.fairness_rounds()[0].round_no == 1
        assert client.mismatches[0].code == "tag_wrong"
    finally:
        await client.close()
        await host.stop()


def test_no_commitment_for_a_tag_that_is_not_the_rounds(tmp_path: Any) -> None:
    run(_wrong_tag_then_reused())
    assert list((tmp_path / "fairness").glob("*.json"))  # the evidence


async def _refused() -> None:
    host = ScriptedHost()
    host.refuse = "table_full"
    port = await host.start()
    try:
        with pytest.raises(JoinRefused) as info:
            await open_session("127.0.0.1", port, nickname="me")
        assert info.value.code == "table_full"
    finally:
        await host.stop()


def test_refusal_raises() -> None:
    run(_refused())


async def _host_goes_away() -> list[str]:
    host = ScriptedHost()
    port = await host.start()
    client = await open_session("127.0.0.1", port, nickname="me", retries=2, backoff=0.01)
    states = []
    await host.stop()
    assert host.writer is not None
    host.writer.transport.abort()
    async for up in client.updates():
        if up.connection:
            states.append(up.connection)
    await client.close()
    return states


def test_gives_up_reconnecting_after_bounded_retries() -> None:
    states = run(_host_goes_away())
    assert states == ["connected", "reconnecting", "closed"]
