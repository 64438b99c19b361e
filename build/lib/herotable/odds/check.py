"""Exact odds of a Conviction check: d20 + bonus against a Difficulty, meeting it succeeds (R-CV-1), with the
Conviction re-roll whose second roll counts 1–10 as 11–20, keeping the better (R-CV-4), and Quotable Wit's +2
(R-CV-12). Faces are counted with the engine's own `second_roll_counts`, so the +10 rule is never restated.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from herotable.conviction.checks import D20, second_roll_counts

QUOTABLE_WIT_BONUS = 2


@dataclass(frozen=True)
class CheckOdds:
    """P(success) of one check, and P(the re-roll or the wit is needed): the share of first rolls that fail,
    which is what a player who spends only when needed expects to pay (R-CV-4, R-CV-12)."""

    success: Fraction
    first_roll_fails: Fraction

    @property
    def failure(self) -> Fraction:
        return 1 - self.success


def check(bonus: int, difficulty: int, *, conviction_reroll: bool = False, wit: bool = False) -> CheckOdds:
    """Exact P(d20 + bonus [+2 Quotable Wit] >= difficulty), optionally with one Conviction re-roll of the d20
    (R-CV-1, R-CV-4, R-CV-12). Re-roll and wit go on a pending roll, so both only ever help."""
    total_bonus = bonus + (QUOTABLE_WIT_BONUS if wit else 0)
    plain_needed = difficulty - bonus
    first_fails = sum(1 for face in range(1, D20 + 1) if face < plain_needed)
    if not conviction_reroll:
        wins = sum(1 for face in range(1, D20 + 1) if face + total_bonus >= difficulty)
        return CheckOdds(Fraction(wins, D20), Fraction(first_fails, D20))
    wins = sum(
        1
        for first in range(1, D20 + 1)
        for second in range(1, D20 + 1)
        if max(first, second_roll_counts(second)) + total_bonus >= difficulty
    )
    return CheckOdds(Fraction(wins, D20 * D20), Fraction(first_fails, D20))
