"""Regaining Conviction (R-CV-2, R-CV-13): Nature awards and the dramatic-scene Charisma check never pass the
maximum; setbacks at an enemy's hands give a point even above it."""

from __future__ import annotations

from dataclasses import replace
from enum import StrEnum

from herotable.conviction.character import MAX_LEVEL, Ability
from herotable.conviction.checks import Check, CheckKind, require_announced, roll_check
from herotable.conviction.hero import Hero
from herotable.dice import Rng
from herotable.errors import IllegalAction

REGAIN_DIFFICULTY = 10


class NatureTrait(StrEnum):
    VIRTUE = "virtue"
    VICE = "vice"


class Setback(StrEnum):
    KNOCKED_OUT = "knocked unconscious"
    DISABLED_BY_ENEMY = "disabled by an enemy"
    MIND_CONTROLLED_BY_ENEMY = "put under an enemy's mental control"


def _below_maximum(hero: Hero) -> None:
    if hero.conviction >= hero.conviction_max:
        raise IllegalAction(
            "conviction/at_maximum",
            f"{hero.name} has {hero.conviction} Conviction, at least the {hero.conviction_max} of level "
            f"{hero.sheet.level}",
            ruling="R-CV-2",
            fix="Conviction is regained only below the level's starting amount; spend some first",
        )


def award_nature(hero: Hero, trait: NatureTrait) -> Hero:
    """The GM awards one point for acting on the hero's Virtue or Vice; which acts deserve it is the GM's
    call (R-CV-13). Never above the maximum (R-CV-2).

    Raises IllegalAction when the hero is already at or above the maximum.
    """
    _below_maximum(hero)
    return hero.with_conviction(hero.conviction + 1)


def regain_check(hero: Hero, rng: Rng) -> tuple[Hero, Check]:
    """After a scene the GM called dramatic, one Charisma check against 10 to regain a point (R-CV-13).

    Raises IllegalAction when no dramatic scene has just ended for the hero, the check was already made,
    or the hero is at or above the maximum.
    """
    if not hero.regain_check_due:
        raise IllegalAction(
            "conviction/no_regain_check",
            f"{hero.name} has no regain check due",
            ruling="R-CV-13",
            fix="a regain check follows a scene the GM ends as dramatic; one per scene",
        )
    _below_maximum(hero)
    check = roll_check(
        rng,
        hero.name,
        "Charisma check to regain Conviction",
        hero.sheet.abilities.of(Ability.CHARISMA),
        REGAIN_DIFFICULTY,
        CheckKind.REGAIN,
    )
    return replace(hero, regain_check_due=False), check


def apply_regain_check(hero: Hero, check: Check) -> Hero:
    """A successful regain check gives one point, never above the maximum (R-CV-2, R-CV-13).

    Raises IllegalAction when the check is pending or not this hero's.
    """
    require_announced(check, CheckKind.REGAIN, hero.name)
    if not check.succeeded or hero.conviction >= hero.conviction_max:
        return hero
    return hero.with_conviction(hero.conviction + 1)


def gain_from_setback(hero: Hero, setback: Setback) -> Hero:
    """One point for being knocked out, disabled by an enemy or put under an enemy's mental control, even
    above the maximum (R-CV-2, R-CV-13). Damage applied by `apply_toughness_save` awards it by itself.

    Raises IllegalAction for a dead hero.
    """
    if hero.conditions.dead:
        raise IllegalAction(
            "conviction/dead",
            f"{hero.name} is dead",
            ruling="R-CV-13",
            fix="the dead gain no Conviction",
        )
    return hero.with_conviction(hero.conviction + 1)


def raise_level(hero: Hero) -> Hero:
    """The GM raises the hero one level; reaching an odd level raises the maximum by one and gives that point at once
    (R-CV-2).

    Raises IllegalAction at level 20.
    """
    level = hero.sheet.level
    if level >= MAX_LEVEL:
        raise IllegalAction(
            "conviction/top_level",
            f"{hero.name} is already level {level}, the highest",
            ruling="R-CV-2",
            fix="levels run from 1 to 20",
        )
    raised = replace(hero, sheet=replace(hero.sheet, level=level + 1))
    return raised.with_conviction(raised.conviction + 1) if (level + 1) % 2 else raised
