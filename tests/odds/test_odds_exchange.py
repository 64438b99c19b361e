"""One exchange: exact odds against brute force over every face (R-LTL-3, R-LTL-8, R-LTL-9, R-LTL-18)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st
from odds_brute import exchange_counts, exploding_totals

from herotable.dice import LADDER_DICE, Rating
from herotable.errors import IllegalAction
from herotable.ltl.options import LtlOptions, RerollMode
from herotable.odds.distributions import dice_exchange, general_exchange
from herotable.odds.exchange import Roll, exchange, push_chance, rolled_die, rolled_rating, team

F = Fraction


def test_d4_against_d4_by_hand():
    # R-LTL-3: 16 face pairs, 6 wins, 4 ties; a critical is 4 against 1
    odds = dice_exchange(4, 4)
    assert (odds.win, odds.tie, odds.lose) == (F(6, 16), F(4, 16), F(6, 16))
    assert odds.crit_success == odds.crit_failure == F(1, 16)


def test_d20_against_d20_by_hand():
    odds = dice_exchange(20, 20)
    assert (odds.win, odds.tie) == (F(190, 400), F(20, 400))
    assert odds.crit_success == F(1, 400)


def test_d4_against_d6_by_hand():
    # R-LTL-3: wins are x > y: (2,1) (3,1) (3,2) (4,1) (4,2) (4,3) = 6 of 24; ties 4
    odds = dice_exchange(4, 6)
    assert (odds.win, odds.tie, odds.lose) == (F(6, 24), F(4, 24), F(14, 24))


@pytest.mark.parametrize("s", LADDER_DICE)
@pytest.mark.parametrize("u", LADDER_DICE)
def test_all_36_pairs_match_brute_force(s, u):
    # R-LTL-3, R-LTL-8
    assert dice_exchange(s, u).as_dict() == exchange_counts(s, u)


@pytest.mark.parametrize(
    ("s", "u", "k", "m"), [(4, 6, 1, 0), (8, 6, 2, 1), (6, 12, 0, 2), (10, 10, 1, 1), (20, 8, 1, 0)]
)
def test_keep_better_rerolls_match_brute_force(s, u, k, m):
    # R-LTL-9: a re-roll keeps the better result
    assert dice_exchange(s, u, rerolls=k, opp_rerolls=m).as_dict() == exchange_counts(s, u, k, m)


@pytest.mark.parametrize(("s", "u", "k"), [(4, 6, 1), (8, 6, 2), (12, 4, 1), (6, 20, 1)])
def test_new_result_stands_rerolls_while_not_winning(s, u, k):
    # R-LTL-9 campaign option: the new result stands; a player re-rolls only while not winning
    mode = RerollMode.NEW_STANDS
    assert dice_exchange(s, u, rerolls=k, reroll_mode=mode).as_dict() == exchange_counts(s, u, k, new_stands=True)
    flipped = dice_exchange(u, s, opp_rerolls=k, reroll_mode=mode).flipped()
    assert flipped == dice_exchange(s, u, rerolls=k, reroll_mode=mode)


def test_new_result_stands_refuses_rerolls_on_both_sides():
    with pytest.raises(ValueError, match="Tip"):
        dice_exchange(6, 6, rerolls=1, opp_rerolls=1, reroll_mode=RerollMode.NEW_STANDS)


def test_periodic_sums_agree_with_counting_for_plain_dice():
    for s in LADDER_DICE:
        for u in LADDER_DICE:
            assert general_exchange(s, u, 1, 0, False) == dice_exchange(s, u, rerolls=1)


def _truncated(s: int, u: int, depth: int) -> tuple[dict[str, Fraction], Fraction]:
    xs, left_x = exploding_totals(s, depth)
    ys, left_y = exploding_totals(u, depth)
    out = dict.fromkeys(("win", "tie", "lose"), F(0))
    for x, px in xs.items():
        for y, py in ys.items():
            out["win" if x > y else "tie" if x == y else "lose"] += px * py
    return out, left_x + left_y


@pytest.mark.parametrize(("s", "u"), [(4, 4), (4, 6), (6, 10), (8, 12), (12, 20), (20, 20)])
def test_exploding_exact_within_the_unexplored_mass_of_a_deep_enumeration(s, u):
    # R-LTL-18: exact infinite sums; every finite enumeration misses at most its unexplored mass
    odds = dice_exchange(s, u, exploding=True)
    partial, left = _truncated(s, u, 6)
    for key in ("win", "tie", "lose"):
        assert partial[key] <= getattr(odds, key) <= partial[key] + left
    assert left < F(1, 10**3)


def test_exploding_d4_against_d4_by_hand():
    # ties: sum over blocks of 3 totals each at 4^-(k+1), squared: 3/16 / (1 - 1/16) = 1/5
    odds = dice_exchange(4, 4, exploding=True)
    assert (odds.win, odds.tie, odds.lose) == (F(2, 5), F(1, 5), F(2, 5))
    assert odds.crit_success == F(1, 16)  # R-LTL-18: criticals unchanged


def test_exploding_with_rerolls_sums_to_one():
    odds = dice_exchange(6, 8, rerolls=1, opp_rerolls=1, exploding=True)
    assert odds.win + odds.tie + odds.lose == 1
    assert odds.win > dice_exchange(6, 8, opp_rerolls=1, exploding=True).win


@given(
    st.sampled_from(LADDER_DICE),
    st.sampled_from(LADDER_DICE),
    st.integers(0, 2),
    st.integers(0, 2),
    st.booleans(),
)
def test_odds_sum_to_exactly_one(s, u, k, m, exploding):
    odds = dice_exchange(s, u, rerolls=k, opp_rerolls=m, exploding=exploding)
    assert odds.win + odds.tie + odds.lose == 1
    assert 0 <= odds.crit_success <= odds.win and 0 <= odds.crit_failure <= odds.lose


def test_automatic_success_wins_outright_and_cancels_out():
    # R-LTL-10
    d6, d12 = Rating.of("d6"), Rating.of("d12")
    assert exchange(Roll(d6, auto_success=True), Roll(d12)).win == 1
    both = exchange(Roll(d6, auto_success=True), Roll(d12, auto_success=True))
    assert both == dice_exchange(6, 12)


def test_rolled_rating_follows_broke_push_and_criticals():
    d12 = Rating.of("d12")
    assert rolled_rating(d12, broke=1).sides == 10  # R-LTL-7
    assert rolled_rating(d12, pushed=True).sides == 20  # R-LTL-11: d12 -> d20 is one die step
    assert rolled_rating(d12, plus_one=1).sides == 20  # R-LTL-1, R-LTL-8 (amended): +1 is one die type
    with pytest.raises(ValueError, match="Tip"):
        rolled_rating(Rating.of("d4"), broke=1)


def test_team_die_comes_from_the_engine():
    # R-LTL-14: two d8s roll a d10; members out of range cannot form a team
    assert team([Rating.of("d8"), Rating.of("d8")]).sides == 10
    with pytest.raises(IllegalAction):
        team([Rating.of("d4"), Rating.of("d12")])


def test_push_chance_is_heroism_beating_the_die_pushed_to():
    # R-LTL-11: a d8 Heroism pushing a d6 base rolls against a d8; a tie fails
    assert push_chance(Rating.of("d8"), Rating.of("d6")) == exchange_counts(8, 8)["win"]
    assert push_chance(Rating.of("d8"), Rating.of("d20")) == 0
    assert push_chance(Rating(0), Rating.of("d6")) == 0


def test_exploding_option_reaches_the_exchange():
    plain = exchange(Roll(Rating.of("d6")), Roll(Rating.of("d8")))
    boom = exchange(Roll(Rating.of("d6")), Roll(Rating.of("d8")), LtlOptions(exploding=True))
    assert plain != boom and boom.win + boom.tie + boom.lose == 1


def test_a_criticals_plus_and_minus_are_one_die_type():
    # R-LTL-1, R-LTL-8 (amended): d12 +1 rolls d20; a d20 (position 7 or 6) -1 rolls d12; a d4 -1 is position 0,
    # which rolls a d4 counted one lower; at most one -1 a round, and a +1 cancels it (R-LTL-4)
    assert rolled_rating(Rating.of("d12"), plus_one=1).sides == 20
    assert rolled_rating(Rating(7), minus_one=1) == rolled_rating(Rating(6), minus_one=1) == Rating.of("d12")
    assert rolled_rating(Rating.of("d4"), minus_one=1) == Rating(0)
    assert rolled_rating(Rating.of("d10"), minus_one=2) == Rating.of("d8")
    assert rolled_rating(Rating.of("d10"), plus_one=1, minus_one=1) == Rating.of("d10")


@pytest.mark.parametrize("u", LADDER_DICE)
def test_a_d4_under_minus_one_counts_its_face_one_lower(u):
    # R-LTL-8 (amended): against every ladder die, from both sides, with a penalised opponent too
    odds = exchange(Roll(Rating(0)), Roll(Rating.of(f"d{u}")))
    assert odds.as_dict() == exchange_counts(4, u, shift=1)
    assert exchange(Roll(Rating.of(f"d{u}")), Roll(Rating(0))).as_dict() == exchange_counts(u, 4, opp_shift=1)
    assert exchange(Roll(Rating(0)), Roll(Rating(0))).as_dict() == exchange_counts(4, 4, shift=1, opp_shift=1)


@pytest.mark.parametrize(("rerolls", "opp_rerolls", "new_stands"), [(1, 0, False), (0, 2, False), (2, 0, True)])
def test_a_penalised_d4_with_rerolls(rerolls, opp_rerolls, new_stands):
    # R-LTL-8, R-LTL-9: re-rolls of a penalised d4 against a d6, both re-roll modes
    options = LtlOptions(reroll_mode=RerollMode.NEW_STANDS if new_stands else RerollMode.KEEP_BETTER)
    got = exchange(Roll(Rating(0), rerolls), Roll(Rating.of("d6"), opp_rerolls), options)
    assert got.as_dict() == exchange_counts(4, 6, rerolls, opp_rerolls, new_stands, shift=1)


def test_a_penalised_d4_with_exploding_maxima_is_within_the_truncated_brute_force():
    # R-LTL-8, R-LTL-18: exploding totals enumerated to a depth, the exact answer inside the unexplored mass
    got = exchange(Roll(Rating(0)), Roll(Rating.of("d6")), LtlOptions(exploding=True))
    xs, x_rest = exploding_totals(4, 8)
    ys, y_rest = exploding_totals(6, 8)
    win = sum((px * py for x, px in xs.items() for y, py in ys.items() if x - 1 > y), F(0))
    lose = sum((px * py for x, px in xs.items() for y, py in ys.items() if x - 1 < y), F(0))
    slack = x_rest + y_rest
    assert win <= got.win <= win + slack and lose <= got.lose <= lose + slack
    assert got.win + got.tie + got.lose == 1
    assert got.crit_success == F(1, 4) * F(1, 6) and got.crit_failure == F(1, 4) * F(1, 6)


def test_push_odds_are_priced_by_the_highest_die_the_push_creates():
    # R-LTL-11 (amended): a d12 Style on a d10 base is pushed to d20: two burned levels or an Inconceivable roll
    from herotable.odds.exchange import push_burn_cost

    d10, d12 = Rating.of("d10"), Rating.of("d12")
    assert push_burn_cost(d10, d12) == 2 and push_burn_cost(d10) == 1
    assert push_chance(Rating.of("d12"), d10, style=d12) == exchange_counts(12, 20)["win"]
    assert push_burn_cost(Rating(6), Rating(7)) is None


@pytest.mark.parametrize("u", LADDER_DICE)
def test_a_d4_two_die_types_down_counts_its_face_two_lower(u):
    # R-T-2 (amended 2026-12-02): a situational -2 on a d4 (or -1 on a d4 already under a critical's -1); exact
    # against every ladder die, from both sides, with re-rolls too
    assert rolled_die(Rating.of("d4"), shift=-2) == (Rating(0), 2)
    assert rolled_die(Rating.of("d4"), minus_one=1, shift=-1) == (Rating(0), 2)
    assert rolled_die(Rating.of("d12"), shift=1) == (Rating(7), 0)
    two_down = Roll(Rating(0), penalty=2)
    assert exchange(two_down, Roll(Rating.of(f"d{u}"))).as_dict() == exchange_counts(4, u, shift=2)
    assert exchange(Roll(Rating.of(f"d{u}")), two_down).as_dict() == exchange_counts(u, 4, opp_shift=2)
    rerolled = exchange(Roll(Rating(0), 1, penalty=2), Roll(Rating.of(f"d{u}")))
    assert rerolled.as_dict() == exchange_counts(4, u, 1, shift=2)
