"""The rulings amended on 2026-12-01, each pinned where the engine once read the texts otherwise."""

from __future__ import annotations

import pytest

from herotable.dice import Rating, ScriptedRng
from herotable.errors import IllegalAction
from herotable.ltl.conflict import attack, attempt, end_round, resolve, start_conflict
from herotable.ltl.difficulty import Difficulty
from herotable.ltl.healing import heal
from herotable.ltl.hero import LossType, TimePassed, lose_levels, time_passes
from herotable.ltl.heroism import recover, recovery_difficulty
from herotable.ltl.karma import last_chance, power_stunt
from herotable.ltl.options import LtlOptions
from herotable.ltl.roll import Outcome
from herotable.ltl.sheet import sheet_from_dict, sheet_to_dict, stored_sheet
from herotable.ltl.task import Stance, buy_success_after, challenge, settle

OPTS = LtlOptions()


def test_a_power_stunt_rolls_karma_and_never_burns_it(hero_of):
    # R-LTL-10: "You can roll Karma (but not burn it) to attempt a new Power Stunt"
    hero = hero_of(karma="d12", superpowers=[{"name": "Flight", "stunts": []}])
    with ScriptedRng([(12, 2), (10, 9)]) as rng:
        task = power_stunt(hero, "Flight", "Sonic Boom", Difficulty.named("Hard"), rng, OPTS)
    with pytest.raises(IllegalAction) as err:
        buy_success_after(hero, task)
    assert err.value.code == "karma/stunt_no_burn"
    assert "R-LTL-10" in str(err.value)


def test_only_a_superpower_marked_healing_heals_and_it_rolls_its_own_style(hero_of):
    # R-LTL-15 (amended): only a Superpower the sheet marks as healing may heal; the roll uses that Power's Style
    medic = hero_of(
        "Medic",
        base="d6",
        styles={"Mending": "d10", "Fisticuffs": "d20"},
        superpowers=[{"name": "Mending", "healing": True}, {"name": "Flight"}],
    )
    patient = lose_levels(hero_of("Brick", base="d10"), 2, LossType.PHYSICAL)
    with ScriptedRng([(10, 7), (6, 4)]) as rng:
        result = heal(medic, patient, rng, OPTS, power="mending")
    assert result.rating == Rating.of("d10") and result.healed and result.patient.losses == ()
    for power in ("Flight", "Telepathy"):
        with ScriptedRng([]) as rng, pytest.raises(IllegalAction) as err:
            heal(medic, patient, rng, OPTS, power=power)
        assert err.value.code == "healing/no_power" and err.value.ruling == "R-LTL-15"
    nobody = hero_of("Bystander", base="d12", styles={"Healing": "d20"})
    with ScriptedRng([]) as rng, pytest.raises(IllegalAction) as err:
        heal(nobody, patient, rng, OPTS)
    assert err.value.code == "healing/no_power"
    assert "Superpower" in err.value.fix


def test_healing_without_the_powers_style_rolls_base_power_and_the_gm_may_not_lower_it(hero_of):
    # R-LTL-15 (amended): that Power's Style, else base Power; "can be lowered" is the GM's choice per attempt
    medic = hero_of(
        "Medic", base="d8", styles={"Fisticuffs": "d12"}, superpowers=[{"name": "First Aid", "healing": True}]
    )
    patient = lose_levels(hero_of("Brick", base="d10"), 2, LossType.PHYSICAL)
    with ScriptedRng([(8, 5), (6, 5)]) as rng:
        lowered = heal(medic, patient, rng, OPTS)  # the only healing Power; lowered by default
    assert lowered.rating == Rating.of("d8") and lowered.difficulty == Difficulty.levels(2) and not lowered.healed
    with ScriptedRng([(8, 5), (8, 5)]) as rng:
        unlowered = heal(medic, patient, rng, OPTS, power="First Aid", lowered=False)
    assert unlowered.difficulty == Difficulty.levels(3)  # Heroism's recovery difficulty: levels lost + 1


def test_a_sheet_marks_healing_superpowers_and_old_sheets_have_none():
    # R-LTL-15, R-LTL-19: the mark is part of the sheet; a sheet written before the mark reads as not healing
    data = {
        "name": "Medic",
        "base": "d8",
        "karma": "d6",
        "heroism": "d6",
        "superpowers": [{"name": "Mending", "healing": True}, {"name": "Flight", "stunts": ["Loop"]}, "Strength"],
    }
    sheet = sheet_from_dict(data)
    assert [p.healing for p in sheet.superpowers] == [True, False, False]
    assert sheet_from_dict(sheet_to_dict(sheet)) == sheet == stored_sheet(sheet_to_dict(sheet))
    assert "healing" not in sheet_to_dict(sheet)["superpowers"][1]  # unmarked powers are written as before
    old = {
        "name": "Medic",
        "base": "d8",
        "karma": "d6",
        "heroism": "d6",
        "superpowers": [{"name": "Mending", "stunts": []}],
    }
    assert not stored_sheet(old).superpowers[0].healing
    with pytest.raises(Exception) as err:
        sheet_from_dict({**data, "superpowers": [{"name": "Mending", "healing": "yes"}]})
    assert "superpowers[0].healing" in str(err.value)


def test_a_stunned_fighter_loses_its_action_but_defends_with_its_die(hero_of):
    # R-LTL-12 (amended), R-LTL-18: stun costs the fighter its action, not its defence
    opts = LtlOptions(stun_on_damage=True)
    fighters = [("a", hero_of("A", heroism="d4"), "h"), ("b", hero_of("B", styles={"Guard": "d10"}), "v")]
    c = start_conflict(fighters, ScriptedRng([]), opts)
    with ScriptedRng([7, 2]) as rng:
        c = attack(c, "b", "a", rng, opts)
    c, _ = resolve(c, opts)
    with ScriptedRng([(4, 2), (4, 3)]) as rng:
        c, report = end_round(c, rng, opts)
    assert report.stunned == ("a",)
    with ScriptedRng([(8, 6), (6, 3)]) as rng:  # B with base d8; A, one level down, defends with its d6
        c = attack(c, "b", "a", rng, opts)
    assert c.open is not None and c.open.task.opposition.rating.sides == 6
    c, result = resolve(c, opts)
    assert result.winner == "b"
    assert not c.fighter("a").hero.can_act()  # still no action of its own this round
    with ScriptedRng([(4, 4), (4, 1)]) as rng:  # the new physical level: another stun check, passed
        c, _ = end_round(c, rng, opts)
    assert [loss.levels for loss in c.fighter("a").hero.losses] == [1, 1]
    assert c.fighter("a").hero.can_act()


def test_recovery_from_a_non_damaging_defeat_counts_as_below_d4(hero_of):
    # R-LTL-11 (amended): "below d4" counts every kind of loss; a d6 lawyer out of a debate is below d4 in it
    lawyer = lose_levels(hero_of("Lawyer", base="d6", heroism="d8"), 2, LossType.NON_DAMAGING)
    assert recovery_difficulty(lawyer) == Difficulty.named("inconceivable")  # not d8 (levels lost + 1)
    with ScriptedRng([]) as rng:
        burned = recover(lawyer, rng, OPTS, burn=True)
    assert burned.burned == 2 and burned.hero.heroism == Rating.of("d4") and burned.hero.losses == ()


def test_a_d4_double_burn_for_recovery_knocks_the_hero_out_when_the_recovery_ends(hero_of):
    # R-LTL-11: at d4 a hero may burn two levels, and drops unconscious when that action is completed
    beaten = lose_levels(hero_of("Brick", base="d6", heroism="d4"), 2, LossType.PHYSICAL)
    with ScriptedRng([]) as rng:
        result = recover(beaten, rng, OPTS, burn=True)
    assert result.burned == 2 and result.hero.losses == ()
    assert result.hero.unconscious and not result.hero.collapses_after_action
    assert not result.hero.can_act()


def test_hours_of_rest_heal_physical_damage_but_not_wounds_the_gm_marked_serious(hero_of):
    # R-LTL-6 (amended): physical damage heals in "hours or days"; losses marked serious when they landed need days
    hero = lose_levels(hero_of(base="d12"), 1, LossType.PHYSICAL)
    hero = lose_levels(hero, 2, LossType.PHYSICAL, serious=True)
    hero = lose_levels(hero, 1, LossType.SEVERE)
    rested = time_passes(hero, TimePassed.HOURS)
    assert [(loss.levels, loss.kind, loss.serious) for loss in rested.losses] == [
        (2, LossType.PHYSICAL, True),
        (1, LossType.SEVERE, False),
    ]
    assert [loss.kind for loss in time_passes(rested, TimePassed.DAYS).losses] == [LossType.SEVERE]
    assert time_passes(hero, TimePassed.MINUTES) == hero


def test_last_chance_reads_the_outcome_from_the_task_it_follows(hero_of):
    # R-LTL-10: Last Chance follows only a task that failed; the task says whether it did
    hero = hero_of(karma="d8")
    hard = Difficulty.named("Challenging")
    with ScriptedRng([(8, 1), (8, 8)]) as rng:  # the dice fail, but success was bought before the roll
        paid, task = challenge(hero, hard, rng, OPTS, stance=Stance(auto_success=True), must_succeed=True)
    won, result = settle(task, OPTS)
    assert result.outcome is Outcome.WIN and result.automatic
    with ScriptedRng([]) as rng, pytest.raises(IllegalAction) as err:
        last_chance(paid, won, rng, OPTS, burn=True)
    assert err.value.code == "karma/not_failed"
    with ScriptedRng([(8, 4), (8, 4)]) as rng:
        _, task = challenge(hero, hard, rng, OPTS, must_succeed=True)
    tied, result = settle(task, OPTS)
    assert result.outcome is Outcome.TIE  # a tie does not get the task done: Last Chance may follow
    with ScriptedRng([]) as rng:
        chance = last_chance(hero, tied, rng, OPTS, burn=True)
    assert chance.task is None and chance.hero.last_chance_used and chance.hero.karma == Rating.of("d6")


def test_fatigue_for_failed_challenges_is_the_gms_choice_and_a_tie_is_no_failure(hero_of):
    # R-LTL-12 (amended): failures "may" cost a level: the GM's choice per conflict, yes by default; a tie is no failure
    challenging = Difficulty.named("Challenging")
    c = start_conflict([("a", hero_of("A"), "h")], ScriptedRng([]), OPTS)
    with ScriptedRng([(8, 5), (8, 5)]) as rng:
        c = attempt(c, "a", challenging, rng, OPTS)
    c, _ = resolve(c, OPTS)
    c, report = end_round(c, ScriptedRng([]), OPTS)
    assert report.losses == () and c.fighter("a").hero.losses == ()
    with ScriptedRng([(8, 2), (8, 6)]) as rng:
        c = attempt(c, "a", challenging, rng, OPTS)
    c, _ = resolve(c, OPTS)
    c, report = end_round(c, ScriptedRng([]), OPTS)
    assert [loss.kind for loss in report.losses] == [LossType.FATIGUE]  # yes by default
    c = start_conflict([("a", hero_of("A"), "h")], ScriptedRng([]), OPTS, fatigue=False)
    with ScriptedRng([(8, 2), (8, 6)]) as rng:
        c = attempt(c, "a", challenging, rng, OPTS)
    c, _ = resolve(c, OPTS)
    c, report = end_round(c, ScriptedRng([]), OPTS)
    assert report.losses == () and c.fighter("a").hero.losses == ()
