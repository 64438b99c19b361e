"""Many against many (R-LTL-12): exact where small, Monte Carlo (numpy, seeded) within its interval of exact."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import numpy as np
import pytest
from odds_brute import duel
from odds_brute import melee as brute_melee

from herotable.dice import Rating
from herotable.ltl.options import DEFAULT_OPTIONS, LtlOptions
from herotable.odds.conflict import Contender, conflict
from herotable.odds.exchange import Roll, exchange
from herotable.odds.melee import (
    EXACT_WORK_LIMIT,
    Method,
    Targeting,
    TooLarge,
    _ExactMelee,
    exact_melee,
    exact_work,
    melee,
    plain_exact_melee,
    targets,
)
from herotable.odds.melee_exact import _Chain, chain_size, fits
from herotable.odds.montecarlo import (
    _duel_code,
    _duel_table,
    _nibbles,
    _outcome_table,
    _plan,
    _plan_nibbles,
    _targets,
    simulate_melee,
    wilson,
)

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
    assert melee([R(4), R(4)], [R(4), R(4)]).method is Method.EXACT  # two d10 against two d10


def test_the_exact_solver_stops_at_its_budget():
    side = [R(3), R(3)]
    states, work = exact_work(side, side)
    assert states > 0 and work == exact_work(side, side)[1]
    assert exact_melee(side, side, budget=work).method is Method.EXACT
    with pytest.raises(TooLarge):
        exact_melee(side, side, budget=work - 1)
    assert melee(side, side, exact_limit=work - 1, seed=1, trials=1000).method is Method.MONTE_CARLO


def test_wilson_interval():
    low, high = wilson(50, 100, 0.95)
    assert low < 0.5 < high and abs((high - low) - 0.19) < 0.01


def test_one_draw_settles_an_exchange_with_the_exact_odds():
    # every draw 0..14399 once: the tabulated outcomes of each pair of dice are exactly its exchange odds
    table = _outcome_table().reshape(8, 8, -1)
    for ra in range(1, 8):
        for rt in range(1, 8):
            counts = np.bincount(table[ra, rt], minlength=5)
            odds = exchange(Roll(R(ra)), Roll(R(rt)))
            want = (
                odds.tie,
                odds.win - odds.crit_success,
                odds.crit_success,
                odds.lose - odds.crit_failure,
                odds.crit_failure,
            )
            assert tuple(Fraction(int(c), 14400) for c in counts) == want, (ra, rt)


@pytest.mark.parametrize("cap", [1, 3])
def test_duel_rounds_are_the_exact_chain_transitions(cap):
    # every running duel state (a d20 survives one loss: positions 6 and 7 both roll d20) against the exact solver
    opts = LtlOptions(effect_cap=cap)
    chain = _ExactMelee(1, Targeting.WEAKEST, opts)
    table = _duel_table(1 if cap >= 2 else 0).reshape(256, -1)
    for pa in range(1, 8):
        for pb in range(1, 8):
            for ma, mb in ((0, 0), (1, 0), (0, 1)):
                s = _duel_code(pa, pb, ma, mb)
                counts = np.bincount(table[s], minlength=256)
                got = {code: Fraction(int(c), 14400) for code, c in enumerate(counts) if c}
                want: dict[int, Fraction] = {}
                for ((qa, na), (qb, nb)), p in chain.transitions(((pa, ma), (pb, mb))).items():
                    code = _duel_code(qa, qb, na, nb)
                    want[code] = want.get(code, Fraction(0)) + p
                assert got == want, (pa, pb, ma, mb)


@pytest.mark.parametrize("targeting", list(Targeting))
def test_vectorised_targets_match_the_rules(targeting):
    rng = np.random.default_rng(7)
    for n_a, n_b in ((1, 1), (2, 1), (1, 3), (3, 2), (3, 3)):
        pos = rng.integers(-1, 8, size=(n_a + n_b, 500)).astype(np.int8)
        pos[rng.integers(0, n_a, size=500), np.arange(500)] = rng.integers(1, 8, size=500)
        pos[rng.integers(n_a, n_a + n_b, size=500), np.arange(500)] = rng.integers(1, 8, size=500)
        aim = _targets(pos, pos > 0, n_a, targeting)
        for trial in range(500):
            for actor, target in targets(pos[:, trial].tolist(), n_a, targeting):
                assert aim[actor][trial] == target


@pytest.mark.parametrize("options", [LtlOptions(effect_cap=1), LtlOptions(exploding=True, effect_cap=1)])
def test_monte_carlo_melee_options_within_interval(options):
    side_a, side_b = [R(7), R(1)], [R(2), R(2)]
    for targeting in Targeting:
        exact = exact_melee(side_a, side_b, targeting, options)
        mc = simulate_melee(side_a, side_b, 99, trials=40_000, targeting=targeting, options=options, confidence=0.999)
        for key in ("a_wins", "b_wins", "expected_rounds"):
            est, want = getattr(mc, key), getattr(exact, key)
            assert est.low <= want.value <= est.high, (targeting, key)


def test_monte_carlo_duels_across_the_ladder_within_interval():
    for a, b in ((7, 7), (7, 1), (1, 7), (6, 3)):
        exact = conflict(Contender(R(a)), Contender(R(b)))
        mc = simulate_melee([R(a)], [R(b)], a * 10 + b, trials=40_000, confidence=0.999)
        assert mc.a_wins.low <= float(exact.a_wins) <= mc.a_wins.high, (a, b)
        assert mc.expected_rounds.low <= float(exact.expected_rounds) <= mc.expected_rounds.high, (a, b)
        assert mc.draw.value == 0


@pytest.mark.parametrize("targeting", list(Targeting))
@pytest.mark.parametrize(
    ("side_a", "side_b"), [([1, 2], [2]), ([2], [1, 1]), ([1, 2], [1, 1]), ([2, 1], [1, 2]), ([1, 1], [1, 1, 1])]
)
def test_exact_melee_equals_the_brute_force_over_every_face(side_a, side_b, targeting):
    want = brute_melee(side_a, side_b, targeting.value)
    got = exact_melee([R(p) for p in side_a], [R(p) for p in side_b], targeting)
    assert (got.a_wins.exact, got.b_wins.exact, got.draw.exact, got.expected_rounds.exact) == want


def test_exact_melee_equals_the_brute_force_with_a_cap_of_one():
    want = brute_melee([1, 2], [2, 1], "weakest", cap=1)
    got = exact_melee([R(1), R(2)], [R(2), R(1)], Targeting.WEAKEST, LtlOptions(effect_cap=1))
    assert (got.a_wins.exact, got.b_wins.exact, got.draw.exact, got.expected_rounds.exact) == want


@pytest.mark.parametrize("targeting", list(Targeting))
def test_tabulated_round_plans_are_the_rules_exchanges(targeting):
    # every position code of 2 against 3 where both sides stand: the packed plan lists `targets` in order
    n_a, count = 2, 5
    plan, exchanges = _plan(count, n_a, targeting)
    for code in range(8**count):
        pos = [(code >> (3 * f)) & 7 for f in range(count)]
        if not any(pos[:n_a]) or not any(pos[n_a:]):
            continue
        want = targets(pos, n_a, targeting)
        got = [
            ((int(plan[code]) >> (8 * k + 4)) & 15, (int(plan[code]) >> (8 * k)) & 15) for k in range(exchanges[code])
        ]
        assert got == want, pos


@pytest.mark.parametrize("targeting", list(Targeting))
def test_tabulated_dice_of_each_exchange_are_the_lanes_of_its_fighters(targeting):
    # every position code of 2 against 3 (no -1): the table holds what the actor's and target's lanes hold, as
    # they are read from the lanes for a trial with a -1; and with a -1 on a fighter, its lane's bit 3 is read
    n_a, count = 2, 5
    plan, exchanges = _plan(count, n_a, targeting)
    table = _plan_nibbles(count, n_a, targeting)
    codes = np.arange(8**count, dtype=np.int64)
    lanes = sum(((codes >> (3 * f)) & 7) << (8 * f) for f in range(count))
    read = _nibbles(lanes, plan)
    used = sum(np.where(exchanges > k, 0xFF << (8 * k), 0) for k in range(6))  # bytes of exchanges that happen
    assert np.array_equal(table & used, read & used)
    assert np.count_nonzero(table & used) > 0
    minus = lanes | (8 << 8)  # fighter 1 at -1 this round
    marked = _nibbles(minus, plan)
    for code in (int(c) for c in codes[::97] if exchanges[c]):
        for k in range(int(exchanges[code])):
            who = (int(plan[code]) >> (8 * k)) & 0xFF
            got = (int(marked[code]) >> (8 * k)) & 0xFF
            assert got >> 4 == ((int(minus[code]) >> (8 * (who >> 4))) & 15)
            assert got & 15 == ((int(minus[code]) >> (8 * (who & 15))) & 15)


def test_packed_melee_rounds_follow_the_exact_chain():
    # 2 against 2 with -1s in play: the first round's outcomes by Monte Carlo within their interval of exact
    side_a, side_b = [R(1), R(6)], [R(7), R(2)]
    solver = _ExactMelee(2, Targeting.WEAKEST, LtlOptions())
    start = ((1, 0), (6, 0), (7, 0), (2, 0))
    exact = exact_melee(side_a, side_b)
    mc = simulate_melee(side_a, side_b, 4, trials=60_000, confidence=0.999)
    assert sum(solver.transitions(start).values()) == 1
    for key in ("a_wins", "b_wins", "draw", "expected_rounds"):
        est, want = getattr(mc, key), getattr(exact, key)
        assert est.low <= want.value <= est.high, key


@pytest.mark.parametrize(
    ("side_a", "side_b", "targeting", "options"),
    [
        ([3, 1], [2, 2], Targeting.WEAKEST, LtlOptions()),
        ([4, 2], [1, 3], Targeting.WEAKEST, LtlOptions()),
        ([7, 1], [2, 6], Targeting.WEAKEST, LtlOptions()),
        ([2, 3], [3, 2], Targeting.STRONGEST, LtlOptions()),
        ([1, 4], [3, 2], Targeting.SPREAD, LtlOptions()),
        ([3, 3], [2, 4], Targeting.WEAKEST, LtlOptions(effect_cap=1)),
        ([6], [2, 2, 1], Targeting.WEAKEST, LtlOptions()),
        ([2, 1, 2], [3], Targeting.SPREAD, LtlOptions()),
        ([1, 2], [2, 1, 1], Targeting.STRONGEST, LtlOptions(effect_cap=2)),
        ([1, 1, 1], [1, 2], Targeting.WEAKEST, LtlOptions()),
        ([5], [6], Targeting.WEAKEST, LtlOptions()),
        ([7], [1], Targeting.WEAKEST, LtlOptions(effect_cap=1)),
    ],
)
def test_fast_solver_equals_the_plain_solver(side_a, side_b, targeting, options):
    # the vectorised forward solver (melee_exact) against the plain one, state by state, as exact fractions
    a, b = [R(p) for p in side_a], [R(p) for p in side_b]
    assert fits(len(a) + len(b), options)
    got = exact_melee(a, b, targeting, options)
    want = plain_exact_melee(a, b, targeting, options)
    assert (got.a_wins.exact, got.b_wins.exact, got.draw.exact, got.expected_rounds.exact) == want
    assert sum(want[:3]) == 1


def test_exploding_melees_take_the_plain_solver():
    # exploding dice's exact odds have denominators too large for the fast solver's integers beyond a duel
    opts = LtlOptions(exploding=True)
    assert fits(2, opts) and not fits(3, opts)
    got = exact_melee([R(2), R(1)], [R(2)], Targeting.WEAKEST, opts)
    assert got.a_wins.exact + got.b_wins.exact + got.draw.exact == 1
    assert got.a_wins.exact != exact_melee([R(2), R(1)], [R(2)], Targeting.WEAKEST).a_wins.exact  # exploding counts


def test_every_two_against_two_is_exact():
    # the choice, not the time: every 2 against 2 of ladder positions 1..7, weakest first, the default options,
    # is within the exact solver's bound, and the largest of them is solved exactly by melee (no seed: Monte
    # Carlo would raise)
    assert fits(4, DEFAULT_OPTIONS)
    works = {}
    for a0, a1, b0, b1 in product(range(1, 8), repeat=4):
        works[a0, a1, b0, b1] = exact_work([R(a0), R(a1)], [R(b0), R(b1)])[1]
    assert max(works.values()) == works[7, 7, 7, 7] <= EXACT_WORK_LIMIT
    top = [R(7), R(7)]
    assert melee(top, top).method is Method.EXACT
    # and the bound is no wider than it needs to be: one more fighter at d20 is past it
    assert exact_work(top, [*top, R(7)])[1] > EXACT_WORK_LIMIT
    assert melee(top, [*top, R(7)], seed=1, trials=500).method is Method.MONTE_CARLO


def test_the_quick_lower_bound_never_passes_the_work():
    # melee refuses a large melee by a bound counted at once; it must never exceed the work it stands for
    from herotable.odds.melee import _least_work

    for a, b in (([1], [1]), ([7, 7], [7, 7]), ([2, 5], [3]), ([1, 1, 1], [7, 2, 1]), ([7], [7, 7, 7])):
        tops = a + b
        assert _least_work(tops, len(a)) <= exact_work([R(p) for p in a], [R(p) for p in b])[1], (a, b)


@pytest.mark.parametrize(
    ("tops", "n_a", "targeting", "options"),
    [
        ([7, 7, 7, 7], 2, Targeting.WEAKEST, LtlOptions()),
        ([3, 1, 2], 1, Targeting.SPREAD, LtlOptions(effect_cap=1)),
        ([2, 2, 1, 1, 2], 3, Targeting.STRONGEST, LtlOptions()),
        ([1, 1], 1, Targeting.WEAKEST, LtlOptions(effect_cap=2)),
    ],
)
def test_the_counted_work_is_what_the_fast_solver_builds(tops, n_a, targeting, options):
    # melee's bound counts the fast solver's states and combinations before building them: the same numbers
    chain = _Chain(tops, n_a, targeting, options)
    assert chain_size(tops, n_a, targeting, options) == (chain.size, chain.combos)
