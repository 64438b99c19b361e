"""Feats as data: categories, prerequisites, repeatable feats, and which roles reach which category (R-CV-6).

The sample catalogue ships in `feats.json`; a campaign may load its own file on top of it. Reading files
happens only in `sample_catalogue` and `load_catalogue_file`; the rules take a parsed `Catalogue`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from importlib import resources
from pathlib import Path
from typing import Any

from herotable.conviction.character import Ability, Character, Role
from herotable.conviction.checks import Bonus
from herotable.errors import Problem, RulesError

SAMPLE_FILE = "feats.json"


class FeatCategory(StrEnum):
    GENERAL = "general"
    EXPERT = "expert"
    MARTIAL = "martial"
    SUPERNATURAL = "supernatural"


ROLE_ACCESS: Mapping[Role, frozenset[FeatCategory]] = {
    Role.ADEPT: frozenset({FeatCategory.GENERAL, FeatCategory.SUPERNATURAL}),
    Role.EXPERT: frozenset({FeatCategory.GENERAL, FeatCategory.EXPERT}),
    Role.WARRIOR: frozenset({FeatCategory.GENERAL, FeatCategory.MARTIAL}),
}


class PrerequisiteKind(StrEnum):
    ABILITY = "ability"
    FEAT = "feat"
    SKILL = "skill"
    COMBAT_BONUS = "combat_bonus"


@dataclass(frozen=True)
class Prerequisite:
    """One requirement: an ability modifier, a feat, ranks in a skill, or a combat bonus at least `minimum`."""

    kind: PrerequisiteKind
    minimum: int
    name: str = ""

    def met_by(self, character: Character) -> bool:
        """Whether the sheet itself meets the requirement (feats gained for one round do not count)."""
        if self.kind is PrerequisiteKind.ABILITY:
            return character.abilities.of(Ability(self.name)) >= self.minimum
        if self.kind is PrerequisiteKind.FEAT:
            return character.feat_count(self.name) >= self.minimum
        if self.kind is PrerequisiteKind.SKILL:
            return character.skill_rank(self.name) >= self.minimum
        return character.combat_bonus >= self.minimum

    def __str__(self) -> str:
        if self.kind is PrerequisiteKind.ABILITY:
            return f"{self.name.capitalize()} {self.minimum:+d}"
        if self.kind is PrerequisiteKind.FEAT:
            return f"the feat {self.name}"
        if self.kind is PrerequisiteKind.SKILL:
            return f"{self.minimum} ranks in {self.name}"
        return f"combat bonus {self.minimum:+d}"


class Modelled(StrEnum):
    """The values the table models that a feat's number may change (R-CV-6 amended)."""

    TOUGHNESS = "toughness"  # the Toughness bonus, in every Toughness save
    SKILL = "skill"  # a named skill's checks


@dataclass(frozen=True)
class FeatNumber:
    """An unconditional number a feat adds to a modelled value, per acquisition: +1 Toughness, +2 on Notice checks."""

    on: Modelled
    by: int
    skill: str = ""

    def applies(self, on: Modelled, skill: str | None = None) -> bool:
        if self.on is not on:
            return False
        return on is not Modelled.SKILL or (skill is not None and skill.strip().casefold() == self.skill.casefold())

    def __str__(self) -> str:
        return f"{self.by:+d} Toughness" if self.on is Modelled.TOUGHNESS else f"{self.by:+d} on {self.skill} checks"


@dataclass(frozen=True)
class Feat:
    """A feat of the catalogue. `modifies` holds its unconditional numbers on values the table models, which the table
    applies while the feat is in force; everything else in `benefit` is a reminder for the GM (R-CV-6 amended)."""

    name: str
    category: FeatCategory
    benefit: str
    repeatable: bool = False
    prerequisites: tuple[Prerequisite, ...] = ()
    modifies: tuple[FeatNumber, ...] = ()


def feat_bonuses(
    feats: Iterable[str], catalogue: Catalogue, on: Modelled, skill: str | None = None
) -> tuple[Bonus, ...]:
    """The bonuses the feats in force (one name per acquisition) add to a roll on a modelled value: one per feat, its
    number times its acquisitions, named after it (R-CV-6 amended). Names the catalogue does not know add nothing."""
    totals: dict[str, int] = {}
    for name in feats:
        feat = catalogue.get(name)
        if feat is None:
            continue
        for number in feat.modifies:
            if number.applies(on, skill):
                totals[feat.name] = totals.get(feat.name, 0) + number.by
    return tuple(Bonus(name, amount) for name, amount in totals.items() if amount)


def roles_reaching(category: FeatCategory) -> tuple[Role, ...]:
    """The roles whose feat lists include a category (R-CV-6)."""
    return tuple(role for role in Role if category in ROLE_ACCESS[role])


def acquisition_problems(character: Character, feat: Feat) -> tuple[str, ...]:
    """Why the sheet could not acquire the feat normally: role access and unmet prerequisites (R-CV-6)."""
    reasons: list[str] = []
    if not any(feat.category in ROLE_ACCESS[role] for role in character.roles):
        needed = " or ".join(str(role) for role in roles_reaching(feat.category))
        reasons.append(f"{feat.name} is a {feat.category} feat, open only to the {needed} role")
    reasons.extend(f"{feat.name} needs {p}" for p in feat.prerequisites if not p.met_by(character))
    return tuple(reasons)


@dataclass(frozen=True)
class Catalogue:
    """A parsed set of feats, looked up by name without regard to case."""

    feats: tuple[Feat, ...]
    source: str = "catalogue"

    def get(self, name: str) -> Feat | None:
        """The feat with that name, or None."""
        wanted = name.casefold()
        return next((feat for feat in self.feats if feat.name.casefold() == wanted), None)

    def extended(self, other: Catalogue) -> Catalogue:
        """This catalogue with a campaign's feats added; a campaign feat replaces a sample feat of the same name."""
        replaced = {feat.name.casefold() for feat in other.feats}
        kept = tuple(feat for feat in self.feats if feat.name.casefold() not in replaced)
        return Catalogue(kept + other.feats, source=f"{self.source} + {other.source}")

    def sheet_problems(self, character: Character) -> tuple[Problem, ...]:
        """Problems with the feats on a sheet: unknown, repeated, out of role, prerequisites unmet (R-CV-6)."""
        problems: list[Problem] = []
        seen: set[str] = set()
        for index, name in enumerate(character.feats):
            field = f"feats[{index}]"
            feat = self.get(name)
            if feat is None:
                problems.append(Problem(field, f"{name!r} is not in the feats catalogue ({self.source})"))
                continue
            if not feat.repeatable and name.casefold() in seen:
                problems.append(Problem(field, f"{feat.name} cannot be taken more than once"))
            seen.add(name.casefold())
            problems.extend(Problem(field, reason) for reason in acquisition_problems(character, feat))
        return tuple(problems)


class CatalogueError(RulesError):
    """A feats catalogue file is broken; the message names the source, the line and the reason."""

    def __init__(self, source: str, line: int, reason: str) -> None:
        self.source = source
        self.line = line
        super().__init__(
            "feats/bad_catalogue",
            f"{source}, line {line}: {reason}",
            ruling="R-CV-6",
            fix=f"correct line {line} of {source}; a catalogue is a JSON array of feat objects",
        )


_WHITESPACE = re.compile(r"[ \t\n\r]*")
_FEAT_KEYS = {"name", "category", "benefit", "repeatable", "prerequisites", "modifies"}


def _skip_whitespace(text: str, pos: int) -> int:
    match = _WHITESPACE.match(text, pos)
    return match.end() if match else pos


def _elements(text: str) -> Iterator[tuple[int, Any]]:
    """Each element of a JSON array that has already parsed, with the line it starts on."""
    decoder = json.JSONDecoder()
    pos = _skip_whitespace(text, 0) + 1
    while True:
        pos = _skip_whitespace(text, pos)
        if text[pos] == "]":
            return
        value, end = decoder.raw_decode(text, pos)
        yield text.count("\n", 0, pos) + 1, value
        pos = _skip_whitespace(text, end)
        if text[pos] == ",":
            pos += 1


def _prerequisite(raw: Any) -> Prerequisite:
    if not isinstance(raw, dict):
        raise ValueError('each prerequisite is an object such as {"ability": "strength", "min": 1}')
    keys = set(raw)
    if keys == {"ability", "min"}:
        if raw["ability"] not in {a.value for a in Ability}:
            raise ValueError(f"unknown ability {raw['ability']!r}; use one of {', '.join(a.value for a in Ability)}")
        return Prerequisite(PrerequisiteKind.ABILITY, _integer(raw["min"], "min"), raw["ability"])
    if keys == {"feat"}:
        return Prerequisite(PrerequisiteKind.FEAT, 1, _text(raw["feat"], "feat"))
    if keys == {"skill", "ranks"}:
        return Prerequisite(PrerequisiteKind.SKILL, _integer(raw["ranks"], "ranks"), _text(raw["skill"], "skill"))
    if keys == {"combat_bonus"}:
        return Prerequisite(PrerequisiteKind.COMBAT_BONUS, _integer(raw["combat_bonus"], "combat_bonus"))
    raise ValueError(
        f"a prerequisite with keys {sorted(keys)} is not understood; use ability+min, feat, skill+ranks or combat_bonus"
    )


def _number(raw: Any) -> FeatNumber:
    if not isinstance(raw, dict):
        raise ValueError('each number is an object such as {"toughness": 1} or {"skill": "Notice", "by": 2}')
    keys = set(raw)
    if keys == {"toughness"}:
        return FeatNumber(Modelled.TOUGHNESS, _integer(raw["toughness"], "toughness"))
    if keys == {"skill", "by"}:
        return FeatNumber(Modelled.SKILL, _integer(raw["by"], "by"), _text(raw["skill"], "skill"))
    raise ValueError(
        f"a number with keys {sorted(keys)} is not understood; use toughness, or skill+by (a benefit with a "
        "condition or a choice stays in the benefit's words, for the GM)"
    )


def _integer(value: Any, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{key!r} must be a whole number, got {value!r}")
    return value


def _text(value: Any, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{key!r} must be non-empty text, got {value!r}")
    return value.strip()


def _feat(raw: Any) -> Feat:
    if not isinstance(raw, dict):
        raise ValueError("each feat is a JSON object")
    unknown = set(raw) - _FEAT_KEYS
    if unknown:
        raise ValueError(f"unknown key(s) {', '.join(sorted(unknown))}; a feat has {', '.join(sorted(_FEAT_KEYS))}")
    missing = {"name", "category", "benefit"} - set(raw)
    if missing:
        raise ValueError(f"missing key(s) {', '.join(sorted(missing))}")
    name = _text(raw["name"], "name")
    if raw["category"] not in {c.value for c in FeatCategory}:
        choices = ", ".join(c.value for c in FeatCategory)
        raise ValueError(f"feat {name!r}: unknown category {raw['category']!r}; use one of {choices}")
    repeatable = raw.get("repeatable", False)
    if not isinstance(repeatable, bool):
        raise ValueError(f"feat {name!r}: 'repeatable' must be true or false")
    prerequisites = raw.get("prerequisites", [])
    if not isinstance(prerequisites, list):
        raise ValueError(f"feat {name!r}: 'prerequisites' must be a list")
    numbers = raw.get("modifies", [])
    if not isinstance(numbers, list):
        raise ValueError(f"feat {name!r}: 'modifies' must be a list")
    try:
        parsed = tuple(_prerequisite(p) for p in prerequisites)
        modifies = tuple(_number(n) for n in numbers)
    except ValueError as exc:
        raise ValueError(f"feat {name!r}: {exc}") from None
    benefit = _text(raw["benefit"], "benefit")
    return Feat(name, FeatCategory(raw["category"]), benefit, repeatable, parsed, modifies)


def parse_catalogue(text: str, source: str = "catalogue", base: Catalogue | None = None) -> Catalogue:
    """Parse a catalogue (a JSON array of feats); feat prerequisites may name feats of `base` too (R-CV-6).

    Raises CatalogueError naming the source, the line and the reason.
    """
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CatalogueError(source, exc.lineno, f"not valid JSON: {exc.msg} (column {exc.colno})") from None
    if not isinstance(document, list):
        raise CatalogueError(source, 1, "the catalogue must be a JSON array of feat objects")
    feats: list[Feat] = []
    lines: dict[str, int] = {}
    for line, raw in _elements(text):
        try:
            feat = _feat(raw)
        except ValueError as exc:
            raise CatalogueError(source, line, str(exc)) from None
        if feat.name.casefold() in lines:
            first = lines[feat.name.casefold()]
            raise CatalogueError(source, line, f"feat {feat.name!r} is already defined on line {first}")
        lines[feat.name.casefold()] = line
        feats.append(feat)
    known = set(lines) | ({f.name.casefold() for f in base.feats} if base else set())
    for feat in feats:
        for prerequisite in feat.prerequisites:
            if prerequisite.kind is PrerequisiteKind.FEAT and prerequisite.name.casefold() not in known:
                raise CatalogueError(
                    source,
                    lines[feat.name.casefold()],
                    f"feat {feat.name!r} needs the feat {prerequisite.name!r}, which no catalogue defines",
                )
    return Catalogue(tuple(feats), source)


def sample_catalogue() -> Catalogue:
    """The sample feats written for this project, from the package (R-CV-6)."""
    text = resources.files("herotable.conviction").joinpath(SAMPLE_FILE).read_text(encoding="utf-8")
    return parse_catalogue(text, source=SAMPLE_FILE)


def load_catalogue_file(path: str | Path, base: Catalogue | None = None) -> Catalogue:
    """A campaign's catalogue file, added on top of `base` (the sample when not given) (R-CV-6).

    Raises CatalogueError naming the file, the line and the reason.
    """
    underlying = sample_catalogue() if base is None else base
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CatalogueError(str(file), 1, f"cannot read the file: {exc}") from None
    return underlying.extended(parse_catalogue(text, source=str(file), base=underlying))
