"""An honest table without sockets: the verifier inputs each seat of a match would get.

For property tests and the verifier benchmark. `simulate_match` plays a whole match
with the rules core exactly as an honest host does (commit-reveal with every playing
seat, the deck from the seed, the dealer from the core, events redacted per seat, the
secrets at each round's end) and returns, per seat, the ordered `SeatVerifier` inputs.
Randomness comes from the given `random.Random` (secrets included: tests only).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from rami_lan.core import actions as A
from rami_lan.core import events as E
from rami_lan.core.cards import card_from_id
from rami_lan.core.deckrng import deck_order
from rami_lan.core.errors import IllegalAction
from rami_lan.core.match import MatchOptions, MatchState, apply, is_legal, new_match, start_round
from rami_lan.core.variants import get_variant
from rami_lan.table import verifier as V
from rami_lan.table.verify_spec import DEDICATED_HOST_SEAT, commitment, round_tag, seed_from_secrets

__all__ = ["Simulated", "simulate_match"]

#: A seat's policy: the action it plays in this state (it may look only at its view).
Choose = Callable[[MatchState, int], A.Action]


@dataclass
class Simulated:
    """A simulated match: the table facts (seat left to fill) and each seat's inputs."""

    facts: V.TableFacts
    streams: dict[int, list[V.Input]]
    rounds: int

    def facts_for(self, seat: int) -> V.TableFacts:
        f = self.facts
        return V.TableFacts(f.table_id, f.match_no, f.variant, f.n_seats, seat, f.host_seat,
                            f.limit, f.quick, f.knock)


def simulate_match(variant: str, n_seats: int, rng: random.Random, choose: Choose, *,
                   limit: int | None = None, quick: bool = False, knock: bool = False,
                   timeout_rate: float = 0.0, knock_rate: float = 0.0,
                   max_rounds: int | None = None) -> Simulated:
    """Play a match honestly; ``timeout_rate``/``knock_rate`` add timeouts and knocks."""
    v = get_variant(variant)
    table_id = rng.randbytes(16)
    facts = V.TableFacts(table_id, 1, v.id, n_seats, V.OBSERVER, DEDICATED_HOST_SEAT, limit,
                         quick, knock)
    m = new_match(v, n_seats, MatchOptions(limit, quick, knock))
    streams: dict[int, list[V.Input]] = {s: [] for s in range(n_seats)}
    seq = 0
    sent = {s: 0 for s in range(n_seats)}

    def send(action: A.Action) -> None:
        """The seat's own client sent this action (timeouts are the host's)."""
        seat = getattr(action, "seat", None)
        if seat is not None and not isinstance(action, A.Timeout):
            sent[seat] += 1
            streams[seat].append(V.ActionSent(sent[seat], action))

    def emit(evs: list[E.Event]) -> None:
        nonlocal seq
        seq += 1
        for s in range(n_seats):
            streams[s].append(V.EventsSeen(seq, tuple(e.for_seat(s) for e in evs)))
            streams[s].append(V.ViewSeen(seq))

    rounds = 0
    while not m.over and (max_rounds is None or rounds < max_rounds):
        rounds += 1
        tag = round_tag(table_id, 1, m.round_no + 1)
        players = m.next_players()
        secrets = {DEDICATED_HOST_SEAT: rng.randbytes(32)}
        secrets.update({s: rng.randbytes(32) for s in players})
        commits = {s: commitment(tag, s, sec) for s, sec in secrets.items()}
        for s in players:
            streams[s] += [V.CommitAsked(tag, s), V.CommitSent(tag, commits[s], secrets[s])]
        for s in range(n_seats):
            streams[s].append(V.CommitmentsSeen(tag, dict(commits)))
        for s in players:
            streams[s].append(V.RevealSent(tag, secrets[s]))
        seed = seed_from_secrets(tag, secrets)
        deck = [card_from_id(i, v.n_decks, v.n_jokers) for i in deck_order(seed, v.deck_size)]
        m, evs = start_round(m, deck, seed)
        emit(evs)
        while m.round is not None and m.round.phase != "over":
            rnd = m.round
            if rnd.knock_window and rng.random() < knock_rate:
                who = rng.choice(rnd.knock_window)
                if is_legal(m, A.Knock(who)):
                    send(A.Knock(who))
                    m, evs = apply(m, A.Knock(who))
                    emit(evs)
                    continue
            seat = rnd.turn
            action: A.Action = A.Timeout(seat)
            if rng.random() >= timeout_rate:
                try:
                    action = choose(m, seat)
                except Exception:  # noqa: BLE001 - a bot without an answer: the host's timeout
                    action = A.Timeout(seat)
            try:
                m, evs = apply(m, action)
                send(action)
            except IllegalAction:
                m, evs = apply(m, A.Timeout(seat))
            emit(evs)
        for s in range(n_seats):
            streams[s].append(V.SecretsSeen(tag, dict(secrets), ()))
    for s in range(n_seats):
        streams[s].append(V.StreamEnded())
    return Simulated(facts, streams, rounds)
