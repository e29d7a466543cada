"""``rami-lan host``, ``rami-lan solo`` and the lobby's New table and Solo open the same
table: one `open_table(config, owner)`, the same owner nickname, journal, record folder,
interfaces ($RAMI_LAN_INTERFACES honoured) and options (quick).

Each path is run for real up to `open_table`, which records what it was given; then one
table is really opened on loopback to check the host carries those settings through.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any

import pytest
from aio_helpers import until

from rami_lan.cli import cmd_host, cmd_solo
from rami_lan.cli import open_table as OT
from rami_lan.cli.settings import Settings, save_settings


class _Stop(OSError):
    """Stops a command once it has called open_table."""


@pytest.fixture
def opened(ui_env: None, monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, Any]]:
    monkeypatch.setenv("RAMI_LAN_INTERFACES", "127.0.0.1")
    monkeypatch.setenv("RAMI_LAN_NO_BROWSE", "1")
    save_settings(Settings(nickname="Tester"))
    calls: list[tuple[Any, Any]] = []

    async def recorder(config: Any, owner: Any, **kw: Any) -> Any:
        calls.append((config, owner))
        raise _Stop("recorded")

    monkeypatch.setattr(OT, "open_table", recorder)
    return calls


def _args(module: Any, argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    module.add_arguments(p)
    return p.parse_args(argv)


def _lobby(quick: bool, solo: bool) -> None:
    from rami_lan.cli.ui.lobby import Lobby
    from rami_lan.cli.ui.shell import Shell

    async def main() -> None:
        lobby = Lobby(Shell(), Settings(nickname="Tester"), browser_factory=None,
                      presence=False, solo_think=0)
        # Solo has its own form (variant, seats, levels: issue 17); a table, the new-table one
        vals = (lobby.solo_form if solo else lobby.new_form).values
        vals["variant"], vals["seats"] = "500", 2
        vals["seat1"] = "moyen"
        vals["limit"] = "quick" if quick else None
        with pytest.raises(_Stop):
            await (lobby._open_solo() if solo else lobby._open_table())

    asyncio.run(main())


def test_every_way_of_opening_a_table_gives_the_same_table(opened: list) -> None:
    assert cmd_host.run(_args(cmd_host, ["--variant", "500", "--seats", "2", "--quick",
                                         "--bot", "2=moyen", "--no-advertise"])) == 1
    assert cmd_solo.run(_args(cmd_solo, ["--variant", "500", "--quick"])) == 2
    _lobby(quick=True, solo=False)
    _lobby(quick=True, solo=True)
    (host, _), (solo, _), (lobby, _), (lobby_solo, _) = opened
    owners = {o.nickname for _, o in opened if o is not None}
    assert owners == {"Tester"}  # host's owner is seated by its own command
    for c in (host, solo, lobby, lobby_solo):
        assert c.host_nickname == "Tester"
        assert c.journal_dir == OT.journal_dir() and c.record_dir == OT.records_dir()
        assert c.quick and c.variant == "500"
    # $RAMI_LAN_INTERFACES for LAN tables; solo tables are on loopback only, unadvertised.
    assert host.interfaces == lobby.interfaces == ["127.0.0.1"]
    assert solo.interfaces == lobby_solo.interfaces == ["127.0.0.1"]
    assert not solo.advertise and not lobby_solo.advertise


def test_an_opened_table_keeps_the_owner_journal_and_record(ui_env: None, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    monkeypatch.setenv("RAMI_LAN_INTERFACES", "127.0.0.1")
    owner = OT.Owner("Tester", "en")
    config = OT.solo_config(owner, variant="rami", players=2, limit=1, bot_delay=0)

    async def main() -> None:
        table = await OT.open_table(config, owner)
        try:
            await until(lambda: table.session.view is not None, timeout=10, what="the first view")
            assert table.host.config.host_nickname == "Tester"
            assert table.session.players[0]["nick"] == "Tester"
            assert table.host.journal_path is not None and table.host.journal_path.exists()
            assert table.host.journal_path.parent == OT.journal_dir()
        finally:
            await table.close()

    asyncio.run(main())


