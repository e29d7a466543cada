"""The host's write batching (`ConnectionServer.corked`): frames sent during one batch of
the machine's effects go out as one write per connection, in order; a connection closed
inside the batch gets its frames first; outside a batch every frame is written at once."""

from __future__ import annotations

from rami_lan.net import protocol as P
from rami_lan.net.host import HostObserver
from rami_lan.net.host_conn import Conn, ConnectionServer


class Transport:
    def __init__(self) -> None:
        self.closing = False

    def is_closing(self) -> bool:
        return self.closing

    def get_write_buffer_size(self) -> int:
        return 0


class Writer:
    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.transport = Transport()

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    def close(self) -> None:
        self.transport.closing = True


class Server(ConnectionServer):
    def __init__(self) -> None:
        self._by_id: dict[int, Conn] = {}
        self._dirty: list[Conn] = []
        self._stopping = True  # a close runs no machine input here
        self.observer = HostObserver()


def _session() -> P.Session:
    session = P.Session("host")
    session._hello_done = session._established = True  # a seated connection, without the handshake
    return session


def _conn(server: Server, n: int) -> Conn:
    conn = Conn(id=n, session=_session(), writer=Writer(), peer=f"peer{n}")  # type: ignore[arg-type]
    server._by_id[n] = conn
    return conn


def _frames(*msgs: P.Message) -> bytes:
    session = _session()
    return b"".join(session.send(m, validate=False) for m in msgs)


def test_frames_of_a_batch_go_out_as_one_write_per_connection_in_order() -> None:
    s = Server()
    a, b = _conn(s, 1), _conn(s, 2)
    with s.corked():
        s._send(a, P.Ping(n=1))
        s._send(b, P.Ping(n=2))
        with s.corked():  # nested batches (a close inside a batch runs one) flush once, at the end
            s._send(a, P.Pong(n=3))
        s._send(a, P.Ping(n=4))
        assert a.writer.writes == [] and b.writer.writes == []  # type: ignore[attr-defined]
    assert a.writer.writes == [_frames(P.Ping(n=1), P.Pong(n=3), P.Ping(n=4))]  # type: ignore[attr-defined]
    assert b.writer.writes == [_frames(P.Ping(n=2))]  # type: ignore[attr-defined]


def test_outside_a_batch_each_frame_is_written_at_once() -> None:
    s = Server()
    a = _conn(s, 1)
    s._send(a, P.Ping(n=1))
    s._send(a, P.Ping(n=2))
    assert a.writer.writes == [_frames(P.Ping(n=1)), _frames(P.Ping(n=2))]  # type: ignore[attr-defined]


def test_a_connection_closed_inside_a_batch_gets_its_frames_first() -> None:
    s = Server()
    a, b = _conn(s, 1), _conn(s, 2)
    with s.corked():
        s._send(a, P.Error(code="illegal", message="no"))
        s._close(a)
        s._send(a, P.Ping(n=9))  # after the close: dropped
        s._send(b, P.Ping(n=1))
    assert a.writer.writes == [_frames(P.Error(code="illegal", message="no"))]  # type: ignore[attr-defined]
    assert a.closed and a.writer.transport.closing  # type: ignore[attr-defined]
    assert b.writer.writes == [_frames(P.Ping(n=1))]  # type: ignore[attr-defined]
