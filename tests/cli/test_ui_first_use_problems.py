"""Issue 17, "Why": each problem a new user met at the table, checked (each failed before).

Rendering goes through `render_table` / `TableScreen.text`; legality and hints are the
core's (`rami_lan.core.hints`, `rami_lan.core.shadow`), never decided here.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import time
from dataclasses import replace

import pytest
from test_ui_render import model_after
from ui_helpers import running, until

from rami_lan import i18n, i18n_build
from rami_lan.cli.ui.describe import describe
from rami_lan.cli.ui.model import TableModel
from rami_lan.cli.ui.render import button_label, render_table
from rami_lan.cli.ui.text import fragments_text
from rami_lan.core import actions as A
from rami_lan.core import events as E
from rami_lan.core.cards import parse_cards
from rami_lan.core.melds import build_run
from rami_lan.core.reasons import Reason
from rami_lan.core.variants import get_variant
from rami_lan.net.table_session import SessionUpdate

pytestmark = pytest.mark.usefixtures("ui_env")


def text_of(m: TableModel, w: int = 80, h: int = 24) -> str:
    return fragments_text(render_table(m, w, h))


# --- the LAN move timer ------------------------------------------------------------


def test_a_deadline_sent_alone_is_shown_and_counts_down():
    _s, m = model_after("rami", 2, "timer")
    assert m.deadline is None and "⏱" not in text_of(m)
    now = time.monotonic()
    m.apply(SessionUpdate(deadline=now + 30))  # what a remote client sends: no view
    assert m.seconds_left(now) == 30 and "⏱ 30 s" in text_of(m)
    assert m.seconds_left(now + 10.5) == 20  # it counts down
    m.apply(SessionUpdate(view=m.view))  # a later view without a deadline keeps it
    assert m.seconds_left(now + 20) == 10
    m.apply(SessionUpdate(view=replace(m.view, phase="between")))
    assert m.deadline is None  # the round is over: no clock


# --- the log: what the bot did stays visible -------------------------------------------


def test_your_turn_does_not_hide_what_the_bot_just_did():
    _s, m = model_after("rami", 2, "log")
    card = parse_cards("Qh")[0]
    m.apply(SessionUpdate(events=(E.Discarded(1, card), E.TurnStarted(0, 9))))
    for w, h in ((80, 24), (120, 40), (60, 18)):
        t = text_of(m, w, h)
        assert "Your turn!" in t or "Your turn:" in t
        assert "discards Q♥" in t, (w, h, t)


# --- cards as cards, in both languages; plural forms -------------------------------------


REFUSAL = Reason.of("invalid_meld", meld="6h Qs 5h", reason=Reason.of("run_suit"))
"""seat 0 (play): 6h Qs 5h is not a valid meld: a run's cards must all have the same suit"""


def test_refusals_show_cards_as_cards_in_english_and_french():
    m = TableModel(seat=0, variant="rami")
    m.apply(SessionUpdate(error=REFUSAL))
    assert "6♥ Q♠ 5♥" in m.error and "6h" not in m.error
    i18n.set_language("fr")
    m.apply(SessionUpdate(error=REFUSAL))
    assert "6♥ D♠ 5♥" in m.error and "Qs" not in m.error
    assert "place" not in m.error and "jeu" not in m.error  # no seat, no phase (issue 25)
    lay = Reason.of("lay_off_failed", card="4d", meld="Jc Qc *",
                    reason=Reason.of("run_not_consecutive"))
    m.apply(SessionUpdate(error=lay))
    assert "4♦" in m.error and "V♣ D♣ JK" in m.error


def test_plural_forms_come_from_the_catalogue():
    po = i18n_build.read_po('msgid ""\nmsgstr "Plural-Forms: nplurals=2; plural=(n > 1);\\n"\n'
                            'msgid "{n} card"\nmsgid_plural "{n} cards"\n'
                            'msgstr[0] "{n} carte"\nmsgstr[1] "{n} cartes"\n')
    assert po.plurals == {"{n} card": ["{n} carte", "{n} cartes"]}
    assert po.plural_forms == "nplurals=2; plural=(n > 1);"
    assert i18n.ngettext("{n} card", "{n} cards", 1).format(n=1) == "1 card"
    assert i18n.ngettext("{n} card", "{n} cards", 0).format(n=0) == "0 cards"
    i18n.set_language("fr")
    assert i18n.ngettext("{n} card", "{n} cards", 0).format(n=0) == "0 carte"  # French: 0 like 1
    assert i18n.ngettext("{n} card", "{n} cards", 1).format(n=1) == "1 carte"
    assert i18n.ngettext("{n} card", "{n} cards", 2).format(n=2) == "2 cartes"
    _s, m = model_after("rami", 2, "plural")
    v = m.view
    players = (v.players[0], replace(v.players[1], n_cards=1))
    m.apply(SessionUpdate(view=replace(v, players=players)))
    t = text_of(m, 120, 40)
    assert "1 carte" in t and "1 cartes" not in t


# --- words ------------------------------------------------------------------------------


def test_french_discard_button_and_the_dealer_explained():
    i18n.set_language("fr")
    assert button_label("discard") == "Jeter"
    _s, m = model_after("rami", 3, "words")
    t = text_of(m, 120, 40)
    assert "Talon" in t and "[Talon x]" not in t
    assert "(D)" not in t and "donneur" in t
    i18n.set_language("en")
    assert "dealer" in text_of(m, 120, 40)


def test_robot_in_french_everywhere():
    import re

    i18n.set_language("fr")
    po = i18n_build.load_po("fr")
    texts = list(po.catalog.values()) + [f for forms in po.plurals.values() for f in forms]
    # "bot" as a French word (a file name such as docs/bots.md is not one)
    assert not [t for t in texts if re.search(r"(?<![/\w])bots?\b(?!\.md)", t)]


def test_help_is_translated():
    from rami_lan.cli import main as cli_main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        cli_main.main(["--lang", "fr", "--help"])
    text = out.getvalue()
    assert "afficher cette aide" in text and "show this help" not in text
    assert "jouer tout de suite contre des robots" in text
    assert text.startswith("usage : ")


def test_taking_the_joker_back_yourself_says_you():
    run = build_run(get_variant("rami"), parse_cards("8c 9c 10c"), owner=1)
    ev = E.JokerRecovered(0, 2, tuple(parse_cards("9c")), parse_cards("*")[0], run)
    assert describe(ev, 0, lambda s: "root").startswith("You take the joker back")
    assert describe(ev, 1, lambda s: "root").startswith("root takes the joker back")


# --- the hand ---------------------------------------------------------------------------


def test_first_deal_sorted_and_the_drawn_card_highlighted():
    async def main():
        from rami_lan.cli.local_session import LocalTableSession
        from rami_lan.core.match import MatchOptions

        s = LocalTableSession("rami", 2, 0, {1: "moyen"}, MatchOptions(), seed="fresh")
        m = TableModel(seat=0, variant="rami")
        await s.start()

        def drain():
            while not s._queue.empty():
                u = s._queue.get_nowait()
                if u is not None:
                    m.apply(u)

        drain()
        assert m.hand == sorted(m.hand, key=lambda c: c.sort_key())  # sorted on the deal
        assert m.sort_mode is None  # ... once: a drawn card stays where it lands
        def my_turn() -> bool:
            drain()
            return s.view().my_turn

        await until(my_turn, 5, "seat 0's turn")
        assert s.view().phase == "draw"
        await s.act(A.DrawStock(0))
        drain()
        assert len(m.fresh) == 1 and m.fresh[0] in m.hand
        frags = render_table(m, 120, 40)
        assert any("class:fresh" in f[0] and f[1].strip() for f in frags)
        await s.close()

    asyncio.run(main())


def test_hand_wraps_below_80_columns_and_buttons_are_never_cut():
    _s, m = model_after("rami", 2, "wrap", knock=True)
    for w, h in ((60, 18), (64, 20), (80, 24)):
        t = text_of(m, w, h)
        rows = t.split("\n")
        assert len(rows) <= h and all(len(r) <= w for r in rows)
        from rami_lan.cli.ui.cards import face_text

        for c in m.hand:
            assert face_text(c) in t, (w, c)
        for name in ("[Sort 7-8 r]", "[Sort ♣♥ s]", "[Frapper f]"):
            assert name in t, (w, name)


# --- the opening threshold: hints the engine would accept --------------------------------


def playing_model(variant: str, seed: str) -> TableModel | None:
    """Our first turn, after drawing from the stock (None if a bot plays first)."""

    async def main():
        from rami_lan.cli.local_session import LocalTableSession
        from rami_lan.core.match import MatchOptions

        s = LocalTableSession(variant, 2, 0, {1: "moyen"}, MatchOptions(), seed=seed)
        m = TableModel(seat=0, variant=variant)
        await s.start()
        if s.view().my_turn:
            await s.act(A.DrawStock(0))
        while not s._queue.empty():
            u = s._queue.get_nowait()
            if u is not None:
                m.apply(u)
        await s.close()
        return m if m.view.my_turn and m.view.phase == "play" else None

    return asyncio.run(main())


def test_opening_progress_shown_and_hints_never_stage_a_refused_opening():
    from rami_lan.core.hints import lay_down_hint

    for seed in range(40):
        m = playing_model("rami", f"open-{seed}")
        if m is None:
            continue
        v = m.view
        prog = m.opening_progress()
        assert prog is not None and prog[1] == 30
        t = text_of(m, 120, 40)
        assert f"{prog[0]}/30" in t  # on the Déposer button and the hint line
        assert f"[Lay down {prog[0]}/30 m]" in t
        hint = lay_down_hint(v)
        staged = m.stage_hints()
        assert staged == hint.legal
        if 0 < prog[0] < 30:
            assert not staged and not m.staged
            return
    pytest.skip("no seed gave an opening below 30 on our first turn")


# --- keys out of turn ---------------------------------------------------------------------


def test_keys_pressed_out_of_turn_say_why():
    from rami_lan.cli.cmd_solo import make_solo_session
    from rami_lan.cli.ui.shell import Shell
    from rami_lan.cli.ui.table_screen import TableScreen

    async def main():
        session = make_solo_session("rami", 2, "moyen", "why-1", think=30)
        box: list = []

        def make():
            shell = Shell()
            screen = TableScreen(session, on_leave=shell.exit, stats=None)
            shell.show(screen)
            box[:] = [shell, screen]
            return shell

        async with running(make, timeout=20) as d:
            shell, screen = box
            m = screen.model
            await until(lambda: m.view is not None and m.view.phase == "draw", what="deal")
            if m.view.my_turn:
                d.keys("x")  # discard before drawing
                await until(lambda: m.why is not None, what="why")
                assert "Draw first" in m.why and "Draw first" in screen.text()
            else:
                d.keys("d")
                await until(lambda: m.why is not None, what="why")
                assert "Not your turn" in m.why and "Not your turn" in screen.text()
            shell.exit(0)

    asyncio.run(main())


# --- a joker laid off on a run: either end --------------------------------------------------


def test_joker_lay_off_goes_to_the_chosen_end():
    _s, m = model_after("rami", 2, "ends")
    v = get_variant("rami")
    run = build_run(v, parse_cards("5h 6h 7h"), owner=0)
    jk = parse_cards("*")[0]
    view = m.view
    players = tuple(replace(p, opened=True) for p in view.players)
    view = replace(view, melds=(run,), hand=(*view.hand, jk), players=players,
                   turn=0, phase="play")
    m.apply(SessionUpdate(view=view))
    m.selected = [jk]
    m.target = 0
    m.end = "low"
    a = m.layoff_action()
    assert isinstance(a, A.LayOff) and a.end == "low"
    m.end = "high"
    assert m.layoff_action().end == "high"
    t = text_of(m, 120, 40)
    assert "◀1[5♥ 6♥ 7♥]▶" in t  # both ends of the chosen meld are shown


# --- panels and result ----------------------------------------------------------------------


def test_help_scrolls_at_80x24_and_breaks_lines_between_words():
    _s, m = model_after("500", 2, "help")
    m.panel = "help"
    rows = text_of(m, 80, 24).split("\n")
    assert len(rows) == 24 and all(len(r) <= 80 for r in rows)
    first = text_of(m, 60, 18)
    assert "lines 1-" in first  # 60x18: the help scrolls
    rows = first.split("\n")
    assert len(rows) == 18 and all(len(r) <= 60 for r in rows)
    from rami_lan.cli.ui.help import help_lines

    words = {w for line in help_lines("500") for w in line.split()}
    for r in rows[1:-1]:
        for w in r.split():
            assert w in words, w  # never a word cut in two
    pages = []
    for scroll in range(0, 100, 8):  # every line of the help is reached by scrolling
        m.panel_scroll = scroll
        pages.append(text_of(m, 60, 18))
    assert any("q q: leave the table" in page for page in pages)
    assert "Esc close" in pages[-1]


def test_score_sheet_and_history_panels():
    _s, m = model_after("rami", 3, "sheet", moves=10)
    v = m.view
    res = E.RoundEnded(True, False, "out", ((0, ()), (1, ()), (2, ())), ((0, 0), (1, 12), (2, 30)),
                       ((0, 0), (1, 0), (2, 0)), ((0, 0), (1, 12), (2, 30)))
    players = tuple(replace(p, total=t) for p, t in zip(v.players, (0, 12, 30), strict=True))
    m.apply(SessionUpdate(view=replace(v, phase="between", last_result=res, players=players),
                          events=(replace(res, winner=0),)))
    m.panel = "scores"
    t = text_of(m, 80, 24)
    assert "Score sheet" in t and "★ +0" in t and "+12" in t and "+30" in t
    m.panel = "history"
    m.panel_scroll = -1
    assert "You go out!" in text_of(m, 80, 24)  # the winner is the reader: second person


# --- Info joueur, a bot's level ---------------------------------------------------------------


def test_info_joueur_fits_its_content_and_names_a_bot_level():
    from rami_lan.cli.cmd_solo import make_solo_session
    from rami_lan.cli.ui.table_screen import TableScreen

    session = make_solo_session("rami", 3, "expert", "info-1", think=0)
    screen = TableScreen(session, stats=None)
    screen.model.info_seat = 1
    lines = screen.info_lines()
    assert any("expert" in line for line in lines)
    info = screen.container.floats[0]
    assert info.left is None and info.top is None  # centred, the size of its text


# --- statistics and replays of solo games ------------------------------------------------------


def test_leaving_after_a_won_round_counts_the_round_and_saves_a_replay(tmp_path):
    from rami_lan.cli.cmd_solo import make_solo_session
    from rami_lan.cli.ui.table_screen import TableScreen
    from rami_lan.stats import StatsDB

    async def main():
        session = make_solo_session("rami", 2, "moyen", "left-1", think=0)
        await session.start()
        screen = TableScreen(session, stats=lambda: StatsDB(tmp_path / "stats.db"))
        while not session._queue.empty():
            u = session._queue.get_nowait()
            if u is not None:
                screen.model.apply(u)
        m = screen.model
        v = m.view
        won = E.RoundEnded(0, False, "out", ((0, ()), (1, ())), ((0, 0), (1, 25)),
                           ((0, 0), (1, 0)), ((0, 0), (1, 25)))
        m.apply(SessionUpdate(events=(won,), view=replace(v, phase="between", last_result=won)))
        assert screen.record_left()
        db = StatsDB(tmp_path / "stats.db")
        st = db.summary()
        assert st.rounds_played == 1 and st.rounds_won == 1 and st.matches_played == 1
        path = screen.save_replay()
        assert path is not None and path.is_file()
        data = json.loads(path.read_text(encoding="utf-8"))
        assert data["format"] == "rami-lan-replay" and data["rounds"]
        await session.close()

    asyncio.run(main())


# --- the lobby: no network, browsing off -------------------------------------------------------


def test_lobby_without_network_and_with_browsing_off():
    from rami_lan.cli.settings import Settings
    from rami_lan.cli.ui.lobby import Lobby
    from rami_lan.cli.ui.shell import Shell

    class NoNetwork:
        async def start(self) -> None:
            raise OSError(101, "Network is unreachable\n  at some very long internal detail " * 3)

        async def stop(self) -> None:
            pass

        def snapshot(self) -> list:
            return []

    async def main():
        box: list = []

        def make():
            shell = Shell()
            lobby = Lobby(shell, Settings(nickname="T"), browser_factory=NoNetwork,
                          presence=False)
            shell.show(lobby)
            box[:] = [shell, lobby]
            return shell

        async with running(make, timeout=10):
            shell, lobby = box
            await until(lambda: lobby.browse_error is not None, what="error")
            t = lobby.text(80, 24)
            assert "looking" not in t and "No network" in t
            assert all(len(r) <= 80 for r in t.split("\n"))
            assert "\n  at some" not in t  # one clean line
            shell.exit(0)

        def make_off():
            shell = Shell()
            lobby = Lobby(shell, Settings(nickname="T"), browser_factory=None, presence=False)
            shell.show(lobby)
            box[:] = [shell, lobby]
            return shell

        async with running(make_off, timeout=10):
            shell, lobby = box
            t = lobby.text(80, 24)
            assert "looking" not in t and "browsing is off" in t
            shell.exit(0)

    asyncio.run(main())


def test_cycling_variants_resets_the_points_and_solo_is_remembered():
    from rami_lan.cli.settings import Settings
    from rami_lan.cli.ui.lobby import Lobby, load_solo_choices, save_solo_choices
    from rami_lan.cli.ui.shell import Shell

    shell = Shell()
    lobby = Lobby(shell, Settings(nickname="T"), browser_factory=None, presence=False)
    form = lobby.new_form
    form.values["limit"] = 1  # Rami: single round
    form.index = 1  # Variant
    for _ in range(5):  # all the way round, back to rami
        form.change(1)
    assert form.values["variant"] == "rami" and form.values["limit"] == 100
    solo = lobby.solo_form
    solo.index = 0
    while solo.values["variant"] != "500":
        solo.change(1)
    assert solo.values["limit"] == 500
    solo.values["seats"] = 3
    save_solo_choices(solo.values)
    assert load_solo_choices()["variant"] == "500"
    again = Lobby(Shell(), Settings(nickname="T"), browser_factory=None, presence=False)
    assert again.solo_form.values["variant"] == "500" and again.solo_form.values["seats"] == 3


def test_500_long_pile_never_cut_at_the_card_you_would_take():
    from rami_lan.cli.ui.cards import face_text
    from rami_lan.core.cards import full_deck

    _s, m = model_after("500", 2, "pile")
    pile = tuple(full_deck(1, 0)[:30])
    m.apply(SessionUpdate(view=replace(m.view, discard=pile, discard_size=len(pile))))
    for w, h in ((60, 18), (80, 24), (120, 40)):
        for depth in (1, 7, 25, 30):
            m.depth = depth
            t = text_of(m, w, h)
            assert f"depth {depth}/30" in t, (w, depth)
            assert f"[{face_text(pile[-depth])}]" in t, (w, depth)  # the card taken
            if depth <= 7:
                assert f"[{face_text(pile[-1])}]" in t  # and the top of the pile


def test_the_table_fingerprint_is_on_the_table_screen():
    _s, m = model_after("rami", 2, "fp")
    m.table["fingerprint"] = "ab:cd:ef:01:23:45:67:89"
    for w, h in ((80, 24), (120, 40), (200, 60)):
        assert "fingerprint ab:cd:ef:01" in text_of(m, w, h)


def test_resize_keeps_state_and_big_screens_are_used():
    m = playing_model("rami", "resize-1") or playing_model("rami", "resize-2")
    assert m is not None
    m.cursor = 3
    m.toggle()
    before = (list(m.hand), list(m.selected), m.cursor, m.target)
    for w, h in ((200, 60), (60, 18), (120, 40), (80, 24), (61, 19), (120, 40)):
        rows = text_of(m, w, h).split("\n")
        assert len(rows) <= h and all(len(r) <= w for r in rows)
    assert (list(m.hand), list(m.selected), m.cursor, m.target) == before
    big = text_of(m, 120, 40)
    assert "┌───" in big and "└───" in big  # card shapes, fanned
    assert "History (a)" in big  # the history column
    small = text_of(m, 80, 24)
    assert "┌───" not in small  # chips where there is no room


def test_mouse_reaches_every_action_of_a_turn():
    from ui_helpers import locate

    class Clicks:
        def __init__(self) -> None:
            self.calls: list[tuple] = []

        def __getattr__(self, name):  # card, stock, discard, meld, meld_end, button, ...
            return lambda *a: self.calls.append((name, *a))

    m = playing_model("rami", "mouse-1") or playing_model("rami", "mouse-2")
    assert m is not None
    m.selected = list(m.hand[:3])
    c = Clicks()
    frags = render_table(m, 120, 40, c)
    handlers = [f for f in frags if len(f) > 2]
    from prompt_toolkit.data_structures import Point
    from prompt_toolkit.mouse_events import MouseButton, MouseEvent, MouseEventType

    up = MouseEvent(Point(0, 0), MouseEventType.MOUSE_UP, MouseButton.LEFT, frozenset())
    for f in handlers:
        f[2](up)
    names = {x[0] for x in c.calls}
    assert {"card", "stock", "discard", "button", "player"} <= names
    buttons = {x[1] for x in c.calls if x[0] == "button"}
    assert {"lay", "stage", "layoff", "recover", "discard", "sort_suit", "sort_rank",
            "history", "scores", "info"} <= buttons
    assert locate(frags, lambda t: t.startswith("[Put aside g]")) is not None
    # panels scroll with the wheel
    m.panel = "history"
    for i in range(40):
        m._log(f"line {i}")
    c.calls.clear()
    wheel = MouseEvent(Point(0, 0), MouseEventType.SCROLL_DOWN, MouseButton.NONE, frozenset())
    frags = render_table(m, 80, 24, c)
    next(f for f in frags if len(f) > 2)[2](wheel)
    assert ("scroll", 3) in c.calls


def test_a_remote_table_names_its_bots_levels():
    """The host's table facts carry the bots' levels; the seat shows them (clipped)."""
    import socket

    from rami_lan.net.client import open_session
    from rami_lan.net.host import TableConfig, TableHost

    async def main():
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        host = TableHost(TableConfig(name="T", variant="rami", seats=3,
                                     bots={1: "expert", 2: "debutant"}, advertise=False,
                                     interfaces=["127.0.0.1"], port=port))
        port = await host.start()
        try:
            session = await open_session("127.0.0.1", port, nickname="Ana", lang="en",
                                         token=host.owner_token, fingerprint=host.fingerprint)
            m = TableModel(seat=session.seat, variant="rami")
            async for upd in session.updates():
                m.apply(upd)
                if m.view is not None:
                    break
            assert m.bot_level(1) == "expert" and m.bot_level(2) == "debutant"
            assert "bot, expert" in text_of(m, 120, 40)
            await session.close()
        finally:
            await host.stop()

    asyncio.run(main())


def test_result_hand_lines_never_cut_the_total():
    _s, m = model_after("rami", 2, "res-wrap")
    v = m.view
    hand = v.hand[:13]
    res = E.RoundEnded(1, False, "out", ((0, hand), (1, ())), ((0, 118), (1, 0)),
                       ((0, 0), (1, 0)), ((0, 118), (1, 0)))
    m.apply(SessionUpdate(view=replace(v, phase="between", last_result=res)))
    from rami_lan.cli.ui.render import render_result

    for w in (60, 80):
        rows = fragments_text(render_result(m, w, None, False, 24)).split("\n")
        assert all(len(r) <= w for r in rows)
        assert any(r.rstrip().endswith("= 118 pts") for r in rows), rows
