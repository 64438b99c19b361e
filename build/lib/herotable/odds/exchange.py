"""One exchange between ladder ratings, with everything a side declares or carries into the roll: Going For
Broke (R-LTL-7), Pushing (R-LTL-11), teamwork (R-LTL-14), a critical's +1/-1 next round (R-LTL-8), re-rolls
(R-LTL-9) and Automatic Success (R-LTL-10). The die a side rolls is found exactly as the rules engine finds it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from herotable.dice import D20, Rating, penalty_at, rolled_sides, shifted, step_up
from herotable.ltl.hero import NextRound
from herotable.ltl.options import DEFAULT_OPTIONS, LtlOptions
from herotable.ltl.task import round_rating
from herotable.ltl.teamwork import team_rating
from herotable.odds.distributions import ONE, ZERO, ExchangeOdds, dice_exchange


@dataclass(frozen=True)
class Roll:
    """What one side brings to an exchange: the die it rolls and the re-rolls it will use (R-LTL-9), or an
    Automatic Success bought with Karma (R-LTL-10)."""

    rating: Rating
    rerolls: int = 0
    auto_success: bool = False
    penalty: int | None = None  # how much lower its face counts; None: as its rating says (a d4 under -1: one)

    @property
    def counted_lower(self) -> int:
        return penalty_at(self.rating.position) if self.penalty is None else self.penalty


def rolled_rating(
    rating: Rating, *, broke: int = 0, pushed: bool = False, plus_one: int = 0, minus_one: int = 0
) -> Rating:
    """The die rolled after paying `broke` levels (R-LTL-7), a Push one die type up (R-LTL-11), then a critical's
    +1 and -1 for this round, one die type each, at most one of each counting and cancelling each other (R-LTL-4,
    R-LTL-8), in the engine's order (`ltl.task.round_rating`). A d4 under a -1 is position 0: it rolls a d4
    counted one lower. Raises ValueError when Going For Broke would leave no die to roll."""
    if broke < 0 or plus_one < 0 or minus_one < 0:
        raise ValueError("levels must be zero or more")
    if rating.position - broke < 1:
        raise ValueError(f"{rating} cannot pay {broke} levels and still roll; Tip: go for broke with fewer levels")
    out = rating.lowered(broke)
    if pushed:
        out = Rating(step_up(out.position))
    effects = (NextRound.PLUS_ONE,) * min(plus_one, 1) + (NextRound.MINUS_ONE,) * min(minus_one, 1)
    return round_rating(out, effects)


def rolled_die(
    rating: Rating, *, broke: int = 0, pushed: bool = False, plus_one: int = 0, minus_one: int = 0, shift: int = 0
) -> tuple[Rating, int]:
    """`rolled_rating`, then the GM's situational modifier of `shift` die types, last (R-T-2 amended): the die
    rolled and how much lower its face counts (`herotable.dice.shifted`)."""
    before = rolled_rating(rating, broke=broke, pushed=pushed, plus_one=plus_one, minus_one=minus_one)
    position, penalty = shifted(before.position, shift)
    return Rating(position), penalty


def team(members: Sequence[Rating]) -> Rating:
    """The die a team rolls (R-LTL-14), by the rules engine. Raises IllegalAction for a team that cannot form."""
    return team_rating([(f"member {i + 1}", r) for i, r in enumerate(members)]).rating


def exchange(you: Roll, opp: Roll, options: LtlOptions = DEFAULT_OPTIONS) -> ExchangeOdds:
    """Exact odds of one exchange from your side (R-LTL-3, R-LTL-8, R-LTL-9, R-LTL-18). Automatic Success
    wins outright, bought by both it cancels out and the dice decide (R-LTL-10); no criticals when it decides.
    A side's rating at position 0 is a d4 under a -1 die type (`rolled_rating`): a d4 counted one lower."""
    if you.auto_success != opp.auto_success:
        return ExchangeOdds(ONE, ZERO, ZERO) if you.auto_success else ExchangeOdds(ZERO, ZERO, ONE)
    return dice_exchange(
        rolled_sides(you.rating.position),
        rolled_sides(opp.rating.position),
        rerolls=you.rerolls,
        opp_rerolls=opp.rerolls,
        exploding=options.exploding,
        reroll_mode=options.reroll_mode,
        penalty=you.counted_lower,
        opp_penalty=opp.counted_lower,
    )


def push_target(base: Rating, style: Rating | None = None) -> Rating:
    """The highest die a Push creates from base Power and the Style rolled (R-LTL-11 amended): each goes one die
    type up, a rating already rolling d20 creates nothing; Rating(0) when nothing can rise."""
    created = [step_up(r.position) for r in (base, style) if r is not None and r.usable and r.sides != D20]
    return Rating(max(created, default=0))


def push_chance(
    heroism: Rating, base: Rating, options: LtlOptions = DEFAULT_OPTIONS, *, style: Rating | None = None
) -> Fraction:
    """P(a Heroism roll pushes): Heroism must beat the highest die the Push creates, a tie fails (R-LTL-11). Zero
    below d4 Heroism or when every rating already rolls a d20 (nothing pushes beyond d20)."""
    return push_odds(heroism, base, options, style=style).win


def push_odds(
    heroism: Rating, base: Rating, options: LtlOptions = DEFAULT_OPTIONS, *, style: Rating | None = None
) -> ExchangeOdds:
    """The whole Heroism roll of a Push, its critical failure included (-1 die type next round, R-LTL-8); no roll
    (all zero) below d4 Heroism or when nothing can rise."""
    target = push_target(base, style)
    if heroism.sides is None or target.sides is None:
        return ExchangeOdds(ZERO, ZERO, ZERO)
    return dice_exchange(heroism.sides, target.sides, exploding=options.exploding)


def push_burn_cost(base: Rating, style: Rating | None = None) -> int | None:
    """Heroism levels a burned Push costs: 2 when any rating becomes d20 by it, else 1; None when every rating
    already rolls a d20 (R-LTL-11 amended)."""
    target = push_target(base, style)
    if not target.usable:
        return None
    return 2 if target.sides == D20 else 1
