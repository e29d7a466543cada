"""Who may go from ``hello`` to a seat: the host's one admission point.

`Admission` is mixed into `rami_lan.net.host.TableHost`. A reconnect proves again what
seated it (its invitation ticket, else the join code); a newcomer gives the join code or
an invitation's ticket, as the password of a PAKE (``hello.code`` is ignored: never sent
in clear). Every way in asks the guard's `AdmissionLimiter` first, before any work: a
valid reconnect token is admitted at once, wrong codes and bad tokens count against the
address (and, within its share, the table), and parallel attempts reserve their slot.
Once admitted, the table machine decides the seat (`TableMachine.joined`).
"""

from __future__ import annotations

from typing import Any

from rami_lan.net import guard as G
from rami_lan.net import protocol as P
from rami_lan.net.invitations import WhoMaySit
from rami_lan.net.pake import PakeError, PakeHost

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
        conn.return_seat = None
        if hello.token is not None:
            seat = self.machine.seat_for_token(hello.token)
            if not self._gate(conn, G.KIND_TOKEN, proven=seat is not None):
                return
            if seat is None:
                self._end_attempt(conn, ok=False)
                self._refuse(conn, "bad_token", "unknown or expired reconnect token")
                return
            code = seat.pake_secret or code
        elif (back := self.guestlist.return_ticket(hello.invitation)) is not None:
            # The owner invited a player who dropped out (no token left: a crash without
            # its seat file): the ticket, proven below, gives that seat back.
            code, conn.invitation = back[0], hello.invitation
            conn.return_seat = back[1]
        elif self.guestlist.who is WhoMaySit.INVITED:
            ticket = (self.guestlist.ticket_for(hello.invitation)
                      if hello.invitation is not None else None)
            if ticket is None:
                self._refuse(conn, "not_invited", "this table is by invitation only")
                return
            code, conn.invitation = ticket, hello.invitation
        if code is None and conn.ticket is None and not self._gate(conn, G.KIND_HELLO):
            return
        if code is not None:
            if conn.ticket is None and not self._gate(conn, G.KIND_CODE):
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
        self._end_attempt(conn, ok=True)
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
        self._end_attempt(conn, ok=False)
        self._refuse(conn, "bad_code", "wrong join code")

    def _gate(self, conn: _Conn, kind: str, *, proven: bool = False) -> bool:
        """Ask the admission limiter before any work; refuse the peer when it says no."""
        answer = self.guard.admission.begin(conn.key, kind, proven=proven)
        if isinstance(answer, G.Refusal):
            self._refuse(conn, answer.code, answer.message, retry_ms=answer.retry_ms)
            return False
        conn.ticket = answer
        return True

    def _end_attempt(self, conn: _Conn, *, ok: bool) -> None:
        """The attempt is decided (ending a ticket twice is a no-op)."""
        if conn.ticket is not None:
            self.guard.admission.end(conn.ticket, ok)

    def _seat(self, conn: _Conn) -> None:
        hello = conn.hello
        assert hello is not None
        self._end_attempt(conn, ok=True)
        self._run(self.machine.joined(
            conn.id, self._now(), nick=hello.nick, lang=hello.lang, bot=hello.bot,
            token=hello.token, pake_secret=conn.pake_secret if conn.invitation else None,
            return_seat=getattr(conn, "return_seat", None) if hello.token is None else None))
