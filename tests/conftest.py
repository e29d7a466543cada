"""Fixtures shared by several test modules; each module opts in with
``pytestmark = pytest.mark.usefixtures(...)`` (none is applied to every test)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from rami_lan.i18n import set_language


@pytest.fixture(autouse=True)
def _private_log_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test writes to the user's real log folder (``main()`` sets logging up)."""
    monkeypatch.setenv("RAMI_LAN_LOG_DIR", str(tmp_path_factory.getbasetemp() / "logs"))


@pytest.fixture
def isolated_config(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The host's TLS identity goes to a test folder, not the user's config."""
    monkeypatch.setenv("RAMI_LAN_CONFIG_DIR", str(tmp_path_factory.getbasetemp() / "config"))


@pytest.fixture
def english() -> Iterator[None]:
    """The UI speaks English during the test, and after it."""
    set_language("en")
    yield
    set_language("en")


@pytest.fixture
def ui_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, english: None) -> None:
    """English, with settings, profile and statistics in the test's own folder."""
    monkeypatch.setenv("RAMI_LAN_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("RAMI_LAN_DATA_DIR", str(tmp_path))
