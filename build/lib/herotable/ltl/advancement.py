"""Hero Points: the GM's award at the end of an adventure and what a hero buys with them (R-LTL-16).

A spend is checked in full before anything changes, lowers the hero's Hero Points and is recorded on the
sheet's history (R-LTL-19). Raising a rating always means the next die; d12 -> d20 is two levels and costs
double (R-LTL-1).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from herotable.dice import MAX_POSITION, Rating, step_up
from herotable.errors import IllegalAction, NotEnough
from herotable.ltl.hero import Hero
from herotable.ltl.sheet import HeroSheet, Spend, Style

RULING = "R-LTL-16"

# Hero Points per level raised; a d12 -> d20 step is two levels, so "to d20" costs double
STYLE_COST = 10
BASE_COST = 15
HEROISM_COST = 20
KARMA_COST = 25
SPECIALTY_COST = 5
STUNT_COST = 3
KNOWN_STUNT_COST = 1  # a stunt the hero already pulled off in play with Karma
COMPLICATION_COST = 30

NOTHING = "none"  # what `Spend.before`/`Spend.after` show for something the sheet does not hold


@dataclass(frozen=True)
class RaiseStyle:
    """Raise one of the hero's Styles to the next die."""

    style: str


@dataclass(frozen=True)
class NewStyle:
    """Buy a Style the hero does not have yet: it starts one die above base Power."""

    style: str


@dataclass(frozen=True)
class RaiseBase:
    """Raise base Power to the next die; a Style that would fall below it rises to the new base."""


@dataclass(frozen=True)
class RaiseHeroism:
    """Raise Heroism to the next die."""


@dataclass(frozen=True)
class RaiseKarma:
    """Raise Karma to the next die."""


@dataclass(frozen=True)
class AddSpecialty:
    specialty: str


@dataclass(frozen=True)
class AddPowerStunt:
    """Add a Power Stunt to one of the hero's Superpowers."""

    power: str
    stunt: str


@dataclass(frozen=True)
class RemoveComplication:
    complication: str


Improvement = (
    RaiseStyle | NewStyle | RaiseBase | RaiseHeroism | RaiseKarma | AddSpecialty | AddPowerStunt | RemoveComplication
)


def award_hero_points(hero: Hero, points: int) -> Hero:
    """The GM's award at the end of an adventure (R-LTL-16). Raises IllegalAction for a negative award."""
    if points < 0:
        raise IllegalAction(
            "hero_points/negative_award",
            f"an award of {points} Hero Points is negative",
            ruling=RULING,
            fix="award zero or more Hero Points",
        )
    return replace(hero, sheet=replace(hero.sheet, hero_points=hero.sheet.hero_points + points))


def price(hero: Hero, improvement: Improvement) -> Spend:
    """The spend an improvement would record (cost, before, after), whatever the hero's Hero Points
    (R-LTL-16). Raises IllegalAction when the improvement is not possible."""
    return _plan(hero, improvement)[0]


def spend_hero_points(hero: Hero, improvement: Improvement) -> Hero:
    """Buy an improvement with Hero Points and record it on the sheet's history (R-LTL-16, R-LTL-19).
    Raises NotEnough when the points are short, IllegalAction when the improvement is not possible."""
    spend, improved = _plan(hero, improvement)
    have = hero.sheet.hero_points
    if spend.cost > have:
        raise NotEnough(
            "hero_points/short",
            f"{_describe(spend)} costs {spend.cost} Hero Points and {hero.name} has {have}",
            ruling=RULING,
            fix=f"earn {spend.cost - have} more Hero Points first, or choose a cheaper improvement",
        )
    sheet = replace(improved.sheet, hero_points=have - spend.cost, history=(*improved.sheet.history, spend))
    return replace(improved, sheet=sheet)


def _describe(spend: Spend) -> str:
    return f"{spend.improvement.replace('_', ' ')} ({spend.target})"


def _next_die(rating: Rating, what: str) -> tuple[Rating, int]:
    """The next die up and the levels that step spans (two from d12 to d20)."""
    if rating.position >= MAX_POSITION:
        raise _beyond_d20(f"{what} is already d20 and nothing goes above d20")
    raised = Rating(step_up(rating.position))
    return raised, raised.position - rating.position


def _beyond_d20(message: str) -> IllegalAction:
    return IllegalAction(
        "hero_points/beyond_d20", message, ruling=RULING, fix="spend the points on another improvement"
    )


def _key(text: str) -> str:
    return " ".join(text.split()).casefold()


def _name(text: str, what: str) -> str:
    name = " ".join(text.split())
    if not name:
        raise IllegalAction(
            "hero_points/no_name",
            f"the {what} to buy has no name",
            ruling=RULING,
            fix=f"name the {what}",
        )
    return name


def _already(what: str, name: str, hero: Hero) -> IllegalAction:
    return IllegalAction(
        "hero_points/already_have",
        f"{hero.name} already has the {what} {name!r}",
        ruling=RULING,
        fix=f"choose a {what} the hero does not have yet",
    )


def _plan(hero: Hero, improvement: Improvement) -> tuple[Spend, Hero]:
    """The spend to record and the improved hero, Hero Points not yet deducted."""
    sheet = hero.sheet
    match improvement:
        case RaiseStyle(style=wanted):
            return _raise_style(hero, wanted)
        case NewStyle(style=wanted):
            name = _name(wanted, "Style")
            if sheet.style(name) is not None:
                raise _already("Style", name, hero)
            if sheet.base.position >= MAX_POSITION:
                raise _beyond_d20(f"base Power is already d20, so a new Style {name!r} would pass d20")
            rating, levels = _next_die(sheet.base, "base Power")
            spend = Spend("new_style", name, STYLE_COST * levels, NOTHING, rating.name)
            return spend, _with_sheet(hero, replace(sheet, styles=(*sheet.styles, Style(name, rating))))
        case RaiseBase():
            base, levels = _next_die(sheet.base, "base Power")
            # a Style that would fall below the new base rises to it; Styles above it stay (R-LTL-4 amended)
            styles = tuple(Style(s.name, base) if s.rating.position < base.position else s for s in sheet.styles)
            spend = Spend("raise_base", "base Power", BASE_COST * levels, sheet.base.name, base.name)
            return spend, _with_sheet(hero, replace(sheet, base=base, styles=styles))
        case RaiseHeroism():
            heroism, levels = _next_die(sheet.heroism, "Heroism")
            spend = Spend("raise_heroism", "Heroism", HEROISM_COST * levels, sheet.heroism.name, heroism.name)
            current = _keep_burned(sheet.heroism, hero.heroism, heroism)
            return spend, replace(hero, sheet=replace(sheet, heroism=heroism), heroism=current)
        case RaiseKarma():
            karma, levels = _next_die(sheet.karma, "Karma")
            spend = Spend("raise_karma", "Karma", KARMA_COST * levels, sheet.karma.name, karma.name)
            current = _keep_burned(sheet.karma, hero.karma, karma)
            return spend, replace(hero, sheet=replace(sheet, karma=karma), karma=current)
        case AddSpecialty(specialty=wanted):
            name = _name(wanted, "Specialty")
            if any(_key(s) == _key(name) for s in sheet.specialties):
                raise _already("Specialty", name, hero)
            spend = Spend("add_specialty", name, SPECIALTY_COST, NOTHING, name)
            return spend, _with_sheet(hero, replace(sheet, specialties=(*sheet.specialties, name)))
        case AddPowerStunt(power=power_name, stunt=wanted):
            return _add_stunt(hero, power_name, wanted)
        case RemoveComplication(complication=wanted):
            found = next((c for c in sheet.complications if _key(c) == _key(wanted)), None)
            if found is None:
                listed = ", ".join(sheet.complications) or "none"
                raise IllegalAction(
                    "hero_points/unknown_complication",
                    f"{hero.name} has no Complication {wanted!r}",
                    ruling=RULING,
                    fix=f"name one of the hero's Complications ({listed})",
                )
            spend = Spend("remove_complication", found, COMPLICATION_COST, found, NOTHING)
            kept = tuple(c for c in sheet.complications if c != found)
            return spend, _with_sheet(hero, replace(sheet, complications=kept))


def _with_sheet(hero: Hero, sheet: HeroSheet) -> Hero:
    return replace(hero, sheet=sheet)


def _keep_burned(old_max: Rating, current: Rating, new_max: Rating) -> Rating:
    """The current value under a raised maximum: the levels already burned stay burned."""
    return new_max.lowered(max(0, old_max.position - current.position))


def _raise_style(hero: Hero, wanted: str) -> tuple[Spend, Hero]:
    sheet = hero.sheet
    found = sheet.style(wanted)
    if found is None:
        listed = ", ".join(s.name for s in sheet.styles) or "none"
        raise IllegalAction(
            "hero_points/unknown_style",
            f"{hero.name} has no Style named {wanted!r}",
            ruling=RULING,
            fix=f"raise one of the hero's Styles ({listed}), or buy {wanted!r} as a new Style",
        )
    rating, levels = _next_die(found.rating, f"the Style {found.name!r}")
    spend = Spend("raise_style", found.name, STYLE_COST * levels, found.rating.name, rating.name)
    styles = tuple(Style(s.name, rating) if s is found else s for s in sheet.styles)
    return spend, _with_sheet(hero, replace(sheet, styles=styles))


def _add_stunt(hero: Hero, power_name: str, wanted: str) -> tuple[Spend, Hero]:
    sheet = hero.sheet
    power = next((p for p in sheet.superpowers if _key(p.name) == _key(power_name)), None)
    if power is None:
        listed = ", ".join(p.name for p in sheet.superpowers) or "none"
        raise IllegalAction(
            "hero_points/unknown_power",
            f"{hero.name} has no Superpower named {power_name!r}",
            ruling=RULING,
            fix=f"add the stunt to one of the hero's Superpowers ({listed})",
        )
    stunt = _name(wanted, "Power Stunt")
    if any(_key(s) == _key(stunt) for s in power.stunts):
        raise _already(f"{power.name} Power Stunt", stunt, hero)
    target = f"{power.name}: {stunt}"
    cost = KNOWN_STUNT_COST if _pulled_off(hero, power.name, stunt) else STUNT_COST
    spend = Spend("add_power_stunt", target, cost, NOTHING, stunt)
    grown = replace(power, stunts=(*power.stunts, stunt))
    powers = tuple(grown if p is power else p for p in sheet.superpowers)
    return spend, _with_sheet(hero, replace(sheet, superpowers=powers))


def _pulled_off(hero: Hero, power: str, stunt: str) -> bool:
    """Whether the hero pulled this stunt off in play with Karma ("Power: stunt", R-LTL-10)."""
    for entry in hero.stunts_pulled_off:
        done_power, sep, done_stunt = entry.partition(":")
        if sep and _key(done_power) == _key(power) and _key(done_stunt) == _key(stunt):
            return True
    return False
