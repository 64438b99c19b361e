"""Every text and number inside what a command carries has its limit too (R-T-5): a sheet's name, its prose, its
level, checked before any rule runs and named by its path."""

from __future__ import annotations

from typing import Any

import pytest

from herotable.table.commands import NAME_LENGTH, PROSE_LENGTH, InvalidCommand, command_from_json


def _cv_sheet(**changes: Any) -> dict[str, Any]:
    sheet: dict[str, Any] = {
        "name": "Kes",
        "level": 1,
        "roles": ["warrior"],
        "abilities": {"strength": 1, "dexterity": 1, "constitution": 1, "intelligence": 0, "wisdom": 0, "charisma": 0},
        "toughness": 1,
        "nature": {"virtue": "Loyal", "vice": "Greedy"},
    }
    sheet.update(changes)
    return {"type": "character.create_cv", "character": "kes", "sheet": sheet}


def test_a_well_formed_sheet_at_its_limits_is_accepted():
    body = _cv_sheet(name="K" * NAME_LENGTH, level=20, nature={"virtue": "v" * PROSE_LENGTH, "vice": "Greedy"})
    assert command_from_json(body).sheet.name == "K" * NAME_LENGTH  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("changes", "field", "code"),
    [
        ({"name": "K" * (NAME_LENGTH + 1)}, "sheet.name", "table/too_long"),
        ({"name": "  "}, "sheet.name", "table/blank"),
        ({"level": 21}, "sheet.level", "table/out_of_range"),
        ({"level": 0}, "sheet.level", "table/out_of_range"),
        ({"nature": {"virtue": "v" * (PROSE_LENGTH + 1), "vice": "Greedy"}}, "sheet.nature.virtue", "table/too_long"),
        ({"feats": ["F" * (NAME_LENGTH + 1)]}, "sheet.feats", "table/too_long"),
        ({"nature": {"virtue": "Loyal\x00", "vice": "Greedy"}}, "sheet.nature.virtue", "table/bad_text"),
    ],
)
def test_a_sheet_past_a_limit_is_refused_naming_the_field(changes, field, code):
    # R-T-5: names 100 characters, sheet prose 2,000, a level 1..20
    with pytest.raises(InvalidCommand) as refused:
        command_from_json(_cv_sheet(**changes))
    assert (refused.value.code, refused.value.field) == (code, field)
