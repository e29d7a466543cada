"""Fixtures shared by several test modules; each module opts in with
``pytestmark = pytest.mark.usefixtures(...)``. Two apply to every test: the log folder is
the test's own, and ``$RAMI_LAN_INTERFACES`` is ``127.0.0.1`` for the whole session, so no
test (nor any process it starts) can multicast on the machine's network by forgetting it."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

# Before any rami_lan import: this test run's tables and players live under their own
# DNS-SD types (``_rami-<tag>._tcp``), so parallel workers, or two test runs on one
# machine, never see each other's tables on loopback. Child processes inherit it.
# An xdist worker inherits its controller's environment: each worker draws its own tag.
if os.environ.get("PYTEST_XDIST_WORKER") or "RAMI_LAN_MDNS_TAG" not in os.environ:
    os.environ["RAMI_LAN_MDNS_TAG"] = secrets.token_hex(2)[:3]

from rami_lan.i18n import set_language  # noqa: E402

LOOPBACK_ONLY = "127.0.0.1"
"""``$RAMI_LAN_INTERFACES`` during the test session (the network rule of TESTING.md)."""


@pytest.fixture(autouse=True, scope="session")
def _loopback_only() -> Iterator[None]:
    """mDNS and tables on loopback only, for every test and every child process (a test
    may still change it with ``monkeypatch``; it comes back for the next one)."""
    before = os.environ.get("RAMI_LAN_INTERFACES")
    os.environ["RAMI_LAN_INTERFACES"] = LOOPBACK_ONLY
    yield
    if before is None:
        os.environ.pop("RAMI_LAN_INTERFACES", None)
    else:
        os.environ["RAMI_LAN_INTERFACES"] = before


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
