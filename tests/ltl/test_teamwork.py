"""Teamwork (R-LTL-14): the team's die, its size bonus, and who may team up."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from herotable.dice import Rating
from herotable.errors import IllegalAction
from herotable.ltl.hero import Hero, LossType, lose_levels
from herotable.ltl.sheet import HeroSheet, Style
from herotable.ltl.teamwork import TeamRating, ratings_of, team_rating


def d(die: str) -> Rating:
    return Rating.of(die)


def team(*dice: str) -> list[tuple[str, Rating]]:
    return [(f"m{i}", d(die)) for i, die in enumerate(dice)]


@pytest.mark.parametrize(
    ("dice", "expected", "bonus"),
    [
        (("d8", "d8"), "d10", 1),  # two members: +1
        (("d8", "d8", "d10"), "d12", 1),  # three members: still +1, from the highest
        (("d6", "d6", "d6", "d6"), "d10", 2),  # four members: +2
        (("d6", "d6", "d6", "d6", "d6", "d6"), "d10", 2),  # six members: capped at +2
        (("d4", "d4", "d4", "d4", "d4", "d4", "d4", "d4", "d4", "d4"), "d8", 2),
        (("d12", "d12"), "d12", 1),  # one level on a d12 is wasted
        (("d10", "d12", "d12"), "d12", 1),
        (("d12", "d12", "d12", "d12"), "d20", 2),  # d12 -> d20 takes both levels
        (("d10", "d10", "d10", "d10"), "d12", 2),  # d10 +2: d12, then a wasted level
        (("d20", "d20"), "d20", 1),  # never above d20
        (("d20", "d20", "d20", "d20"), "d20", 2),
    ],
)
def test_team_rolls_highest_plus_one_level_per_two_members(dice: tuple[str, ...], expected: str, bonus: int) -> None:
    # R-LTL-14, R-LTL-1
    result = team_rating(team(*dice))
    assert result.rating == d(expected)
    assert result.bonus_levels == bonus
    assert result.highest == max(d(x) for x in dice)
    assert result.members == tuple(team(*dice))


def test_a_d20_that_lost_one_level_teams_with_a_d12() -> None:
    # R-LTL-14, R-LTL-1: a d20 that lost a level is one level from d12; two members raise it back to d20
    result = team_rating([("Titan", Rating(6)), ("Vox", d("d12"))])
    assert result.rating == d("d20")


def test_members_two_levels_apart_cannot_team_and_the_outlier_is_named() -> None:
    # R-LTL-14: every rating within one die type of every other
    members = [("Ace", d("d6")), ("Bolt", d("d6")), ("Comet", d("d10"))]
    with pytest.raises(IllegalAction) as err:
        team_rating(members)
    assert err.value.code == "teamwork/out_of_range"
    assert err.value.ruling == "R-LTL-14"
    assert "out of range: Comet (" in err.value.reason
    assert err.value.fix == "leave out Comet"


def test_a_d10_and_a_d20_are_two_die_types_apart() -> None:
    # R-LTL-14 amended, R-LTL-1: d10, d12, d20 are three die types; only neighbours team
    with pytest.raises(IllegalAction) as err:
        team_rating([("Ace", d("d10")), ("Bolt", d("d20"))])
    assert err.value.code == "teamwork/out_of_range"
    assert "within one die type" in err.value.reason
    assert "out of range: Ace, Bolt (" in err.value.reason
    assert err.value.fix == "leave out Ace or Bolt"


def test_without_a_single_outlier_the_lowest_and_highest_are_named() -> None:
    # R-LTL-14: no one member's leaving fixes it
    members = [("Ace", d("d4")), ("Bolt", d("d6")), ("Comet", d("d8")), ("Dyna", d("d10"))]
    with pytest.raises(IllegalAction) as err:
        team_rating(members)
    assert err.value.code == "teamwork/out_of_range"
    assert "out of range: Ace, Dyna (" in err.value.reason
    assert "until the rest are within one die type" in err.value.fix


@pytest.mark.parametrize("members", [[], [("Ace", Rating.of("d8"))]])
def test_a_team_needs_two_members(members: list[tuple[str, Rating]]) -> None:
    # R-LTL-14
    with pytest.raises(IllegalAction) as err:
        team_rating(members)
    assert err.value.code == "teamwork/too_few"


def test_a_member_below_d4_cannot_help() -> None:
    # R-LTL-14, R-LTL-5
    with pytest.raises(IllegalAction) as err:
        team_rating([("Ace", Rating(0)), ("Bolt", d("d4"))])
    assert err.value.code == "teamwork/below_d4"
    assert "Ace" in err.value.reason


def test_a_member_cannot_count_twice() -> None:
    # R-LTL-14
    with pytest.raises(IllegalAction) as err:
        team_rating([("Ace", d("d8")), ("Ace", d("d8")), ("Bolt", d("d8"))])
    assert err.value.code == "teamwork/duplicate_member"


def hero(name: str, base: str, **styles: str) -> Hero:
    sheet = HeroSheet(
        name=name,
        base=d(base),
        karma=d("d6"),
        heroism=d("d6"),
        styles=tuple(Style(n, d(r)) for n, r in styles.items()),
    )
    return Hero.from_sheet(sheet)


def test_heroes_team_with_their_current_style_dice() -> None:
    # R-LTL-14, R-LTL-4: a hero's Style moves down with lost base Power
    brawler = lose_levels(hero("Brawler", "d8", Fisticuffs="d12"), 1, LossType.PHYSICAL)
    flyer = hero("Flyer", "d10")
    members = ratings_of([(brawler, "Fisticuffs"), (flyer, None)])
    assert members == (("Brawler", d("d10")), ("Flyer", d("d10")))
    assert team_rating(members) == TeamRating(d("d12"), d("d10"), 1, members)


def test_a_defeated_hero_cannot_join() -> None:
    # R-LTL-14, R-LTL-5
    beaten = lose_levels(hero("Brawler", "d4"), 1, LossType.PHYSICAL)
    with pytest.raises(IllegalAction) as err:
        ratings_of([(beaten, None), (hero("Flyer", "d4"), None)])
    assert err.value.code == "hero/defeated"


def test_an_unconscious_hero_cannot_join() -> None:
    # R-LTL-14, R-LTL-11
    sleeper = replace(hero("Sleeper", "d8"), unconscious=True)
    with pytest.raises(IllegalAction) as err:
        ratings_of([(sleeper, None), (hero("Flyer", "d8"), None)])
    assert err.value.code == "hero/unconscious"


@given(st.integers(1, 7), st.lists(st.booleans(), min_size=2, max_size=9))
def test_team_rating_never_passes_d20_nor_drops_below_the_best(low: int, ups: list[bool]) -> None:
    # R-LTL-14: every legal team, at most d20 and at least its best member
    members = [(f"m{i}", Rating(min(7, low + up))) for i, up in enumerate(ups)]
    result = team_rating(members)
    best = max(rating for _, rating in members)
    bonus = 1 if len(members) < 4 else 2
    # independent of the module: the ladder step by hand, a lone level on a d12 wasted, nothing past d20
    expected = min(7, best.position + bonus)
    if expected == 6 and best.position < 6:
        expected = 5
    assert result.rating.position == expected
    assert result.rating >= best


@given(st.lists(st.integers(1, 7), min_size=2, max_size=6))
def test_any_team_is_either_legal_or_refused_as_out_of_range(positions: list[int]) -> None:
    # R-LTL-14 amended: within one die type; positions 6 and 7 both roll d20, one type above d12 (position 5)
    members = [(f"m{i}", Rating(p)) for i, p in enumerate(positions)]
    types = [min(p, 6) for p in positions]
    if max(types) - min(types) <= 1:
        assert max(rating for _, rating in members) <= team_rating(members).rating <= Rating(7)
    else:
        with pytest.raises(IllegalAction) as err:
            team_rating(members)
        assert err.value.code == "teamwork/out_of_range"
