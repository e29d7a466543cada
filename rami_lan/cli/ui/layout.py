"""Rows of formatted text: cut, pad, put side by side (the table screen's 2-D layout).

A row is a list of fragments ``(style, text[, mouse handler])`` without newlines.
Everything here counts one cell per character (the UI only uses single-width
characters: card suits, box drawing, Latin text).
"""

from __future__ import annotations

import textwrap

from rami_lan.cli.ui.text import Fragment

Row = list[Fragment]


def split_rows(frags: list[Fragment]) -> list[Row]:
    """Fragments with ``"\\n"`` line breaks -> rows."""
    rows: list[Row] = [[]]
    for f in frags:
        text = f[1]
        if "\n" not in text:
            if text:
                rows[-1].append(f)
            continue
        parts = text.split("\n")
        for i, part in enumerate(parts):
            if i:
                rows.append([])
            if part:
                rows[-1].append((f[0], part, *f[2:]))
    if not rows[-1]:
        rows.pop()
    return rows


def row_len(row: Row) -> int:
    return sum(len(f[1]) for f in row)


def clip(row: Row, width: int) -> Row:
    """``row`` cut to ``width`` cells."""
    out: Row = []
    room = width
    for f in row:
        if room <= 0:
            break
        text = f[1]
        if len(text) > room:
            text = text[:room]
        out.append((f[0], text, *f[2:]))
        room -= len(text)
    return out


def pad(row: Row, width: int, style: str = "") -> Row:
    """``row`` cut or padded with spaces to exactly ``width`` cells."""
    out = clip(row, width)
    n = row_len(out)
    if n < width:
        out = [*out, (style, " " * (width - n))]
    return out


def hjoin(blocks: list[tuple[list[Row], int]], gap: int = 1) -> list[Row]:
    """Blocks of rows side by side; each block is padded to its width."""
    height = max((len(rows) for rows, _w in blocks), default=0)
    out: list[Row] = []
    for i in range(height):
        row: Row = []
        for k, (rows, w) in enumerate(blocks):
            if k:
                row.append(("", " " * gap))
            row += pad(rows[i] if i < len(rows) else [], w)
        out.append(row)
    return out


def join_rows(rows: list[Row], width: int) -> list[Fragment]:
    """Rows -> fragments with newlines, each row cut to ``width``."""
    out: list[Fragment] = []
    for i, row in enumerate(rows):
        if i:
            out.append(("", "\n"))
        row = clip(row, width)
        while row and not row[-1][0] and len(row[-1]) == 2 and not row[-1][1].strip():
            row.pop()  # trailing blank padding: nothing to draw (fewer cells per frame)
        out += row
    return out


def wrap_text(text: str, width: int) -> list[str]:
    """``text`` wrapped at word boundaries (never inside a word that fits a line)."""
    if not text:
        return [""]
    return textwrap.wrap(text, max(8, width), break_on_hyphens=False) or [""]


def wrap_items(items: list[Row], width: int, gap: int = 1, indent: int = 0) -> list[Row]:
    """Items (each a row, never broken) laid left to right, wrapping at ``width``."""
    rows: list[Row] = [[]]
    col = 0
    for item in items:
        w = row_len(item)
        if col and col + gap + w > width:
            rows.append([("", " " * indent)] if indent else [])
            col = indent
        elif col:
            rows[-1].append(("", " " * gap))
            col += gap
        rows[-1] += item
        col += w
    return rows if rows[0] or len(rows) > 1 else []
