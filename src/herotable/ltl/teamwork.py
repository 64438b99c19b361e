"""Teamwork: heroes (and villains) acting together on one task roll one die (R-LTL-14).

The team rolls its highest member's rating raised one level for every two members, at most two levels; the
raise follows the ladder, so one level on a d12 is wasted and d12 -> d20 takes both (R-LTL-1). Every member must be
within one die type of every other (amended 2026-12-01: a d12 and a d20 may team, though two levels apart).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from herotable.dice import Rating
from herotable.errors import IllegalAction
from herotable.ltl.hero import Hero, LossType, require_able

RULING = "R-LTL-14"
MAX_TEAM_BONUS = 2  # levels


@dataclass(frozen=True)
class TeamRating:
    """The die a team rolls, how it was reached, and who is in the team."""

    rating: Rating
    highest: Rating  # the best member's rating
    bonus_levels: int  # levels granted by the team's size (a level wasted on a d12 still counts here)
    members: tuple[tuple[str, Rating], ...]


def team_rating(members: Sequence[tuple[str, Rating]]) -> TeamRating:
    """The team's rating (R-LTL-14). Raises IllegalAction with fewer than two members, a member twice,
    a member below d4, or members more than one die type apart."""
    team = tuple(members)
    if len(team) < 2:
        raise IllegalAction(
            "teamwork/too_few",
            f"a team needs at least two members, not {len(team)}",
            ruling=RULING,
            fix="add another member, or roll the task alone",
        )
    ids = [member for member, _ in team]
    twice = sorted({member for member in ids if ids.count(member) > 1})
    if twice:
        raise IllegalAction(
            "teamwork/duplicate_member",
            f"{', '.join(twice)} cannot count twice in one team",
            ruling=RULING,
            fix="list each member once",
        )
    beaten = [member for member, rating in team if not rating.usable]
    if beaten:
        raise IllegalAction(
            "teamwork/below_d4",
            f"{', '.join(beaten)} {'is' if len(beaten) == 1 else 'are'} below d4 and cannot help",
            ruling=RULING,
            fix="leave defeated members out of the team",
        )
    if not _within_one(team):
        outliers, one_fixes_it = _outliers(team)
        listing = ", ".join(f"{member} ({rating})" for member, rating in team)
        raise IllegalAction(
            "teamwork/out_of_range",
            f"team members must be within one die type of each other; out of range: {', '.join(outliers)} "
            f"(team: {listing})",
            ruling=RULING,
            fix=(
                f"leave out {' or '.join(outliers)}"
                if one_fixes_it
                else "leave out members until the rest are within one die type of each other"
            ),
        )
    highest = max(rating for _, rating in team)
    bonus = min(MAX_TEAM_BONUS, len(team) // 2)
    return TeamRating(rating=highest.raised(bonus), highest=highest, bonus_levels=bonus, members=team)


def ratings_of(
    heroes: Sequence[tuple[Hero, str | None]], stakes: LossType | None = None
) -> tuple[tuple[str, Rating], ...]:
    """Each hero's name with the die it rolls: the named Style, or base Power for None (R-LTL-4).
    Raises IllegalAction when a hero cannot act or has no such Style."""
    rated: list[tuple[str, Rating]] = []
    for hero, style in heroes:
        require_able(hero, stakes)
        rated.append((hero.name, hero.rating_for(style, stakes)))
    return tuple(rated)


def die_type(rating: Rating) -> int:
    """The rung of the die a rating rolls, d4 = 1 … d12 = 5, d20 = 6 (a d20 that lost one level still rolls d20):
    "within one" counts die types, so a d12 and a d20 are one apart (R-LTL-14 amended, R-LTL-1)."""
    return min(rating.position, 6)


def _within_one(team: Sequence[tuple[str, Rating]]) -> bool:
    types = [die_type(rating) for _, rating in team]
    return max(types) - min(types) <= 1


def _without(team: tuple[tuple[str, Rating], ...], i: int) -> tuple[tuple[str, Rating], ...]:
    return team[:i] + team[i + 1 :]


def _outliers(team: tuple[tuple[str, Rating], ...]) -> tuple[list[str], bool]:
    """Members whose removal alone makes the rest a legal team (and True); failing that, the lowest and
    highest (and False)."""
    single = [member for i, (member, _) in enumerate(team) if _within_one(_without(team, i))]
    if single:
        return single, True
    low = min(rating for _, rating in team)
    high = max(rating for _, rating in team)
    return [member for member, rating in team if rating in (low, high)], False
