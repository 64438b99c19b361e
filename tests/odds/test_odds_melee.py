"""Many against many (R-LTL-12): exact where small, Monte Carlo (numpy, seeded) within its interval of exact."""

from __future__ import annotations

import numpy as np
import pytest
from odds_brute import duel

from herotable.dice import Rating
from herotable.ltl.options import LtlOptions
from herotable.odds.conflict import Contender, conflict
from herotable.odds.melee import Method, Targeting, exact_melee, melee, targets
from herotable.odds.montecarlo import simulate_melee, wilson

R = Rating


def test_one_against_one_is_the_duel_chain_exactly():
    for a, b in ((2, 3), (5, 7), (4, 4)):
        m = exact_melee([R(a)], [R(b)])
        d = conflict(Contender(R(a)), Contender(R(b)))
        assert m.method is Method.EXACT
        assert (m.a_wins.exact, m.expected_rounds.exact) == (d.a_wins, d.expected_rounds) == duel(a, b)


def test_targeting_policies():
    # side A: positions 3, 2; side B: 4, 1, 3
    pos = [3, 2, 4, 1, 3]
    assert targets(pos, 2, Targeting.WEAKEST)[:2] == [(0, 3), (1, 3)]
    assert targets(pos, 2, Targeting.STRONGEST)[:2] == [(0, 2), (1, 2)]
    assert targets(pos, 2, Targeting.SPREAD)[:2] == [(0, 2), (1, 3)]
    # a target that has acted only defends: B's third fighter still acts, against the weakest of A
    assert targets(pos, 2, Targeting.WEAKEST) == [(0, 3), (1, 3), (2, 1), (4, 1)]


@pytest.mark.parametrize("targeting", list(Targeting))
def test_monte_carlo_within_its_interval_of_exact(targeting):
    side_a, side_b = [R(2), R(3)], [R(2), R(4)]
    exact = exact_melee(side_a, side_b, targeting)
    mc = simulate_melee(side_a, side_b, 20240601, trials=40_000, targeting=targeting, confidence=0.999)
    assert mc.method is Method.MONTE_CARLO and mc.trials == 40_000
    for key in ("a_wins", "b_wins", "draw", "expected_rounds"):
        est, want = getattr(mc, key), getattr(exact, key)
        assert est.low <= want.value <= est.high, key
    assert exact.a_wins.exact + exact.b_wins.exact + exact.draw.exact == 1


def test_monte_carlo_duel_with_exploding_dice_within_interval():
    opts = LtlOptions(exploding=True)
    exact = conflict(Contender(R(3)), Contender(R(4)), opts)
    mc = simulate_melee([R(3)], [R(4)], np.random.default_rng(5), trials=40_000, options=opts, confidence=0.999)
    assert mc.a_wins.low <= float(exact.a_wins) <= mc.a_wins.high
    assert mc.expected_rounds.low <= float(exact.expected_rounds) <= mc.expected_rounds.high


def test_monte_carlo_is_deterministic_per_seed():
    first = simulate_melee([R(4), R(3)], [R(5)], 11, trials=2000)
    assert first == simulate_melee([R(4), R(3)], [R(5)], 11, trials=2000)


def test_large_melees_fall_back_to_monte_carlo_and_say_so():
    big = [R(7), R(7), R(7)]
    with pytest.raises(ValueError, match="Tip"):
        melee(big, big)
    result = melee(big, big, seed=3, trials=2000)
    assert result.method is Method.MONTE_CARLO
    assert result.a_wins.low < result.a_wins.value < result.a_wins.high
    assert melee([R(2)], [R(3)]).method is Method.EXACT


def test_wilson_interval():
    low, high = wilson(50, 100, 0.95)
    assert low < 0.5 < high and abs((high - low) - 0.19) < 0.01
