"""Snapshot tests: the UI's screens as text at 60x18, 80x24, 120x40, 200x50 and 200x60, in
English and French (lobby, a table of each variant mid-round, help, history, score
sheet, result). Golden files live in ``tests/snapshots/``; regenerate them with
``RAMI_LAN_UPDATE_SNAPSHOTS=1 pytest tests/cli/test_ui_snapshots.py`` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import ui_scenes

pytestmark = pytest.mark.usefixtures("ui_env")

SNAPSHOTS = Path(__file__).parents[1] / "snapshots"
UPDATE = bool(os.environ.get("RAMI_LAN_UPDATE_SNAPSHOTS"))
SCENES = ui_scenes.scenes()


@pytest.mark.parametrize("name", sorted(SCENES))
def test_snapshot(name: str) -> None:
    render = SCENES[name]
    problems = []
    for w, h in ui_scenes.SIZES:
        text = render(w, h)
        rows = text.rstrip("\n").split("\n")
        assert len(rows) <= h, f"{name} at {w}x{h}: {len(rows)} rows"
        assert all(len(r) <= w for r in rows), f"{name} at {w}x{h}: a row is too wide"
        path = SNAPSHOTS / f"{name}-{w}x{h}.txt"
        if UPDATE:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            continue
        assert path.is_file(), f"missing {path.name}: run with RAMI_LAN_UPDATE_SNAPSHOTS=1"
        if path.read_text(encoding="utf-8") != text:
            problems.append(path.name)
    assert not problems, f"screens changed: {problems} (RAMI_LAN_UPDATE_SNAPSHOTS=1 to accept)"
