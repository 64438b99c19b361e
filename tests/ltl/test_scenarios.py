"""The seed's own examples, one scenario per paragraph of the Larger Than Life text, replayed through the
engine with known dice."""

from __future__ import annotations

import pytest

from herotable.dice import Rating, ScriptedRng
from herotable.errors import IllegalAction, NotEnough
from herotable.ltl.advancement import RaiseBase, RaiseKarma, award_hero_points, spend_hero_points
from herotable.ltl.conflict import attack, end_round, resolve, start_conflict
from herotable.ltl.contest import race
from herotable.ltl.difficulty import IMPOSSIBLE, Difficulty
from herotable.ltl.healing import heal
from herotable.ltl.hero import (
    Defeat,
    LossType,
    TimePassed,
    end_adventure,
    end_scene,
    lose_levels,
    record_defeat,
    time_passes,
)
from herotable.ltl.heroism import push, recover
from herotable.ltl.karma import last_chance, try_again
from herotable.ltl.options import LtlOptions
from herotable.ltl.resources import burn_karma
from herotable.ltl.roll import Outcome, RerollSource
from herotable.ltl.task import Stance, challenge, exchange, reroll, settle
from herotable.ltl.teamwork import team_rating

OPTS = LtlOptions()
d = Rating.of


def test_seed_wits_example_d10_d12_loses_a_die_type(hero_of):
    # R-LTL-3, R-LTL-4: "Power of d10 / d12 for Wits ... base d8 and his Wits will now be at d10"
    hero = hero_of(base="d10", styles={"Wits": "d12"})
    villain = hero_of("Riddler", base="d10", styles={"Wits": "d12"})
    with ScriptedRng([(12, 3), (12, 9)]) as rng:
        hero, villain, task = exchange(
            hero, villain, rng, OPTS, actor_stance=Stance("Wits"), target_stance=Stance("Wits")
        )
    _, result = settle(task, OPTS)
    hero = lose_levels(hero, result.effect, LossType.NON_DAMAGING)
    assert hero.base_now(LossType.NON_DAMAGING) == d("d8")
    assert hero.rating_for("Wits", LossType.NON_DAMAGING) == d("d10")


def test_seed_d20_drops_to_d12_after_two_losses(hero_of):
    # R-LTL-1: "A rating of d20 drops to d12 after two losses"
    hero = hero_of(base="d20")
    once = lose_levels(hero, 1, LossType.PHYSICAL)
    assert once.rating_for(None).sides == 20
    twice = lose_levels(once, 1, LossType.PHYSICAL)
    assert twice.rating_for(None) == d("d12")


def test_seed_d20_karma_burned_to_d12_counts_two_levels(hero_of):
    # R-LTL-10: "Reducing Karma from d20 to d12 counts as 'burning' two levels"
    hero = hero_of(karma="d20")
    assert burn_karma(hero, 2).karma == d("d12")
    with pytest.raises(NotEnough, match="cannot burn"):
        burn_karma(hero_of(karma="d4"), 2)  # "If you only have d4 of Karma left, you can ONLY burn 1 level"


def test_seed_challenges_difficulty_and_impossible(hero_of):
    # R-LTL-2, R-LTL-3: the GM rolls the difficulty die; Impossible cannot be attempted
    hero = hero_of(base="d8")
    with ScriptedRng([(8, 5), (10, 5)]) as rng:
        hero, task = challenge(hero, Difficulty.named("Hard"), rng, OPTS)
    assert settle(task, OPTS)[1].outcome is Outcome.TIE  # "there is no change in the situation"
    with pytest.raises(IllegalAction):
        challenge(hero, IMPOSSIBLE, ScriptedRng([]), OPTS)


def test_seed_defeat_below_d4_and_its_consequence(hero_of):
    # R-LTL-5: "When your hero's BASE Power drops to below d4, he is defeated"
    c = start_conflict([("h", hero_of("Hero", base="d4"), "h"), ("v", hero_of("Villain"), "v")], ScriptedRng([]), OPTS)
    with ScriptedRng([(8, 5), (4, 1)]) as rng:
        c = attack(c, "v", "h", rng, OPTS)
    c, _ = resolve(c, OPTS)
    c, report = end_round(c, ScriptedRng([]), OPTS)
    assert report.defeated == ("h",)
    hero = record_defeat(c.fighter("h").hero, "gives up the information", c.stakes)
    assert hero.defeat == "gives up the information"


def test_seed_going_for_broke_for_each_level_dropped(hero_of):
    # R-LTL-7: "For each level you drop your hero's Power, you can increase by one the levels your opponent loses"
    a, b = hero_of("A", base="d12"), hero_of("B", base="d12")
    with ScriptedRng([(10, 8), (12, 2)]) as rng:
        a, b, task = exchange(a, b, rng, OPTS, actor_stance=Stance(broke=1))
    assert settle(task, OPTS)[1].effect == 2


def test_seed_try_again_last_chance_and_automatic_success(hero_of):
    # R-LTL-10: Try Again, then a must-succeed Doomsday Device defused with Last Chance
    hero = try_again(hero_of(karma="d12", specialties=["Gadgets"]))
    with ScriptedRng([(8, 1), (12, 11), (8, 3), (8, 2)]) as rng:
        hero, task = challenge(hero, Difficulty.named("Formidable"), rng, OPTS, must_succeed=True)
        hero, task = reroll(hero, task, RerollSource.TRY_AGAIN, rng, OPTS)  # cumulative with the Specialty
        hero, task = reroll(hero, task, RerollSource.SPECIALTY, rng, OPTS, specialty="Gadgets")
    task, result = settle(task, OPTS)
    assert result.outcome is Outcome.LOSE
    chance = last_chance(hero, task, ScriptedRng([]), OPTS, burn=True)
    assert chance.task is None and chance.hero.karma == d("d8")  # d12 -> d10 (Try Again) -> d8


def test_seed_heroism_push_and_recovery(hero_of):
    # R-LTL-11: Pushing one level; Recovery against total lost + 1
    hero = lose_levels(hero_of(base="d10", heroism="d12"), 2, LossType.PHYSICAL)
    with ScriptedRng([(12, 9), (8, 4)]) as rng:  # pushing d6 to d8: difficulty d8
        pushed = push(hero, rng, OPTS)
    assert pushed.hero.rating_for(None) == d("d8")
    with ScriptedRng([(12, 7), (8, 6)]) as rng:  # 2 levels lost + 1 = 3 levels: d8
        healed = recover(hero, rng, OPTS)
    assert healed.succeeded and healed.hero.base_now() == d("d10")


def test_seed_conflict_until_someone_is_defeated(hero_of):
    # R-LTL-12: "Each participant will lose levels from their Power as usual until someone is declared the victor"
    c = start_conflict(
        [("h", hero_of("Hero", base="d6"), "h"), ("v", hero_of("Villain", base="d6"), "v")], ScriptedRng([]), OPTS
    )
    script = ScriptedRng([5, 2, 4, 1])
    while not c.over:
        c = attack(c, "h", "v", script, OPTS)
        c, _ = resolve(c, OPTS)
        c, _ = end_round(c, ScriptedRng([]), OPTS)
    script.finish()
    assert c.winner == "h" and c.round == 3


def test_seed_footrace_order_by_the_rolls(hero_of):
    # R-LTL-13: "In a contest like a footrace, the order can be determined by the rolls"
    with ScriptedRng([(12, 4), (20, 17), (8, 6)]) as rng:
        result = race([("Flash", d("d12")), ("Quick", d("d20")), ("Bolt", d("d8"))], rng)
    assert [p for place in result.places for p in place] == ["Quick", "Bolt", "Flash"]


def test_seed_recovery_from_defeat_by_type_of_loss(hero_of):
    # R-LTL-6: non-damaging back at the end of the scene; fatigue with rest; physical in days; severe in weeks
    hero = hero_of(base="d12")
    for kind in (LossType.NON_DAMAGING, LossType.FATIGUE, LossType.PHYSICAL, LossType.SEVERE):
        hero = lose_levels(hero, 1, kind)
    assert hero.base_now() == d("d6")  # the debate does not weaken the punch: three levels count
    hero = end_scene(hero)
    assert [loss.kind for loss in hero.losses] == [LossType.FATIGUE, LossType.PHYSICAL, LossType.SEVERE]
    assert [x.kind for x in time_passes(hero, TimePassed.MINUTES).losses] == [LossType.PHYSICAL, LossType.SEVERE]
    assert [x.kind for x in time_passes(hero, TimePassed.DAYS).losses] == [LossType.SEVERE]
    assert time_passes(hero, TimePassed.WEEKS).losses == ()


def test_seed_healing_power_is_easier_than_shrugging_it_off(hero_of):
    # R-LTL-15: difficulty lowered one level from Heroism's (levels lost + 1)
    medic = hero_of("Medic", base="d8", styles={"Healing": "d10"}, superpowers=[{"name": "Healing", "healing": True}])
    patient = lose_levels(hero_of("Patient", base="d10"), 2, LossType.PHYSICAL)
    with ScriptedRng([(10, 5), (6, 4)]) as rng:  # 2 lost -> d6, where Heroism would face d8
        result = heal(medic, patient, rng, OPTS, power="Healing")
    assert result.healed and result.patient.losses == ()


def test_seed_mind_control_shaken_off_with_heroism(hero_of):
    # R-LTL-11, R-LTL-6: "A hero suffering from mental domination should be allowed to make a Heroism roll"
    hero = lose_levels(hero_of(heroism="d10"), 2, LossType.MIND_CONTROL)
    with ScriptedRng([(10, 8), (8, 5)]) as rng:
        assert recover(hero, rng, OPTS).hero.losses == ()


def test_seed_teamwork(hero_of):
    # R-LTL-14: highest Power, +1 per 2 members, at most +2, members within one level
    assert team_rating([("A", d("d8")), ("B", d("d10"))]).rating == d("d12")
    assert team_rating([("A", d("d10")), ("B", d("d12")), ("C", d("d12")), ("D", d("d10"))]).rating == d("d20")
    with pytest.raises(IllegalAction, match="D"):
        team_rating([("A", d("d10")), ("B", d("d10")), ("D", d("d4"))])


def test_seed_hero_points_at_the_end_of_an_adventure(hero_of):
    # R-LTL-16: awarded at the end of each adventure; spent from the table
    hero = end_adventure(hero_of(base="d12", karma="d12"))
    hero = award_hero_points(hero, 80)
    hero = spend_hero_points(hero, RaiseBase())  # d12 -> d20: 30
    hero = spend_hero_points(hero, RaiseKarma())  # d12 -> d20: 50
    assert hero.sheet.base == d("d20") and hero.sheet.karma == d("d20") and hero.sheet.hero_points == 0
    assert [s.cost for s in hero.sheet.history] == [30, 50]


def test_seed_defeat_consequences_can_be_chosen(hero_of):
    # R-LTL-5
    beaten = lose_levels(hero_of(base="d4"), 1, LossType.PHYSICAL)
    assert {record_defeat(beaten, c).defeat for c in Defeat} == {c.value for c in Defeat}
