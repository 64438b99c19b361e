"""The hero sheet and its validation (R-LTL-19, R-LTL-4)."""

from __future__ import annotations

import pytest

from herotable.dice import Rating
from herotable.errors import InvalidSheet
from herotable.ltl.sheet import CREATION_SECTIONS, HeroSheet, Style, sheet_from_dict, sheet_to_dict, validate_sheet

FULL = {
    "name": "Quantum Quill",
    "writer": "A. Writer",
    "artist": "B. Artist",
    "origin": "Struck by a meteor made of ink",
    "superpowers": [{"name": "Ink Constructs", "stunts": ["Ink Net"]}, "Flight"],
    "motivation": "Protect the city's libraries",
    "costume": "Midnight blue with a quill emblem",
    "specialties": ["Calligraphy"],
    "complications": ["Secret identity"],
    "drawbacks": ["Water ruins the ink"],
    "base": "d10",
    "styles": {"Wits": "d12", "Ink": "d20"},
    "karma": "d8",
    "heroism": "d6",
    "hero_points": 7,
}


def test_a_full_sheet_round_trips():
    # R-LTL-19: every field of the sheet is kept
    sheet = sheet_from_dict(FULL)
    assert sheet.base == Rating.of("d10")
    assert sheet.style("wits") == Style("Wits", Rating.of("d12"))
    assert sheet.offset(sheet.style("Ink")) == 3  # d10 -> d20 is three levels (R-LTL-1, R-LTL-4)
    assert sheet_from_dict(sheet_to_dict(sheet)) == sheet


def test_every_problem_is_listed_by_field_not_just_the_first():
    # R-LTL-19
    bad = {
        **FULL,
        "name": " ",
        "base": "d12",
        "styles": {"Wits": "d10", "Ink": "d7"},
        "karma": "d3",
        "drawbacks": ["Water", "Fire"],
        "hero_points": -2,
        "sidekick": "Robin",
    }
    with pytest.raises(InvalidSheet) as err:
        sheet_from_dict(bad)
    fields = {p.field for p in err.value.problems}
    assert fields == {"name", "styles[0]", "styles.Ink", "karma", "drawbacks", "hero_points", "sidekick"}
    assert err.value.code == "sheet/invalid"
    assert "below base Power" in str(err.value)


def test_missing_dice_are_reported_as_required():
    with pytest.raises(InvalidSheet) as err:
        sheet_from_dict({"name": "Blank"})
    assert {p.field for p in err.value.problems} == {"base", "karma", "heroism"}
    assert all("required" in p.message for p in err.value.problems)


def test_a_style_equal_to_base_power_is_legal():
    # R-LTL-4: a Style is never below base Power
    assert (
        validate_sheet(
            HeroSheet(
                "Even", Rating.of("d8"), Rating.of("d8"), Rating.of("d8"), styles=(Style("Punch", Rating.of("d8")),)
            )
        )
        == []
    )


def test_a_sheet_cannot_hold_a_wounded_d20_or_below_d4():
    sheet = HeroSheet("Odd", Rating(6), Rating(0), Rating.of("d4"))
    assert {p.field for p in validate_sheet(sheet)} == {"base", "karma"}


def test_creation_sections_follow_the_seed_order():
    # R-LTL-19
    assert [name for name, _ in CREATION_SECTIONS] == [
        "Writer / Artist",
        "Origin",
        "Superpowers",
        "Motivation",
        "Costume",
        "Hero!",
    ]
    covered = {f for _, fields in CREATION_SECTIONS for f in fields}
    assert covered <= set(HeroSheet.__dataclass_fields__)
