"""The hero sheet (R-LTL-19) and its validation.

A sheet holds what a hero *is*: the full ratings before any loss or burn, and the history of every Hero
Point spent. What happens in play (losses, burned Karma, tokens) lives on `herotable.ltl.hero.Hero`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from herotable.dice import Rating
from herotable.errors import InvalidSheet, Problem

RULING = "R-LTL-19"

# the six creation sections in the seed's order, with the sheet fields each one fills
CREATION_SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Writer / Artist", ("writer", "artist")),
    ("Origin", ("origin",)),
    ("Superpowers", ("superpowers",)),
    ("Motivation", ("motivation",)),
    ("Costume", ("costume",)),
    ("Hero!", ("name", "base", "styles", "karma", "heroism", "specialties", "complications", "drawbacks")),
)


@dataclass(frozen=True)
class Superpower:
    """A Superpower and its Power Stunts. `healing`: the sheet marks it as a healing Power (healing, regeneration,
    first aid, surgery…), the only kind that may heal (R-LTL-15); a sheet written before the mark has none."""

    name: str
    stunts: tuple[str, ...] = ()
    healing: bool = False


@dataclass(frozen=True)
class Style:
    """A named Style. Its rating is never below base Power; `offset` is its distance above it (R-LTL-4)."""

    name: str
    rating: Rating


@dataclass(frozen=True)
class Spend:
    """One Hero Point spend in the sheet's history (R-LTL-16, R-LTL-19)."""

    improvement: str
    target: str
    cost: int
    before: str
    after: str


@dataclass(frozen=True)
class HeroSheet:
    name: str
    base: Rating
    karma: Rating
    heroism: Rating
    styles: tuple[Style, ...] = ()
    writer: str = ""
    artist: str = ""
    origin: str = ""
    superpowers: tuple[Superpower, ...] = ()
    motivation: str = ""
    costume: str = ""
    specialties: tuple[str, ...] = ()
    complications: tuple[str, ...] = ()
    drawbacks: tuple[str, ...] = ()
    hero_points: int = 0
    history: tuple[Spend, ...] = field(default=())

    def style(self, name: str) -> Style | None:
        key = name.strip().lower()
        return next((s for s in self.styles if s.name.strip().lower() == key), None)

    def offset(self, style: Style) -> int:
        """Levels the Style stands above base Power (R-LTL-4)."""
        return style.rating.position - self.base.position


def validate_sheet(sheet: HeroSheet) -> list[Problem]:
    """Every way the sheet breaks the rules, by field; empty when it is legal. R-LTL-19, R-LTL-4."""
    problems: list[Problem] = []
    if not sheet.name.strip():
        problems.append(Problem("name", "a hero needs a name"))
    for fld in ("base", "karma", "heroism"):
        rating: Rating = getattr(sheet, fld)
        if rating.position in (0, 6):
            problems.append(
                Problem(fld, f"{rating.name} is not a die a sheet can hold; use d4, d6, d8, d10, d12 or d20")
            )
    seen: set[str] = set()
    for i, style in enumerate(sheet.styles):
        where = f"styles[{i}]"
        if not style.name.strip():
            problems.append(Problem(where, "a Style needs a name"))
        elif style.name.lower() in seen:
            problems.append(Problem(where, f"the Style {style.name!r} is listed twice"))
        seen.add(style.name.lower())
        if style.rating.position in (0, 6):
            problems.append(Problem(where, f"{style.rating.name} is not a die a sheet can hold"))
        elif style.rating < sheet.base:
            problems.append(
                Problem(
                    where,
                    f"the Style {style.name!r} ({style.rating}) is below base Power ({sheet.base}); "
                    "a Style is never lower than base Power (R-LTL-4)",
                )
            )
    if len(sheet.drawbacks) > 1:
        problems.append(
            Problem("drawbacks", f"a hero has at most one Drawback, this sheet lists {len(sheet.drawbacks)}")
        )
    if sheet.hero_points < 0:
        problems.append(Problem("hero_points", f"Hero Points cannot be negative ({sheet.hero_points})"))
    powers: set[str] = set()
    for i, power in enumerate(sheet.superpowers):
        if not power.name.strip():
            problems.append(Problem(f"superpowers[{i}]", "a Superpower needs a name"))
        elif power.name.lower() in powers:
            problems.append(Problem(f"superpowers[{i}]", f"the Superpower {power.name!r} is listed twice"))
        powers.add(power.name.lower())
    return problems


def checked(sheet: HeroSheet) -> HeroSheet:
    """The sheet itself if it is legal; raises InvalidSheet listing every problem otherwise."""
    problems = validate_sheet(sheet)
    if problems:
        raise InvalidSheet(problems, ruling=RULING)
    return sheet


_TEXT_FIELDS = ("name", "writer", "artist", "origin", "motivation", "costume")
_LIST_FIELDS = ("specialties", "complications", "drawbacks")
_KNOWN = {*_TEXT_FIELDS, *_LIST_FIELDS, "base", "karma", "heroism", "styles", "superpowers", "hero_points", "history"}


def sheet_from_dict(data: Mapping[str, Any]) -> HeroSheet:
    """Build a sheet from plain data (JSON, a form), listing every problem at once. R-LTL-19.

    Dice are written like "d10"; styles as {"Wits": "d12"}; superpowers as [{"name": …, "stunts": […]}], with
    "healing": true for a healing Power (R-LTL-15; left out, the Power does not heal).
    Raises InvalidSheet.
    """
    problems: list[Problem] = [Problem(k, "is not a field of a hero sheet") for k in data if k not in _KNOWN]

    def text(key: str) -> str:
        value = data.get(key, "")
        if not isinstance(value, str):
            problems.append(Problem(key, "must be text"))
            return ""
        return value

    def texts(key: str) -> tuple[str, ...]:
        value = data.get(key, [])
        if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
            problems.append(Problem(key, "must be a list of text"))
            return ()
        return tuple(value)

    def die(key: str, value: Any) -> Rating:
        try:
            if not isinstance(value, str | int) or isinstance(value, bool):
                raise ValueError("write a die like 'd8'")
            return Rating.of(value)
        except ValueError as exc:
            problems.append(Problem(key, str(exc) if value is not None else "is required (a die like 'd8')"))
            return Rating(1)

    base = die("base", data.get("base"))
    karma = die("karma", data.get("karma"))
    heroism = die("heroism", data.get("heroism"))
    styles: list[Style] = []
    raw_styles = data.get("styles", {})
    if not isinstance(raw_styles, Mapping):
        problems.append(Problem("styles", 'must map Style names to dice, like {"Wits": "d12"}'))
    else:
        for name, value in raw_styles.items():
            before = len(problems)
            rating = die(f"styles.{name}", value)
            if len(problems) == before:  # an unreadable die is reported once, not again as "below base"
                styles.append(Style(str(name), rating))
    powers: list[Superpower] = []
    raw_powers = data.get("superpowers", [])
    if not isinstance(raw_powers, list | tuple):
        problems.append(Problem("superpowers", 'must be a list like [{"name": "Flight", "stunts": []}]'))
    else:
        for i, p in enumerate(raw_powers):
            if isinstance(p, str):
                powers.append(Superpower(p))
            elif isinstance(p, Mapping) and isinstance(p.get("name"), str):
                stunts = p.get("stunts", [])
                if not isinstance(stunts, list | tuple) or not all(isinstance(s, str) for s in stunts):
                    problems.append(Problem(f"superpowers[{i}].stunts", "must be a list of text"))
                    stunts = []
                healing = p.get("healing", False)
                if not isinstance(healing, bool):
                    problems.append(Problem(f"superpowers[{i}].healing", "must be true or false"))
                    healing = False
                powers.append(Superpower(p["name"], tuple(stunts), healing))
            else:
                problems.append(
                    Problem(f"superpowers[{i}]", "must be a name or {'name': …, 'stunts': […], 'healing': true|false}")
                )
    points = data.get("hero_points", 0)
    if not isinstance(points, int) or isinstance(points, bool):
        problems.append(Problem("hero_points", "must be a whole number"))
        points = 0
    history: list[Spend] = []
    raw_history = data.get("history", [])
    if not isinstance(raw_history, list | tuple):
        problems.append(Problem("history", "must be a list of spends"))
    else:
        for i, h in enumerate(raw_history):
            try:
                history.append(Spend(**h))
            except TypeError:
                problems.append(Problem(f"history[{i}]", "must have improvement, target, cost, before, after"))
    sheet = HeroSheet(
        name=text("name"),
        base=base,
        karma=karma,
        heroism=heroism,
        styles=tuple(styles),
        writer=text("writer"),
        artist=text("artist"),
        origin=text("origin"),
        superpowers=tuple(powers),
        motivation=text("motivation"),
        costume=text("costume"),
        specialties=texts("specialties"),
        complications=texts("complications"),
        drawbacks=texts("drawbacks"),
        hero_points=points,
        history=tuple(history),
    )
    problems.extend(validate_sheet(sheet))
    if problems:
        raise InvalidSheet(problems, ruling=RULING)
    return sheet


def sheet_to_dict(sheet: HeroSheet) -> dict[str, Any]:
    """Plain data that `sheet_from_dict` reads back to an equal sheet."""
    return {
        "name": sheet.name,
        "writer": sheet.writer,
        "artist": sheet.artist,
        "origin": sheet.origin,
        "superpowers": [_power_to_dict(p) for p in sheet.superpowers],
        "motivation": sheet.motivation,
        "costume": sheet.costume,
        "base": sheet.base.name,
        "styles": {s.name: s.rating.name for s in sheet.styles},
        "karma": sheet.karma.name,
        "heroism": sheet.heroism.name,
        "specialties": list(sheet.specialties),
        "complications": list(sheet.complications),
        "drawbacks": list(sheet.drawbacks),
        "hero_points": sheet.hero_points,
        "history": [vars(h) for h in sheet.history],
    }


def _power_to_dict(power: Superpower) -> dict[str, Any]:
    """A Superpower as plain data; the healing mark is written only when set, so unmarked powers read as before."""
    data: dict[str, Any] = {"name": power.name, "stunts": list(power.stunts)}
    if power.healing:
        data["healing"] = True
    return data


def stored_sheet(data: Mapping[str, Any]) -> HeroSheet:
    """A sheet from `sheet_to_dict`'s output as a log recorded it. Not validated: a log is history, and a sheet
    the rules accepted then stays readable whatever the rules say now."""
    return HeroSheet(
        name=str(data["name"]),
        base=Rating.of(data["base"]),
        karma=Rating.of(data["karma"]),
        heroism=Rating.of(data["heroism"]),
        styles=tuple(Style(str(name), Rating.of(die)) for name, die in data.get("styles", {}).items()),
        writer=str(data.get("writer", "")),
        artist=str(data.get("artist", "")),
        origin=str(data.get("origin", "")),
        superpowers=tuple(
            Superpower(p["name"], tuple(p.get("stunts", ())), bool(p.get("healing", False)))
            for p in data.get("superpowers", ())
        ),
        motivation=str(data.get("motivation", "")),
        costume=str(data.get("costume", "")),
        specialties=tuple(data.get("specialties", ())),
        complications=tuple(data.get("complications", ())),
        drawbacks=tuple(data.get("drawbacks", ())),
        hero_points=int(data.get("hero_points", 0)),
        history=tuple(Spend(**h) for h in data.get("history", ())),
    )
