"""The Conviction character sheet: level, roles, abilities, skills, feats, Nature and Conviction (R-CV-2)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from herotable.errors import InvalidSheet, Problem

MIN_LEVEL = 1
MAX_LEVEL = 20
ABILITY_RANGE = (-5, 10)
TOUGHNESS_RANGE = (-5, 25)
SHEET_RULINGS = "R-CV-2, R-CV-6, R-CV-7"

SUGGESTED_VIRTUES = (
    "Compassionate",
    "Courageous",
    "Curious",
    "Determined",
    "Generous",
    "Honest",
    "Loyal",
    "Merciful",
)
SUGGESTED_VICES = (
    "Arrogant",
    "Cruel",
    "Gluttonous",
    "Greedy",
    "Jealous",
    "Lazy",
    "Reckless",
    "Vain",
)


class Role(StrEnum):
    """The three True20 roles."""

    ADEPT = "adept"
    EXPERT = "expert"
    WARRIOR = "warrior"


class Ability(StrEnum):
    """The six abilities, recorded as True20 modifiers."""

    STRENGTH = "strength"
    DEXTERITY = "dexterity"
    CONSTITUTION = "constitution"
    INTELLIGENCE = "intelligence"
    WISDOM = "wisdom"
    CHARISMA = "charisma"


@dataclass(frozen=True)
class Abilities:
    """Ability modifiers (True20 records the modifier itself, e.g. Strength +2)."""

    strength: int = 0
    dexterity: int = 0
    constitution: int = 0
    intelligence: int = 0
    wisdom: int = 0
    charisma: int = 0

    def of(self, ability: Ability) -> int:
        """The modifier of one ability."""
        value: int = getattr(self, ability.value)
        return value


@dataclass(frozen=True)
class Nature:
    """One Virtue and one Vice, free text (see SUGGESTED_VIRTUES and SUGGESTED_VICES)."""

    virtue: str
    vice: str


def conviction_maximum(level: int) -> int:
    """Starting (and natural maximum) Conviction for a level: 3, +1 every odd level after the 1st (R-CV-2).

    Raises ValueError for a level outside 1..20.
    """
    if not MIN_LEVEL <= level <= MAX_LEVEL:
        raise ValueError(f"a level is between {MIN_LEVEL} and {MAX_LEVEL}, got {level}")
    return 3 + (level - 1) // 2


@dataclass(frozen=True)
class Character:
    """A hero's sheet. `feats` lists each acquisition (a repeatable feat taken twice appears twice). `uncounted_feats`
    names the feats whose catalogue numbers the sheet's values do not include yet (Thick Scales bought, Toughness
    left as it was): the table adds them. Every other feat's numbers are taken as already counted (R-CV-6 amended)."""

    name: str
    level: int
    roles: tuple[Role, ...]
    first_role: Role
    abilities: Abilities
    toughness: int
    nature: Nature
    conviction: int
    combat_bonus: int = 0
    skills: tuple[tuple[str, int], ...] = ()
    feats: tuple[str, ...] = ()
    uncounted_feats: tuple[str, ...] = ()

    @property
    def conviction_max(self) -> int:
        """The natural maximum for the level (R-CV-2)."""
        return conviction_maximum(self.level)

    def skill_rank(self, skill: str) -> int:
        """Ranks in a skill (0 when untrained); names compare without regard to case."""
        wanted = skill.casefold()
        return sum(ranks for name, ranks in self.skills if name.casefold() == wanted)

    def feat_count(self, feat: str) -> int:
        """How many times the sheet has acquired a feat."""
        wanted = feat.casefold()
        return sum(1 for name in self.feats if name.casefold() == wanted)


def _in_range(problems: list[Problem], field: str, value: int, low: int, high: int, what: str) -> None:
    if not low <= value <= high:
        problems.append(Problem(field, f"{what} must be between {low:+d} and {high:+d}, got {value:+d}"))


class FeatRules(Protocol):
    """What checks a sheet's feats: a feat catalogue (`herotable.conviction.feats.Catalogue`). The sheet depends only
    on this, so the catalogue may build on the sheet."""

    def sheet_problems(self, character: Character) -> Sequence[Problem]: ...


def sheet_problems(character: Character, catalogue: FeatRules | None = None) -> tuple[Problem, ...]:
    """Every problem on a sheet, by field; feats are checked too when a catalogue is given (R-CV-2, R-CV-6)."""
    problems: list[Problem] = []
    if not character.name.strip():
        problems.append(Problem("name", "a character needs a name"))
    level_ok = MIN_LEVEL <= character.level <= MAX_LEVEL
    if not level_ok:
        problems.append(Problem("level", f"level must be between {MIN_LEVEL} and {MAX_LEVEL}, got {character.level}"))
    if not character.roles:
        problems.append(Problem("roles", "a character has at least one role"))
    if len(set(character.roles)) != len(character.roles):
        problems.append(Problem("roles", "a role is listed more than once"))
    if level_ok and len(set(character.roles)) > character.level:
        problems.append(Problem("roles", f"{len(set(character.roles))} roles need at least that many levels"))
    if character.roles and character.first_role not in character.roles:
        problems.append(Problem("first_role", f"the 1st-level role {character.first_role} is not among the roles"))
    for ability in Ability:
        _in_range(
            problems,
            f"abilities.{ability.value}",
            character.abilities.of(ability),
            *ABILITY_RANGE,
            "an ability modifier",
        )
    _in_range(problems, "toughness", character.toughness, *TOUGHNESS_RANGE, "the Toughness bonus")
    if level_ok:
        _in_range(problems, "combat_bonus", character.combat_bonus, 0, character.level, "the combat bonus")
    seen: set[str] = set()
    for index, (skill, ranks) in enumerate(character.skills):
        field = f"skills[{index}]"
        if not skill.strip():
            problems.append(Problem(field, "a skill needs a name"))
        elif skill.casefold() in seen:
            problems.append(Problem(field, f"the skill {skill!r} is listed more than once"))
        seen.add(skill.casefold())
        if level_ok:
            _in_range(problems, field, ranks, 0, character.level + 3, f"ranks in {skill!r}")
    if not character.nature.virtue.strip():
        problems.append(Problem("nature.virtue", "a Nature has one Virtue"))
    if not character.nature.vice.strip():
        problems.append(Problem("nature.vice", "a Nature has one Vice"))
    if character.conviction < 0:
        problems.append(Problem("conviction", f"Conviction cannot be negative, got {character.conviction}"))
    held = {f.casefold() for f in character.feats}
    for index, name in enumerate(character.uncounted_feats):
        if name.casefold() not in held:
            reason = f"{name!r} is not among the sheet's feats: take it, or leave it out"
            problems.append(Problem(f"uncounted_feats[{index}]", reason))
    if catalogue is not None:
        problems.extend(catalogue.sheet_problems(character))
    return tuple(problems)


def validate_character(character: Character, catalogue: FeatRules | None = None) -> Character:
    """Return the sheet if it is valid (R-CV-2, R-CV-6).

    Raises InvalidSheet listing every problem by field.
    """
    problems = sheet_problems(character, catalogue)
    if problems:
        raise InvalidSheet(problems, ruling=SHEET_RULINGS)
    return character


def new_character(
    name: str,
    *,
    level: int,
    roles: tuple[Role, ...],
    abilities: Abilities,
    toughness: int,
    nature: Nature,
    combat_bonus: int = 0,
    skills: tuple[tuple[str, int], ...] = (),
    feats: tuple[str, ...] = (),
    uncounted_feats: tuple[str, ...] = (),
    catalogue: FeatRules | None = None,
) -> Character:
    """A new, validated character with its level's starting Conviction; `roles[0]` is the 1st-level role (R-CV-2).

    Raises InvalidSheet listing every problem by field.
    """
    first = roles[0] if roles else Role.ADEPT
    start = conviction_maximum(level) if MIN_LEVEL <= level <= MAX_LEVEL else 0
    sheet = Character(
        name=name,
        level=level,
        roles=roles,
        first_role=first,
        abilities=abilities,
        toughness=toughness,
        nature=nature,
        conviction=start,
        combat_bonus=combat_bonus,
        skills=skills,
        feats=feats,
        uncounted_feats=uncounted_feats,
    )
    return validate_character(sheet, catalogue)
