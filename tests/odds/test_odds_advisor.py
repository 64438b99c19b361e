"""The advisor lists each option's odds and its change to the duel; it never decides (R-LTL-7, R-LTL-10,
R-LTL-11)."""

from __future__ import annotations

import pytest

from herotable.dice import Rating
from herotable.odds.advisor import advise
from herotable.odds.conflict import Choice, Contender, DuelState, Policy, SideState, after_choice, conflict


def test_options_and_their_changes():
    you, opp = Contender(Rating(4), heroism=Rating(3)), Contender(Rating(5))
    rows = {o.key: o for o in advise(you, opp, karma=Rating(3))}
    assert next(iter(rows)) == "as_planned" and rows["as_planned"].change == 0
    # playing as planned is the whole duel from here
    assert rows["as_planned"].duel_win == conflict(you, opp).a_wins
    assert {"broke_1", "broke_2", "push_roll", "push_burn", "karma_now", "karma_after"} <= set(rows)
    # R-LTL-10: Automatic Success wins the exchange; after the roll it costs 2 levels only when needed
    assert rows["karma_now"].exchange.win == 1 and rows["karma_now"].expected_cost == 1
    assert rows["karma_after"].expected_cost == 2 * (1 - rows["as_planned"].exchange.win)
    assert rows["karma_now"].duel_win == rows["karma_after"].duel_win > rows["as_planned"].duel_win
    # R-LTL-11: a burned push raises the die for this round
    assert rows["push_burn"].exchange.win > rows["as_planned"].exchange.win
    for row in rows.values():
        assert row.change == row.duel_win - rows["as_planned"].duel_win


def test_options_respect_the_cap_and_the_dice_left():
    # R-LTL-7: from a d6 only one level can be paid; no Karma, no Heroism: nothing else to offer
    rows = [o.key for o in advise(Contender(Rating(2)), Contender(Rating(2)))]
    assert rows == ["as_planned", "broke_1"]


def test_a_choice_for_one_round_then_the_policy():
    you, opp = Contender(Rating(3), policy=Policy(broke=1)), Contender(Rating(3))
    state = DuelState(SideState(3), SideState(3))
    assert after_choice(you, opp, state, Choice()).a_wins == conflict(you, opp).a_wins


def test_a_finished_duel_has_no_advice():
    with pytest.raises(ValueError, match="Tip"):
        advise(Contender(Rating(3)), Contender(Rating(3)), DuelState(SideState(3), SideState(0)))
