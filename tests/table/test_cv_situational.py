# ruff: noqa: F811  (the campaign fixture `svc` is imported from the Conviction table tests)
"""Situational modifiers (R-T-2 amended 2026-12-02): every check and save the GM calls may carry −10..+10 to the total,
with a reason the roller sees, in the odds before the roll, the log and the audit."""

from __future__ import annotations

from herotable.service import TableService
from herotable.table.audit import audit
from herotable.table.conviction.commands import Announce, CallCheck, RollCheck, ToughnessSave
from herotable.table.legal import legal_actions

from .helpers import seen, text_seen
from .test_cv_table import ANA, CID, GM, assert_replays, refused, run, state, svc  # noqa: F401


def test_a_called_check_carries_the_gm_s_modifier_and_its_reason_to_the_roll(svc: TableService) -> None:
    # R-T-2 (amended): the call says +2 for the high ground; the roll shows it beside the d20, the log names it
    call = run(svc, GM, CallCheck("kes", 15, "Leap the rail", 2, reason="the high ground"))["cv.check_called"]
    assert call["modifier"] == 2 and call["reason"] == "the high ground"
    offered = [a for a in legal_actions(state(svc), ANA) if a.type == RollCheck.type and a.fixed.get("call")]
    assert offered and "the high ground" in offered[0].label
    said = run(svc, ANA, RollCheck("kes", call=call["call"]), 12)
    assert said["cv.check_rolled"]["modifier"] == 0
    assert said["cv.check_bonus"]["source"] == "the high ground" and said["cv.check_bonus"]["amount"] == 2
    announced = run(svc, ANA, Announce())["cv.check_announced"]
    assert announced["total"] == 14 and ["the high ground", 2] in announced["bonuses"]
    assert "+2 from the high ground" in text_seen(svc, CID, ANA)
    assert_replays(svc)


def test_a_toughness_save_takes_a_situational_modifier_too(svc: TableService) -> None:
    # R-T-2 (amended): saves included; 12 + 2 Toughness - 3 (knocked prone) = 11 against 15
    rolled = run(svc, GM, ToughnessSave("kes", damage_bonus=0, attacker="rex", modifier=-3, reason="knocked prone"), 12)
    assert rolled["cv.check_bonus"] == {
        "check": rolled["cv.check_rolled"]["check"],
        "source": "knocked prone",
        "amount": -3,
    }
    assert run(svc, GM, Announce())["cv.check_announced"]["total"] == 11


def test_the_modifier_stays_within_ten_either_way(svc: TableService) -> None:
    err = refused(svc, GM, CallCheck("kes", 15, "Leap", 11, reason="too much"))
    assert err.code == "table/out_of_range" and err.field == "modifier"
    refused(svc, GM, ToughnessSave("kes", damage_bonus=0, modifier=-11, reason="too much"))


def test_the_roller_sees_the_reason_on_the_call_and_the_audit_agrees(svc: TableService) -> None:
    run(svc, GM, CallCheck("kes", 15, "Leap the rail", -2, reason="rain on the deck"))
    called = [p for kind, p in seen(svc, CID, ANA) if kind == "cv.check_called"]
    assert called[-1]["reason"] == "rain on the deck"
    assert "-2: rain on the deck" in text_seen(svc, CID, ANA)
    report = audit(svc.store.load(CID))
    assert report.findings == []
