"""The host's one admission point (`rami_lan.net.admission.Admission`), driven with no
socket and no event loop: a ``hello``, then the join-code exchange (PAKE) as a client
holding ``code`` would run it. Tests ask `knock` who gets a seat.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from rami_lan.net import guard as G
from rami_lan.net import protocol as P
from rami_lan.net.admission import Admission
from rami_lan.net.pake import PakeClient, PakeError
from rami_lan.net.presence import Guestlist

FINGERPRINT = "ab" * 32
"""The table certificate both sides of the exchange see (no relay)."""


@dataclass(eq=False)
class _Conn:
    id: int
    key: str
    hello: P.Hello | None = None
    pake: Any = None
    pake_secret: str | None = None
    invitation: str | None = None
    ticket: G.Ticket | None = None
    outbox: list[P.Message] = field(default_factory=list)
    refused: str | None = None


class Door(Admission):
    """A table's admission with its guest list and join code; records who was seated."""

    def __init__(self, guestlist: Guestlist, join_code: str | None = None) -> None:
        self.config = SimpleNamespace(join_code=join_code)
        self.guard = G.HostGuard()
        self.guestlist = guestlist
        self.identity = SimpleNamespace(fingerprint=FINGERPRINT)
        self.machine = self
        self.seated: list[str] = []
        self.refusals: list[tuple[str, str]] = []
        """(code, message) of every ``refused`` sent, in order."""
        self._ids = itertools.count(1)

    # the table machine's side (`TableMachine.joined` decides the seat)
    def seat_for_token(self, token: bytes) -> None:
        return None

    def joined(self, conn_id: int, now: float, *, nick: str, **_: Any) -> list[Any]:
        self.seated.append(nick)
        return []

    # the transport's side
    def _run(self, effects: list[Any]) -> None:
        pass

    def _now(self) -> float:
        return 0.0

    def _send(self, conn: _Conn, msg: P.Message) -> None:
        conn.outbox.append(msg)

    def _refuse(self, conn: _Conn, code: str, message: str) -> None:
        conn.refused = code
        self.refusals.append((code, message))


def knock(door: Door, nick: str, code: str | None = None, *,
          invitation: str | None = None) -> str:
    """One newcomer says hello (naming ``invitation``) and, if asked, proves ``code``.

    Returns ``"seated"``, ``"code_asked"`` (the table wants a code and we have none) or
    the refusal code (``bad_code``, ``not_invited``, ...). Every knock comes from its own
    address, so the admission limiter's per-address lockout never decides a test.
    """
    n = next(door._ids)
    conn = _Conn(id=n, key=f"10.0.{n // 250}.{n % 250 + 1}")
    door._admit(conn, P.Hello(nick=nick, lang="en", invitation=invitation))
    if conn.refused:
        return conn.refused
    if nick in door.seated:
        return "seated"
    ask = conn.outbox.pop()
    assert isinstance(ask, P.Pake), ask
    if code is None:
        return "code_asked"
    client = PakeClient(code, FINGERPRINT)
    reply = client.receive(ask.msg)
    assert reply is not None
    door._on_pake(conn, P.Pake(msg=reply))
    door._on_pake(conn, P.PakeConfirm(mac=client.confirm_message()))
    if conn.refused:
        return conn.refused
    confirm = conn.outbox.pop()
    assert isinstance(confirm, P.PakeConfirm)
    try:
        client.check_confirmation(confirm.mac)
    except PakeError:
        return "host_not_proven"
    assert nick in door.seated
    return "seated"
