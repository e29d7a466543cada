"""The table's stages and their one transition table (`rami_lan.table.stage`), and the
shape the table machine keeps: dealing as strategies, no private-deal mixin."""

from __future__ import annotations

import inspect
import re
from collections import deque
from pathlib import Path

import pytest
from masked_table import MaskedTable

import rami_lan.table.machine as machine_module
from rami_lan.table import TableConfig, TableMachine
from rami_lan.table.dealing import MaskedDealing, PlainDealing
from rami_lan.table.stage import TRANSITIONS, IllegalTransition, Stage, Step, next_stage

ROOT = Path(machine_module.__file__).parent


def test_every_pair_the_table_does_not_list_is_refused_with_a_clear_error() -> None:
    refused = 0
    for stage in Stage:
        for step in Step:
            if (stage, step) in TRANSITIONS:
                assert next_stage(stage, step) is TRANSITIONS[(stage, step)]
                continue
            with pytest.raises(IllegalTransition) as info:
                next_stage(stage, step)
            text = str(info.value)
            assert repr(step.value) in text and repr(stage.value) in text and "allowed there" in text
            assert info.value.stage is stage and info.value.step is step
            refused += 1
    assert refused == len(Stage) * len(Step) - len(TRANSITIONS) > 0


def test_every_stage_is_reachable_from_seating_and_every_stage_can_be_closed() -> None:
    seen = {Stage.WAITING}
    todo = deque([Stage.WAITING])
    while todo:
        stage = todo.popleft()
        for (frm, _step), to in TRANSITIONS.items():
            if frm is stage and to not in seen:
                seen.add(to)
                todo.append(to)
    assert seen == set(Stage)
    for stage in Stage:
        if stage is not Stage.STOPPED:
            assert next_stage(stage, Step.STOP) is Stage.STOPPED
    assert not [k for k in TRANSITIONS if k[0] is Stage.STOPPED]  # closed is closed
    assert {to for (frm, _s), to in TRANSITIONS.items() if frm is Stage.OVER} == {Stage.STOPPED}


def test_the_audit_stages_lead_only_where_the_audit_lets_the_table_go() -> None:
    # the next round waits for the last round's audit; the match's end for its last one
    assert next_stage(Stage.BETWEEN, Step.AWAIT_AUDIT) is Stage.AUDIT
    assert next_stage(Stage.AUDIT, Step.SETUP) is Stage.COMMIT
    assert next_stage(Stage.PLAYING, Step.END_AWAIT_AUDIT) is Stage.LAST_AUDIT
    assert next_stage(Stage.LAST_AUDIT, Step.AUDIT_IN) is Stage.OVER
    for step in (Step.SETUP, Step.DEAL, Step.SHUFFLE, Step.ROUND_END, Step.END):
        with pytest.raises(IllegalTransition):
            next_stage(Stage.LAST_AUDIT, step)
    with pytest.raises(IllegalTransition):
        next_stage(Stage.AUDIT, Step.AWAIT_AUDIT)


def test_the_machine_refuses_an_illegal_step_and_stays_where_it_was() -> None:
    m = TableMachine(TableConfig(seats=2, bots={1: "moyen"}, headless=True), lambda n: b"\x01" * n)
    m.start(0.0)
    assert m.stage is Stage.PLAYING and isinstance(m.dealing, PlainDealing)
    with pytest.raises(IllegalTransition, match="'audit_in' in stage 'playing'"):
        m._go(Step.AUDIT_IN)
    assert m.stage is Stage.PLAYING


class _Recording(MaskedDealing):
    pass


class _StageLog(TableMachine):
    masked_dealing = _Recording

    def _go(self, step: Step) -> None:
        before = self.stage
        super()._go(step)
        self.__dict__.setdefault("moves", []).append((before, step, self.stage))


def test_a_private_match_moves_through_the_table_and_waits_for_its_last_audit() -> None:
    t = MaskedTable(bots={3: "moyen"}, variant="rami", limit=1, machine_cls=_StageLog)
    t.start()
    t.run()
    m = t.machine
    moves = m.__dict__["moves"]
    assert all(TRANSITIONS[(a, s)] is b for a, s, b in moves)
    stages = [b for _a, _s, b in moves]
    assert Stage.SHUFFLE in stages and Stage.PLAYING in stages and stages[-1] is Stage.OVER
    # the match's end came before its last round's audit: the table waited for it
    assert (Stage.LAST_AUDIT, Step.AUDIT_IN, Stage.OVER) == moves[-1]
    assert isinstance(m.dealing, _Recording) and not m.dealing.auditing and m.masked_reports


def test_the_machine_has_no_private_deal_mixin_and_asks_its_dealing_strategy() -> None:
    assert TableMachine.__mro__ == (TableMachine, object)
    src = inspect.getsource(machine_module)
    assert not re.search(r"\b_masked|_private_", src) and "PrivateDealing" not in src
    assert not re.search(r"_masked\s+is\s+(not\s+)?None", src)
    assert not (ROOT / "private_deal.py").exists()
    # the machine never sets its stage but through the transition table
    assert re.findall(r"self\.stage\s*=(?!=)", src) == ["self.stage =", "self.stage ="]
    for path in [ROOT / "machine.py", *(ROOT / "dealing").glob("*.py")]:
        assert "type: ignore" not in path.read_text(encoding="utf-8"), path


def test_a_withheld_audit_holds_the_next_round_in_the_audit_stage_until_its_deadline(tmp_path: Path) -> None:
    from test_private_deal_liveness import GRIEFER, GriefTable, NoAudit

    t = GriefTable(bots={3: "moyen"}, variant="rami", limit=100, machine_cls=_StageLog,
                   evidence_dir=tmp_path)
    g = t.clients[GRIEFER]
    t.clients[GRIEFER] = NoAudit(t, GRIEFER, g.nick, g.level, g.seed)
    t.start()
    t.run(until=lambda: t.machine.match.round_no >= 3)
    moves = t.machine.__dict__["moves"]
    assert (Stage.BETWEEN, Step.AWAIT_AUDIT, Stage.AUDIT) in moves  # the answers were in first
    k = moves.index((Stage.BETWEEN, Step.AWAIT_AUDIT, Stage.AUDIT))
    assert moves[k + 1] == (Stage.AUDIT, Step.SETUP, Stage.COMMIT)  # the audit's deadline, then on


def test_both_strategies_implement_the_whole_dealing_interface() -> None:
    from rami_lan.table.dealing import Dealing

    members = [n for n in vars(Dealing) if not n.startswith("_")]
    assert len(members) > 20
    for cls in (PlainDealing, MaskedDealing):
        for name in members:
            want, got = getattr(Dealing, name), getattr(cls, name, None)
            assert got is not None, (cls.__name__, name)
            if isinstance(want, property):
                assert isinstance(got, property), (cls.__name__, name)
            else:
                assert list(inspect.signature(got).parameters) == list(inspect.signature(want).parameters), \
                    (cls.__name__, name)
