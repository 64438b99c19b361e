"""The dice fairness test: the incomplete gamma function against values known in closed form and from printed
chi-square tables, Holm's correction by hand, and the verdict on fair dice, a loaded die and a million faces of the
table's own dice."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import pytest

from herotable.dice import SeededRng, SystemRng
from herotable.odds.fairness import (
    ALPHA,
    NOTHING_UNUSUAL,
    TOO_FEW,
    UNUSUAL,
    FairnessError,
    chi_square,
    chi_square_p,
    fairness,
    fairness_of,
    gamma_q,
    holm,
)


@pytest.mark.parametrize("a", [1, 2, 3, 7, 20])
@pytest.mark.parametrize("x", [0.1, 1.5, 4.0, 12.0, 40.0])
def test_q_of_a_whole_a_is_the_poisson_tail(a, x):
    # Q(n, x) = e^-x Σ_{k<n} x^k / k!: both sides of x = a + 1, where the series gives way to the continued fraction
    expected = math.exp(-x) * sum(x**k / math.factorial(k) for k in range(a))
    assert gamma_q(a, x) == pytest.approx(expected, rel=1e-10, abs=1e-300)


@pytest.mark.parametrize("x", [0.01, 0.3, 1.0, 2.5, 9.0, 30.0])
def test_q_of_a_half_is_the_complementary_error_function(x):
    assert gamma_q(0.5, x) == pytest.approx(math.erfc(math.sqrt(x)), rel=1e-10)


@pytest.mark.parametrize(
    ("statistic", "degrees", "p"),
    [  # critical values printed in every chi-square table
        (3.841458820694124, 1, 0.05),
        (6.634896601021214, 1, 0.01),
        (11.070497693516351, 5, 0.05),
        (15.08627246938899, 5, 0.01),
        (23.209251158954356, 10, 0.01),
        (36.19086912927004, 19, 0.01),
        (30.143527205646155, 19, 0.05),
    ],
)
def test_chi_square_p_values_match_the_printed_tables(statistic, degrees, p):
    assert chi_square_p(statistic, degrees) == pytest.approx(p, rel=1e-9)


def test_the_edges_of_q():
    assert gamma_q(3, 0) == 1.0 and gamma_q(3, math.inf) == 0.0
    assert chi_square_p(4.0, 2) == pytest.approx(math.exp(-2.0), rel=1e-12)  # two degrees: e^(-x/2) exactly
    assert 0 < chi_square_p(400.0, 19) < 1e-70  # far in the tail, still a number
    for a, x in ((0, 1.0), (-1, 1.0), (1, -0.5), (1, math.nan)):
        with pytest.raises(FairnessError):
            gamma_q(a, x)
    with pytest.raises(FairnessError):
        chi_square_p(1.0, 0)


def test_holm_steps_down_by_hand():
    # sorted: .005 ×4 = .02, .01 ×3 = .03, .03 ×2 = .06, .04 ×1 = .04 → never below the one before: .06
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.6, 0.9]) == [1.0, 1.0]  # at most 1
    assert holm([]) == []


def test_pearson_statistic_by_hand():
    # 60 rolls of a d6, 10 expected per face: (14-10)² + (6-10)² over 10
    assert chi_square([14, 6, 10, 10, 10, 10]) == pytest.approx(3.2)


def test_fair_dice_from_a_fixed_seed_show_nothing_unusual():
    rng = SeededRng("fair dice")
    faces = [(sides, rng.roll(sides)) for sides in (4, 6, 8, 10, 12, 20) for _ in range(300)]
    result = fairness(faces)
    assert result.says == NOTHING_UNUSUAL and result.alpha == ALPHA
    assert [d.sides for d in result.dice] == [4, 6, 8, 10, 12, 20]
    assert all(d.tested and d.rolled == 300 and d.says == NOTHING_UNUSUAL for d in result.dice)
    d6 = result.dice[1]
    assert d6.counts == tuple(Counter(f for s, f in faces if s == 6)[i] for i in range(1, 7))
    assert d6.expected == 50 and d6.holm_p is not None and d6.p_value is not None and d6.holm_p >= d6.p_value


def test_a_loaded_die_is_unusual_and_the_fair_ones_beside_it_are_not():
    rng = SeededRng("loaded")

    def loaded() -> int:  # a d6 weighted to show 6 one time in four rather than one in six
        return 6 if rng.roll(4) == 1 else rng.roll(5)

    faces = [(6, loaded()) for _ in range(600)] + [(20, rng.roll(20)) for _ in range(400)]
    result = fairness(faces)
    d6, d20 = result.dice
    assert (d6.says, d20.says, result.says) == (UNUSUAL, NOTHING_UNUSUAL, UNUSUAL)
    assert d6.unusual and d6.holm_p is not None and d6.holm_p <= ALPHA


def test_too_few_rolls_say_how_many_more_a_test_needs():
    rng = SeededRng("few")
    faces = [(20, rng.roll(20)) for _ in range(60)] + [(6, rng.roll(6)) for _ in range(30)] + [(1, 1)]
    result = fairness(faces)
    d6, d20 = result.dice  # the d1 has nothing to test
    assert (d6.tested, d6.says, d6.needed) == (True, NOTHING_UNUSUAL, 0)  # 30 rolls: 5 expected per face
    assert (d20.tested, d20.says, d20.needed, d20.p_value) == (False, TOO_FEW, 40, None)
    assert result.says == NOTHING_UNUSUAL
    assert fairness([(20, 7)] * 3).says == TOO_FEW and fairness([]).dice == ()


def test_holm_keeps_a_borderline_die_of_two_from_crying_wolf():
    # alone, p < α would be unusual; tested beside a second die size, its Holm p is doubled past α
    counts = {6: (70, 50, 50, 50, 50, 30), 8: (25, 25, 25, 25, 25, 25, 25, 25)}
    alone = fairness_of({6: counts[6]})
    assert alone.dice[0].p_value is not None and alone.dice[0].p_value < ALPHA < 2 * alone.dice[0].p_value
    assert alone.says == UNUSUAL
    both = fairness_of(counts)
    assert both.dice[0].holm_p == pytest.approx(2 * alone.dice[0].p_value) and both.says == NOTHING_UNUSUAL


def test_bad_input_is_refused_with_what_is_wrong():
    with pytest.raises(FairnessError, match="cannot show 7"):
        fairness([(6, 7)])
    with pytest.raises(FairnessError, match="between 0 and 1"):
        fairness([(6, 1)], alpha=1.5)
    with pytest.raises(FairnessError, match="d6 needs 6 counts"):
        fairness_of({6: (1, 2, 3)})


def test_a_million_faces_of_the_table_s_own_dice_show_nothing_unusual():
    # the server's SystemRng, every die on the ladder and a d100, at α = 10⁻⁶: an honest generator passes
    rng = SystemRng()
    sizes = (4, 6, 8, 10, 12, 20, 100)
    each = 1_000_000 // len(sizes) + 1
    counts = {s: Counter(map(rng.roll, itertools.repeat(s, each))) for s in sizes}
    assert sum(sum(c.values()) for c in counts.values()) >= 1_000_000
    result = fairness_of({s: tuple(c[f] for f in range(1, s + 1)) for s, c in counts.items()}, alpha=1e-6)
    assert result.says == NOTHING_UNUSUAL, [(d.sides, d.holm_p) for d in result.dice]
    assert all(d.tested for d in result.dice)
