"""The feats catalogue as data: the sample, role access, campaign files and broken files (R-CV-6)."""

from __future__ import annotations

from pathlib import Path

import pytest

from herotable.conviction import (
    ROLE_ACCESS,
    CatalogueError,
    FeatCategory,
    Role,
    load_catalogue_file,
    parse_catalogue,
    sample_catalogue,
)
from herotable.conviction.feats import PrerequisiteKind
from herotable.errors import RulesError


def test_the_sample_has_a_dozen_feats_in_every_category() -> None:
    # R-CV-6
    catalogue = sample_catalogue()
    assert len(catalogue.feats) >= 12
    assert {feat.category for feat in catalogue.feats} == set(FeatCategory)
    assert any(feat.repeatable for feat in catalogue.feats)
    kinds = {p.kind for feat in catalogue.feats for p in feat.prerequisites}
    assert kinds == set(PrerequisiteKind)


def test_true20_role_access() -> None:
    # R-CV-6
    assert ROLE_ACCESS[Role.ADEPT] == {FeatCategory.GENERAL, FeatCategory.SUPERNATURAL}
    assert ROLE_ACCESS[Role.EXPERT] == {FeatCategory.GENERAL, FeatCategory.EXPERT}
    assert ROLE_ACCESS[Role.WARRIOR] == {FeatCategory.GENERAL, FeatCategory.MARTIAL}


def test_lookup_ignores_case() -> None:
    feat = sample_catalogue().get("heavy swing")
    assert feat is not None and feat.name == "Heavy Swing"


def feat_line(name: str, category: str = "general", extra: str = "") -> str:
    return f'  {{"name": "{name}", "category": "{category}", "benefit": "Something good."{extra}}}'


def broken(text: str) -> CatalogueError:
    with pytest.raises(CatalogueError) as caught:
        parse_catalogue(text, source="campaign.json")
    assert isinstance(caught.value, RulesError)
    assert caught.value.code == "feats/bad_catalogue"
    return caught.value


def test_invalid_json_names_the_line() -> None:
    error = broken("[\n" + feat_line("A") + ",\n" + feat_line("B") + "\n  oops\n]\n")
    assert error.line == 4
    assert "campaign.json, line 4" in str(error) and "not valid JSON" in str(error)


def test_the_catalogue_must_be_an_array() -> None:
    assert broken('{"name": "A"}').line == 1


def test_an_unknown_category_names_the_line_and_the_feat() -> None:
    error = broken("[\n" + feat_line("A") + ",\n\n" + feat_line("Pirate Luck", "lucky") + "\n]")
    assert error.line == 4
    assert "'Pirate Luck'" in str(error) and "unknown category 'lucky'" in str(error)


@pytest.mark.parametrize(
    ("extra", "reason"),
    [
        (', "cost": 3', "unknown key(s) cost"),
        (', "repeatable": "yes"', "'repeatable' must be true or false"),
        (', "prerequisites": [{"ability": "luck", "min": 1}]', "unknown ability 'luck'"),
        (', "prerequisites": [{"skill": "Notice", "ranks": "four"}]', "'ranks' must be a whole number"),
        (', "prerequisites": [{"level": 3}]', "is not understood"),
        (', "prerequisites": [{"feat": "Nonesuch"}]', "needs the feat 'Nonesuch', which no catalogue defines"),
    ],
)
def test_a_bad_feat_names_its_line_and_the_reason(extra: str, reason: str) -> None:
    error = broken("[\n" + feat_line("A") + ",\n" + feat_line("B", extra=extra) + "\n]")
    assert error.line == 3
    assert reason in str(error)


def test_a_missing_field_is_refused() -> None:
    error = broken('[\n  {"name": "A", "category": "general"}\n]')
    assert error.line == 2 and "missing key(s) benefit" in str(error)


def test_a_duplicate_name_names_both_lines() -> None:
    error = broken("[\n" + feat_line("A") + ",\n" + feat_line("a") + "\n]")
    assert error.line == 3 and "already defined on line 2" in str(error)


def test_a_campaign_file_adds_to_the_sample_and_may_build_on_it(tmp_path: Path) -> None:
    # R-CV-6: campaigns add their own
    path = tmp_path / "feats.json"
    path.write_text(
        "[\n"
        + feat_line("Cannon Sense", "martial", ', "prerequisites": [{"feat": "Heavy Swing"}]')
        + ",\n"
        + feat_line("Sea Legs", "general", ', "repeatable": true')
        + "\n]\n",
        encoding="utf-8",
    )
    catalogue = load_catalogue_file(path)
    assert catalogue.get("Cannon Sense") is not None
    assert catalogue.get("Spirit Sight") is not None
    sea_legs = catalogue.get("Sea Legs")
    assert sea_legs is not None and sea_legs.repeatable
    assert len(catalogue.feats) == len(sample_catalogue().feats) + 1


def test_a_broken_campaign_file_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "mine.json"
    path.write_text("[\n" + feat_line("A", "cosmic") + "\n]", encoding="utf-8")
    with pytest.raises(CatalogueError) as caught:
        load_catalogue_file(path)
    assert str(path) in str(caught.value) and caught.value.line == 2
    with pytest.raises(CatalogueError, match="cannot read"):
        load_catalogue_file(tmp_path / "missing.json")
