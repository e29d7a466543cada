"""A registration's credentials on the player's disk, so a relaunched ``join`` comes back.

Once registered, ``rami-lan join`` keeps, in ``data_dir()/tournaments/<tournament id>.json``
(folder 0700, file 0600, written atomically): the tournament id, the address it reached the
organiser at, the certificate fingerprint it saw, its ``t_welcome`` token, entrant number
and nickname, and its contribution to the draw (so the relaunched client still checks
that the draw holds it). A relaunched ``join`` at the same address sends ``t_hello`` with
the token and is sent what it missed (the draw, the standings, its table, where its seat
is kept by `rami_lan.net.seats` as at any table). The file goes when the tournament is
over, or when the organiser no longer knows the token. A malformed or stale file is
skipped: it never stops ``join``.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Final

__all__ = ["Registration", "TournamentStore"]

MAX_AGE: Final = 2 * 24 * 3600.0
_HEX32 = re.compile(r"[0-9a-f]{32}")
_HEX64 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class Registration:
    tournament_id: str
    host: str
    port: int
    fingerprint: str
    token: str
    no: int
    nick: str
    """The nickname asked for (the organiser's may differ: made unique)."""
    contribution: str
    saved_at: float = 0.0

    def __post_init__(self) -> None:
        if not _HEX32.fullmatch(self.tournament_id) or not _HEX32.fullmatch(self.token):
            raise ValueError("tournament id and token: 32 hex digits")
        if not _HEX64.fullmatch(self.contribution):
            raise ValueError("contribution: 64 hex digits")
        if self.fingerprint and not _HEX64.fullmatch(self.fingerprint):
            raise ValueError("fingerprint: 64 hex digits")
        if type(self.port) is not int or not 1 <= self.port <= 65535:
            raise ValueError("port: 1 to 65535")
        if type(self.no) is not int or not isinstance(self.nick, str) or len(self.nick) > 64:
            raise ValueError("entrant: a number and a nickname")
        if not isinstance(self.host, str) or not 0 < len(self.host) <= 255:
            raise ValueError("host: an address")

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"


class TournamentStore:
    """This player's registrations (``folder``: default ``data_dir()/tournaments``)."""

    def __init__(self, folder: Path | None = None) -> None:
        if folder is None:
            from rami_lan.paths import data_dir

            folder = data_dir() / "tournaments"
        self.folder = Path(folder)

    def save(self, reg: Registration) -> None:
        from rami_lan.fsutil import atomic_write
        from rami_lan.paths import private_dir

        private_dir(self.folder)
        data = asdict(reg)
        data["saved_at"] = time.time()
        atomic_write(self.folder / f"{reg.tournament_id}.json", json.dumps(data))

    def remove(self, tournament_id: str) -> None:
        if _HEX32.fullmatch(tournament_id):
            with contextlib.suppress(OSError):
                (self.folder / f"{tournament_id}.json").unlink()

    def find(self, host: str, port: int, nick: str) -> Registration | None:
        """The registration made at ``host:port`` under ``nick`` (the newest), if any."""
        found: list[Registration] = []
        for path in self.folder.glob("*.json") if self.folder.is_dir() else ():
            try:
                if path.stat().st_size > 4096:
                    raise ValueError("too large")
                reg = Registration(**json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError, TypeError):
                with contextlib.suppress(OSError):
                    path.unlink()
                continue
            if time.time() - reg.saved_at > MAX_AGE:
                self.remove(reg.tournament_id)
                continue
            if (reg.host, reg.port, reg.nick) == (host, port, nick[:64]):
                found.append(reg)
        return max(found, key=lambda r: r.saved_at) if found else None
