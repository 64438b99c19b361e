"""Properties that hold whatever the dice and whatever the players try (Hypothesis)."""

from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from herotable.dice import MAX_POSITION, SeededRng
from herotable.errors import RulesError
from herotable.ltl.difficulty import Difficulty
from herotable.ltl.hero import Hero, LossType, end_adventure, end_scene, finish_action, lose_levels
from herotable.ltl.heroism import push, recover
from herotable.ltl.karma import try_again
from herotable.ltl.options import LtlOptions
from herotable.ltl.resources import burn_heroism, burn_karma
from herotable.ltl.roll import RerollSource
from herotable.ltl.sheet import sheet_from_dict
from herotable.ltl.task import CritBonus, Stance, buy_success_after, challenge, exchange, reroll, settle

DICE = st.sampled_from(["d4", "d6", "d8", "d10", "d12", "d20"])
OPTS = st.builds(LtlOptions, exploding=st.booleans(), effect_cap=st.integers(1, 4))


@st.composite
def heroes(draw: st.DrawFn, name: str = "Hero") -> Hero:
    base = draw(DICE)
    order = ["d4", "d6", "d8", "d10", "d12", "d20"]
    style = draw(st.sampled_from(order[order.index(base) :]))
    sheet = sheet_from_dict(
        {
            "name": name,
            "base": base,
            "karma": draw(DICE),
            "heroism": draw(DICE),
            "styles": {"Style": style},
            "specialties": ["Knack"],
        }
    )
    return Hero.from_sheet(sheet)


ACTIONS = st.lists(
    st.tuples(
        st.sampled_from(
            [
                "burn_karma",
                "burn_heroism",
                "lose",
                "push",
                "push_burn",
                "recover",
                "recover_burn",
                "try_again",
                "challenge",
                "exchange",
                "scene",
                "adventure",
            ]
        ),
        st.integers(0, 3),
    ),
    max_size=25,
)


def _within_floor_and_ceiling(hero: Hero) -> None:
    for rating in (hero.karma, hero.heroism, hero.base_now(), hero.rating_for("Style")):
        assert 0 <= rating.position <= MAX_POSITION
    assert hero.try_again_tokens >= 0
    assert hero.karma <= hero.sheet.karma and hero.heroism <= hero.sheet.heroism


def _step(hero: Hero, foe: Hero, action: str, n: int, rng: SeededRng, opts: LtlOptions) -> Hero:
    if action == "burn_karma":
        return burn_karma(hero, n)
    if action == "burn_heroism":
        return burn_heroism(hero, n)
    if action == "lose":
        return lose_levels(hero, n, list(LossType)[n])
    if action in ("push", "push_burn"):
        return push(hero, rng, opts, burn=action == "push_burn").hero
    if action in ("recover", "recover_burn"):
        return recover(hero, rng, opts, burn=action == "recover_burn").hero
    if action == "try_again":
        return try_again(hero)
    if action == "challenge":
        hero, task = challenge(hero, Difficulty.levels(n + 1), rng, opts, stance=Stance(style="Style"))
        assert task.actor.throw.sides == task.actor.rating.sides  # never a die the hero does not have
        if n % 2:
            hero, task = reroll(hero, task, RerollSource.TRY_AGAIN, rng, opts)
        if n == 3:
            hero, task = buy_success_after(hero, task)
        settle(task, opts)
        return finish_action(hero)
    if action == "exchange":
        hero, _, task = exchange(hero, foe, rng, opts, actor_stance=Stance(broke=n))
        assert task.actor.rating == hero.rating_for(None) and task.actor.throw.sides == task.actor.rating.sides
        return finish_action(hero)
    if action == "scene":
        return end_scene(hero)
    return end_adventure(hero)


@settings(max_examples=150, deadline=None)
@given(heroes(), heroes("Foe"), ACTIONS, st.integers(0, 2**32), OPTS)
def test_no_resource_leaves_the_ladder_and_refusals_change_nothing(hero, foe, actions, seed, opts):
    # R-LTL-1, R-LTL-10, R-LTL-11: no rating below its floor or above d20; every RulesError leaves state unchanged
    rng = SeededRng(seed)
    for action, n in actions:
        before = copy.deepcopy(hero)
        try:
            hero = _step(hero, foe, action, n, rng, opts)
        except RulesError as err:
            assert hero == before, f"{action} raised {err.code} but changed the hero"
            assert err.code and err.ruling.startswith("R-") and err.fix
        except ValueError:
            assert hero == before
        _within_floor_and_ceiling(hero)


@settings(max_examples=200, deadline=None)
@given(heroes("A"), heroes("B"), st.integers(0, 2**32), OPTS, st.integers(0, 2))
def test_an_exchange_deals_between_zero_and_the_cap(a, b, seed, opts, broke):
    # R-LTL-3, R-LTL-7
    try:
        a2, _, task = exchange(a, b, SeededRng(seed), opts, actor_stance=Stance(broke=broke))
    except RulesError:
        return
    _, result = settle(task, opts, crit_bonus=CritBonus.OTHER)
    assert 0 <= result.effect <= opts.effect_cap
    assert (result.effect == 0) == (result.loser is None)
    assert a2.levels_lost() == broke
