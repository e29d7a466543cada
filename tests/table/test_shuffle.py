"""Tests for rami_lan.table.shuffle: the fair-shuffle spec and the host state machine (what
a client checks is the seat verifier's: tests/table/test_verifier.py)."""

from __future__ import annotations

import hashlib
import struct
from collections import Counter
from collections.abc import Callable, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rami_lan.table import shuffle as fs
from rami_lan.table.shuffle import (
    CommitmentRound,
    ExclusionReason,
    KeyStream,
    Phase,
    RevealOutcome,
    RoundStateError,
    card_text,
    commitment,
    deal_positions,
    deck_order,
    draw_uniform,
    first_dealer,
    new_secret,
    reshuffle,
    reshuffle_key,
    round_tag,
    seed_from_secrets,
    shuffle,
    turn_over,
)

# ---------------------------------------------------------------- the spec's test vector

TABLE_ID = bytes(range(16))
TAG = round_tag(TABLE_ID, 1, 1)
SECRET_0 = bytes([1]) * 32
SECRET_1 = bytes([2]) * 32
SECRETS = {0: SECRET_0, 1: SECRET_1}
RAMI_CARDS = 110
VECTOR_COMMIT_0 = "49724cdbc385c9099163bf2de57f3d710ff1ac7e90fbdb35f100a95b3a05e052"
VECTOR_SEED = "b444f6212329e08819803405e912b2a38e06330fed9dd99772bf6da47e5eba76"
VECTOR_TOP_TEN = [90, 73, 78, 100, 35, 51, 9, 18, 95, 62]
VECTOR_TOP_TEN_TEXT = "Kh 9s Ah 10d 10h Kd 10c 6s 5d Jc".split()

SEED = seed_from_secrets(TAG, SECRETS)
DECK = deck_order(SEED, RAMI_CARDS)


def sha(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def test_round_tag_is_prefix_table_id_and_two_u32() -> None:
    assert TAG == b"rami-lan/v1" + TABLE_ID + b"\x00\x00\x00\x01" + b"\x00\x00\x00\x01"
    assert round_tag(TABLE_ID, 2, 300)[-8:] == bytes.fromhex("000000020000012c")


def test_vector_commitment_of_seat_0() -> None:
    assert commitment(TAG, 0, SECRET_0).hex() == VECTOR_COMMIT_0


def test_vector_seed_does_not_depend_on_mapping_order() -> None:
    assert SEED.hex() == VECTOR_SEED
    assert seed_from_secrets(TAG, {1: SECRET_1, 0: SECRET_0}).hex() == VECTOR_SEED


def test_vector_first_ten_cards() -> None:
    assert DECK[:10] == VECTOR_TOP_TEN
    assert [card_text(card, 2) for card in DECK[:10]] == VECTOR_TOP_TEN_TEXT
    assert sorted(DECK) == list(range(RAMI_CARDS))


def test_vector_first_dealer_among_two_players() -> None:
    assert first_dealer(SEED, 2) == 0


def test_card_text_matches_the_spec_examples() -> None:
    examples = {0: "Ac", 12: "Kc", 13: "As", 51: "Kd", 52: "Ac", 103: "Kd", 104: "*"}
    assert {cid: card_text(cid, 2) for cid in examples} == examples
    assert card_text(52, 1) == "*"


# ---------------------------------------------------------------- byte stream and uniform()


def test_keystream_words_are_big_endian_slices_of_counter_blocks() -> None:
    key = bytes(range(32))
    stream = KeyStream(key)
    words = [stream.next_word() for _ in range(9)]
    block0 = sha(key + struct.pack(">Q", 0))
    block1 = sha(key + struct.pack(">Q", 1))
    assert words[:8] == list(struct.unpack(">8I", block0))
    assert words[8] == struct.unpack(">I", block1[:4])[0]
    assert stream.blocks_used == 2


def scripted(words: list[int]) -> tuple[Iterator[int], list[int]]:
    """A word source that records every word handed out."""
    used: list[int] = []

    def source() -> Iterator[int]:
        for word in words:
            used.append(word)
            yield word

    return source(), used


@pytest.mark.parametrize(
    ("m", "words", "result", "consumed"),
    [
        (3, [2**32 - 1, 5], 2, 2),  # limit = 2^32 - 1: the top word is rejected
        (3, [2**32 - 2], (2**32 - 2) % 3, 1),  # limit - 1 is accepted
        (2**31 + 1, [2**31 + 1, 2**32 - 1, 2**31 + 6, 7], 7, 4),  # limit == m
        (2**31 + 1, [2**31], 2**31, 1),
        (1, [2**32 - 1], 0, 1),  # m = 1 accepts every word
        (2**32, [2**32 - 1], 2**32 - 1, 1),
    ],
)
def test_draw_uniform_rejects_words_at_or_above_the_limit(
    m: int, words: list[int], result: int, consumed: int
) -> None:
    source, used = scripted(words)
    assert draw_uniform(source.__next__, m) == result
    assert len(used) == consumed


class ScriptedStream(KeyStream):
    """A KeyStream whose words come from a script instead of SHA-256."""

    script: list[int] = []

    def __init__(self, key: bytes) -> None:
        super().__init__(key)
        self._words = iter(self.script)

    def next_word(self) -> int:
        return next(self._words)


def test_shuffle_goes_through_rejection_sampling(monkeypatch: pytest.MonkeyPatch) -> None:
    # i = 2: m = 3, 2^32 - 1 is rejected, 1 gives j = 1; i = 1: m = 2, 0 gives j = 0.
    # Without rejection, 2^32 - 1 would give j = 0 and the result would be [c, b, a].
    monkeypatch.setattr(ScriptedStream, "script", [2**32 - 1, 1, 0])
    monkeypatch.setattr(fs, "KeyStream", ScriptedStream)
    assert shuffle(["a", "b", "c"], bytes(32)) == ["c", "a", "b"]


@pytest.mark.parametrize("m", [0, -1, 2**32 + 1])
def test_uniform_rejects_impossible_ranges(m: int) -> None:
    with pytest.raises(ValueError, match="m must be"):
        KeyStream(bytes(32)).uniform(m)


@settings(max_examples=50, deadline=None)
@given(key=st.binary(min_size=32, max_size=32), m=st.integers(1, 2**32))
def test_uniform_stays_in_range(key: bytes, m: int) -> None:
    stream = KeyStream(key)
    assert all(0 <= stream.uniform(m) < m for _ in range(20))


# ---------------------------------------------------------------- shuffle


@settings(max_examples=60, deadline=None)
@given(items=st.lists(st.integers(), max_size=120), key=st.binary(min_size=32, max_size=32))
def test_shuffle_is_a_permutation_and_leaves_the_input_alone(items: list[int], key: bytes) -> None:
    original = list(items)
    result = shuffle(items, key)
    assert items == original
    assert Counter(result) == Counter(items)
    assert result is not items


def test_shuffle_is_deterministic_and_depends_on_the_key() -> None:
    cards = list(range(52))
    assert shuffle(cards, bytes(32)) == shuffle(cards, bytes(32))
    assert shuffle(cards, bytes(32)) != shuffle(cards, bytes(31) + b"\x01")


def test_shuffle_reaches_every_permutation_evenly() -> None:
    # 6000 fixed keys over the 6 orders of 3 cards: each ~1000 (sd ~29). A Sattolo
    # shuffle (j < i) would reach 2 orders, a naive "swap with any" would be biased.
    counts = Counter(tuple(shuffle("abc", sha(i.to_bytes(4, "big")))) for i in range(6000))
    assert len(counts) == 6
    assert all(850 < n < 1150 for n in counts.values())


def test_first_dealer_is_spread_over_the_players() -> None:
    counts = Counter(first_dealer(sha(bytes([i, 7])), 4) for i in range(256))
    assert set(counts) == {0, 1, 2, 3}
    assert min(counts.values()) > 40


# ---------------------------------------------------------------- deal, reshuffle, turn over


def test_deal_positions_one_card_at_a_time() -> None:
    layout = deal_positions(2, 13)
    assert layout.hands[0] == tuple(range(0, 26, 2))
    assert layout.hands[1] == tuple(range(1, 26, 2))
    assert layout.first_discard == 26
    assert layout.stock_start == 27
    assert layout.hand(DECK, 0)[:5] == [90, 78, 35, 9, 95]


@pytest.mark.parametrize(("players", "size"), [(3, 7), (4, 7), (4, 13), (2, 10)])
def test_deal_positions_cover_the_top_of_the_stock_once(players: int, size: int) -> None:
    layout = deal_positions(players, size)
    dealt = sorted(p for hand in layout.hands for p in hand)
    assert dealt == list(range(players * size))
    assert layout.first_discard == players * size
    assert all(len(hand) == size for hand in layout.hands)


def test_reshuffle_key_follows_the_spec_and_differs_per_r() -> None:
    keys = [reshuffle_key(SEED, r) for r in (1, 2, 3)]
    assert keys[0] == sha(b"rami-lan reshuffle v1" + SEED + b"\x00\x00\x00\x01")
    assert len(set(keys)) == 3
    with pytest.raises(ValueError, match="r must be"):
        reshuffle_key(SEED, 0)


def test_reshuffle_permutes_the_pile_with_its_own_key() -> None:
    pile = DECK[30:70]
    first, second = reshuffle(SEED, 1, pile), reshuffle(SEED, 2, pile)
    assert sorted(first) == sorted(pile) == sorted(second)
    assert first != second
    assert first == shuffle(pile, reshuffle_key(SEED, 1))
    with pytest.raises(ValueError, match="twice"):
        reshuffle(SEED, 1, [4, 5, 4])


def test_turn_over_puts_the_bottom_card_on_top() -> None:
    pile_bottom_to_top = [7, 30, 12]
    stock = turn_over(pile_bottom_to_top)
    assert stock[0] == 7
    assert stock == [7, 30, 12]


# ---------------------------------------------------------------- validation


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: commitment(TAG, 0, bytes(31)), "secret must be exactly 32 bytes, got 31"),
        (lambda: seed_from_secrets(TAG, {0: bytes(33)}), "secret of seat 0 must be exactly 32"),
        (lambda: KeyStream(bytes(16)), "key must be exactly 32 bytes, got 16"),
        (lambda: shuffle([1, 2], bytes(33)), "key must be exactly 32 bytes, got 33"),
        (lambda: deck_order(bytes(31), 52), "seed must be exactly 32 bytes"),
        (lambda: first_dealer(b"", 2), "seed must be exactly 32 bytes, got 0"),
        (lambda: reshuffle_key(bytes(8), 1), "seed must be exactly 32 bytes"),
        (lambda: round_tag(bytes(15), 1, 1), "table_id must be exactly 16 bytes"),
        (lambda: round_tag(TABLE_ID, 0, 1), "match_no must be"),
        (lambda: round_tag(TABLE_ID, 1, 2**32), "round_no must be"),
        (lambda: commitment(TAG[:-1], 0, SECRET_0), "round tag must be exactly 35"),
        (lambda: commitment(TAG, 256, SECRET_0), "seat must be 0 .. 255"),
        (lambda: seed_from_secrets(TAG, {}), "at least one secret"),
    ],
)
def test_bad_lengths_and_ranges_raise_value_error(call: Callable[[], object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()


def test_new_secret_is_fresh_32_bytes() -> None:
    first, second = new_secret(), new_secret()
    assert len(first) == 32 == len(second)
    assert first != second


def test_dedicated_host_seat_255_comes_last() -> None:
    host, client = bytes([9]) * 32, bytes([3]) * 32
    expected = sha(b"rami-lan seed v1" + TAG + client + host)
    assert seed_from_secrets(TAG, {255: host, 4: client}) == expected


# ---------------------------------------------------------------- host: CommitmentRound


def secret_of(seat: int) -> bytes:
    return bytes([(seat + 10) % 256]) * 32


def open_round(host: int = 0, remote: tuple[int, ...] = (1, 2)) -> CommitmentRound:
    return CommitmentRound(TAG, host, secret_of(host), remote)


def commit_all(rnd: CommitmentRound, seats: tuple[int, ...]) -> None:
    for seat in seats:
        rnd.add_commit(seat, commitment(TAG, seat, secret_of(seat)))


def test_honest_round_gives_the_seed_of_all_secrets() -> None:
    rnd = open_round()
    assert rnd.host_commitment == commitment(TAG, 0, secret_of(0))
    commit_all(rnd, (1, 2))
    listed = rnd.commitment_list()
    assert listed == {s: commitment(TAG, s, secret_of(s)) for s in (0, 1, 2)}
    assert rnd.add_reveal(2, secret_of(2)) is RevealOutcome.ACCEPTED
    assert rnd.phase is Phase.REVEAL
    assert rnd.add_reveal(1, secret_of(1)) is RevealOutcome.ACCEPTED
    assert rnd.phase is Phase.COMPLETE
    assert rnd.seed() == seed_from_secrets(TAG, {s: secret_of(s) for s in (0, 1, 2)})
    assert rnd.secrets() == {s: secret_of(s) for s in (0, 1, 2)}


def test_wrong_reveal_is_excluded_from_the_seed() -> None:
    rnd = open_round()
    commit_all(rnd, (1, 2))
    rnd.commitment_list()
    assert rnd.add_reveal(1, bytes(32)) is RevealOutcome.MISMATCH
    assert rnd.add_reveal(2, secret_of(2)) is RevealOutcome.ACCEPTED
    assert rnd.excluded == {1: ExclusionReason.BAD_REVEAL}
    assert rnd.seed() == seed_from_secrets(TAG, {0: secret_of(0), 2: secret_of(2)})
    assert 1 not in rnd.secrets()


def test_commit_after_the_list_is_out_is_refused() -> None:
    rnd = open_round()
    commit_all(rnd, (1,))
    rnd.commitment_list(drop_missing=True)
    with pytest.raises(RoundStateError, match="accept a commitment"):
        rnd.add_commit(2, commitment(TAG, 2, secret_of(2)))
    assert rnd.absent == {2}


def test_reveal_before_the_list_is_refused() -> None:
    rnd = open_round()
    commit_all(rnd, (1, 2))
    with pytest.raises(RoundStateError, match="before the commitment list"):
        rnd.add_reveal(1, secret_of(1))
    with pytest.raises(RoundStateError, match="compute the seed"):
        rnd.seed()


def test_list_waits_for_everyone_unless_closed() -> None:
    rnd = open_round()
    commit_all(rnd, (2,))
    with pytest.raises(RoundStateError, match=r"seats \[1\]"):
        rnd.commitment_list()
    listed = rnd.commitment_list(drop_missing=True)
    assert set(listed) == {0, 2}
    assert rnd.commitment_list() == listed  # resendable
    with pytest.raises(RoundStateError, match="absent"):
        rnd.add_reveal(1, secret_of(1))


def test_bad_calls_are_refused_without_changing_state() -> None:
    with pytest.raises(ValueError, match="also listed"):
        CommitmentRound(TAG, 1, secret_of(1), (1, 2))
    rnd = open_round()
    with pytest.raises(ValueError, match="not a participant"):
        rnd.add_commit(7, bytes(32))
    with pytest.raises(ValueError, match="is the host"):
        rnd.add_commit(0, bytes(32))
    with pytest.raises(ValueError, match="exactly 32 bytes"):
        rnd.add_commit(1, bytes(20))
    commit_all(rnd, (1, 2))
    with pytest.raises(RoundStateError, match="already committed"):
        rnd.add_commit(1, bytes(32))
    rnd.commitment_list()
    with pytest.raises(ValueError, match="exactly 32 bytes"):
        rnd.add_reveal(1, bytes(5))
    rnd.add_reveal(1, secret_of(1))
    with pytest.raises(RoundStateError, match="already revealed"):
        rnd.add_reveal(1, secret_of(1))
    assert rnd.missing_reveals == {2}


def test_close_reveals_excludes_late_seats() -> None:
    rnd = open_round()
    commit_all(rnd, (1, 2))
    rnd.commitment_list()
    rnd.add_reveal(1, secret_of(1))
    assert rnd.close_reveals() == {2}
    assert rnd.excluded == {2: ExclusionReason.NO_REVEAL}
    assert rnd.seed() == seed_from_secrets(TAG, {0: secret_of(0), 1: secret_of(1)})
    with pytest.raises(RoundStateError, match="accept a reveal"):
        rnd.add_reveal(2, secret_of(2))


def test_dedicated_host_round_orders_its_secret_last() -> None:
    rnd = open_round(host=255, remote=(0, 1))
    commit_all(rnd, (0, 1))
    rnd.commitment_list()
    rnd.add_reveal(0, secret_of(0))
    rnd.add_reveal(1, secret_of(1))
    expected = sha(b"rami-lan seed v1" + TAG + secret_of(0) + secret_of(1) + secret_of(255))
    assert rnd.seed() == expected


