"""The advisor: for a decision at the table, the odds with and without each option, and the change in the chance
to win the whole duel (R-LTL-7, R-LTL-10, R-LTL-11; R-CV-4, R-CV-12). It lists; it never decides.

Each Larger Than Life option is taken for this round only; afterwards the side follows its policy again, so the
change in the duel is measured against playing the round as planned.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from herotable.dice import MAX_POSITION, Rating
from herotable.ltl.options import DEFAULT_OPTIONS, LtlOptions
from herotable.odds.check import QUOTABLE_WIT_BONUS, CheckOdds, check
from herotable.odds.conflict import Choice, Contender, DuelState, Push, after_choice, round_odds
from herotable.odds.distributions import ONE, ZERO, ExchangeOdds
from herotable.odds.exchange import push_burn_cost


@dataclass(frozen=True)
class Option:
    """One option for this round: its exchange odds, the chance to win the duel taking it, the change against
    playing as planned, and what it costs (`expected_cost` levels of `resource`, paid only when needed for
    Karma after the roll)."""

    key: str
    label: str
    exchange: ExchangeOdds
    duel_win: Fraction
    change: Fraction
    resource: str = ""
    expected_cost: Fraction = ZERO


@dataclass(frozen=True)
class CheckOption:
    """One way to make a Conviction check: its success chance, the change against rolling plainly, and the
    expected points spent when the re-roll or wit is used only on a failing first roll (R-CV-4, R-CV-12)."""

    key: str
    label: str
    success: Fraction
    change: Fraction
    expected_conviction: Fraction
    expected_wits: Fraction


def advise(
    you: Contender,
    opp: Contender,
    state: DuelState | None = None,
    *,
    karma: Rating | None = None,
    options: LtlOptions = DEFAULT_OPTIONS,
    broke_levels: int | None = None,
) -> tuple[Option, ...]:
    """Every option open to `you` this round, as planned first: Going For Broke 0..cap-1 within base Power
    (R-LTL-7; `broke_levels` caps it when the table says fewer are open), Push by roll or burn (R-LTL-11),
    Automatic Success with Karma before (1 level) or after the roll (2 levels, only when the roll did not win)
    (R-LTL-10), given your Karma die (None: none left). Raises ValueError for a finished duel."""
    now = state if state is not None else DuelState(you.start(), opp.start())
    if now.over:
        raise ValueError("the duel is over; Tip: ask before the last exchange is settled")
    planned = after_choice(you, opp, now, Choice(), options).a_wins
    base = round_odds(you, opp, now, None, options)

    def option(key: str, label: str, choice: Choice, resource: str = "", cost: Fraction = ZERO) -> Option:
        duel = after_choice(you, opp, now, choice, options).a_wins
        odds = round_odds(you, opp, now, choice, options)
        return Option(key, label, odds, duel, duel - planned, resource, cost)

    out = [Option("as_planned", "play the round as planned", base, planned, ZERO)]
    top = min(options.effect_cap - 1, now.a.position - 1)
    if broke_levels is not None:
        top = min(top, broke_levels)
    for levels in range(top + 1):
        if levels != you.policy.broke:
            out.append(
                option(
                    f"broke_{levels}",
                    f"go for broke with {levels} level(s)",
                    Choice(broke=levels),
                    "base Power",
                    Fraction(levels),
                )
            )
    base_rating = Rating(now.a.position)
    style_rating = Rating(min(MAX_POSITION, now.a.position + you.offset))
    if now.a.heroism >= 1 and base_rating.sides != 20 and you.policy.push is not Push.ROLL:
        out.append(option("push_roll", "push: roll Heroism", Choice(push=Push.ROLL)))
    cost = push_burn_cost(base_rating, style_rating)  # R-LTL-11: priced by the highest die the Push creates
    if cost is not None and now.a.heroism >= cost and you.policy.push is not Push.BURN:
        out.append(option("push_burn", f"push: burn {cost} Heroism", Choice(push=Push.BURN), "Heroism", Fraction(cost)))
    if you.policy.push is not Push.NEVER:
        out.append(option("no_push", "do not push", Choice(push=Push.NEVER)))
    karma_levels = 0 if karma is None else karma.position
    if karma_levels >= 1:
        out.append(
            option(
                "karma_now", "Automatic Success: burn 1 Karma before the roll", Choice(auto_success=True), "Karma", ONE
            )
        )
    if karma_levels >= 2:
        needed = ONE - base.win
        out.append(
            option(
                "karma_after",
                "Automatic Success: burn 2 Karma after a roll that did not win",
                Choice(auto_success=True),
                "Karma",
                2 * needed,
            )
        )
    return tuple(out)


def advise_check(bonus: int, difficulty: int) -> tuple[CheckOption, ...]:
    """A Conviction check rolled plainly, with a Quotable Wit's +2, with the Conviction re-roll, and with both,
    each used only on a failing first roll (R-CV-1, R-CV-4, R-CV-12)."""
    plain = check(bonus, difficulty)

    def row(key: str, label: str, odds: CheckOdds, conviction: bool, wit: bool) -> CheckOption:
        needed = odds.first_roll_fails
        return CheckOption(
            key,
            label,
            odds.success,
            odds.success - plain.success,
            needed if conviction else ZERO,
            needed if wit else ZERO,
        )

    both = check(bonus, difficulty, conviction_reroll=True, wit=True)
    still_failing = check(bonus + QUOTABLE_WIT_BONUS, difficulty).first_roll_fails
    return (
        row("plain", "roll as it is", plain, False, False),
        row("wit", "add a Quotable Wit (+2)", check(bonus, difficulty, wit=True), False, True),
        row(
            "conviction", "spend Conviction on a re-roll", check(bonus, difficulty, conviction_reroll=True), True, False
        ),
        CheckOption(
            "both",
            "Quotable Wit first, then Conviction if it still fails",
            both.success,
            both.success - plain.success,
            still_failing,
            plain.first_roll_fails,
        ),
    )
