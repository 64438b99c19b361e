"""Karma's uses (R-LTL-10). Burning itself lives in `resources`; Automatic Success is declared in a task's
`Stance` (before the roll) or bought with `task.buy_success_after`."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from herotable.dice import Rating, Rng, rolled_sides, shifted
from herotable.errors import IllegalAction
from herotable.ltl.difficulty import Difficulty
from herotable.ltl.hero import Hero, require_able
from herotable.ltl.options import LtlOptions
from herotable.ltl.resources import burn_karma, require_karma
from herotable.ltl.roll import Outcome, throw
from herotable.ltl.task import Phase, Settlement, Side, Task, outcome_of, round_rating


def try_again(hero: Hero) -> Hero:
    """Burn one level of Karma for two Try Again re-roll tokens, kept until used or the adventure ends
    (R-LTL-10). Raises NotEnough when Karma cannot pay."""
    return replace(burn_karma(hero, 1), try_again_tokens=hero.try_again_tokens + 2)


def karma_task(
    hero: Hero, difficulty: Difficulty, rng: Rng, options: LtlOptions, *, who: str | None = None, shift: int = 0
) -> Task:
    """Roll Karma (not Power) against a difficulty. The task can take Specialty or Motivation re-rolls
    but never Karma's own (R-LTL-9). Raises IllegalAction against Impossible, NotEnough below d4."""
    gm_sides = difficulty.sides
    require_karma(hero)
    assert difficulty.rating is not None
    # a critical's +1 or -1 in force moves the Karma die one type too (R-LTL-8 amended)
    # then the GM's situational modifier, last (R-T-2 amended)
    position, penalty = shifted(round_rating(hero.karma, hero.this_round).position, shift)
    rolled = throw(rolled_sides(position), rng, options, penalty=penalty)
    mine = Side(who or hero.name, Rating(position), rolled, karma_roll=True)
    gm = Side(None, difficulty.rating, throw(gm_sides, rng, options))
    return Task(mine, gm, difficulty=difficulty)


def power_stunt(
    hero: Hero, power: str, stunt: str, difficulty: Difficulty, rng: Rng, options: LtlOptions, *, shift: int = 0
) -> Task:
    """Roll Karma (never burn it: the task refuses Automatic Success after the roll) to pull off a new Power Stunt
    of one of the hero's Superpowers (R-LTL-10). Record a success with `stunt_pulled_off`. Raises IllegalAction for
    an unknown power."""
    require_able(hero)
    _power(hero, power)
    if not stunt.strip():
        raise IllegalAction("stunt/no_name", "a Power Stunt needs a name", ruling="R-LTL-10", fix="name the stunt")
    return replace(karma_task(hero, difficulty, rng, options, shift=shift), power_stunt=True)


def stunt_pulled_off(hero: Hero, power: str, stunt: str, result: Settlement) -> Hero:
    """Remember a stunt pulled off with Karma: buying it later costs 1 Hero Point (R-LTL-16).
    Raises IllegalAction if the roll did not succeed."""
    if result.outcome is not Outcome.WIN:
        raise IllegalAction(
            "stunt/not_pulled_off",
            "the stunt's Karma roll did not succeed",
            ruling="R-LTL-10",
            fix="only a successful stunt is remembered",
        )
    name = f"{_power(hero, power)}: {stunt.strip()}"
    if name in hero.stunts_pulled_off:
        return hero
    return replace(hero, stunts_pulled_off=(*hero.stunts_pulled_off, name))


def _power(hero: Hero, power: str) -> str:
    for p in hero.sheet.superpowers:
        if p.name.lower() == power.strip().lower():
            return p.name
    raise IllegalAction(
        "stunt/unknown_power",
        f"{hero.name} has no Superpower named {power!r}",
        ruling="R-LTL-10",
        fix=f"use one of {', '.join(p.name for p in hero.sheet.superpowers) or 'no powers yet'}",
    )


class Fortune(StrEnum):
    """Karma spent on the story rather than a roll (R-LTL-10)."""

    DEUS_EX_MACHINA = "deus_ex_machina"
    NARRATIVE_POWER = "narrative_power"


def fortune_by_burning(hero: Hero, use: Fortune, levels: int) -> Hero:
    """Deus Ex Machina or Narrative Power bought by burning the 1–2 levels the GM sets (R-LTL-10).
    Raises IllegalAction for another cost, NotEnough when Karma cannot pay."""
    if levels not in (1, 2):
        raise IllegalAction(
            f"karma/{use.value}_cost",
            f"{use.value.replace('_', ' ')} costs one or two levels of Karma, not {levels}",
            ruling="R-LTL-10",
            fix="the GM sets a cost of 1 or 2 levels",
        )
    return burn_karma(hero, levels)


@dataclass(frozen=True)
class LastChance:
    """A Last Chance: either a new Karma roll to settle, or success bought outright (`task` is None)."""

    hero: Hero
    task: Task | None


def last_chance(
    hero: Hero,
    failed: Task,
    rng: Rng,
    options: LtlOptions,
    *,
    burn: bool = False,
    harder: bool = False,
    shift: int = 0,
) -> LastChance:
    """Once per adventure, after failing a task the GM marked must-succeed: one more attempt with Karma
    (the GM may make it one level harder), or burn one level to succeed outright (R-LTL-10). Whether the task
    failed is read from the settled task itself. Raises IllegalAction when not allowed, NotEnough when Karma cannot
    pay."""
    if hero.last_chance_used:
        raise IllegalAction(
            "karma/last_chance_used",
            f"{hero.name} has used Last Chance this adventure",
            ruling="R-LTL-10",
            fix="Last Chance comes back at the start of the next adventure",
        )
    if not failed.must_succeed or failed.difficulty is None:
        raise IllegalAction(
            "karma/not_must_succeed",
            "Last Chance follows only a task the GM marked must-succeed",
            ruling="R-LTL-10",
            fix="ask the GM to mark the task must-succeed before it is rolled",
        )
    if failed.phase is not Phase.SETTLED or outcome_of(failed) is Outcome.WIN:
        raise IllegalAction(
            "karma/not_failed",
            "Last Chance comes only after the task has failed",
            ruling="R-LTL-10",
            fix="settle the task first; a success needs no Last Chance",
        )
    if burn:
        paid = replace(burn_karma(hero, 1), last_chance_used=True)
        return LastChance(paid, None)
    difficulty = failed.difficulty.harder() if harder else failed.difficulty
    task = karma_task(hero, difficulty, rng, options, who=failed.actor.who, shift=shift)
    return LastChance(replace(hero, last_chance_used=True), replace(task, must_succeed=True))
