"""Teamwork: heroes (and villains) acting together on one task roll one die (R-LTL-14).

The team rolls its highest member's rating raised one level for every two members, at most two levels; the
raise follows the ladder, so one level on a d12 is wasted and d12 -> d20 takes both (R-LTL-1). Every member must be
within one die type of every other (amended 2026-12-01: a d12 and a d20 may team, though two levels apart).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from herotable.dice import Rating, Rng, penalty_at, rolled_sides, step_up
from herotable.errors import IllegalAction
from herotable.ltl import conflict as cf
from herotable.ltl.difficulty import Difficulty
from herotable.ltl.hero import Hero, LossType, lose_levels, require_able
from herotable.ltl.options import LtlOptions
from herotable.ltl.resources import burn_karma
from herotable.ltl.roll import throw
from herotable.ltl.task import Side, Stance, Task, _check_broke, _declare, round_rating

RULING = "R-LTL-14"
MAX_TEAM_BONUS = 2  # levels


@dataclass(frozen=True)
class TeamRating:
    """The die a team rolls, how it was reached, and who is in the team."""

    rating: Rating
    highest: Rating  # the best member's rating
    bonus_levels: int  # levels granted by the team's size (a level wasted on a d12 still counts here)
    members: tuple[tuple[str, Rating], ...]

    @property
    def leader(self) -> str:
        """The member whose die the team rolls: the highest, the first named among equals (R-LTL-14). Only they may
        Go For Broke, and they take the team's loss."""
        return next(member for member, rating in self.members if rating == self.highest)


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


def base_ratings(members: Sequence[tuple[str, Hero]], stakes: LossType | None = None) -> tuple[tuple[str, Rating], ...]:
    """Each member's current base Power for these stakes, what counts for teamwork (R-LTL-14 amended): lowered by
    the losses that count, never by a Push. Raises IllegalAction when a member cannot act."""
    for _, hero in members:
        require_able(hero, stakes)
    return tuple((member, hero.base_now(stakes)) for member, hero in members)


@dataclass(frozen=True)
class TeamRoll:
    """A team's roll opened: the rolling member after paying what they declared, their side of the task, the team."""

    leader: str
    hero: Hero
    task: Task
    team: TeamRating


def _team_side(
    members: Sequence[tuple[str, Hero]],
    stance: Stance,
    rng: Rng,
    options: LtlOptions,
    stakes: LossType | None,
    *,
    opposed: bool,
) -> tuple[Hero, Side, TeamRating]:
    """The rolling member's side: the team's die from their base Power after paying Going For Broke (R-LTL-7), raised
    by the team's levels (R-LTL-14), then their Push and a critical's +1 / -1 this round (R-LTL-4, R-LTL-8, R-LTL-11).
    Only the rolling member declares: a Style does not apply (the team rolls Power)."""
    if stance.style is not None:
        raise IllegalAction(
            "teamwork/style",
            "a team rolls its highest base Power, not a Style",
            ruling=RULING,
            fix="leave the Style out",
        )
    team = team_rating(base_ratings(members, stakes))
    leader = team.leader
    hero = dict(members)[leader]
    _check_broke(hero, stance, options, stakes, opposed)
    paid = burn_karma(hero, 1) if stance.auto_success else hero
    if stance.broke:
        paid = lose_levels(paid, stance.broke, stakes or LossType.PHYSICAL, note="going for broke")
    rating = paid.base_now(stakes).raised(team.bonus_levels)
    if paid.pushed:
        rating = Rating(step_up(rating.position))
    rating = round_rating(rating, paid.this_round)
    rolled = throw(rolled_sides(rating.position), rng, options, penalty=penalty_at(rating.position))
    return paid, Side(leader, rating, rolled, broke=stance.broke, auto_success=stance.auto_success), team


def team_challenge(
    members: Sequence[tuple[str, Hero]],
    difficulty: Difficulty,
    rng: Rng,
    options: LtlOptions,
    *,
    stance: Stance = Stance(),
    stakes: LossType | None = None,
) -> TeamRoll:
    """A team acting together on one unopposed task (R-LTL-14, R-LTL-2): the team's die against the GM's difficulty
    die, rolled by the team's rolling member. Raises IllegalAction for a team that cannot form, against Impossible,
    or for Going For Broke (no opponent)."""
    gm_sides = difficulty.sides  # Impossible is refused before anything is paid or rolled
    paid, side, team = _team_side(members, stance, rng, options, stakes, opposed=False)
    assert difficulty.rating is not None
    gm = Side(None, difficulty.rating, throw(gm_sides, rng, options))
    return TeamRoll(team.leader, paid, Task(side, gm, difficulty=difficulty, stakes=stakes), team)


def team_exchange(
    members: Sequence[tuple[str, Hero]],
    target: tuple[str, Hero],
    rng: Rng,
    options: LtlOptions,
    *,
    stance: Stance = Stance(),
    target_stance: Stance = Stance(),
    stakes: LossType | None = None,
) -> tuple[TeamRoll, Hero]:
    """A team against one opponent (R-LTL-14, R-LTL-3): the team's die against the opponent's. The rolling member is
    the team's side of the exchange, so a lost exchange is their loss. Returns the roll and the opponent after paying
    what it declared."""
    target_id, target_hero = target
    if any(member == target_id for member, _ in members):
        raise IllegalAction(
            "teamwork/self", f"{target_id} cannot be in the team and its opponent", ruling=RULING, fix="leave them out"
        )
    paid, side, team = _team_side(members, stance, rng, options, stakes, opposed=True)
    target_paid, t_side = _declare(target_hero, target_id, target_stance, rng, options, stakes, True, defending=True)
    return TeamRoll(team.leader, paid, Task(side, t_side, stakes=stakes), team), target_paid


def check_team_attack(conflict: cf.Conflict, members: Sequence[str], target: str) -> TeamRating:
    """The team that would attack `target` now (R-LTL-14, R-LTL-12): every member on one side and able to take its
    action now, the target an opponent still in the fight. Raises IllegalAction naming what stands in the way."""
    fighters = [conflict.fighter(m) for m in members]
    if len({f.side for f in fighters}) > 1:
        raise IllegalAction(
            "teamwork/sides",
            "a team's members fight on one side",
            ruling=RULING,
            fix="choose members from one side",
        )
    for f in fighters:
        cf._may_act(conflict, f.id)  # each member spends this round's action: its turn must have come
    t = conflict.fighter(target)
    if any(f.side == t.side for f in fighters) or conflict.is_out(target):
        raise IllegalAction(
            "conflict/bad_target",
            f"{target} is not an opponent the team can act against",
            ruling=cf.RULING,
            fix="choose an opponent on another side who is still in the conflict",
        )
    return team_rating(base_ratings([(f.id, f.hero) for f in fighters], conflict.stakes))


def team_attack(
    conflict: cf.Conflict,
    members: Sequence[str],
    target: str,
    rng: Rng,
    options: LtlOptions,
    *,
    stance: Stance = Stance(),
    target_stance: Stance = Stance(),
) -> tuple[cf.Conflict, TeamRating]:
    """Fighters of one side attack one opponent as a team (R-LTL-14, R-LTL-12). Every member spends this round's
    action on it, so each must be able to act now (`check_team_attack`). The exchange is the rolling member's:
    `resolve` marks them and the target as having acted, and a lost exchange is theirs; the other members are marked
    here. Raises IllegalAction when the team cannot attack."""
    check_team_attack(conflict, members, target)
    roll, target_hero = team_exchange(
        [(m, conflict.fighter(m).hero) for m in members],
        (target, conflict.fighter(target).hero),
        rng,
        options,
        stance=stance,
        target_stance=target_stance,
        stakes=conflict.stakes,
    )
    updated = conflict.with_hero(roll.leader, roll.hero).with_hero(target, target_hero)
    for m in members:
        if m != roll.leader:
            updated = updated._with(replace(updated.fighter(m), acted=True))
    return replace(updated, open=cf.OpenAction(roll.leader, target, roll.task)), roll.team


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
