"""Larger Than Life at the table under the rulings amended on 2026-12-01."""

from __future__ import annotations

import pytest

from herotable.dice import Rating
from herotable.errors import RulesError
from herotable.ltl.hero import LossType, TimePassed
from herotable.ltl.samples import CAPTAIN_COMET, DOCTOR_ENTROPY
from herotable.service import TableService
from herotable.table.facts import upcast
from herotable.table.legal import legal_actions
from herotable.table.ltl.commands import (
    AllowRecovery,
    Attack,
    Attempt,
    BuySuccess,
    CallKind,
    CallRoll,
    CreateLtlCharacter,
    DieSetting,
    DifficultyName,
    EndConflict,
    EndRound,
    Heal,
    KarmaRoll,
    Override,
    Push,
    Recover,
    SetDefence,
    Settle,
    StartConflict,
    TimePasses,
)
from herotable.table.state import Forbidden, Ruleset
from herotable.table.structure import EndScene, Join, StartAdventure, StartScene, StartSession

from .helpers import accept_others, facts, hero, seen
from .test_ltl_table import CID, setup


def test_a_power_stunt_cannot_be_bought_with_burned_karma(service: TableService, dice):
    # R-LTL-10: roll Karma (but not burn it) for a Power Stunt; a bought stunt would cost 1 Hero Point, not 3
    setup(service)
    call = CallRoll("comet", CallKind.STUNT, DifficultyName.HARD, power="Star Fists", stunt="Meteor Punch")
    called = service.execute(CID, "gm", call).events[0].command_id
    dice.faces = [2, 9]
    opened = service.execute(CID, "pat", KarmaRoll("comet", call=called))
    roll = opened.events[0].command_id
    assert not [a for a in legal_actions(service.state(CID), "pat") if a.type == "ltl.buy_success"]
    head = service.store.head(CID)
    with pytest.raises(RulesError) as err:
        service.execute(CID, "pat", BuySuccess("comet", roll))
    assert err.value.code == "karma/stunt_no_burn"
    assert service.store.head(CID) == head
    service.execute(CID, "pat", Settle(roll))
    assert hero(service, CID, "comet").stunts_pulled_off == ()


DOC = {
    **CAPTAIN_COMET,
    "name": "Doc Mender",
    "superpowers": [{"name": "Mending", "healing": True}, {"name": "Flight", "stunts": []}],
    "styles": {"Mending": "d12", "Flight": "d20"},
}


def _wound_nova(service: TableService) -> None:
    service.execute(CID, "gm", Override("nova", "a bad fall", lose=2))


def test_only_a_healing_superpower_heals_at_the_table(service: TableService, dice):
    # R-LTL-15 (amended): Captain Comet has no healing Power; Doc Mender rolls Mending's d12, not base Power
    setup(service)
    service.execute(CID, "sam", CreateLtlCharacter("doc", DOC))
    _wound_nova(service)
    assert not [a for a in legal_actions(service.state(CID), "pat") if a.type == "ltl.heal"]
    head = service.store.head(CID)
    with pytest.raises(RulesError) as err:
        service.execute(CID, "pat", Heal("comet", "nova"))
    assert err.value.code == "healing/no_power"
    assert service.store.head(CID) == head
    [offered] = [a for a in legal_actions(service.state(CID), "sam") if a.type == "ltl.heal"]
    assert "lowered" not in offered.fields  # the GM's choice
    dice.faces = [11, 2]
    healed = service.execute(CID, "sam", Heal("doc", "nova", power="Mending"))
    rolled = next(p for t, _, p in facts(healed) if t == "ltl.healing_rolled")
    assert (rolled["die"], rolled["style"], rolled["difficulty"], rolled["healed"]) == (12, "Mending", 2, True)
    assert hero(service, CID, "nova").losses == ()


def test_whether_healing_is_lowered_is_the_gms_choice(service: TableService, dice):
    # R-LTL-15 (amended): "can be lowered" is the GM's choice per attempt (default lowered), R-T-3
    setup(service)
    service.execute(CID, "sam", CreateLtlCharacter("doc", DOC))
    _wound_nova(service)
    with pytest.raises(Forbidden):
        service.execute(CID, "sam", Heal("doc", "nova", lowered=False))
    dice.faces = [5, 5]
    healed = service.execute(CID, "gm", Heal("doc", "nova", lowered=False))
    rolled = next(p for t, _, p in facts(healed) if t == "ltl.healing_rolled")
    assert (rolled["difficulty"], rolled["against"], rolled["healed"]) == (3, 8, False)


def setup_with(service: TableService, **options: object) -> None:
    """The usual table, in a campaign with these options."""
    service.create_campaign("gm", "Gwen", "Harbour Nights", Ruleset.LTL, options=options, campaign_id=CID)
    service.execute(CID, "pat", Join("Pat"))
    service.execute(CID, "sam", Join("Sam"))
    service.execute(CID, "pat", CreateLtlCharacter("comet", CAPTAIN_COMET))
    service.execute(CID, "sam", CreateLtlCharacter("nova", {**CAPTAIN_COMET, "name": "Nova"}))
    service.execute(CID, "gm", CreateLtlCharacter("entropy", DOCTOR_ENTROPY, npc=True, hidden=True))
    for cmd in (StartAdventure(), StartSession(), StartScene()):
        service.execute(CID, "gm", cmd)


def test_a_stunned_fighter_can_be_attacked_and_defends_with_its_die(service: TableService, dice):
    # R-LTL-12 (amended), R-LTL-18: the stunned villain loses its action, not its defence
    setup_with(service, stun_on_damage=True)
    service.execute(CID, "gm", StartConflict((("comet", "heroes"), ("entropy", "villains"))))
    service.execute(CID, "gm", SetDefence("entropy", "Decay"))  # the GM sets the villain's defence (R-T-3)
    dice.faces = [10, 2]  # Comet's Fisticuffs d12 against Entropy's Decay d12
    service.execute(CID, "pat", Attack("comet", "entropy", style="Fisticuffs"))
    accept_others(service, CID, "pat")
    service.execute(CID, "pat", Settle())
    dice.faces = [1, 3]  # Entropy's stun check: Heroism d10 against the one level just lost (d4)
    ended = service.execute(CID, "gm", EndRound())
    assert next(p for t, _, p in facts(ended) if t == "ltl.round_ended")["stunned"] == ["entropy"]
    [attack] = [a for a in legal_actions(service.state(CID), "pat") if a.type == "ltl.attack"]
    assert attack.fields["target"].choices == ("entropy",)  # type: ignore[attr-defined]
    dice.faces = [5, 7]
    opened = service.execute(CID, "pat", Attack("comet", "entropy", style="Fisticuffs"))
    entropy_die = next(p for t, _, p in facts(opened) if t == "dice.rolled" and p["side"] == "opposition")
    assert entropy_die["die"] == 10  # Decay d12, one level down
    accept_others(service, CID, "pat")
    service.execute(CID, "pat", Settle())
    assert [p for t, p in seen(service, CID, "gm") if t == "ltl.loss_pending"][-1]["character"] == "comet"
    assert not hero(service, CID, "entropy").can_act()


def test_a_d4_double_burn_for_recovery_knocks_the_hero_out_at_the_table(service: TableService, dice):
    # R-LTL-11: the Recovery is the action; when it ends, the hero falls unconscious before acting again
    setup(service)
    service.execute(CID, "gm", Override("comet", "beaten flat", heroism=DieSetting.D4, lose=4))
    service.execute(CID, "gm", AllowRecovery("comet"))  # one try this scene (R-LTL-11 amended)
    recovered = service.execute(CID, "pat", Recover("comet", burn=True))
    statuses = [(p["status"], p["on"]) for t, _, p in facts(recovered) if t == "ltl.status_changed"]
    assert ("unconscious", True) in statuses
    comet = hero(service, CID, "comet")
    assert comet.losses == () and comet.unconscious and not comet.collapses_after_action
    assert not [a for a in legal_actions(service.state(CID), "pat") if a.type == "ltl.challenge"]


def test_hours_heal_physical_damage_except_what_the_gm_marked_serious(service: TableService, dice):
    # R-LTL-6 (amended): the GM marks a loss serious when it lands (an override, or the end of a round)
    setup(service)
    service.execute(CID, "gm", Override("comet", "a graze", lose=1))
    marked = service.execute(CID, "gm", Override("comet", "a deep wound", lose=2, serious=True))
    assert "ltl.loss_marked_serious" in [t for t, _, _ in facts(marked)]
    with pytest.raises(RulesError):  # only physical damage can be marked serious, and only a loss that lands
        service.execute(CID, "gm", Override("comet", "tired", lose=1, lose_kind=LossType.FATIGUE, serious=True))
    service.execute(CID, "gm", StartConflict((("comet", "heroes"), ("entropy", "villains"))))
    dice.faces = [6, 2]  # Comet's Fisticuffs, three levels down: d6
    service.execute(CID, "pat", Attack("comet", "entropy", style="Fisticuffs"))
    accept_others(service, CID, "pat")
    service.execute(CID, "pat", Settle())
    with pytest.raises(RulesError):  # Comet takes no physical damage this round
        service.execute(CID, "gm", EndRound(serious=("comet",)))
    service.execute(CID, "gm", EndRound(serious=("entropy",)))
    service.execute(CID, "gm", EndConflict())
    service.execute(CID, "gm", TimePasses(TimePassed.HOURS))
    assert [(loss.levels, loss.serious) for loss in hero(service, CID, "comet").losses] == [(2, True)]
    assert [(loss.levels, loss.serious) for loss in hero(service, CID, "entropy").losses] == [(1, True)]
    service.execute(CID, "gm", TimePasses(TimePassed.DAYS))
    assert hero(service, CID, "comet").losses == () == hero(service, CID, "entropy").losses


def test_the_gm_chooses_per_conflict_whether_failed_challenges_cost_fatigue(service: TableService, dice):
    # R-LTL-12 (amended): "may" cost a level: the GM's choice when the conflict starts (default yes)
    setup(service)
    [start] = [a for a in legal_actions(service.state(CID), "gm") if a.type == "ltl.conflict.start"]
    assert "fatigue" in start.fields
    started = service.execute(CID, "gm", StartConflict((("comet", "heroes"),), fatigue=False))
    assert next(p for t, _, p in facts(started) if t == "ltl.conflict_started")["fatigue"] is False
    call = service.execute(CID, "gm", CallRoll("comet", CallKind.ATTEMPT, DifficultyName.CHALLENGING))
    dice.faces = [2, 7]
    service.execute(CID, "pat", Attempt("comet", style="Fisticuffs", call=call.events[0].command_id))
    service.execute(CID, "pat", Settle())
    service.execute(CID, "gm", EndRound())
    assert hero(service, CID, "comet").losses == ()
    # a conflict recorded before the choice existed cost fatigue, as the default still does
    assert upcast("ltl.conflict_started", 2, {"fighters": [], "stakes": "physical"})["fatigue"] is True


def test_the_gm_marks_a_mind_control_or_bonds_loss_as_lowering_rolls(service: TableService, dice):
    # R-LTL-6: bonds and mind control lower the die for other challenges as the GM decides; other kinds as the rules say
    setup(service)
    service.execute(CID, "gm", Override("comet", "the villain's thrall", lose=2, lose_kind=LossType.MIND_CONTROL))
    assert hero(service, CID, "comet").base_now() == Rating.of("d10")  # mind control: by default not lowering
    service.execute(
        CID,
        "gm",
        Override("comet", "the thrall deepens", lose=1, lose_kind=LossType.MIND_CONTROL, lowers_rolls=True),
    )
    assert hero(service, CID, "comet").base_now() == Rating.of("d8")  # the marked level lowers every roll
    offered = [
        a for a in legal_actions(service.state(CID), "gm") if a.type == "ltl.override" and "lowers_rolls" in a.fields
    ]
    assert offered and {"bonds", "mind_control"} == set(offered[0].fields["lose_kind"].choices)
    with pytest.raises(RulesError, match="R-LTL-6"):  # a physical loss lowers rolls by the rules, not the GM's word
        service.execute(CID, "gm", Override("comet", "a graze", lose=1, lowers_rolls=False))
    with pytest.raises(RulesError, match="R-LTL-6"):  # nothing lost, nothing to mark
        service.execute(CID, "gm", Override("comet", "no change", lose_kind=LossType.BONDS, lowers_rolls=True))


def test_a_push_bought_and_never_used_lapses_at_the_scene_s_end_without_refund(service: TableService, dice):
    # R-LTL-11 (amended 2026-12-02): a Push for a challenge or round that never comes lapses at the end of the scene
    setup(service)
    before = hero(service, CID, "comet").heroism
    service.execute(CID, "pat", Push("comet", burn=True))
    pushed = hero(service, CID, "comet")
    assert pushed.pushed and pushed.heroism.position < before.position  # burned (two levels: to d20, R-LTL-11)
    ended = service.execute(CID, "gm", EndScene())
    comet = hero(service, CID, "comet")
    assert not comet.pushed and comet.heroism == pushed.heroism  # lapsed, and the burned level stays burned
    assert ("ltl.status_changed", "pushed") in [(t, p.get("status")) for t, _, p in facts(ended)]
    service.execute(CID, "gm", StartScene())
    assert not hero(service, CID, "comet").pushed
