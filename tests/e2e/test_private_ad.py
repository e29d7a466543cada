"""Issue 24 item 8 (part): the advertisement, ``rami-lan list`` (and ``--json``), the lobby
and the host / join output say whether a table deals privately."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from aio_helpers import read_host_port, run, start_host_process

from rami_lan.cli.cmd_list import table_json, table_line
from rami_lan.i18n import set_language
from rami_lan.net.discovery import TableAd

ROOT = Path(__file__).resolve().parents[2]


def _ad(**kw: object) -> TableAd:
    base: dict = dict(table_id="ab00112233445566", name="Chez Lou", host="Lou", variant="rami",
                      seats_taken=1, seats_total=2, point_limit=100)
    return TableAd(**{**base, **kw})


def test_the_txt_record_carries_private_dealing() -> None:
    ad = _ad(private_deal=True)
    txt = ad.to_txt()
    assert txt["pd"] == "1"
    props = {k.encode(): v.encode() for k, v in txt.items()}
    assert TableAd.from_txt(props).private_deal is True
    assert TableAd.from_txt({**props, b"pd": b"0"}).private_deal is False
    older = {k: v for k, v in props.items() if k != b"pd"}  # a host before this key
    assert TableAd.from_txt(older).private_deal is False
    with pytest.raises(ValueError):
        TableAd.from_txt({**props, b"pd": b"yes"})


def test_list_says_private_deal(english: None) -> None:
    assert "private deal" in table_line(_ad(private_deal=True))
    assert "private deal" not in table_line(_ad())
    assert table_json(_ad(private_deal=True))["private_deal"] is True
    set_language("fr")
    try:
        assert "donne privée" in table_line(_ad(private_deal=True))
    finally:
        set_language("en")


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "LANG": "C",
            "RAMI_LAN_CONFIG_DIR": str(tmp_path / "cfg"), "RAMI_LAN_DATA_DIR": str(tmp_path / "data")}


async def _host_list_join(tmp_path: Path) -> tuple[list[str], list[dict], str]:
    name = f"Private {os.getpid()}"
    host = start_host_process(_env(tmp_path), "--name", name, "--seats", "2", "--private-deal",
                              "--interface", "127.0.0.1")
    lines: list[str] = []
    try:
        loop = asyncio.get_running_loop()
        port = await read_host_port(host)
        assert host.stdout is not None
        for _ in range(2):  # (the port's line was read)
            lines.append(await asyncio.wait_for(loop.run_in_executor(None, host.stdout.readline), 10))
        out = await loop.run_in_executor(None, lambda: subprocess.run(
            [sys.executable, "-m", "rami_lan.cli.main", "list", "--json", "--timeout", "2"],
            env=_env(tmp_path), capture_output=True, text=True, timeout=30))
        tables = [t for t in json.loads(out.stdout) if t["name"] == name]
        joiner = subprocess.Popen(
            [sys.executable, "-m", "rami_lan.cli.main", "join", f"127.0.0.1:{port}", "--bot",
             "debutant"], env=_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert joiner.stdout is not None
            joined = ""
            while "Private dealing" not in joined:
                line = await asyncio.wait_for(loop.run_in_executor(None, joiner.stdout.readline), 20)
                assert line, joiner.stderr.read() if joiner.stderr else ""
                joined += line
        finally:
            joiner.kill()
            joiner.communicate(timeout=10)
        return lines, tables, joined
    finally:
        host.kill()
        host.communicate(timeout=10)


def test_host_list_and_join_say_the_table_deals_privately(tmp_path: Path) -> None:
    lines, tables, joined = run(_host_list_join(tmp_path), 60)
    assert any("Private dealing: on" in line for line in lines), lines
    assert tables and tables[0]["private_deal"] is True
    assert "Private dealing: on" in joined


def test_the_lobby_says_which_table_deals_privately(ui_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from test_ui_lobby import FakeBrowser, lobby_app, text
    from ui_helpers import running, until

    monkeypatch.setenv("RAMI_LAN_NO_BROWSE", "1")

    async def main() -> None:
        browser = FakeBrowser([_ad(private_deal=True), _ad(table_id="cd00112233445566", name="Plain")])
        box: list = []
        async with running(lobby_app(browser, box), timeout=20) as d:
            _shell, lobby = box
            await until(lambda: "Plain" in text(lobby))
            rows = text(lobby).splitlines()
            assert "private" in next(r for r in rows if "Chez Lou" in r)
            assert "private" not in next(r for r in rows if "Plain" in r)
            d.keys("q")

    asyncio.run(main())
