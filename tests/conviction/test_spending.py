"""Spending Conviction: the limit, surge, heroic feats, core abilities, recover, escape death
(R-CV-3, R-CV-5, R-CV-6, R-CV-7, R-CV-9, R-CV-10)."""

from __future__ import annotations

from typing import Any

import pytest

from herotable.conviction import (
    ActionKind,
    Conditions,
    DamageKind,
    Fatigue,
    Lethal,
    NonLethal,
    Role,
    ShakeOff,
    announce,
    apply_recovery_check,
    apply_toughness_save,
    can_spend,
    determination,
    end_scene,
    escape_death,
    expertise,
    heroic_feat,
    recover_now,
    recovery_check,
    remaining_actions,
    reroll,
    roll_check,
    sample_catalogue,
    shake_off,
    start_round,
    strenuous_guard,
    stun,
    surge,
    take_action,
    the_talent,
    toughness_save,
    use_talent_power,
)
from herotable.conviction.hero import Hero
from herotable.dice import ScriptedRng
from herotable.errors import RulesError

from .helpers import make_hero

CATALOGUE = sample_catalogue()


def refused(code: str, action: object, *args: object, **kwargs: object) -> RulesError:
    assert callable(action)
    with pytest.raises(RulesError) as caught:
        action(*args, **kwargs)
    assert caught.value.code == code, caught.value
    assert caught.value.fix
    return caught.value


# R-CV-3 ------------------------------------------------------------------------------------------------------


def test_one_point_per_round() -> None:
    # R-CV-3
    hero = surge(make_hero(), ActionKind.MOVE)
    error = refused("conviction/once_per_round", surge, hero, ActionKind.MOVE)
    assert error.ruling == "R-CV-3"
    assert not can_spend(hero)
    again = surge(start_round(hero), ActionKind.MOVE)
    assert again.conviction == 1


def test_a_disabled_hero_spends_three_in_a_round_then_none_after_a_conviction_recovery_clears_disabled() -> None:
    # R-CV-3 (the seed's own case): level 3, four points, Disabled
    hero = make_hero(Conditions(lethal=Lethal.DISABLED), level=3, conviction=4, combat_bonus=2)
    hero = strenuous_guard(hero)
    hero = surge(hero, ActionKind.MOVE)
    with ScriptedRng([(20, 15)]) as rng:  # Constitution +1: 16 against 10
        hero, check = recover_now(hero, rng)
    assert hero.conviction == 1
    assert hero.turn.spent == 3
    # R-CV-3 (amended): while the bought check is pending, its own re-roll is the only spend
    assert not can_spend(hero) and can_spend(hero, recovery_reroll=True)
    hero = apply_recovery_check(hero, announce(check))
    assert not hero.conditions.disabled
    assert hero.conditions.lethal is Lethal.WOUNDED
    refused("conviction/recovered_from_disabled", surge, hero, ActionKind.MOVE)
    assert can_spend(start_round(hero))


def test_a_natural_recovery_from_disabled_leaves_the_normal_limit() -> None:
    # R-CV-3: only a Conviction-bought check closes spending; the one-a-round limit still applies
    hero = make_hero(Conditions(lethal=Lethal.DISABLED))
    with ScriptedRng([15]) as rng:
        check = recovery_check(hero, rng)
    hero = apply_recovery_check(hero, announce(check))
    assert not hero.turn.spending_closed
    assert can_spend(hero)


def test_a_failed_conviction_recovery_keeps_a_disabled_hero_spending() -> None:
    # R-CV-3
    hero = make_hero(Conditions(lethal=Lethal.DISABLED))
    with ScriptedRng([2]) as rng:
        hero, check = recover_now(hero, rng)
    hero = apply_recovery_check(hero, announce(check))
    assert hero.conditions.disabled
    assert can_spend(hero)


# R-CV-5 ------------------------------------------------------------------------------------------------------


def test_surge_gives_one_more_action_this_round() -> None:
    # R-CV-5
    hero = take_action(take_action(make_hero(), ActionKind.STANDARD), ActionKind.MOVE)
    hero = surge(hero, ActionKind.STANDARD)
    hero = take_action(hero, ActionKind.STANDARD)
    assert remaining_actions(hero).standard == 0
    assert start_round(hero).turn.extra_standard == 0


def test_a_surge_standard_completes_a_full_round_action_with_the_normal_actions() -> None:
    # R-CV-5: after a normal standard action, surge standard + normal move make a full-round action
    hero = take_action(make_hero(), ActionKind.STANDARD)
    assert not remaining_actions(hero).full_round
    hero = surge(hero, ActionKind.STANDARD)
    hero = take_action(hero, ActionKind.FULL_ROUND)
    assert remaining_actions(hero).move == 0


def test_surge_is_a_standard_or_a_move_action_only() -> None:
    # R-CV-5
    refused("conviction/surge_kind", surge, make_hero(), ActionKind.FULL_ROUND)


def test_no_surge_while_stunned() -> None:
    # R-CV-5, R-CV-8
    refused("conviction/cannot_act", surge, stun(make_hero()), ActionKind.MOVE)


# R-CV-6 ------------------------------------------------------------------------------------------------------


def test_heroic_feat_for_one_round() -> None:
    # R-CV-6: Warrior with Strength +2 gains Heavy Swing (martial) for the round
    hero = heroic_feat(make_hero(), "Heavy Swing", CATALOGUE)
    assert hero.feat_count("Heavy Swing") == 1
    assert hero.conviction == 2
    assert start_round(hero).feat_count("Heavy Swing") == 0


def test_heroic_feat_needs_a_category_open_to_the_roles() -> None:
    # R-CV-6: Spirit Sight is supernatural, open to Adepts only
    error = refused("conviction/feat_out_of_reach", heroic_feat, make_hero(), "Spirit Sight", CATALOGUE)
    assert "adept" in str(error)


def test_heroic_feat_needs_the_prerequisites() -> None:
    # R-CV-6: Follow-Through needs Heavy Swing on the sheet and combat bonus +2
    error = refused("conviction/feat_out_of_reach", heroic_feat, make_hero(), "Follow-Through", CATALOGUE)
    assert "Heavy Swing" in str(error) and "combat bonus +2" in str(error)
    able = make_hero(level=2, combat_bonus=2, feats=("Heavy Swing",))
    assert heroic_feat(able, "Follow-Through", CATALOGUE).feat_count("Follow-Through") == 1


def test_a_feat_held_for_the_round_does_not_meet_prerequisites() -> None:
    # R-CV-6: "capable of acquiring the feat normally"
    hero = make_hero(Conditions(lethal=Lethal.DISABLED), level=2, combat_bonus=2)
    hero = heroic_feat(hero, "Heavy Swing", CATALOGUE)
    refused("conviction/feat_out_of_reach", heroic_feat, hero, "Follow-Through", CATALOGUE)


def test_a_non_repeatable_feat_already_held_is_refused_and_a_repeatable_one_stacks() -> None:
    # R-CV-6
    refused("conviction/feat_already_held", heroic_feat, make_hero(feats=("Sea Legs",)), "Sea Legs", CATALOGUE)
    hero = make_hero(feats=("Weapon Drill",))
    assert heroic_feat(hero, "Weapon Drill", CATALOGUE).feat_count("Weapon Drill") == 2


def test_an_expert_reaches_expert_feats_and_a_multi_role_hero_reaches_both() -> None:
    # R-CV-6
    expert = make_hero(roles=(Role.EXPERT,), first_role=Role.EXPERT)
    assert heroic_feat(expert, "Keen Eye", CATALOGUE).feat_count("Keen Eye") == 1
    refused("conviction/feat_out_of_reach", heroic_feat, expert, "Heavy Swing", CATALOGUE)
    both = make_hero(level=2, roles=(Role.EXPERT, Role.WARRIOR), first_role=Role.EXPERT)
    heroic_feat(both, "Heavy Swing", CATALOGUE)


def test_an_unknown_feat_is_refused() -> None:
    refused("conviction/unknown_feat", heroic_feat, make_hero(), "Moon Boots", CATALOGUE)


# R-CV-7 ------------------------------------------------------------------------------------------------------


def adept(**changes: Any) -> Hero:
    return make_hero(roles=(Role.ADEPT,), first_role=Role.ADEPT, **changes)


def test_the_talent_grants_one_use_of_a_power_the_adept_lacks() -> None:
    # R-CV-7
    hero = the_talent(adept(), power="Storm Calling")
    assert hero.power_uses("Storm Calling") == 1
    used = use_talent_power(hero, "Storm Calling")
    assert used.power_uses("Storm Calling") == 0
    refused("conviction/no_power_use", use_talent_power, used, "Storm Calling")
    refused("conviction/power_already_known", the_talent, adept(feats=("Spirit Sight",)), power="Spirit Sight")


def test_the_talent_clears_power_fatigue() -> None:
    # R-CV-7
    hero = the_talent(adept(conditions=Conditions(fatigue=Fatigue.EXHAUSTED)))
    assert hero.conditions.fatigue is Fatigue.NONE
    refused("conviction/no_power_fatigue", the_talent, adept())


def test_expertise_adds_four_ranks_for_the_scene() -> None:
    # R-CV-7
    expert = make_hero(roles=(Role.EXPERT,), first_role=Role.EXPERT)
    hero = expertise(expert, "Notice")
    assert hero.skill_rank("Notice") == 4 + 4
    assert start_round(hero).skill_rank("Notice") == 8
    assert end_scene(hero).skill_rank("Notice") == 4
    refused("conviction/expertise_held", expertise, start_round(hero), "notice")


def test_determination_removes_every_bruised_and_hurt() -> None:
    # R-CV-7
    hero = make_hero(Conditions(bruised=2, hurt=3, lethal=Lethal.WOUNDED))
    cleared = determination(hero)
    assert cleared.conditions == Conditions(lethal=Lethal.WOUNDED)
    refused("conviction/nothing_to_remove", determination, make_hero())


@pytest.mark.parametrize(
    ("first", "use", "args"),
    [
        (Role.WARRIOR, the_talent, ()),
        (Role.ADEPT, expertise, ("Notice",)),
        (Role.EXPERT, determination, ()),
    ],
)
def test_core_abilities_belong_to_the_first_level_role_only(first: Role, use: object, args: tuple[object, ...]) -> None:
    # R-CV-7: the hero has all three roles, but only the 1st-level one gives its core ability
    hero = make_hero(
        Conditions(hurt=1, fatigue=Fatigue.STRAINED),
        level=3,
        combat_bonus=2,
        roles=(Role.ADEPT, Role.EXPERT, Role.WARRIOR),
        first_role=first,
    )
    error = refused("conviction/not_first_role", use, hero, *args)
    assert error.ruling == "R-CV-7"


# R-CV-9 ------------------------------------------------------------------------------------------------------


def test_recover_shakes_off_stunned() -> None:
    # R-CV-9
    hero = shake_off(stun(make_hero()), ShakeOff.STUNNED)
    assert not hero.conditions.stunned
    take_action(hero, ActionKind.STANDARD)
    refused("conviction/not_stunned", shake_off, make_hero(), ShakeOff.STUNNED)


def test_recover_shakes_off_strained_but_not_worse_fatigue() -> None:
    # R-CV-9
    hero = shake_off(make_hero(Conditions(fatigue=Fatigue.STRAINED)), ShakeOff.STRAINED)
    assert hero.conditions.fatigue is Fatigue.NONE
    refused("conviction/not_strained", shake_off, make_hero(Conditions(fatigue=Fatigue.FATIGUED)), ShakeOff.STRAINED)


def test_recover_buys_an_extra_recovery_check() -> None:
    # R-CV-9
    hero = make_hero(Conditions(nonlethal=NonLethal.STAGGERED))
    with ScriptedRng([12]) as rng:
        hero, check = recover_now(hero, rng)
    assert check.bought_with_conviction
    assert apply_recovery_check(hero, announce(check)).conditions.nonlethal is NonLethal.DAZED
    refused("conditions/nothing_to_recover", recover_now, make_hero(), ScriptedRng([]))


def test_recover_lets_a_disabled_hero_act_strenuously_this_round() -> None:
    # R-CV-9
    hero = strenuous_guard(make_hero(Conditions(lethal=Lethal.DISABLED)))
    hero = take_action(hero, ActionKind.MOVE, strenuous=True)
    assert hero.conditions.disabled
    hero = start_round(hero)
    assert take_action(hero, ActionKind.MOVE, strenuous=True).conditions.dying
    refused("conviction/not_disabled", strenuous_guard, make_hero())


# R-CV-10 -----------------------------------------------------------------------------------------------------


def test_escape_death_stabilises_yourself() -> None:
    # R-CV-10
    hero = make_hero(Conditions(lethal=Lethal.DYING, hurt=3))
    saved, same = escape_death(hero)
    assert saved is same
    assert saved.conditions == Conditions(lethal=Lethal.DISABLED, nonlethal=NonLethal.UNCONSCIOUS, hurt=3)
    assert saved.conviction == 2


def test_escape_death_for_an_ally_you_are_assisting() -> None:
    # R-CV-10
    ally = make_hero(Conditions(lethal=Lethal.DYING), name="Ossa")
    spender, saved = escape_death(make_hero(), ally, assisting=True)
    assert spender.conviction == 2 and saved.conviction == 3
    assert saved.conditions.stable
    refused("conviction/not_assisting", escape_death, make_hero(), ally)
    refused("conviction/not_dying", escape_death, make_hero(), make_hero(name="Ossa"), assisting=True)


def test_escape_death_gives_no_protection_from_further_damage() -> None:
    # R-CV-10
    saved, _ = escape_death(make_hero(Conditions(lethal=Lethal.DYING)))
    with ScriptedRng([6]) as rng:  # 6 + 2 against 18 fails by 10: a disabled result on a disabled hero
        check = toughness_save(saved, rng, damage_bonus=3, kind=DamageKind.LETHAL)
    assert apply_toughness_save(saved, announce(check)).conditions.dying


def test_the_dead_cannot_spend() -> None:
    # R-CV-3
    dead = make_hero(Conditions(lethal=Lethal.DEAD))
    with ScriptedRng([4]) as rng:
        check = roll_check(rng, dead.name, "last words", 0, 10)
    refused("conviction/dead", reroll, dead, check, ScriptedRng([]))


def test_a_dying_hero_can_spend_on_escaping_death_but_not_on_surging() -> None:
    # R-CV-3, R-CV-10
    dying = make_hero(Conditions(lethal=Lethal.DYING))
    refused("conviction/cannot_act", surge, dying, ActionKind.MOVE)
    assert escape_death(dying)[0].conditions.stable
