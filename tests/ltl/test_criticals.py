"""Criticals' next-round effects move the die rolled by one die type (R-LTL-1, R-LTL-4, R-LTL-8 amended)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from herotable.dice import Rating, ScriptedRng
from herotable.errors import IllegalAction
from herotable.ltl.difficulty import Difficulty
from herotable.ltl.hero import LossType, NextRound, lose_levels
from herotable.ltl.heroism import push, recover
from herotable.ltl.options import LtlOptions
from herotable.ltl.roll import Critical, Outcome
from herotable.ltl.task import CritBonus, CritPenalty, challenge, exchange, settle

OPTS = LtlOptions()
EASY = Difficulty.named("Easy")
PENALTY = NextRound.MINUS_ONE


def test_minus_one_on_a_d20_rolls_a_d12(hero_of):
    # R-LTL-8, R-LTL-1: a d20 (position 7, or 6 after one lost level) under a -1 rolls a d12
    hero = replace(hero_of(base="d20"), this_round=(PENALTY,))
    with ScriptedRng([(12, 5), (4, 2)]) as rng:
        _, task = challenge(hero, EASY, rng, OPTS)
    assert task.actor.rating == Rating.of("d12")
    worn = lose_levels(hero, 1, LossType.PHYSICAL)
    assert worn.base_now() == Rating(6)
    with ScriptedRng([(12, 5), (4, 2)]) as rng:
        challenge(worn, EASY, rng, OPTS)


def test_minus_one_on_a_d4_rolls_a_d4_whose_face_counts_one_lower(hero_of):
    # R-LTL-8: a d4 has no lower type; a 2 counts 1 and ties the GM's 1, a 1 counts 0
    hero = replace(hero_of(base="d4"), this_round=(PENALTY,))
    with ScriptedRng([(4, 2), (4, 1)]) as rng:
        _, task = challenge(hero, EASY, rng, OPTS)
    assert task.actor.throw.sides == 4 and task.actor.throw.total == 1
    assert settle(task, OPTS)[1].outcome is Outcome.TIE
    with ScriptedRng([(4, 1), (4, 1)]) as rng:
        _, task = challenge(hero, EASY, rng, OPTS)
    assert task.actor.throw.total == 0 and settle(task, OPTS)[1].outcome is Outcome.LOSE


def test_a_penalised_d4_is_judged_critical_on_its_natural_face(hero_of):
    # R-LTL-8: criticals are judged on the natural face: a 4 (counting 3) against a 1 is a critical success
    hero = replace(hero_of(base="d4"), this_round=(PENALTY,))
    with ScriptedRng([(4, 4), (4, 1)]) as rng:
        _, task = challenge(hero, EASY, rng, OPTS)
    _, result = settle(task, OPTS)
    assert task.actor.throw.total == 3 and result.actor_critical is Critical.SUCCESS


def test_plus_one_next_round_on_a_d12_rolls_a_d20(hero_of):
    # R-LTL-8, R-LTL-1: "+1 next round" is one die type, d12 -> d20
    hero = replace(hero_of(base="d12"), this_round=(NextRound.PLUS_ONE,))
    with ScriptedRng([(20, 15), (4, 2)]) as rng:
        _, task = challenge(hero, EASY, rng, OPTS)
    assert task.actor.rating == Rating.of("d20")


def test_one_minus_one_a_round_and_a_plus_one_cancels_it(hero_of):
    # R-LTL-4: at most one +1 and one -1 in a round; a +1 and a -1 cancel
    twice = replace(hero_of(base="d10"), this_round=(PENALTY, PENALTY))
    with ScriptedRng([(8, 5), (4, 2)]) as rng:
        challenge(twice, EASY, rng, OPTS)
    both = replace(hero_of(base="d12"), this_round=(NextRound.PLUS_ONE, PENALTY))
    with ScriptedRng([(12, 5), (4, 2)]) as rng:
        challenge(both, EASY, rng, OPTS)


def test_the_loser_of_an_exchange_carries_one_minus_one_never_two(hero_of):
    # R-LTL-8: the same faces are the winner's critical success and the loser's critical failure; "opponent -1"
    # then gives nothing extra, and the roller is told so and may pick another advantage
    a, b = hero_of("A", base="d8"), hero_of("B", base="d8")
    with ScriptedRng([8, 1]) as rng:
        _, _, task = exchange(a, b, rng, OPTS)
    with pytest.raises(IllegalAction) as told:
        settle(task, OPTS, crit_bonus=CritBonus.OPPONENT_MINUS_ONE)
    assert told.value.code == "critical/nothing_extra" and "another advantage" in told.value.fix
    _, result = settle(task, OPTS, crit_bonus=CritBonus.PLUS_ONE_NEXT)
    assert sorted(result.next_round) == [("A", NextRound.PLUS_ONE), ("B", PENALTY)]
    _, mishap = settle(task, OPTS, crit_bonus=CritBonus.OPPONENT_MINUS_ONE, crit_penalty=CritPenalty.MISHAP)
    assert mishap.next_round == (("B", PENALTY),)


def test_a_push_critical_failure_is_minus_one_next_round(hero_of):
    # R-LTL-8, R-LTL-11: criticals apply to Heroism rolls against a difficulty
    hero = hero_of(base="d6", heroism="d8")
    with ScriptedRng([(8, 1), (8, 8)]) as rng:
        result = push(hero, rng, OPTS)
    assert result.roll is not None and result.roll.comparison.critical is Critical.FAILURE
    assert not result.succeeded and result.hero.next_round == (PENALTY,)


def test_a_recovery_critical_failure_is_minus_one_next_round(hero_of):
    # R-LTL-8, R-LTL-11: a rolled Recovery that fails critically
    hero = lose_levels(hero_of(base="d8", heroism="d8"), 1, LossType.PHYSICAL)
    with ScriptedRng([(8, 1), (6, 6)]) as rng:  # one level lost: difficulty d6
        result = recover(hero, rng, OPTS)
    assert not result.succeeded and result.hero.next_round == (PENALTY,)
    with ScriptedRng([(8, 1), (6, 5)]) as rng:  # a plain failure carries nothing
        assert recover(hero, rng, OPTS).hero.next_round == ()
