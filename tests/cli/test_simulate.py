"""``rami-lan simulate``: the JSON keys and numbers of a tiny run, argument errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rami_lan.cli import cmd_simulate
from rami_lan.cli.main import main

KEYS = {
    "variant", "players", "seed", "matches", "deals", "no_winner", "rounds",
    "rounds_per_match", "rounds_per_second", "elapsed_s", "engine_share", "knocks",
    "decision_ms", "bots",
}
BOT_KEYS = {
    "name", "level", "match_wins", "win_rate", "ci95", "round_wins", "decisions",
    "decision_ms_mean", "decision_ms_median", "decision_ms_p99",
}


def _run(capsys, *argv: str) -> dict:
    assert main(["simulate", *argv]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_keys_and_numbers(capsys):
    out = _run(capsys, "--variant", "multi", "--players", "moyen,debutant",
               "--matches", "2", "--seed", "3", "--json")
    assert set(out) == KEYS
    assert out["variant"] == "multi" and out["players"] == ["moyen", "debutant"]
    assert out["matches"] == 2 and out["deals"] == 1  # one deal, both seat rotations
    assert len(out["bots"]) == 2 and all(set(b) == BOT_KEYS for b in out["bots"])
    wins = sum(b["match_wins"] for b in out["bots"])
    assert wins + out["no_winner"] == out["matches"]
    assert out["rounds"] >= out["matches"]
    assert out["rounds_per_match"] == pytest.approx(out["rounds"] / out["matches"])
    assert sum(b["round_wins"] for b in out["bots"]) <= out["rounds"]
    for b in out["bots"]:
        lo, hi = b["ci95"]
        assert 0.0 <= lo <= b["win_rate"] <= hi <= 1.0
        assert b["decisions"] > 0 and b["decision_ms_p99"] >= b["decision_ms_median"] >= 0
    assert out["rounds_per_second"] > 0


def test_seed_makes_runs_repeatable(capsys):
    args = ("--variant", "rami", "--players", "expert,moyen", "--matches", "2",
            "--seed", "9", "--limit", "1", "--json")
    a, b = _run(capsys, *args), _run(capsys, *args)
    for key in ("rounds", "no_winner"):
        assert a[key] == b[key]
    assert [x["match_wins"] for x in a["bots"]] == [x["match_wins"] for x in b["bots"]]


def test_same_level_twice_gets_distinct_names(capsys):
    out = _run(capsys, "--variant", "500", "--players", "moyen,moyen,debutant",
               "--matches", "3", "--limit", "50", "--json")
    assert [b["name"] for b in out["bots"]] == ["moyen#1", "moyen#2", "debutant"]
    assert out["matches"] == 3


def test_text_output(capsys):
    assert main(["simulate", "--variant", "rami", "--players", "moyen,debutant",
                 "--matches", "2", "--limit", "1"]) == 0
    text = capsys.readouterr().out
    assert "moyen" in text and "95% CI" in text and "rounds per second" in text


def test_bad_arguments(capsys):
    assert main(["simulate", "--players", "moyen,wizard"]) == 2
    assert main(["simulate", "--players", "moyen"]) == 2
    assert main(["simulate", "--matches", "0"]) == 2
    assert "wizard" in capsys.readouterr().err


def test_wilson_interval():
    lo, hi = cmd_simulate.wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    assert cmd_simulate.wilson(0, 0) == (0.0, 1.0)
    lo, hi = cmd_simulate.wilson(10, 10)
    assert hi == pytest.approx(1.0) and 0.69 < lo < 0.73


PLUGIN = str(Path(__file__).parents[1] / "plugins" / "tinybot.py")


def test_plugin_bot_plays_and_is_measured(capsys):
    out = _run(capsys, "--variant", "multi", "--players", f"moyen,{PLUGIN}:TinyBot",
               "--matches", "2", "--seed", "3", "--json")
    assert [b["name"] for b in out["bots"]] == ["moyen", "TinyBot"]
    assert out["players"] == ["moyen", f"{PLUGIN}:TinyBot"]
    wins = sum(b["match_wins"] for b in out["bots"])
    assert wins + out["no_winner"] == 2
    assert out["bots"][1]["decisions"] > 0
    # a plainly weak plug-in loses to moyen
    assert out["bots"][0]["match_wins"] == 2


def test_plugin_receives_events_and_knock_questions():
    from rami_lan.bots.plugin import load_plugin
    from rami_lan.core.match import MatchOptions
    from rami_lan.table.selfplay import play_match

    make = load_plugin(f"{PLUGIN}:TinyBot")
    seats = [make(0, 1), make(1, 2), make(2, 3)]
    play_match("rami", seats, seed=5, options=MatchOptions(limit=1, knock=True))
    assert all(s.bot.events_seen > 0 for s in seats)
    assert any(s.bot.knock_calls > 0 for s in seats)  # seat 2 is asked in 3-player windows


def test_plugin_errors_are_reported(capsys, tmp_path):
    assert main(["simulate", "--players", f"moyen,{PLUGIN}:Missing"]) == 2
    assert "no callable 'Missing'" in capsys.readouterr().err
    assert main(["simulate", "--players", f"moyen,{PLUGIN}:NOT_CALLABLE"]) == 2
    assert main(["simulate", "--players", f"moyen,{tmp_path}/nope.py:Bot"]) == 2
    assert "does not exist" in capsys.readouterr().err
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('boom')\n")
    assert main(["simulate", "--players", f"moyen,{broken}:Bot"]) == 2
    assert "RuntimeError: boom" in capsys.readouterr().err
    noknock = tmp_path / "noknock.py"
    noknock.write_text("class Bot:\n    def __init__(self, seat, seed):\n        pass\n"
                       "    def choose(self, view, new_events):\n        pass\n")
    assert main(["simulate", "--players", f"moyen,{noknock}:Bot", "--matches", "2"]) == 2
    assert "wants_knock" in capsys.readouterr().err


def test_cheating_plugin_is_stopped_with_the_reason(capsys):
    code = main(["simulate", "--variant", "multi", "--players", f"moyen,{PLUGIN}:Cheater",
                 "--matches", "2"])
    assert code == 1
    err = capsys.readouterr().err
    assert "illegal action" in err and "seat" in err


def test_check_action_says_why():
    from test_bots import _draw_view

    from rami_lan.bots.plugin import check_action
    from rami_lan.core import actions as A
    from rami_lan.core import parse_cards

    hand = tuple(parse_cards("7c 8c 2d 4s 6h 10s Jd Qh 3c 5d Ah 9s 4h"))
    view = _draw_view(hand, parse_cards("9c")[0])
    assert check_action(view, A.DrawStock(2)) is None
    why = check_action(view, A.Discard(2, hand[0]))
    assert why and "draw" in why
    assert "seat 1" in check_action(view, A.DrawStock(1))


def test_measure_levels_are_accepted(capsys):
    out = _run(capsys, "--variant", "rami", "--players", "expert_v1,conceal",
               "--matches", "2", "--limit", "1", "--json")
    assert [b["name"] for b in out["bots"]] == ["expert_v1", "conceal"]


def test_plugin_that_raises_while_playing_is_reported_without_traceback(capsys, tmp_path):
    """A plug-in whose ``choose``, ``wants_knock`` or constructor raises stops simulate
    with one line naming the plug-in, the method and the error (exit 1), never a
    traceback; in French too."""
    crash = tmp_path / "crash.py"
    crash.write_text(
        "class Choose:\n"
        "    def __init__(self, seat, seed):\n        pass\n"
        "    def choose(self, view, new_events):\n        raise RuntimeError('choose boom')\n"
        "    def wants_knock(self, view, new_events):\n        return False\n"
        "class Knock(Choose):\n"
        "    def choose(self, view, new_events):\n"
        "        from rami_lan.core import actions as A\n"
        "        return A.DrawStock(view.seat) if view.phase == 'draw' else "
        "A.Discard(view.seat, view.hand[0])\n"
        "    def wants_knock(self, view, new_events):\n        raise KeyError('knock boom')\n"
        "def Init(seat, seed):\n    raise ValueError('init boom')\n")
    assert main(["simulate", "--players", f"moyen,{crash}:Choose", "--matches", "2"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "Choose" in err and "choose" in err and "RuntimeError: choose boom" in err
    knock = f"{crash}:Knock"
    assert main(["simulate", "--players", f"{knock},{knock},{knock}", "--matches", "3",
                 "--knock", "--limit", "1"]) == 1
    err = capsys.readouterr().err
    assert "wants_knock" in err and "knock boom" in err
    assert main(["--lang", "fr", "simulate", "--players", f"moyen,{crash}:Init"]) == 1
    err = capsys.readouterr().err
    assert "le module de robot Init a échoué" in err and "init boom" in err
