"""`TournamentMachine`: one LAN tournament, sans I/O.

Theory of operation
-------------------
The machine holds every decision of a tournament and nothing else: no socket, clock,
file or randomness (the organiser's secret and the tournament id are given to it).

- **Registration.** `register` admits an entrant (nickname made unique, a 32-byte
  contribution to the draw) while registration is open; the organiser's `commitment`
  was published before (`rami_lan.tournament.draw`).
- **Start.** `start` closes registration, adds the bots that fill the first stage's
  tables (``fill_bots``), computes the seed from the secret and every contribution, and
  draws stage 1's tables.
- **Stages.** Each table plays one ordinary match. `table_done` takes its match record
  (and the record file's SHA-256); the table's ranking comes from the record alone
  (`rami_lan.tournament.ranking`); its best ``advance`` players (at most its size minus
  one) go on. Once every table of a stage is done, the players who went on are drawn
  into the next stage's tables; a stage of one table is the **final**: its winner wins.
- **Standings** (`standings`) at any moment: players still in, then the others by the
  stage they reached, their place at their last table, then 003's multi-table tie rule
  (laid points, then the cards left in hand), then the lot.
- **Record** (`to_record`): the draw's inputs (commitment, secret, entrants and their
  contributions), every table (its players, its match record's id and SHA-256, its
  ranking, who went on and why) and the standings. `rami_lan.tournament.record.verify`
  replays it through a new machine.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rami_lan.core.match import MatchOptions
from rami_lan.core.variants import get_variant
from rami_lan.ids import BOT_LEVELS, DEFAULT_BOT_LEVEL
from rami_lan.tournament.draw import (
    ID_LEN,
    SECRET_LEN,
    DrawEntrant,
    commitment,
    draw_seed,
    draw_tables,
    lot,
    table_sizes,
)
from rami_lan.tournament.ranking import SeatResult, lower_total_wins, rank, seat_results

__all__ = [
    "MAX_ENTRANTS",
    "TOURNAMENT_FORMAT",
    "Entrant",
    "RegistrationError",
    "Standing",
    "TableState",
    "TournamentConfig",
    "TournamentError",
    "TournamentMachine",
]

TOURNAMENT_FORMAT = "rami-lan-tournament"
TOURNAMENT_VERSION = 1
MAX_ENTRANTS = 64
MAX_NICK = 24
"""As a table's hello takes it (`rami_lan.net.protocol.MAX_NICK`)."""
_BOT_NICK = re.compile(r"Bot [0-9]+")
"""The nickname a table gives a bot seat (`rami_lan.table.machine`): no entrant takes one."""


class TournamentError(ValueError):
    """An input the tournament refuses; ``code`` names the reason for a program."""

    def __init__(self, code: str, text: str) -> None:
        super().__init__(text)
        self.code = code


class RegistrationError(TournamentError):
    """A registration refused (``closed``, ``full``, ``bad_contribution``, ``bad_nick``)."""


@dataclass(frozen=True)
class TournamentConfig:
    """The settings of a tournament, checked once."""

    name: str = "Tournoi"
    variant: str = "rami"
    table_size: int = 4
    """Seats of every table, 2 to 4 (tables are balanced: some may have one fewer)."""
    advance: int = 1
    """How many players of each table go on (at most the table's size minus one)."""
    limit: int | None = None
    quick: bool = False
    knock: bool = False
    timer: int = 0
    private_deal: bool = False
    fill_bots: bool = False
    """Add bots at the start so that every first-stage table is full."""
    bot_level: str = DEFAULT_BOT_LEVEL
    max_entrants: int = MAX_ENTRANTS

    def __post_init__(self) -> None:
        v = get_variant(self.variant)
        if not 2 <= self.table_size <= 4:
            raise ValueError(f"a table has 2 to 4 seats, not {self.table_size}")
        if not 1 <= self.advance <= 3:
            raise ValueError(f"1 to 3 players of a table go on, not {self.advance}")
        if self.bot_level not in BOT_LEVELS:
            raise ValueError(f"bot level must be one of {', '.join(BOT_LEVELS)}")
        if not 2 <= self.max_entrants <= MAX_ENTRANTS:
            raise ValueError(f"a tournament takes 2 to {MAX_ENTRANTS} entrants")
        if self.timer < 0:
            raise ValueError("the timer is a number of seconds, 0 for none")
        MatchOptions(self.limit, self.quick, self.knock).resolved(v)

    def to_plain(self) -> dict[str, Any]:
        return {"name": self.name, "variant": self.variant, "table_size": self.table_size,
                "advance": self.advance, "limit": self.limit, "quick": self.quick,
                "knock": self.knock, "timer": self.timer, "private_deal": self.private_deal,
                "fill_bots": self.fill_bots, "bot_level": self.bot_level,
                "max_entrants": self.max_entrants}

    @classmethod
    def from_plain(cls, data: Mapping[str, Any]) -> TournamentConfig:
        if not isinstance(data, Mapping):
            raise ValueError("the tournament's settings are not a map")
        known = cls().to_plain().keys()
        extra = set(data) - set(known)
        if extra:
            raise ValueError(f"unknown tournament setting {sorted(extra)[0]!r}")
        return cls(**{k: data[k] for k in known if k in data})


@dataclass(frozen=True)
class Entrant:
    """A registered player (``kind`` ``human``, or ``bot``: a table bot of the organiser)."""

    no: int
    nick: str
    kind: str
    contribution: bytes | None

    def to_plain(self) -> dict[str, Any]:
        return {"no": self.no, "nick": self.nick, "kind": self.kind,
                "contribution": None if self.contribution is None else self.contribution.hex()}


@dataclass
class TableState:
    """One table of one stage."""

    stage: int
    table: int
    players: list[int]
    """Entrant numbers, in the draw's order (a bot entrant sits at its index's seat)."""
    final: bool = False
    record_id: str | None = None
    """The table id of its match record (hex)."""
    record_sha256: str | None = None
    record_file: str | None = None
    seats: list[int] = field(default_factory=list)
    """Entrant number at each seat (from the match record)."""
    replaced: list[int] = field(default_factory=list)
    """Entrants whose seat a bot played (they never came, or left)."""
    ranking: list[dict[str, Any]] = field(default_factory=list)
    went_on: list[int] = field(default_factory=list)

    @property
    def done(self) -> bool:
        return self.record_sha256 is not None

    @property
    def label(self) -> str:
        return f"{self.stage}.{self.table}"

    def bot_seats(self, entrants: Mapping[int, Entrant]) -> dict[int, int]:
        """seat -> entrant number of the bot entrants (each at its index in the draw)."""
        return {i: no for i, no in enumerate(self.players) if entrants[no].kind == "bot"}

    def to_plain(self) -> dict[str, Any]:
        return {"stage": self.stage, "table": self.table, "players": list(self.players),
                "final": self.final, "record_id": self.record_id,
                "record_sha256": self.record_sha256, "record_file": self.record_file,
                "seats": list(self.seats), "replaced": list(self.replaced),
                "ranking": [dict(r) for r in self.ranking], "went_on": list(self.went_on)}


@dataclass(frozen=True)
class Standing:
    """One line of the standings."""

    place: int | None
    """None while the player is still in."""
    no: int
    nick: str
    kind: str
    status: str
    """``in`` (still playing), ``out``, ``winner``, ``final`` (played the final)."""
    stage: int
    """The last stage the player played (0: none yet)."""
    table_place: int | None
    why: str
    """The rule that put this player behind the one above (``first``, ``stage``,
    ``place``, or a rule of `rami_lan.tournament.ranking.RULES`)."""
    replaced: bool = False
    """A bot played this player's seat at some table."""

    def to_plain(self) -> dict[str, Any]:
        return {"place": self.place, "no": self.no, "nick": self.nick, "kind": self.kind,
                "status": self.status, "stage": self.stage, "table_place": self.table_place,
                "why": self.why, "replaced": self.replaced}


def _clean_nick(nick: str) -> str:
    text = " ".join("".join(ch if ch.isprintable() else " " for ch in str(nick)).split())
    return text[:MAX_NICK].strip()


def _seats_a_bot_played(record: Mapping[str, Any]) -> set[int]:
    """Seats that left the match, or whose moves the host's bot or timer made (the
    record's ``withdrawals`` and ``played_by``)."""
    out: set[int] = set()
    for rnd in record.get("rounds") or ():
        if not isinstance(rnd, dict):
            continue
        out.update(s for s in rnd.get("withdrawals") or () if type(s) is int)
        for action, by in zip(rnd.get("actions") or (), rnd.get("played_by") or (), strict=False):
            if by in ("bot", "timer") and isinstance(action, dict) and type(action.get("seat")) is int:
                out.add(action["seat"])
    return out


class TournamentMachine:
    """One tournament. ``secret``: the organiser's 32 random bytes; ``tournament_id``: 16."""

    def __init__(self, config: TournamentConfig, tournament_id: bytes, secret: bytes) -> None:
        if not isinstance(tournament_id, bytes) or len(tournament_id) != ID_LEN:
            raise ValueError(f"the tournament id is {ID_LEN} bytes")
        if not isinstance(secret, bytes) or len(secret) != SECRET_LEN:
            raise ValueError(f"the organiser's secret is {SECRET_LEN} bytes")
        self.config = config
        self.tournament_id = tournament_id
        self._secret = secret
        self.commitment = commitment(tournament_id, secret)
        self.entrants: dict[int, Entrant] = {}
        self.phase = "registration"
        self.seed: bytes | None = None
        self.stages: list[list[TableState]] = []
        self.next_no = 1
        """The number the next entrant gets (numbers are never reused)."""

    # ------------------------------------------------------------------ registration

    def register(self, nick: str, contribution: bytes | None, *, kind: str = "human") -> Entrant:
        """Admit an entrant; its nickname is made unique (and never a table bot's).

        ``contribution`` may come later (`contribute`: the registrant first receives the
        organiser's commitment); an entrant without one at the start is left out."""
        if self.phase != "registration":
            raise RegistrationError("closed", "registration is closed: the tournament started")
        if len(self.entrants) >= self.config.max_entrants:
            raise RegistrationError("full", f"the tournament is full ({self.config.max_entrants})")
        if contribution is not None:
            self._check_contribution(contribution)
        return self._add(nick, contribution, kind)

    @staticmethod
    def _check_contribution(contribution: object) -> None:
        if not isinstance(contribution, bytes) or len(contribution) != SECRET_LEN:
            raise RegistrationError("bad_contribution",
                                    f"a contribution to the draw is {SECRET_LEN} random bytes")

    def contribute(self, no: int, contribution: bytes) -> Entrant:
        """Entrant ``no``'s contribution to the draw (once, before the start)."""
        if self.phase != "registration":
            raise RegistrationError("closed", "registration is closed: the tournament started")
        e = self.entrants.get(no)
        if e is None or e.contribution is not None:
            raise RegistrationError("bad_contribution", "one contribution per entrant")
        self._check_contribution(contribution)
        e = self.entrants[no] = Entrant(e.no, e.nick, e.kind, contribution)
        return e

    @property
    def ready(self) -> int:
        """Human entrants whose contribution came (those the start keeps)."""
        return sum(1 for e in self.entrants.values()
                   if e.kind == "human" and e.contribution is not None)

    def _add(self, nick: str, contribution: bytes | None, kind: str) -> Entrant:
        base = _clean_nick(nick) or "Joueur"
        if _BOT_NICK.fullmatch(base):
            base = base.replace("Bot", "Bot_", 1)
        taken = {e.nick for e in self.entrants.values()}
        cand = base
        k = 2
        while cand in taken:
            suffix = f" {k}"
            cand = base[:MAX_NICK - len(suffix)] + suffix
            k += 1
        no = self.next_no
        self.next_no += 1
        entrant = Entrant(no, cand, kind, contribution)
        self.entrants[no] = entrant
        return entrant

    def unregister(self, no: int) -> bool:
        """An entrant leaves before the start (numbers of the others are kept)."""
        if self.phase != "registration" or no not in self.entrants:
            return False
        del self.entrants[no]
        return True

    @property
    def humans(self) -> int:
        return sum(1 for e in self.entrants.values() if e.kind == "human")

    # ------------------------------------------------------------------ the draw

    def start(self) -> list[TableState]:
        """Close registration, fill with bots, compute the seed, draw stage 1."""
        if self.phase != "registration":
            raise TournamentError("started", "the tournament has already started")
        cfg = self.config
        for no in [no for no, e in self.entrants.items()
                   if e.kind == "human" and e.contribution is None]:
            del self.entrants[no]  # registered, but never sent its contribution
        n = len(self.entrants)
        if cfg.fill_bots:
            size = cfg.table_size
            target = max(size, -(-n // size) * size)
            for i in range(min(target, cfg.max_entrants) - n):
                self._add(f"Robot {chr(ord('A') + i % 26)}{i // 26 or ''}", None, "bot")
        if len(self.entrants) < 2:
            raise TournamentError("too_few", "a tournament needs two players or more")
        self.phase = "playing"
        self.seed = draw_seed(self.tournament_id, self._secret, [
            DrawEntrant(e.no, e.nick, e.contribution) for e in self.entrants.values()])
        return self._draw(1, sorted(self.entrants))

    def _draw(self, stage: int, players: list[int]) -> list[TableState]:
        assert self.seed is not None
        tables = draw_tables(self.seed, stage, players, self.config.table_size)
        states = [TableState(stage, i + 1, t, final=len(tables) == 1)
                  for i, t in enumerate(tables)]
        self.stages.append(states)
        return states

    @property
    def current(self) -> list[TableState]:
        """The tables of the stage being played ([] before the start)."""
        return self.stages[-1] if self.stages else []

    def table(self, stage: int, table: int) -> TableState:
        for t in self.stages[stage - 1] if 1 <= stage <= len(self.stages) else ():
            if t.table == table:
                return t
        raise TournamentError("no_table", f"there is no table {stage}.{table}")

    # ------------------------------------------------------------------ results

    def table_done(self, stage: int, table: int, record: Mapping[str, Any], sha256: str,
                   file: str | None = None) -> list[TableState]:
        """A table's match is over: its record decides its ranking and who goes on.

        Returns the next stage's tables once this was the stage's last ([] otherwise,
        and at the final). Raises `TournamentError` for a record that does not belong.
        """
        t = self.table(stage, table)
        if t.done:
            raise TournamentError("done", f"table {t.label} is already done")
        if stage != len(self.stages):
            raise TournamentError("stage", f"table {t.label} is not of the stage being played")
        cfg = self.config
        if record.get("variant") != cfg.variant:
            raise TournamentError("variant", f"table {t.label}'s record is not of {cfg.variant}")
        if record.get("seats") != len(t.players):
            raise TournamentError("seats", f"table {t.label}'s record does not have "
                                  f"{len(t.players)} seats")
        try:
            results = seat_results(record)
        except ValueError as exc:
            raise TournamentError("record", f"table {t.label}: {exc}") from None
        t.seats, t.replaced = self._seat_map(t, results)
        for seat in _seats_a_bot_played(record):  # a player who left or dropped
            if 0 <= seat < len(t.seats):
                no = t.seats[seat]
                if self.entrants[no].kind == "human" and no not in t.replaced:
                    t.replaced = sorted([*t.replaced, no])
        by_seat = {r.seat: r for r in results}
        seed = self.seed
        assert seed is not None
        ranked = rank(results, cfg.variant, lambda r: lot(seed, stage, t.seats[r.seat]))
        t.ranking = [dict(by_seat[r.seat].to_plain(), no=t.seats[r.seat], place=i + 1, why=why)
                     for i, (r, why) in enumerate(ranked)]
        t.went_on = [] if t.final else [
            row["no"] for row in t.ranking[:min(cfg.advance, len(t.players) - 1)]]
        t.record_id = str(record.get("table_id", ""))
        t.record_sha256 = sha256
        t.record_file = file
        if not all(x.done for x in self.current):
            return []
        if t.final:
            self.phase = "over"
            return []
        going = sorted(no for x in self.current for no in x.went_on)
        return self._draw(stage + 1, going)

    def _seat_map(self, t: TableState, results: list[SeatResult]) -> tuple[list[int], list[int]]:
        """Entrant number at each seat. A bot entrant sits at its index in the draw; a
        human seat whose nickname is a drawn human's is theirs; the human seats left (a
        bot played them: the player never came, or left) go to the drawn humans left,
        both in order."""
        bots = t.bot_seats(self.entrants)
        seats: dict[int, int] = {}
        for seat, no in bots.items():
            if results[seat].kind != "bot":
                raise TournamentError("seats", f"table {t.label}: seat {seat + 1} is not a bot")
            seats[seat] = no
        humans = [no for no in t.players if self.entrants[no].kind == "human"]
        by_nick = {self.entrants[no].nick: no for no in humans}
        left: list[int] = []
        for r in results:
            if r.seat in seats:
                continue
            no = by_nick.pop(r.nick, None)
            if no is None:
                left.append(r.seat)
            else:
                seats[r.seat] = no
        missing = [no for no in humans if no in by_nick.values()]
        if len(missing) != len(left):
            raise TournamentError("seats", f"table {t.label}'s players are not the drawn ones")
        for seat, no in zip(left, missing, strict=True):
            if results[seat].kind != "bot":
                raise TournamentError("seats", f"table {t.label}: seat {seat + 1} is "
                                      "no drawn player")
            seats[seat] = no
        return [seats[s] for s in range(len(t.players))], sorted(missing)

    # ------------------------------------------------------------------ standings

    @property
    def winner(self) -> int | None:
        last = self.current
        if self.phase == "over" and len(last) == 1 and last[0].ranking:
            return int(last[0].ranking[0]["no"])
        return None

    def _still_in(self, no: int, last: Mapping[int, tuple[TableState, dict[str, Any]]]) -> bool:
        if self.phase != "playing":
            return self.phase == "registration"
        if any(no in t.players and (not t.done or no in t.went_on) for t in self.current):
            return True
        return no not in last

    def standings(self) -> list[Standing]:
        """Players still in (unplaced), then everyone else by place."""
        last: dict[int, tuple[TableState, dict[str, Any]]] = {}
        stage_of: dict[int, int] = {}
        replaced: set[int] = set()
        for states in self.stages:
            for t in states:
                replaced.update(t.replaced)
                for no in t.players:
                    stage_of[no] = t.stage
                for row in t.ranking:
                    last[row["no"]] = (t, row)
        still_in = []
        out = []
        for no in sorted(self.entrants):
            if self._still_in(no, last):
                still_in.append(no)
            else:
                out.append(no)
        seed = self.seed or bytes(32)

        def key(no: int) -> tuple[int, ...]:
            t, row = last[no]
            return (-t.stage, row["place"], -row["laid"], row["hand"], lot(seed, t.stage, no))

        out.sort(key=key)
        lines: list[Standing] = []
        for no in still_in:
            e = self.entrants[no]
            lines.append(Standing(None, no, e.nick, e.kind, "in", stage_of.get(no, 0), None,
                                  "", no in replaced))
        names = ("stage", "place", "laid", "hand", "lot")
        for i, no in enumerate(out):
            e = self.entrants[no]
            t, row = last[no]
            if i == 0:
                why = "first" if not still_in else "stage"
            else:
                ka, kb = key(out[i - 1]), key(no)
                why = next((n for n, x, y in zip(names, ka, kb, strict=True) if x != y), "")
                if t.final and last[out[i - 1]][0].final:
                    why = row["why"]
            status = ("winner" if t.final and row["place"] == 1 else
                      "final" if t.final else "out")
            lines.append(Standing(len(still_in) + i + 1, no, e.nick, e.kind, status, t.stage,
                                  row["place"], why, no in replaced))
        return lines

    # ------------------------------------------------------------------ record

    def to_record(self) -> dict[str, Any]:
        """The tournament record (plain data, ready for JSON)."""
        return {
            "format": TOURNAMENT_FORMAT,
            "version": TOURNAMENT_VERSION,
            "tournament_id": self.tournament_id.hex(),
            "config": self.config.to_plain(),
            "commitment": self.commitment.hex(),
            "secret": self._secret.hex() if self.phase != "registration" else None,
            "entrants": [e.to_plain() for e in self.entrants.values()],
            "seed": self.seed.hex() if self.seed is not None else None,
            "lower_total_wins": lower_total_wins(self.config.variant),
            "stages": [[t.to_plain() for t in states] for states in self.stages],
            "standings": [s.to_plain() for s in self.standings()],
            "winner": self.winner,
            "over": self.phase == "over",
        }

    def sizes_if_started(self) -> list[int]:
        """The first stage's table sizes if the tournament started now."""
        n = len(self.entrants)
        if self.config.fill_bots:
            n = max(self.config.table_size, -(-n // self.config.table_size) * self.config.table_size)
        return table_sizes(n, self.config.table_size) if n >= 2 else []
