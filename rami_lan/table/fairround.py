"""One round's commit-reveal exchange as the table runs it (FAIR_SHUFFLE.md steps 1-5).

`RoundCtx` wraps the spec's `CommitmentRound` with what the table must remember about
the round: who was asked, the messages already sent (a reconnecting seat gets them
again), the reveals (journaled), the seed once dealt. The table keeps one `RoundCtx`
per round tag; a tag is never used twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rami_lan.table.shuffle import CommitmentRound, Phase

__all__ = ["RoundCtx", "pairs"]


def pairs(m: dict[int, bytes]) -> list[list[Any]]:
    return [[int(k), v] for k, v in sorted(m.items())]


@dataclass
class RoundCtx:
    tag: bytes
    commit: CommitmentRound
    participants: tuple[int, ...]
    host_secret: bytes
    commits_sent: bool = False
    """The ``commitments`` message went out: the commit phase is closed for good."""
    started: bool = False
    finished: bool = False
    reveals: dict[int, bytes] = field(default_factory=dict)
    seed: bytes | None = None
    announced: set[int] = field(default_factory=set)
    """Seats whose exclusion was already announced to the table."""

    def commitments(self) -> dict[int, bytes]:
        return self.commit.commitment_list(drop_missing=True) if self.commits_sent else {}

    def secrets(self) -> dict[int, bytes]:
        return self.commit.secrets() if self.commit.phase is Phase.COMPLETE else {}

    def excluded(self) -> list[int]:
        """Seats that committed but whose secret is not used (``round_secrets.excluded``)."""
        return sorted(self.commit.excluded)

    def exclusions(self) -> dict[int, str]:
        """Every seat that contributes no secret, with why: absent (no commitment in
        time) or excluded at the reveal (late or not matching)."""
        out = {s: "did not commit in time" for s in self.commit.absent}
        out.update({s: str(r) for s, r in self.commit.excluded.items()})
        return out

    def to_plain(self) -> dict[str, Any]:
        return {
            "tag": self.tag, "host_secret": self.host_secret,
            "participants": list(self.participants),
            "commits": pairs(self.commitments()) if self.commits_sent else [],
            "reveals": pairs(self.reveals),
            "seed": self.seed, "started": self.started, "finished": self.finished,
        }

    @classmethod
    def from_plain(cls, rp: dict[str, Any], host_seat: int) -> RoundCtx:
        tag = bytes(rp["tag"])
        participants = tuple(int(s) for s in rp["participants"])
        host_secret = bytes(rp["host_secret"])
        commit = CommitmentRound(tag, host_seat, host_secret, participants)
        commits = {int(s): bytes(c) for s, c in rp["commits"]}
        for s, c in commits.items():
            if s != host_seat:
                commit.add_commit(s, c)
        ctx = cls(tag, commit, participants, host_secret)
        if rp["commits"]:
            commit.commitment_list(drop_missing=True)
            ctx.commits_sent = True
            for s, secret in rp["reveals"]:
                ctx.add_reveal(int(s), bytes(secret))
        ctx.seed = None if rp["seed"] is None else bytes(rp["seed"])
        ctx.started = bool(rp["started"])
        ctx.finished = bool(rp["finished"])
        if ctx.started and commit.phase is Phase.REVEAL:
            commit.close_reveals()
        return ctx

    def add_reveal(self, seat: int, secret: bytes) -> Any:
        outcome = self.commit.add_reveal(seat, secret)
        self.reveals[seat] = secret
        return outcome
