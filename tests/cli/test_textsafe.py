"""Foreign text is printable and bounded before it reaches a terminal or a log."""

from rami_lan.textsafe import clip, safe_name, safe_text


def test_escape_sequences_are_removed() -> None:
    out = safe_text("evil\x1b[2J\x07name")
    assert "\x1b" not in out and "\x07" not in out
    assert out.startswith("evil") and out.endswith("name")


def test_long_text_is_clipped_with_ellipsis() -> None:
    out = safe_text("x" * 100_000, 50)
    assert len(out) == 50 and out.endswith("…")


def test_bytes_and_objects_are_bounded() -> None:
    assert len(clip(b"\x00" * 10_000, 40)) <= 40
    assert len(clip(list(range(100_000)), 40)) <= 40


def test_names_are_stripped_with_fallback() -> None:
    assert safe_name("  paul\n ") == "paul"
    assert safe_name("\x1b\x1b") == "?"
    assert safe_name(12) == "?"
    assert len(safe_name("a" * 500)) == 24
