"""The table: one sans-I/O machine that every way of playing runs.

`TableMachine` (`machine.py`) is the table's authority: seating, the fair shuffle, the
deal, per-seat views, the move timer, bots, between-rounds answers, chat limits, the
journal and the record. Its inputs are method calls carrying ``now``; its outputs are
the frozen effects of `effects.py`. The asyncio host (`rami_lan.net.host`), solo play
(`rami_lan.cli.local_session`) and self-play (`rami_lan.table.selfplay`) are adapters around it.
`SeatVerifier` (`verifier.py`) is the other side: one seat's check of everything the
table sends (the fair shuffle as a protocol, and a full replay of each round).
"""

from rami_lan.table.config import TableConfig
from rami_lan.table.machine import Stage, TableMachine

__all__ = ["Stage", "TableConfig", "TableMachine"]
