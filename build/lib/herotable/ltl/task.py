"""Challenges and opposed exchanges, from the roll to the result (R-LTL-3, R-LTL-7, R-LTL-8, R-LTL-9,
R-LTL-10, R-LTL-17).

A task is rolled, stays *pending* while re-rolls and Karma after the roll may change it, and is then
settled. Going For Broke and Automatic Success before the roll are declared in a `Stance`.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace
from enum import StrEnum

from herotable.dice import Rating, Rng, rolled_sides, shifted, step_down, step_up
from herotable.errors import IllegalAction, NotEnough
from herotable.ltl.difficulty import Difficulty
from herotable.ltl.hero import Hero, LossType, NextRound, lose_levels, require_able
from herotable.ltl.options import LtlOptions
from herotable.ltl.resources import burn_karma
from herotable.ltl.roll import Comparison, Critical, Outcome, RerollSource, Throw, compare, rethrow, throw


@dataclass(frozen=True)
class Stance:
    """What a hero declares before rolling: the Style used, Going For Broke levels (R-LTL-7), and
    Automatic Success bought with one level of Karma before the roll (R-LTL-10)."""

    style: str | None = None
    broke: int = 0
    auto_success: bool = False
    shift: int = 0  # the GM's situational modifier in die types, -2..+2, applied last (R-T-2 amended)


@dataclass(frozen=True)
class Side:
    """One side of a task. `who` is None for the GM's difficulty die."""

    who: str | None
    rating: Rating
    throw: Throw
    broke: int = 0
    auto_success: bool = False
    karma_roll: bool = False
    try_again_used: bool = False
    specialties_used: tuple[str, ...] = ()


class Phase(StrEnum):
    PENDING = "pending"
    SETTLED = "settled"


@dataclass(frozen=True)
class Task:
    """A rolled task. `opposition` is another hero in an exchange, or the GM's difficulty die."""

    actor: Side
    opposition: Side
    difficulty: Difficulty | None = None  # None for an opposed exchange
    stakes: LossType | None = None
    must_succeed: bool = False  # the GM marked it: Last Chance may follow a failure (R-LTL-10)
    phase: Phase = Phase.PENDING
    power_stunt: bool = False  # a Power Stunt's Karma roll: rolled, never burned (R-LTL-10)

    @property
    def opposed(self) -> bool:
        return self.difficulty is None

    def side(self, who: str) -> Side:
        for s in (self.actor, self.opposition):
            if s.who == who:
                return s
        raise IllegalAction(
            "task/not_a_side",
            f"{who!r} is not rolling in this task",
            ruling="R-LTL-3",
            fix=f"act for {self.actor.who!r}" + (f" or {self.opposition.who!r}" if self.opposed else ""),
        )

    def with_side(self, side: Side) -> Task:
        if side.who == self.actor.who:
            return replace(self, actor=side)
        return replace(self, opposition=side)


def _check_broke(hero: Hero, stance: Stance, options: LtlOptions, stakes: LossType | None, opposed: bool) -> None:
    if stance.broke < 0:
        raise IllegalAction(
            "broke/negative",
            f"Going For Broke pays levels of base Power; {stance.broke} is fewer than none",
            ruling="R-T-5",
            fix=f"go for broke with 0 to {options.effect_cap - 1} level(s)",
        )
    if stance.broke == 0:
        return
    if not opposed:
        raise IllegalAction(
            "broke/unopposed",
            "Going For Broke raises the levels an opponent loses; an unopposed task has no opponent",
            ruling="R-LTL-7",
            fix="go for broke in an exchange against an opponent",
        )
    if 1 + stance.broke > options.effect_cap:
        raise IllegalAction(
            "broke/over_cap",
            f"{stance.broke} levels would make {1 + stance.broke} levels of effect; the cap is {options.effect_cap}",
            ruling="R-LTL-7",
            fix=f"go for broke with at most {options.effect_cap - 1} level(s)",
        )
    if hero.base_now(stakes).position - stance.broke < 1:
        raise NotEnough(
            "broke/not_enough",
            f"{hero.name} has {hero.base_now(stakes)} base Power and cannot pay {stance.broke} levels and still roll",
            ruling="R-LTL-7",
            fix=f"go for broke with at most {hero.base_now(stakes).position - 1} level(s)",
        )


def _declare(
    hero: Hero,
    who: str,
    stance: Stance,
    rng: Rng,
    options: LtlOptions,
    stakes: LossType | None,
    opposed: bool,
    *,
    defending: bool = False,
) -> tuple[Hero, Side]:
    require_able(hero, stakes, defending=defending)  # a stunned target still defends (R-LTL-12)
    _check_broke(hero, stance, options, stakes, opposed)
    if stance.style is not None:
        hero.rating_for(stance.style, stakes)  # an unknown Style is refused before anything is paid
    paid = hero
    if stance.auto_success:
        paid = burn_karma(paid, 1)
    if stance.broke:
        paid = lose_levels(paid, stance.broke, stakes or LossType.PHYSICAL, note="going for broke")
    # the critical's +1/-1 for the round, then the GM's situational modifier, last (R-LTL-8, R-T-2 amended)
    after_crits = round_rating(paid.rating_for(stance.style, stakes), paid.this_round)
    position, penalty = shifted(after_crits.position, stance.shift)
    rating = Rating(position)
    rolled = throw(rolled_sides(position), rng, options, penalty=penalty)
    side = Side(who, rating, rolled, broke=stance.broke, auto_success=stance.auto_success)
    return paid, side


def round_rating(rating: Rating, effects: tuple[NextRound, ...]) -> Rating:
    """The die rolled this round after a critical's +1 and -1 (R-LTL-4, R-LTL-8): each moves it one die type (d12 +1
    rolls d20, a d20 -1 rolls d12, a d4 -1 is position 0: a d4 whose face counts one lower). At most one +1 and one
    -1 count in a round, and a +1 and a -1 cancel."""
    plus, minus = NextRound.PLUS_ONE in effects, NextRound.MINUS_ONE in effects
    if plus and not minus:
        return Rating(step_up(rating.position))
    if minus and not plus:
        return Rating(step_down(rating.position))
    return rating


def challenge(
    hero: Hero,
    difficulty: Difficulty,
    rng: Rng,
    options: LtlOptions,
    *,
    stance: Stance = Stance(),
    who: str | None = None,
    stakes: LossType | None = None,
    must_succeed: bool = False,
) -> tuple[Hero, Task]:
    """Roll an unopposed task: the hero's Style (else base Power) against the GM's difficulty die
    (R-LTL-2, R-LTL-3). Raises IllegalAction against Impossible or when the hero cannot act."""
    gm_sides = difficulty.sides  # Impossible is refused before anything is paid or rolled
    paid, side = _declare(hero, who or hero.name, stance, rng, options, stakes, opposed=False)
    assert difficulty.rating is not None
    gm = Side(None, difficulty.rating, throw(gm_sides, rng, options))
    return paid, Task(side, gm, difficulty=difficulty, stakes=stakes, must_succeed=must_succeed)


def exchange(
    actor: Hero,
    target: Hero,
    rng: Rng,
    options: LtlOptions,
    *,
    actor_stance: Stance = Stance(),
    target_stance: Stance = Stance(),
    actor_id: str | None = None,
    target_id: str | None = None,
    stakes: LossType | None = None,
) -> tuple[Hero, Hero, Task]:
    """Roll an opposed exchange: each side rolls its rating; the lower roller loses (R-LTL-3).
    Raises IllegalAction/NotEnough when a side cannot act or cannot pay what it declared."""
    a_id, t_id = actor_id or actor.name, target_id or target.name
    if a_id == t_id:
        raise IllegalAction(
            "exchange/self", "a hero cannot exchange with themself", ruling="R-LTL-3", fix="choose an opponent"
        )
    actor_paid, a_side = _declare(actor, a_id, actor_stance, rng, options, stakes, opposed=True)
    target_paid, t_side = _declare(target, t_id, target_stance, rng, options, stakes, opposed=True, defending=True)
    return actor_paid, target_paid, Task(a_side, t_side, stakes=stakes)


def _require_pending(task: Task) -> None:
    if task.phase is not Phase.PENDING:
        raise IllegalAction(
            "task/settled",
            "the result has been settled and can no longer change",
            ruling="R-LTL-9",
            fix="re-rolls and Karma after the roll must come before the result is settled",
        )


def pay_for_reroll(
    hero: Hero,
    source: RerollSource,
    specialty: str | None,
    *,
    karma_roll: bool,
    try_again_used: bool,
    specialties_used: Collection[str],
    what: str,
) -> tuple[Hero, str]:
    """Check that a re-roll from `source` may be made on one roll (a task's or an initiative's: `what`), and pay for
    it: a Try Again token (never two on one roll, never on a Karma roll, R-LTL-9, R-LTL-10), a Specialty that applies
    (one re-roll each per roll, R-LTL-17), or Motivation (once a scene). Returns the hero after paying and the
    Specialty's name as the sheet spells it ("" for other sources). A critical's re-roll is the caller's. Raises
    IllegalAction or NotEnough when the source is not available."""
    if source is RerollSource.TRY_AGAIN:
        if karma_roll:
            raise IllegalAction(
                "reroll/karma_on_karma",
                "a Karma roll cannot be re-rolled with Karma",
                ruling="R-LTL-9",
                fix="use a Specialty or Motivation re-roll instead",
            )
        if try_again_used:
            raise IllegalAction(
                "reroll/try_again_twice",
                f"both Try Again re-rolls cannot be used on the same {what}",
                ruling="R-LTL-10",
                fix=f"save the other token for another {what}",
            )
        if hero.try_again_tokens < 1:
            raise NotEnough(
                "reroll/no_token",
                f"{hero.name} has no Try Again token",
                ruling="R-LTL-10",
                fix="burn one level of Karma for two Try Again tokens first",
            )
        return replace(hero, try_again_tokens=hero.try_again_tokens - 1), ""
    if source is RerollSource.SPECIALTY:
        known = {s.lower(): s for s in hero.sheet.specialties}
        if specialty is None or specialty.lower() not in known:
            raise IllegalAction(
                "reroll/no_specialty",
                f"{hero.name} has no Specialty {specialty!r}",
                ruling="R-LTL-17",
                fix=f"name one of the hero's Specialties ({', '.join(hero.sheet.specialties) or 'none'})",
            )
        name = known[specialty.lower()]
        if name in specialties_used:
            raise IllegalAction(
                "reroll/specialty_used",
                f"the Specialty {name!r} has already given its re-roll on this {what}",
                ruling="R-LTL-17",
                fix=f"a Specialty gives one re-roll per {what}",
            )
        return hero, name
    if source is RerollSource.MOTIVATION:
        if hero.motivation_used:
            raise IllegalAction(
                "reroll/motivation_used",
                f"{hero.name} has used Motivation's re-roll this scene",
                ruling="R-LTL-17",
                fix="Motivation gives one re-roll per scene",
            )
        return replace(hero, motivation_used=True), ""
    raise ValueError(f"{source.value}: a critical's re-roll is paid by its caller")


def reroll(
    hero: Hero,
    task: Task,
    source: RerollSource,
    rng: Rng,
    options: LtlOptions,
    *,
    who: str | None = None,
    specialty: str | None = None,
) -> tuple[Hero, Task]:
    """Re-roll the hero's die in a pending task (R-LTL-9): a Try Again token (never two on one task,
    never on a Karma roll), a Specialty that applies (R-LTL-17, one re-roll per Specialty per task),
    Motivation (once per scene), or a critical's re-roll next round (R-LTL-8).
    Raises IllegalAction or NotEnough when the source is not available."""
    _require_pending(task)
    side = task.side(who or hero.name)
    if source is not RerollSource.CRITICAL:
        new_hero, name = pay_for_reroll(
            hero,
            source,
            specialty,
            karma_roll=side.karma_roll,
            try_again_used=side.try_again_used,
            specialties_used=side.specialties_used,
            what="task",
        )
        if source is RerollSource.TRY_AGAIN:
            side = replace(side, try_again_used=True)
        elif source is RerollSource.SPECIALTY:
            side = replace(side, specialties_used=(*side.specialties_used, name))
    else:
        if NextRound.REROLL not in hero.this_round:
            raise IllegalAction(
                "reroll/no_critical",
                f"{hero.name} has no re-roll from a critical success this round",
                ruling="R-LTL-8",
                fix="a critical success may grant a re-roll in the next round",
            )
        effects = list(hero.this_round)
        effects.remove(NextRound.REROLL)
        new_hero = replace(hero, this_round=tuple(effects))
    side = replace(side, throw=rethrow(side.throw, source, rng, options))
    return new_hero, task.with_side(side)


def buy_success_after(hero: Hero, task: Task, *, who: str | None = None) -> tuple[Hero, Task]:
    """Automatic Success after seeing the roll: burn two levels of Karma (R-LTL-10).
    Raises NotEnough when Karma cannot pay, IllegalAction once the task is settled or on a Power Stunt's roll."""
    _require_pending(task)
    if task.power_stunt:
        raise IllegalAction(
            "karma/stunt_no_burn",
            "a Power Stunt is attempted by rolling Karma, never by burning it",
            ruling="R-LTL-10",
            fix="settle the stunt's roll as it stands; a Try Again cannot re-roll it either",
        )
    side = task.side(who or hero.name)
    if side.auto_success:
        raise IllegalAction(
            "karma/already_automatic",
            "this roll already succeeds automatically",
            ruling="R-LTL-10",
            fix="nothing more to buy",
        )
    paid = burn_karma(hero, 2)
    return paid, task.with_side(replace(side, auto_success=True))


class CritBonus(StrEnum):
    """A critical success's reward, the roller's choice (R-LTL-8)."""

    EXTRA_LEVEL = "extra_level"
    REROLL_NEXT = "reroll_next"
    PLUS_ONE_NEXT = "plus_one_next"
    OPPONENT_MINUS_ONE = "opponent_minus_one"
    OTHER = "other"  # free text the GM adjudicates


class CritPenalty(StrEnum):
    """A critical failure's cost (R-LTL-8): -1 level next round by default, or a free-text mishap."""

    MINUS_ONE_NEXT = "minus_one_next"
    MISHAP = "mishap"


@dataclass(frozen=True)
class Settlement:
    """The result of a settled task, from the actor's side."""

    outcome: Outcome
    actor_critical: Critical
    opposition_critical: Critical
    automatic: bool  # decided by Karma's Automatic Success, not the dice
    winner: str | None  # who won an exchange (None on a tie, or for the GM's die)
    loser: str | None
    effect: int  # levels the loser of an exchange loses (R-LTL-7)
    next_round: tuple[tuple[str, NextRound], ...] = ()  # carried effects of criticals (R-LTL-8)


def outcome_of(task: Task) -> Outcome:
    """The task's result from the actor's side, as `settle` finds it: Automatic Success bought by one side only
    decides it (R-LTL-10), else the kept dice (R-LTL-3). Used to read a settled task's result again."""
    a, o = task.actor, task.opposition
    if a.auto_success != o.auto_success:
        return Outcome.WIN if a.auto_success else Outcome.LOSE
    return compare(a.throw, o.throw).outcome


def crit_reward(
    bonus: CritBonus,
    *,
    winner: str,
    loser: str | None,
    effect: int,
    cap: int,
    opposed: bool = True,
    loser_minus_one: bool = False,
) -> tuple[int, tuple[tuple[str, NextRound], ...]]:
    """What a critical success's reward adds (R-LTL-8): levels of effect on the loser, and next-round effects. A roll
    against a difficulty (not `opposed`) has no one to lose a level or roll -1, so only the winner's own advantages
    count there. Raises IllegalAction for an extra level past the cap, or "opponent -1" on a loser who
    already takes -1 for the same exchange's critical failure (`loser_minus_one`: it would give nothing extra)."""
    if bonus is CritBonus.REROLL_NEXT:
        return 0, ((winner, NextRound.REROLL),)
    if bonus is CritBonus.PLUS_ONE_NEXT:
        return 0, ((winner, NextRound.PLUS_ONE),)
    if not opposed:
        return 0, ()
    if bonus is CritBonus.EXTRA_LEVEL:
        if effect >= cap:
            raise IllegalAction(
                "critical/over_cap",
                f"the exchange already deals {effect} levels, the cap",
                ruling="R-LTL-8",
                fix="choose an advantage for next round instead of the extra level",
            )
        return 1, ()
    if bonus is CritBonus.OPPONENT_MINUS_ONE:
        if loser_minus_one:
            raise IllegalAction(
                "critical/nothing_extra",
                f"{loser} already takes -1 die type next round for the same critical failure; "
                "the loser carries one -1 from an exchange, so 'opponent -1' gives nothing extra",
                ruling="R-LTL-8",
                fix="choose another advantage: the extra level, +1 die type or a re-roll next round",
            )
        return 0, ((str(loser), NextRound.MINUS_ONE),)
    return 0, ()  # free text: the GM adjudicates


def settle(
    task: Task,
    options: LtlOptions,
    *,
    crit_bonus: CritBonus = CritBonus.EXTRA_LEVEL,
    crit_penalty: CritPenalty = CritPenalty.MINUS_ONE_NEXT,
) -> tuple[Task, Settlement]:
    """Settle a pending task (R-LTL-3): higher wins, a tie changes nothing. In an exchange the loser loses
    one level plus the winner's Going For Broke levels, within the cap (R-LTL-7). Automatic Success wins
    outright; bought by both sides it cancels out (R-LTL-10). Criticals (R-LTL-8) are judged on natural faces.
    Raises IllegalAction if the task was settled already, an extra level is chosen at the cap, or "opponent -1" on a
    loser who already takes -1 for the same critical failure (it would give nothing extra)."""
    _require_pending(task)
    a, o = task.actor, task.opposition
    automatic = a.auto_success != o.auto_success
    if automatic:
        outcome = Outcome.WIN if a.auto_success else Outcome.LOSE
        mine = Comparison(outcome, Critical.NONE)
    else:
        mine = compare(a.throw, o.throw)
        outcome = mine.outcome
    theirs = Critical.NONE
    if task.opposed and not automatic:
        theirs = compare(o.throw, a.throw).critical
    winner = loser = None
    effect = 0
    carried: list[tuple[str, NextRound]] = []
    if outcome is not Outcome.TIE:
        win_side, lose_side = (a, o) if outcome is Outcome.WIN else (o, a)
        winner, loser = win_side.who, lose_side.who
        if task.opposed:
            effect = min(options.effect_cap, 1 + win_side.broke)
            win_crit = mine.critical if win_side is a else theirs
            if win_crit is Critical.SUCCESS:
                lose_crit = theirs if win_side is a else mine.critical
                extra, more = crit_reward(
                    crit_bonus,
                    winner=str(win_side.who),
                    loser=lose_side.who,
                    effect=effect,
                    cap=options.effect_cap,
                    loser_minus_one=lose_crit is Critical.FAILURE and crit_penalty is CritPenalty.MINUS_ONE_NEXT,
                )
                effect += extra
                carried += more
        elif win_side is a and mine.critical is Critical.SUCCESS and a.who is not None:
            # against a difficulty there is no opponent: the roller's advantage is for its next round (R-LTL-8)
            carried += crit_reward(
                crit_bonus, winner=a.who, loser=None, effect=0, cap=options.effect_cap, opposed=False
            )[1]
    for side, crit in ((a, mine.critical), (o, theirs)):
        if crit is Critical.FAILURE and side.who is not None and crit_penalty is CritPenalty.MINUS_ONE_NEXT:
            carried.append((side.who, NextRound.MINUS_ONE))
    result = Settlement(
        outcome=outcome,
        actor_critical=mine.critical,
        opposition_critical=theirs,
        automatic=automatic,
        winner=winner,
        loser=loser,
        effect=effect,
        next_round=tuple(carried),
    )
    return replace(task, phase=Phase.SETTLED), result


def scene_roll(hero: Hero) -> Hero:
    """Outside a conflict "next round" means the hero's next roll in the same scene (R-LTL-8 amended): as the hero
    rolls, the effects earned so far come into force for this roll, and those in force for an earlier roll are used
    up. Call it before rolling a task outside a conflict; the scene's end clears them (`hero.end_scene`)."""
    if not hero.next_round and not hero.this_round:
        return hero
    return replace(hero, this_round=hero.next_round, next_round=())


def scene_settled(hero: Hero, who: str, settlement: Settlement) -> Hero:
    """A roll outside a conflict is settled (R-LTL-8 amended): what was in force for it is used up, and what its
    criticals carry waits for the hero's next roll in the scene."""
    return carry_effects(replace(hero, this_round=()) if hero.this_round else hero, who, settlement)


def carry_effects(hero: Hero, who: str, settlement: Settlement) -> Hero:
    """Give the hero the next-round effects a settlement carries for them (R-LTL-8)."""
    mine = tuple(effect for target, effect in settlement.next_round if target == who)
    return replace(hero, next_round=(*hero.next_round, *mine)) if mine else hero
