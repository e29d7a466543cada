"""Fair shuffle: commit-reveal seed, deterministic deck order, the host's commit round.

This module implements the project's fair-shuffle spec (``rules/FAIR_SHUFFLE.md``,
version ``rami-lan/v1``) byte for byte, so that any independent program following the
spec computes the same commitments, seed, deck and dealer.

It is pure: no I/O, no sockets, no clock. The only source of randomness is
:func:`new_secret`, which reads the OS CSPRNG. Everything else is a deterministic
function of its arguments.

Overview (see ``docs/fair_shuffle.md`` for the developer guide and threat model):

* :func:`round_tag`, :func:`new_secret`, :func:`commitment`, :func:`seed_from_secrets`
  are the protocol's hashes, with their arguments checked (the byte layout is written
  once, in `rami_lan.table.verify_spec`; the constants in `rami_lan.ids`);
* :class:`KeyStream` is the spec's SHA-256 counter stream, with :meth:`KeyStream.uniform`
  (rejection sampling) and :func:`shuffle` (Fisher–Yates from the end) on top;
* :func:`deck_order`, :func:`first_dealer`, :func:`deal_positions`, :func:`reshuffle`
  and :func:`turn_over` turn a seed into the cards of a round;
* :class:`CommitmentRound` is the host's state machine for one commit-reveal exchange.

What a client checks is the seat verifier's (`rami_lan.table.verifier`).

Card ids follow the spec's canonical order: for each deck copy, suits ``c s h d``,
ranks ``A 2 .. 10 J Q K``, then the jokers.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from secrets import token_bytes

from rami_lan.core.deckrng import KeyStream, draw_uniform, shuffle
from rami_lan.core.deckrng import dealer_key as _core_dealer_key
from rami_lan.core.deckrng import reshuffle_key as _core_reshuffle_key
from rami_lan.ids import (
    COMMIT_LABEL,
    DEALER_LABEL,
    DEDICATED_HOST_SEAT,
    RESHUFFLE_LABEL,
    ROUND_TAG_PREFIX,
    SEED_LABEL,
)
from rami_lan.table import verify_spec

__all__ = [
    "COMMIT_LABEL",
    "DEALER_LABEL",
    "DEDICATED_HOST_SEAT",
    "DIGEST_SIZE",
    "KEY_SIZE",
    "RESHUFFLE_LABEL",
    "ROUND_TAG_PREFIX",
    "ROUND_TAG_SIZE",
    "SECRET_SIZE",
    "SEED_LABEL",
    "TABLE_ID_SIZE",
    "CommitmentRound",
    "DealLayout",
    "ExclusionReason",
    "KeyStream",
    "Phase",
    "RevealOutcome",
    "RoundStateError",
    "card_text",
    "commitment",
    "deal_positions",
    "dealer_key",
    "deck_order",
    "draw_uniform",
    "first_dealer",
    "new_secret",
    "reshuffle",
    "reshuffle_key",
    "round_tag",
    "seed_from_secrets",
    "shuffle",
    "turn_over",
]

# --------------------------------------------------------------------------- constants

# ROUND_TAG_PREFIX, the labels and DEDICATED_HOST_SEAT are `rami_lan.ids`' (imported above).

TABLE_ID_SIZE = 16
SECRET_SIZE = 32
#: Size of a SHA-256 digest: commitments, seeds and stream keys.
DIGEST_SIZE = 32
KEY_SIZE = DIGEST_SIZE
ROUND_TAG_SIZE = len(ROUND_TAG_PREFIX) + TABLE_ID_SIZE + 4 + 4

_MAX_SEAT = 255
_U32_MAX = 2**32 - 1
_WORD_SPACE = 2**32
_WORD_SIZE = 4
_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
_SUITS = ("c", "s", "h", "d")
_CARDS_PER_DECK = len(_RANKS) * len(_SUITS)

# --------------------------------------------------------------------------- helpers


def _check_bytes(name: str, value: object, size: int) -> bytes:
    """Return ``value`` as bytes, or raise if it is not bytes-like of exactly ``size``."""
    if not isinstance(value, bytes | bytearray | memoryview):
        raise TypeError(f"{name} must be bytes, not {type(value).__name__}")
    data = bytes(value)
    if len(data) != size:
        raise ValueError(f"{name} must be exactly {size} bytes, got {len(data)}")
    return data


def _check_int(name: str, value: object, low: int, high: int | None = None) -> int:
    """Return ``value`` if it is an int in ``low .. high`` (inclusive), else raise."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if value < low or (high is not None and value > high):
        bound = f"{low} .. {high}" if high is not None else f">= {low}"
        raise ValueError(f"{name} must be {bound}, got {value}")
    return value


def _check_seat(seat: object) -> int:
    return _check_int("seat", seat, 0, _MAX_SEAT)


def _check_tag(tag: object) -> bytes:
    data = _check_bytes("round tag", tag, ROUND_TAG_SIZE)
    if not data.startswith(ROUND_TAG_PREFIX):
        raise ValueError(f"round tag must start with {ROUND_TAG_PREFIX!r}")
    return data


def _check_pile(pile: Sequence[int]) -> list[int]:
    cards = list(pile)
    if len(set(cards)) != len(cards):
        raise ValueError("a discard pile can not hold the same card id twice")
    return cards


# --------------------------------------------------------------------------- protocol hashes


def round_tag(table_id: bytes, match_no: int, round_no: int) -> bytes:
    """Return ``"rami-lan/v1" || table_id || u32(match_no) || u32(round_no)``.

    ``table_id`` is the table's 16 random bytes; match and round numbers start at 1.
    """
    tid = _check_bytes("table_id", table_id, TABLE_ID_SIZE)
    match = _check_int("match_no", match_no, 1, _U32_MAX)
    rnd = _check_int("round_no", round_no, 1, _U32_MAX)
    return verify_spec.round_tag(tid, match, rnd)


def new_secret() -> bytes:
    """Return a fresh 32-byte participant secret from the OS CSPRNG."""
    return token_bytes(SECRET_SIZE)


def commitment(tag: bytes, seat: int, secret: bytes) -> bytes:
    """Return ``H("rami-lan commit v1" || tag || u8(seat) || secret)``."""
    data = _check_bytes("secret", secret, SECRET_SIZE)
    return verify_spec.commitment(_check_tag(tag), _check_seat(seat), data)


def seed_from_secrets(tag: bytes, secrets: Mapping[int, bytes]) -> bytes:
    """Return ``H("rami-lan seed v1" || tag || s_a || s_b || ...)``.

    Secrets are concatenated in ascending seat order, so a dedicated host (seat 255)
    comes last. At least one secret (the host's) is required.
    """
    checked = _check_tag(tag)
    if not secrets:
        raise ValueError("the seed needs at least one secret (the host's)")
    parts = {
        seat: _check_bytes(f"secret of seat {seat}", secrets[seat], SECRET_SIZE)
        for seat in sorted(_check_seat(s) for s in secrets)
    }
    return verify_spec.seed_from_secrets(checked, parts)


# --------------------------------------------------------------------------- random stream


# draw_uniform, KeyStream and shuffle are the core's (rami_lan.core.deckrng): the
# engine reshuffles with the very same code the clients verify with.


# --------------------------------------------------------------------------- deck, dealer, deal


def deck_order(seed: bytes, n_cards: int) -> list[int]:
    """Return the round's deck: ids ``0 .. n_cards-1`` shuffled with ``seed``.

    Index 0 is the top of the stock.
    """
    key = _check_bytes("seed", seed, DIGEST_SIZE)
    return shuffle(range(_check_int("n_cards", n_cards, 0)), key)


def dealer_key(seed: bytes) -> bytes:
    """Return the first-dealer key ``H("rami-lan dealer v1" || seed)``."""
    return _core_dealer_key(_check_bytes("seed", seed, DIGEST_SIZE))


def first_dealer(seed: bytes, n_players: int) -> int:
    """Return the first dealer of a match as an index ``0 .. n_players-1``.

    The index is ``uniform(n_players)`` from the stream of :func:`dealer_key`. The
    caller maps it to a seat (the project uses players in ascending seat order).
    """
    return KeyStream(dealer_key(seed)).uniform(_check_int("n_players", n_players, 1))


@dataclass(frozen=True, slots=True)
class DealLayout:
    """Where each dealt card comes from in the stock (positions in the original deck).

    ``hands[p][k]`` is the stock position of the ``k``-th card dealt to the ``p``-th
    player served; player 0 is the one left of the dealer. ``first_discard`` is the
    position of the card turned up to start the discard pile.
    """

    hands: tuple[tuple[int, ...], ...]
    first_discard: int

    @property
    def stock_start(self) -> int:
        """Position of the first card drawn from the stock after the deal."""
        return self.first_discard + 1

    def hand(self, deck: Sequence[int], player: int) -> list[int]:
        """Return the card ids ``deck`` deals to the ``player``-th player served."""
        return [deck[position] for position in self.hands[player]]


def deal_positions(n_players_in_order: int, hand_size: int) -> DealLayout:
    """Return the deal's stock positions: one card at a time, round the table.

    Players are counted in dealing order, starting left of the dealer; the card at
    position ``k * n + p`` goes to player ``p`` as their ``k``-th card.
    """
    n = _check_int("n_players_in_order", n_players_in_order, 1)
    size = _check_int("hand_size", hand_size, 1)
    hands = tuple(tuple(k * n + p for k in range(size)) for p in range(n))
    return DealLayout(hands=hands, first_discard=n * size)


def reshuffle_key(seed: bytes, r: int) -> bytes:
    """Return the ``r``-th reshuffle key: ``H("rami-lan reshuffle v1" || seed || u32(r))``."""
    key = _check_bytes("seed", seed, DIGEST_SIZE)
    return _core_reshuffle_key(key, _check_int("r", r, 1, _U32_MAX))


def reshuffle(seed: bytes, r: int, pile_ids_bottom_to_top: Sequence[int]) -> list[int]:
    """Return the new stock (index 0 on top) of the ``r``-th reshuffle of a round.

    ``pile_ids_bottom_to_top`` are the discard-pile cards that go back into the stock
    (the caller leaves out any card the variant keeps on the pile), bottom first.
    """
    return shuffle(_check_pile(pile_ids_bottom_to_top), reshuffle_key(seed, r))


def turn_over(pile_ids_bottom_to_top: Sequence[int]) -> list[int]:
    """Return the new stock of variant ``multi``: the pile turned over, unshuffled.

    The pile's bottom card becomes the top of the new stock (index 0). The caller has
    already set aside the pile's top card.
    """
    return _check_pile(pile_ids_bottom_to_top)


def card_text(card_id: int, n_decks: int) -> str:
    """Return a short text (``Ac``, ``10h``, ``*``) for a canonical id; for tests and logs."""
    cid = _check_int("card_id", card_id, 0)
    decks = _check_int("n_decks", n_decks, 1)
    if cid >= decks * _CARDS_PER_DECK:
        return "*"
    suit, rank = divmod(cid % _CARDS_PER_DECK, len(_RANKS))
    return _RANKS[rank] + _SUITS[suit]


# --------------------------------------------------------------------------- host state machine


class RoundStateError(RuntimeError):
    """A :class:`CommitmentRound` method was called in the wrong phase or order."""


class Phase(StrEnum):
    """Phase of a :class:`CommitmentRound`."""

    COMMIT = "commit"
    REVEAL = "reveal"
    COMPLETE = "complete"


class RevealOutcome(StrEnum):
    """What :meth:`CommitmentRound.add_reveal` decided about a reveal."""

    ACCEPTED = "accepted"
    MISMATCH = "mismatch"


class ExclusionReason(StrEnum):
    """Why a participant that did commit contributes no secret to the seed."""

    BAD_REVEAL = "revealed secret does not match the commitment"
    NO_REVEAL = "did not reveal in time"


class CommitmentRound:
    """The host's side of one commit-reveal exchange (spec steps 1 to 4).

    The host's own secret is given at construction, so its commitment is fixed before
    any other arrives. Usage::

        rnd = CommitmentRound(tag, host_seat, host_secret, remote_seats)
        rnd.add_commit(seat, c)                  # for each remote participant
        commits = rnd.commitment_list()          # or (drop_missing=True) on timeout
        rnd.add_reveal(seat, s)                  # ACCEPTED, or MISMATCH: excluded
        rnd.close_reveals()                      # on timeout, if any reveal is missing
        seed = rnd.seed()

    Out-of-order calls raise :class:`RoundStateError`; malformed or unknown input raises
    ``ValueError`` (or ``TypeError``) and leaves the state unchanged.
    """

    def __init__(
        self, tag: bytes, host_seat: int, host_secret: bytes, remote_seats: Iterable[int]
    ) -> None:
        self._tag = _check_tag(tag)
        self._host_seat = _check_seat(host_seat)
        secret = _check_bytes("host secret", host_secret, SECRET_SIZE)
        remote = frozenset(_check_seat(seat) for seat in remote_seats)
        if self._host_seat in remote:
            raise ValueError(f"host seat {self._host_seat} is also listed as a remote seat")
        self._remote = remote
        self._commits: dict[int, bytes] = {
            self._host_seat: commitment(self._tag, self._host_seat, secret)
        }
        self._secrets: dict[int, bytes] = {self._host_seat: secret}
        self._absent: frozenset[int] = frozenset()
        self._excluded: dict[int, ExclusionReason] = {}
        self._phase = Phase.COMMIT

    # ---- read-only views

    @property
    def tag(self) -> bytes:
        return self._tag

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def host_seat(self) -> int:
        return self._host_seat

    @property
    def host_commitment(self) -> bytes:
        return self._commits[self._host_seat]

    @property
    def participants(self) -> frozenset[int]:
        """Every seat expected at the start: the host and the remote seats."""
        return self._remote | {self._host_seat}

    @property
    def absent(self) -> frozenset[int]:
        """Remote seats that did not commit before the list was closed."""
        return self._absent

    @property
    def excluded(self) -> Mapping[int, ExclusionReason]:
        """Seats that committed but whose secret is not used, with the reason."""
        return dict(self._excluded)

    @property
    def missing_commits(self) -> frozenset[int]:
        """Remote seats not yet committed (empty once the list is out)."""
        if self._phase is not Phase.COMMIT:
            return frozenset()
        return self._remote - self._commits.keys()

    @property
    def missing_reveals(self) -> frozenset[int]:
        """Committed seats whose reveal is still awaited (empty outside the reveal phase)."""
        if self._phase is not Phase.REVEAL:
            return frozenset()
        return frozenset(self._commits.keys() - self._secrets.keys() - self._excluded.keys())

    # ---- transitions

    def add_commit(self, seat: int, commit: bytes) -> None:
        """Record a remote participant's commitment (phase ``COMMIT`` only)."""
        self._require(Phase.COMMIT, "accept a commitment")
        seat = self._check_remote(seat)
        data = _check_bytes(f"commitment of seat {seat}", commit, DIGEST_SIZE)
        if seat in self._commits:
            raise RoundStateError(f"seat {seat} has already committed")
        self._commits[seat] = data

    def commitment_list(self, *, drop_missing: bool = False) -> dict[int, bytes]:
        """Return ``{seat: commitment}`` to send to every participant; ends the commit phase.

        Raises :class:`RoundStateError` while commitments are missing, unless
        ``drop_missing`` is true: those seats are then absent for this round. Once the
        list is out, calling again returns the same list (for resending).
        """
        if self._phase is Phase.COMMIT:
            missing = self.missing_commits
            if missing and not drop_missing:
                raise RoundStateError(
                    f"still waiting for commitments from seats {sorted(missing)}; "
                    "pass drop_missing=True to play them as absent"
                )
            self._absent = missing
            self._phase = Phase.REVEAL
            self._complete_if_done()
        return dict(sorted(self._commits.items()))

    def add_reveal(self, seat: int, secret: bytes) -> RevealOutcome:
        """Check a remote participant's revealed secret against its commitment.

        Returns ``ACCEPTED``, or ``MISMATCH``: the seat is then excluded from the round
        (see :attr:`excluded`) and the host must report it to everyone.
        """
        if self._phase is Phase.COMMIT:
            raise RoundStateError("a reveal arrived before the commitment list was sent")
        self._require(Phase.REVEAL, "accept a reveal")
        seat = self._check_remote(seat)
        data = _check_bytes(f"secret of seat {seat}", secret, SECRET_SIZE)
        if seat in self._absent:
            raise RoundStateError(f"seat {seat} did not commit and is absent this round")
        if seat in self._secrets or seat in self._excluded:
            raise RoundStateError(f"seat {seat} has already revealed")
        if hmac.compare_digest(commitment(self._tag, seat, data), self._commits[seat]):
            self._secrets[seat] = data
            outcome = RevealOutcome.ACCEPTED
        else:
            self._excluded[seat] = ExclusionReason.BAD_REVEAL
            outcome = RevealOutcome.MISMATCH
        self._complete_if_done()
        return outcome

    def close_reveals(self) -> frozenset[int]:
        """Exclude every seat still to reveal (timeout) and complete; return those seats."""
        self._require(Phase.REVEAL, "close the reveals")
        late = self.missing_reveals
        for seat in late:
            self._excluded[seat] = ExclusionReason.NO_REVEAL
        self._phase = Phase.COMPLETE
        return late

    # ---- results

    def seed(self) -> bytes:
        """Return the round seed from every accepted secret (phase ``COMPLETE`` only)."""
        self._require(Phase.COMPLETE, "compute the seed")
        return seed_from_secrets(self._tag, self._secrets)

    def secrets(self) -> dict[int, bytes]:
        """Return the secrets used in the seed, to send everyone at the end of the round."""
        self._require(Phase.COMPLETE, "publish the secrets")
        return dict(sorted(self._secrets.items()))

    # ---- internals

    def _require(self, phase: Phase, action: str) -> None:
        if self._phase is not phase:
            raise RoundStateError(
                f"can not {action} in phase {self._phase.value!r} (needs {phase.value!r})"
            )

    def _check_remote(self, seat: int) -> int:
        checked = _check_seat(seat)
        if checked == self._host_seat:
            raise ValueError(f"seat {checked} is the host: its secret was given at creation")
        if checked not in self._remote:
            raise ValueError(f"seat {checked} is not a participant of this round")
        return checked

    def _complete_if_done(self) -> None:
        if self._phase is Phase.REVEAL and not self.missing_reveals:
            self._phase = Phase.COMPLETE
