"""The rules' refusals are coded (issue 27): a `Reason` (code, data) whose English is the
core's English of before, nested reasons coded too, and a plain form for the wire."""

from __future__ import annotations

import pytest

from rami_lan import i18n_build
from rami_lan.core import IllegalAction, apply, check_meld, parse_cards
from rami_lan.core import actions as A
from rami_lan.core import round as R
from rami_lan.core.melds import InvalidMeld, lay_off
from rami_lan.core.reasons import TEMPLATES, TEXT, Reason, template_keys
from rami_lan.core.scenario import scenario
from rami_lan.core.variants import get_variant

TABLE_CODES = frozenset({
    "no_round_played", "not_your_seat", "benched", "timer_ran_out", "not_proven",
    "private_take_to_open", "private_shown", "private_joker_discard", "bot_illegal",
    "unknown_action",
})
"""Codes of reasons that were never templates of catalogue ``rules`` (the table's own,
whose English was made where they were refused; a caller's bug)."""


def _card(st: R.RoundState, seat: int, text: str):
    return next(c for c in st.hands[seat] if str(c) == text)


def _refusal(m, action) -> IllegalAction:
    with pytest.raises(IllegalAction) as e:
        apply(m, action)
    return e.value


def test_every_core_template_is_the_english_of_before() -> None:
    """The core's English did not change: each template of a core code is a msgid the
    catalogue ``rules`` had for it (its English templates) before the codes."""
    msgids = set(i18n_build.read_po(i18n_build.LOCALE / "fr" / "rules.po").catalog)
    missing = [code for code, tpl in TEMPLATES.items()
               if code not in TABLE_CODES | {TEXT} and tpl not in msgids]
    assert not missing, missing


@pytest.mark.parametrize(("code", "data", "english"), [
    ("not_holding", {"card": "7h"}, "does not hold 7h"),
    ("not_your_turn", {"seat": 2}, "it is seat 2's turn"),
    ("wrong_phase", {"kind": "discard", "phase": "draw"}, "discard is not allowed in the draw phase"),
    ("open_points", {"points": 20, "need": 30}, "may not open with 20 points (needs 30)"),
    ("lay_off_unopened", {"need": Reason.of("needs_points", points=51)},
     "may not lay off before opening (needs 51 points)"),
    ("recover_unopened", {"need": Reason.of("needs_own_meld")},
     "may not take a joker back before opening (needs a meld of their own first)"),
    ("all_unusable", {"cards": "*, 10d"}, "*, 10d must all be used this turn and could not all be"),
    ("invalid_meld", {"meld": "6h Qs 5h", "reason": Reason.of("run_suit")},
     "6h Qs 5h is not a valid meld: a run's cards must all have the same suit"),
    ("meld_kind_unknown", {"kind": "'pair'"}, "unknown meld kind 'pair' (set or run)"),
    ("not_proven", {"card": "Kh", "deck": 0, "position": 12},
     "Kh is not proven to be in the hand: reveal deck 0 position 12 first (private dealing)"),
    (TEXT, {"text": "anything at all"}, "anything at all"),
])
def test_a_reason_renders_its_english(code: str, data: dict, english: str) -> None:
    why = Reason.of(code, **data)
    assert why.known and why.text() == str(why) == english


def test_the_refusals_of_the_rules_carry_codes_and_nested_reasons() -> None:
    m = scenario("rami", hands=["Kh 5c 6c 9d", "2c"], melds=[("Ks Kd Kh", 1, "set")],
                 opened=[True, True])
    st = m.round
    kh = _card(st, 0, "Kh")
    e = _refusal(m, A.LayOff(0, kh, 0))
    assert str(e) == "seat 0 (play): can not lay Kh on Ks Kh Kd: the set already holds a card of h (Kh)"
    assert (e.seat, e.phase, e.code) == (0, "play", "lay_off_failed")
    assert e.data == {"card": "Kh", "meld": "Ks Kh Kd",
                      "reason": Reason.of("set_has_suit", suit="h", card="Kh")}
    assert e.why is not None and e.reason == e.why.text()
    e = _refusal(m, A.Discard(1, st.hands[1][0]))
    assert (e.code, dict(e.data), e.reason) == ("not_your_turn", {"seat": 0}, "it is seat 0's turn")
    e = _refusal(m, A.DrawStock(0))
    assert (e.code, dict(e.data)) == ("wrong_phase", {"kind": "draw_stock", "phase": "play"})
    e = _refusal(m, A.LayDown(0, (A.MeldSpec(tuple(_card(st, 0, c) for c in ("5c", "6c", "9d"))),)))
    assert e.code == "invalid_meld" and e.data["reason"] == Reason.of("run_suit")


def test_meld_checks_and_lay_offs_are_coded() -> None:
    v = get_variant("rami")
    chk = check_meld(v, parse_cards("As * *"))
    assert not chk.valid and chk.why == Reason.of("meld_too_many_jokers")
    assert chk.reason == "a meld may never hold more jokers than natural cards"
    assert check_meld(v, parse_cards("5h 6h 7h")).why is None
    assert check_meld(v, parse_cards("5h 5h"), "pair").why == Reason.of(  # type: ignore[arg-type]
        "meld_kind_unknown", kind="'pair'")
    meld = check_meld(v, parse_cards("5h 6h 7h")).meld
    assert meld is not None
    with pytest.raises(InvalidMeld) as e:
        lay_off(v, meld, parse_cards("9c")[0])
    assert e.value.why == Reason.of("run_other_suit", card="9c")
    assert str(e.value) == "9c is not of the run's suit"


def test_a_reason_given_as_text_is_coded_text() -> None:
    e = IllegalAction(1, "draw", "no legal action")
    assert (str(e), e.code, dict(e.data)) == ("seat 1 (draw): no legal action", TEXT,
                                              {"text": "no legal action"})
    assert str(IllegalAction(None, "over", Reason.of("match_over"))) == "nobody (over): the match is over"


def test_the_plain_form_round_trips_and_is_checked() -> None:
    why = Reason.of("recover_failed", meld="Jh Jd *",
                    reason=Reason.of("not_missing_suit", card="Js"))
    plain = why.to_plain()
    assert plain == {"code": "recover_failed", "data": {
        "meld": "Jh Jd *", "reason": {"code": "not_missing_suit", "data": {"card": "Js"}}}}
    assert Reason.from_plain(plain) == why
    for bad in ({"code": 1, "data": {}}, {"code": "x", "data": []},
                {"code": "x", "data": {"a": 1.5}}, {"code": "x", "data": {"a": None}}):
        with pytest.raises(ValueError):
            Reason.from_plain(bad)
    deep: dict = {"code": "run_short", "data": {}}
    for _ in range(4):
        deep = {"code": "private_shown", "data": {"reason": deep}}
    with pytest.raises(ValueError):
        Reason.from_plain(deep)
    assert not Reason("a_newer_code", {}).known  # a peer's: kept, not worded
    assert not Reason.of("not_holding").known  # its template names a card
    with pytest.raises(KeyError):
        Reason.of("no_such_code")


def test_every_template_names_its_data_once() -> None:
    for code, tpl in TEMPLATES.items():
        keys = template_keys(tpl)
        assert all(tpl.count("{" + k + "}") == 1 for k in keys), code
