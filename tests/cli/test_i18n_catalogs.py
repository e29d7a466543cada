"""The compiled catalogues match their sources, and every string a player reads (as Babel
extracts it from the source) has its French."""

from __future__ import annotations

import shutil
from pathlib import Path

from babel.messages.extract import extract_from_dir

import rami_lan
from rami_lan import i18n, i18n_build

ROOT = Path(rami_lan.__file__).parent
KEYWORDS = {"_": None, "_n": None, "gettext": None, "ngettext": (1, 2), "N_": None}
"""The translation calls of the package (`rami_lan.i18n`)."""


def extracted(root: Path) -> list[tuple[str, int, str | tuple[str, ...]]]:
    """(file, line, msgid or (singular, plural)) of every translated literal under ``root``."""
    out = []
    for filename, lineno, message, _comments, _context in extract_from_dir(
        str(root), method_map=[("**.py", "python")], keywords=KEYWORDS
    ):
        if isinstance(message, tuple) and not all(message):
            continue  # a call on a variable, not a literal
        if message:
            out.append((filename, lineno, message))
    return out


def missing_french(root: Path, po: i18n_build.PoFile) -> list[tuple[str, int, str]]:
    """The extracted strings ``po`` does not translate (or only fuzzily)."""
    out = []
    for filename, lineno, message in extracted(root):
        if isinstance(message, tuple):
            forms = po.plurals.get(message[0])
            if not forms or not all(forms) or message[0] in po.fuzzy:
                out.append((filename, lineno, message[0]))
        elif not po.catalog.get(message) or message in po.fuzzy:
            out.append((filename, lineno, message))
    return out


def test_every_compiled_catalogue_matches_its_source() -> None:
    stale = i18n_build.stale()
    assert not stale, f"stale .mo files for {[p.name for p in stale]}: run python -m rami_lan.i18n_build"


def test_an_edited_source_makes_its_compiled_catalogue_stale_until_rebuilt(tmp_path, monkeypatch) -> None:
    locale = tmp_path / "locale"
    shutil.copytree(i18n_build.LOCALE, locale)
    monkeypatch.setattr(i18n_build, "LOCALE", locale)
    assert i18n_build.stale() == []
    po = locale / "fr" / "ui.po"
    po.write_text(po.read_text(encoding="utf-8") + '\nmsgid "Brand new"\nmsgstr "Tout neuf"\n',
                  encoding="utf-8")
    assert i18n_build.stale() == [po]
    assert i18n_build.main(["--check"]) == 1
    assert i18n_build.build() == [locale / "fr" / "LC_MESSAGES" / "ui.mo"]
    assert i18n_build.stale() == [] and i18n_build.main(["--check"]) == 0
    got = i18n_build._content((locale / "fr" / "LC_MESSAGES" / "ui.mo").read_bytes())[0]
    assert got["Brand new"] == "Tout neuf"
    (locale / "fr" / "LC_MESSAGES" / "net.mo").unlink()  # a missing one is stale too
    assert i18n_build.stale() == [locale / "fr" / "net.po"]


def test_one_source_compiles_to_the_same_bytes() -> None:
    po = i18n_build.sources("fr")[0]
    assert i18n_build.compile_po(po) == i18n_build.compile_po(po)


def test_the_french_is_loaded_from_the_compiled_catalogues() -> None:
    i18n.set_language("fr")
    try:
        assert i18n._("Discard") == "Jeter"
        assert i18n._("") == ""  # not a catalogue's header
        assert i18n.ngettext("{n} card", "{n} cards", 0).format(n=0) == "0 carte"
        assert i18n.ngettext("{n} card", "{n} cards", 2).format(n=2) == "2 cartes"
        # a msgid in two components: the later file's (ui.po after net.po), as before
        assert i18n._("{nick}'s table") == i18n_build.read_po(i18n_build.LOCALE / "fr" / "ui.po").catalog[
            "{nick}'s table"]
    finally:
        i18n.set_language("en")


def test_every_string_a_player_reads_has_its_french() -> None:
    found = extracted(ROOT)
    assert len(found) > 500 and any(f.endswith("messages.py") for f, _l, _m in found)
    missing = missing_french(ROOT, i18n_build.load_po("fr"))
    assert not missing, "add these to rami_lan/locale/fr/*.po:\n" + "\n".join(
        f"  {f}:{line}: {m!r}" for f, line, m in missing)


def test_a_string_without_french_is_found(tmp_path) -> None:
    (tmp_path / "screen.py").write_text(
        'from rami_lan.i18n import _, ngettext\n'
        'A = _("Discard")\n'
        'B = _("A sentence nobody translated")\n'
        'C = ngettext("{n} card", "{n} cards", 2)\n'
        'D = ngettext("{n} ghost", "{n} ghosts", 2)\n'
        'E = _(A)\n', encoding="utf-8")
    missing = missing_french(tmp_path, i18n_build.load_po("fr"))
    assert [(line, m) for _f, line, m in missing] == [(3, "A sentence nobody translated"), (5, "{n} ghost")]
