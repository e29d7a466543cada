"""The translation catalogues' build: the ``.po`` sources compiled to the ``.mo`` files the
package ships and `rami_lan.i18n` loads with the standard library's `gettext`.

Sources: ``rami_lan/locale/<lang>/<component>.po`` (English msgids; one file per
component, new entries appended at the end). Compiled: ``rami_lan/locale/<lang>/
LC_MESSAGES/<component>.mo``. After editing or merging a ``.po`` file, recompile:

    python -m rami_lan.i18n_build            # write every .mo that differs from its .po
    python -m rami_lan.i18n_build --check    # list the stale ones; exit status 1 if any

Babel reads the sources (``Plural-Forms`` from each catalogue's header) and writes the
``.mo`` files; it is needed to build and to check, not to play. `read_po` / `load_po`
give a source catalogue (or a language's, merged as at run time) as plain dicts, for
the tests that read the French.
"""

from __future__ import annotations

import argparse
import gettext
import io
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po as babel_read_po

LOCALE = Path(__file__).parent / "locale"
"""The catalogues' folder inside the package."""
FIXED_DATE = datetime(2000, 1, 1, tzinfo=UTC)
"""The dates written in a compiled header (so one source always compiles to one file)."""


@dataclass
class PoFile:
    """What a ``.po`` file holds: plain entries, plural entries and its plural rule."""

    catalog: dict[str, str] = field(default_factory=dict)
    plurals: dict[str, list[str]] = field(default_factory=dict)
    """msgid (singular) -> msgstr[0], msgstr[1], ..."""
    plural_forms: str = ""
    """The header's ``Plural-Forms`` value (``nplurals=2; plural=(n > 1);``)."""
    fuzzy: list[str] = field(default_factory=list)
    """msgids marked fuzzy (not compiled)."""


def sources(lang: str | None = None) -> list[Path]:
    """Every ``.po`` source (of ``lang``, or of every language), in load order."""
    langs = [LOCALE / lang] if lang else sorted(p for p in LOCALE.iterdir() if p.is_dir())
    return [po for d in langs for po in sorted(d.glob("*.po"))]


def mo_path(po: Path) -> Path:
    """Where the compiled form of the source ``po`` lives."""
    return po.parent / "LC_MESSAGES" / (po.stem + ".mo")


def _catalog(source: Path | str, lang: str):  # -> babel.messages.catalog.Catalog
    data = source.read_bytes() if isinstance(source, Path) else source.encode("utf-8")
    return babel_read_po(io.BytesIO(data), locale=lang)


def read_po(source: Path | str, lang: str = "fr") -> PoFile:
    """A source catalogue (a path, or the text of one) as plain dicts."""
    cat = _catalog(source, lang)
    out = PoFile(plural_forms=cat.plural_forms)
    for m in cat:
        if not m.id:
            continue
        if m.fuzzy:
            out.fuzzy.append(m.id if isinstance(m.id, str) else m.id[0])
        if isinstance(m.id, str):
            out.catalog[m.id] = m.string if isinstance(m.string, str) else m.string[0]
        else:
            out.plurals[m.id[0]] = list(m.string)
    return out


def load_po(lang: str) -> PoFile:
    """Every source of ``lang`` merged as `rami_lan.i18n` merges their compiled forms (a
    msgid in two files: the later file's)."""
    merged = PoFile()
    for po in sources(lang):
        got = read_po(po, lang)
        merged.catalog.update(got.catalog)
        merged.plurals.update(got.plurals)
        merged.plural_forms = merged.plural_forms or got.plural_forms
        merged.fuzzy += got.fuzzy
    return merged


def compile_po(po: Path) -> bytes:
    """The ``.mo`` bytes of the source ``po`` (its language is its folder's name)."""
    cat = _catalog(po, po.parent.name)
    cat.creation_date = cat.revision_date = FIXED_DATE
    buf = io.BytesIO()
    write_mo(buf, cat)
    return buf.getvalue()


def _content(mo: bytes) -> tuple[dict, str]:
    """What a ``.mo`` says: its messages and its plural rule (not its other headers)."""
    t = gettext.GNUTranslations(io.BytesIO(mo))
    messages = {k: v for k, v in t._catalog.items() if k != ""}  # type: ignore[attr-defined]
    return messages, t.info().get("plural-forms", "")


def stale() -> list[Path]:
    """The sources whose ``.mo`` is missing or says something else."""
    out = []
    for po in sources():
        mo = mo_path(po)
        if not mo.is_file() or _content(mo.read_bytes()) != _content(compile_po(po)):
            out.append(po)
    return out


def build() -> list[Path]:
    """Compile every stale source; returns the ``.mo`` files written."""
    written = []
    for po in stale():
        mo = mo_path(po)
        mo.parent.mkdir(exist_ok=True)
        mo.write_bytes(compile_po(po))
        written.append(mo)
    return written


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Compile the translation catalogues (.po -> .mo).")
    p.add_argument("--check", action="store_true", help="only list the stale .mo files")
    args = p.parse_args(argv)
    if args.check:
        bad = stale()
        for po in bad:
            print(f"stale: {mo_path(po).relative_to(LOCALE.parent)} (run python -m rami_lan.i18n_build)")
        return 1 if bad else 0
    for mo in build():
        print(f"wrote {mo.relative_to(LOCALE.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
