"""The conditions track: Toughness saves, escalation, stun, staggered, disabled, dying, fatigue, recovery (R-CV-8)."""

from __future__ import annotations

import pytest

from herotable.conviction import (
    ActionKind,
    CampaignOptions,
    Conditions,
    DamageKind,
    DisabledActions,
    Fatigue,
    Lethal,
    NonLethal,
    add_fatigue,
    announce,
    apply_dying_check,
    apply_recovery_check,
    apply_toughness_save,
    dying_check,
    recovery_check,
    remaining_actions,
    rest,
    start_round,
    stun,
    take_action,
    toughness_save,
)
from herotable.conviction.hero import Hero
from herotable.dice import ScriptedRng
from herotable.errors import IllegalAction

from .helpers import make_hero

CORE = CampaignOptions(disabled_actions=DisabledActions.STANDARD_OR_MOVE)


def save(hero: Hero, face: int, *, damage_bonus: int, kind: DamageKind, by_enemy: bool = True) -> Hero:
    with ScriptedRng([(20, face)]) as rng:
        check = toughness_save(hero, rng, damage_bonus=damage_bonus, kind=kind)
    return apply_toughness_save(hero, announce(check), by_enemy=by_enemy)


# Toughness +2 against 15 + 3 = 18: the face decides the degree of failure.
LETHAL_TABLE = [
    (16, 0, Lethal.NONE, False),  # 18: saved
    (15, 1, Lethal.NONE, False),  # fails by 1: hurt
    (12, 1, Lethal.NONE, False),  # fails by 4: hurt
    (11, 1, Lethal.WOUNDED, True),  # fails by 5: wounded and dazed
    (7, 1, Lethal.WOUNDED, True),  # fails by 9
    (6, 1, Lethal.DISABLED, False),  # fails by 10: disabled
    (2, 1, Lethal.DISABLED, False),  # fails by 14
    (1, 1, Lethal.DYING, False),  # fails by 15: dying
]


@pytest.mark.parametrize(("face", "hurt", "lethal", "dazed"), LETHAL_TABLE)
def test_lethal_damage_by_degree(face: int, hurt: int, lethal: Lethal, dazed: bool) -> None:
    # R-CV-8
    hero = save(make_hero(), face, damage_bonus=3, kind=DamageKind.LETHAL)
    assert hero.conditions.hurt == hurt
    assert hero.conditions.bruised == 0
    assert hero.conditions.lethal is lethal
    assert hero.conditions.dazed is dazed


@pytest.mark.parametrize(
    ("face", "bruised", "nonlethal", "dazed"),
    [
        (16, 0, NonLethal.NONE, False),
        (13, 1, NonLethal.NONE, False),
        (10, 1, NonLethal.DAZED, True),
        (5, 1, NonLethal.STAGGERED, False),
        (1, 1, NonLethal.UNCONSCIOUS, False),
    ],
)
def test_non_lethal_damage_by_degree(face: int, bruised: int, nonlethal: NonLethal, dazed: bool) -> None:
    # R-CV-8
    hero = save(make_hero(), face, damage_bonus=3, kind=DamageKind.NONLETHAL)
    assert hero.conditions.bruised == bruised
    assert hero.conditions.hurt == 0
    assert hero.conditions.nonlethal is nonlethal
    assert hero.conditions.dazed is dazed


def test_disabled_is_also_staggered_and_dying_is_unconscious() -> None:
    # R-CV-8
    assert Conditions(lethal=Lethal.DISABLED).staggered
    assert Conditions(lethal=Lethal.DYING).unconscious


def test_hurt_stacks_against_later_lethal_saves_only() -> None:
    # R-CV-8: two hurt → −2 on lethal saves, nothing on non-lethal ones
    hero = make_hero(Conditions(hurt=2))
    with ScriptedRng([10, 10]) as rng:
        lethal = toughness_save(hero, rng, damage_bonus=0, kind=DamageKind.LETHAL)
        nonlethal = toughness_save(hero, rng, damage_bonus=0, kind=DamageKind.NONLETHAL)
    assert lethal.modifier == 2 - 2
    assert nonlethal.modifier == 2
    assert lethal.difficulty == nonlethal.difficulty == 15


def test_bruised_stacks_against_later_non_lethal_saves() -> None:
    # R-CV-8
    hero = save(make_hero(), 14, damage_bonus=3, kind=DamageKind.NONLETHAL)
    hero = save(hero, 14, damage_bonus=3, kind=DamageKind.NONLETHAL)
    assert hero.conditions.bruised == 2
    with ScriptedRng([10]) as rng:
        assert toughness_save(hero, rng, damage_bonus=0, kind=DamageKind.NONLETHAL).modifier == 0


@pytest.mark.parametrize(
    ("held", "face", "becomes"),
    [
        (Lethal.WOUNDED, 11, Lethal.DISABLED),  # wounded again → disabled
        (Lethal.DISABLED, 6, Lethal.DYING),  # disabled again → dying
        (Lethal.DYING, 1, Lethal.DEAD),  # dying again → dead
        (Lethal.DISABLED, 11, Lethal.DISABLED),  # a lesser result leaves the worse one
        (Lethal.WOUNDED, 1, Lethal.DYING),  # a greater result replaces it
    ],
)
def test_a_lethal_result_already_held_becomes_the_next_one_up(held: Lethal, face: int, becomes: Lethal) -> None:
    # R-CV-8
    hero = save(make_hero(Conditions(lethal=held)), face, damage_bonus=3, kind=DamageKind.LETHAL)
    assert hero.conditions.lethal is becomes


@pytest.mark.parametrize(
    ("held", "face", "becomes"),
    [
        (NonLethal.DAZED, 10, NonLethal.STAGGERED),
        (NonLethal.STAGGERED, 5, NonLethal.UNCONSCIOUS),
        (NonLethal.UNCONSCIOUS, 1, NonLethal.UNCONSCIOUS),
    ],
)
def test_a_non_lethal_result_already_held_becomes_the_next_one_up(
    held: NonLethal, face: int, becomes: NonLethal
) -> None:
    # R-CV-8
    hero = save(make_hero(Conditions(nonlethal=held)), face, damage_bonus=3, kind=DamageKind.NONLETHAL)
    assert hero.conditions.nonlethal is becomes


def test_a_pending_save_cannot_be_applied() -> None:
    # R-CV-4, R-CV-8
    hero = make_hero()
    with ScriptedRng([1]) as rng:
        check = toughness_save(hero, rng, damage_bonus=5, kind=DamageKind.LETHAL)
    with pytest.raises(IllegalAction) as caught:
        apply_toughness_save(hero, check)
    assert caught.value.code == "check/pending"


def test_stunned_before_acting_loses_the_rest_of_this_round_only() -> None:
    # R-CV-8: only reactions for a round
    hero = stun(make_hero())
    assert take_action(hero, ActionKind.REACTION) == hero
    with pytest.raises(IllegalAction) as caught:
        take_action(hero, ActionKind.MOVE)
    assert caught.value.code == "actions/cannot_act"
    hero = start_round(hero)
    assert not hero.conditions.stunned
    take_action(hero, ActionKind.STANDARD)


def test_stunned_after_acting_loses_the_next_round() -> None:
    # R-CV-8
    hero = stun(take_action(make_hero(), ActionKind.STANDARD))
    hero = start_round(hero)
    assert hero.conditions.stunned
    with pytest.raises(IllegalAction):
        take_action(hero, ActionKind.MOVE)
    assert not start_round(hero).conditions.stunned


def test_a_normal_round_is_a_standard_and_a_move_or_one_full_round() -> None:
    hero = make_hero()
    assert remaining_actions(hero) == remaining_actions(hero).__class__(standard=1, move=2, full_round=True)
    hero = take_action(take_action(hero, ActionKind.STANDARD), ActionKind.MOVE)
    with pytest.raises(IllegalAction, match="no move action left"):
        take_action(hero, ActionKind.MOVE)
    take_action(make_hero(), ActionKind.FULL_ROUND)


def test_staggered_takes_one_standard_or_move_action() -> None:
    # R-CV-8
    hero = make_hero(Conditions(nonlethal=NonLethal.STAGGERED))
    moved = take_action(hero, ActionKind.MOVE)
    with pytest.raises(IllegalAction):
        take_action(moved, ActionKind.STANDARD)
    take_action(hero, ActionKind.STANDARD)
    with pytest.raises(IllegalAction):
        take_action(hero, ActionKind.FULL_ROUND)


def test_disabled_moves_only_by_default() -> None:
    # R-CV-8 (DPoNI)
    hero = make_hero(Conditions(lethal=Lethal.DISABLED))
    moved = take_action(hero, ActionKind.MOVE)
    assert moved.conditions.lethal is Lethal.DISABLED
    with pytest.raises(IllegalAction) as caught:
        take_action(hero, ActionKind.STANDARD)
    assert caught.value.code == "actions/none_left"


def test_disabled_takes_a_standard_action_under_core_true20_and_drops_to_dying() -> None:
    # R-CV-8 campaign option
    hero = make_hero(Conditions(lethal=Lethal.DISABLED))
    acted = take_action(hero, ActionKind.STANDARD, CORE)
    assert acted.conditions.lethal is Lethal.DYING
    assert take_action(hero, ActionKind.MOVE, CORE).conditions.lethal is Lethal.DISABLED
    with pytest.raises(IllegalAction):
        take_action(take_action(hero, ActionKind.MOVE, CORE), ActionKind.MOVE, CORE)


def test_a_strenuous_action_while_disabled_drops_to_dying() -> None:
    # R-CV-8: the GM calls this move strenuous
    hero = make_hero(Conditions(lethal=Lethal.DISABLED))
    assert take_action(hero, ActionKind.MOVE, strenuous=True).conditions.dying


@pytest.mark.parametrize(
    ("face", "lethal", "nonlethal"),
    [
        (8, Lethal.DEAD, NonLethal.NONE),  # 8 + 1 = 9 < 10: dead
        (9, Lethal.DYING, NonLethal.NONE),  # 10: still dying
        (18, Lethal.DYING, NonLethal.NONE),  # 19: succeeds by 9, still dying
        (19, Lethal.DISABLED, NonLethal.UNCONSCIOUS),  # 20: succeeds by 10, stable
    ],
)
def test_dying_check_each_round(face: int, lethal: Lethal, nonlethal: NonLethal) -> None:
    # R-CV-8: Constitution (+1) against 10
    hero = make_hero(Conditions(lethal=Lethal.DYING))
    with ScriptedRng([face]) as rng:
        hero, check = dying_check(hero, rng)
    assert check.modifier == 1 and check.difficulty == 10
    hero = apply_dying_check(hero, announce(check))
    assert hero.conditions.lethal is lethal
    assert hero.conditions.nonlethal is nonlethal


def test_one_dying_check_a_round() -> None:
    # R-CV-8
    hero = make_hero(Conditions(lethal=Lethal.DYING))
    with ScriptedRng([12, 12]) as rng:
        hero, _ = dying_check(hero, rng)
        with pytest.raises(IllegalAction) as caught:
            dying_check(hero, rng)
        assert caught.value.code == "conditions/dying_check_made"
        dying_check(start_round(hero), rng)


def test_the_dead_stay_dead_and_the_unconscious_cannot_react() -> None:
    # R-CV-8
    dead = make_hero(Conditions(lethal=Lethal.DEAD))
    assert save(dead, 1, damage_bonus=10, kind=DamageKind.LETHAL).conditions == dead.conditions
    out = make_hero(Conditions(nonlethal=NonLethal.UNCONSCIOUS))
    with pytest.raises(IllegalAction, match="cannot react"):
        take_action(out, ActionKind.REACTION)


def test_fatigue_track() -> None:
    # R-CV-8: strained → fatigued → exhausted, then unconscious
    hero = make_hero()
    steps = []
    for _ in range(4):
        hero = add_fatigue(hero)
        steps.append((hero.conditions.fatigue, hero.conditions.unconscious))
    assert steps == [
        (Fatigue.STRAINED, False),
        (Fatigue.FATIGUED, False),
        (Fatigue.EXHAUSTED, False),
        (Fatigue.EXHAUSTED, True),
    ]
    assert rest(hero, 2).conditions.fatigue is Fatigue.STRAINED


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (Conditions(lethal=Lethal.DISABLED), Conditions(lethal=Lethal.WOUNDED)),
        (
            Conditions(lethal=Lethal.DISABLED, nonlethal=NonLethal.UNCONSCIOUS),
            Conditions(lethal=Lethal.DISABLED, nonlethal=NonLethal.STAGGERED),
        ),
        (Conditions(lethal=Lethal.WOUNDED, hurt=2), Conditions(hurt=2)),
        (Conditions(nonlethal=NonLethal.STAGGERED), Conditions(nonlethal=NonLethal.DAZED)),
        (Conditions(hurt=2, bruised=1), Conditions(hurt=1, bruised=1)),
        (Conditions(bruised=1), Conditions()),
    ],
)
def test_a_successful_recovery_check_improves_the_worst_condition_one_step(
    before: Conditions, after: Conditions
) -> None:
    # R-CV-8: Constitution (+1) against 10; 9 + 1 succeeds
    hero = make_hero(before)
    with ScriptedRng([9]) as rng:
        check = recovery_check(hero, rng)
    assert apply_recovery_check(hero, announce(check)).conditions == after


def test_a_failed_recovery_check_changes_nothing() -> None:
    # R-CV-8
    hero = make_hero(Conditions(lethal=Lethal.DISABLED))
    with ScriptedRng([8]) as rng:
        check = recovery_check(hero, rng)
    assert apply_recovery_check(hero, announce(check)) == hero


@pytest.mark.parametrize(
    ("conditions", "code"),
    [
        (Conditions(), "conditions/nothing_to_recover"),
        (Conditions(lethal=Lethal.DYING), "conditions/recovery_while_dying"),
    ],
)
def test_recovery_checks_need_damage_to_recover_from(conditions: Conditions, code: str) -> None:
    # R-CV-8
    with ScriptedRng([]) as rng, pytest.raises(IllegalAction) as caught:
        recovery_check(make_hero(conditions), rng)
    assert caught.value.code == code
