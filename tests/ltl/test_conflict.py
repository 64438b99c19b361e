"""Conflicts (R-LTL-12): rounds, simultaneous actions, initiative, end-of-round losses, giving up."""

from __future__ import annotations

import pytest

from herotable.dice import Rating, ScriptedRng
from herotable.errors import IllegalAction
from herotable.ltl.conflict import (
    attack,
    attempt,
    conflict_buy_success,
    conflict_reroll,
    end_round,
    give_up,
    pass_turn,
    resolve,
    start_conflict,
)
from herotable.ltl.difficulty import Difficulty
from herotable.ltl.hero import Defeat, LossType, NextRound, end_scene, record_defeat
from herotable.ltl.heroism import push
from herotable.ltl.options import Initiative, LtlOptions
from herotable.ltl.resources import burn_heroism
from herotable.ltl.roll import RerollSource
from herotable.ltl.task import CritBonus, Stance

OPTS = LtlOptions()


def duel(hero_of, a="d8", b="d8", **kw):
    return start_conflict(
        [("a", hero_of("A", base=a, **kw), "heroes"), ("b", hero_of("B", base=b), "villains")], ScriptedRng([]), OPTS
    )


def test_losses_wait_for_the_end_of_the_round(hero_of):
    # R-LTL-12: all losses are applied at the end of the round
    c = start_conflict(
        [("a", hero_of("A"), "h"), ("b", hero_of("B"), "v"), ("c", hero_of("C"), "v")], ScriptedRng([]), OPTS
    )
    with ScriptedRng([2, 7, 8, 1]) as rng:
        c = attack(c, "a", "b", rng, OPTS)
        c, first = resolve(c, OPTS)
        assert first.loser == "a"
        assert c.fighter("a").hero.base_now() == Rating.of("d8")  # not yet
        c = attack(c, "c", "a", rng, OPTS)  # a rolls its full d8 again
        c, second = resolve(c, OPTS, crit_bonus=CritBonus.REROLL_NEXT)
    assert second.loser == "a"
    c, report = end_round(c, ScriptedRng([]), OPTS)
    assert c.fighter("a").hero.base_now() == Rating.of("d4")
    assert [(p.target, p.levels) for p in report.losses] == [("a", 1), ("a", 1)]


def test_an_exchange_is_the_targets_action_too_unless_it_already_acted(hero_of):
    # R-LTL-12: one action a round
    c = start_conflict(
        [("a", hero_of("A"), "h"), ("b", hero_of("B"), "h"), ("v", hero_of("V"), "v")], ScriptedRng([]), OPTS
    )
    with ScriptedRng([5, 3, 4, 6]) as rng:
        c = attack(c, "a", "v", rng, OPTS)
        c, _ = resolve(c, OPTS)
        assert c.fighter("v").acted
        with pytest.raises(IllegalAction) as err:
            attack(c, "v", "b", rng, OPTS)
        assert err.value.code == "conflict/already_acted"
        c = attack(c, "b", "v", rng, OPTS)  # v defends
        c, _ = resolve(c, OPTS)
    c, _ = end_round(c, ScriptedRng([]), OPTS)
    assert c.round == 2 and not any(f.acted for f in c.fighters)


def test_only_opponents_can_be_targets_and_one_action_is_open_at_a_time(hero_of):
    c = start_conflict(
        [("a", hero_of("A"), "h"), ("b", hero_of("B"), "h"), ("v", hero_of("V"), "v")], ScriptedRng([]), OPTS
    )
    with pytest.raises(IllegalAction) as err:
        attack(c, "a", "b", ScriptedRng([]), OPTS)
    assert err.value.code == "conflict/bad_target"
    c = attack(c, "a", "v", ScriptedRng([3, 3]), OPTS)
    with pytest.raises(IllegalAction) as err:
        end_round(c, ScriptedRng([]), OPTS)
    assert err.value.code == "conflict/action_open"


def test_initiative_order_ties_act_together(hero_of):
    # R-LTL-12: everyone rolls Power and acts in order; ties act together
    opts = LtlOptions(initiative=Initiative.ONCE)
    fighters = [("a", hero_of("A"), "h"), ("b", hero_of("B"), "h"), ("v", hero_of("V"), "v")]
    with ScriptedRng([4, 7, 7]) as rng:
        c = start_conflict(fighters, rng, opts)
    assert c.order == (("b", "v"), ("a",))
    with pytest.raises(IllegalAction) as err:
        attack(c, "a", "v", ScriptedRng([]), opts)
    assert err.value.code == "conflict/not_your_turn"
    c = pass_turn(c, "b")
    c = attack(c, "v", "a", ScriptedRng([5, 5]), opts)
    c, _ = resolve(c, opts)
    c, _ = end_round(c, ScriptedRng([]), opts)  # initiative once: no new rolls
    assert c.order == (("b", "v"), ("a",))


def test_initiative_each_round_and_with_karma(hero_of):
    # R-LTL-12, R-LTL-10: with the GM's leave a fighter rolls Karma instead of Power
    opts = LtlOptions(initiative=Initiative.EACH_ROUND)
    fighters = [("a", hero_of("A", karma="d20"), "h"), ("v", hero_of("V"), "v")]
    with ScriptedRng([(20, 15), (8, 3)]) as rng:
        c = start_conflict(fighters, rng, opts, karma_initiative=["a"])
    assert c.order == (("a",), ("v",))
    c = attack(c, "a", "v", ScriptedRng([4, 4]), opts)
    c, _ = resolve(c, opts)
    with ScriptedRng([(20, 2), (8, 6)]) as rng:
        c, _ = end_round(c, rng, opts)
    assert c.order == (("v",), ("a",))


def test_defeat_ends_the_conflict_with_a_winner(hero_of):
    # R-LTL-5, R-LTL-12
    c = duel(hero_of, a="d8", b="d4")
    with ScriptedRng([6, 2]) as rng:
        c = attack(c, "a", "b", rng, OPTS)
    c, _ = resolve(c, OPTS)
    c, report = end_round(c, ScriptedRng([]), OPTS)
    assert report.defeated == ("b",) and c.over and c.winner == "heroes"
    loser = record_defeat(c.fighter("b").hero, Defeat.CAPTURED, c.stakes)
    assert loser.defeat == "captured"
    with pytest.raises(IllegalAction) as err:
        attack(c, "a", "b", ScriptedRng([]), OPTS)
    assert err.value.code == "conflict/over"


def test_a_hero_not_below_d4_is_not_defeated(hero_of):
    # R-LTL-5
    with pytest.raises(IllegalAction) as err:
        record_defeat(hero_of(), Defeat.CAPTURED)
    assert err.value.code == "defeat/not_defeated"


def test_giving_up(hero_of):
    # R-LTL-12: a participant may give up
    c = give_up(duel(hero_of), "b")
    assert c.over and c.winner == "heroes" and c.fighter("b").hero.defeat == "gives_up"


def test_series_of_challenges_failures_cost_fatigue(hero_of):
    # R-LTL-12: a conflict of challenges with no opponent
    c = start_conflict([("a", hero_of("A"), "h")], ScriptedRng([]), OPTS)
    with ScriptedRng([(8, 2), (8, 6)]) as rng:
        c = attempt(c, "a", Difficulty.named("Challenging"), rng, OPTS)
    c, _ = resolve(c, OPTS)
    c, report = end_round(c, ScriptedRng([]), OPTS)
    assert report.losses[0].kind is LossType.FATIGUE
    assert c.fighter("a").hero.base_now() == Rating.of("d6") and not c.over


def test_critical_advantages_come_into_force_next_round(hero_of):
    # R-LTL-8: +1 level next round, re-roll next round
    c = duel(hero_of, a="d8", b="d8")
    with ScriptedRng([8, 1]) as rng:
        c = attack(c, "a", "b", rng, OPTS)
    c, _ = resolve(c, OPTS, crit_bonus=CritBonus.PLUS_ONE_NEXT)
    c, _ = end_round(c, ScriptedRng([]), OPTS)
    assert c.fighter("a").hero.this_round == (NextRound.PLUS_ONE,)
    assert c.fighter("b").hero.this_round == (NextRound.MINUS_ONE,)  # its critical failure
    with ScriptedRng([(10, 3), (4, 2)]) as rng:  # A d8 +1 = d10; B d6 -1 (it lost a level) = d4
        c = attack(c, "a", "b", rng, OPTS)
    c, _ = resolve(c, OPTS)
    c, _ = end_round(c, ScriptedRng([]), OPTS)
    assert c.fighter("a").hero.this_round == ()


def test_critical_reroll_next_round(hero_of):
    # R-LTL-8
    c = duel(hero_of)
    with ScriptedRng([8, 1]) as rng:
        c = attack(c, "a", "b", rng, OPTS)
    c, _ = resolve(c, OPTS, crit_bonus=CritBonus.REROLL_NEXT)
    c, _ = end_round(c, ScriptedRng([]), OPTS)
    with ScriptedRng([(8, 1), (4, 3), (8, 7)]) as rng:
        c = attack(c, "a", "b", rng, OPTS)
        c = conflict_reroll(c, "a", RerollSource.CRITICAL, rng, OPTS)
    c, result = resolve(c, OPTS)
    assert result.winner == "a"
    assert NextRound.REROLL not in c.fighter("a").hero.this_round


def test_karma_after_the_roll_inside_a_conflict(hero_of):
    # R-LTL-10
    c = duel(hero_of, karma="d12")
    with ScriptedRng([1, 8]) as rng:
        c = attack(c, "a", "b", rng, OPTS)
    c = conflict_buy_success(c, "a")
    c, result = resolve(c, OPTS)
    assert result.winner == "a" and c.fighter("a").hero.karma == Rating.of("d8")


def test_push_lasts_one_round_and_d4_double_burn_knocks_out_at_round_end(hero_of):
    # R-LTL-11
    c = duel(hero_of, a="d8", heroism="d4")
    pushed = push(c.fighter("a").hero, ScriptedRng([]), OPTS, burn=True)
    assert pushed.burned == 1
    c = c.with_hero("a", pushed.hero)
    c = attack(c, "a", "b", ScriptedRng([(10, 9), (8, 2)]), OPTS)
    c, _ = resolve(c, OPTS)
    c, _ = end_round(c, ScriptedRng([]), OPTS)
    assert not c.fighter("a").hero.pushed
    collapsing = burn_heroism(hero_of("C", heroism="d4"), 2)
    c2 = start_conflict([("c", collapsing, "h"), ("v", hero_of("V"), "v")], ScriptedRng([]), OPTS)
    c2, report = end_round(c2, ScriptedRng([]), OPTS)
    assert c2.fighter("c").hero.unconscious and report.defeated == ("c",) and c2.winner == "v"


def test_stun_rule_at_the_end_of_the_round(hero_of):
    # R-LTL-18: Heroism roll against the levels just lost; stunned for the next full round
    opts = LtlOptions(stun_on_damage=True)
    c = start_conflict([("a", hero_of("A", heroism="d4"), "h"), ("b", hero_of("B"), "v")], ScriptedRng([]), opts)
    with ScriptedRng([2, 7]) as rng:
        c = attack(c, "a", "b", rng, opts)
    c, _ = resolve(c, opts)
    with ScriptedRng([(4, 2), (4, 3)]) as rng:
        c, report = end_round(c, rng, opts)
    assert report.stunned == ("a",)
    with pytest.raises(IllegalAction) as err:
        attack(c, "a", "b", ScriptedRng([]), opts)
    assert err.value.code == "conflict/out"
    c = pass_turn(c, "b")
    c, _ = end_round(c, ScriptedRng([]), opts)
    assert not c.fighter("a").hero.stunned


def test_non_damaging_losses_only_weigh_on_their_own_kind(hero_of):
    # R-LTL-6: a lost debate does not make you worse at punching; it recovers at the end of the scene
    debate = start_conflict(
        [("a", hero_of("A"), "h"), ("b", hero_of("B"), "v")], ScriptedRng([]), OPTS, stakes=LossType.NON_DAMAGING
    )
    with ScriptedRng([1, 5]) as rng:
        debate = attack(debate, "a", "b", rng, OPTS)
    debate, _ = resolve(debate, OPTS)
    debate, _ = end_round(debate, ScriptedRng([]), OPTS)
    hero = debate.fighter("a").hero
    assert hero.rating_for(None, LossType.NON_DAMAGING) == Rating.of("d6")
    assert hero.rating_for(None, LossType.PHYSICAL) == Rating.of("d8")
    assert end_scene(hero).losses == ()


def test_going_for_broke_in_a_conflict_is_paid_at_once(hero_of):
    # R-LTL-7
    c = duel(hero_of, a="d12", b="d8")
    with ScriptedRng([(10, 9), (8, 3)]) as rng:
        c = attack(c, "a", "b", rng, OPTS, actor_stance=Stance(broke=1))
    assert c.fighter("a").hero.base_now() == Rating.of("d10")
    c, result = resolve(c, OPTS)
    assert result.effect == 2
    c, _ = end_round(c, ScriptedRng([]), OPTS)
    assert c.fighter("b").hero.base_now() == Rating.of("d4")
