"""Hero Points: the GM's award and every improvement of the R-LTL-16 table."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from herotable.dice import Rating
from herotable.errors import IllegalAction, NotEnough, RulesError
from herotable.ltl.advancement import (
    AddPowerStunt,
    AddSpecialty,
    Improvement,
    NewStyle,
    RaiseBase,
    RaiseHeroism,
    RaiseKarma,
    RaiseStyle,
    RemoveComplication,
    award_hero_points,
    price,
    spend_hero_points,
)
from herotable.ltl.hero import Hero
from herotable.ltl.sheet import HeroSheet, Spend, Style, Superpower, validate_sheet


def d(die: str) -> Rating:
    return Rating.of(die)


def make_hero(
    *,
    base: str = "d8",
    styles: dict[str, str] | None = None,
    karma: str = "d8",
    heroism: str = "d8",
    points: int = 100,
) -> Hero:
    sheet = HeroSheet(
        name="Nightjar",
        base=d(base),
        karma=d(karma),
        heroism=d(heroism),
        styles=tuple(Style(n, d(r)) for n, r in (styles or {}).items()),
        hero_points=points,
        superpowers=(Superpower("Telekinesis", ("Shield",)), Superpower("Flight")),
        specialties=("Lockpicking",),
        complications=("Secret identity", "Hunted"),
    )
    return Hero.from_sheet(sheet)


def style_die(hero: Hero, name: str) -> str:
    found = hero.sheet.style(name)
    assert found is not None
    return found.rating.name


# --- the award ---------------------------------------------------------------------------------------


def test_award_adds_to_hero_points() -> None:
    # R-LTL-16: the GM awards Hero Points at the end of an adventure
    hero = make_hero(points=4)
    assert award_hero_points(hero, 11).sheet.hero_points == 15
    assert award_hero_points(hero, 0).sheet.hero_points == 4


def test_negative_award_is_refused() -> None:
    # R-LTL-16
    hero = make_hero(points=4)
    before = hero
    with pytest.raises(IllegalAction) as err:
        award_hero_points(hero, -3)
    assert err.value.code == "hero_points/negative_award"
    assert err.value.ruling == "R-LTL-16"
    assert err.value.fix
    assert hero == before


# --- Styles -----------------------------------------------------------------------------------------


def test_raising_a_style_one_level_costs_10() -> None:
    # R-LTL-16: Style +1 level costs 10
    hero = make_hero(base="d6", styles={"Fisticuffs": "d8"}, points=25)
    after = spend_hero_points(hero, RaiseStyle("Fisticuffs"))
    assert style_die(after, "Fisticuffs") == "d10"
    assert after.sheet.hero_points == 15
    assert after.sheet.history == (Spend("raise_style", "Fisticuffs", 10, "d8", "d10"),)


def test_style_name_is_matched_without_case() -> None:
    # R-LTL-16
    hero = make_hero(base="d6", styles={"Fisticuffs": "d8"})
    assert style_die(spend_hero_points(hero, RaiseStyle("fisticuffs")), "Fisticuffs") == "d10"


def test_raising_a_style_from_d12_to_d20_costs_20() -> None:
    # R-LTL-16, R-LTL-1: d12 -> d20 is two levels, so it costs double
    hero = make_hero(base="d10", styles={"Wits": "d12"}, points=20)
    after = spend_hero_points(hero, RaiseStyle("Wits"))
    assert style_die(after, "Wits") == "d20"
    assert after.sheet.hero_points == 0
    assert after.sheet.history[-1] == Spend("raise_style", "Wits", 20, "d12", "d20")


def test_style_at_d20_cannot_be_raised() -> None:
    # R-LTL-16: the result would pass d20
    hero = make_hero(base="d12", styles={"Wits": "d20"})
    with pytest.raises(IllegalAction) as err:
        spend_hero_points(hero, RaiseStyle("Wits"))
    assert err.value.code == "hero_points/beyond_d20"
    assert err.value.ruling == "R-LTL-16"
    assert hero == make_hero(base="d12", styles={"Wits": "d20"})


def test_unknown_style_is_refused() -> None:
    # R-LTL-16
    hero = make_hero(styles={"Fisticuffs": "d10"})
    with pytest.raises(IllegalAction) as err:
        spend_hero_points(hero, RaiseStyle("Fisticufs"))
    assert err.value.code == "hero_points/unknown_style"
    assert "Fisticuffs" in err.value.fix
    assert hero == make_hero(styles={"Fisticuffs": "d10"})


def test_new_style_starts_one_die_above_base_for_10() -> None:
    # R-LTL-16: a new Style is a Style raised one level from base Power
    hero = make_hero(base="d8", points=10)
    after = spend_hero_points(hero, NewStyle("Flight"))
    assert style_die(after, "Flight") == "d10"
    assert after.sheet.hero_points == 0
    assert after.sheet.history[-1] == Spend("new_style", "Flight", 10, "none", "d10")
    assert validate_sheet(after.sheet) == []


def test_new_style_on_a_d12_base_is_d20_for_20() -> None:
    # R-LTL-16, R-LTL-1
    hero = make_hero(base="d12", points=20)
    after = spend_hero_points(hero, NewStyle("Flight"))
    assert style_die(after, "Flight") == "d20"
    assert after.sheet.hero_points == 0


def test_new_style_on_a_d20_base_is_refused() -> None:
    # R-LTL-16
    hero = make_hero(base="d20")
    with pytest.raises(IllegalAction) as err:
        spend_hero_points(hero, NewStyle("Flight"))
    assert err.value.code == "hero_points/beyond_d20"
    assert hero == make_hero(base="d20")


def test_new_style_the_hero_has_is_refused() -> None:
    # R-LTL-16
    hero = make_hero(styles={"Flight": "d10"})
    with pytest.raises(IllegalAction) as err:
        spend_hero_points(hero, NewStyle("FLIGHT"))
    assert err.value.code == "hero_points/already_have"
    assert hero == make_hero(styles={"Flight": "d10"})


def test_blank_new_style_is_refused() -> None:
    # R-LTL-16
    hero = make_hero()
    with pytest.raises(IllegalAction) as err:
        spend_hero_points(hero, NewStyle("   "))
    assert err.value.code == "hero_points/no_name"
    assert hero == make_hero()


# --- base Power -------------------------------------------------------------------------------------


def test_raising_base_power_costs_15_and_raises_only_the_styles_it_would_pass() -> None:
    # R-LTL-16, R-LTL-4 (amended 2026-12-01): only Styles that would fall below the new base rise to it; a d10
    # Flight on a base going d8 -> d10 stays d10 (no free Style raise), a d8 Charm rises to d10
    hero = make_hero(base="d8", styles={"Flight": "d10", "Wits": "d12", "Charm": "d8"}, points=15)
    after = spend_hero_points(hero, RaiseBase())
    assert after.sheet.base == d("d10")
    assert style_die(after, "Flight") == "d10"
    assert style_die(after, "Wits") == "d12"
    assert style_die(after, "Charm") == "d10"
    assert after.sheet.hero_points == 0
    assert after.sheet.history == (Spend("raise_base", "base Power", 15, "d8", "d10"),)
    assert validate_sheet(after.sheet) == []


def test_raising_base_power_to_d20_costs_30() -> None:
    # R-LTL-16: base Power to d20 costs 30; a Style it would pass rises to d20 (R-LTL-4 amended)
    hero = make_hero(base="d12", styles={"Wits": "d12", "Flight": "d20"}, points=31)
    after = spend_hero_points(hero, RaiseBase())
    assert after.sheet.base == d("d20")
    assert style_die(after, "Wits") == "d20"
    assert style_die(after, "Flight") == "d20"
    assert after.sheet.hero_points == 1


def test_base_power_at_d20_cannot_be_raised() -> None:
    # R-LTL-16
    hero = make_hero(base="d20")
    with pytest.raises(IllegalAction) as err:
        spend_hero_points(hero, RaiseBase())
    assert err.value.code == "hero_points/beyond_d20"
    assert hero == make_hero(base="d20")


# --- Heroism and Karma --------------------------------------------------------------------------------


def test_raising_heroism_costs_20_and_burned_levels_stay_burned() -> None:
    # R-LTL-16: Heroism +1 costs 20; the hero had burned one level (d8 of d10)
    hero = replace(make_hero(heroism="d10", points=20), heroism=d("d8"))
    after = spend_hero_points(hero, RaiseHeroism())
    assert after.sheet.heroism == d("d12")
    assert after.heroism == d("d10")
    assert after.sheet.hero_points == 0
    assert after.sheet.history == (Spend("raise_heroism", "Heroism", 20, "d10", "d12"),)


def test_raising_heroism_to_d20_costs_40() -> None:
    # R-LTL-16
    hero = make_hero(heroism="d12", points=40)
    after = spend_hero_points(hero, RaiseHeroism())
    assert after.sheet.heroism == d("d20")
    assert after.heroism == d("d20")
    assert after.sheet.hero_points == 0


def test_raising_karma_costs_25() -> None:
    # R-LTL-16
    hero = make_hero(karma="d4", points=30)
    after = spend_hero_points(hero, RaiseKarma())
    assert after.sheet.karma == d("d6")
    assert after.karma == d("d6")
    assert after.sheet.hero_points == 5
    assert after.sheet.history == (Spend("raise_karma", "Karma", 25, "d4", "d6"),)


def test_raising_karma_to_d20_costs_50_and_keeps_one_burned_level() -> None:
    # R-LTL-16, R-LTL-1: d12 burned one level is d10; at d20 one burned level is "d20 that lost one level"
    hero = replace(make_hero(karma="d12", points=50), karma=d("d10"))
    after = spend_hero_points(hero, RaiseKarma())
    assert after.sheet.karma == d("d20")
    assert after.karma == Rating(6)
    assert after.karma.sides == 20
    assert after.sheet.hero_points == 0


def test_karma_and_heroism_at_d20_cannot_be_raised() -> None:
    # R-LTL-16
    hero = make_hero(karma="d20", heroism="d20")
    for improvement in (RaiseKarma(), RaiseHeroism()):
        with pytest.raises(IllegalAction) as err:
            spend_hero_points(hero, improvement)
        assert err.value.code == "hero_points/beyond_d20"
    assert hero == make_hero(karma="d20", heroism="d20")


# --- Specialties, Power Stunts, Complications -----------------------------------------------------------


def test_adding_a_specialty_costs_5() -> None:
    # R-LTL-16
    hero = make_hero(points=5)
    after = spend_hero_points(hero, AddSpecialty("Chemistry"))
    assert after.sheet.specialties == ("Lockpicking", "Chemistry")
    assert after.sheet.hero_points == 0
    assert after.sheet.history == (Spend("add_specialty", "Chemistry", 5, "none", "Chemistry"),)


def test_a_specialty_the_hero_has_is_refused() -> None:
    # R-LTL-16
    hero = make_hero()
    with pytest.raises(IllegalAction) as err:
        spend_hero_points(hero, AddSpecialty("lockpicking"))
    assert err.value.code == "hero_points/already_have"
    assert hero == make_hero()


def test_a_new_power_stunt_costs_3() -> None:
    # R-LTL-16
    hero = make_hero(points=3)
    after = spend_hero_points(hero, AddPowerStunt("Telekinesis", "Levitate"))
    assert after.sheet.superpowers[0] == Superpower("Telekinesis", ("Shield", "Levitate"))
    assert after.sheet.hero_points == 0
    assert after.sheet.history == (Spend("add_power_stunt", "Telekinesis: Levitate", 3, "none", "Levitate"),)


def test_a_stunt_pulled_off_in_play_costs_1() -> None:
    # R-LTL-16: 1 Hero Point for a stunt the hero already pulled off with Karma
    hero = replace(make_hero(points=1), stunts_pulled_off=("telekinesis:  levitate",))
    after = spend_hero_points(hero, AddPowerStunt("Telekinesis", "Levitate"))
    assert after.sheet.superpowers[0].stunts == ("Shield", "Levitate")
    assert after.sheet.hero_points == 0
    assert after.sheet.history[-1].cost == 1


def test_a_stunt_pulled_off_with_another_power_costs_3() -> None:
    # R-LTL-16
    hero = replace(make_hero(points=10), stunts_pulled_off=("Flight: Levitate",))
    assert price(hero, AddPowerStunt("Telekinesis", "Levitate")).cost == 3


def test_a_stunt_the_power_has_is_refused() -> None:
    # R-LTL-16
    hero = make_hero()
    with pytest.raises(IllegalAction) as err:
        spend_hero_points(hero, AddPowerStunt("Telekinesis", "shield"))
    assert err.value.code == "hero_points/already_have"
    assert hero == make_hero()


def test_a_stunt_for_an_unknown_power_is_refused() -> None:
    # R-LTL-16
    hero = make_hero()
    with pytest.raises(IllegalAction) as err:
        spend_hero_points(hero, AddPowerStunt("Weather Control", "Fog"))
    assert err.value.code == "hero_points/unknown_power"
    assert "Telekinesis" in err.value.fix
    assert hero == make_hero()


def test_removing_a_complication_costs_30() -> None:
    # R-LTL-16
    hero = make_hero(points=30)
    after = spend_hero_points(hero, RemoveComplication("hunted"))
    assert after.sheet.complications == ("Secret identity",)
    assert after.sheet.hero_points == 0
    assert after.sheet.history == (Spend("remove_complication", "Hunted", 30, "Hunted", "none"),)


def test_removing_an_unknown_complication_is_refused() -> None:
    # R-LTL-16
    hero = make_hero()
    with pytest.raises(IllegalAction) as err:
        spend_hero_points(hero, RemoveComplication("Allergic to gold"))
    assert err.value.code == "hero_points/unknown_complication"
    assert hero == make_hero()


# --- points and history ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hero", "improvement", "cost"),
    [
        (make_hero(base="d6", styles={"Wits": "d8"}, points=9), RaiseStyle("Wits"), 10),
        (make_hero(base="d10", styles={"Wits": "d12"}, points=19), RaiseStyle("Wits"), 20),
        (make_hero(base="d8", points=14), RaiseBase(), 15),
        (make_hero(base="d12", points=29), RaiseBase(), 30),
        (make_hero(heroism="d8", points=19), RaiseHeroism(), 20),
        (make_hero(heroism="d12", points=39), RaiseHeroism(), 40),
        (make_hero(karma="d8", points=24), RaiseKarma(), 25),
        (make_hero(karma="d12", points=49), RaiseKarma(), 50),
        (make_hero(points=4), AddSpecialty("Chemistry"), 5),
        (make_hero(points=2), AddPowerStunt("Flight", "Loop"), 3),
        (make_hero(points=29), RemoveComplication("Hunted"), 30),
    ],
)
def test_short_points_are_refused(hero: Hero, improvement: Improvement, cost: int) -> None:
    # R-LTL-16: refused, with the reason, when the points are short; one point short in every row
    before = hero
    with pytest.raises(NotEnough) as err:
        spend_hero_points(hero, improvement)
    assert err.value.code == "hero_points/short"
    assert err.value.ruling == "R-LTL-16"
    assert f"costs {cost} Hero Points" in err.value.reason
    assert "1 more Hero Points" in err.value.fix
    assert hero == before
    assert price(hero, improvement).cost == cost


def test_spends_pile_up_in_the_history() -> None:
    # R-LTL-19: the sheet keeps everything spent, in order
    hero = make_hero(base="d6", styles={"Wits": "d8"}, points=40)
    hero = spend_hero_points(hero, AddSpecialty("Chemistry"))
    hero = spend_hero_points(hero, RaiseBase())
    assert hero.sheet.history == (
        Spend("add_specialty", "Chemistry", 5, "none", "Chemistry"),
        Spend("raise_base", "base Power", 15, "d6", "d8"),
    )
    assert hero.sheet.hero_points == 20
    assert style_die(hero, "Wits") == "d8"  # a d8 Wits is not below the new d8 base: it stays (R-LTL-4 amended)


def test_price_ignores_the_points_held() -> None:
    # R-LTL-16
    hero = make_hero(base="d12", points=0)
    assert price(hero, RaiseBase()) == Spend("raise_base", "base Power", 30, "d12", "d20")


# --- property ------------------------------------------------------------------------------------------

SHEET_POSITIONS = (1, 2, 3, 4, 5, 7)


@st.composite
def heroes(draw: st.DrawFn) -> Hero:
    base = draw(st.sampled_from(SHEET_POSITIONS))
    names = draw(st.lists(st.sampled_from(["Wits", "Flight", "Charm", "Fisticuffs"]), unique=True, max_size=3))
    styles = tuple(Style(n, Rating(draw(st.sampled_from([p for p in SHEET_POSITIONS if p >= base])))) for n in names)
    karma = Rating(draw(st.sampled_from(SHEET_POSITIONS)))
    heroism = Rating(draw(st.sampled_from(SHEET_POSITIONS)))
    sheet = HeroSheet(
        name="Prop",
        base=Rating(base),
        karma=karma,
        heroism=heroism,
        styles=styles,
        hero_points=draw(st.integers(0, 150)),
        superpowers=(Superpower("Flight", ("Loop",)),),
        specialties=("Chemistry",),
        complications=("Hunted",),
    )
    hero = Hero.from_sheet(sheet)
    return replace(
        hero,
        karma=Rating(draw(st.integers(0, karma.position))),
        heroism=Rating(draw(st.integers(0, heroism.position))),
        stunts_pulled_off=draw(st.sampled_from([(), ("Flight: Dive",)])),
    )


improvements = st.one_of(
    st.builds(RaiseStyle, st.sampled_from(["Wits", "Flight", "Charm", "Fisticuffs"])),
    st.builds(NewStyle, st.sampled_from(["Wits", "Flight", "Charm", "Fisticuffs"])),
    st.just(RaiseBase()),
    st.just(RaiseHeroism()),
    st.just(RaiseKarma()),
    st.builds(AddSpecialty, st.sampled_from(["Chemistry", "Judo"])),
    st.builds(AddPowerStunt, st.sampled_from(["Flight", "Telekinesis"]), st.sampled_from(["Loop", "Dive"])),
    st.builds(RemoveComplication, st.sampled_from(["Hunted", "Broke"])),
)


@settings(max_examples=200, deadline=None)
@given(heroes(), st.lists(improvements, max_size=8))
def test_spending_never_overdraws_nor_passes_d20(hero: Hero, wishes: list[Improvement]) -> None:
    # R-LTL-16: Hero Points never go negative, nothing passes d20, Styles stay at or above base Power
    start = hero.sheet.hero_points
    for wish in wishes:
        try:
            after = spend_hero_points(hero, wish)
        except RulesError:
            continue
        assert after.sheet.hero_points == hero.sheet.hero_points - after.sheet.history[-1].cost
        hero = after
        sheet = hero.sheet
        assert sheet.hero_points >= 0
        assert validate_sheet(sheet) == []
        for rating in (sheet.base, sheet.karma, sheet.heroism, *(s.rating for s in sheet.styles)):
            assert rating.position <= 7
        assert all(s.rating >= sheet.base for s in sheet.styles)
        assert hero.karma <= sheet.karma
        assert hero.heroism <= sheet.heroism
    assert start - hero.sheet.hero_points == sum(s.cost for s in hero.sheet.history)
