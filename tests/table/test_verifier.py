"""The round verifier, fed real recorded streams: honest ones pass, each cheat is caught.

Level (a) of the cheating tests: an honest host (`TableHost`) plays real matches with
bot clients on loopback; every seat's message stream (what it received and sent, with
its own secrets) is recorded by its `FairnessTracker`. Each test mutates those streams
in exactly one way (or a named combination), feeds them to a fresh `SeatVerifier` and
checks that **every** honest seat fails the round **at the mutated message** (the
earliest moment the information allows), with the expected finding code. The
end-to-end cheating hosts are in ``test_cheat.py``; honest property runs at the end.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import os
import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from aio_helpers import run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from policies import StockOnly
from verify_sim import simulate_match

from rami_lan.cli.messages import fairness_details
from rami_lan.core import actions as A
from rami_lan.core import events as E
from rami_lan.core.cards import Card
from rami_lan.net import protocol as P
from rami_lan.net.bot_client import BotClient
from rami_lan.net.client import open_session
from rami_lan.net.fairness import FairnessTracker, to_inputs
from rami_lan.net.host import TableConfig, TableHost
from rami_lan.table import verifier as V
from rami_lan.table.verify_spec import commitment, round_tag, seed_from_secrets

Entry = dict[str, Any]
Stream = tuple[V.TableFacts, list[Entry]]


# --------------------------------------------------------------------------- recordings


async def _record(variant: str, seats: int, limit: int, policy: Callable[[], Any] | None = None
                  ) -> list[Stream]:
    host = TableHost(TableConfig(name="rec", variant=variant, limit=limit, seats=seats,
                                 headless=True, advertise=False, interfaces=["127.0.0.1"],
                                 bot_delay=0.0))
    port = await host.start()
    try:
        ss = [await open_session("127.0.0.1", port, nickname=f"p{i}", bot=True) for i in range(seats)]
        bots = [BotClient(s, policy() if policy else None, delay=0.0, seed=i)
                for i, s in enumerate(ss)]
        await asyncio.gather(*(b.run() for b in bots))
        await host.wait_finished(30)
        for s in ss:
            await s.close()
    finally:
        await host.stop()
    out = []
    for s in ss:
        tracker = s.tracker
        assert tracker is not None
        assert all(r.status == "checked" for r in tracker.rounds()), tracker.rounds()
        out.append((tracker.facts, copy.deepcopy(tracker.log)))
    return out


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, list[Stream]]]:
    """Honest streams: a long rami match (>= 5 rounds) and a round with a reshuffle."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RAMI_LAN_CONFIG_DIR", str(tmp_path_factory.mktemp("config")))
        mp.setenv("RAMI_LAN_DATA_DIR", str(tmp_path_factory.mktemp("data")))
        long: list[Stream] = []
        for _attempt in range(6):  # every seat plays (is asked to commit in) rounds 1..5
            long = run(_record("rami", 3, 100), timeout=120)
            if min(sum(kind("commit_request")(e) for e in entries) for _f, entries in long) >= 5:
                break
        reshuffle = run(_record("rami", 2, 1, StockOnly), timeout=60)
        yield {"long": long, "reshuffle": reshuffle}


def _rounds(entries: list[Entry]) -> int:
    return sum(1 for e in entries if e["msg"]["k"] == "round_secrets")


# --------------------------------------------------------------------------- helpers


def feed(facts: V.TableFacts, entries: list[Entry]) -> tuple[V.SeatVerifier, int | None]:
    """Feed a recorded stream; return the verifier and the index of the first finding."""
    v = V.SeatVerifier(facts)
    first = None
    for i, e in enumerate(entries):
        msg = P.Message.from_wire(copy.deepcopy(e["msg"]))
        for item in to_inputs(msg, facts.variant, sent=e["dir"] == "out", secret=e.get("secret")):
            if v.feed(item) and first is None:
                first = i
    if v.feed(V.StreamEnded()) and first is None:
        first = len(entries)
    return v, first


def find(entries: list[Entry], pred: Callable[[Entry], bool], start: int = 0) -> int:
    for i in range(start, len(entries)):
        if pred(entries[i]):
            return i
    raise AssertionError("no such message in the recording")


def kind(k: str, direction: str = "in") -> Callable[[Entry], bool]:
    return lambda e: e["dir"] == direction and e["msg"]["k"] == k


def event(etype: str, **fields: Any) -> Callable[[Entry], bool]:
    def pred(e: Entry) -> bool:
        if e["dir"] != "in" or e["msg"]["k"] != "events":
            return False
        return any(ev.get("type") == etype and all(ev.get(k) == v for k, v in fields.items())
                   for ev in e["msg"]["events"])
    return pred


def ev_in(e: Entry, etype: str) -> dict[str, Any]:
    return next(ev for ev in e["msg"]["events"] if ev.get("type") == etype)


def tag_of(facts: V.TableFacts, round_no: int) -> bytes:
    return round_tag(facts.table_id, facts.match_no, round_no)


def secrets_index(entries: list[Entry], round_no: int, facts: V.TableFacts) -> int:
    tag = tag_of(facts, round_no)
    return find(entries, lambda e: kind("round_secrets")(e) and e["msg"]["round_tag"] == tag)


def expect_caught(streams: list[Stream], mutate: Callable[[V.TableFacts, list[Entry]], int],
                  codes: set[str], round_no: int) -> list[V.Finding]:
    """Mutate every seat's stream; each seat must fail ``round_no`` at the mutated index."""
    found = []
    for facts, entries in streams:
        mutated = copy.deepcopy(entries)
        at = mutate(facts, mutated)
        v, first = feed(facts, mutated)
        rf = v.round(round_no)
        assert rf is not None and rf.status is V.Status.FAILED, (facts.seat, rf)
        assert first == at, (facts.seat, first, at, rf.findings)
        assert rf.findings[0].code in codes, (facts.seat, rf.findings)
        assert rf.reason  # a sentence for the player
        found.append(rf.findings[0])
    return found


# --------------------------------------------------------------------------- honest


def test_honest_recordings_pass(recorded: dict[str, list[Stream]]) -> None:
    for streams in recorded.values():
        for facts, entries in streams:
            v, first = feed(facts, entries)
            assert first is None, v.findings[:3]
            assert v.rounds() and all(r.status is V.Status.CHECKED for r in v.rounds())
            assert all(r.events_checked > 0 for r in v.rounds())
    assert _rounds(recorded["long"][0][1]) >= 5
    assert any(event("StockRefilled")(e) for e in recorded["reshuffle"][0][1])


# --------------------------------------------------------------------------- the attacks


def test_unshuffled_deck_labelled_with_layout_positions(recorded: dict[str, list[Stream]]) -> None:
    """The host deals cards of its choice but labels them with the right positions: the
    positions pass, the cards fail the replay as soon as the seed is known (round end)."""
    def mutate(facts: V.TableFacts, entries: list[Entry]) -> int:
        i = find(entries, event("CardsDealt", seat=facts.seat))
        dealt = next(ev for ev in entries[i]["msg"]["events"]
                     if ev.get("type") == "CardsDealt" and ev["seat"] == facts.seat)
        dealt["cards"] = sorted(dealt["cards"], key=lambda c: c["card"])[::-1]
        ids = {c["card"] for c in dealt["cards"]}
        dealt["cards"][0] = {"card": next(x for x in range(104, 110) if x not in ids)}  # a joker
        return secrets_index(entries, 1, facts)

    for f in expect_caught(recorded["long"], mutate, {"replay_card"}, 1):
        assert "stock position" in f.reason and "agreed shuffle" in f.reason


def test_positions_copied_from_the_agreed_deck_are_caught_at_once(
        recorded: dict[str, list[Stream]]) -> None:
    """Labelling a dealt card with another position than the deal's is caught on arrival."""
    def mutate(facts: V.TableFacts, entries: list[Entry]) -> int:
        i = find(entries, event("CardsDealt", seat=facts.seat))
        dealt = next(ev for ev in entries[i]["msg"]["events"]
                     if ev.get("type") == "CardsDealt" and ev["seat"] == facts.seat)
        dealt["positions"][0], dealt["positions"][1] = dealt["positions"][1], dealt["positions"][0]
        return i

    expect_caught(recorded["long"], mutate, {"deal_positions"}, 1)


def test_draw_position_not_consecutive_is_caught_at_once(recorded: dict[str, list[Stream]]) -> None:
    def mutate(facts: V.TableFacts, entries: list[Entry]) -> int:
        i = find(entries, event("StockDrawn"))
        ev_in(entries[i], "StockDrawn")["position"] += 5
        return i

    expect_caught(recorded["long"], mutate, {"draw_position"}, 1)


def test_no_commit_request(recorded: dict[str, list[Stream]]) -> None:
    """The host asks nobody to commit (the seed is its secret alone): every client fails
    the round when the commitment set arrives without its commitment."""
    def mutate(facts: V.TableFacts, entries: list[Entry]) -> int:
        tag = tag_of(facts, 2)
        del entries[find(entries, lambda e: kind("commit_request")(e) and e["msg"]["round_tag"] == tag)]
        del entries[find(entries, lambda e: kind("commit", "out")(e) and e["msg"]["round_tag"] == tag)]
        del entries[find(entries, lambda e: kind("reveal", "out")(e) and e["msg"]["round_tag"] == tag)]
        i = find(entries, lambda e: kind("commitments")(e) and e["msg"]["round_tag"] == tag)
        for seat in ("0", "1", "2"):
            entries[i]["msg"]["commits"].pop(seat, None)
        return i

    for f in expect_caught(recorded["long"], mutate, {"not_asked"}, 2):
        assert "never asked us to commit" in f.reason


def test_dealt_without_any_commit_reveal(recorded: dict[str, list[Stream]]) -> None:
    def mutate(facts: V.TableFacts, entries: list[Entry]) -> int:
        tag = tag_of(facts, 2)
        for k, d in (("commit_request", "in"), ("commit", "out"), ("commitments", "in"),
                     ("reveal", "out")):
            del entries[find(entries, lambda e, k=k, d=d: kind(k, d)(e) and e["msg"]["round_tag"] == tag)]
        return find(entries, event("RoundStarted", round_no=2))

    expect_caught(recorded["long"], mutate, {"dealt_without_commitments"}, 2)


def _drop_secret(entries: list[Entry], i: int, victim: int) -> None:
    msg = entries[i]["msg"]
    msg["secrets"].pop(str(victim))
    msg["excluded"] = [victim]


def test_reveal_kept_aside_and_called_late(recorded: dict[str, list[Stream]]) -> None:
    """The host keeps seat 1's correct reveal aside and excludes it only at the end: every
    client fails the round when the secrets arrive (no exclusion was announced), and the
    victim also knows its own secret was dropped."""
    victim = 1

    def mutate(facts: V.TableFacts, entries: list[Entry]) -> int:
        i = secrets_index(entries, 1, facts)
        _drop_secret(entries, i, victim)
        return i

    found = expect_caught(recorded["long"], mutate, {"late_exclusion"}, 1)
    assert all("without an announcement" in f.reason for f in found)
    facts, entries = recorded["long"][victim]
    mutated = copy.deepcopy(entries)
    mutate(facts, mutated)
    v, _first = feed(facts, mutated)
    codes = {f.code for f in v.round(1).findings}  # type: ignore[union-attr]
    assert "own_excluded" in codes


def test_announced_exclusion_of_our_own_secret(recorded: dict[str, list[Stream]]) -> None:
    """Even announced before the deal, our own exclusion fails the round for us at once;
    the others see the exclusion and its reason."""
    victim = 2

    def insert(facts: V.TableFacts, entries: list[Entry]) -> int:
        tag = tag_of(facts, 1)
        c = find(entries, lambda e: kind("commitments")(e) and e["msg"]["round_tag"] == tag)
        again = copy.deepcopy(entries[c])
        again["msg"]["excluded"] = {str(victim): "no_reveal"}
        at = find(entries, event("RoundStarted", round_no=1))
        entries.insert(at, again)
        s = secrets_index(entries, 1, facts)
        _drop_secret(entries, s, victim)
        return at

    facts, entries = recorded["long"][victim]
    mutated = copy.deepcopy(entries)
    at = insert(facts, mutated)
    v, first = feed(facts, mutated)
    assert first == at
    assert v.round(1).findings[0].code == "own_excluded"  # type: ignore[union-attr]
    for facts, entries in recorded["long"]:
        if facts.seat == victim:
            continue
        mutated = copy.deepcopy(entries)
        at = insert(facts, mutated)
        v, first = feed(facts, mutated)
        r1 = v.round(1)
        # An announced exclusion is legitimate for the others, and shown to them; (the
        # recorded deal came from the victim's secret, so the replay fails at the end).
        assert first is not None and first > at
        assert r1 is not None and r1.excluded == ((victim, "no_reveal"),)


def test_exclusion_without_reason_or_after_the_deal(recorded: dict[str, list[Stream]]) -> None:
    for where, reason, code in (("after", "no_reveal", "late_exclusion"),
                                ("before", "", "exclusion_without_reason")):
        facts, entries = recorded["long"][0]
        mutated = copy.deepcopy(entries)
        tag = tag_of(facts, 1)
        c = find(mutated, lambda e, tag=tag: kind("commitments")(e) and e["msg"]["round_tag"] == tag)
        again = copy.deepcopy(mutated[c])
        again["msg"]["excluded"] = {"1": reason}
        at = find(mutated, event("RoundStarted", round_no=1)) + (1 if where == "after" else 0)
        mutated.insert(at, again)
        if not reason:  # an empty reason does not even pass the wire check
            with pytest.raises(P.ProtocolError):
                P.Message.from_wire(again["msg"])
            v = V.SeatVerifier(facts)
            found = v.feed_all([V.CommitAsked(tag, 0)] + [
                V.CommitmentsSeen(tag, {1: bytes(32), 255: bytes(32)}, {1: " "})])
            assert code in {f.code for f in found}
            continue
        v, first = feed(facts, mutated)
        assert first == at and v.round(1).findings[0].code == code  # type: ignore[union-attr]


def test_restarted_round_second_commitment_set(recorded: dict[str, list[Stream]]) -> None:
    """Two commitment sets for one tag (the host restarts the round after seeing a seed)."""
    def mutate(facts: V.TableFacts, entries: list[Entry]) -> int:
        tag = tag_of(facts, 3)
        c = find(entries, lambda e: kind("commitments")(e) and e["msg"]["round_tag"] == tag)
        again = copy.deepcopy(entries[c])
        again["msg"]["commits"]["255"] = bytes(32)
        at = find(entries, event("RoundStarted", round_no=3))
        entries.insert(at, again)
        return at

    expect_caught(recorded["long"], mutate, {"round_restarted"}, 3)


def test_restarted_round_under_fresh_tags(recorded: dict[str, list[Stream]]) -> None:
    """A restart under a fresh tag (not the one of table, match, round): refused at once,
    and the client does not commit."""
    def mutate(facts: V.TableFacts, entries: list[Entry]) -> int:
        tag = tag_of(facts, 2)
        i = find(entries, lambda e: kind("commit_request")(e) and e["msg"]["round_tag"] == tag)
        fresh = round_tag(facts.table_id, facts.match_no + 40, 2)
        for e in entries:
            if e["msg"].get("round_tag") == tag:
                e["msg"]["round_tag"] = fresh
        return i

    expect_caught(recorded["long"], mutate, {"tag_wrong"}, 2)
    facts, entries = recorded["long"][0]
    v = V.SeatVerifier(facts)
    fresh = round_tag(facts.table_id, 99, 1)
    v.feed(V.CommitAsked(fresh, facts.seat))
    assert not v.can_commit(fresh, facts.seat)


def test_reused_round_one_tag(recorded: dict[str, list[Stream]]) -> None:
    """Round 2 run under round 1's tag (so that clients would reuse a known secret)."""
    def mutate(facts: V.TableFacts, entries: list[Entry]) -> int:
        t1, t2 = tag_of(facts, 1), tag_of(facts, 2)
        i = find(entries, lambda e: kind("commit_request")(e) and e["msg"]["round_tag"] == t2)
        for e in entries[i:]:
            if e["msg"].get("round_tag") == t2:
                e["msg"]["round_tag"] = t1
        return i

    expect_caught(recorded["long"], mutate, {"tag_reused"}, 2)


def test_client_never_reveals_twice_or_for_a_failed_round(recorded: dict[str, list[Stream]]) -> None:
    facts, entries = recorded["long"][0]
    v = V.SeatVerifier(facts)
    tag = tag_of(facts, 1)
    secret = bytes([9]) * 32
    mine = commitment(tag, facts.seat, secret)
    v.feed_all([V.CommitAsked(tag, facts.seat), V.CommitSent(tag, mine, secret),
                V.CommitmentsSeen(tag, {facts.seat: mine, 255: bytes(32)})])
    assert v.can_reveal(tag)
    v.feed(V.RevealSent(tag, secret))
    assert not v.can_reveal(tag)  # once
    v.feed(V.CommitmentsSeen(tag, {facts.seat: mine, 255: bytes([1]) * 32}))  # restart
    assert not v.can_reveal(tag)
    assert v.round(1).findings[0].code == "round_restarted"  # type: ignore[union-attr]
    # the same secret for another tag is reported, even if the client tried
    found = v.feed(V.RevealSent(tag_of(facts, 2), secret))
    assert any(f.code == "secret_revealed_twice" for f in found)


def test_reordered_discard_pile_before_a_reshuffle(recorded: dict[str, list[Stream]]) -> None:
    """The pile is reordered before the refill (a joker on top of the new stock): every
    client knows the pile from public events and fails the round at the refill."""
    def mutate(facts: V.TableFacts, entries: list[Entry]) -> int:
        i = find(entries, event("StockRefilled"))
        pile = ev_in(entries[i], "StockRefilled")["pile"]
        pile.append(pile.pop(0))
        return i

    for f in expect_caught(recorded["reshuffle"], mutate, {"refill_pile_order"}, 1):
        assert "bottom to top" in f.reason


def test_refill_content_and_kept_card(recorded: dict[str, list[Stream]]) -> None:
    def mutate(facts: V.TableFacts, entries: list[Entry]) -> int:
        i = find(entries, event("StockRefilled"))
        ev = ev_in(entries[i], "StockRefilled")
        ev["pile"][0], ev["kept"] = ev["kept"], ev["pile"][0]
        return i

    expect_caught(recorded["reshuffle"], mutate, {"refill_pile_content"}, 1)


def _move_dealer(entries: list[Entry], round_no: int) -> int:
    i = find(entries, event("RoundStarted", round_no=round_no))
    ev = ev_in(entries[i], "RoundStarted")
    players = ev["players"]
    ev["dealer"] = players[(players.index(ev["dealer"]) + 1) % len(players)]
    return i


def test_moved_dealer_in_rounds_3_and_5(recorded: dict[str, list[Stream]]) -> None:
    def mutate(facts: V.TableFacts, entries: list[Entry]) -> int:
        at = _move_dealer(entries, 3)
        _move_dealer(entries, 5)
        return at

    found = expect_caught(recorded["long"], mutate, {"dealer_moved"}, 3)
    assert all("rotation" in f.reason for f in found)
    for facts, entries in recorded["long"]:  # round 5 is flagged too
        mutated = copy.deepcopy(entries)
        mutate(facts, mutated)
        v, _first = feed(facts, mutated)
        assert {f.code for f in v.round(5).findings} >= {"dealer_moved"}  # type: ignore[union-attr]


def test_first_dealer_not_the_seeds(recorded: dict[str, list[Stream]]) -> None:
    """Round 1's dealer comes from the seed: caught when the secrets arrive."""
    def mutate(facts: V.TableFacts, entries: list[Entry]) -> int:
        i = find(entries, event("RoundStarted", round_no=1))
        ev = ev_in(entries[i], "RoundStarted")
        players = ev["players"]
        dealer = ev["dealer"] = players[(players.index(ev["dealer"]) + 1) % len(players)]
        i0 = players.index(dealer)
        order = players[i0 + 1:] + players[:i0 + 1]
        ev["first_player"] = order[0]
        n, hs = len(players), ev["hand_size"]
        for dealt in entries[i]["msg"]["events"]:  # relabel every deal consistently
            if dealt.get("type") == "CardsDealt":
                p = order.index(dealt["seat"])
                dealt["positions"] = [k * n + p for k in range(hs)]
            if dealt.get("type") == "TurnStarted":
                dealt["seat"] = order[0]
        return secrets_index(entries, 1, facts)

    # The recorded play follows the true first player, so the first action out of turn
    # already gives the cheat away; a host that plays on consistently is caught at the
    # secrets (``test_cheat.py::test_first_dealer_not_the_seeds``).
    for facts, entries in recorded["long"]:
        mutated = copy.deepcopy(entries)
        end = mutate(facts, mutated)
        v, first = feed(facts, mutated)
        assert first is not None and first <= end
        assert v.round(1).findings[0].code in {"out_of_turn", "dealer_wrong"}  # type: ignore[union-attr]


def test_first_player_not_left_of_the_dealer(recorded: dict[str, list[Stream]]) -> None:
    def mutate(facts: V.TableFacts, entries: list[Entry]) -> int:
        i = find(entries, event("RoundStarted", round_no=2))
        ev = ev_in(entries[i], "RoundStarted")
        ev["first_player"] = ev["dealer"]
        return i

    expect_caught(recorded["long"], mutate, {"first_player"}, 2)


def test_hidden_events_are_caught(recorded: dict[str, list[Stream]]) -> None:
    """Dropping an events message (and its view) without a disconnect is caught at once."""
    def mutate(facts: V.TableFacts, entries: list[Entry]) -> int:
        i = find(entries, event("Discarded"))
        seq = entries[i]["msg"]["seq"]
        del entries[i]
        del entries[find(entries, lambda e: kind("view")(e) and e["msg"]["seq"] == seq, i)]
        # the gap shows at the next numbered message
        return find(entries, lambda e: e["dir"] == "in" and "seq" in e["msg"], i)

    expect_caught(recorded["long"], mutate, {"events_skipped"}, 1)


def test_wrong_rulings_and_scores(recorded: dict[str, list[Stream]]) -> None:
    """Scores, and a discard of a card the player does not hold, fail the full replay."""
    def scores(facts: V.TableFacts, entries: list[Entry]) -> int:
        i = find(entries, event("RoundEnded"))
        ev = ev_in(entries[i], "RoundEnded")
        ev["scores"][0][1] += 10
        return secrets_index(entries, 1, facts)

    expect_caught(recorded["long"], scores, {"replay_score"}, 1)

    def discard(facts: V.TableFacts, entries: list[Entry]) -> int:
        i = find(entries, event("Discarded", seat=(facts.seat + 1) % 3))
        ev = ev_in(entries[i], "Discarded")
        ev["card"] = {"card": 109}  # a joker nobody holds
        return secrets_index(entries, 1, facts)

    for facts, entries in recorded["long"]:  # caught at the round's end, or sooner
        mutated = copy.deepcopy(entries)
        end = discard(facts, mutated)
        v, first = feed(facts, mutated)
        assert first is not None and first <= end
        assert v.round(1).findings[0].code in {  # type: ignore[union-attr]
            "illegal_accepted", "replay_ruling", "pile_taken", "pile_knock"}


def test_secrets_never_sent(recorded: dict[str, list[Stream]]) -> None:
    def mutate(facts: V.TableFacts, entries: list[Entry]) -> int:
        del entries[secrets_index(entries, 2, facts)]
        tag = tag_of(facts, 3)  # the host moves on to round 3: the earliest moment
        return find(entries, lambda e: e["dir"] == "in" and e["msg"].get("round_tag") == tag)

    expect_caught(recorded["long"], mutate, {"secrets_missing"}, 2)


def test_combinations(recorded: dict[str, list[Stream]]) -> None:
    """Several cheats at once: the earliest one is reported first, the round fails."""
    def reused_then_dealer(facts: V.TableFacts, entries: list[Entry]) -> int:
        at = _move_dealer(entries, 3)
        t1, t2 = tag_of(facts, 1), tag_of(facts, 2)
        i = find(entries, lambda e: kind("commit_request")(e) and e["msg"]["round_tag"] == t2)
        for e in entries[i:]:
            if e["msg"].get("round_tag") == t2:
                e["msg"]["round_tag"] = t1
        return min(i, at)

    expect_caught(recorded["long"], reused_then_dealer, {"tag_reused"}, 2)

    def late_exclusion_and_cards(facts: V.TableFacts, entries: list[Entry]) -> int:
        i = find(entries, event("StockDrawn"))
        ev_in(entries[i], "StockDrawn")["position"] += 1
        _drop_secret(entries, secrets_index(entries, 1, facts), 1)
        return i

    expect_caught(recorded["long"], late_exclusion_and_cards, {"draw_position"}, 1)

    def no_commit_and_pile(facts: V.TableFacts, entries: list[Entry]) -> int:
        tag = tag_of(facts, 1)
        del entries[find(entries, lambda e: kind("commit_request")(e) and e["msg"]["round_tag"] == tag)]
        del entries[find(entries, lambda e: kind("commit", "out")(e) and e["msg"]["round_tag"] == tag)]
        del entries[find(entries, lambda e: kind("reveal", "out")(e) and e["msg"]["round_tag"] == tag)]
        i = find(entries, lambda e: kind("commitments")(e) and e["msg"]["round_tag"] == tag)
        entries[i]["msg"]["commits"].pop(str(facts.seat))
        pile = ev_in(entries[find(entries, event("StockRefilled"))], "StockRefilled")["pile"]
        pile.reverse()
        return i

    expect_caught(recorded["reshuffle"], no_commit_and_pile, {"not_asked"}, 1)


# --------------------------------------------------------------------------- evidence


def test_tracker_writes_evidence_that_replays(recorded: dict[str, list[Stream]], tmp_path: Any) -> None:
    facts, entries = recorded["long"][1]
    mutated = copy.deepcopy(entries)
    _move_dealer(mutated, 3)
    tracker = FairnessTracker(facts, tmp_path)
    for e in mutated:
        msg = P.Message.from_wire(copy.deepcopy(e["msg"]))
        if e["dir"] == "out":
            tracker.sent(msg, secret=e.get("secret"))
        else:
            tracker.received(msg)
        tracker.changes()
    failed = [r for r in tracker.rounds() if r.status == "failed"]
    # round 3 fails; (round 4's rotation then follows round 3 as dealt, so it fails too)
    assert [r.round_no for r in failed][:1] == [3]
    assert failed[0].evidence and "FAILED" in fairness_details(failed[0])
    import json

    from rami_lan.net.fairness import feed_stream, load_stream

    body = json.loads(open(failed[0].evidence, encoding="utf-8").read())
    assert body["round"]["findings"][0]["code"] == "dealer_moved"
    again = feed_stream(facts, load_stream(body["messages"]))
    assert again.round(3).status is V.Status.FAILED  # type: ignore[union-attr]


# --------------------------------------------------------------------------- property: honest rounds


EXAMPLES = int(os.environ.get("RAMI_VERIFY_EXAMPLES", "3"))
FULL = os.environ.get("RAMI_VERIFY_FULL", "") not in ("", "0")
VARIANTS = ("rami", "classique", "40", "multi", "500")


def _bots(seed: int) -> Callable[[Any, int], A.Action]:
    from rami_lan.bots import make_bot
    from rami_lan.core.views import view_for

    bots: dict[int, Any] = {}

    def choose(m: Any, seat: int) -> A.Action:
        bot = bots.get(seat)
        if bot is None:
            bot = bots[seat] = make_bot("debutant", seat, seed + seat)
        return bot.choose(view_for(m, seat), ())

    return choose


@pytest.mark.parametrize("variant", VARIANTS)
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), n=st.integers(2, 4))
def test_honest_matches_are_never_flagged(variant: str, seed: int, n: int) -> None:
    """Honest matches (timeouts and knocks included) are checked round by round by every
    seat. ``RAMI_VERIFY_EXAMPLES=N`` (and ``RAMI_VERIFY_FULL=1`` for matches of up to 60
    rounds instead of 3) for more."""
    rng = random.Random(seed)
    knock = variant in ("rami", "classique") and rng.random() < 0.5
    sim = simulate_match(variant, n, rng, _bots(seed), knock=knock, timeout_rate=0.03,
                         knock_rate=0.3, max_rounds=60 if FULL else 3)
    for seat in range(n):
        v = V.SeatVerifier(sim.facts_for(seat))
        found = v.feed_all(sim.streams[seat])
        assert not found, found[:3]
        assert all(r.status is V.Status.CHECKED for r in v.rounds())
        assert len(v.rounds()) == sim.rounds


def test_spec_vector_through_the_verifier_hashes() -> None:
    tag = round_tag(bytes(range(16)), 1, 1)
    assert commitment(tag, 0, bytes([1]) * 32).hex() == (
        "49724cdbc385c9099163bf2de57f3d710ff1ac7e90fbdb35f100a95b3a05e052")
    assert seed_from_secrets(tag, {1: bytes([2]) * 32, 0: bytes([1]) * 32}).hex() == (
        "b444f6212329e08819803405e912b2a38e06330fed9dd99772bf6da47e5eba76")


# --------------------------------------------------------------------------- unit checks


def _commit_start(facts: V.TableFacts) -> tuple[V.SeatVerifier, bytes, bytes, bytes]:
    v = V.SeatVerifier(facts)
    tag = tag_of(facts, 1)
    secret = bytes([5]) * 32
    mine = commitment(tag, facts.seat, secret)
    v.feed_all([V.CommitAsked(tag, facts.seat), V.CommitSent(tag, mine, secret)])
    return v, tag, secret, mine


def test_commitment_list_checks(recorded: dict[str, list[Stream]]) -> None:
    facts = recorded["long"][0][0]
    host = {255: bytes([3]) * 32}
    cases = [
        (lambda mine: dict(host), "own_commit_missing"),
        (lambda mine: {**host, facts.seat: bytes(32)}, "own_commit_altered"),
        (lambda mine: {facts.seat: mine}, "host_not_committed"),
    ]
    for commits, code in cases:
        v, tag, _secret, mine = _commit_start(facts)
        found = v.feed(V.CommitmentsSeen(tag, commits(mine)))
        assert found and found[0].code == code
        assert not v.can_reveal(tag)
    v = V.SeatVerifier(facts)
    found = v.feed(V.CommitAsked(tag_of(facts, 1), facts.seat + 1))
    assert [f.code for f in found] == ["commit_wrong_seat"]


def test_host_refusing_a_legal_action_is_caught(recorded: dict[str, list[Stream]]) -> None:
    """An ``illegal`` error for one of our actions that the rules allow fails the replay."""
    def mutate(facts: V.TableFacts, entries: list[Entry]) -> int:
        i = find(entries, lambda e: e["dir"] == "out" and e["msg"]["k"] == "action")
        refusal = {"dir": "in", "msg": {"k": "error", "code": "illegal", "message": "no",
                                        "ref": entries[i]["msg"]["seq"]}}
        entries.insert(i + 1, refusal)
        r = 1 + sum(1 for e in entries[:i] if kind("round_secrets")(e))
        return secrets_index(entries, r, facts)

    for facts, entries in recorded["long"]:
        mutated = copy.deepcopy(entries)
        at = mutate(facts, mutated)
        v, first = feed(facts, mutated)
        assert first == at
        assert v.findings[0].code == "refusal" and "refused our legal action" in v.findings[0].reason


def test_our_secret_replaced(recorded: dict[str, list[Stream]]) -> None:
    def mutate(facts: V.TableFacts, entries: list[Entry]) -> int:
        i = secrets_index(entries, 1, facts)
        entries[i]["msg"]["secrets"][str(facts.seat)] = bytes(32)
        return i

    expect_caught(recorded["long"], mutate, {"commitment", "own_secret_not_used"}, 1)


def test_refill_rule_flag(recorded: dict[str, list[Stream]]) -> None:
    def mutate(facts: V.TableFacts, entries: list[Entry]) -> int:
        i = find(entries, event("StockRefilled"))
        ev_in(entries[i], "StockRefilled")["shuffled"] = False
        return i

    expect_caught(recorded["reshuffle"], mutate, {"refill_rule"}, 1)


def _stock_only(m: Any, seat: int) -> A.Action:
    rnd = m.round
    if rnd.phase == "draw":
        return A.DrawStock(seat)
    hand = rnd.hands[seat]
    naturals = [c for c in hand if not c.is_joker]
    return A.Discard(seat, hand[-1] if not hand[-1].is_joker else naturals[0])


def test_multi_turned_over_pile_checked_at_each_draw() -> None:
    """``multi`` turns the pile over: our draws from it are known, and checked at once."""
    sim = simulate_match("multi", 2, random.Random(7), _stock_only, max_rounds=1)
    stream = list(sim.streams[0])
    refill = next(i for i, x in enumerate(stream) if isinstance(x, V.EventsSeen)
                  and any(isinstance(e, E.StockRefilled) for e in x.events))
    assert not V.SeatVerifier(sim.facts_for(0)).feed_all(stream)
    at = next(i for i in range(refill, len(stream)) if isinstance(stream[i], V.EventsSeen)
              and any(isinstance(e, E.StockDrawn) and e.card is not None and e.reshuffle == 1
                      for e in stream[i].events))
    evs = tuple(dataclasses.replace(e, card=Card(13, "h", 1))
                if isinstance(e, E.StockDrawn) and e.card is not None else e
                for e in stream[at].events)
    stream[at] = V.EventsSeen(stream[at].seq, evs)  # type: ignore[union-attr]
    v = V.SeatVerifier(sim.facts_for(0))
    first = next(i for i, x in enumerate(stream) if v.feed(x))
    assert first == at and v.findings[0].code == "draw_turned_over"


def test_late_joiner_is_never_flagged(recorded: dict[str, list[Stream]]) -> None:
    """A new process coming back with its token mid-match (the host sends the round's
    commitments, then the view): nothing is flagged; rounds it can not replay are
    ``partial`` and the protocol of later rounds is still checked."""
    for facts, entries in recorded["long"]:
        tag = tag_of(facts, 2)
        c = find(entries, lambda e, tag=tag: kind("commitments")(e) and e["msg"]["round_tag"] == tag)
        start = find(entries, lambda e: kind("view")(e) and e["msg"]["view"]["phase"] == "play",
                     find(entries, event("RoundStarted", round_no=2)))
        late = [copy.deepcopy(entries[c])] + copy.deepcopy(entries[start:])
        facts = dataclasses.replace(facts, rejoin=True)  # a new process with its token
        v, first = feed(facts, late)
        assert first is None, v.findings[:2]
        statuses = {r.round_no: r.status for r in v.rounds()}
        assert statuses[2] is V.Status.PARTIAL and min(statuses) == 2
        # a cheat in a later round is still caught
        late3 = copy.deepcopy(late)
        t1, t3 = tag_of(facts, 1), tag_of(facts, 3)
        i = find(late3, lambda e, t3=t3: kind("commit_request")(e) and e["msg"]["round_tag"] == t3)
        late3[i]["msg"]["round_tag"] = t1
        v, first = feed(facts, late3)
        assert first == i and v.round(3).status is V.Status.FAILED  # type: ignore[union-attr]
        # and our own dealt cards are still checked against the deck at the round's end
        late4 = copy.deepcopy(late)
        d = find(late4, event("CardsDealt", seat=facts.seat), find(late4, event("RoundStarted", round_no=3)))
        dealt = next(ev for ev in late4[d]["msg"]["events"]
                     if ev.get("type") == "CardsDealt" and ev["seat"] == facts.seat)
        ids = {c["card"] for c in dealt["cards"]}
        dealt["cards"][0] = {"card": next(x for x in range(104, 110) if x not in ids)}
        v, first = feed(facts, late4)
        assert first == secrets_index(late4, 3, facts)
        assert v.round(3).findings[0].code == "replay_card"  # type: ignore[union-attr]


def test_round_going_on_after_its_secrets(recorded: dict[str, list[Stream]]) -> None:
    """Secrets published mid-round end the round (abandoned): more play is caught at once."""
    def mutate(facts: V.TableFacts, entries: list[Entry]) -> int:
        s = secrets_index(entries, 1, facts)
        secrets_msg = entries.pop(s)
        deal = find(entries, event("RoundStarted", round_no=1))
        entries.insert(deal + 1, secrets_msg)
        return find(entries, lambda e: kind("events")(e), deal + 2)

    expect_caught(recorded["long"], mutate, {"events_after_secrets"}, 1)


def test_hostile_data_never_crashes_the_verifier(recorded: dict[str, list[Stream]]) -> None:
    facts = recorded["long"][0][0]
    tag = tag_of(facts, 1)
    v, _tag, secret, mine = _commit_start(facts)
    v.feed_all([V.CommitmentsSeen(tag, {facts.seat: mine, 255: bytes(32)}),
                V.RevealSent(tag, secret)])
    weird = E.RoundStarted(1, 9, 9, (0, 9, 9, 9, 9), -3, -1, Card(1, "c"))
    found = v.feed(V.EventsSeen(1, (weird, E.CardsDealt(9, None, (-1,)),
                                    E.StockDrawn(0, None, 10**9, 7), E.LaidOff(0, Card(1, "c"), 99, None),  # type: ignore[arg-type]
                                    E.DiscardTaken(0, (), -5))))
    assert found and v.round(1).status is V.Status.FAILED  # type: ignore[union-attr]
    v.feed(V.SecretsSeen(tag, {facts.seat: secret, 255: b"short"}, (7,), {7: ""}))
    assert v.round(1).status is V.Status.FAILED  # type: ignore[union-attr]


def test_host_playing_another_move_for_us(recorded: dict[str, list[Stream]]) -> None:
    """The host applies, for our seat, another move than the one we sent."""
    def mutate(facts: V.TableFacts, entries: list[Entry]) -> int:
        i = find(entries, lambda e: e["dir"] == "out" and e["msg"]["k"] == "action"
                 and e["msg"]["action"]["kind"] == "discard")
        r = 1 + sum(1 for e in entries[:i] if kind("round_secrets")(e))
        card = entries[i]["msg"]["action"]["card"]
        entries[i]["msg"]["action"]["card"] = (card + 1) % 104  # we "sent" another card
        return secrets_index(entries, r, facts)

    for facts, entries in recorded["long"]:
        mutated = copy.deepcopy(entries)
        at = mutate(facts, mutated)
        v, first = feed(facts, mutated)
        assert first == at and v.findings[0].code == "own_action_changed", v.findings[:1]


def test_round_restarted_after_the_deal(recorded: dict[str, list[Stream]]) -> None:
    """Aborting a dealt round for a new commit-reveal (a later tag) is caught at once."""
    def mutate(facts: V.TableFacts, entries: list[Entry]) -> int:
        at = find(entries, event("Discarded")) + 1
        entries.insert(at, {"dir": "in", "msg": {"k": "commit_request",
                                                   "round_tag": tag_of(facts, 2), "seat": facts.seat}})
        return at

    expect_caught(recorded["long"], mutate, {"commit_mid_round"}, 1)


def test_disconnect_without_a_seq_jump_is_partial_not_failed(recorded: dict[str, list[Stream]]) -> None:
    """Cut off (e.g. rate-limited), the client misses one change's events; the state sent
    on reconnect carries the very next number: the round is ``partial``, never failed."""
    for facts, entries in recorded["long"]:
        items: list[V.Input] = []
        dropped = False
        for e in entries:
            msg = P.Message.from_wire(copy.deepcopy(e["msg"]))
            got = to_inputs(msg, facts.variant, sent=e["dir"] == "out", secret=e.get("secret"))
            if not dropped and any(isinstance(x, V.EventsSeen)
                                   and any(isinstance(ev, E.Discarded) for ev in x.events)
                                   for x in got):
                items.append(V.Disconnected())  # the events of this change are lost
                dropped = True
                continue
            items += got
        v = V.SeatVerifier(facts)
        assert not v.feed_all(items), v.findings[:2]
        assert v.round(1).status is V.Status.PARTIAL  # type: ignore[union-attr]


def test_connection_lost_before_the_secrets_is_unchecked_not_failed(
        recorded: dict[str, list[Stream]]) -> None:
    facts, entries = recorded["long"][0]
    end = secrets_index(entries, 1, facts)
    v = V.SeatVerifier(facts)
    for e in entries[:end]:
        msg = P.Message.from_wire(copy.deepcopy(e["msg"]))
        v.feed_all(to_inputs(msg, facts.variant, sent=e["dir"] == "out", secret=e.get("secret")))
    assert not v.feed_all([V.Disconnected(), V.StreamEnded()])
    assert v.round(1).status is V.Status.UNCHECKED  # type: ignore[union-attr]
    v2, first = feed(facts, entries[:end])  # the host ends the session: its secrets are due
    assert v2.round(1).findings[0].code == "secrets_missing"  # type: ignore[union-attr]


def test_late_joiner_between_rounds_is_not_flagged_for_the_last_rounds_list(
        recorded: dict[str, list[Stream]]) -> None:
    """A new process back with its token between rounds 1 and 2: a host (resumed, or not)
    sends it round 1's commitments again, the list of a round over before it came back.
    That is not round 2's list under a wrong tag (it failed round 2 with 'tag_wrong',
    found by the chaos test): it is skipped, and round 2 is judged as usual."""
    for facts, entries in recorded["long"]:
        t1, t2 = tag_of(facts, 1), tag_of(facts, 2)
        c1 = find(entries, lambda e, t1=t1: kind("commitments")(e) and e["msg"]["round_tag"] == t1)
        ask2 = find(entries, lambda e, t2=t2: kind("commit_request")(e) and e["msg"]["round_tag"] == t2)
        between = max(i for i in range(ask2) if kind("view")(entries[i])
                      and entries[i]["msg"]["view"]["phase"] == "between")
        late = [copy.deepcopy(entries[between]), copy.deepcopy(entries[c1])] + copy.deepcopy(entries[ask2:])
        facts = dataclasses.replace(facts, rejoin=True)
        v, first = feed(facts, late)
        assert first is None, v.findings[:2]
        assert v.round(2) is not None and v.round(2).status is not V.Status.FAILED  # type: ignore[union-attr]
