"""One exchange between ladder ratings, with everything a side declares or carries into the roll: Going For
Broke (R-LTL-7), Pushing (R-LTL-11), teamwork (R-LTL-14), a critical's +1/-1 next round (R-LTL-8), re-rolls
(R-LTL-9) and Automatic Success (R-LTL-10). The die a side rolls is found exactly as the rules engine finds it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from herotable.dice import Rating, step_up
from herotable.ltl.options import DEFAULT_OPTIONS, LtlOptions
from herotable.ltl.teamwork import team_rating
from herotable.odds.distributions import ONE, ZERO, ExchangeOdds, dice_exchange


@dataclass(frozen=True)
class Roll:
    """What one side brings to an exchange: the die it rolls and the re-rolls it will use (R-LTL-9), or an
    Automatic Success bought with Karma (R-LTL-10)."""

    rating: Rating
    rerolls: int = 0
    auto_success: bool = False


def rolled_rating(
    rating: Rating, *, broke: int = 0, pushed: bool = False, plus_one: int = 0, minus_one: int = 0
) -> Rating:
    """The die rolled after paying `broke` levels (R-LTL-7), a Push one die step up (R-LTL-11), then a
    critical's +1 and -1 levels for this round (R-LTL-8; -1 never takes a d4 below d4), in the engine's order.
    Raises ValueError when Going For Broke would leave no die to roll."""
    if broke < 0 or plus_one < 0 or minus_one < 0:
        raise ValueError("levels must be zero or more")
    if rating.position - broke < 1:
        raise ValueError(f"{rating} cannot pay {broke} levels and still roll; Tip: go for broke with fewer levels")
    out = rating.lowered(broke)
    if pushed:
        out = Rating(step_up(out.position))
    for _ in range(plus_one):
        out = out.raised(1)
    for _ in range(minus_one):
        if out.position > 1:
            out = out.lowered(1)
    return out


def team(members: Sequence[Rating]) -> Rating:
    """The die a team rolls (R-LTL-14), by the rules engine. Raises IllegalAction for a team that cannot form."""
    return team_rating([(f"member {i + 1}", r) for i, r in enumerate(members)]).rating


def exchange(you: Roll, opp: Roll, options: LtlOptions = DEFAULT_OPTIONS) -> ExchangeOdds:
    """Exact odds of one exchange from your side (R-LTL-3, R-LTL-8, R-LTL-9, R-LTL-18). Automatic Success
    wins outright, bought by both it cancels out and the dice decide (R-LTL-10); no criticals when it decides.
    Raises ValueError for a side below d4."""
    if you.auto_success != opp.auto_success:
        return ExchangeOdds(ONE, ZERO, ZERO) if you.auto_success else ExchangeOdds(ZERO, ZERO, ONE)
    if you.rating.sides is None or opp.rating.sides is None:
        raise ValueError("a side below d4 cannot roll; Tip: a defeated fighter takes no part in an exchange")
    return dice_exchange(
        you.rating.sides,
        opp.rating.sides,
        rerolls=you.rerolls,
        opp_rerolls=opp.rerolls,
        exploding=options.exploding,
        reroll_mode=options.reroll_mode,
    )


def push_chance(heroism: Rating, base: Rating, options: LtlOptions = DEFAULT_OPTIONS) -> Fraction:
    """P(a Heroism roll pushes `base` one die step): Heroism must beat the die pushed to, a tie fails
    (R-LTL-11). Zero below d4 Heroism or when base already rolls a d20 (nothing pushes beyond d20)."""
    target = Rating(step_up(base.position))
    if heroism.sides is None or base.sides in (None, 20) or target.sides is None:
        return ZERO
    return dice_exchange(heroism.sides, target.sides, exploding=options.exploding).win


def push_burn_cost(base: Rating) -> int | None:
    """Heroism levels a burned Push costs: 1, or 2 to reach d20; None when base already rolls a d20
    (R-LTL-11)."""
    if base.sides in (None, 20):
        return None
    return 2 if step_up(base.position) == 7 else 1
