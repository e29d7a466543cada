"""Translations: every string a player reads exists in English and French.

Source strings are English. French lives in gettext catalogues under
``rami_lan/locale/fr/``: one ``.po`` source per component, compiled by Babel to
``LC_MESSAGES/<component>.mo`` (``python -m rami_lan.i18n_build``; a test fails when a
``.mo`` is stale), loaded here by the standard library's `gettext`, every component's
catalogue chained into one (a msgid in two: the later file's, by name), plural rules
from each catalogue's header. `set_language(None)` picks French when the locale is
French; ``--lang`` overrides.
"""

from __future__ import annotations

import gettext
import os
import re
from importlib import resources

SUPPORTED = ("en", "fr")
_current: gettext.NullTranslations = gettext.NullTranslations()
_lang = "en"


def _compiled(lang: str) -> list:
    """The compiled catalogues of ``lang`` (`importlib.resources` entries), by name."""
    folder = resources.files("rami_lan") / "locale" / lang / "LC_MESSAGES"
    if not folder.is_dir():
        return []
    return sorted((e for e in folder.iterdir() if e.name.endswith(".mo")), key=lambda e: e.name)


def translations(lang: str) -> gettext.NullTranslations:
    """Every catalogue of ``lang`` chained: the last file by name first, each falling
    back on the one before it (English, untranslated, at the end)."""
    chain: gettext.NullTranslations = gettext.NullTranslations()
    if lang == "en":
        return chain
    for entry in _compiled(lang):
        with entry.open("rb") as fp:
            t = gettext.GNUTranslations(fp)
        t.add_fallback(chain)
        chain = t
    return chain


def detect_language(environ: dict[str, str] | None = None) -> str:
    """French when the locale asks for it: ``LANGUAGE`` (a priority list such as
    ``de:fr:en``: its first supported entry; none: English), else the first of
    ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` that is set."""
    env = os.environ if environ is None else environ
    if env.get("LANGUAGE", ""):  # as GNU gettext: the list alone decides (none known: English)
        for entry in env["LANGUAGE"].split(":"):
            code = entry.strip().lower()[:2]
            if code in SUPPORTED:
                return code
        return "en"
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        val = env.get(var, "")
        if val:
            return "fr" if val.lower().startswith("fr") else "en"
    return "en"


def set_language(lang: str | None) -> str:
    """Select ``"en"`` or ``"fr"`` (None: from the environment); returns the choice."""
    global _current, _lang
    lang = detect_language() if lang is None else lang
    if lang not in SUPPORTED:
        raise ValueError(f"language must be one of {SUPPORTED}, not {lang!r}")
    _lang = lang
    _current = translations(lang)
    _RANKS.clear()
    return lang


def language() -> str:
    return _lang


def _(message: str) -> str:
    """Translate ``message`` into the current language."""
    return _current.gettext(message) if message else message  # ("": a catalogue's header)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form for ``n``, by the catalogue's plural rule."""
    return _current.ngettext(singular, plural, n)


# --- cards as players read them --------------------------------------------------------

SUIT_SYMBOLS = {"c": "♣", "s": "♠", "h": "♥", "d": "♦", "?": "?"}
JOKER_FACE = "JK"
_RANKS: dict[int, str] = {}
_CARD_TOKEN = re.compile(r"^(10|[2-9]|[AJQK])([cshd?])$")
_RANK_OF = {"A": 1, "J": 11, "Q": 12, "K": 13}


def rank_letters() -> dict[int, str]:
    """Rank -> its letter in the current language (``Q`` is ``D``, dame, in French)."""
    if not _RANKS:
        _RANKS.update({r: str(r) for r in range(2, 11)})
        _RANKS.update({
            1: _("A (ace)").split(" ")[0], 11: _("J (jack)").split(" ")[0],
            12: _("Q (queen)").split(" ")[0], 13: _("K (king)").split(" ")[0],
        })
        _RANKS[14] = _RANKS[1]
        _RANKS[0] = JOKER_FACE
    return _RANKS


def card_face(rank: int, suit: str | None) -> str:
    """A card as players read it: ``10♥``, ``D♠`` (French) / ``Q♠``, ``JK``."""
    if not rank:
        return JOKER_FACE
    return rank_letters()[rank] + SUIT_SYMBOLS.get(suit or "?", "?")


def suit_name(suit: str) -> str:
    """A suit as a word (``h``: hearts / cœur); anything else as is."""
    return {"c": _("clubs"), "s": _("spades"), "h": _("hearts"), "d": _("diamonds")}.get(suit, suit)


def cards_in_text(text: str) -> str:
    """``6h Qs 5h`` -> ``6♥ D♠ 5♥`` when every word of ``text`` is a card code, else as is."""
    words = text.split(" ")
    if not any(words):
        return text
    out = []
    for w in words:
        if not w:
            out.append(w)
            continue
        if w == "*":
            out.append(JOKER_FACE)
            continue
        m = _CARD_TOKEN.match(w)
        if m is None:
            return text
        r = m.group(1)
        out.append(card_face(_RANK_OF.get(r) or int(r), m.group(2)))
    return " ".join(out)


def cards_text(text: str) -> str:
    """Cards in the core's text, one or a list (``6h Qs 5h``, ``6h, 7h``), as cards
    (``6♥ D♠ 5♥``, ``6♥, 7♥``); anything else as is."""
    items = text.split(", ")
    shown = [cards_in_text(item) for item in items]
    return text if any(s == i for s, i in zip(shown, items, strict=True)) else ", ".join(shown)


# --- the sources, for tests -----------------------------------------------------------

_SOURCE_READERS = ("load_catalog", "load_po", "parse_po", "parse_po_file")
"""Names the tests read the French sources by (kept from before the catalogues were
compiled): they read the ``.po`` files through Babel (`rami_lan.i18n_build`); playing
never calls them."""


def __getattr__(name: str) -> object:
    if name not in _SOURCE_READERS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import rami_lan.i18n_build

    build = rami_lan.i18n_build
    return {
        "load_po": build.load_po,
        "load_catalog": lambda lang: build.load_po(lang).catalog,
        "parse_po_file": build.read_po,
        "parse_po": lambda text: build.read_po(text).catalog,
    }[name]
