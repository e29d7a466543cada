"""Cheating hosts against honest clients on loopback (level (b) of the cheating tests).

Each cheat is one overridden duty of the table machine (a `TableMachine` subclass given
to a real `TableHost`): ``deck_for_round``, ``seats_to_commit``, ``round_tag_for``,
``deal`` (the dealer), ``apply_core`` (the pile before a reshuffle), ``reveal`` and the
exclusions' announcement. Real clients play with bots; every honest client must fail
the right round, at the earliest message that carries the information
(``tracker.found_at``), with a clear reason and an evidence file, and ``join --bot``'s
summary must exit non-zero. ``rami-lan verify`` catches the record. Verifier-level
mutations of recorded streams are in ``test_verifier.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from aio_helpers import run
from policies import StockOnly

from rami_lan.cli import cmd_verify
from rami_lan.cli.cmd_join import fairness_summary
from rami_lan.cli.messages import fairness_details
from rami_lan.core import actions as A
from rami_lan.core import round as R
from rami_lan.core.deckrng import first_dealer_index
from rami_lan.net.bot_client import BotClient
from rami_lan.net.client import RemoteTableSession, open_session
from rami_lan.net.host import TableConfig, TableHost
from rami_lan.net.record import MatchRecord, verify, verify_file
from rami_lan.table.machine import TableMachine
from rami_lan.table.shuffle import deck_order, round_tag

pytestmark = pytest.mark.usefixtures("isolated_config")


# --------------------------------------------------------------------------- the cheats
#
# Each cheat is one overridden duty of the table machine (`rami_lan.table.TableMachine`):
# ``deck_for_round``, ``seats_to_commit``, ``round_tag_for``, ``deal`` (the dealer),
# ``apply_core`` (the pile before a reshuffle), ``reveal`` / ``_announce_exclusions``.


class CheatMachine(TableMachine):
    """The host's machine; the subclasses below each change one duty."""


class UnshuffledDeck(CheatMachine):
    """deck_for_round: the unshuffled deck (all jokers together) whatever the seed; its
    events still carry the deal's positions."""

    def deck_for_round(self, seed: bytes, n_cards: int) -> list[int]:
        return list(range(n_cards))


class SwappedCards(CheatMachine):
    """deck_for_round: the agreed deck with its first two cards swapped."""

    def deck_for_round(self, seed: bytes, n_cards: int) -> list[int]:
        deck = super().deck_for_round(seed, n_cards)
        deck[0], deck[1] = deck[1], deck[0]
        return deck


class NoCommitRequest(CheatMachine):
    """seats_to_commit: nobody; the seed is the host's secret alone."""

    def seats_to_commit(self, players: Sequence[int]) -> tuple[int, ...]:
        return ()


class RevealKeptAside(CheatMachine):
    """reveal: keeps seat 1's correct reveal aside; the seat is then excluded as late."""

    def reveal(self, conn: int, tag: bytes, secret: bytes, now: float) -> list[Any]:
        if self.conns.get(conn) == 1:
            return self._flush(now)
        return super().reveal(conn, tag, secret, now)


class SilentExclusion(RevealKeptAside):
    """...and announces no exclusion before the deal (it shows only in the secrets)."""

    def _announce_exclusions(self, ctx: Any) -> None:
        pass


class FreshTags(CheatMachine):
    """round_tag_for: a fresh tag every round (not the round's own): a restart."""

    def round_tag_for(self, round_no: int) -> bytes:
        return round_tag(secrets.token_bytes(16), self.match_no, round_no)


class ReusedTag(CheatMachine):
    """round_tag_for: every round runs under round 1's tag."""

    def round_tag_for(self, round_no: int) -> bytes:
        self._tags_used.clear()  # (and skips the honest machine's own guard)
        return round_tag(self.table_id, self.match_no, 1)


class FirstDealerMoved(CheatMachine):
    """deal: round 1's dealer is the seat after the seed's (the play is consistent)."""

    def deal(self, m: Any, cards: list[Any], seed: bytes) -> Any:
        if m.round_no == 0:
            players = m.next_players()
            # the core then rotates from the seed's dealer to the next seat
            m = dataclasses.replace(m, dealer=players[first_dealer_index(seed, len(players))])
        return super().deal(m, cards, seed)


class MovedDealer(CheatMachine):
    """deal: the dealer moves in rounds 3 and 5 (the rotation skips a seat)."""

    def deal(self, m: Any, cards: list[Any], seed: bytes) -> Any:
        if m.round_no + 1 in (3, 5) and m.dealer is not None:
            players = m.next_players()
            skip = next((s for s in players if s > m.dealer), players[0])
            m = dataclasses.replace(m, dealer=skip)
        return super().deal(m, cards, seed)


class ReorderedPile(CheatMachine):
    """apply_core: before a reshuffle, the pile's first card goes last."""

    def apply_core(self, m: Any, action: A.Action) -> Any:
        rnd = m.round
        if isinstance(action, A.DrawStock) and rnd is not None and not rnd.stock \
                and len(rnd.discard) > 3:
            pile = rnd.discard[:-1]
            cheat = pile[1:] + pile[:1] + rnd.discard[-1:]
            m = dataclasses.replace(m, round=R.replace(rnd, discard=cheat))
        return super().apply_core(m, action)


class DealerAndDeck(MovedDealer, SwappedCards):
    """Combination: a swapped deck every round and the dealer moved in rounds 3 and 5."""


class NoCommitAndPile(NoCommitRequest, ReorderedPile):
    """Combination: no commit request, and a reordered pile before each reshuffle."""


# --------------------------------------------------------------------------- harness


async def _play(machine_cls: type[TableMachine] | None, tmp_path: Path, *, seats: int = 3,
                limit: int = 1, stock_only: bool = False
                ) -> tuple[TableHost, list[Any], list[RemoteTableSession]]:
    config = TableConfig(name="cheat", variant="rami", limit=limit, seats=seats,
                         headless=True, advertise=False, interfaces=["127.0.0.1"],
                         record_dir=tmp_path, bot_delay=0.0, commit_timeout=2.0,
                         reveal_timeout=2.0)  # (0.5 s lost honest commits under load)
    machine = None
    if machine_cls is not None:
        machine = machine_cls(config, secrets.token_bytes)
        machine.record = MatchRecord.new(machine, config)
    host = TableHost(config, machine=machine)
    port = await host.start()
    try:
        sessions = [await open_session("127.0.0.1", port, nickname=f"p{i}", bot=True,
                                       evidence_dir=tmp_path / "evidence") for i in range(seats)]
        bots = [BotClient(s, StockOnly() if stock_only else None, delay=0.0, seed=i)
                for i, s in enumerate(sessions)]
        summaries = await asyncio.gather(*(b.run() for b in bots))
        await host.wait_finished(20)
        for s in sessions:
            await s.close()
    finally:
        await host.stop()
    return host, summaries, sessions


def _failed(session: RemoteTableSession, round_no: int, codes: set[str]) -> Any:
    """The round failed for this client, with one of ``codes`` first, and evidence."""
    fr = {r.round_no: r for r in session.fairness_rounds()}[round_no]
    assert fr.status == "failed", (session.seat, fr)
    assert fr.evidence and Path(fr.evidence).exists()
    tracker = session.tracker
    assert tracker is not None
    first = next(f for f in tracker.verifier.findings if f.round_no == round_no)
    assert first.code in codes, (session.seat, first)
    assert "FAILED" in fairness_details(fr)
    return first


def _at_message(session: RemoteTableSession, round_no: int) -> dict[str, Any]:
    """The message (wire map) at which the client first saw ``round_no`` fail."""
    tracker = session.tracker
    assert tracker is not None
    return tracker.log[tracker.found_at[round_no]]


def _exit_status(session: RemoteTableSession, summary: Any, capsys: Any) -> tuple[int, str]:
    capsys.readouterr()
    code = fairness_summary(session, summary)
    return code, capsys.readouterr().out


# --------------------------------------------------------------------------- tests


def test_honest_host_every_round_checked(tmp_path: Path, capsys: Any) -> None:
    host, summaries, sessions = run(_play(None, tmp_path, limit=50))
    for s, sm in zip(sessions, summaries, strict=True):
        rounds = s.fairness_rounds()
        assert rounds and all(r.status == "checked" for r in rounds), rounds
        assert len(rounds) == len(host.match.history)
        code, out = _exit_status(s, sm, capsys)
        assert code == 0 and f"Rounds checked: {len(rounds)} of {len(rounds)}" in out
    assert not (tmp_path / "evidence").exists()
    assert verify_file(host.record_path).ok  # type: ignore[arg-type]


def test_unshuffled_deck_with_positions(tmp_path: Path, capsys: Any) -> None:
    host, summaries, sessions = run(_play(UnshuffledDeck, tmp_path))
    for s, sm in zip(sessions, summaries, strict=True):
        f = _failed(s, 1, {"replay_card", "dealer_wrong"})
        assert "agreed shuffle" in f.reason or "seed" in f.reason
        assert _at_message(s, 1)["msg"]["k"] == "round_secrets"  # the seed's first moment
        code, out = _exit_status(s, sm, capsys)
        assert code == 3 and "Rounds checked: 0 of 1" in out and "FAILED" in out
    report = verify_file(host.record_path)  # type: ignore[arg-type]
    assert not report.ok and any("deck used is not deck_order" in p for p in report.problems)


def test_swapped_cards_and_forged_record(tmp_path: Path, capsys: Any) -> None:
    host, summaries, sessions = run(_play(SwappedCards, tmp_path))
    for s in sessions:
        _failed(s, 1, {"replay_card", "illegal_accepted", "replay_ruling", "replay_score"})
    assert host.record_path is not None
    report = verify_file(host.record_path)
    assert not report.ok and any("deck used is not deck_order" in p for p in report.problems)
    capsys.readouterr()
    assert cmd_verify.run(argparse.Namespace(record=str(host.record_path), json=False)) == 1
    assert "MISMATCH" in capsys.readouterr().out
    # A record whose "deck" was rewritten to the honest one is still caught by its log.
    data = json.loads(host.record_path.read_text())
    for rnd in data["rounds"]:
        rnd["deck"] = deck_order(bytes.fromhex(rnd["seed"]), rnd["n_cards"])
    report = verify(data)
    assert not report.ok
    assert all("deck used" not in p for p in report.problems)
    assert any("stock position" in p for p in report.problems)


def test_no_commit_request(tmp_path: Path, capsys: Any) -> None:
    host, summaries, sessions = run(_play(NoCommitRequest, tmp_path))
    for s, sm in zip(sessions, summaries, strict=True):
        f = _failed(s, 1, {"not_asked"})
        assert "never asked us to commit" in f.reason
        at = _at_message(s, 1)
        assert at["msg"]["k"] == "commitments"  # before a single card was dealt
        assert _exit_status(s, sm, capsys)[0] == 3


def test_reveal_kept_aside_is_announced_and_fails_the_victim(tmp_path: Path) -> None:
    host, summaries, sessions = run(_play(RevealKeptAside, tmp_path))
    victim = next(s for s in sessions if s.seat == 1)
    f = _failed(victim, 1, {"own_excluded"})
    assert "excluded our secret" in f.reason
    assert _at_message(victim, 1)["msg"]["k"] == "commitments"  # the announcement, pre-deal
    for s in sessions:
        r1 = s.fairness_rounds()[0]
        assert r1.excluded == ((1, "no_reveal"),)  # shown to every player, with the reason
        if s is not victim:
            assert r1.status == "checked" and "Excluded" in fairness_details(r1)


def test_silent_late_exclusion(tmp_path: Path) -> None:
    host, summaries, sessions = run(_play(SilentExclusion, tmp_path))
    for s in sessions:
        f = _failed(s, 1, {"late_exclusion"})
        assert "without an announcement" in f.reason
        assert _at_message(s, 1)["msg"]["k"] == "round_secrets"


def test_first_dealer_not_the_seeds(tmp_path: Path) -> None:
    host, summaries, sessions = run(_play(FirstDealerMoved, tmp_path))
    for s in sessions:
        f = _failed(s, 1, {"dealer_wrong"})
        assert "the seed makes seat" in f.reason
        assert _at_message(s, 1)["msg"]["k"] == "round_secrets"  # the seed's first moment
    report = verify_file(host.record_path)  # type: ignore[arg-type]
    assert not report.ok and any("the seed makes seat" in p for p in report.problems)


def test_fresh_tags(tmp_path: Path) -> None:
    host, summaries, sessions = run(_play(FreshTags, tmp_path))
    for s in sessions:
        _failed(s, 1, {"tag_wrong"})
        at = _at_message(s, 1)
        assert at["msg"]["k"] == "commit_request"
        assert not any(e["dir"] == "out" and e["msg"]["k"] in ("commit", "reveal")
                       for e in s.tracker.log)  # type: ignore[union-attr]


def test_reused_round_one_tag(tmp_path: Path) -> None:
    host, summaries, sessions = _long_match(ReusedTag, tmp_path, rounds=2, limit=50)
    for s in sessions:
        _failed(s, 2, {"tag_reused"})
        # the request, or for a seat out of the match (not asked) the list
        assert _at_message(s, 2)["msg"]["k"] in ("commit_request", "commitments")
        reveals = [e for e in s.tracker.log  # type: ignore[union-attr]
                   if e["dir"] == "out" and e["msg"]["k"] == "reveal"]
        assert len(reveals) == 1  # round 1 only: no secret goes out under a reused tag
        assert s.fairness_rounds()[0].status == "checked"


def _long_match(machine_cls: type[TableMachine], tmp_path: Path, *, rounds: int = 5,
                limit: int = 100) -> Any:
    """A match of at least ``rounds`` rounds (bots can end one early: try again)."""
    for attempt in range(8):
        host, summaries, sessions = run(_play(machine_cls, tmp_path / str(attempt), limit=limit),
                                        timeout=120)
        if len(host.match.history) >= rounds:
            return host, summaries, sessions
    raise AssertionError(f"no match of {rounds} rounds in 8 tries")  # never skipped silently


def test_moved_dealer_in_rounds_3_and_5(tmp_path: Path, capsys: Any) -> None:
    host, summaries, sessions = _long_match(MovedDealer, tmp_path)
    for s, sm in zip(sessions, summaries, strict=True):
        f = _failed(s, 3, {"dealer_moved"})
        assert "rotation" in f.reason
        at = _at_message(s, 3)
        assert any(ev.get("type") == "RoundStarted" for ev in at["msg"]["events"])
        statuses = {r.round_no: r.status for r in s.fairness_rounds()}
        assert statuses[1] == statuses[2] == "checked"
        assert statuses[5] == "failed"
        assert _exit_status(s, sm, capsys)[0] == 3
    report = verify_file(host.record_path)  # type: ignore[arg-type]
    assert not report.ok and any("rotation" in p for p in report.problems)


def test_reordered_pile_before_reshuffle(tmp_path: Path) -> None:
    host, summaries, sessions = run(_play(ReorderedPile, tmp_path, seats=2, stock_only=True))
    for s in sessions:
        f = _failed(s, 1, {"refill_pile_order"})
        assert "bottom to top" in f.reason
        at = _at_message(s, 1)
        assert any(ev.get("type") == "StockRefilled" for ev in at["msg"]["events"])
    assert not verify_file(host.record_path).ok  # type: ignore[arg-type]


def test_combined_cheats(tmp_path: Path) -> None:
    host, summaries, sessions = _long_match(DealerAndDeck, tmp_path)
    for s in sessions:
        _failed(s, 1, {"replay_card", "illegal_accepted", "replay_ruling", "replay_score"})
        assert {f.code for f in s.tracker.verifier.findings if f.round_no == 3} & {  # type: ignore[union-attr]
            "dealer_moved"}
    host, summaries, sessions = run(_play(NoCommitAndPile, tmp_path / "b", seats=2,
                                          stock_only=True))
    for s in sessions:
        _failed(s, 1, {"not_asked"})
        codes = {f.code for f in s.tracker.verifier.findings}  # type: ignore[union-attr]
        assert "refill_pile_order" in codes


def test_join_bot_exit_status_per_round_state(capsys: Any) -> None:
    from rami_lan.net.bot_client import BotSummary
    from rami_lan.net.fairness import FairnessRound

    class Fake:
        def __init__(self, *statuses: str) -> None:
            self.rounds = tuple(FairnessRound(i + 1, st, "why") for i, st in enumerate(statuses))

        def fairness_rounds(self) -> tuple[FairnessRound, ...]:
            return self.rounds

    done = BotSummary(seat=0, finished=True)
    for statuses, code, text in ((("checked", "checked"), 0, "Rounds checked: 2 of 2"),
                                 (("checked", "failed"), 3, "Rounds checked: 1 of 2"),
                                 (("checked", "partial"), 5, "Rounds not fully checked: 1"),
                                 (("checked", "unchecked"), 5, "Rounds checked: 1 of 2")):
        capsys.readouterr()
        assert fairness_summary(Fake(*statuses), done) == code
        assert text in capsys.readouterr().out
