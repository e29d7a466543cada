"""The tournament core (`rami_lan.tournament`): the draw, rankings, stages, standings,
and the record's offline verification, with synthetic match records."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rami_lan.tournament import draw as D
from rami_lan.tournament.machine import (
    RegistrationError,
    TournamentConfig,
    TournamentError,
    TournamentMachine,
)
from rami_lan.tournament.ranking import rank, seat_results
from rami_lan.tournament.record import sha256_hex, verify

TID = bytes(range(16))
SECRET = bytes(range(32, 64))


def contribution(i: int) -> bytes:
    return hashlib.sha256(b"c%d" % i).digest()


def fake_record(nicks: list[str], kinds: list[str], winner: int, totals: list[int],
                laid: list[int] | None = None, hand: list[int] | None = None,
                variant: str = "rami", rounds: int = 1) -> dict[str, Any]:
    """A finished match record with ``rounds`` rounds (each gives every seat ``laid`` /
    ``hand`` points), as `rami_lan.net.record.MatchRecord` writes one."""
    n = len(nicks)
    laid = laid or [0] * n
    hand = hand or [0] * n
    evs = [{"type": "RoundEnded", "winner": winner, "rami_sec": False, "reason": "out",
            "hands": [[s, []] for s in range(n)],
            "hand_points": [[s, hand[s]] for s in range(n)],
            "laid_points": [[s, laid[s]] for s in range(n)],
            "scores": [[s, 0] for s in range(n)]}]
    return {"format": "rami-lan-record", "version": 1, "table_id": "ab" * 16, "match_no": 1,
            "variant": variant, "seats": n,
            "players": [{"seat": s, "nick": nicks[s], "kind": kinds[s]} for s in range(n)],
            "rounds": [{"events": list(evs)} for _ in range(rounds)],
            "result": {"winner": winner, "totals": {str(s): t for s, t in enumerate(totals)},
                       "reason": "single_round"}}


def sha(record: dict[str, Any]) -> str:
    return sha256_hex(json.dumps(record, sort_keys=True).encode())


def play_table(m: TournamentMachine, t: Any, winner_index: int = 0,
               store: dict[str, Any] | None = None) -> list[Any]:
    """Finish table ``t``: its drawn player ``winner_index`` wins, the others in draw order."""
    ents = [m.entrants[no] for no in t.players]
    nicks = [e.nick if e.kind == "human" else f"Bot {i + 1}" for i, e in enumerate(ents)]
    kinds = [e.kind for e in ents]
    n = len(ents)
    totals = [0 if i == winner_index else 10 * (i + 1) for i in range(n)]
    rec = fake_record(nicks, kinds, winner_index, totals)
    rec["table_id"] = hashlib.sha256(t.label.encode()).hexdigest()[:32]
    h = sha(rec)
    if store is not None:
        store[h] = rec
    return m.table_done(t.stage, t.table, rec, h, f"{t.label}.json")


def machine(n: int, **cfg: Any) -> TournamentMachine:
    m = TournamentMachine(TournamentConfig(**cfg), TID, SECRET)
    for i in range(n):
        m.register(f"p{i}", contribution(i))
    return m


# ---------------------------------------------------------------------- the draw


def test_table_sizes_are_balanced() -> None:
    assert D.table_sizes(9, 3) == [3, 3, 3]
    assert D.table_sizes(9, 4) == [3, 3, 3]
    assert D.table_sizes(10, 4) == [4, 3, 3]
    assert D.table_sizes(5, 4) == [3, 2]
    assert D.table_sizes(2, 4) == [2]
    assert D.table_sizes(5, 2) == [3, 2]  # no table of one
    with pytest.raises(ValueError):
        D.table_sizes(1, 4)
    with pytest.raises(ValueError):
        D.table_sizes(8, 5)


@given(n=st.integers(2, 64), size=st.integers(2, 4))
def test_sizes_property(n: int, size: int) -> None:
    sizes = D.table_sizes(n, size)
    assert sum(sizes) == n
    assert all(2 <= s <= max(size, 3) for s in sizes)
    assert all(s <= size for s in sizes) or (size == 2 and n % 2 == 1)
    assert max(sizes) - min(sizes) <= 1
    assert len(sizes) == min(-(-n // size), n // 2)


@settings(max_examples=60)
@given(seed=st.binary(min_size=32, max_size=32), stage=st.integers(1, 5),
       players=st.sets(st.integers(1, 64), min_size=2, max_size=40), size=st.integers(2, 4))
def test_draw_is_deterministic_and_a_partition(seed: bytes, stage: int, players: set[int],
                                               size: int) -> None:
    a = D.draw_tables(seed, stage, list(players), size)
    b = D.draw_tables(seed, stage, sorted(players, reverse=True), size)
    assert a == b  # the order the players are given in does not matter
    flat = [p for t in a for p in t]
    assert sorted(flat) == sorted(players) and len(flat) == len(set(flat))
    assert [len(t) for t in a] == D.table_sizes(len(players), size)
    assert all(len(t) >= 2 for t in a)


def test_draw_depends_on_every_contribution() -> None:
    ents = [D.DrawEntrant(i, f"p{i}", contribution(i)) for i in range(1, 10)]
    seed = D.draw_seed(TID, SECRET, ents)
    changed = list(ents)
    changed[4] = D.DrawEntrant(5, "p5", contribution(99))
    assert D.draw_seed(TID, SECRET, changed) != seed
    assert D.draw_seed(TID, bytes(32), ents) != seed
    renamed = list(ents)
    renamed[0] = D.DrawEntrant(1, "p1x", contribution(1))
    assert D.draw_seed(TID, SECRET, renamed) != seed


def test_draw_spreads_players() -> None:
    # Over many seeds every player meets every table about as often (no fixed seating).
    seen: Counter[tuple[int, int]] = Counter()
    for k in range(300):
        seed = hashlib.sha256(b"%d" % k).digest()
        for ti, t in enumerate(D.draw_tables(seed, 1, list(range(1, 10)), 3)):
            for p in t:
                seen[(p, ti)] += 1
    assert min(seen.values()) > 60 and max(seen.values()) < 140


# ---------------------------------------------------------------------- registration


def test_registration_rules() -> None:
    m = TournamentMachine(TournamentConfig(max_entrants=3), TID, SECRET)
    a = m.register("anne", contribution(1))
    b = m.register("anne", contribution(2))
    c = m.register("Bot 2", contribution(3))
    assert (a.nick, b.nick) == ("anne", "anne 2")
    assert c.nick != "Bot 2"  # a table names its bots so: no entrant takes one
    with pytest.raises(RegistrationError) as full:
        m.register("dan", contribution(4))
    assert full.value.code == "full"
    m2 = machine(2)
    with pytest.raises(RegistrationError) as bad:
        m2.register("x", b"short")
    assert bad.value.code == "bad_contribution"
    m2.start()
    with pytest.raises(RegistrationError) as closed:
        m2.register("late", contribution(5))
    assert closed.value.code == "closed"


def test_numbers_are_never_reused() -> None:
    m = machine(3)
    assert m.unregister(2)
    e = m.register("new", contribution(8))
    assert e.no == 4 and sorted(m.entrants) == [1, 3, 4]


def test_fill_bots_fills_the_first_tables() -> None:
    m = machine(7, table_size=3, fill_bots=True)
    tables = m.start()
    assert [len(t.players) for t in tables] == [3, 3, 3]
    assert sum(1 for e in m.entrants.values() if e.kind == "bot") == 2


def test_the_commitment_binds_the_secret() -> None:
    m = machine(4)
    assert m.commitment == hashlib.sha256(D.DRAW_COMMIT_LABEL + TID + SECRET).digest()
    assert m.to_record()["secret"] is None  # not before the start


# ---------------------------------------------------------------------- ranking


def test_ranking_order_and_003_tie_rule() -> None:
    # Seat 0 won. Seats 1 and 2 have the same total: 003's rule, laid points first.
    rec = fake_record(["a", "b", "c", "d"], ["human"] * 4, 0, [0, 30, 30, 30],
                      laid=[50, 40, 60, 60], hand=[0, 5, 9, 4])
    ranked = rank(seat_results(rec), "rami", lambda r: 0)
    assert [r.nick for r, _ in ranked] == ["a", "d", "c", "b"]
    assert [why for _, why in ranked] == ["first", "winner", "hand", "laid"]


def test_ranking_direction_follows_the_variant() -> None:
    rec = fake_record(["a", "b", "c"], ["human"] * 3, 0, [600, 100, 300], variant="500")
    assert [r.nick for r, _ in rank(seat_results(rec), "500", lambda r: 0)] == ["a", "c", "b"]
    rec = fake_record(["a", "b", "c"], ["human"] * 3, 0, [0, 100, 30])
    assert [r.nick for r, _ in rank(seat_results(rec), "rami", lambda r: 0)] == ["a", "c", "b"]


def test_ranking_lot_breaks_a_complete_tie() -> None:
    rec = fake_record(["a", "b", "c"], ["human"] * 3, 0, [0, 10, 10])
    lots = {"a": 5, "b": 9, "c": 1}
    ranked = rank(seat_results(rec), "rami", lambda r: lots[r.nick])
    assert [r.nick for r, _ in ranked] == ["a", "c", "b"] and ranked[2][1] == "lot"


def test_unfinished_record_is_refused() -> None:
    rec = fake_record(["a", "b"], ["human"] * 2, 0, [0, 1])
    rec["result"] = None
    with pytest.raises(ValueError, match="did not finish"):
        seat_results(rec)


# ---------------------------------------------------------------------- stages


def test_nine_players_three_tables_then_a_final() -> None:
    m = machine(9, table_size=3)
    store: dict[str, Any] = {}
    first = m.start()
    assert [len(t.players) for t in first] == [3, 3, 3] and not any(t.final for t in first)
    assert all(s.status == "in" for s in m.standings())
    nxt = play_table(m, first[0], 1, store)
    assert nxt == []
    mid = m.standings()
    assert sum(1 for s in mid if s.status == "out") == 2
    play_table(m, first[1], 0, store)
    final = play_table(m, first[2], 2, store)
    assert len(final) == 1 and final[0].final
    assert sorted(final[0].players) == sorted(t.went_on[0] for t in first)
    play_table(m, final[0], 0, store)
    assert m.phase == "over"
    lines = m.standings()
    assert [s.place for s in lines] == list(range(1, 10))
    assert lines[0].status == "winner" and lines[0].no == final[0].players[0]
    assert [s.status for s in lines[:3]] == ["winner", "final", "final"]
    assert all(s.status == "out" and s.stage == 1 for s in lines[3:])
    # The standings equal the tables' results: the winner won the final, the finalists
    # are the first-stage winners, each first-stage table's 2nd is above its 3rd.
    for t in first:
        places = {row["no"]: row["place"] for row in t.ranking}
        order = [s.no for s in lines if s.no in places and s.status == "out"]
        assert order == sorted(order, key=lambda no: places[no])
    report = verify(json.loads(json.dumps(m.to_record())), store)
    assert report.ok, report.problems + report.invalid
    assert report.tables == 4 and report.entrants == 9


def test_best_k_go_on() -> None:
    m = machine(8, table_size=4, advance=2)
    first = m.start()
    for t in first:
        play_table(m, t)
    assert len(m.current) == 1 and len(m.current[0].players) == 4
    assert all(len(t.went_on) == 2 for t in first)


def test_a_table_of_two_sends_one_on() -> None:
    m = machine(5, table_size=4, advance=3)
    first = m.start()
    assert sorted(len(t.players) for t in first) == [2, 3]
    for t in first:
        play_table(m, t)
    assert sorted(len(t.went_on) for t in first) == [1, 2]


def test_a_record_of_other_players_is_refused() -> None:
    m = machine(4, table_size=4)
    (t,) = m.start()
    rec = fake_record(["x", "y", "z", "w"], ["human"] * 4, 0, [0, 1, 2, 3])
    with pytest.raises(TournamentError, match="drawn"):
        m.table_done(1, 1, rec, "00")
    rec = fake_record(["p0", "p1", "p2"], ["human"] * 3, 0, [0, 1, 2])
    with pytest.raises(TournamentError, match="seats"):
        m.table_done(1, 1, rec, "00")


def test_an_absent_player_is_replaced_and_the_standings_say_so() -> None:
    m = machine(3, table_size=3)
    (t,) = m.start()
    ents = [m.entrants[no] for no in t.players]
    nicks = [ents[0].nick, "Bot 2", ents[2].nick]  # the second drawn player never came
    rec = fake_record(nicks, ["human", "bot", "human"], 0, [0, 5, 9])
    m.table_done(1, 1, rec, sha(rec))
    assert t.replaced == [ents[1].no]
    by_no = {s.no: s for s in m.standings()}
    assert by_no[ents[1].no].replaced and not by_no[ents[0].no].replaced


# ---------------------------------------------------------------------- verify (attacks)


def _finished(n: int = 9) -> tuple[dict[str, Any], dict[str, Any]]:
    m = machine(n, table_size=3)
    store: dict[str, Any] = {}
    stage = m.start()
    while stage:
        nxt: list[Any] = []
        for t in stage:
            nxt = play_table(m, t, 0, store) or nxt
        stage = nxt
    return json.loads(json.dumps(m.to_record())), store


def test_verify_catches_a_secret_that_is_not_the_committed_one() -> None:
    rec, store = _finished()
    rec["secret"] = "00" * 32
    report = verify(rec, store)
    assert not report.ok
    assert any("commitment" in p for p in report.problems)


def test_verify_catches_a_chosen_draw() -> None:
    rec, store = _finished()
    a, b = rec["stages"][0][0]["players"][0], rec["stages"][0][1]["players"][0]
    rec["stages"][0][0]["players"][0], rec["stages"][0][1]["players"][0] = b, a
    assert not verify(rec, store).ok


def test_verify_catches_a_wrong_winner_and_standings() -> None:
    rec, store = _finished()
    rec["winner"] = rec["standings"][1]["no"]
    assert not verify(rec, store).ok
    rec, store = _finished()
    rec["standings"][0], rec["standings"][1] = rec["standings"][1], rec["standings"][0]
    assert not verify(rec, store).ok


def test_verify_catches_a_table_record_changed() -> None:
    rec, store = _finished()
    sha0 = rec["stages"][0][0]["record_sha256"]
    store = dict(store)
    del store[sha0]
    report = verify(rec, store)
    assert not report.ok and "missing" in report.problems[0]


def test_verify_catches_a_dropped_contribution() -> None:
    rec, store = _finished()
    rec["entrants"][3]["contribution"] = contribution(77).hex()
    assert not verify(rec, store).ok


def test_verify_refuses_junk_in_bounded_time() -> None:
    for junk in ({}, {"format": "rami-lan-tournament", "version": 1},
                 {"format": "rami-lan-tournament", "version": 1, "tournament_id": "zz"}):
        report = verify(junk, {})
        assert report.invalid and not report.ok


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 20), size=st.integers(2, 4), advance=st.integers(1, 3),
       winners=st.lists(st.integers(0, 3), min_size=40, max_size=40))
def test_property_standings_equal_the_table_results(n: int, size: int, advance: int,
                                                    winners: list[int]) -> None:
    m = machine(n, table_size=size, advance=advance)
    store: dict[str, Any] = {}
    stage = m.start()
    k = 0
    while stage:
        nxt: list[Any] = []
        for t in stage:
            nxt = play_table(m, t, winners[k % 40] % len(t.players), store) or nxt
            k += 1
        stage = nxt
        assert len(m.stages) <= 16
    assert m.phase == "over"
    lines = m.standings()
    assert sorted(s.no for s in lines) == sorted(m.entrants)
    assert [s.place for s in lines] == list(range(1, n + 1))
    final = m.current[0]
    assert lines[0].no == final.ranking[0]["no"]  # the winner won the final
    # Nobody placed below someone who went out at an earlier stage.
    stages = [s.stage for s in lines]
    assert stages == sorted(stages, reverse=True)
    # Each player went on exactly when its table ranked it in the best k.
    for states in m.stages:
        for t in states:
            best = [r["no"] for r in t.ranking[:min(advance, len(t.players) - 1)]]
            assert t.went_on == ([] if t.final else best)
    assert verify(json.loads(json.dumps(m.to_record())), store).ok
