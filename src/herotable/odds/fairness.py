"""Are the table's dice fair? A chi-square goodness-of-fit test of each die size's faces against the uniform
expectation, Holm's step-down correction across the die sizes tested, and a verdict in words.

A die size is tested only once every face expects at least 5 rolls (`MIN_EXPECTED`, the usual rule for the
chi-square approximation): fewer rolls say nothing either way, and the verdict says how many more it needs. Testing
several die sizes at once gives several chances of a false alarm, so the p-values are corrected by Holm's method,
which keeps the chance of any false alarm across all of them at `ALPHA` and, unlike Bonferroni, never calls fewer
dice unusual. `ALPHA` is 0.01: a group looks at its dice session after session, and at 0.05 one look in twenty would
cry wolf over honest dice; at 0.01 a false alarm is rare, and a die loaded enough to matter still shows within a few
hundred rolls.

The chi-square p-value is the regularized upper incomplete gamma function Q(k/2, x/2), computed here by its series
and its continued fraction (Numerical Recipes, 6.2): no statistics library is needed.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

ALPHA = 0.01
MIN_EXPECTED = 5
Verdict = Literal["nothing unusual", "unusual, look closer", "too few rolls to tell"]
NOTHING_UNUSUAL: Verdict = "nothing unusual"
UNUSUAL: Verdict = "unusual, look closer"
TOO_FEW: Verdict = "too few rolls to tell"

_EPS = 1e-15
_TINY = 1e-300
_MAX_STEPS = 10_000


class FairnessError(ValueError):
    """Arguments a test cannot use: a negative count, a die of fewer than two faces, α outside (0, 1)."""


def gamma_q(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x) = Γ(a, x) / Γ(a), for a > 0 and x ≥ 0: by the series
    of P = 1 - Q below x = a + 1, where it converges fast, and by Lentz's continued fraction for Q above it. Raises
    FairnessError for arguments outside its domain."""
    if a <= 0 or x < 0 or math.isnan(x):
        raise FairnessError(f"Q(a, x) needs a > 0 and x ≥ 0, not a={a}, x={x}")
    if x == 0:
        return 1.0
    if math.isinf(x):
        return 0.0
    if x < a + 1:
        return max(0.0, 1.0 - _p_series(a, x))
    return _q_fraction(a, x)


def _log_prefactor(a: float, x: float) -> float:
    return -x + a * math.log(x) - math.lgamma(a)


def _p_series(a: float, x: float) -> float:
    """P(a, x) = e^-x x^a / Γ(a+1) · Σ x^n / ((a+1)…(a+n))."""
    term = total = 1.0 / a
    denominator = a
    for _ in range(_MAX_STEPS):
        denominator += 1
        term *= x / denominator
        total += term
        if abs(term) < abs(total) * _EPS:
            break
    return total * math.exp(_log_prefactor(a, x))


def _q_fraction(a: float, x: float) -> float:
    """Q(a, x) = e^-x x^a / Γ(a) · 1/(x+1-a- 1·(1-a)/(x+3-a- 2·(2-a)/(x+5-a- …))), by the modified Lentz method."""
    b = x + 1 - a
    c = 1 / _TINY
    d = 1 / b
    h = d
    for i in range(1, _MAX_STEPS):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = _TINY if abs(d) < _TINY else d
        c = b + an / c
        c = _TINY if abs(c) < _TINY else c
        d = 1 / d
        step = d * c
        h *= step
        if abs(step - 1) < _EPS:
            break
    return math.exp(_log_prefactor(a, x)) * h


def chi_square_p(statistic: float, degrees: int) -> float:
    """The chance of a chi-square statistic at least this large with `degrees` degrees of freedom."""
    if degrees < 1:
        raise FairnessError(f"a chi-square test needs at least one degree of freedom, not {degrees}")
    return gamma_q(degrees / 2, statistic / 2)


def chi_square(counts: Sequence[int]) -> float:
    """Pearson's statistic Σ (observed - expected)² / expected of face counts against equal chances."""
    total = sum(counts)
    expected = total / len(counts)
    return sum((c - expected) ** 2 for c in counts) / expected


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given: the i-th smallest p times (m - i + 1), never below an
    earlier one's, at most 1. A hypothesis is rejected at α when its adjusted p is at most α."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


@dataclass(frozen=True)
class DieTest:
    """One die size's faces and what the test makes of them. `counts[i]` is how often face i+1 came up; `tested`
    once every face expects at least MIN_EXPECTED; `p_value` and `holm_p` (corrected across the sizes tested) then,
    else None; `needed`: how many more rolls until it is tested."""

    sides: int
    counts: tuple[int, ...]
    rolled: int
    expected: float
    tested: bool
    chi_square: float | None
    p_value: float | None
    holm_p: float | None
    says: Verdict
    needed: int = 0

    @property
    def unusual(self) -> bool:
        return self.says == UNUSUAL


@dataclass(frozen=True)
class Fairness:
    """Every die size rolled, smallest first, tested together at `alpha`; `says` sums them up: unusual when any
    is, nothing unusual when some were tested and none is, too few rolls when none could be tested."""

    alpha: float
    dice: tuple[DieTest, ...]
    says: Verdict


def fairness(faces: Iterable[tuple[int, int]], alpha: float = ALPHA) -> Fairness:
    """The test of dice thrown, given as (sides, face). A die of one face has nothing to test and is left out.
    Raises FairnessError for α outside (0, 1) or a face the die cannot show."""
    by_sides: dict[int, list[int]] = {}
    for (sides, face), n in Counter(faces).items():
        if not 1 <= face <= sides:
            raise FairnessError(f"a d{sides} cannot show {face}")
        if sides >= 2:
            by_sides.setdefault(sides, [0] * sides)[face - 1] += n
    return fairness_of({sides: tuple(c) for sides, c in sorted(by_sides.items())}, alpha=alpha)


def fairness_of(counts: dict[int, tuple[int, ...]], alpha: float = ALPHA) -> Fairness:
    """The test of face counts by die size (`counts[sides][i]`: how often face i+1 came up). Raises FairnessError
    for α outside (0, 1), a die of fewer than two faces or counts that do not fit it."""
    if not 0 < alpha < 1:
        raise FairnessError(f"α is a chance between 0 and 1, not {alpha}")
    statistics: dict[int, float] = {}
    p_values: dict[int, float] = {}
    for sides, faces in counts.items():
        if sides < 2 or len(faces) != sides or any(c < 0 for c in faces):
            raise FairnessError(f"a d{sides} needs {sides} counts of at least 0, not {list(faces)[:5]}…")
        if sum(faces) / sides >= MIN_EXPECTED:
            statistics[sides] = chi_square(faces)
            p_values[sides] = chi_square_p(statistics[sides], sides - 1)
    adjusted = dict(zip(p_values, holm(list(p_values.values())), strict=True))
    dice = []
    for sides, faces in sorted(counts.items()):
        rolled = sum(faces)
        if sides not in adjusted:
            needed = MIN_EXPECTED * sides - rolled
            dice.append(DieTest(sides, faces, rolled, rolled / sides, False, None, None, None, TOO_FEW, needed))
            continue
        says = UNUSUAL if adjusted[sides] <= alpha else NOTHING_UNUSUAL
        statistic, p = statistics[sides], p_values[sides]
        dice.append(DieTest(sides, faces, rolled, rolled / sides, True, statistic, p, adjusted[sides], says))
    overall: Verdict
    if any(d.unusual for d in dice):
        overall = UNUSUAL
    else:
        overall = NOTHING_UNUSUAL if adjusted else TOO_FEW
    return Fairness(alpha, tuple(dice), overall)
