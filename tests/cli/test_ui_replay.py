"""The replay screen in-process: a whole recorded match forward and back."""

from __future__ import annotations

import asyncio
import json

import pytest
from ui_helpers import running, until

from rami_lan.cli.cmd_replay import adapt_record, load_replay
from rami_lan.cli.cmd_solo import make_solo_session
from rami_lan.cli.local_session import FallbackBot
from rami_lan.cli.main import build_parser
from rami_lan.cli.ui.cards import face_text
from rami_lan.cli.ui.replay_screen import ReplayScreen
from rami_lan.cli.ui.shell import Shell
from rami_lan.replay import ReplayError

pytestmark = pytest.mark.usefixtures("ui_env")


async def played_match(seed: str, seats: int = 3, limit: int = 1):
    """A real match on a local table, the human seat played by a simple policy."""
    session = make_solo_session("rami", seats, "moyen", seed, limit=limit, think=0)
    await session.start()
    bot = FallbackBot("debutant", 0, 3)
    for _ in range(20000):
        m = session.state
        if m.over:
            break
        if m.phase == "between":
            await session.next_round("continue")
        v = session.view()
        if v.my_turn and v.phase in ("draw", "play"):
            await session.act(bot.choose(v, []))
        await asyncio.sleep(0)
    assert session.state.over
    record = session.replay_record()
    state = session.state
    await session.close()
    return record, state


ROUND_FIELDS = {"round_tag": "00" * 36, "host_seat": 255, "participants": [], "commitments": {},
                "secrets": {}, "excluded": [], "players": [], "n_cards": 110}
"""The fields every host writes in a round (`rami_lan.net.record.check_record` wants them)."""


def host_record(rec: dict) -> dict:
    """The same match in the host's record shape (rami-lan-record, with actions)."""
    return {
        "format": "rami-lan-record", "version": 1, "table_id": "00" * 16, "match_no": 1,
        "variant": rec["variant"], "options": rec["options"], "seats": rec["seats"],
        "players": [{"seat": s, "nick": n, "kind": "human"} for s, n in
                    enumerate(rec["nicknames"])],
        "rounds": [{**ROUND_FIELDS, "round_no": i + 1, "deck": r["deck"], "seed": r["seed"],
                    "dealer": r["dealer"], "actions": r["actions"], "abandoned": False,
                    "events": []} for i, r in enumerate(rec["rounds"])],
        "result": None,
    }


def test_replay_screen_walks_a_whole_match_forward_and_back(tmp_path):
    async def main() -> None:
        rec, final = await played_match("replay-ui-1", seats=2, limit=50)
        path = tmp_path / "match.json"
        path.write_text(json.dumps(host_record(rec)), encoding="utf-8")
        replay, is_host = load_replay(path)
        assert is_host and replay.n_rounds == len(rec["rounds"])
        verified: list[int] = []
        box: list = []

        def make() -> Shell:
            shell = Shell()
            screen = ReplayScreen(replay, verify=lambda: verified.append(1) or "Record OK.",
                                  on_leave=shell.exit)
            shell.show(screen)
            box[:] = [shell, screen]
            return shell

        async with running(make, timeout=40) as d:
            shell, screen = box
            assert replay.position == 0
            assert "step 0 of" in screen.text()
            seen_rounds = set()
            for i in range(replay.last):  # forward, one action at a time
                d.keys("l" if i % 2 else "\x1b[C")  # l and →
                await until(lambda i=i: replay.position == i + 1, what=f"step {i + 1}")
                seen_rounds.add(replay.round_at(replay.position))
            assert seen_rounds == set(range(1, replay.n_rounds + 1))
            text = screen.text()
            assert replay.state == final  # the same final state as the game itself
            assert f"step {replay.last} of {replay.last}" in text
            for s, total in enumerate(final.totals):
                row = next(r for r in text.split("\n") if r[2:].startswith(rec["nicknames"][s]))
                assert f"{total} pts" in row
            hands = final.round.hands
            rows = text.split("\n")
            for s, hand in enumerate(hands):
                row = next(r for r in rows[rows.index("Every hand:"):]
                           if r.startswith(rec["nicknames"][s][:12]))
                for c in hand:
                    assert face_text(c) in row
            assert "wins the match" in text
            d.keys("l")  # at the end: stays
            await d.settle()  # a frame drawn after the key
            assert replay.position == replay.last
            for i in range(replay.last, 0, -1):  # back to the start, ← and h
                d.keys("h" if i % 2 else "\x1b[D")
                await until(lambda i=i: replay.position == i - 1, what=f"back {i - 1}")
            assert replay.state == replay.state_at(0)
            assert "(no cards in hand)" in screen.text()
            d.keys("\x1b[F")  # End
            await until(lambda: replay.position == replay.last, what="end")
            assert replay.state == final
            d.keys("\x1b[H")  # Home
            await until(lambda: replay.position == 0, what="home")
            d.keys("\x1b[6~")  # PgDn: the first deal
            await until(lambda: replay.position == replay.round_start(1), what="pgdn")
            d.keys(str(replay.n_rounds))
            await until(lambda: replay.position == replay.round_start(replay.n_rounds))
            d.keys("9" if replay.n_rounds < 9 else "")
            await until(lambda: "There is no round 9" in screen.text(), what="no round 9")
            d.keys("v")
            await until(lambda: verified == [1], what="verify")
            assert "Record OK." in screen.text()
            d.keys("q")
            await until(lambda: not shell.app.is_running, what="left")

    asyncio.run(main())


def test_replay_command_errors_and_adapter(tmp_path, capsys):
    from rami_lan.cli import cmd_replay

    old = {"format": "rami-lan-record", "table_id": "00" * 16, "match_no": 1, "variant": "rami",
           "seats": 2, "options": {}, "players": [],
           "rounds": [{**ROUND_FIELDS, "round_no": 1, "deck": [], "seed": "00" * 32, "dealer": 0,
                       "abandoned": False, "events": []}]}
    with pytest.raises(ReplayError, match="no actions"):
        adapt_record(old)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    args = build_parser("replay").parse_args(["replay", str(bad)])
    assert args.record == str(bad)
    assert cmd_replay.run(args) == 2
    assert "Can not replay" in capsys.readouterr().err
    missing = build_parser("replay").parse_args(["replay", str(tmp_path / "nope.json")])
    assert cmd_replay.run(missing) == 2
    rec_path = tmp_path / "old.json"
    rec_path.write_text(json.dumps(old), encoding="utf-8")
    assert cmd_replay.run(build_parser("replay").parse_args(["replay", str(rec_path)])) == 2
    assert "no actions" in capsys.readouterr().err
