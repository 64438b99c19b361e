"""Checks and the Conviction re-roll (R-CV-1, R-CV-4, R-T-2)."""

from __future__ import annotations

import pytest

from herotable.conviction import Conditions, Lethal, announce, gm_override, reroll, roll_check, second_roll_counts
from herotable.dice import ScriptedRng
from herotable.errors import IllegalAction, NotEnough

from .helpers import make_hero


@pytest.mark.parametrize(
    ("face", "modifier", "difficulty", "succeeds"),
    [
        (10, 5, 15, True),
        (9, 5, 15, False),
        (1, 20, 21, True),
        (20, -5, 16, False),
    ],
)
def test_meeting_the_difficulty_succeeds(face: int, modifier: int, difficulty: int, succeeds: bool) -> None:
    # R-CV-1
    with ScriptedRng([(20, face)]) as rng:
        check = roll_check(rng, "Kestrel", "Climb", modifier, difficulty)
    assert check.total == face + modifier
    assert check.succeeded is succeeds
    assert check.margin == face + modifier - difficulty


def test_a_second_roll_of_seven_counts_seventeen() -> None:
    # R-CV-4 (the seed's own case)
    assert second_roll_counts(7) == 17


@pytest.mark.parametrize(("face", "counts"), [(1, 11), (10, 20), (11, 11), (15, 15), (20, 20)])
def test_second_roll_is_always_eleven_to_twenty(face: int, counts: int) -> None:
    # R-CV-4
    assert second_roll_counts(face) == counts


def test_reroll_keeps_the_better_of_the_two() -> None:
    # R-CV-4: first 5, second 7 → counts 17, kept
    hero = make_hero()
    with ScriptedRng([5, 7]) as rng:
        check = roll_check(rng, hero.name, "Notice", 4, 20)
        after, rerolled = reroll(hero, check, rng)
    assert (rerolled.first, rerolled.second, rerolled.die, rerolled.total) == (5, 7, 17, 21)
    assert rerolled.succeeded
    assert after.conviction == hero.conviction - 1


def test_reroll_keeps_the_first_when_it_was_better() -> None:
    # R-CV-4: first 19, second 12 → 19 kept
    hero = make_hero()
    with ScriptedRng([19, 12]) as rng:
        check = roll_check(rng, hero.name, "Notice", 0, 10)
        _, rerolled = reroll(hero, check, rng)
    assert rerolled.die == 19


def test_no_reroll_after_the_result_is_announced() -> None:
    # R-CV-4
    hero = make_hero()
    with ScriptedRng([3]) as rng:
        check = announce(roll_check(rng, hero.name, "Notice", 0, 10))
        with pytest.raises(IllegalAction) as caught:
            reroll(hero, check, rng)
    assert caught.value.code == "check/announced"
    assert caught.value.ruling == "R-CV-4"
    assert "before the Narrator announces" in caught.value.fix


def test_only_your_own_roll_can_be_rerolled() -> None:
    # R-CV-4
    hero = make_hero()
    with ScriptedRng([3]) as rng:
        check = roll_check(rng, "Captain Rex", "Bluff", 0, 10)
        with pytest.raises(IllegalAction) as caught:
            reroll(hero, check, rng)
    assert caught.value.code == "conviction/not_your_roll"


def test_a_roll_takes_one_conviction_reroll() -> None:
    # R-CV-4, with a Disabled hero so that the spending limit is not what refuses
    hero = make_hero(Conditions(lethal=Lethal.DISABLED))
    with ScriptedRng([3, 4]) as rng:
        check = roll_check(rng, hero.name, "Notice", 0, 25)
        hero, check = reroll(hero, check, rng)
        with pytest.raises(IllegalAction) as caught:
            reroll(hero, check, rng)
    assert caught.value.code == "conviction/already_rerolled"


def test_no_reroll_without_conviction() -> None:
    # R-CV-2, R-CV-4
    hero = make_hero(conviction=0)
    with ScriptedRng([3]) as rng:
        check = roll_check(rng, hero.name, "Notice", 0, 10)
        with pytest.raises(NotEnough) as caught:
            reroll(hero, check, rng)
    assert caught.value.code == "conviction/none_left"


def test_a_pending_roll_is_seen_by_the_roller_and_the_gm_only() -> None:
    # R-CV-4
    with ScriptedRng([12]) as rng:
        check = roll_check(rng, "Kestrel", "Stealth", 2, 15)
    assert check.visible_to("Kestrel", is_gm=False)
    assert check.visible_to("Narrator", is_gm=True)
    assert not check.visible_to("Ossa", is_gm=False)
    assert announce(check).visible_to("Ossa", is_gm=False)


def test_announcing_twice_is_refused() -> None:
    with ScriptedRng([12]) as rng:
        check = announce(roll_check(rng, "Kestrel", "Stealth", 2, 15))
    with pytest.raises(IllegalAction, match="already announced"):
        announce(check)


def test_the_gm_can_override_a_result_and_is_named() -> None:
    # R-T-2
    with ScriptedRng([2]) as rng:
        check = roll_check(rng, "Kestrel", "Swim", 0, 10)
    ruled = gm_override(check, succeeded=True, by="Narrator", reason="the tide helps")
    assert not check.succeeded
    assert ruled.succeeded
    assert ruled.override is not None and ruled.override.by == "Narrator"
