"""Challenges and exchanges: rolling, ties, levels of effect, Going For Broke, criticals, re-rolls."""

from __future__ import annotations

import pytest

from herotable.dice import ScriptedRng
from herotable.errors import IllegalAction, NotEnough
from herotable.ltl.difficulty import IMPOSSIBLE, Difficulty
from herotable.ltl.hero import LossType, NextRound, lose_levels
from herotable.ltl.options import LtlOptions, RerollMode
from herotable.ltl.roll import Critical, Outcome, RerollSource
from herotable.ltl.task import CritBonus, CritPenalty, Stance, challenge, exchange, reroll, settle

OPTS = LtlOptions()


def test_difficulty_names_and_numbers():
    # R-LTL-2
    assert [Difficulty.named(n).sides for n in ("Easy", "average", "Challenging", "Hard", "Formidable")] == [
        4,
        6,
        8,
        10,
        12,
    ]
    assert Difficulty.named("Inconceivable").sides == 20
    assert Difficulty.levels(3).sides == 8
    assert Difficulty.levels(6).sides == 20 and Difficulty.levels(9).sides == 20
    with pytest.raises(ValueError, match="unknown difficulty"):
        Difficulty.named("Tricky")


def test_impossible_cannot_be_attempted(hero_of):
    # R-LTL-2
    hero = hero_of()
    with pytest.raises(IllegalAction) as err, ScriptedRng([]) as rng:
        challenge(hero, IMPOSSIBLE, rng, OPTS)
    assert err.value.code == "challenge/impossible" and err.value.ruling == "R-LTL-2"


def test_impossible_cannot_be_bought_with_karma(hero_of):
    # R-LTL-2, R-LTL-10: no Karma can buy success at Impossible, and none is spent trying
    hero = hero_of(karma="d10")
    with pytest.raises(IllegalAction, match="Impossible"), ScriptedRng([]) as rng:
        challenge(hero, IMPOSSIBLE, rng, OPTS, stance=Stance(auto_success=True))


def test_a_style_is_rolled_against_the_difficulty_die(hero_of):
    # R-LTL-3: the Style's die, higher wins
    hero = hero_of(base="d6", styles={"Flight": "d12"})
    with ScriptedRng([(12, 9), (8, 8)]) as rng:
        _, task = challenge(hero, Difficulty.named("Challenging"), rng, OPTS, stance=Stance("flight"))
    _, result = settle(task, OPTS)
    assert result.outcome is Outcome.WIN and result.effect == 0


def test_a_tie_changes_nothing(hero_of):
    # R-LTL-3
    a, b = hero_of("A"), hero_of("B")
    with ScriptedRng([5, 5]) as rng:
        _, _, task = exchange(a, b, rng, OPTS)
    _, result = settle(task, OPTS)
    assert result.outcome is Outcome.TIE and result.loser is None and result.effect == 0


def test_lower_roller_loses_one_level_in_an_exchange(hero_of):
    # R-LTL-3
    a, b = hero_of("A"), hero_of("B")
    with ScriptedRng([2, 6]) as rng:
        _, _, task = exchange(a, b, rng, OPTS)
    _, result = settle(task, OPTS)
    assert (result.winner, result.loser, result.effect) == ("B", "A", 1)


def test_going_for_broke_pays_first_and_adds_levels_of_effect(hero_of):
    # R-LTL-7: pay 2 levels of base Power, roll the lowered die, opponent loses 1 + 2
    a, b = hero_of("A", base="d12"), hero_of("B", base="d8")
    with ScriptedRng([(8, 7), (8, 3)]) as rng:  # d12 - 2 levels = d8
        a2, _, task = exchange(a, b, rng, OPTS, actor_stance=Stance(broke=2))
    assert a2.base_now() == a.base_now().lowered(2)
    _, result = settle(task, OPTS)
    assert result.effect == 3 and result.loser == "B"


def test_going_for_broke_is_not_refunded_and_the_loser_loses_the_usual_level(hero_of):
    # R-LTL-7
    a, b = hero_of("A", base="d12"), hero_of("B", base="d8")
    with ScriptedRng([(10, 2), (8, 6)]) as rng:
        a2, _, task = exchange(a, b, rng, OPTS, actor_stance=Stance(broke=1))
    _, result = settle(task, OPTS)
    assert result.loser == "A" and result.effect == 1
    assert a2.levels_lost() == 1  # the paid level stays paid


def test_going_for_broke_is_capped(hero_of):
    # R-LTL-7: three levels of effect at most (campaign option)
    a, b = hero_of("A", base="d20"), hero_of("B")
    with pytest.raises(IllegalAction) as err, ScriptedRng([]) as rng:
        exchange(a, b, rng, OPTS, actor_stance=Stance(broke=3))
    assert err.value.code == "broke/over_cap"
    with ScriptedRng([(10, 5), (8, 1)]) as rng:  # d20 - 3 levels = d10
        _, _, task = exchange(a, b, rng, LtlOptions(effect_cap=5), actor_stance=Stance(broke=3))
    assert settle(task, LtlOptions(effect_cap=5))[1].effect == 4


def test_going_for_broke_must_leave_a_die_to_roll(hero_of):
    # R-LTL-7
    a, b = hero_of("A", base="d6"), hero_of("B")
    with pytest.raises(NotEnough) as err, ScriptedRng([]) as rng:
        exchange(a, b, rng, OPTS, actor_stance=Stance(broke=2))
    assert err.value.code == "broke/not_enough"


def test_critical_success_adds_a_level_within_the_cap(hero_of):
    # R-LTL-8: your maximum against a 1
    a, b = hero_of("A", base="d8"), hero_of("B", base="d8")
    with ScriptedRng([8, 1]) as rng:
        _, _, task = exchange(a, b, rng, OPTS)
    _, result = settle(task, OPTS)
    assert result.actor_critical is Critical.SUCCESS and result.opposition_critical is Critical.FAILURE
    assert result.effect == 2
    assert ("B", NextRound.MINUS_ONE) in result.next_round  # the 1 against a maximum is B's critical failure


def test_critical_extra_level_over_the_cap_is_refused(hero_of):
    # R-LTL-8: +1 level of effect only within the cap
    a, b = hero_of("A", base="d12"), hero_of("B")
    with ScriptedRng([(8, 8), (8, 1)]) as rng:
        _, _, task = exchange(a, b, rng, OPTS, actor_stance=Stance(broke=2))
    with pytest.raises(IllegalAction) as err:
        settle(task, OPTS)
    assert err.value.code == "critical/over_cap"
    _, result = settle(task, OPTS, crit_bonus=CritBonus.REROLL_NEXT)
    assert result.effect == 3 and ("A", NextRound.REROLL) in result.next_round


@pytest.mark.parametrize(
    ("bonus", "expected"),
    [
        (CritBonus.PLUS_ONE_NEXT, ("A", NextRound.PLUS_ONE)),
        (CritBonus.OPPONENT_MINUS_ONE, ("B", NextRound.MINUS_ONE)),
        (CritBonus.REROLL_NEXT, ("A", NextRound.REROLL)),
    ],
)
def test_critical_success_advantages(hero_of, bonus, expected):
    # R-LTL-8
    a, b = hero_of("A", base="d6"), hero_of("B", base="d10")
    with ScriptedRng([6, 1]) as rng:
        _, _, task = exchange(a, b, rng, OPTS)
    _, result = settle(task, OPTS, crit_bonus=bonus, crit_penalty=CritPenalty.MISHAP)
    assert result.effect == 1 and result.next_round == (expected,)


def test_critical_failure_on_an_unopposed_task_uses_the_difficulty_die(hero_of):
    # R-LTL-8: a 1 against the difficulty die's maximum
    hero = hero_of(base="d8")
    with ScriptedRng([(8, 1), (10, 10)]) as rng:
        _, task = challenge(hero, Difficulty.named("Hard"), rng, OPTS)
    _, result = settle(task, OPTS)
    assert result.actor_critical is Critical.FAILURE and result.next_round == ((hero.name, NextRound.MINUS_ONE),)
    assert settle(task, OPTS, crit_penalty=CritPenalty.MISHAP)[1].next_round == ()


def test_maximum_without_a_one_is_no_critical(hero_of):
    # R-LTL-8
    hero = hero_of(base="d8")
    with ScriptedRng([(8, 8), (4, 2)]) as rng:
        _, task = challenge(hero, Difficulty.named("Easy"), rng, OPTS)
    assert settle(task, OPTS)[1].actor_critical is Critical.NONE


def test_reroll_keeps_the_better_by_default_and_records_its_source(hero_of):
    # R-LTL-9
    hero = hero_of(specialties=["Lockpicking"])
    with ScriptedRng([6, 5, 2]) as rng:
        hero, task = challenge(hero, Difficulty.named("Challenging"), rng, OPTS)
        hero, task = reroll(hero, task, RerollSource.SPECIALTY, rng, OPTS, specialty="lockpicking")
    assert task.actor.throw.total == 6 and task.actor.throw.sources == (RerollSource.SPECIALTY,)
    assert [r.total for r in task.actor.throw.rolls] == [6, 2]


def test_reroll_new_result_stands_option(hero_of):
    # R-LTL-9: campaign option
    opts = LtlOptions(reroll_mode=RerollMode.NEW_STANDS)
    hero = hero_of(specialties=["Lockpicking"])
    with ScriptedRng([6, 5, 2]) as rng:
        hero, task = challenge(hero, Difficulty.named("Challenging"), rng, opts)
        hero, task = reroll(hero, task, RerollSource.SPECIALTY, rng, opts, specialty="Lockpicking")
    assert task.actor.throw.total == 2


def test_a_specialty_gives_one_reroll_per_task(hero_of):
    # R-LTL-17
    hero = hero_of(specialties=["Lockpicking"])
    with ScriptedRng([1, 5, 2]) as rng:
        hero, task = challenge(hero, Difficulty.named("Challenging"), rng, OPTS)
        hero, task = reroll(hero, task, RerollSource.SPECIALTY, rng, OPTS, specialty="Lockpicking")
        with pytest.raises(IllegalAction) as err:
            reroll(hero, task, RerollSource.SPECIALTY, rng, OPTS, specialty="Lockpicking")
    assert err.value.code == "reroll/specialty_used"
    with pytest.raises(IllegalAction, match="no Specialty"), ScriptedRng([]) as rng:
        reroll(hero, task, RerollSource.SPECIALTY, rng, OPTS, specialty="Cooking")


def test_motivation_gives_one_reroll_per_scene(hero_of):
    # R-LTL-17
    hero = hero_of()
    with ScriptedRng([1, 5, 2, 3, 3]) as rng:
        hero, task = challenge(hero, Difficulty.named("Average"), rng, OPTS)
        hero, task = reroll(hero, task, RerollSource.MOTIVATION, rng, OPTS)
        hero, task2 = challenge(hero, Difficulty.named("Average"), rng, OPTS)
    assert hero.motivation_used
    with pytest.raises(IllegalAction) as err, ScriptedRng([]) as rng:
        reroll(hero, task2, RerollSource.MOTIVATION, rng, OPTS)
    assert err.value.code == "reroll/motivation_used"


def test_rerolls_stop_once_the_task_is_settled(hero_of):
    # R-LTL-9
    hero = hero_of(specialties=["Lockpicking"])
    with ScriptedRng([1, 5]) as rng:
        hero, task = challenge(hero, Difficulty.named("Average"), rng, OPTS)
    settled, _ = settle(task, OPTS)
    with pytest.raises(IllegalAction) as err, ScriptedRng([]) as rng:
        reroll(hero, settled, RerollSource.SPECIALTY, rng, OPTS, specialty="Lockpicking")
    assert err.value.code == "task/settled"


def test_exploding_maximum_adds_but_criticals_use_the_first_face(hero_of):
    # R-LTL-18: roll again and add while the die shows its maximum; criticals unchanged
    opts = LtlOptions(exploding=True)
    a, b = hero_of("A", base="d4"), hero_of("B", base="d20")
    with ScriptedRng([(4, 4), (4, 4), (4, 3), (20, 1)]) as rng:
        _, _, task = exchange(a, b, rng, opts)
    assert task.actor.throw.total == 11
    _, result = settle(task, opts)
    assert result.actor_critical is Critical.SUCCESS and result.effect == 2


def test_losses_lower_styles_with_base_power(hero_of):
    # R-LTL-4 (seed: d10 / d12 Wits loses one level -> d8 / d10)
    hero = lose_levels(hero_of(base="d10", styles={"Wits": "d12"}), 1, LossType.PHYSICAL)
    assert hero.rating_for(None).name == "d8" and hero.rating_for("Wits").name == "d10"


def test_unknown_style_is_refused_before_paying(hero_of):
    a, b = hero_of("A", base="d12"), hero_of("B")
    with pytest.raises(IllegalAction) as err, ScriptedRng([]) as rng:
        exchange(a, b, rng, OPTS, actor_stance=Stance("Telepathy", broke=1))
    assert err.value.code == "hero/unknown_style"
