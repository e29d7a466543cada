"""Every message a player reads exists in French: catalogs and rules-core messages."""

from __future__ import annotations

import random

import pytest
from core_play import deck_for, random_action

from rami_lan import i18n, i18n_build
from rami_lan.cli.refusals import illegal_text
from rami_lan.core import VARIANTS, IllegalAction, MatchOptions, apply, new_match, start_round
from rami_lan.core import round as R


@pytest.fixture
def french():
    i18n.set_language("fr")
    yield
    i18n.set_language("en")


def test_language_detection() -> None:
    assert i18n.detect_language({"LANG": "fr_FR.UTF-8"}) == "fr"
    assert i18n.detect_language({"LANG": "de_DE.UTF-8"}) == "en"
    assert i18n.detect_language({"LANGUAGE": "fr", "LANG": "en_US"}) == "fr"
    assert i18n.detect_language({}) == "en"


def test_catalogs_parse_and_are_complete() -> None:
    cat = i18n_build.load_po("fr").catalog
    assert len(cat) > 100
    assert all(v for v in cat.values()), "every msgid has a French msgstr"


@pytest.mark.parametrize("vid", list(VARIANTS))
def test_every_refusal_of_the_core_reads_in_french(vid: str, french) -> None:
    """Try every candidate action in random games; each refusal must translate fully."""
    rng = random.Random(5)
    m = new_match(vid, 3, MatchOptions(knock=VARIANTS[vid].knock_supported))
    m, _ = start_round(m, deck_for(m, rng), rng.randbytes(32))
    seen = 0
    for _ in range(60):
        st = m.round
        if st.phase == "over":
            break
        for seat in st.players:
            for a in R.candidate_actions(st, seat):
                try:
                    R.apply(st, a)
                except IllegalAction as e:
                    fr = illegal_text(e)
                    assert fr != str(e) and fr.startswith("place "), str(e)
                    seen += 1
            try:
                R.apply(st, R.A.DrawStock(seat))
            except IllegalAction as e:
                assert illegal_text(e) != str(e)
        m, _ = apply(m, random_action(st, st.turn, rng))
    assert seen > 0


def test_every_reason_code_reads_in_the_french_rules_catalogue() -> None:
    """Each code of `rami_lan.core.reasons` has its English template in catalogue
    ``rules``, translated, with the same data (issue 27)."""
    from rami_lan.core.reasons import TEMPLATES, TEXT, template_keys

    rules = i18n_build.read_po(i18n_build.LOCALE / "fr" / "rules.po")
    assert not rules.fuzzy
    bad = {}
    for code, template in TEMPLATES.items():
        if code == TEXT:
            continue  # a text as it is
        fr = rules.catalog.get(template, "")
        if not fr or fr == template or template_keys(fr) != template_keys(template):
            bad[code] = fr
    assert not bad, bad


def _translated_literals() -> list[tuple[str, str, str]]:
    """(file, function, msgid) of every ``_("...")`` / ``ngettext("...", ...)`` in the package."""
    import ast
    from pathlib import Path

    import rami_lan

    root = Path(rami_lan.__file__).parent
    out = []
    for f in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in ("_", "ngettext") and node.args
                    and isinstance(node.args[0], ast.Constant)):
                out.append((str(f.relative_to(root)), node.func.id, node.args[0].value))
    return out


def test_every_translated_string_of_the_package_is_in_the_french_catalogs() -> None:
    po = i18n_build.load_po("fr")
    literals = _translated_literals()
    assert any(f == "cli/messages.py" for f, _fn, _m in literals)
    missing = [(f, m) for f, fn, m in literals
               if (fn == "_" and not po.catalog.get(m)) or (fn == "ngettext" and m not in po.plurals)]
    assert not missing, missing


def test_every_notice_of_the_client_reads_in_both_languages(french) -> None:
    """Each `NoticeCode` has its sentence in cli.messages, in French too, with its data."""
    from rami_lan.cli import messages as M
    from rami_lan.net.notices import Notice, NoticeCode
    from rami_lan.table.chat import ChatRefusal

    data = {"why": "W-H-Y", "where": "10.0.0.9:4242", "secs": 30.0, "old": "OLD-FP",
            "new": "NEW-FP", "refusal": ChatRefusal.RATE_LIMITED, "retry_after": 3.0}
    carries = {
        NoticeCode.REJOIN_REFUSED: ("why",), NoticeCode.HOST_CLOSED: ("why",),
        NoticeCode.HOST_REFUSED_CHAT: ("why",), NoticeCode.PAKE_ERROR: ("why",),
        NoticeCode.RECONNECT_GAVE_UP: ("where",),
        NoticeCode.POSSIBLE_INTERCEPTION: ("old", "new"),
    }
    for code in NoticeCode:
        notice = Notice.of(code, **data)
        fr = M.notice_text(notice)
        i18n.set_language("en")
        en = M.notice_text(notice)
        i18n.set_language("fr")
        assert fr and en, code
        if code is NoticeCode.PAKE_ERROR:  # the peer's own words, shown as they are
            assert fr == en == "W-H-Y"
        else:
            assert fr != en, (code, en)
        for key in carries.get(code, ()):
            assert data[key] in fr and data[key] in en, (code, key)
    assert "3" in M.notice_text(Notice.of(NoticeCode.CHAT_REFUSED, refusal="rate_limited",
                                          retry_after=3.0))
    assert M.session_text(Notice.of(NoticeCode.RECONNECTED)) == "Reconnecté à la table."
    assert M.session_text("texte de la table") == "texte de la table"
    assert M.session_text(None) == M.error_text(None) == ""


def test_the_values_cli_messages_compares_are_the_enums_values(french) -> None:
    """cli.messages compares by value (it need not load zeroconf): every member of each
    enum has its own sentence, so a renamed value cannot fall through silently."""
    from rami_lan.cli import messages as M
    from rami_lan.net import pake
    from rami_lan.net.presence import InviteAnswer, InviteReply, PlayerStatus, WhoMaySit

    weak = {M.weak_code_text(pake.WeakCodeError(w, max_chars=32, max_distinct=3, bits=20,
                                                min_bits=35)) for w in pake.WeakCode}
    assert len(weak) == len(pake.WeakCode) and all("{" not in t for t in weak)
    assert len({M.player_status_text(s) for s in PlayerStatus}) == len(PlayerStatus)
    assert len({M.who_may_sit_label(w) for w in WhoMaySit}) == len(WhoMaySit)
    replies = {M.invite_reply_text(InviteReply("0" * 32, a), "Paul") for a in InviteAnswer}
    assert len(replies) == len(InviteAnswer)
