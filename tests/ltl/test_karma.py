"""Karma (R-LTL-10): burning, Try Again, Last Chance, Automatic Success, Power Stunts, fortune."""

from __future__ import annotations

import pytest

from herotable.dice import Rating, ScriptedRng
from herotable.errors import IllegalAction, NotEnough
from herotable.ltl.difficulty import Difficulty
from herotable.ltl.hero import end_adventure
from herotable.ltl.karma import (
    Fortune,
    fortune_by_burning,
    karma_task,
    last_chance,
    power_stunt,
    stunt_pulled_off,
    try_again,
)
from herotable.ltl.options import LtlOptions
from herotable.ltl.resources import burn_karma
from herotable.ltl.roll import Outcome, RerollSource
from herotable.ltl.task import Stance, buy_success_after, challenge, exchange, reroll, settle

OPTS = LtlOptions()


def test_burning_d20_karma_to_d12_counts_two_levels(hero_of):
    # R-LTL-10 (seed: reducing Karma from d20 to d12 counts as burning two levels)
    hero = hero_of(karma="d20")
    assert burn_karma(hero, 2).karma == Rating.of("d12")
    once = burn_karma(hero, 1)
    assert once.karma.sides == 20 and burn_karma(once, 1).karma == Rating.of("d12")


def test_burned_karma_is_what_you_roll(hero_of):
    # R-LTL-10: the lowered rating is rolled from then on
    hero = burn_karma(hero_of(karma="d10"), 1)
    with ScriptedRng([(8, 3), (6, 2)]) as rng:
        task = karma_task(hero, Difficulty.named("Average"), rng, OPTS)
    assert task.actor.rating == Rating.of("d8")


def test_at_d4_karma_burns_only_one_level_and_below_d4_is_unusable(hero_of):
    # R-LTL-10
    hero = hero_of(karma="d4")
    with pytest.raises(NotEnough) as err:
        burn_karma(hero, 2)
    assert err.value.code == "karma/not_enough" and "only one" in err.value.fix
    spent = burn_karma(hero, 1)
    with pytest.raises(NotEnough) as err:
        burn_karma(spent, 1)
    assert err.value.code == "karma/below_d4"
    with pytest.raises(NotEnough), ScriptedRng([]) as rng:
        karma_task(spent, Difficulty.named("Easy"), rng, OPTS)


def test_try_again_gives_two_tokens_never_both_on_one_task(hero_of):
    # R-LTL-10
    hero = try_again(hero_of(karma="d8"))
    assert hero.karma == Rating.of("d6") and hero.try_again_tokens == 2
    with ScriptedRng([2, 7, 3]) as rng:
        hero, task = challenge(hero, Difficulty.named("Challenging"), rng, OPTS)
        hero, task = reroll(hero, task, RerollSource.TRY_AGAIN, rng, OPTS)
        with pytest.raises(IllegalAction) as err:
            reroll(hero, task, RerollSource.TRY_AGAIN, rng, OPTS)
    assert err.value.code == "reroll/try_again_twice" and hero.try_again_tokens == 1


def test_try_again_is_cumulative_with_a_specialty(hero_of):
    # R-LTL-10: cumulative with other re-rolls
    hero = try_again(hero_of(specialties=["Driving"]))
    with ScriptedRng([1, 7, 2, 4]) as rng:
        hero, task = challenge(hero, Difficulty.named("Challenging"), rng, OPTS)
        hero, task = reroll(hero, task, RerollSource.TRY_AGAIN, rng, OPTS)
        hero, task = reroll(hero, task, RerollSource.SPECIALTY, rng, OPTS, specialty="Driving")
    assert [r.total for r in task.actor.throw.rolls] == [1, 2, 4]
    assert task.actor.throw.total == 4


def test_karma_rolls_cannot_be_rerolled_with_karma(hero_of):
    # R-LTL-9
    hero = try_again(hero_of(karma="d10"))
    with ScriptedRng([2, 5]) as rng:
        task = karma_task(hero, Difficulty.named("Average"), rng, OPTS)
    with pytest.raises(IllegalAction) as err, ScriptedRng([]) as rng:
        reroll(hero, task, RerollSource.TRY_AGAIN, rng, OPTS)
    assert err.value.code == "reroll/karma_on_karma"


def test_no_token_no_try_again(hero_of):
    hero = hero_of()
    with ScriptedRng([2, 5]) as rng:
        hero, task = challenge(hero, Difficulty.named("Average"), rng, OPTS)
    with pytest.raises(NotEnough) as err, ScriptedRng([]) as rng:
        reroll(hero, task, RerollSource.TRY_AGAIN, rng, OPTS)
    assert err.value.code == "reroll/no_token"


def test_automatic_success_costs_one_level_before_the_roll(hero_of):
    # R-LTL-10
    hero = hero_of(karma="d10")
    with ScriptedRng([1, 8]) as rng:
        paid, task = challenge(hero, Difficulty.named("Challenging"), rng, OPTS, stance=Stance(auto_success=True))
    assert paid.karma == Rating.of("d8")
    _, result = settle(task, OPTS)
    assert result.outcome is Outcome.WIN and result.automatic


def test_automatic_success_costs_two_levels_after_the_roll(hero_of):
    # R-LTL-10
    hero = hero_of(karma="d10")
    with ScriptedRng([1, 8]) as rng:
        hero, task = challenge(hero, Difficulty.named("Challenging"), rng, OPTS)
    paid, task = buy_success_after(hero, task)
    assert paid.karma == Rating.of("d6")
    assert settle(task, OPTS)[1].outcome is Outcome.WIN


def test_automatic_success_in_an_exchange_wins_it(hero_of):
    # R-LTL-10: counts as winning the exchange
    a, b = hero_of("A", karma="d12"), hero_of("B")
    with ScriptedRng([1, 8]) as rng:
        a, b, task = exchange(a, b, rng, OPTS)
    a, task = buy_success_after(a, task, who="A")
    _, result = settle(task, OPTS)
    assert (result.winner, result.loser, result.effect) == ("A", "B", 1)


def test_automatic_success_on_both_sides_cancels_and_the_dice_decide(hero_of):
    a, b = hero_of("A", karma="d12"), hero_of("B", karma="d12")
    with ScriptedRng([3, 8]) as rng:
        a, b, task = exchange(
            a, b, rng, OPTS, actor_stance=Stance(auto_success=True), target_stance=Stance(auto_success=True)
        )
    _, result = settle(task, OPTS)
    assert result.winner == "B" and not result.automatic


def test_last_chance_once_per_adventure_on_a_must_succeed_task(hero_of):
    # R-LTL-10
    hero = hero_of(karma="d10")
    with ScriptedRng([(8, 2), (10, 9)]) as rng:
        hero, task = challenge(hero, Difficulty.named("Hard"), rng, OPTS, must_succeed=True)
    task, _ = settle(task, OPTS)
    with ScriptedRng([(10, 9), (12, 4)]) as rng:  # Karma die against Hard made Formidable
        chance = last_chance(hero, task, rng, OPTS, harder=True)
    assert chance.task is not None and chance.task.difficulty == Difficulty.named("Formidable")
    assert settle(chance.task, OPTS)[1].outcome is Outcome.WIN
    with pytest.raises(IllegalAction) as err, ScriptedRng([]) as rng:
        last_chance(chance.hero, task, rng, OPTS)
    assert err.value.code == "karma/last_chance_used"
    fresh = end_adventure(chance.hero)
    assert not fresh.last_chance_used


def test_last_chance_by_burning_succeeds_outright(hero_of):
    # R-LTL-10
    hero = hero_of(karma="d10")
    with ScriptedRng([2, 9]) as rng:
        hero, task = challenge(hero, Difficulty.named("Hard"), rng, OPTS, must_succeed=True)
    task, _ = settle(task, OPTS)
    with ScriptedRng([]) as rng:
        chance = last_chance(hero, task, rng, OPTS, burn=True)
    assert chance.task is None and chance.hero.karma == Rating.of("d8") and chance.hero.last_chance_used


def test_last_chance_needs_a_failed_must_succeed_task(hero_of):
    # R-LTL-10
    hero = hero_of()
    with ScriptedRng([2, 9, 8, 2]) as rng:
        hero, plain = challenge(hero, Difficulty.named("Hard"), rng, OPTS)
        hero, won = challenge(hero, Difficulty.named("Hard"), rng, OPTS, must_succeed=True)
    plain, _ = settle(plain, OPTS)
    won, _ = settle(won, OPTS)
    with pytest.raises(IllegalAction) as err:
        last_chance(hero, plain, ScriptedRng([]), OPTS)
    assert err.value.code == "karma/not_must_succeed"
    with pytest.raises(IllegalAction) as err:
        last_chance(hero, won, ScriptedRng([]), OPTS)
    assert err.value.code == "karma/not_failed"


def test_power_stunt_rolls_karma_and_is_remembered(hero_of):
    # R-LTL-10, R-LTL-16: a stunt pulled off with Karma costs 1 Hero Point later
    hero = hero_of(karma="d12", superpowers=[{"name": "Flight", "stunts": []}])
    with ScriptedRng([(12, 11), (10, 4)]) as rng:
        task = power_stunt(hero, "flight", "Sonic Boom", Difficulty.named("Hard"), rng, OPTS)
    assert task.actor.karma_roll
    _, result = settle(task, OPTS)
    hero = stunt_pulled_off(hero, "flight", "Sonic Boom", result)
    assert hero.stunts_pulled_off == ("Flight: Sonic Boom",)
    assert hero.karma == Rating.of("d12")  # rolled, never burned
    with pytest.raises(IllegalAction) as err, ScriptedRng([]) as rng:
        power_stunt(hero, "Telepathy", "Mind Blast", Difficulty.named("Hard"), rng, OPTS)
    assert err.value.code == "stunt/unknown_power"


def test_deus_ex_machina_and_narrative_power_burn_what_the_gm_sets(hero_of):
    # R-LTL-10
    hero = hero_of(karma="d20")
    assert fortune_by_burning(hero, Fortune.DEUS_EX_MACHINA, 2).karma == Rating.of("d12")
    assert fortune_by_burning(hero, Fortune.NARRATIVE_POWER, 1).karma.position == 6
    with pytest.raises(IllegalAction) as err:
        fortune_by_burning(hero, Fortune.NARRATIVE_POWER, 3)
    assert err.value.code == "karma/narrative_power_cost"


def test_burned_karma_comes_back_at_the_next_adventure(hero_of):
    # R-LTL-10
    hero = try_again(burn_karma(hero_of(karma="d12"), 2))
    back = end_adventure(hero)
    assert back.karma == Rating.of("d12") and back.try_again_tokens == 0
