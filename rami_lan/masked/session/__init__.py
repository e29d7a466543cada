"""One participant of the masked deck: a sans-I/O state machine with explicit phases.

Theory of operation
-------------------
A :class:`Participant` is one machine at the table (the host or a client). It knows
nothing of sockets or clocks: the table machine feeds it local decisions
(:meth:`~Participant.start_deck`, :meth:`~Participant.assign`, :meth:`~Participant.reveal`,
:meth:`~Participant.hand_over`, :meth:`~Participant.publish_audit`) and received
messages (:meth:`~Participant.receive`); each call returns a :class:`Result`: messages
to send (:class:`Outgoing`, ``to=None`` meaning every other participant) and events
(:class:`DeckReady`, :class:`CardReceived`, :class:`CardPublic`, :class:`FaultFound`,
:class:`AuditComplete`).

Phases: ``IDLE -> SHUFFLING -> PLAYING (-> SHUFFLING -> PLAYING for a reshuffle)
-> AUDITING -> COMPLETE``, or ``PLAYING -> LEFT`` after a hand-over. A call in the wrong
phase raises :class:`MaskedStateError`; a received message that does not fit the
protocol (wrong turn, unknown deck, a position not assigned to us) raises
:class:`MaskedProtocolError`. Both leave the state unchanged. Evidence of cheating
(a wrong key, a skipped step, a card that is not a card) is not an exception: the
offending data is not used, a :class:`~rami_lan.masked.audit.Fault` is recorded and
returned as a :class:`FaultFound` event, and the table machine decides (void the round).

Assignments are public: every participant calls :meth:`~Participant.assign` for every
position that leaves the stock (deal, draw, a card turned up) in the same order, from
the public game events. A position assigned to a seat that is not a participant (a bot)
goes to the relay (the host), which holds that seat. A key message for a position must
arrive after its assignment: the host sends the public draw event before relaying keys.

The whole state is plain data: :meth:`~Participant.snapshot` /
:meth:`Participant.restore` journal it on the participant's own machine.

The package, one module a job: `results` (what a call gives back), `deck_state` (one
deck's state and journal form), `base` (the state and internals), `queries`, `receive`
(received messages) and `participant` (the local calls and the journal). Every public name
is re-exported here.
"""

from __future__ import annotations

from rami_lan.masked.session.participant import Participant
from rami_lan.masked.session.results import *  # noqa: F403  (every name of its __all__)
from rami_lan.masked.session.results import __all__ as _results

__all__ = ["Participant", *_results]
