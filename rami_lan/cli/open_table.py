"""`open_table(config, owner)`: the one way a table is opened on this machine.

``rami-lan host``, ``rami-lan solo`` and the lobby's "New table" and "Solo" all call it,
so every table gets the same things: the owner's nickname on the table and its ad, a
crash journal (``host --resume`` brings any of them back), a match record (for
``rami-lan verify``), the interfaces of ``--interface`` or ``$RAMI_LAN_INTERFACES``, and
the options chosen (quick included). The owner then plays through a client session on
the loopback address, like any other player (``TableHost.owner_token`` holds its seat).

`table_config` fills those defaults into a `TableConfig`; `solo_config` is a table that
is not advertised and listens on 127.0.0.1 only, with bots on every other seat.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from rami_lan.ids import BOT_LEVELS, DEFAULT_BOT_LEVEL, env_interfaces
from rami_lan.table.config import TableConfig

__all__ = ["OpenTable", "Owner", "journal_dir", "local_owner",
           "open_table", "records_dir", "solo_config", "table_config"]



@dataclass(frozen=True)
class Owner:
    """The player who opens the table (and plays its first seat unless headless)."""

    nickname: str
    lang: str = "en"
    player_id: str | None = None


def local_owner(nickname: str | None = None) -> Owner:
    """The player of this machine: ``nickname`` if given, else the saved one."""
    from rami_lan.cli.settings import clean_nickname, load_settings
    from rami_lan.i18n import language
    from rami_lan.profile import localized_nickname

    settings = load_settings()
    nick = clean_nickname(nickname or "") or localized_nickname(settings.nickname)
    player_id = None
    try:
        from rami_lan.profile import load_profile

        player_id = load_profile().player_id
    except Exception:  # noqa: BLE001 - no profile: the table still opens
        player_id = None
    return Owner(nick, language(), player_id)


def journal_dir() -> Path:
    """Where hosts keep their crash journals (``rami_lan.paths.journal_dir``); journals of
    tables abandoned for ``journal.GRACE`` are removed first."""
    from rami_lan.net.journal import prune_journals
    from rami_lan.paths import journal_dir as folder

    path = folder()
    prune_journals(path)
    return path


def records_dir() -> Path:
    """Where match records are written (``rami-lan verify`` reads them)."""
    from rami_lan.paths import data_dir

    return data_dir() / "records"


def humans_at(fields: dict[str, Any]) -> int:
    """How many human seats a table of these settings has (the host's own player too)."""
    seats = int(fields.get("seats", 4))
    return seats - len(fields.get("bots") or {})


def table_config(owner: Owner, **fields: Any) -> TableConfig:
    """A `TableConfig` with this machine's defaults for whatever ``fields`` leaves out."""
    fields.setdefault("host_nickname", owner.nickname)
    if fields.get("private_deal") is None:  # issue 15: the default with two or more humans
        fields["private_deal"] = humans_at(fields) >= 2
    fields.setdefault("journal_dir", journal_dir())
    fields.setdefault("record_dir", records_dir())
    if fields.get("interfaces") in (None, "all"):
        fields["interfaces"] = env_interfaces()
    return TableConfig(**fields)


def solo_config(owner: Owner, *, variant: str = "rami", players: int = 2,
                level: str = DEFAULT_BOT_LEVEL, bots: dict[int, str] | None = None,
                **fields: Any) -> TableConfig:
    """A solo table: you at seat 0, bots everywhere else; not advertised, loopback only."""
    from rami_lan.core.variants import get_variant

    if level not in BOT_LEVELS:
        raise ValueError(f"bot level must be one of {', '.join(BOT_LEVELS)}, not {level!r}")
    v = get_variant(variant)
    fields["knock"] = bool(fields.get("knock")) and v.knock_supported
    fields["quick"] = bool(fields.get("quick")) and bool(v.quick_rounds)
    fields.setdefault("name", "Solo")
    return table_config(
        owner, variant=v.id, seats=players,
        bots=bots if bots is not None else {s: level for s in range(1, players)},
        advertise=False, interfaces=["127.0.0.1"], **fields)


@dataclass
class OpenTable:
    """A table opened here: its host, and the owner's seat (None when headless)."""

    host: Any
    session: Any
    port: int

    async def close(self) -> None:
        if self.session is not None:
            await self.session.close()
        await self.host.stop()


async def open_table(config: TableConfig, owner: Owner | None, *, host: Any = None,
                     announce: Callable[[Any, int], None] | None = None,
                     **session_options: Any) -> OpenTable:
    """Start the table of ``config`` and seat ``owner`` at it (unless headless).

    ``host``: a host already built (``TableHost.resume``); ``announce(host, port)`` is
    called once it listens, before the owner connects.
    """
    from rami_lan.net.client import open_session
    from rami_lan.net.host import TableHost

    if host is None:
        if owner is not None and config.host_nickname != owner.nickname:
            config = replace(config, host_nickname=owner.nickname)
        host = TableHost(config)
    config = host.config
    port = await host.start()
    if announce is not None:
        announce(host, port)
    if owner is None or config.headless:
        return OpenTable(host, None, port)
    local = "127.0.0.1" if config.interfaces == "all" else config.interfaces[0]
    if owner.player_id is not None:
        session_options.setdefault("player_id", owner.player_id)
    from rami_lan.stats import card_source  # our card, from the local statistics

    session_options.setdefault("card", card_source(owner.nickname, owner.player_id))
    try:
        session = await open_session(
            local, port, nickname=owner.nickname, lang=owner.lang, token=host.owner_token,
            code=config.join_code, fingerprint=host.fingerprint, **session_options)
    except BaseException:
        await host.stop()
        raise
    return OpenTable(host, session, port)
