# ruff: noqa: F811  (the campaign fixture `svc` is imported from the Conviction table tests)
"""A feat's stated numbers apply while it is in force (R-CV-6 amended 2026-12-02): bought as a heroic feat, or on a
sheet whose values do not count them yet; conditional benefits stay reminders for the GM."""

from __future__ import annotations

import pytest

from herotable.conviction.checks import Bonus
from herotable.conviction.feats import CatalogueError, Modelled, feat_bonuses, parse_catalogue, sample_catalogue
from herotable.errors import InvalidSheet
from herotable.service import TableService
from herotable.table.conviction.commands import Announce, CreateCvCharacter, HeroicFeat, RollCheck, ToughnessSave
from herotable.table.conviction.present import card

from .test_cv_table import ANA, GM, assert_replays, conditions, refused, roll, run, sheet, state, svc  # noqa: F401


def _save(svc: TableService, cid: str, face: int) -> dict:
    """A Toughness save against damage bonus 0 (Difficulty 15), announced; its facts."""
    rolled = run(svc, GM, ToughnessSave(cid, damage_bonus=0, attacker="rex"), face)
    announced = run(svc, GM, Announce())
    return {**rolled, **announced}


def test_thick_scales_bought_as_a_heroic_feat_counts_in_the_next_toughness_save(svc: TableService) -> None:
    # R-CV-6 (amended 2026-12-02): Kestrel (Toughness +2) buys Thick Scales; 12 + 2 + 1 = 15 meets 15: unhurt
    run(svc, ANA, HeroicFeat("kes", "Thick Scales"))
    said = _save(svc, "kes", 12)
    assert said["cv.check_bonus"] == {"check": said["cv.check_rolled"]["check"], "source": "Thick Scales", "amount": 1}
    assert said["cv.check_announced"]["total"] == 15 and said["cv.check_announced"]["succeeded"]
    assert conditions(svc, "kes") == []
    assert_replays(svc)


def test_without_the_feat_the_same_save_fails(svc: TableService) -> None:
    # the control: 12 + 2 = 14 against 15 fails, and Kestrel is hurt
    said = _save(svc, "kes", 12)
    assert "cv.check_bonus" not in said and not said["cv.check_announced"]["succeeded"]
    assert conditions(svc, "kes") != []


def test_a_sheet_says_which_feats_its_values_do_not_count_yet(svc: TableService) -> None:
    # R-CV-6 (amended): Thick Scales taken twice and not yet in the sheet's Toughness adds +2; counted, it adds none
    scaly = sheet("Scaly", feats=("Thick Scales", "Thick Scales"), uncounted_feats=("Thick Scales",))
    run(svc, ANA, CreateCvCharacter("sc", scaly))
    assert _save(svc, "sc", 11)["cv.check_announced"]["total"] == 11 + 2 + 2
    counted = sheet("Counted", feats=("Thick Scales",), toughness=3)
    run(svc, ANA, CreateCvCharacter("ct", counted))
    said = _save(svc, "ct", 11)
    assert "cv.check_bonus" not in said and said["cv.check_announced"]["total"] == 11 + 3


def test_an_uncounted_feat_must_be_one_of_the_sheet_s_feats(svc: TableService) -> None:
    err = refused(svc, ANA, CreateCvCharacter("x", sheet("X", uncounted_feats=("Thick Scales",))), InvalidSheet)
    assert any(p.field == "sheet.uncounted_feats[0]" or p.field == "uncounted_feats[0]" for p in err.problems)


def test_a_skill_number_applies_to_that_skill_s_checks_only() -> None:
    # R-CV-6 (amended): a campaign's feat with an unconditional +2 on Notice checks
    own = parse_catalogue(
        '[{"name": "Hawk Eyes", "category": "general", "benefit": "+2 on Notice checks.",'
        ' "modifies": [{"skill": "Notice", "by": 2}]}]',
        source="campaign.json",
    )
    catalogue = sample_catalogue().extended(own)
    assert feat_bonuses(("Hawk Eyes",), catalogue, Modelled.SKILL, "notice") == (Bonus("Hawk Eyes", 2),)
    assert feat_bonuses(("Hawk Eyes",), catalogue, Modelled.SKILL, "Diplomacy") == ()
    assert feat_bonuses(("Hawk Eyes",), catalogue, Modelled.TOUGHNESS) == ()
    assert feat_bonuses(("Thick Scales", "Thick Scales"), catalogue, Modelled.TOUGHNESS) == (Bonus("Thick Scales", 2),)


def test_a_number_the_table_cannot_apply_is_refused_with_its_line() -> None:
    with pytest.raises(CatalogueError) as err:
        parse_catalogue(
            '[\n{"name": "Odd", "category": "general", "benefit": "+2 Dodge.", "modifies": [{"dodge": 2}]}]',
            source="campaign.json",
        )
    assert "campaign.json, line 2" in str(err.value) and "skill+by" in str(err.value)


def test_a_skill_check_carries_the_feat_s_number(svc: TableService) -> None:
    # R-CV-6 (amended): Moss (Expert) has Helmsman's conditional +2 only as a reminder: no number on Pilot checks
    said = roll(svc, GM, RollCheck("kes", 15, skill="Notice"), 10)
    assert "cv.check_bonus" not in said  # the sample's Notice feats (Keen Eye) state only conditional numbers


def test_the_card_shows_each_feat_s_numbers_and_the_gm_s_reminders(svc: TableService) -> None:
    # R-CV-6 (amended): numbers the table applies say so; conditional benefits show as reminders for the GM
    run(svc, ANA, CreateCvCharacter("sc", sheet("Scaly", feats=("Thick Scales", "Sea Legs"))))
    run(svc, ANA, HeroicFeat("sc", "Thick Scales"))
    shown = dict(card(state(svc), ANA, "sc").stats)
    assert "Thick Scales: +1 Toughness (in the sheet's values)" in shown["Feats"]
    assert "Thick Scales: +1 Toughness (heroic feat, applied)" in shown["Feats"]
    assert "Sea Legs: No penalty for moving or fighting on a pitching deck; +2 on Acrobatics" in shown["Feat reminders"]
    assert shown["Toughness"] == "+2 (+3 with Thick Scales)"
