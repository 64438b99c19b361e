"""Conviction checks: d20 + bonus against a Difficulty, the Conviction re-roll and Quotable Wit (R-CV-1, R-CV-4,
R-CV-12), against brute force over every face."""

from __future__ import annotations

from fractions import Fraction

import pytest
from odds_brute import check_success

from herotable.odds.advisor import advise_check
from herotable.odds.check import check


@pytest.mark.parametrize("bonus", [-3, 0, 4, 9])
@pytest.mark.parametrize("dc", [5, 10, 15, 20, 25, 30, 35])
@pytest.mark.parametrize("reroll", [False, True])
@pytest.mark.parametrize("wit", [False, True])
def test_check_matches_brute_force(bonus, dc, reroll, wit):
    assert check(bonus, dc, conviction_reroll=reroll, wit=wit).success == check_success(bonus, dc, reroll, wit)


def test_by_hand():
    # R-CV-1: d20 + 5 meets 15 on 10..20: 11 of 20
    assert check(5, 15).success == Fraction(11, 20)
    # R-CV-4: needing 20, the re-roll hits on a 10 or a 20 (both count 20): 1 - 19/20 * 18/20
    assert check(0, 20, conviction_reroll=True).success == 1 - Fraction(19, 20) * Fraction(18, 20)
    # the re-roll never counts below 11, so needing 11 or less always succeeds with it
    assert check(0, 11, conviction_reroll=True).success == 1


def test_advisor_lists_every_way_and_never_hurts():
    rows = {r.key: r for r in advise_check(3, 18)}
    assert list(rows) == ["plain", "wit", "conviction", "both"]
    assert rows["plain"].change == 0
    assert all(r.change >= 0 for r in rows.values())
    assert rows["conviction"].expected_conviction == Fraction(14, 20)  # the share of first rolls below 15
