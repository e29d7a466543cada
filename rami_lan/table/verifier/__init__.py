"""One seat's verifier of the table: the fair shuffle as a protocol, and a full replay.

Sans-I/O. A `SeatVerifier` is fed, in order, what one seat received from the host and
sent to it (`CommitAsked`, `CommitSent`, `CommitmentsSeen`, `RevealSent`,
`EventsSeen`, `ViewSeen`, `ActionSent`, `Refused`, `SecretsSeen`, `Disconnected`,
`StreamEnded`), with that seat's own secrets. It **derives, never copies**: from the
table facts (`TableFacts`) and the public information it computes what the host must
send, and reports every disagreement as a `Finding` the moment the information allows:

* the commit-reveal protocol (FAIR_SHUFFLE.md steps 1-5): the round tag is
  ``round_tag(table_id, match_no, round_no)`` of the next round; we are asked to commit
  for our own seat; a tag is used for one round only and never gets two commitment
  sets (no restarted rounds); our commitment is in the set, the host's too; a round is
  never dealt without our commitment, before the commitments, or with us excluded;
  every exclusion is announced (with its reason) before the deal and the secrets at the
  end exclude exactly those seats; `can_reveal` never lets a secret go out twice, for a
  second tag, or for a round that already failed;
* the deal as soon as it is seen: round number, players (eliminations and withdrawals
  applied), the dealer of rounds 2+ (rotation), who plays first, hand size, stock size,
  every seat's deal positions, and our own dealt cards' count;
* during play: every stock draw's position (consecutive per stock generation), the
  discard pile from public events (takes, knocks), every refill (its number, content
  and order = the pile minus its top, the kept card, shuffled or turned over per
  variant), and for ``multi`` our draws from the turned-over pile;
* at the round's end, once the secrets are out: every commitment and the seed, then a
  **full replay** with the rules core (`rami_lan.core.match`) from the derived deck and
  the actions read from the public event log: every card, every ruling (meld validity,
  lay-offs, joker recoveries, knocks, timeouts, our refused actions), the round-1
  dealer from the seed, scores, eliminations, totals and the match's end.

`rounds()` gives each round's `RoundFairness`: ``pending``, ``checked``, ``partial``
(events missed during a disconnect: only what was seen is checked), ``unchecked`` or
``failed`` with its reason. The same class checks a whole match record offline
(`rami_lan.net.record`), fed from a seat that sees everything.

The package, one module a job: `inputs` (what the verifier is fed), `outputs` (what it
reports), `state` (its per-round and match-wide state), `play` (the deal and the play as
they come), `protocol` (the commit-reveal), `replay` (a round's judgement and replay),
`checkpoint` (a relaunched process), `describe` (the findings' words) and `seat` (the
`SeatVerifier` that feeds them). Every public name is re-exported here.
"""

from __future__ import annotations

from rami_lan.table.verifier.inputs import *  # noqa: F403  (every name of its __all__)
from rami_lan.table.verifier.inputs import __all__ as _inputs
from rami_lan.table.verifier.outputs import Finding, RoundFairness, Status
from rami_lan.table.verifier.seat import SeatVerifier
from rami_lan.table.verifier.state import RELAUNCHED
from rami_lan.table.verify_spec import round_tag

__all__ = [*_inputs, "Finding", "RoundFairness", "SeatVerifier", "Status", "RELAUNCHED", "round_tag"]
