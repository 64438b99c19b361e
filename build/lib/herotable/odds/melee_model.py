"""The vocabulary of melee odds, shared by the exact solver (`melee`) and Monte Carlo (`montecarlo`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from herotable.dice import Rating


class Targeting(StrEnum):
    """Whom each fighter attacks: the standing opponent with the lowest position, the highest (ties go to the
    first listed), or spread over the standing opponents in turn."""

    WEAKEST = "weakest"
    STRONGEST = "strongest"
    SPREAD = "spread"


class Method(StrEnum):
    EXACT = "exact"
    MONTE_CARLO = "monte_carlo"


@dataclass(frozen=True)
class Estimate:
    """A probability or mean: exact (low == high == value, `exact` set) or a Monte Carlo estimate with its
    confidence interval."""

    value: float
    low: float
    high: float
    exact: Fraction | None = None

    @classmethod
    def of(cls, x: Fraction) -> Estimate:
        return cls(float(x), float(x), float(x), x)


@dataclass(frozen=True)
class MeleeOdds:
    method: Method
    a_wins: Estimate
    b_wins: Estimate
    draw: Estimate
    expected_rounds: Estimate
    trials: int = 0
    confidence: float = 1.0


def check_sides(side_a: Sequence[Rating], side_b: Sequence[Rating]) -> None:
    """Refuse a melee without a fighter on each side, or with a fighter below d4. Raises ValueError."""
    if not side_a or not side_b:
        raise ValueError("a melee needs at least one fighter on each side")
    if not all(r.usable for r in (*side_a, *side_b)):
        raise ValueError("every fighter needs base Power of d4 or more")
