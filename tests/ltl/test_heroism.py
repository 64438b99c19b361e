"""Heroism (R-LTL-11): burning, Pushing, Recovery; and the optional stun rule (R-LTL-18)."""

from __future__ import annotations

import pytest

from herotable.dice import Rating, ScriptedRng
from herotable.errors import IllegalAction, NotEnough
from herotable.ltl.difficulty import Difficulty
from herotable.ltl.hero import LossType, end_adventure, finish_action, lose_levels, restore_heroism
from herotable.ltl.heroism import push, recover, recovery_difficulty, stun_check
from herotable.ltl.options import LtlOptions
from herotable.ltl.resources import burn_heroism

OPTS = LtlOptions()


def test_heroism_at_d4_may_burn_two_levels_and_the_hero_collapses_after_the_action(hero_of):
    # R-LTL-11: unlike Karma
    hero = burn_heroism(hero_of(heroism="d4"), 2)
    assert not hero.heroism.usable and hero.collapses_after_action and not hero.unconscious
    assert finish_action(hero).unconscious


def test_heroism_below_d4_is_unusable(hero_of):
    # R-LTL-11
    hero = burn_heroism(hero_of(heroism="d4"), 1)
    with pytest.raises(NotEnough) as err:
        burn_heroism(hero, 1)
    assert err.value.code == "heroism/below_d4"
    with pytest.raises(NotEnough), ScriptedRng([]) as rng:
        push(hero, rng, OPTS)


def test_heroism_d20_to_d12_is_two_levels(hero_of):
    # R-LTL-11
    assert burn_heroism(hero_of(heroism="d20"), 2).heroism == Rating.of("d12")


def test_push_by_roll_against_the_die_pushed_to(hero_of):
    # R-LTL-11: base Power (and Styles) +1 step; Heroism rolls against the highest die the Push creates (amended:
    # Blades' d12, not base Power's d10)
    hero = hero_of(base="d8", heroism="d12", styles={"Blades": "d10"})
    with ScriptedRng([(12, 7), (12, 6)]) as rng:
        result = push(hero, rng, OPTS)
    assert result.succeeded and result.hero.pushed
    assert result.hero.rating_for(None) == Rating.of("d10")
    assert result.hero.rating_for("Blades") == Rating.of("d12")
    assert result.hero.heroism == hero.heroism  # rolled, not burned
    assert not finish_action(result.hero).pushed  # lasts one challenge or round


def test_push_roll_tie_fails(hero_of):
    # R-LTL-3, R-LTL-11: a tie changes nothing
    hero = hero_of(base="d8", heroism="d12")
    with ScriptedRng([(12, 6), (10, 6)]) as rng:
        result = push(hero, rng, OPTS)
    assert not result.succeeded and not result.hero.pushed


def test_push_to_d20_costs_two_burned_levels_or_an_inconceivable_roll(hero_of):
    # R-LTL-11
    hero = hero_of(base="d12", heroism="d10", styles={"Wits": "d20"})
    burned = push(hero, ScriptedRng([]), OPTS, burn=True)
    assert burned.burned == 2 and burned.hero.heroism == Rating.of("d6")
    assert burned.hero.rating_for(None) == Rating.of("d20")
    with ScriptedRng([(10, 9), (20, 8)]) as rng:
        rolled = push(hero, rng, OPTS)
    assert rolled.succeeded and rolled.hero.rating_for("Wits") == Rating.of("d20")


def test_push_by_burning_one_level(hero_of):
    # R-LTL-11
    result = push(hero_of(base="d6", heroism="d8"), ScriptedRng([]), OPTS, burn=True)
    assert result.burned == 1 and result.hero.heroism == Rating.of("d6") and result.hero.pushed


def test_nothing_pushes_beyond_d20(hero_of):
    # R-LTL-11
    with pytest.raises(IllegalAction) as err:
        push(hero_of(base="d20"), ScriptedRng([]), OPTS, burn=True)
    assert err.value.code == "heroism/push_beyond_d20"


def test_recovery_difficulty_is_levels_lost_plus_one(hero_of):
    # R-LTL-11
    hero = lose_levels(lose_levels(hero_of(base="d12"), 1, LossType.PHYSICAL), 1, LossType.MIND_CONTROL)
    assert recovery_difficulty(hero) == Difficulty.levels(3)
    with ScriptedRng([(8, 7), (8, 4)]) as rng:
        result = recover(hero, rng, OPTS)
    assert result.succeeded and result.hero.losses == ()


def test_recovery_from_below_d4_is_inconceivable_or_two_burned_levels(hero_of):
    # R-LTL-11
    hero = lose_levels(hero_of(base="d6", heroism="d10"), 3, LossType.PHYSICAL)
    assert hero.is_defeated()
    assert recovery_difficulty(hero).sides == 20
    burned = recover(hero, ScriptedRng([]), OPTS, burn=True)
    assert burned.burned == 2 and burned.hero.heroism == Rating.of("d6")
    assert not burned.hero.is_defeated() and burned.hero.base_now() == Rating.of("d6")


def test_failed_recovery_changes_nothing(hero_of):
    hero = lose_levels(hero_of(base="d10", heroism="d6"), 2, LossType.PHYSICAL)
    with ScriptedRng([(6, 2), (8, 5)]) as rng:
        result = recover(hero, rng, OPTS)
    assert not result.succeeded and result.hero == hero


def test_nothing_to_recover_is_refused(hero_of):
    with pytest.raises(IllegalAction) as err:
        recover(hero_of(), ScriptedRng([]), OPTS)
    assert err.value.code == "heroism/nothing_to_recover"


def test_burned_heroism_returns_in_full_at_the_next_adventure_or_when_the_gm_says(hero_of):
    # R-LTL-11
    hero = burn_heroism(hero_of(heroism="d10"), 2)
    assert end_adventure(hero).heroism == Rating.of("d10")
    assert restore_heroism(hero).heroism == Rating.of("d10")


def test_stun_check_failure_stuns_and_critical_failure_knocks_out(hero_of):
    # R-LTL-18
    opts = LtlOptions(stun_on_damage=True)
    hero = hero_of(heroism="d6")
    with ScriptedRng([(6, 2), (6, 4)]) as rng:  # two levels just lost: d6 difficulty
        stunned = stun_check(hero, 2, rng, opts)
    assert stunned.hero.stunned and not stunned.hero.unconscious
    with ScriptedRng([(6, 1), (6, 6)]) as rng:
        out = stun_check(hero, 2, rng, opts)
    assert out.hero.unconscious
    with ScriptedRng([(6, 5), (6, 4)]) as rng:
        assert stun_check(hero, 2, rng, opts).hero == hero
    with pytest.raises(IllegalAction) as err:
        stun_check(hero, 2, ScriptedRng([]), OPTS)
    assert err.value.code == "stun/option_off"


def test_a_push_that_makes_a_style_d20_is_pushing_to_d20(hero_of):
    # R-LTL-11 (amended): a d12 Style on a d10 base becomes d20 by the Push: two burned levels or Inconceivable
    hero = hero_of(base="d10", heroism="d10", styles={"Fisticuffs": "d12"})
    burned = push(hero, ScriptedRng([]), OPTS, burn=True)
    assert burned.burned == 2 and burned.hero.heroism == Rating.of("d6")
    assert burned.hero.rating_for("Fisticuffs") == Rating.of("d20") and burned.hero.rating_for(None) == Rating.of("d12")
    with ScriptedRng([(10, 9), (20, 8)]) as rng:  # rolled against the d20, not the d12 base Power reaches
        assert push(hero, rng, OPTS).succeeded


def test_a_hero_whose_every_rating_already_rolls_d20_cannot_push(hero_of):
    # R-LTL-11 (amended): a rating already rolling d20 (position 7 or 6) stays d20; with nothing left to raise the
    # Push is refused with a tip
    worn = lose_levels(hero_of(base="d20", heroism="d10", styles={"Flight": "d20"}), 1, LossType.PHYSICAL)
    assert worn.base_now() == Rating(6)
    with pytest.raises(IllegalAction) as err:
        push(worn, ScriptedRng([]), OPTS, burn=True)
    assert err.value.code == "heroism/push_beyond_d20" and "every" in err.value.reason and err.value.fix
    # a d20 Style does not stop a d12 base from pushing: base Power rises to d20 (two levels), Flight stays d20
    hero = hero_of(base="d12", heroism="d10", styles={"Flight": "d20"})
    assert push(hero, ScriptedRng([]), OPTS, burn=True).burned == 2
