"""Quick contests and races (R-LTL-13): one roll each, ties re-rolled among the tied or shared."""

from __future__ import annotations

import pytest

from herotable.dice import Rating, ScriptedRng
from herotable.errors import IllegalAction
from herotable.ltl.contest import ContestRound, quick_contest, race, replay_faces
from herotable.ltl.hero import Hero, LossType, lose_levels
from herotable.ltl.options import LtlOptions, QuickTies
from herotable.ltl.roll import DieRoll
from herotable.ltl.sheet import HeroSheet, Style
from herotable.ltl.teamwork import ratings_of

SHARED = LtlOptions(quick_ties=QuickTies.SHARED)


def d(die: str) -> Rating:
    return Rating.of(die)


def faces(result_round: ContestRound) -> dict[str, int]:
    return {member: roll.total for member, roll in result_round.rolls}


def test_highest_roll_wins_and_everyone_else_loses() -> None:
    # R-LTL-13: one roll per participant; the losers suffer defeat's consequences
    entries = [("Ace", d("d8")), ("Bolt", d("d6")), ("Comet", d("d10"))]
    with ScriptedRng([(8, 7), (6, 3), (10, 5)]) as rng:
        result = quick_contest(entries, rng)
    assert result.winners == ("Ace",)
    assert result.losers == ("Comet", "Bolt")
    assert result.rounds == (
        ContestRound((("Ace", DieRoll(8, (7,))), ("Bolt", DieRoll(6, (3,))), ("Comet", DieRoll(10, (5,))))),
    )


def test_a_tie_for_first_is_rerolled_among_the_tied_only() -> None:
    # R-LTL-13: Comet is out after the first round and never rolls again
    entries = [("Ace", d("d8")), ("Bolt", d("d8")), ("Comet", d("d6"))]
    with ScriptedRng([(8, 6), (8, 6), (6, 2), (8, 3), (8, 5)]) as rng:
        result = quick_contest(entries, rng)
    assert result.winners == ("Bolt",)
    assert result.losers == ("Ace", "Comet")
    assert [faces(r) for r in result.rounds] == [{"Ace": 6, "Bolt": 6, "Comet": 2}, {"Ace": 3, "Bolt": 5}]


def test_ties_are_rerolled_until_one_wins() -> None:
    # R-LTL-13
    entries = [("Ace", d("d4")), ("Bolt", d("d4")), ("Comet", d("d4"))]
    with ScriptedRng([4, 4, 4, 2, 2, 1, 3, 3, 1, 4]) as rng:
        result = quick_contest(entries, rng)
    assert [faces(r) for r in result.rounds] == [
        {"Ace": 4, "Bolt": 4, "Comet": 4},
        {"Ace": 2, "Bolt": 2, "Comet": 1},
        {"Ace": 3, "Bolt": 3},
        {"Ace": 1, "Bolt": 4},
    ]
    assert result.winners == ("Bolt",)
    assert result.losers == ("Ace", "Comet")


def test_a_tie_below_first_is_not_rerolled() -> None:
    # R-LTL-13: only a tie for first matters in a quick contest
    entries = [("Ace", d("d8")), ("Bolt", d("d6")), ("Comet", d("d6"))]
    with ScriptedRng([7, 3, 3]) as rng:
        result = quick_contest(entries, rng)
    assert result.winners == ("Ace",)
    assert result.losers == ("Bolt", "Comet")
    assert len(result.rounds) == 1


def test_shared_option_lets_the_tied_all_win() -> None:
    # R-LTL-13 campaign option: shared win
    entries = [("Ace", d("d8")), ("Bolt", d("d10")), ("Comet", d("d6"))]
    with ScriptedRng([(8, 6), (10, 6), (6, 5)]) as rng:
        result = quick_contest(entries, rng, SHARED)
    assert result.winners == ("Ace", "Bolt")
    assert result.losers == ("Comet",)
    assert len(result.rounds) == 1


def test_endless_ties_are_shared_after_1000_rounds() -> None:
    # R-LTL-13: the roll budget guards the re-roll loop
    entries = [("Ace", d("d4")), ("Bolt", d("d4"))]
    with ScriptedRng([2] * 2000) as rng:
        result = quick_contest(entries, rng)
    assert len(result.rounds) == 1000
    assert result.winners == ("Ace", "Bolt")
    assert result.losers == ()


def test_exploding_dice_add_up() -> None:
    # R-LTL-13, R-LTL-18: a d4 showing 4 then 3 totals 7 and beats a d8's 6
    entries = [("Ace", d("d4")), ("Bolt", d("d8"))]
    with ScriptedRng([(4, 4), (4, 3), (8, 6)]) as rng:
        result = quick_contest(entries, rng, LtlOptions(exploding=True))
    assert result.winners == ("Ace",)
    assert result.rounds[0].rolls[0] == ("Ace", DieRoll(4, (4, 3)))


def test_a_race_places_everyone_by_the_rolls() -> None:
    # R-LTL-13: for a race, the order of the rolls
    entries = [("Ace", d("d6")), ("Bolt", d("d8")), ("Comet", d("d10")), ("Dyna", d("d12"))]
    with ScriptedRng([(6, 2), (8, 8), (10, 5), (12, 1)]) as rng:
        result = race(entries, rng)
    assert result.places == (("Bolt",), ("Comet",), ("Ace",), ("Dyna",))
    assert len(result.rounds) == 1


def test_a_race_rerolls_each_tie_among_the_tied_best_place_first() -> None:
    # R-LTL-13: ties for first and for third, each settled among the tied, first place first
    entries = [("Ace", d("d6")), ("Bolt", d("d6")), ("Comet", d("d6")), ("Dyna", d("d6")), ("Echo", d("d6"))]
    with ScriptedRng([5, 5, 2, 2, 1, 3, 3, 6, 1, 4, 3]) as rng:
        result = race(entries, rng)
    assert [faces(r) for r in result.rounds] == [
        {"Ace": 5, "Bolt": 5, "Comet": 2, "Dyna": 2, "Echo": 1},
        {"Ace": 3, "Bolt": 3},
        {"Ace": 6, "Bolt": 1},
        {"Comet": 4, "Dyna": 3},
    ]
    assert result.places == (("Ace",), ("Bolt",), ("Comet",), ("Dyna",), ("Echo",))


def test_a_race_with_shared_ties_lists_the_tied_together() -> None:
    # R-LTL-13 campaign option: shared places, no re-roll
    entries = [("Ace", d("d6")), ("Bolt", d("d6")), ("Comet", d("d6"))]
    with ScriptedRng([3, 6, 3]) as rng:
        result = race(entries, rng, SHARED)
    assert result.places == (("Bolt",), ("Ace", "Comet"))


def test_the_kept_faces_replay_the_contest() -> None:
    # R-LTL-13: every round's faces are kept, so a replay needs no new dice
    entries = [("Ace", d("d6")), ("Bolt", d("d6")), ("Comet", d("d8"))]
    with ScriptedRng([(6, 4), (6, 4), (8, 4), (6, 1), (6, 1), (8, 2), (6, 6), (6, 3)]) as rng:
        first = race(entries, rng)
    assert first.places == (("Comet",), ("Ace",), ("Bolt",))
    with ScriptedRng(replay_faces(first.rounds)) as rng:
        assert race(entries, rng) == first


@pytest.mark.parametrize("entries", [[], [("Ace", Rating.of("d8"))]])
def test_a_contest_needs_two_participants(entries: list[tuple[str, Rating]]) -> None:
    # R-LTL-13
    with ScriptedRng([]) as rng:
        for run in (quick_contest, race):
            with pytest.raises(IllegalAction) as err:
                run(entries, rng)
            assert err.value.code == "contest/too_few"
            assert err.value.ruling == "R-LTL-13"


def test_a_participant_below_d4_cannot_roll() -> None:
    # R-LTL-13, R-LTL-5
    with ScriptedRng([]) as rng, pytest.raises(IllegalAction) as err:
        quick_contest([("Ace", Rating(0)), ("Bolt", d("d6"))], rng)
    assert err.value.code == "contest/below_d4"
    assert "Ace" in err.value.reason


def test_a_participant_cannot_enter_twice() -> None:
    # R-LTL-13
    with ScriptedRng([]) as rng, pytest.raises(IllegalAction) as err:
        race([("Ace", d("d6")), ("Ace", d("d8"))], rng)
    assert err.value.code == "contest/duplicate_id"


def test_heroes_enter_with_their_current_dice() -> None:
    # R-LTL-13, R-LTL-4: a wounded speedster's Running Style is a step down
    def hero(name: str, base: str, **styles: str) -> Hero:
        sheet = HeroSheet(name, d(base), d("d6"), d("d6"), tuple(Style(n, d(r)) for n, r in styles.items()))
        return Hero.from_sheet(sheet)

    speedster = lose_levels(hero("Zip", "d8", Running="d20"), 1, LossType.PHYSICAL)
    brick = hero("Slab", "d10")
    entries = ratings_of([(speedster, "Running"), (brick, None)])
    assert entries == (("Zip", Rating(6)), ("Slab", d("d10")))
    with ScriptedRng([(20, 11), (10, 10)]) as rng:
        result = quick_contest(entries, rng)
    assert result.winners == ("Zip",)
    assert result.losers == ("Slab",)
