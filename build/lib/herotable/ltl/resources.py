"""Burning Karma and Heroism (R-LTL-10, R-LTL-11): the lowered rating is what the hero rolls from then on."""

from __future__ import annotations

from dataclasses import replace

from herotable.dice import Rating
from herotable.errors import IllegalAction, NotEnough
from herotable.ltl.hero import Hero


def _usable(hero: Hero, what: str, rating: Rating, ruling: str) -> None:
    if not rating.usable:
        raise NotEnough(
            f"{what}/below_d4",
            f"{hero.name}'s {what.capitalize()} is below d4 and can no longer be used",
            ruling=ruling,
            fix=f"burned {what.capitalize()} comes back at the start of the next adventure",
        )


def burn_karma(hero: Hero, levels: int) -> Hero:
    """Burn `levels` of Karma (R-LTL-10): d20 -> d12 is two levels; at d4 only one level may be burned.
    Raises NotEnough below d4 or when the levels are not there, IllegalAction for fewer than one level."""
    if levels < 1:
        raise IllegalAction(
            "karma/burn_nothing",
            f"burning {levels} levels of Karma burns nothing",
            ruling="R-T-5",
            fix="burn one level or more",
        )
    _usable(hero, "karma", hero.karma, "R-LTL-10")
    if levels > hero.karma.position:
        raise NotEnough(
            "karma/not_enough",
            f"{hero.name} has {hero.karma} Karma, which cannot burn {levels} levels",
            ruling="R-LTL-10",
            fix=f"burn at most {hero.karma.position} level(s)"
            + (" (at d4 only one)" if hero.karma.position == 1 else ""),
        )
    return replace(hero, karma=hero.karma.lowered(levels))


def burn_heroism(hero: Hero, levels: int) -> Hero:
    """Burn `levels` of Heroism (R-LTL-11). Unlike Karma, a d4 may burn two levels, and then the hero falls
    unconscious when the action ends. Raises NotEnough below d4 or when the levels are not there, IllegalAction for
    fewer than one level."""
    if levels < 1:
        raise IllegalAction(
            "heroism/burn_nothing",
            f"burning {levels} levels of Heroism burns nothing",
            ruling="R-T-5",
            fix="burn one level or more",
        )
    _usable(hero, "heroism", hero.heroism, "R-LTL-11")
    at_d4_double = hero.heroism.position == 1 and levels == 2
    if levels > hero.heroism.position and not at_d4_double:
        raise NotEnough(
            "heroism/not_enough",
            f"{hero.name} has {hero.heroism} Heroism, which cannot burn {levels} levels",
            ruling="R-LTL-11",
            fix=f"burn at most {2 if hero.heroism.position == 1 else hero.heroism.position} level(s)",
        )
    return replace(
        hero,
        heroism=hero.heroism.lowered(levels),
        collapses_after_action=hero.collapses_after_action or at_d4_double,
    )


def require_karma(hero: Hero) -> None:
    """Raise NotEnough when Karma is below d4 (R-LTL-10)."""
    _usable(hero, "karma", hero.karma, "R-LTL-10")


def require_heroism(hero: Hero) -> None:
    """Raise NotEnough when Heroism is below d4 (R-LTL-11)."""
    _usable(hero, "heroism", hero.heroism, "R-LTL-11")
