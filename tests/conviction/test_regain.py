"""Regaining Conviction: Nature, dramatic scenes, and setbacks above the maximum (R-CV-2, R-CV-13)."""

from __future__ import annotations

import pytest

from herotable.conviction import (
    Conditions,
    DamageKind,
    Lethal,
    NatureTrait,
    Setback,
    announce,
    apply_regain_check,
    apply_toughness_save,
    award_nature,
    end_scene,
    gain_from_setback,
    regain_check,
    toughness_save,
)
from herotable.conviction.hero import Hero
from herotable.dice import ScriptedRng
from herotable.errors import IllegalAction

from .helpers import make_hero


def test_acting_on_nature_regains_a_point() -> None:
    # R-CV-13
    hero = award_nature(make_hero(conviction=1), NatureTrait.VICE)
    assert hero.conviction == 2


def test_no_nature_award_at_the_maximum() -> None:
    # R-CV-2, R-CV-13: 3 is the level-1 maximum
    with pytest.raises(IllegalAction) as caught:
        award_nature(make_hero(conviction=3), NatureTrait.VIRTUE)
    assert caught.value.code == "conviction/at_maximum"
    assert caught.value.ruling == "R-CV-2"


def regain(hero: Hero, face: int) -> Hero:
    with ScriptedRng([(20, face)]) as rng:
        hero, check = regain_check(hero, rng)
    return apply_regain_check(hero, announce(check))


@pytest.mark.parametrize(("face", "gained"), [(9, 1), (8, 0), (20, 1)])
def test_charisma_check_against_ten_after_a_dramatic_scene(face: int, gained: int) -> None:
    # R-CV-13: Charisma +1, so a face of 9 makes 10
    hero = end_scene(make_hero(conviction=1), dramatic=True)
    assert regain(hero, face).conviction == 1 + gained


def test_one_regain_check_per_dramatic_scene_and_none_after_an_ordinary_one() -> None:
    # R-CV-13
    hero = regain(end_scene(make_hero(conviction=0), dramatic=True), 2)
    with pytest.raises(IllegalAction) as caught, ScriptedRng([]) as rng:
        regain_check(hero, rng)
    assert caught.value.code == "conviction/no_regain_check"
    with pytest.raises(IllegalAction), ScriptedRng([]) as rng:
        regain_check(end_scene(hero), rng)


def test_no_regain_check_at_the_maximum() -> None:
    # R-CV-2, R-CV-13
    with pytest.raises(IllegalAction) as caught, ScriptedRng([]) as rng:
        regain_check(end_scene(make_hero(), dramatic=True), rng)
    assert caught.value.code == "conviction/at_maximum"


@pytest.mark.parametrize("setback", list(Setback))
def test_setbacks_give_a_point_even_above_the_maximum(setback: Setback) -> None:
    # R-CV-2, R-CV-13
    hero = gain_from_setback(make_hero(conviction=3), setback)
    assert hero.conviction == 4 > hero.conviction_max


def save(hero: Hero, face: int, *, kind: DamageKind, by_enemy: bool = True) -> Hero:
    with ScriptedRng([face]) as rng:  # Toughness +2 against 15 + 3
        check = toughness_save(hero, rng, damage_bonus=3, kind=kind)
    return apply_toughness_save(hero, announce(check), by_enemy=by_enemy)


def test_being_knocked_out_gives_a_point_above_the_maximum() -> None:
    # R-CV-13: fails by 15 against non-lethal damage: unconscious
    hero = save(make_hero(conviction=3), 1, kind=DamageKind.NONLETHAL)
    assert hero.conditions.unconscious
    assert hero.conviction == 4


def test_being_disabled_by_an_enemy_gives_a_point_but_not_by_a_fall() -> None:
    # R-CV-13: fails by 10 against lethal damage: disabled
    assert save(make_hero(conviction=3), 6, kind=DamageKind.LETHAL).conviction == 4
    assert save(make_hero(conviction=3), 6, kind=DamageKind.LETHAL, by_enemy=False).conviction == 3


def test_lesser_results_and_conditions_already_held_give_nothing() -> None:
    # R-CV-13
    assert save(make_hero(conviction=1), 12, kind=DamageKind.LETHAL).conviction == 1
    out = make_hero(Conditions(lethal=Lethal.DISABLED), conviction=1)
    assert save(out, 11, kind=DamageKind.LETHAL).conviction == 1


def test_the_dead_gain_nothing() -> None:
    # R-CV-13
    with pytest.raises(IllegalAction):
        gain_from_setback(make_hero(Conditions(lethal=Lethal.DEAD)), Setback.MIND_CONTROLLED_BY_ENEMY)
    assert save(make_hero(Conditions(lethal=Lethal.DYING)), 1, kind=DamageKind.LETHAL).conviction == 3
