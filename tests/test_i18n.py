"""Every message a player reads exists in French: catalogs and rules-core messages."""

from __future__ import annotations

import random

import pytest
from core_play import deck_for, random_action

from rami_lan import i18n
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
    cat = i18n.load_catalog("fr")
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
                    fr = i18n.translate_message(str(e))
                    assert fr != str(e) and fr.startswith("place "), str(e)
                    seen += 1
            try:
                R.apply(st, R.A.DrawStock(seat))
            except IllegalAction as e:
                assert i18n.translate_message(str(e)) != str(e)
        m, _ = apply(m, random_action(st, st.turn, rng))
    assert seen > 0
