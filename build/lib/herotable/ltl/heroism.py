"""Heroism's uses (R-LTL-11): Pushing and Recovery, rolled or burned; and the optional stun check
(R-LTL-18). Burning lives in `resources`."""

from __future__ import annotations

from dataclasses import dataclass, replace

from herotable.dice import D20, Rating, Rng, step_up
from herotable.errors import IllegalAction
from herotable.ltl.difficulty import Difficulty
from herotable.ltl.hero import Hero, LossType, NextRound, clear_losses, collapse_if_spent, require_able
from herotable.ltl.options import LtlOptions
from herotable.ltl.resources import burn_heroism, require_heroism
from herotable.ltl.roll import Comparison, Critical, Outcome, Throw, compare, throw


@dataclass(frozen=True)
class HeroismRoll:
    """A Heroism roll against a difficulty, or None when the hero burned instead."""

    mine: Throw
    theirs: Throw
    comparison: Comparison


@dataclass(frozen=True)
class HeroismResult:
    hero: Hero
    succeeded: bool
    roll: HeroismRoll | None = None
    burned: int = 0


def _roll(hero: Hero, difficulty: Difficulty, rng: Rng, options: LtlOptions) -> HeroismRoll:
    require_heroism(hero)
    gm_sides = difficulty.sides
    sides = hero.heroism.sides
    assert sides is not None
    mine = throw(sides, rng, options)
    theirs = throw(gm_sides, rng, options)
    return HeroismRoll(mine, theirs, compare(mine, theirs))


def push_target(hero: Hero, stakes: LossType | None = None) -> Rating:
    """The highest die a Push would create (R-LTL-11 amended): base Power and every Style go one die type up (d12 to
    d20 included); a rating already rolling d20 stays d20 and creates nothing. Rating(0) when nothing can rise."""
    ratings = [hero.rating_for(None, stakes), *(hero.rating_for(s.name, stakes) for s in hero.sheet.styles)]
    created = [step_up(r.position) for r in ratings if r.usable and r.sides != D20]
    return Rating(max(created, default=0))


def push(
    hero: Hero, rng: Rng, options: LtlOptions, *, burn: bool = False, stakes: LossType | None = None
) -> HeroismResult:
    """Push base Power (and every Style) one die type for one challenge or one round (R-LTL-11): roll
    Heroism against the highest die the Push creates (a tie fails), or burn one level; if any rating becomes d20
    by the Push it is an Inconceivable roll or two levels. Nothing pushes beyond d20: a hero whose every rating
    already rolls d20 cannot Push. A critical failure of the roll is -1 die type next round (R-LTL-8).
    Raises IllegalAction or NotEnough when not allowed."""
    require_able(hero, stakes)
    if hero.pushed:
        raise IllegalAction(
            "heroism/already_pushed",
            f"{hero.name} is already pushing",
            ruling="R-LTL-11",
            fix="a Push lasts one challenge or one round; push again after it ends",
        )
    target = push_target(hero, stakes)
    if not target.usable:
        raise IllegalAction(
            "heroism/push_beyond_d20",
            f"every one of {hero.name}'s ratings already rolls a d20; nothing pushes beyond d20",
            ruling="R-LTL-11",
            fix="use Heroism for Recovery, or Karma, instead",
        )
    if burn:
        levels = 2 if target.sides == D20 else 1
        paid = burn_heroism(hero, levels)
        return HeroismResult(replace(paid, pushed=True), True, burned=levels)
    rolled = _roll(hero, Difficulty(target), rng, options)
    won = rolled.comparison.outcome is Outcome.WIN
    return HeroismResult(_critical_failure(replace(hero, pushed=won), rolled), won, roll=rolled)


def _critical_failure(hero: Hero, rolled: HeroismRoll) -> Hero:
    """A Heroism roll against a difficulty that fails critically: -1 die type on the hero's next round (R-LTL-8)."""
    if rolled.comparison.critical is not Critical.FAILURE:
        return hero
    return replace(hero, next_round=(*hero.next_round, NextRound.MINUS_ONE))


def recovery_difficulty(hero: Hero) -> Difficulty:
    """Total levels lost + 1; Inconceivable if the hero was reduced below d4 by any kind of loss, a non-damaging
    defeat included (R-LTL-11 amended)."""
    if hero.below_d4_by_any_loss():
        return Difficulty.named("inconceivable")
    return Difficulty.levels(hero.total_levels_lost + 1)


def recover(hero: Hero, rng: Rng, options: LtlOptions, *, burn: bool = False) -> HeroismResult:
    """Shake off everything lost (damage, mind control, other effects) with Heroism (R-LTL-11): roll
    against `recovery_difficulty`, or burn one level (two if the hero was below d4). How often a hero may
    try is the GM's call; a critical failure of the roll is -1 die type next round (R-LTL-8).
    Raises IllegalAction with nothing to recover, NotEnough when Heroism cannot pay."""
    if not hero.losses:
        raise IllegalAction(
            "heroism/nothing_to_recover",
            f"{hero.name} has lost no levels",
            ruling="R-LTL-11",
            fix="Recovery is for a hero who has lost levels",
        )
    below_d4 = hero.below_d4_by_any_loss()
    if burn:
        levels = 2 if below_d4 else 1
        paid = burn_heroism(hero, levels)
        # the Recovery is the whole action: a d4 double burn knocks the hero out as it ends (R-LTL-11)
        return HeroismResult(collapse_if_spent(_recovered(paid)), True, burned=levels)
    rolled = _roll(hero, recovery_difficulty(hero), rng, options)
    won = rolled.comparison.outcome is Outcome.WIN
    return HeroismResult(_recovered(hero) if won else _critical_failure(hero, rolled), won, roll=rolled)


def _recovered(hero: Hero) -> Hero:
    healed = clear_losses(hero)
    return replace(healed, defeat=None, unconscious=False)


def stun_check(hero: Hero, levels_just_lost: int, rng: Rng, options: LtlOptions) -> HeroismResult:
    """Optional rule (R-LTL-18): after physical damage, roll Heroism against the levels just lost; a
    failure stuns for the next full round, a critical failure knocks out. A hero with no usable Heroism
    is stunned. Raises IllegalAction when the option is off."""
    if not options.stun_on_damage:
        raise IllegalAction(
            "stun/option_off",
            "the stun rule is an optional rule this campaign does not use",
            ruling="R-LTL-18",
            fix="the GM can turn on stun_on_damage in the campaign options",
        )
    if levels_just_lost < 1:
        raise IllegalAction(
            "stun/no_loss",
            f"a stun check follows the loss of at least one level, not {levels_just_lost}",
            ruling="R-T-5",
            fix="make the stun check only after physical damage of one level or more",
        )
    if not hero.heroism.usable:
        return HeroismResult(replace(hero, stunned=True), False)
    rolled = _roll(hero, Difficulty.levels(levels_just_lost), rng, options)
    if rolled.comparison.outcome is Outcome.WIN:
        return HeroismResult(hero, True, roll=rolled)
    knocked_out = rolled.comparison.critical is Critical.FAILURE
    after = replace(hero, stunned=True, unconscious=hero.unconscious or knocked_out)
    return HeroismResult(after, False, roll=rolled)
