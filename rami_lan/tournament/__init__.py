"""LAN tournaments, sans I/O: registration, the checkable draw of tables, stages of
tables to a final, standings and the tournament record (docs/tournament.md).

`machine.TournamentMachine` decides; `draw` and `ranking` are its pure computations;
`record.verify` re-checks a tournament record offline. The organiser's process (the
asyncio adapter that hosts every table) is `rami_lan.net.tournament_host`.
"""
