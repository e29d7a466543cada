"""The commands as an outsider types them (README, docs/*.md), in-process and on
127.0.0.1 only: bad input gets one clear line in the player's language and the
documented exit status, never a traceback or a Python class name."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rami_lan.cli.main import main
from rami_lan.i18n import set_language


@pytest.fixture(autouse=True)
def _dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("RAMI_LAN_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("RAMI_LAN_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("RAMI_LAN_INTERFACES", "127.0.0.1")
    yield
    set_language("en")


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_join_an_out_of_range_port_says_so(capsys: pytest.CaptureFixture[str], lang: str) -> None:
    assert main(["--lang", lang, "join", "127.0.0.1:99999", "--bot", "moyen"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "OverflowError" not in err
    assert ("65535" in err) and (("port must be" in err) if lang == "en" else ("le port doit" in err))


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_join_a_closed_port_says_refused_in_words(capsys: pytest.CaptureFixture[str], lang: str) -> None:
    port = _closed_port()
    assert main(["--lang", lang, "join", f"127.0.0.1:{port}", "--bot", "moyen"]) == 1
    err = capsys.readouterr().err
    assert "ConnectionRefusedError" not in err and "Traceback" not in err
    want = "connection refused" if lang == "en" else "connexion refusée"
    assert want in err, err


BAD_FILES = {
    "garbage": ("garbage\n", "not valid JSON (line 1, column 1)", "JSON invalide (ligne 1, colonne 1)"),
    "truncated": ('{"format": "rami-lan-record", "rounds": [', "not valid JSON",
                  "le fichier est abîmé ou tronqué"),
    "empty": ("", "not valid JSON", "JSON invalide"),
    "missing": (None, "no such file", "fichier introuvable"),
    "folder": ("/", "it is a folder", "c'est un dossier"),
    "fields": ('{"format": "rami-lan-record"}', "seats is missing", "un champ manque"),
}


@pytest.mark.parametrize("command", ["verify", "replay"])
@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_record_files_say_what_is_wrong(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            command: str, lang: str, case: str) -> None:
    """verify and replay on an unreadable, garbage, truncated or malformed file: exit 2
    (README), one line on stderr saying what is wrong in the player's language, with no
    Python class name (``JSONDecodeError(...)``, ``FileNotFoundError(2, ...)``)."""
    content, en, fr = BAD_FILES[case]
    path = tmp_path / f"{case}.json"
    if content == "/":
        path.mkdir()
    elif content is not None:
        path.write_text(content, encoding="utf-8")
    assert main(["--lang", lang, command, str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert (en if lang == "en" else fr) in err, err
    for name in ("Error(", "Traceback", "ValueError"):
        assert name not in err, err


@contextlib.contextmanager
def _host_in_thread(**config: Any) -> Iterator[int]:
    """A `TableHost` on 127.0.0.1 running in its own thread and event loop (the command
    under test runs in the main thread: it installs signal handlers); yields its port."""
    from test_security_e2e import _config

    from rami_lan.net.host import TableHost

    loop = asyncio.new_event_loop()
    host = TableHost(_config(**config))
    started = threading.Event()
    port: list[int] = []

    def serve() -> None:
        asyncio.set_event_loop(loop)
        port.append(loop.run_until_complete(host.start()))
        started.set()
        loop.run_forever()
        loop.run_until_complete(host.stop())
        loop.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    assert started.wait(20)
    try:
        yield port[0]
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(20)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_join_with_a_wrong_code_says_so_in_the_players_language(
        capsys: pytest.CaptureFixture[str], lang: str) -> None:
    """``join HOST:PORT --code WRONG`` on a real host (127.0.0.1): the host's English
    refusal ("wrong join code") is not what the player reads; the refusal code is."""
    with _host_in_thread(join_code="tulipe-k7Rq-42") as port:
        assert main(["--lang", lang, "join", f"127.0.0.1:{port}", "--bot", "moyen",
                     "--code", "tulipe-k7Rq-43"]) == 1
    err = capsys.readouterr().err
    want = "Wrong join code." if lang == "en" else "Code d’accès erroné."
    assert want in err, err
    assert "wrong join code" not in err


def test_a_rate_limited_refusal_keeps_its_delay_in_both_languages() -> None:
    from rami_lan.cli.messages import join_refused_text
    from rami_lan.net.client import JoinRefused

    exc = JoinRefused("rate_limited", "too many wrong codes or tokens", retry_after=6.2)
    set_language("fr")
    assert join_refused_text(exc) == "Trop d’essais : réessayez dans 7 s."
    set_language("en")
    assert join_refused_text(exc) == "Too many attempts: try again in 7 s."
    assert join_refused_text(JoinRefused("table_full", "every seat is taken")) == "This table is full."
    # the delay is the refusal's data (refused.retry_ms), never read back from its English
    assert join_refused_text(JoinRefused("rate_limited", "try again in 9 s")) == (
        "Too many attempts: try again in a moment.")


class _NoTerminal:
    """Standard input that is not a terminal (``< /dev/null``, a pipe)."""

    def isatty(self) -> bool:
        return False

    def read(self, *_a: Any) -> str:
        return ""

    readline = read


@pytest.mark.parametrize("argv", [[], ["solo", "--seed", "3"], ["solo", "--think", "0"],
                                  ["--lang", "fr", "solo", "--seed", "3"]])
def test_full_screen_commands_without_a_terminal_say_so(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    """``rami-lan``, ``solo`` (and ``replay``) with stdin not a terminal stopped with
    prompt_toolkit's EOFError traceback; now one line says why, exit 2."""
    monkeypatch.setenv("RAMI_LAN_NO_BROWSE", "1")
    monkeypatch.setattr("sys.stdin", _NoTerminal())
    assert main(argv) == 2
    err = capsys.readouterr().err
    want = "run it in a terminal" if "fr" not in argv else "lancez-la dans un terminal"
    assert want in err, err


@pytest.mark.parametrize("argv, fr", [
    (["host", "--variant", "foo"], "argument --variant : choix invalide : 'foo'"),
    (["join"], "arguments obligatoires manquants : table"),
    (["simulate", "--matches", "x"], "valeur invalide : 'x'"),
    (["bogus"], "choix invalide : 'bogus'"),
])
def test_argument_errors_read_in_french(capsys: pytest.CaptureFixture[str], argv: list[str],
                                        fr: str) -> None:
    """argparse's own error lines (``error: argument --variant: invalid choice``) were
    English under ``--lang fr``; they are French now, and unchanged in English."""
    with pytest.raises(SystemExit) as exit_fr:
        main(["--lang", "fr", *argv])
    err = capsys.readouterr().err
    assert exit_fr.value.code == 2
    assert "erreur :" in err and fr in err, err
    with pytest.raises(SystemExit):
        main(["--lang", "en", *argv])
    err = capsys.readouterr().err
    assert "error:" in err and "erreur" not in err


def test_an_unknown_lang_is_refused_in_the_locales_language(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    monkeypatch.delenv("LANGUAGE", raising=False)
    with pytest.raises(SystemExit):
        main(["--lang", "de"])
    assert "choix invalide : 'de'" in capsys.readouterr().err


@pytest.mark.parametrize("argv, en, fr", [
    (["host", "--bot", "9=x", "--no-advertise"], "--bot 9=x: write SEAT=LEVEL, SEAT from 1 to 4",
     "--bot 9=x : écrire PLACE=NIVEAU"),
    (["host", "--limit", "-5", "--headless", "--no-advertise"],
     "rami: the point limit is one of 1, 50, 100, not -5.", "la limite de points est l'une de"),
    (["host", "--timer", "-3", "--headless", "--no-advertise"],
     "The move timer is a number of seconds", "Le minuteur est un nombre de secondes"),
    (["host", "--seats", "2", "--bot", "1=moyen", "--bot", "2=moyen", "--no-advertise"],
     "Every seat is a bot", "Toutes les places sont des robots"),
    (["host", "--port", "99999", "--headless", "--no-advertise"], "--port is between 1 and 65535",
     "--port est entre 1 et 65535"),
    (["host", "--start-after", "-2", "--headless", "--no-advertise"], "--start-after is a number",
     "--start-after est un nombre"),
    (["solo", "--limit", "-5"], "the point limit is one of", "la limite de points est l'une de"),
    (["solo", "--think", "-1"], "--think is a number", "--think est un nombre"),
    (["simulate", "--variant", "500", "--limit", "7", "--matches", "1"],
     "500: the target is between 50 and 100000, not 7.", "l'objectif est entre 50 et 100000"),
])
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_bad_table_settings_are_explained(capsys: pytest.CaptureFixture[str], argv: list[str],
                                          en: str, fr: str, lang: str) -> None:
    """Bad numbers and bot specs for host / solo / simulate: exit 2 with a sentence in
    the player's language (was: the core's English, a bare '9=x', or an OverflowError
    traceback for --port 99999; a negative --start-after or --think was taken)."""
    assert main(["--lang", lang, *argv]) == 2
    err = capsys.readouterr().err
    assert (en if lang == "en" else fr) in err, err
    assert "Traceback" not in err


@pytest.fixture(scope="module")
def host_record_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real host's match record (a bot client against a host bot, on 127.0.0.1)."""
    import json

    import aio_helpers
    from test_record import _record

    folder = tmp_path_factory.mktemp("rec")
    record = aio_helpers.run(_record(folder, variant="rami", limit=1, bots={1: "debutant"}), 60)
    path = folder / "record.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    return path


def test_the_replay_screens_verify_key_speaks_french(host_record_file: Path) -> None:
    """``v`` on the replay screen showed ``verify_file(...).text()``: English in a French
    replay ("rounds checked: 1 ... OK: every round matches"); it uses verify's lines."""
    from rami_lan.cli.cmd_replay import verifier

    set_language("fr")
    text = verifier(host_record_file)()
    assert "manches vérifiées : " in text and "OK : chaque manche correspond" in text, text
    set_language("en")
    assert "OK: every round matches the agreed shuffle." in verifier(host_record_file)()


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_verify_a_real_record_then_a_tampered_one(host_record_file: Path, tmp_path: Path, lang: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    import json

    assert main(["--lang", lang, "verify", str(host_record_file)]) == 0
    out = capsys.readouterr().out
    assert ("OK: every round" if lang == "en" else "OK : chaque manche") in out
    data = json.loads(host_record_file.read_text(encoding="utf-8"))
    deck = data["rounds"][0]["deck"]
    deck[0], deck[1] = deck[1], deck[0]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    assert main(["--lang", lang, "verify", str(bad)]) == 1
    out = capsys.readouterr().out
    assert ("FAILED:" if lang == "en" else "ÉCHEC :") in out


def test_an_interactive_hosts_join_code_stays_in_sight(monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """``rami-lan host --code auto`` (with a seat) printed the generated code, then the
    full screen covered it: the owner could not read it to the players. The table
    screen now shows it (with the port and fingerprint) while it waits."""
    from rami_lan.cli import cmd_join
    from rami_lan.cli.ui.model import TableModel
    from rami_lan.cli.ui.render import render_table

    seen: list[list[str]] = []

    async def fake_play(session: Any, intro: Any = ()) -> int:
        seen.append(list(intro))
        return 0

    monkeypatch.setattr(cmd_join, "play_in_terminal", fake_play)
    assert main(["--lang", "fr", "host", "--seats", "2", "--code", "auto", "--no-advertise",
                 "--interface", "127.0.0.1"]) == 0
    printed = capsys.readouterr().out
    code_line = next(line for line in printed.splitlines() if line.startswith("Code d'accès"))
    assert seen and seen[0][0] == code_line
    assert any("ouverte sur le port" in line for line in seen[0])
    model = TableModel(seat=0, variant="rami", intro=seen[0])
    screen = "".join(text for _style, text, *_ in render_table(model, 100, 30))
    assert "En attente de la table" in screen and code_line in screen


def test_a_rounds_fixed_fairness_reason_is_translated() -> None:
    """``join --bot`` and the table screen printed "Manche 1 : non vérifiée : the session
    ended before the round did"; the verifier's fixed reasons are translated."""
    from rami_lan.cli.messages import fairness_details
    from rami_lan.net.fairness import FairnessRound

    r = FairnessRound(1, "unchecked", "the session ended before the round did")
    set_language("fr")
    assert fairness_details(r) == ("Manche 1 : non vérifiée : la session s'est terminée avant "
                                   "la fin de la manche")
    set_language("en")
    assert fairness_details(r) == "Round 1: not checked: the session ended before the round did"


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_host_on_a_busy_port_or_an_unwritable_record_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], lang: str) -> None:
    """A port already taken printed "[Errno 98] error while attempting to bind on address
    ...", and a --record-dir under a file logged a NotADirectoryError traceback after every
    round (the match went on without its record); both are one sentence now, before the
    table opens for the folder (exit 2)."""
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["--lang", lang, "host", "--headless", "--no-advertise", "--interface",
                     "127.0.0.1", "--port", str(port)]) == 1
    err = capsys.readouterr().err
    assert ("port is already in use" if lang == "en" else "port est déjà utilisé") in err, err
    assert "Errno" not in err
    a_file = tmp_path / "file"
    a_file.write_text("x")
    assert main(["--lang", lang, "host", "--headless", "--no-advertise", "--record-dir",
                 str(a_file / "records")]) == 2
    err = capsys.readouterr().err
    assert ("is a file, not a folder" if lang == "en" else "est un fichier, pas un dossier") in err, err
    assert "Traceback" not in err


def test_join_bot_says_when_the_match_did_not_finish(capsys: pytest.CaptureFixture[str]) -> None:
    """``join --bot`` at a table whose host stopped printed "Rounds played: 3" and the
    fairness lines, then exited 1 without a word about why; it says so now."""
    from types import SimpleNamespace

    from rami_lan.cli.cmd_join import fairness_summary

    session = SimpleNamespace()
    set_language("fr")
    assert fairness_summary(session, SimpleNamespace(fairness=[], finished=False)) == 1
    assert "La partie ne s'est pas terminée" in capsys.readouterr().out
    set_language("en")
    assert fairness_summary(session, SimpleNamespace(fairness=[], finished=True)) == 0
    assert "did not finish" not in capsys.readouterr().out


def test_the_line_client_tells_events_in_the_players_language() -> None:
    """``join``/``host`` without a terminal printed raw event dumps ("TurnStarted:
    seat=0, turn_no=1", "Discarded: seat=1, card=Kd") in any language; it prints the
    table screen's log lines now."""
    from rami_lan.cli.cmd_join import event_lines
    from rami_lan.core import events as E
    from rami_lan.core.cards import parse_cards

    king = parse_cards("Kd")[0]
    events = [E.Discarded(seat=1, card=king)]
    set_language("fr")
    lines = event_lines(events, 0, {0: "Ana", 1: "Bob\x1b[31m"})
    assert lines and "Bob" in lines[0] and "R♦" in lines[0] and "Discarded" not in lines[0]
    assert "\x1b" not in lines[0]
    set_language("en")
    assert "K♦" in event_lines(events, 0, {1: "Bob"})[0]


def test_the_line_clients_table_line_uses_the_screens_french_words() -> None:
    """The line client's French said "défausse : ...  talon : 83" (talon is the discard
    pile on the table screen, the stock is the pioche) and "(draw)" for the phase."""
    from rami_lan.cli.cmd_join import _show
    from rami_lan.core.views import SeatView

    view = SeatView(seat=0, variant="rami", phase="draw", round_no=1, turn_no=2, turn=0,
                    dealer=1, hand=(), players=(), melds=(), discard=(), discard_size=0,
                    stock_size=83, knock_window=(), taken=None, must_use=(), last_result=None,
                    limit=100, quick=False, knock=False, match_over=False, winner=None, tiebreak=())
    set_language("fr")
    shown = _show(view, {0: "Ana"})
    assert "(pioche)" in shown and "talon : -   pioche : 83" in shown, shown


def test_a_seat_notice_names_the_player() -> None:
    """"la place 2 a quitté la table et a remis sa main…" while the screen shows "Bob"
    for that seat: the notices about a seat use its nickname when the table knows it."""
    from rami_lan.cli.messages import notice_text
    from rami_lan.cli.ui.model import TableModel
    from rami_lan.net.notices import Notice, NoticeCode
    from rami_lan.net.table_session import SessionUpdate

    notice = Notice.of(NoticeCode.SEAT_HANDED_OVER, seat=1)
    set_language("fr")
    model = TableModel(seat=0, variant="rami")
    model.apply(SessionUpdate(nicknames={0: "Ana", 1: "Bob\x1b[2J"}))
    model.apply(SessionUpdate(notice=notice))
    assert model.notice is not None and model.notice.startswith("Bob"), model.notice
    assert "a quitté la table" in model.notice and "place 2" not in model.notice
    assert "\x1b" not in model.notice
    set_language("en")
    assert notice_text(notice).startswith("seat 2 left the table")  # no names: the seat


def test_plugin_loading_errors_read_in_french(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``simulate`` in French said "module de robot : bot file '...' does not exist"; the
    plug-in loader's reasons are translated (exit 2 as before)."""
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('boom')\n")
    cases = [(f"moyen,{tmp_path}/nope.py:Bot", "n'existe pas"),
             (f"moyen,{broken}:Bot", "le chargement de"),
             (f"moyen,{Path(__file__).parents[1] / 'plugins' / 'tinybot.py'}:Missing",
              "n'a pas d'objet appelable 'Missing'")]
    for players, french in cases:
        assert main(["--lang", "fr", "simulate", "--players", players, "--matches", "1"]) == 2
        err = capsys.readouterr().err
        assert french in err, err
        assert "does not exist" not in err and "has no callable" not in err


def test_a_cheating_plugin_is_explained_in_french(capsys: pytest.CaptureFixture[str]) -> None:
    """"un robot a joué une action interdite : seat 1 (play): does not hold 5h": the
    core's reason is translated (cards as cards) like any refusal at the table."""
    plugin = Path(__file__).parents[1] / "plugins" / "tinybot.py"
    assert main(["--lang", "fr", "simulate", "--variant", "multi", "--players",
                 f"moyen,{plugin}:Cheater", "--matches", "2"]) == 1
    err = capsys.readouterr().err
    assert "place 1 (jeu) : n'a pas 5♥ en main" in err, err


@pytest.mark.parametrize("argv", [["list", "--timeout", "0.2"], ["join", "x", "--timeout", "0.2"],
                                  ["host", "--headless", "--no-advertise"]])
def test_a_bad_interface_is_named_in_the_players_language(capsys: pytest.CaptureFixture[str],
                                                          argv: list[str]) -> None:
    """``--interface nope`` said "not an IP address: 'nope'" (list, join: English in
    French) or "unknown host name" (host, after trying to resolve it); every command now
    refuses it before opening a socket, in the player's language (exit 2)."""
    assert main(["--lang", "fr", *argv, "--interface", "nope"]) == 2
    err = capsys.readouterr().err
    assert "--interface 'nope' n'est pas une adresse IP" in err, err


def test_the_hosts_closing_reason_is_translated() -> None:
    """"L'hôte a fermé la table : table closed": the table's own bye reasons are in the
    French catalogue; an unknown reason from a host is shown as it came."""
    from rami_lan.cli.messages import notice_text
    from rami_lan.net.notices import Notice, NoticeCode

    set_language("fr")
    closed = notice_text(Notice.of(NoticeCode.HOST_CLOSED, why="table closed"))
    assert closed == "L'hôte a fermé la table : la table est fermée", closed
    other = notice_text(Notice.of(NoticeCode.HOST_CLOSED, why="maintenance"))
    assert other.endswith(": maintenance")


def test_the_waiting_table_shows_what_happened() -> None:
    """The owner invites players before the match starts, but the waiting screen showed
    only "Waiting for the table…": "Invitation sent to Bruno." / "Bruno accepted your
    invitation." (docs/players.md: logged) were never seen. The log is shown now."""
    from rami_lan.cli.ui.model import TableModel
    from rami_lan.cli.ui.render import render_table

    model = TableModel(seat=0, variant="rami", intro=["Join code: ABCD-EFGH"])
    model.log.extend([f"line {i}" for i in range(40)] + ["Bruno accepted your invitation."])
    screen = "".join(text for _style, text, *_ in render_table(model, 80, 24))
    assert "Waiting for the table" in screen and "Join code: ABCD-EFGH" in screen
    assert "• Bruno accepted your invitation." in screen
    assert len(screen.splitlines()) <= 24


def test_a_blank_table_name_gets_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """``host --name "   "`` advertised a table named three spaces; a blank name is no
    name: the default one ("<nick>'s table") is used, as for no --name."""
    from rami_lan.cli import cmd_host

    seen: list[Any] = []

    async def fake_main(config: Any, *_a: Any, **_k: Any) -> int:
        seen.append(config)
        return 0

    monkeypatch.setattr(cmd_host, "_main", fake_main)
    assert main(["host", "--headless", "--no-advertise", "--nick", "Ana", "--name", "   "]) == 0
    assert seen[0].name == "Ana's table"


def test_the_replay_help_lists_the_round_digits() -> None:
    """docs/ui.md lists 1-9 (jump to round n) among the replay keys; the ? help did not."""
    from rami_lan.replay import replay_help

    set_language("fr")
    assert any(line.startswith("1-9 : manche n") for line in replay_help())
    set_language("en")
    assert any(line.startswith("1-9: round n") for line in replay_help())


def test_the_fairness_count_agrees_in_number() -> None:
    """"Mélange et arbitrage vérifiés : 1 manches sur 1." after a one-round match."""
    from rami_lan.i18n import ngettext

    set_language("fr")
    one = "Fair shuffle and rulings checked: {n} of {m} round."
    many = "Fair shuffle and rulings checked: {n} of {m} rounds."
    # one shape for both forms (issue 25: "1 manche sur 1" but "2 sur 2 manches")
    assert ngettext(one, many, 1).format(n=1, m=1) == "Mélange et arbitrage vérifiés : 1 sur 1 manche."
    assert ngettext(one, many, 2).format(n=1, m=2) == "Mélange et arbitrage vérifiés : 1 sur 2 manches."


@pytest.mark.parametrize("lang, want", [("en", "rami: 2 matches (1 deal x every seat rotation)"),
                                        ("fr", "rami : 2 parties (1 donne x chaque rotation")])
def test_simulate_counts_one_deal_in_the_singular(capsys: pytest.CaptureFixture[str], lang: str,
                                                  want: str) -> None:
    assert main(["--lang", lang, "simulate", "--players", "moyen,debutant", "--matches", "1",
                 "--limit", "1"]) == 0
    assert want in capsys.readouterr().out


def test_a_player_who_handed_over_shows_as_left() -> None:
    """After "Bob left the table and gave their hand to the host…" Bob's box still read
    "reconnecting…"; it reads "left" until Bob is connected again."""
    from rami_lan.cli.ui.model import TableModel
    from rami_lan.net.notices import Notice, NoticeCode
    from rami_lan.net.table_session import SessionUpdate

    model = TableModel(seat=0, variant="rami")
    model.apply(SessionUpdate(connections={0: "you", 1: "connected", 2: "reconnecting"}))
    model.apply(SessionUpdate(notice=Notice.of(NoticeCode.SEAT_HANDED_OVER, seat=1)))
    # the table's players list may still call the seat connected for a moment
    model.apply(SessionUpdate(connections={0: "you", 1: "connected", 2: "reconnecting"}))
    model.apply(SessionUpdate(connections={0: "you", 1: "reconnecting", 2: "reconnecting"}))
    assert model.seat_connection(1) == "left"
    assert model.seat_connection(2) == "reconnecting"  # a drop without a hand-over
    model.apply(SessionUpdate(connections={1: "connected"}))
    assert model.seat_connection(1) == "connected"
    model.apply(SessionUpdate(connections={1: "reconnecting"}))
    assert model.seat_connection(1) == "reconnecting"


class _ClosedPipe:
    """A stdout whose reader went away (``rami-lan simulate | head -1``)."""

    def write(self, _text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")

    def isatty(self) -> bool:
        return False


def test_a_closed_pipe_ends_quietly(monkeypatch: pytest.MonkeyPatch) -> None:
    """``rami-lan simulate ... | head -1`` ended with a BrokenPipeError traceback."""
    monkeypatch.setattr("sys.stdout", _ClosedPipe())
    assert main(["simulate", "--players", "moyen,debutant", "--matches", "1", "--limit", "1"]) == 1


def test_a_language_priority_list_is_followed() -> None:
    """``LANGUAGE=de:fr`` (GNU gettext's priority list) gave English: only the first
    entry was looked at. The first supported entry wins (none: English, as gettext)."""
    from rami_lan.i18n import detect_language

    assert detect_language({"LANGUAGE": "de:fr", "LANG": "en_US.UTF-8"}) == "fr"
    assert detect_language({"LANGUAGE": "fr_BE:en"}) == "fr"
    assert detect_language({"LANGUAGE": "de", "LANG": "fr_FR.UTF-8"}) == "en"  # as gettext
    assert detect_language({"LANGUAGE": "en:fr", "LANG": "fr_FR.UTF-8"}) == "en"
