"""Issue 25, words and keys: every sentence a player reads from one vocabulary per
language, the host's waiting screen, the keys of forms, help and settings.

The message-template walk builds every template of the rules core (``rules.po``) and
every sentence builder of `rami_lan.cli.messages`, in English and French, and fails on a
raw code (a card code, a suit letter, a seat number, a phase), a placeholder left or an
English word in French.
"""

from __future__ import annotations

import asyncio
import copy
import re
from dataclasses import replace
from pathlib import Path

import pytest
from ui_helpers import running, until
from ui_scenes import result_model

from rami_lan import i18n, i18n_build
from rami_lan.cli import messages as M
from rami_lan.cli.settings import Settings
from rami_lan.cli.ui import describe as D
from rami_lan.cli.ui.lobby import Lobby
from rami_lan.cli.ui.model import TableModel
from rami_lan.cli.ui.render import render_result, render_table
from rami_lan.cli.ui.shell import Shell
from rami_lan.cli.ui.text import fragments_text
from rami_lan.core import events as E
from rami_lan.core.reasons import TEMPLATES, TEXT, Reason, Value, template_keys
from rami_lan.net.notices import Notice, NoticeCode
from rami_lan.net.table_session import SessionUpdate

LOCALE = Path(i18n.__file__).parent / "locale" / "fr"
NAMES = {0: "Ana", 1: "Bruno", 2: "Chloé", 3: "Dan"}

# --- what a player must never read --------------------------------------------------------

CARD_CODE = re.compile(r"(?<![\w♣♠♥♦])(10|[2-9AJQK])[cshd](?![\w])")
SUIT_LETTER = re.compile(r"(?<![\w'’\-])(?<!\d )[cshd](?![\w'’])")  # "2 s": seconds
SEAT_NUMBER = re.compile(r"\b(seat|place)s?\s+\d", re.I)
PHASE = re.compile(r"\((draw|play|over|pioche|jeu|fin de manche)\)")
ENGLISH = {"the", "is", "not", "may", "must", "can", "with", "from", "this", "that", "card",
           "cards", "seat", "turn", "round", "your", "you", "and", "of", "to", "be", "has",
           "have", "set", "run", "hearts", "spades", "clubs", "diamonds", "low", "high", "meld",
           "discard", "stock", "needs", "holds", "it", "its", "an", "at", "by", "no", "only"}


def faults(text: str, lang: str) -> list[str]:
    out = []
    if "{" in text or "}" in text:
        out.append("placeholder")
    if CARD_CODE.search(text):
        out.append(f"card code {CARD_CODE.search(text).group(0)!r}")
    if SUIT_LETTER.search(text):
        out.append(f"suit letter {SUIT_LETTER.search(text).group(0)!r}")
    if SEAT_NUMBER.search(text):
        out.append("seat number")
    if PHASE.search(text):
        out.append("phase")
    if lang == "fr":
        words = {w.lower() for w in re.findall(r"[A-Za-z]+", text)}
        english = sorted(words & ENGLISH)
        if english:
            out.append(f"English words {english}")
    return out


@pytest.fixture(autouse=True)
def english_after():
    yield
    i18n.set_language("en")


# --- the rules core's templates, refused to the player -------------------------------------

SAMPLES: dict[str, Value] = {
    "card": "Kh", "cards": "6h, Qs, 5h", "meld": "Ks Kd Kh", "points": 20, "need": 30, "n": 3,
    "depth": 2, "best": 25, "suit": "h", "end": "low", "kind": "'set'", "seat": 1,
    "phase": "play", "reason": Reason.of("run_short"), "deck": 0, "position": 12}
SPECIAL: dict[str, dict[str, Value]] = {
    "wrong_phase": {"kind": "discard", "phase": "draw"},
    "lay_off_unopened": {"need": Reason.of("needs_points", points=30)},
    "recover_unopened": {"need": Reason.of("needs_own_meld")},
    "private_shown": {"reason": Reason.of("set_has_suit", suit="h", card="Kh")},
}
NOT_A_REFUSAL = (TEXT, "unknown_action")
"""Codes a player never reads as a refusal: text as is, a bug of the caller's."""


def core_reasons() -> list[Reason]:
    """Every reason code of the rules core and the table (`rami_lan.core.reasons`)
    filled with sample data, as the table refuses a player's action."""
    out = []
    for code, template in TEMPLATES.items():
        if code in NOT_A_REFUSAL:
            continue
        values = {**SAMPLES, **SPECIAL.get(code, {})}
        out.append(Reason.of(code, **{k: values[k] for k in template_keys(template)}))
    return out


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_every_refusal_template_reads_as_the_players_own_sentence(lang):
    i18n.set_language(lang)
    reasons = core_reasons()
    assert len(reasons) > 60
    bad = {}
    for why in reasons:
        assert why.known, why
        text = M.own_refusal_text(why, NAMES, 0)
        problems = faults(text, lang)
        if problems:
            bad[why.code] = (text, problems)
    assert not bad, bad


def test_the_issue_refusal_in_both_languages():
    why = Reason.of("lay_off_failed", card="Kh", meld="Ks Kd Kh",
                    reason=Reason.of("set_has_suit", suit="h", card="Kh"))
    m = TableModel(seat=0, variant="rami")
    m.apply(SessionUpdate(nicknames=NAMES, error=why))
    assert m.error == "Can not lay K♥ on K♠ K♦ K♥: the set already holds a card of hearts (K♥)."
    i18n.set_language("fr")
    m.apply(SessionUpdate(error=why))
    assert m.error == "Impossible de déposer R♥ sur R♠ R♦ R♥ : le brelan a déjà un cœur (R♥)."
    m.apply(SessionUpdate(error=Reason.of("not_your_turn", seat=1)))
    assert m.error == "C’est au tour de Bruno."
    m.apply(SessionUpdate(error=Reason.of("wrong_phase", kind="discard", phase="draw")))
    assert m.error == "Piochez d’abord : dans la pioche ou au talon."
    m.apply(SessionUpdate(error=Reason.of("not_holding", card="5h")))
    assert m.error == "Vous n’avez pas 5♥ en main."


def test_a_refusal_without_a_code_is_shown_as_its_text():
    """An older host sends its refusal as English text only: shown as it is (no
    reading back of the English)."""
    m = TableModel(seat=0, variant="rami")
    i18n.set_language("fr")
    m.apply(SessionUpdate(error="seat 0 (play): does not hold 5h"))
    assert m.error == "Seat 0 (play): does not hold 5h."


def test_french_rules_words_are_the_sources_brelan_not_serie():
    rules = i18n_build.read_po(LOCALE / "rules.po").catalog
    assert not [t for t in rules.values() if "série" in t]
    assert any("brelan" in t for t in rules.values())


def test_one_french_word_for_the_discard_pile_and_discarding():
    """The table says "Talon" and "Jeter" (the seed 000: "jeter une des cartes dans le
    talon"); a refusal said "la défausse" / "défausser" for the same things."""
    po = i18n_build.load_po("fr")
    texts = list(po.catalog.values()) + [f for forms in po.plurals.values() for f in forms]
    assert not [t for t in texts if "défauss" in t]
    assert po.catalog["Discard pile"] == "Talon" and po.catalog["Discard"] == "Jeter"


# --- every catalogue, every builder -------------------------------------------------------


def test_every_french_entry_is_translated_with_the_same_placeholders():
    for path in sorted(LOCALE.glob("*.po")):
        po = i18n_build.read_po(path)
        for msgid, msgstr in po.catalog.items():
            assert msgstr, f"{path.name}: {msgid!r} has no French"
            names = set(re.findall(r"\{(\w+)", msgid))
            assert set(re.findall(r"\{(\w+)", msgstr)) == names, (path.name, msgid, msgstr)
        for msgid, forms in po.plurals.items():
            assert all(forms), (path.name, msgid)


def test_french_plurals_keep_one_shape():
    """ "1 manche sur 1" but "2 sur 2 manches": both forms are said the same way."""
    po = i18n_build.load_po("fr")
    for msgid, forms in po.plurals.items():
        shapes = {tuple(w.rstrip("sx") for w in re.findall(r"\w+", f)) for f in forms}
        assert len(shapes) == 1, (msgid, forms)


def notice_samples() -> list[Notice]:
    data = {"why": "the match is over", "where": "10.0.0.2:4000", "secs": 30, "seat": 1,
            "seats": [1, 2], "count": 2, "kind": "reveal", "reason": "no_reveal",
            "old": "ab:cd", "new": "ef:01", "refusal": "empty", "retry_after": 2.0}
    out = []
    for code in NoticeCode:
        out.append(Notice.of(code, **data))
        if code is NoticeCode.PRIVATE_ROUND_VOID:
            out += [Notice.of(code, seat=2, left=False), Notice.of(code, seat=2, left=True)]
        if code is NoticeCode.LEFT_OUT_OF_SHUFFLE:
            out += [Notice.of(code, seat=2, reason=r) for r in ("bad_reveal", "no_commit")]
    return out


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_every_message_builder_in_both_languages(lang):
    from rami_lan.net.fairness import FairnessRound
    from rami_lan.net.protocol import REFUSED_CODES
    from rami_lan.table.chat import ChatRefusal, ChatVerdict
    from rami_lan.table.verifier import Status

    i18n.set_language(lang)
    texts: dict[str, str] = {}
    for n in notice_samples():
        if n.code in (NoticeCode.PAKE_ERROR, NoticeCode.REJOIN_REFUSED, NoticeCode.HOST_REFUSED_CHAT):
            continue  # they carry the other side's own words
        texts[str(n)] = M.notice_text(n, NAMES)
    for code in sorted(REFUSED_CODES):
        texts[code] = M.refusal_text(code)
    for r in ChatRefusal:
        texts[str(r)] = M.chat_refusal_text(ChatVerdict(ok=False, refusal=r, retry_after=2))
    for status in Status:
        fr = FairnessRound(round_no=2, status=status, reason="", excluded=((1, "no_reveal"),))
        texts[f"fair {status}"] = M.fairness_details(fr, NAMES)
        for void in ((2, "player_gone"), (2, "no_answer")):
            texts[f"fair {status} void {void}"] = M.fairness_details(replace(fr, void=void), NAMES)
        texts[f"fair {status} withheld"] = M.fairness_details(replace(fr, withheld=(1, 3)), NAMES)
    for level in ("debutant", "moyen", "expert"):
        texts[level] = M.bot_mark(level)
    from rami_lan.net.pake import WeakCode, WeakCodeError

    for reason in WeakCode:
        err = WeakCodeError(reason, max_chars=64, max_distinct=2, bits=20, min_bits=40)
        texts[f"weak {reason}"] = M.weak_code_text(err)
    # ("bot seat 5 is not a seat of this table" answers --bot SEAT=LEVEL: it names the
    # number the player typed)
    from rami_lan.core.errors import SETTINGS_TEMPLATES, SettingsError

    samples = {"seat": 5, "levels": "debutant, moyen", "level": "x", "choices": "anyone, code",
               "who": "x", "variant": "multi", "limits": "1, 50", "limit": 7}
    for code, template in SETTINGS_TEMPLATES.items():
        if code == "bot_seat":
            continue
        data = {k: v for k, v in samples.items() if "{" + k + "}" in template}
        text = M.settings_error_text(SettingsError(code, **data))
        assert text != str(SettingsError(code, **data)), f"{code} is not worded"
        texts[f"settings {code}"] = text
    texts["rami sec x2"] = M.rami_sec_note(2, 0)
    texts["bot name"] = M.shown_nickname("Bot 2")
    bad = {k: (t, faults(t, lang)) for k, t in texts.items() if faults(t, lang)}
    assert not bad, bad
    if lang == "fr":  # nothing left in English
        i18n.set_language("en")
        english = {k: M.notice_text(n, NAMES) for n in notice_samples() if (k := str(n)) in texts}
        assert not [k for k, t in english.items() if texts[k] == t]


def test_levels_are_named_alike_on_the_form_and_at_the_table():
    for lang, word in (("en", "bot, medium"), ("fr", "robot, moyen")):
        i18n.set_language(lang)
        lobby = Lobby(Shell(), Settings(nickname="Tester"), browser_factory=None, presence=False)
        seat = next(f for f in lobby.solo_form.fields if f.key == "seat1")
        assert word in [t for _v, t in seat.choices()]
        m = TableModel(seat=0, variant="rami")
        m.table = {"bots": [[1, "moyen"]]}
        assert M.bot_mark(m.bot_level(1)) == word
    i18n.set_language("fr")
    assert M.shown_nickname("Bot 2") == "Robot 2" and M.shown_nickname("Bruno") == "Bruno"


def test_bots_have_the_same_names_in_cli_solo_and_at_any_table():
    from rami_lan.cli.cmd_solo import make_solo_session
    from rami_lan.table.config import TableConfig
    from rami_lan.table.machine import TableMachine

    s = make_solo_session("rami", 3, "moyen", "names", think=0, nickname="Ana")
    assert [s.nicknames[1], s.nicknames[2]] == ["Bot 2", "Bot 3"]
    machine = TableMachine(TableConfig(name="t", variant="rami", seats=3, bots={1: "moyen"},
                                       host_nickname="Ana"), lambda n: bytes(n))
    assert machine.seats[1].nick == "Bot 2"


def test_a_newcomer_is_named_in_the_screens_language_and_namesakes_differ():
    from rami_lan.profile import default_nickname, localized_nickname
    from rami_lan.table.seats import unique_nick

    assert default_nickname("en") == "Player" and default_nickname("fr") == "Joueur"
    i18n.set_language("en")
    assert localized_nickname("Joueur") == "Player" and localized_nickname("Zoé") == "Zoé"
    i18n.set_language("fr")
    assert localized_nickname("Player") == "Joueur"
    assert unique_nick("Joueur", ["Joueur"]) == "Joueur 2"
    assert unique_nick("Joueur", ["Joueur", "Joueur 2"]) == "Joueur 3"


def test_the_players_own_events_are_in_the_second_person():
    def name(s: int) -> str:
        return NAMES[s]

    for lang, line in (("en", "You ran out of time: the table played for you."),
                       ("fr", "Vous n’avez pas joué à temps : la table a joué à votre place.")):
        i18n.set_language(lang)
        assert D.describe(E.TimedOut(1, False), 1, name) == line
        assert "Bruno" in D.describe(E.TimedOut(1, False), 0, name)
        assert "Bruno" not in D.describe(E.MatchEnded(1, (), "limit"), 1, name)


def test_rami_sec_is_explained_beside_each_hand():
    for lang, note in (("en", "×2 (rami sec)"), ("fr", "×2 (rami sec)")):
        m = copy.deepcopy(result_model(lang))  # the scene is cached: not ours to change
        i18n.set_language(lang)
        v = m.view
        res = v.last_result
        m.view = replace(v, last_result=replace(res, rami_sec=True))
        text = fragments_text(render_result(m, 120, 40))
        loser = next(s for s, _h in res.hands if s != res.winner)
        assert note in text, text
        assert M.rami_sec_note(1, 25) == "+25 (rami sec)"
        assert loser is not None


def test_no_private_dealing_warning_alone_with_bots_in_this_process():
    from rami_lan.cli.ui.render import dealing_rows

    m = TableModel(seat=0, variant="rami")
    m.table = {"host_seat": None, "private_deal": False, "local": True}
    assert dealing_rows(m, 80) == []
    m.table = {"host_seat": 1, "private_deal": False}
    assert dealing_rows(m, 80)  # a human host elsewhere could see the deck: said


def test_knock_and_frapper_are_both_accepted():
    from rami_lan.cli.main import build_parser

    solo, host = build_parser("solo"), build_parser("host")
    assert solo.parse_args(["solo", "--knock"]).frapper is True
    assert solo.parse_args(["solo", "--frapper"]).frapper is True
    assert host.parse_args(["host", "--frapper"]).knock is True
    assert host.parse_args(["host", "--knock"]).knock is True


# --- help, panels, the hand cursor ------------------------------------------------------------

KEY_NAMES = {"left": "←", "right": "→", "up": "↑", "down": "↓", "s-left": "Shift+←",
             "s-right": "→", "space": "Space", "escape": "Esc", "enter": "Enter", "f1": "F1",
             "pageup": "PgUp", "pagedown": "PgDn", "home": "Home", "end": "End", "c-c": "Ctrl+C",
             "s-tab": "←", "tab": "→", "c-i": "→", "c-m": "Enter"}


def test_help_lists_every_key_of_the_table_screen():
    from rami_lan.cli.local_session import LocalTableSession
    from rami_lan.cli.ui.help import help_lines
    from rami_lan.cli.ui.table_screen import TableScreen

    screen = TableScreen(LocalTableSession("rami", 2, 0, {1: "moyen"}, seed="help"))
    text = "\n".join(help_lines("rami", screen.model))
    tokens = set(re.split(r"[\s:,/()·]+", text))
    missing = set()
    for b in screen.key_bindings.bindings:
        for k in b.keys:
            name = getattr(k, "value", k)
            if name in ("<any>", "backspace", "c-h") or name.isdigit():
                continue  # typing in the chat line; the digits: "1-9 0"
            shown = KEY_NAMES.get(name, name)
            if shown not in tokens and shown not in text:
                missing.add(name)
    assert not missing, missing
    assert "1-9 0" in text and "q q" in text and "q: leave" not in text.replace("q q: leave", "")


def test_french_panels_say_echap():
    m = copy.deepcopy(result_model("fr"))
    i18n.set_language("fr")
    m.panel = "help"
    text = fragments_text(render_table(m, 80, 24))
    assert "[Échap ×]" in text and "[Esc ×]" not in text


def test_the_hand_cursor_starts_on_the_first_card():
    from rami_lan.cli.local_session import LocalTableSession

    async def main() -> None:
        for seed in ("c1", "c2", "c3", "c4"):
            s = LocalTableSession("rami", 2, 0, {1: "moyen"}, seed=seed)
            await s.start()
            m = TableModel(seat=0, variant="rami")
            async for upd in s.updates():
                m.apply(upd)
                if m.view is not None:
                    break
            assert m.cursor == 0, seed
            await s.close()

    asyncio.run(main())


# --- forms and settings ------------------------------------------------------------------------


@pytest.fixture
def no_browse(ui_env, monkeypatch):
    monkeypatch.setenv("RAMI_LAN_NO_BROWSE", "1")


def lobby_app(box: list, saved: list):
    def make() -> Shell:
        shell = Shell()
        lobby = Lobby(shell, Settings(nickname="abc"), browser_factory=None, presence=False,
                      save=saved.append, solo_think=0)
        shell.show(lobby)
        box[:] = [shell, lobby]
        return shell

    return make


def test_home_and_end_move_the_typing_position_in_a_form(no_browse):
    async def main() -> None:
        box: list = []
        saved: list = []
        async with running(lobby_app(box, saved), timeout=20) as d:
            _shell, lobby = box
            d.keys("o")
            await until(lambda: lobby.mode == "settings")
            d.keys("\x1b[1~X\x1b[4~Y")  # Home X End Y: what the issue saw typed as codes
            await until(lambda: lobby.settings_form.values["nickname"] == "XabcY",
                        what=f"XabcY, not {lobby.settings_form.values['nickname']!r}")
            d.keys("\x1b[H\x1b[C\x1b[3~")  # Home → Delete: the "a" goes
            await until(lambda: lobby.settings_form.values["nickname"] == "XbcY")
            d.keys("\x1b")
            await until(lambda: lobby.mode == "main")
            d.keys("q")

    asyncio.run(main())


def test_enter_on_the_last_settings_field_saves_and_the_message_goes(no_browse):
    async def main() -> None:
        box: list = []
        saved: list = []
        async with running(lobby_app(box, saved), timeout=20) as d:
            _shell, lobby = box
            d.keys("o")
            await until(lambda: lobby.mode == "settings")
            d.keys("\t\t")  # the last field (four colours)
            await until(lambda: lobby.settings_form.index == 2)
            d.keys("\r")
            await until(lambda: lobby.mode == "main", what="saved by Enter")
            assert saved and lobby.message == "Settings saved."
            d.keys("t")  # the statistics: another screen
            await until(lambda: lobby.mode == "stats")
            assert "Settings saved." not in fragments_text(lobby.fragments())
            d.keys("\x1b")
            await until(lambda: lobby.mode == "main")
            assert "Settings saved." not in fragments_text(lobby.fragments())
            d.keys("q")

    asyncio.run(main())


# --- the host's waiting screen ----------------------------------------------------------------


def test_the_hosts_waiting_screen_shows_seats_code_fingerprint_and_what_qq_does():
    for lang in ("en", "fr"):
        i18n.set_language(lang)
        m = TableModel(seat=0, variant="rami")
        m.intro = [M._("Join code: {code} (give it to the players you expect)").format(code="K7WQ-22PX")]
        m.apply(SessionUpdate(nicknames={0: "Ana"}, connections={0: "you"},
                              table={"seats": 4, "host_seat": 0, "fingerprint": "ab:cd:ef:01",
                                     "bots": [[3, "expert"]]}))
        text = fragments_text(render_table(m, 80, 24))
        assert "K7WQ-22PX" in text and "ab:cd:ef:01" in text
        if lang == "en":
            assert "1 of 4 seats taken" not in text  # the bot has its seat too
            assert "2 of 4 seats taken" in text
            assert "Ana (you)" in text and "bot, expert" in text
            assert text.count("(free seat: waiting for a player)") == 2
            assert "q q: close the table for everyone" in text
            assert M.quit_confirmation(m) == "Press q again to close the table for everyone."
        else:
            assert "2 sur 4 places prises" in text and "Ana (vous)" in text
            assert "q q : fermer la table pour tout le monde" in text
        m.apply(SessionUpdate(nicknames={1: "Bruno"}, connections={1: "connected"}))
        text = fragments_text(render_table(m, 80, 24))
        assert "Bruno" in text
        guest = TableModel(seat=1, variant="rami")
        guest.apply(SessionUpdate(nicknames={0: "Ana", 1: "Bruno"},
                                  table={"seats": 2, "host_seat": 0}))
        assert M.quit_confirmation(guest) == M._("Press q again to leave the table.")


# --- the log lines and the help, in both languages -------------------------------------------


def sample_events() -> list[E.Event]:
    from rami_lan.core.cards import parse_cards
    from rami_lan.core.melds import build_run
    from rami_lan.core.variants import get_variant

    c = parse_cards("7h 8h 9h Ks")
    run = build_run(get_variant("rami"), c[:3], owner=1)
    out: list[E.Event] = []
    for who in (0, 1):
        out += [
            E.RoundStarted(1, who, 1 - who, (0, 1), 13, 80, c[3]),
            E.StockDrawn(who, c[0] if who == 0 else None, 0, 0),
            E.DiscardTaken(who, (c[3],), 1),
            E.Melded(who, (run,), 0, True),
            E.LaidOff(who, c[3], 0, run),
            E.JokerRecovered(who, 0, (c[0],), parse_cards("*")[0], run),
            E.Discarded(who, c[3]),
            E.Knocked(who, c[3]),
            E.TimedOut(who, False), E.TimedOut(who, True),
            E.TurnStarted(who, 3),
            E.RoundEnded(who, True, "out", (), (), (), ()),
            E.RoundEnded(who, False, "out", (), (), (), ()),
            E.RoundVoided(2, who, "gone"), E.RoundVoided(2, who, "player_gone"),
            E.RoundVoided(2, who, "no_answer"),
            E.PlayersEliminated((who,)),
            E.MatchEnded(who, (), "limit"),
        ]
    out += [E.StockRefilled(1, (), True, None), E.RoundEnded(None, False, "stock", (), (), (), ()),
            E.MatchEnded(None, (), "limit")]
    return out


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_every_log_line_in_both_languages(lang):
    i18n.set_language(lang)
    bad = {}
    for ev in sample_events():
        line = D.describe(ev, 0, lambda s: NAMES.get(s, "?"))
        if line is None:
            continue
        if faults(line, lang):
            bad[repr(ev)[:60]] = (line, faults(line, lang))
        seat = getattr(ev, "seat", getattr(ev, "winner", None))
        if seat == 0 and not isinstance(ev, E.RoundVoided):
            assert "Ana" not in line, line  # the reader's own doing: "you"
    assert not bad, bad


def test_the_french_help_has_no_english_word():
    from rami_lan.cli.ui.help import help_lines
    from rami_lan.core.variants import VARIANTS

    i18n.set_language("fr")
    for variant in VARIANTS:
        for model in (None, copy.deepcopy(result_model("fr"))):
            i18n.set_language("fr")
            for line in help_lines(variant, model):
                words = {w.lower() for w in re.findall(r"[A-Za-z]{2,}", line)}
                assert not words & ENGLISH, (line, words & ENGLISH)


def test_the_result_screen_says_you_to_the_winner():
    for lang, out, won in (("en", "You go out!", "You win the match!"),
                           ("fr", "Vous sortez !", "Vous gagnez la partie !")):
        m = copy.deepcopy(result_model(lang))
        i18n.set_language(lang)
        v = m.view
        m.view = replace(v, last_result=replace(v.last_result, winner=m.seat), match_over=True,
                         winner=m.seat)
        text = fragments_text(render_result(m, 120, 40))
        assert out in text and won in text
        assert m.name(m.seat) + " " not in text.split("\n")[1]


def test_new_table_from_the_lobby_waits_with_seats_code_and_fingerprint(no_browse, monkeypatch):
    """After the lobby's New table the screen said only "Waiting for the table…"."""
    from rami_lan.cli.ui.table_screen import TableScreen

    monkeypatch.setenv("RAMI_LAN_INTERFACES", "127.0.0.1")

    async def main() -> None:
        box: list = []
        saved: list = []
        async with running(lobby_app(box, saved), timeout=30) as d:
            shell, lobby = box
            d.keys("n")
            await until(lambda: lobby.mode == "new")
            vals = lobby.new_form.values
            vals.update(seats=3, seat1="human", seat2="expert", who="code", code="K7WQ22PXAB",
                        private=False)
            lobby.new_form.index = len(lobby.new_form.shown())  # on "Open the table"
            d.keys("\r")
            await until(lambda: isinstance(shell.screen, TableScreen), what="table screen")
            screen = shell.screen
            await until(lambda: "abc (you)" in screen.text(80, 24), what="the seats")
            text = screen.text(80, 24)
            assert "Waiting for the table: 2 of 3 seats taken." in text
            assert "Bot 3 · bot, expert" in text
            assert "(free seat: waiting for a player)" in text
            assert "Join code: K7WQ22PXAB" in text
            fp = lobby.host.short_fingerprint
            assert fp and fp in text
            assert "q q: close the table for everyone" in text
            d.keys("q")
            await until(lambda: screen.model.confirm is not None)
            assert screen.model.confirm == "Press q again to close the table for everyone."
            d.keys("q")
            await until(lambda: shell.screen is lobby, what="back to the lobby")
            d.keys("q")

    asyncio.run(main())


def test_the_replay_help_lists_its_keys():
    from rami_lan.replay import replay_help

    for lang in ("en", "fr"):
        i18n.set_language(lang)
        text = " ".join(replay_help())
        for key in ("→", "←", "l", "h", "PgDn", "PgUp", "1-9", "g", "v", "?", "F1", "q"):
            assert re.search(rf"(?<!\w){re.escape(key)}(?!\w)", text), (lang, key)
        assert ("Esc" if lang == "en" else "Échap") in text
