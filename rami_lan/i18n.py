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
from importlib import resources

SUPPORTED = ("en", "fr")
_current: gettext.NullTranslations = gettext.NullTranslations()
_lang = "en"


class _PoTranslations(gettext.NullTranslations):
    def __init__(self, catalog: dict[str, str]) -> None:
        super().__init__()
        self._catalog = catalog

    def gettext(self, message: str) -> str:
        return self._catalog.get(message) or message

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return self.gettext(msgid1 if n == 1 else msgid2)


def parse_po(text: str) -> dict[str, str]:
    """Parse the msgid/msgstr pairs of a .po file (multi-line strings supported)."""
    catalog: dict[str, str] = {}
    key: str | None = None
    cur: list[str] = []
    msgid = ""

    def flush() -> None:
        nonlocal msgid
        if key == "msgid":
            msgid = "".join(cur)
        elif key == "msgstr" and msgid:
            catalog[msgid] = "".join(cur)

    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("msgid "):
            flush()
            key, cur = "msgid", [ast.literal_eval(line[6:])]
        elif line.startswith("msgstr "):
            flush()
            key, cur = "msgstr", [ast.literal_eval(line[7:])]
        elif line.startswith('"'):
            cur.append(ast.literal_eval(line))
    flush()
    return catalog


def load_catalog(lang: str) -> dict[str, str]:
    catalog: dict[str, str] = {}
    if lang == "en":
        return catalog
    folder = resources.files("rami_lan") / "locale" / lang
    if not folder.is_dir():
        return catalog
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if entry.name.endswith(".po"):
            catalog.update(parse_po(entry.read_text(encoding="utf-8")))
    return catalog


def detect_language(environ: dict[str, str] | None = None) -> str:
    env = os.environ if environ is None else environ
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
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
    _current = _PoTranslations(load_catalog(lang))
    return lang


def language() -> str:
    return _lang


def _(message: str) -> str:
    """Translate ``message`` into the current language."""
    return _current.gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return _current.ngettext(singular, plural, n)


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

    The core is pure and speaks English; players read French where chosen. A message is
    matched against the templates of ``rules.po``; the values in it are translated in
    turn (a nested reason) or kept (cards, numbers).
    """
    if _lang == "en" or depth > 4:
        return message
    direct = _current.gettext(message)
    if direct != message:
        return direct
    for rx, msgid in _templates():
        m = rx.match(message)
        if m:
            values = {k: translate_message(v, depth + 1) for k, v in m.groupdict().items()}
            return _current.gettext(msgid).format(**values)
    return message
