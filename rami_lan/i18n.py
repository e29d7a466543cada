"""Translations: every string a player reads exists in English and French.

Source strings are English. French lives in gettext ``.po`` catalogs under
``rami_lan/locale/fr/`` (one file per component, all merged at load time), parsed
here directly so no build step is needed. `set_language(None)` picks French when the
locale is French; ``--lang`` overrides.
"""

from __future__ import annotations

import ast
import gettext
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources

SUPPORTED = ("en", "fr")
_current: gettext.NullTranslations = gettext.NullTranslations()
_lang = "en"


class _PoTranslations(gettext.NullTranslations):
    def __init__(
        self,
        catalog: dict[str, str],
        plurals: dict[str, list[str]] | None = None,
        plural: Callable[[int], int] | None = None,
    ) -> None:
        super().__init__()
        self._catalog = catalog
        self._plurals = plurals or {}
        self._plural = plural or (lambda n: int(n != 1))

    def gettext(self, message: str) -> str:
        return self._catalog.get(message) or message

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        forms = self._plurals.get(msgid1)
        if forms:
            i = self._plural(n)
            if 0 <= i < len(forms) and forms[i]:
                return forms[i]
        return msgid1 if n == 1 else msgid2


@dataclass
class PoFile:
    """What a .po file holds: plain entries, plural entries and its plural rule."""

    catalog: dict[str, str] = field(default_factory=dict)
    plurals: dict[str, list[str]] = field(default_factory=dict)
    """msgid (singular) -> msgstr[0], msgstr[1], ..."""
    plural_forms: str = ""
    """The header's ``Plural-Forms`` value (``nplurals=2; plural=(n > 1);``), if any."""


def parse_po_file(text: str) -> PoFile:
    """Parse a .po file: msgid/msgstr pairs, msgid_plural/msgstr[n] entries, the header."""
    out = PoFile()
    key: str | None = None
    cur: list[str] = []
    entry: dict[str, str] = {}

    def flush_field() -> None:
        if key is not None:
            entry[key] = "".join(cur)

    def flush_entry() -> None:
        nonlocal entry
        msgid = entry.get("msgid")
        if msgid is None:
            entry = {}
            return
        if "msgid_plural" in entry:
            forms = []
            i = 0
            while f"msgstr[{i}]" in entry:
                forms.append(entry[f"msgstr[{i}]"])
                i += 1
            if msgid and any(forms):
                out.plurals[msgid] = forms
        elif msgid:
            out.catalog[msgid] = entry.get("msgstr", "")
        else:
            for line in entry.get("msgstr", "").splitlines():
                name, _sep, value = line.partition(":")
                if name.strip().lower() == "plural-forms":
                    out.plural_forms = value.strip()
        entry = {}

    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = re.match(r"(msgid_plural|msgid|msgstr\[\d+\]|msgstr)\s+(\".*\")$", line)
        if m:
            flush_field()
            if m.group(1) == "msgid":
                flush_entry()
            key, cur = m.group(1), [ast.literal_eval(m.group(2))]
        elif line.startswith('"'):
            cur.append(ast.literal_eval(line))
    flush_field()
    flush_entry()
    return out


def parse_po(text: str) -> dict[str, str]:
    """Parse the msgid/msgstr pairs of a .po file (multi-line strings supported)."""
    return parse_po_file(text).catalog


def plural_rule(plural_forms: str) -> Callable[[int], int]:
    """The plural index function of a ``Plural-Forms`` header (English rule without one)."""
    m = re.search(r"plural\s*=\s*([^;]+)", plural_forms or "")
    if not m:
        return lambda n: int(n != 1)
    return gettext.c2py(m.group(1).strip())  # type: ignore[attr-defined]


def load_po(lang: str) -> PoFile:
    """Every catalogue of ``lang`` merged (one .po file per component)."""
    merged = PoFile()
    if lang == "en":
        return merged
    folder = resources.files("rami_lan") / "locale" / lang
    if not folder.is_dir():
        return merged
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if entry.name.endswith(".po"):
            po = parse_po_file(entry.read_text(encoding="utf-8"))
            merged.catalog.update(po.catalog)
            merged.plurals.update(po.plurals)
            merged.plural_forms = merged.plural_forms or po.plural_forms
    return merged


def load_catalog(lang: str) -> dict[str, str]:
    return load_po(lang).catalog


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
    po = load_po(lang)
    _current = _PoTranslations(po.catalog, po.plurals, plural_rule(po.plural_forms))
    _RANKS.clear()
    return lang


def language() -> str:
    return _lang


def _(message: str) -> str:
    """Translate ``message`` into the current language."""
    return _current.gettext(message)


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


def _value_text(key: str, value: str, depth: int) -> str:
    """One value of a core template as players read it: a suit letter as its name, a
    run's end, a meld kind, else translated in turn (a nested reason, cards)."""
    if key == "suit" and value in ("c", "s", "h", "d"):
        return suit_name(value)
    if key == "end" and value in ("low", "high"):
        return _("low") if value == "low" else _("high")
    if key == "kind" and value.strip("'") in ("set", "run"):
        return _("set") if value.strip("'") == "set" else _("run")
    return translate_message(value, depth + 1)


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


_TEMPLATES: list[tuple[re.Pattern[str], str]] | None = None


def _templates() -> list[tuple[re.Pattern[str], str]]:
    """The rules core's message templates (catalog ``rules.po``) as anchored regexes."""
    global _TEMPLATES
    if _TEMPLATES is None:
        folder = resources.files("rami_lan") / "locale" / "fr" / "rules.po"
        msgids = parse_po(folder.read_text(encoding="utf-8")) if folder.is_file() else {}
        out = []
        for msgid in msgids:
            if "{" not in msgid:
                continue
            parts = re.split(r"\{(\w+)\}", msgid)
            rx = "".join(
                re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)" for i, p in enumerate(parts)
            )
            out.append((re.compile(f"^{rx}$", re.S), msgid))
        # the most specific (longest literal text) first
        out.sort(key=lambda t: -len(re.sub(r"\{\w+\}", "", t[1])))
        _TEMPLATES = out
    return _TEMPLATES


def translate_message(message: str, depth: int = 0) -> str:
    """Translate a message of the rules core (English, built from templates).

    The core is pure and speaks English with card codes (``6h Qs 5h``); players read
    French where chosen, and cards as cards (``6♥ D♠ 5♥``) in both languages. A message
    is matched against the templates of ``rules.po``; the values in it are translated in
    turn (a nested reason), rendered as cards, a suit letter as the suit's name, a run's
    end and a meld kind as words (`_value_text`), or kept (numbers). The player's own
    refusals are said in the second person by `rami_lan.cli.messages.own_refusal_text`.
    """
    if depth > 4:
        return message
    direct = _current.gettext(message)
    if direct != message:
        return direct
    cards = cards_in_text(message)
    if cards != message:
        return cards
    for rx, msgid in _templates():
        m = rx.match(message)
        if m:
            values = {k: _value_text(k, v, depth) for k, v in m.groupdict().items()}
            return _current.gettext(msgid).format(**values)
    return message
