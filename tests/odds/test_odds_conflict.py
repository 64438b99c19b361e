"""Whole duels as absorbing chains (R-LTL-1, R-LTL-7, R-LTL-8, R-LTL-11, R-LTL-12): against an independent exact
recursion over faces, and against the rules engine itself fighting many seeded duels."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from math import sqrt

import pytest
from odds_brute import duel

from herotable.dice import Rating, SeededRng
from herotable.errors import IllegalAction
from herotable.ltl.conflict import attack, end_round, resolve, start_conflict
from herotable.ltl.hero import Hero
from herotable.ltl.options import LtlOptions
from herotable.ltl.samples import CAPTAIN_COMET
from herotable.ltl.sheet import sheet_from_dict
from herotable.ltl.task import CritBonus, Stance
from herotable.odds.conflict import (
    Contender,
    DuelState,
    Policy,
    Push,
    Recovery,
    SideState,
    conflict,
    rounds_distribution,
)

OPTS = LtlOptions()


@pytest.mark.parametrize(("a", "b"), [(1, 1), (1, 3), (2, 2), (3, 4), (4, 2), (5, 5), (6, 5), (7, 7), (7, 1)])
def test_chain_matches_an_independent_recursion(a, b):
    # R-LTL-1: position 6 is a d20 that has lost one level; R-LTL-8 criticals with the engine's defaults
    odds = conflict(Contender(Rating(a)), Contender(Rating(b)))
    want_win, want_rounds = duel(a, b)
    assert odds.a_wins == want_win
    assert odds.expected_rounds == want_rounds


def test_d20_survives_one_loss():
    # R-LTL-1: a d20 needs two losses to become a d12, so it outlasts a d12 it matches only from position 6
    assert (
        conflict(Contender(Rating(7)), Contender(Rating(5))).a_wins
        > conflict(Contender(Rating(6)), Contender(Rating(5))).a_wins
    )


def test_equal_fighters_are_even_and_everything_sums_to_one():
    for p in range(1, 8):
        odds = conflict(Contender(Rating(p)), Contender(Rating(p)))
        assert odds.a_wins == Fraction(1, 2)
        assert sum(q for _, _, q in odds.outcomes) == 1
        assert odds.a_levels_left == odds.b_levels_left


def test_rounds_distribution_adds_up_to_the_expected_rounds_exactly():
    a, b = Contender(Rating(3)), Contender(Rating(2))
    dist = rounds_distribution(a, b, limit=25)
    assert sum(dist.by_round) + dist.beyond == 1
    assert dist.by_round[0] == Fraction(1, 48)  # R-LTL-8: only an 8 against a 1 takes a d6's two levels at once
    partial = sum((n + 1) * p for n, p in enumerate(dist.by_round))
    assert partial < conflict(a, b).expected_rounds < partial + 1000 * dist.beyond + Fraction(1, 10**6)


def test_policies_sum_to_one_and_resources_help():
    # R-LTL-11: Heroism spent on Pushes and Recovery only ever helps a side that has it
    plain = conflict(Contender(Rating(4)), Contender(Rating(4)))
    for policy in (
        Policy(push=Push.ROLL),
        Policy(push=Push.BURN),
        Policy(recovery=Recovery.BURN),
        Policy(recovery=Recovery.ROLL, recovery_tries=2),
    ):
        odds = conflict(Contender(Rating(4), heroism=Rating(3), policy=policy), Contender(Rating(4)))
        assert odds.a_wins + odds.b_wins == 1
        assert odds.a_wins > plain.a_wins


def test_going_for_broke_trims_to_the_cap_and_keeps_a_die():
    # R-LTL-7: broke 5 is at most 2 levels at cap 3, and never the last die
    assert conflict(Contender(Rating(5), policy=Policy(broke=5)), Contender(Rating(5))) == conflict(
        Contender(Rating(5), policy=Policy(broke=2)), Contender(Rating(5))
    )


def test_a_finished_state_is_decided():
    odds = conflict(Contender(Rating(4)), Contender(Rating(4)), state=DuelState(SideState(2), SideState(0)))
    assert odds.a_wins == 1 and odds.expected_rounds == 0 and odds.outcomes == (("a", 2, 1),)


def test_extra_level_at_the_cap_is_refused_by_policy():
    with pytest.raises(ValueError, match="Tip"):
        Policy(crit_bonus_at_cap=CritBonus.EXTRA_LEVEL)


# --- the rules engine itself --------------------------------------------------------------------------------


def _hero(die: str) -> Hero:
    return Hero.from_sheet(sheet_from_dict({**CAPTAIN_COMET, "base": die, "styles": {}}))


def _engine_duel(a: str, b: str, broke_a: int, seed: int) -> bool:
    """One duel fought by the engine: A attacks each round (going for broke), criticals take the extra level,
    or +1 next round at the cap. True when A wins."""
    rng = SeededRng(seed)
    c = start_conflict([("a", _hero(a), "A"), ("b", _hero(b), "B")], rng, OPTS)
    while not c.over:
        broke = max(0, min(broke_a, OPTS.effect_cap - 1, c.fighter("a").hero.base_now(c.stakes).position - 1))
        opened = attack(c, "a", "b", rng, OPTS, actor_stance=Stance(broke=broke))
        try:
            c, _ = resolve(opened, OPTS, crit_bonus=CritBonus.EXTRA_LEVEL)
        except IllegalAction:
            c, _ = resolve(opened, OPTS, crit_bonus=CritBonus.PLUS_ONE_NEXT)
        c, _ = end_round(c, rng, OPTS)
    return c.winner == "A"


@pytest.mark.parametrize(("a", "b", "broke"), [("d8", "d10", 0), ("d12", "d20", 0), ("d10", "d8", 2)])
def test_chain_agrees_with_the_engine_over_many_seeds(a, b, broke):
    n = 1500
    wins = sum(_engine_duel(a, b, broke, seed) for seed in range(n))
    exact = float(conflict(Contender(Rating.of(a), policy=Policy(broke=broke)), Contender(Rating.of(b))).a_wins)
    sigma = sqrt(exact * (1 - exact) / n)
    assert abs(wins / n - exact) < 4.5 * sigma


def test_engine_duels_are_deterministic_per_seed():
    assert [_engine_duel("d8", "d8", 0, s) for s in range(20)] == [_engine_duel("d8", "d8", 0, s) for s in range(20)]


def test_contender_validation():
    with pytest.raises(ValueError):
        Contender(Rating(0))
    with pytest.raises(ValueError):
        Contender(Rating(4), style=Rating(3))
    assert replace(Contender(Rating(4), style=Rating(6))).offset == 2


@pytest.mark.parametrize(("a", "b"), [(1, 3), (3, 3), (3, 4), (4, 3), (5, 5), (6, 5), (7, 3), (7, 7)])
def test_chain_matches_an_independent_recursion_with_die_type_penalties(a, b):
    # R-LTL-8 (amended), R-LTL-1: a d20 under -1 rolls d12, a d4 under -1 counts its face one lower
    odds = conflict(Contender(Rating(a)), Contender(Rating(b)))
    want_win, want_rounds = duel(a, b)
    assert (odds.a_wins, odds.expected_rounds) == (want_win, want_rounds)


def test_odds_computed_by_many_threads_at_once_agree():
    # the chain is memoised and shared: two odds panels asking at once used to see each other's half-solved states
    # as a cycle and fail ("the duel chain has a cycle")
    import threading

    from herotable.odds import conflict as conflict_module

    hero = Contender(Rating(5), policy=Policy(push=Push.BURN, recovery=Recovery.BURN), heroism=Rating(4))
    villain = Contender(Rating(4), heroism=Rating(5))
    want = conflict(hero, villain)
    for _ in range(3):
        conflict_module._chain.cache_clear()
        answers: list[object] = []
        barrier = threading.Barrier(6)

        def ask(answers: list[object] = answers, barrier: threading.Barrier = barrier) -> None:
            barrier.wait()
            try:
                answers.append(conflict(hero, villain))
            except ArithmeticError as error:
                answers.append(error)

        threads = [threading.Thread(target=ask) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert answers == [want] * 6
