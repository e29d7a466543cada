"""Who may go from ``hello`` to a seat: the host's one admission point.

`Admission` is mixed into `rami_lan.net.host.TableHost`. A reconnect proves again what
seated it (its invitation ticket, else the join code); a newcomer gives the join code or
an invitation's ticket, as the password of a PAKE (``hello.code`` is ignored: never sent
in clear). Wrong codes and bad tokens count against the address (`guard.join_attempts`).
Once admitted, the table machine decides the seat (`TableMachine.joined`).
"""

from __future__ import annotations

import math
from typing import Any

from rami_lan.net import protocol as P
from rami_lan.net.pake import PakeError, PakeHost
from rami_lan.net.presence import WhoMaySit

__all__ = ["Admission"]

_Conn = Any
"""`rami_lan.net.host_conn.Conn`."""


class Admission:
    """Admission checks of a table host (needs its config, guard, guestlist, machine)."""

    config: Any
    guard: Any
    guestlist: Any
    identity: Any
    machine: Any

    def _admit(self, conn: _Conn, hello: P.Hello) -> None:
        """The one place that decides whether a ``hello`` may go on to a seat.

        A reconnect proves again what seated it (its ticket, else the join code); a
        newcomer gives the join code or an invitation's ticket, as the password of a
        PAKE (``hello.code`` is ignored: never sent in clear).
        """
        conn.hello = hello
        code = self.config.join_code
        conn.invitation = None
        if hello.token is not None:
            seat = self.machine.seat_for_token(hello.token)
            if seat is None:
                self.guard.join_attempts.failure(conn.key)
                self._refuse(conn, "bad_token", "unknown or expired reconnect token")
                return
            code = seat.pake_secret or code
        elif self.guestlist.who is WhoMaySit.INVITED:
            ticket = (self.guestlist.ticket_for(hello.invitation)
                      if hello.invitation is not None else None)
            if ticket is None:
                self._refuse(conn, "not_invited", "this table is by invitation only")
                return
            code, conn.invitation = ticket, hello.invitation
        if code is not None:
            wait = self.guard.join_attempts.retry_after(conn.key)
            if wait > 0:
                self._refuse(conn, "rate_limited",
                             f"too many wrong codes, try again in {math.ceil(wait)} s")
                return
            conn.pake = PakeHost(code, self.identity.fingerprint)
            conn.pake_secret = code
            self._send(conn, P.Pake(msg=conn.pake.start()))
            return
        self._seat(conn)

    def _on_pake(self, conn: _Conn, msg: P.Pake | P.PakeConfirm) -> None:
        pake = conn.pake
        if pake is None or conn.hello is None:
            self._refuse(conn, "protocol_error", "no join-code exchange is running")
            return
        try:
            if isinstance(msg, P.Pake):
                pake.receive(msg.msg)
                return
            pake.check_confirmation(msg.mac)
        except PakeError:
            self._pake_failed(conn)
            return
        self.guard.join_attempts.success(conn.key)
        if (conn.invitation is not None and conn.hello.token is None
                and self.guestlist.redeem(conn.invitation) is None):
            # The ticket is single-use: another connection may have redeemed it meanwhile.
            self._refuse(conn, "not_invited", "this invitation was already used")
            return
        self._send(conn, P.PakeConfirm(mac=pake.confirm_message()))
        conn.pake = None
        self._seat(conn)

    def _pake_failed(self, conn: _Conn) -> None:
        conn.pake = None
        self.guard.join_attempts.failure(conn.key)
        self._refuse(conn, "bad_code", "wrong join code")

    def _seat(self, conn: _Conn) -> None:
        hello = conn.hello
        assert hello is not None
        self._run(self.machine.joined(
            conn.id, self._now(), nick=hello.nick, lang=hello.lang, bot=hello.bot,
            token=hello.token, pake_secret=conn.pake_secret if conn.invitation else None))
