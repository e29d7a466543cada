"""Joining a table with our "Info joueur" card: the network session never opens the
statistics database (`rami_lan.net.client`); the cli hands it `rami_lan.stats.card_source`.
"""

from __future__ import annotations

from typing import Any

from rami_lan.stats import card_source


async def open_session_with_card(host: str, port: int, *, nickname: str, **options: Any) -> Any:
    """`rami_lan.net.client.open_session`, sending our card from the local statistics
    (unless ``card`` is given; a bot sends none)."""
    from rami_lan.net.client import open_session

    options.setdefault("card", card_source(nickname, options.get("player_id")))
    return await open_session(host, port, nickname=nickname, **options)
