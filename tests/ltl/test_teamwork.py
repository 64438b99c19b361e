"""Teamwork (R-LTL-14): the team's die, its size bonus, and who may team up."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from herotable.dice import Rating, ScriptedRng
from herotable.errors import IllegalAction
from herotable.ltl.conflict import Conflict, PendingLoss, resolve, start_conflict
from herotable.ltl.difficulty import Difficulty
from herotable.ltl.hero import Hero, LossType, lose_levels
from herotable.ltl.options import LtlOptions
from herotable.ltl.roll import Outcome
from herotable.ltl.sheet import HeroSheet, Style
from herotable.ltl.task import Stance, settle
from herotable.ltl.teamwork import TeamRating, base_ratings, ratings_of, team_attack, team_challenge, team_rating


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


# --- the team's die, its rolling member, Going For Broke, the loss (R-LTL-14 amended) ---


def test_members_count_with_their_current_base_power_not_a_style_nor_a_push() -> None:
    # R-LTL-14 amended: each member's current base Power counts (a Style of d12 does not; a Push does not)
    brawler = replace(lose_levels(hero("Brawler", "d10", Fisticuffs="d12"), 1, LossType.PHYSICAL), pushed=True)
    flyer = hero("Flyer", "d10")
    assert base_ratings([("brawler", brawler), ("flyer", flyer)]) == (("brawler", d("d8")), ("flyer", d("d10")))


def test_the_highest_member_rolls_the_first_named_among_equals() -> None:
    # R-LTL-14 amended: only the member whose die is rolled; the GM's order breaks a tie
    assert team_rating([("Ace", d("d8")), ("Bolt", d("d10")), ("Comet", d("d10"))]).leader == "Bolt"
    assert team_rating([("Ace", d("d12")), ("Bolt", d("d20"))]).leader == "Bolt"


def test_a_team_challenge_rolls_the_team_die_for_its_highest_member() -> None:
    # R-LTL-14, R-LTL-2: two d8 members and a d6 roll d10 against the GM's die, as the d8 named first
    members = [("ace", hero("Ace", "d6")), ("bolt", hero("Bolt", "d8")), ("comet", hero("Comet", "d8"))]
    with ScriptedRng([(10, 7), (8, 3)]) as rng:
        roll = team_challenge(members, Difficulty.named("Challenging"), rng, LtlOptions())
    assert roll.leader == "bolt"
    assert roll.task.actor.who == "bolt"
    assert roll.task.actor.rating == d("d10")
    assert roll.team.bonus_levels == 1
    _, result = settle(roll.task, LtlOptions())
    assert result.outcome is Outcome.WIN


def test_no_going_for_broke_on_a_team_challenge_and_no_style() -> None:
    # R-LTL-7: Going For Broke needs an opponent; R-LTL-14: the team rolls Power
    members = [("ace", hero("Ace", "d8")), ("bolt", hero("Bolt", "d8"))]
    with pytest.raises(IllegalAction) as err:
        team_challenge(members, Difficulty.named("Hard"), ScriptedRng([]), LtlOptions(), stance=Stance(broke=1))
    assert err.value.code == "broke/unopposed"
    with pytest.raises(IllegalAction) as err:
        team_challenge(members, Difficulty.named("Hard"), ScriptedRng([]), LtlOptions(), stance=Stance("Flight"))
    assert err.value.code == "teamwork/style"


def _fight(*fighters: tuple[str, Hero, str]) -> Conflict:
    return start_conflict(list(fighters), ScriptedRng([]), LtlOptions())


def test_a_team_attack_pays_broke_from_the_rolling_member_who_takes_the_loss() -> None:
    # R-LTL-14 amended, R-LTL-7: the rolling member pays from their own base Power; the team's die is raised from
    # what they have left; a lost exchange is theirs; every member's action is spent
    c = _fight(
        ("ace", hero("Ace", "d8"), "heroes"),
        ("bolt", hero("Bolt", "d10"), "heroes"),
        ("doom", hero("Doom", "d20"), "villains"),
    )
    with ScriptedRng([(10, 2), (20, 15)]) as rng:  # d10 paid one level to d8, +1 level: d10 (unpaid it were d12)
        c, team = team_attack(c, ["ace", "bolt"], "doom", rng, LtlOptions(), stance=Stance(broke=1))
    assert team.leader == "bolt"
    assert c.open is not None and c.open.actor == "bolt" and c.open.target == "doom"
    assert c.open.task.actor.rating == d("d10")
    assert c.open.task.actor.broke == 1
    assert c.fighter("bolt").hero.base_now() == d("d8")  # paid by Bolt alone
    assert c.fighter("ace").hero.base_now() == d("d8")
    assert c.fighter("ace").acted  # the member who does not roll has spent the action already
    c, result = resolve(c, LtlOptions())
    assert result.loser == "bolt"
    assert c.pending == (PendingLoss("bolt", 1, LossType.PHYSICAL, "doom"),)
    assert all(c.fighter(f).acted for f in ("ace", "bolt", "doom"))


def test_a_team_acts_when_every_member_s_turn_has_come() -> None:
    # R-LTL-12, R-LTL-14: each member spends its action, so each must be free to act now; nobody else is jumped
    c = replace(
        _fight(
            ("ace", hero("Ace", "d8"), "heroes"),
            ("bolt", hero("Bolt", "d8"), "heroes"),
            ("doom", hero("Doom", "d8"), "villains"),
        ),
        order=(("ace",), ("doom",), ("bolt",)),
    )
    with pytest.raises(IllegalAction) as err:
        team_attack(c, ["ace", "bolt"], "doom", ScriptedRng([]), LtlOptions())
    assert err.value.code == "conflict/not_your_turn"
    c = replace(c, order=(("ace", "bolt"), ("doom",)))
    with ScriptedRng([(10, 4), (8, 4)]) as rng:
        c, _ = team_attack(c, ["bolt", "ace"], "doom", rng, LtlOptions())
    assert c.open is not None and c.open.actor == "bolt"  # the first named among equals rolls


def test_a_team_attack_needs_members_of_one_side_able_to_act() -> None:
    # R-LTL-14, R-LTL-12
    c = _fight(
        ("ace", hero("Ace", "d8"), "heroes"),
        ("bolt", hero("Bolt", "d8"), "heroes"),
        ("doom", hero("Doom", "d8"), "villains"),
        ("imp", hero("Imp", "d8"), "villains"),
    )
    with pytest.raises(IllegalAction) as err:
        team_attack(c, ["ace", "imp"], "doom", ScriptedRng([]), LtlOptions())
    assert err.value.code == "teamwork/sides"
    acted = c._with(replace(c.fighter("ace"), acted=True))
    with pytest.raises(IllegalAction) as err:
        team_attack(acted, ["ace", "bolt"], "doom", ScriptedRng([]), LtlOptions())
    assert err.value.code == "conflict/already_acted"
    with pytest.raises(IllegalAction) as err:
        team_attack(c, ["ace", "bolt"], "bolt", ScriptedRng([]), LtlOptions())
    assert err.value.code == "conflict/bad_target"  # a teammate is no opponent
