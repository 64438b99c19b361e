"""Healing Powers (R-LTL-15): a roll of a healing Superpower's Style against (levels lost + 1) minus one level
removes every lost level."""

from __future__ import annotations

from dataclasses import replace

import pytest

from herotable.dice import Rating, ScriptedRng
from herotable.errors import IllegalAction
from herotable.ltl.difficulty import Difficulty
from herotable.ltl.healing import heal, healing_difficulty
from herotable.ltl.hero import Hero, Loss, LossType, lose_levels
from herotable.ltl.options import LtlOptions
from herotable.ltl.roll import Critical, DieRoll, Outcome
from herotable.ltl.sheet import HeroSheet, Style, Superpower

OPTIONS = LtlOptions()


def d(die: str) -> Rating:
    return Rating.of(die)


def make(name: str, base: str, *, healing: tuple[str, ...] = (), **styles: str) -> Hero:
    sheet = HeroSheet(
        name,
        d(base),
        d("d6"),
        d("d6"),
        tuple(Style(n, d(r)) for n, r in styles.items()),
        superpowers=tuple(Superpower(p, healing=True) for p in healing),
    )
    return Hero.from_sheet(sheet)


MEDIC = make("Medic", "d8", healing=("Healing", "First Aid"), Healing="d12")


def wounded(levels: int, kind: LossType = LossType.PHYSICAL, base: str = "d10") -> Hero:
    return lose_levels(make("Brick", base), levels, kind)


def test_success_removes_every_lost_level() -> None:
    # R-LTL-15: two levels lost -> (2 + 1) minus one level = 2 levels = d6
    patient = wounded(2)
    with ScriptedRng([(12, 7), (6, 4)]) as rng:
        result = heal(MEDIC, patient, rng, OPTIONS, power="Healing")
    assert result.difficulty == Difficulty(d("d6"))
    assert result.rating == d("d12")
    assert result.healer_throw.rolls == (DieRoll(12, (7,)),)
    assert result.difficulty_throw.rolls == (DieRoll(6, (4,)),)
    assert result.comparison.outcome is Outcome.WIN
    assert result.healed
    assert result.levels_healed == 2
    assert result.patient.losses == ()
    assert result.patient.base_now() == d("d10")


def test_a_tie_fails_and_changes_nothing() -> None:
    # R-LTL-15, R-LTL-3: a tie changes nothing
    patient = wounded(3)
    with ScriptedRng([(12, 5), (8, 5)]) as rng:
        result = heal(MEDIC, patient, rng, OPTIONS, power="Healing")
    assert result.comparison.outcome is Outcome.TIE
    assert not result.healed
    assert result.levels_healed == 0
    assert result.patient == patient


def test_a_lower_roll_fails() -> None:
    # R-LTL-15
    patient = wounded(1)
    with ScriptedRng([(12, 1), (4, 3)]) as rng:
        result = heal(MEDIC, patient, rng, OPTIONS, power="Healing")
    assert result.comparison.outcome is Outcome.LOSE
    assert result.patient == patient


def test_physical_and_severe_losses_add_up_and_others_stay() -> None:
    # R-LTL-15, R-LTL-6: by default healing treats physical and severe damage; fatigue is untouched
    patient = lose_levels(lose_levels(wounded(1, base="d12"), 2, LossType.SEVERE), 1, LossType.FATIGUE)
    assert healing_difficulty(patient) == Difficulty(d("d8"))
    with ScriptedRng([(12, 9), (8, 2)]) as rng:
        result = heal(MEDIC, patient, rng, OPTIONS, power="Healing")
    assert result.levels_healed == 3
    assert result.patient.losses == (Loss(1, LossType.FATIGUE, True),)


def test_chosen_kinds_only() -> None:
    # R-LTL-15: a Power that cures mind control heals that kind alone
    patient = lose_levels(wounded(2), 1, LossType.MIND_CONTROL)
    kinds = frozenset({LossType.MIND_CONTROL})
    with ScriptedRng([(12, 3), (4, 2)]) as rng:
        result = heal(MEDIC, patient, rng, OPTIONS, power="Healing", kinds=kinds)
    assert result.difficulty == Difficulty(d("d4"))
    assert result.patient.losses == (Loss(2, LossType.PHYSICAL, True),)


def test_six_levels_or_more_is_d20() -> None:
    # R-LTL-15, R-LTL-2: n >= 6 levels is Inconceivable
    patient = wounded(6, base="d20")
    assert patient.base_now() == d("d4")
    with ScriptedRng([(12, 12), (20, 13)]) as rng:
        result = heal(MEDIC, patient, rng, OPTIONS, power="Healing")
    assert result.difficulty == Difficulty(d("d20"))
    assert not result.healed


def test_a_patient_below_d4_needs_an_inconceivable_roll() -> None:
    # R-LTL-15, R-LTL-11: reduced below d4, only three levels lost, still d20
    patient = wounded(3, base="d6")
    assert not patient.base_now().usable
    with ScriptedRng([(12, 12), (20, 4)]) as rng:
        result = heal(MEDIC, patient, rng, OPTIONS, power="Healing")
    assert result.difficulty == Difficulty(d("d20"))
    assert result.healed
    assert result.patient.base_now() == d("d6")
    assert not result.patient.is_defeated()


def test_base_power_is_rolled_without_a_style() -> None:
    # R-LTL-15, R-LTL-3
    with ScriptedRng([(8, 5), (4, 1)]) as rng:
        result = heal(MEDIC, wounded(1), rng, OPTIONS, power="First Aid")  # no Style of its name
    assert result.rating == d("d8")
    assert result.healed


def test_a_wounded_healer_rolls_a_lower_die() -> None:
    # R-LTL-15, R-LTL-4: the Healing Style moves down with the healer's lost base Power
    healer = lose_levels(MEDIC, 1, LossType.FATIGUE)
    with ScriptedRng([(10, 3), (4, 3)]) as rng:
        result = heal(healer, wounded(1), rng, OPTIONS, power="Healing")
    assert result.rating == d("d10")
    assert not result.healed


def test_a_hero_may_heal_itself() -> None:
    # R-LTL-15: regeneration; the wounded Troll rolls Regeneration d12 two levels down, a d8
    troll = lose_levels(make("Troll", "d10", healing=("Regeneration",), Regeneration="d12"), 2, LossType.PHYSICAL)
    with ScriptedRng([(8, 6), (6, 5)]) as rng:
        result = heal(troll, troll, rng, OPTIONS)  # its only healing Power
    assert result.patient.losses == ()


def test_criticals_are_reported() -> None:
    # R-LTL-15, R-LTL-8
    with ScriptedRng([(12, 12), (4, 1)]) as rng:
        result = heal(MEDIC, wounded(1), rng, OPTIONS, power="Healing")
    assert result.comparison.critical is Critical.SUCCESS


def test_nothing_to_heal_is_refused_before_any_roll() -> None:
    # R-LTL-15
    patient = wounded(2, LossType.FATIGUE)
    with ScriptedRng([]) as rng, pytest.raises(IllegalAction) as err:
        heal(MEDIC, patient, rng, OPTIONS, power="Healing")
    assert err.value.code == "healing/nothing_to_heal"
    assert err.value.ruling == "R-LTL-15"
    assert err.value.fix
    assert patient == wounded(2, LossType.FATIGUE)


def test_a_defeated_healer_cannot_heal() -> None:
    # R-LTL-15, R-LTL-5
    healer = lose_levels(MEDIC, 3, LossType.PHYSICAL)
    patient = wounded(1)
    with ScriptedRng([]) as rng, pytest.raises(IllegalAction) as err:
        heal(healer, patient, rng, OPTIONS, power="Healing")
    assert err.value.code == "hero/defeated"
    assert patient == wounded(1)
    assert healer == lose_levels(MEDIC, 3, LossType.PHYSICAL)


def test_an_unconscious_healer_cannot_heal() -> None:
    # R-LTL-15, R-LTL-11
    healer = replace(MEDIC, unconscious=True)
    with ScriptedRng([]) as rng, pytest.raises(IllegalAction) as err:
        heal(healer, wounded(1), rng, OPTIONS, power="Healing")
    assert err.value.code == "hero/unconscious"


def test_a_healer_without_the_power_is_refused() -> None:
    # R-LTL-15 (amended): only a Superpower marked healing heals
    with ScriptedRng([]) as rng, pytest.raises(IllegalAction) as err:
        heal(MEDIC, wounded(1), rng, OPTIONS, power="Surgery")
    assert err.value.code == "healing/no_power"
    assert "Healing" in err.value.fix and "First Aid" in err.value.fix


def test_a_healer_with_several_healing_powers_names_one() -> None:
    # R-LTL-15
    with ScriptedRng([]) as rng, pytest.raises(IllegalAction) as err:
        heal(MEDIC, wounded(1), rng, OPTIONS)
    assert err.value.code == "healing/which_power"
