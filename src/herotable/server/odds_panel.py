"""Odds in the API's shape: an exact probability, and a d20 check's chance with and without a spend.

Only presentation lives here; the numbers come from `herotable.odds`. A game's own odds (Larger Than Life's exchanges)
live with its presenter (`herotable.server.games`).
"""

from __future__ import annotations

from fractions import Fraction

from herotable.odds.advisor import advise_check
from herotable.server.answers import CheckOdds, Probability


def probability(value: Fraction) -> Probability:
    """The CLI's and API's shape for a probability: exact and as a float."""
    return {"exact": str(value), "float": float(value)}


def check_odds(bonus: int, difficulty: int) -> CheckOdds:
    """A Conviction check with and without the Conviction re-roll and Quotable Wit (R-CV-4, R-CV-12)."""
    return {
        "bonus": bonus,
        "difficulty": difficulty,
        "options": [
            {"key": o.key, "label": o.label, "success": probability(o.success), "change": probability(o.change)}
            for o in advise_check(bonus, difficulty)
        ],
    }
