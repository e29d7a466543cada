"""Plain and private tables accept exactly the same games (issue 24, item 6).

A property test: random games of ``40`` (the variant whose take-to-open the private
host could not judge) and ``500`` (takes from deep in the pile) at a private table. At
every turn of a remote (blind) seat, its client proposes a random candidate action of the
rules (`core.round.candidate_actions`, legal or not), revealing first what an honest
client reveals for it; the private host's ruling (accepted, or an ``illegal`` error) is
compared with a plain host's ruling on the same state: the rules on the seat's whole
hand (`core.shadow.is_legal_for_view`, the state the plain host holds for that seat).
Every ruling must agree, but for the claims on the unseen rest of a hand (`HAND_CLAIMS`).
Without the private host's check of takes, an unopened ``40``
seat's take of a discard it can not open with was accepted (the plain host refuses),
then every discard refused: the turn could never end.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from masked_table import MaskedTable, WireClient

from rami_lan.core import actions as A
from rami_lan.core import round as R
from rami_lan.core.codec import action_to_plain
from rami_lan.core.shadow import is_legal_for_view, shadow_state
from rami_lan.table.policy import fallback_action

HAND_CLAIMS = """Plain refusals that depend on the rest of the hand (a card that may still be
discarded, a pending card still usable, a hand of jokers only): the core takes those
from a blind seat as its claim, replayed at the round's end, and accepts them; they can
not wedge a turn (a blind seat may then discard any card). Not yet the same game: listed
as a remaining gap in docs/masked_deck.md; takes from the pile are (`private_claims`)."""


class RulingClient(WireClient):
    """Proposes random candidate actions and keeps each ruling pair (plain, private)."""

    rng: random.Random
    rulings: list[tuple[str, bool | None, bool]]
    waiting: tuple[A.Action, bool | None, int] | None = None
    claims = 0

    def maybe_act(self) -> bool:
        ms, view = self.ms, self.view
        if self.waiting is not None:  # the host answered (the inbox is empty): compare
            action, plain_ok, errors = self.waiting
            self.waiting = None
            refused = any(e.startswith("illegal") for e in self.errors[errors:])
            self.rulings.append((repr(action)[:120], plain_ok, not refused))
            if refused:
                self.acted = -1  # the turn is still ours: try again
        if view is None or ms is None or not ms.complete() or not view.my_turn or self.acted == self.view_no:
            return super().maybe_act()
        self.acted = self.view_no
        state = shadow_state(view)
        assert state is not None
        candidates = list(R.candidate_actions(state, view.seat))
        takes = [a for a in candidates if isinstance(a, A.DrawDiscard)]
        if view.phase == "play":  # a joker's discard: allowed in some variants from a hand of jokers only
            takes += [A.Discard(view.seat, c) for c in view.hand if c.is_joker]
        pool = takes if takes and self.rng.random() < 0.5 else candidates
        action = self.rng.choice(pool) if pool and self.rng.random() < 0.6 else None
        if action is None:
            try:
                action = self.policy.choose(view, ())
            except RuntimeError:  # the random walk left the bot no move it knows: any legal one
                action = None
            if action is None or not is_legal_for_view(view, action):
                action = fallback_action(view) or next(iter(R.legal_actions(state, view.seat)), None)
        if action is None:
            self.stuck = True  # (a rules dead end, plain as well: this game ends here)
            return False
        plain_ok: bool | None = is_legal_for_view(view, action)
        if not isinstance(action, A.DrawDiscard | A.Discard) and plain_ok != R.is_legal(
                replace(state, blind=frozenset({view.seat})), action):
            self.claims += 1
            plain_ok = None  # the core's claim on the unseen rest of the hand: see HAND_CLAIMS
        for out in ms.reveals_for(action, view):
            self.send("masked", m=out)
        self.waiting = (action, plain_ok, len(self.errors))
        self.send("action", seq=self.t.seq_no(), action=action_to_plain(action, self.t.variant),
                  core_action=action)
        return True


def _play(variant: str, seed: int) -> list[tuple[str, bool | None, bool]]:
    t = MaskedTable(variant=variant, seats=2, bots={}, limit=None, entropy=seed.to_bytes(8, "big"))
    rng = random.Random(seed)
    rulings: list[tuple[str, bool | None, bool]] = []
    for conn, c in list(t.clients.items()):
        rc = t.clients[conn] = RulingClient(t, conn, c.nick, c.level, c.seed)
        rc.rng, rc.rulings = rng, rulings
    t.start()
    m = t.machine
    t.run(max_steps=20_000, until=lambda: m.match.round_no >= 2 or m.over
          or (m.match.round is not None and m.match.round.turn_no > 40)
          or any(getattr(c, "stuck", False) for c in t.clients.values()))
    for c in t.clients.values():
        c.maybe_act()  # the last answer
    return rulings


@settings(max_examples=4, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(["40", "500", "classique"]), seed=st.integers(0, 2**32 - 1))
def test_plain_and_private_hosts_rule_alike(variant: str, seed: int) -> None:
    rulings = _play(variant, seed)
    assert rulings
    wrong = [(a, plain, private) for a, plain, private in rulings if plain is not None and plain != private]
    assert not wrong, wrong[:5]


def test_an_unopened_40_take_it_can_not_open_with_is_refused(tmp_path: Any) -> None:
    """The case itself: in ``40``, takes of a discard by an unopened seat were all
    accepted by the private host; now exactly those a plain host accepts are."""
    seen_refused = seen_accepted = 0
    for seed in range(3):
        for action, plain, private in _play("40", seed):
            if action.startswith("DrawDiscard"):
                assert plain == private, action
                seen_refused += not plain
                seen_accepted += plain
    assert seen_refused
