"""The sheet and the Conviction pool (R-CV-2)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from herotable.conviction import (
    SUGGESTED_VICES,
    SUGGESTED_VIRTUES,
    Abilities,
    Nature,
    Role,
    conviction_maximum,
    new_character,
    sample_catalogue,
    sheet_problems,
    validate_character,
)
from herotable.errors import InvalidSheet

from .helpers import make_sheet


def test_three_conviction_at_level_one_and_four_at_level_three() -> None:
    # R-CV-2 (the seed's own numbers)
    assert conviction_maximum(1) == 3
    assert conviction_maximum(3) == 4


@pytest.mark.parametrize(
    ("level", "expected"),
    [
        (1, 3),
        (2, 3),
        (3, 4),
        (4, 4),
        (5, 5),
        (6, 5),
        (7, 6),
        (9, 7),
        (11, 8),
        (13, 9),
        (15, 10),
        (17, 11),
        (19, 12),
        (20, 12),
    ],
)
def test_one_more_point_every_odd_level(level: int, expected: int) -> None:
    # R-CV-2
    assert conviction_maximum(level) == expected


@pytest.mark.parametrize("level", [0, 21, -3])
def test_levels_outside_one_to_twenty_have_no_maximum(level: int) -> None:
    with pytest.raises(ValueError, match="between 1 and 20"):
        conviction_maximum(level)


def test_a_new_character_starts_with_the_levels_conviction_and_remembers_the_first_role() -> None:
    # R-CV-2, R-CV-7
    hero = new_character(
        "Ossa",
        level=3,
        roles=(Role.EXPERT, Role.WARRIOR),
        abilities=Abilities(charisma=2),
        toughness=1,
        nature=Nature("Curious", "Greedy"),
        combat_bonus=2,
    )
    assert hero.conviction == 4
    assert hero.conviction_max == 4
    assert hero.first_role is Role.EXPERT


def test_a_valid_sheet_has_no_problems() -> None:
    sheet = make_sheet()
    assert sheet_problems(sheet) == ()
    assert validate_character(sheet) is sheet


def test_validation_lists_every_problem_by_field() -> None:
    sheet = make_sheet(
        name=" ",
        level=2,
        roles=(Role.ADEPT, Role.ADEPT),
        first_role=Role.WARRIOR,
        abilities=Abilities(strength=14),
        toughness=40,
        combat_bonus=3,
        skills=(("Notice", 6), ("notice", 1), ("", 0)),
        nature=Nature("", " "),
        conviction=-1,
    )
    with pytest.raises(InvalidSheet) as caught:
        validate_character(sheet)
    fields = [p.field for p in caught.value.problems]
    assert fields == [
        "name",
        "roles",
        "first_role",
        "abilities.strength",
        "toughness",
        "combat_bonus",
        "skills[0]",
        "skills[1]",
        "skills[2]",
        "nature.virtue",
        "nature.vice",
        "conviction",
    ]
    assert caught.value.code == "sheet/invalid"


def test_feats_on_the_sheet_are_checked_against_the_catalogue() -> None:
    # R-CV-6: unknown, repeated, out of role, prerequisites unmet
    sheet = make_sheet(feats=("Sea Legs", "Sea Legs", "Spirit Sight", "Follow-Through", "Moon Boots"))
    problems = sheet_problems(sheet, sample_catalogue())
    by_field = {(p.field, p.message) for p in problems}
    assert ("feats[1]", "Sea Legs cannot be taken more than once") in by_field
    assert any(f == "feats[2]" and "supernatural" in m and "adept" in m for f, m in by_field)
    assert any(f == "feats[3]" and "Heavy Swing" in m for f, m in by_field)
    assert any(f == "feats[3]" and "combat bonus +2" in m for f, m in by_field)
    assert any(f == "feats[4]" and "not in the feats catalogue" in m for f, m in by_field)
    assert not any(f == "feats[0]" for f, _ in by_field)


def test_a_repeatable_feat_may_appear_twice() -> None:
    sheet = make_sheet(feats=("Weapon Drill", "Weapon Drill"))
    assert sheet_problems(sheet, sample_catalogue()) == ()


def test_nature_is_free_text_with_suggestions() -> None:
    assert len(SUGGESTED_VIRTUES) >= 5 and len(SUGGESTED_VICES) >= 5
    sheet = make_sheet(nature=Nature("Fond of terrible puns", "Cannot resist treasure maps"))
    assert sheet_problems(sheet) == ()


def test_more_roles_than_levels_is_a_problem() -> None:
    sheet = replace(make_sheet(), roles=(Role.WARRIOR, Role.ADEPT))
    assert [p.field for p in sheet_problems(sheet)] == ["roles"]
