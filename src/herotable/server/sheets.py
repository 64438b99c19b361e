"""The sheet editors, one per game, behind one interface: what the editor page needs, how a posted form becomes
the game's character-creation command, and which form control each problem on the sheet belongs beside.

The pages ask `editor_for(state)`; they never ask which game a campaign plays.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from herotable.conviction.character import SUGGESTED_VICES, SUGGESTED_VIRTUES, Abilities, Ability, Nature
from herotable.conviction.character import Role as CvRole
from herotable.errors import InvalidSheet, Problem
from herotable.ltl.sheet import CREATION_SECTIONS, sheet_from_dict, sheet_to_dict
from herotable.table.commands import Command
from herotable.table.conviction.commands import CreateCvCharacter, CvSheet
from herotable.table.conviction.decide import catalogue
from herotable.table.ltl.commands import CreateLtlCharacter
from herotable.table.state import Ruleset, TableState

DICE = ("d4", "d6", "d8", "d10", "d12", "d20")
LTL_ROWS = {"superpowers": 4, "styles": 4}
CV_SKILL_ROWS = 6
COMMON_KEYS = frozenset({"character", "name", "owner", "sheet"})


class FormLike(Protocol):
    def getlist(self, key: str) -> list[Any]: ...


@dataclass(frozen=True)
class Read:
    """A posted sheet as its game reads it: the sheet for the command, the problems found in the form itself, and
    the form control each problem belongs beside."""

    sheet: Any
    problems: list[Problem]
    field_of: Callable[[Problem], str]


class SheetEditor(Protocol):
    template: str

    def context(self) -> dict[str, Any]:
        """What the editor page shows beyond the campaign: choices, rows, suggestions."""
        ...

    def keys(self) -> frozenset[str]:
        """The form controls that show their problems beside them; others are listed at the top."""
        ...

    def read(self, values: Mapping[str, str], form: FormLike) -> Read: ...

    def command(self, cid: str, sheet: Any, *, owner: str | None, npc: bool, hidden: bool) -> Command: ...

    def view(self, hero: Any) -> dict[str, Any]:
        """What the character's page shows beyond the hero."""
        ...


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _int(form: Mapping[str, str], key: str, problems: list[Problem], default: int = 0) -> int:
    text = form.get(key, "").strip()
    if not text:
        return default
    try:
        return int(text)
    except ValueError:
        problems.append(Problem(key, f"{text!r} is not a whole number"))
        return default


class LtlSheets:
    template = "ltl_sheet.html"

    def context(self) -> dict[str, Any]:
        return {"dice": DICE, "sections": CREATION_SECTIONS, "rows": LTL_ROWS}

    def keys(self) -> frozenset[str]:
        rows = {f"style_{i}" for i in range(LTL_ROWS["styles"])} | {
            f"power_{i}" for i in range(LTL_ROWS["superpowers"])
        }
        texts = {"writer", "artist", "origin", "motivation", "costume", "base", "karma", "heroism"}
        lists = {"styles", "superpowers", "specialties", "complications", "drawbacks"}
        return COMMON_KEYS | rows | texts | lists

    def read(self, values: Mapping[str, str], form: FormLike) -> Read:
        """The sheet as the engine reads it; which form row each listed Style and Superpower came from, and the
        rows the sheet's Style map cannot hold (the same name twice)."""
        style_rows: dict[int, int] = {}
        styles: dict[str, str] = {}
        problems: list[Problem] = []
        for row in range(LTL_ROWS["styles"]):
            name = values.get(f"style_name_{row}", "").strip()
            if name in styles:
                problems.append(Problem(f"style_{row}", f"the Style {name!r} is listed twice"))
            elif name or values.get(f"style_die_{row}", ""):
                style_rows[len(styles)] = row
                styles[name or f"(row {row + 1})"] = values.get(f"style_die_{row}", "")
        power_rows: dict[int, int] = {}
        powers: list[dict[str, Any]] = []
        for row in range(LTL_ROWS["superpowers"]):
            name = values.get(f"power_name_{row}", "").strip()
            stunts = [s.strip() for s in values.get(f"power_stunts_{row}", "").split(",") if s.strip()]
            if name or stunts:
                power_rows[len(powers)] = row
                powers.append({"name": name, "stunts": stunts})
        sheet: dict[str, Any] = {
            key: values.get(key, "").strip() for key in ("name", "writer", "artist", "origin", "motivation", "costume")
        }
        sheet.update(
            base=values.get("base", ""),
            karma=values.get("karma", ""),
            heroism=values.get("heroism", ""),
            styles=styles,
            superpowers=powers,
            specialties=_lines(values.get("specialties", "")),
            complications=_lines(values.get("complications", "")),
            drawbacks=_lines(values.get("drawbacks", "")),
        )
        if problems:  # the engine's own problems are listed with the form's
            try:
                sheet_from_dict(sheet)
            except InvalidSheet as err:
                problems += err.problems
        names = list(styles)

        def field_of(problem: Problem) -> str:
            m = re.match(r"(styles|superpowers)\[(\d+)\]", problem.field)
            if m:
                rows = style_rows if m.group(1) == "styles" else power_rows
                return f"{'style' if m.group(1) == 'styles' else 'power'}_{rows.get(int(m.group(2)), 0)}"
            if problem.field.startswith("styles."):
                name = problem.field.split(".", 1)[1]
                return f"style_{names.index(name)}" if name in names else "styles"
            return problem.field

        return Read(sheet, problems, field_of)

    def command(self, cid: str, sheet: Any, *, owner: str | None, npc: bool, hidden: bool) -> Command:
        return CreateLtlCharacter(cid, sheet, owner=owner, npc=npc, hidden=hidden)

    def view(self, hero: Any) -> dict[str, Any]:
        return {"ltl": sheet_to_dict(hero.sheet), "sections": CREATION_SECTIONS}


class CvSheets:
    template = "cv_sheet.html"

    def context(self) -> dict[str, Any]:
        return {
            "skill_rows": CV_SKILL_ROWS,
            "virtues": SUGGESTED_VIRTUES,
            "vices": SUGGESTED_VICES,
            "cv_roles": [r.value for r in CvRole],
            "abilities": [a.value for a in Ability],
            "feats": catalogue().feats,
        }

    def keys(self) -> frozenset[str]:
        numbers = {f"abilities.{a.value}" for a in Ability} | {f"skill_{i}" for i in range(CV_SKILL_ROWS)}
        traits = {"level", "roles", "first_role", "toughness", "combat_bonus", "nature.virtue", "nature.vice"}
        return COMMON_KEYS | numbers | traits

    def read(self, values: Mapping[str, str], form: FormLike) -> Read:
        """The sheet as the engine reads it, which form row each listed skill came from; numbers that are not
        numbers are problems of their own."""
        roles = [str(r) for r in form.getlist("roles")]
        feats = [str(f) for f in form.getlist("feats")]
        uncounted = [str(f) for f in form.getlist("uncounted_feats") if str(f) in feats]
        problems: list[Problem] = []
        skill_rows: dict[int, int] = {}
        first = values.get("first_role", "")
        ordered = [first] if first in roles else []
        ordered += [r for r in roles if r != first]
        skills: list[tuple[str, int]] = []
        for row in range(CV_SKILL_ROWS):
            name = values.get(f"skill_name_{row}", "").strip()
            if name:
                skill_rows[len(skills)] = row
                skills.append((name, _int(values, f"skill_ranks_{row}", problems)))
        sheet = CvSheet(
            name=values.get("name", "").strip(),
            level=_int(values, "level", problems, 1),
            roles=tuple(CvRole(r) for r in ordered if r in {x.value for x in CvRole}),
            abilities=Abilities(**{a.value: _int(values, f"abilities.{a.value}", problems) for a in Ability}),
            toughness=_int(values, "toughness", problems),
            nature=Nature(values.get("nature.virtue", "").strip(), values.get("nature.vice", "").strip()),
            combat_bonus=_int(values, "combat_bonus", problems),
            skills=tuple(skills),
            feats=tuple(feats),
            uncounted_feats=tuple(uncounted),
        )

        def field_of(problem: Problem) -> str:
            m = re.match(r"(skills|feats)\[(\d+)\]", problem.field)
            if m and m.group(1) == "skills":
                return f"skill_{skill_rows.get(int(m.group(2)), 0)}"
            if m:
                index = int(m.group(2))
                return f"feat_{feats[index]}" if index < len(feats) else "feats"
            return problem.field.replace("skill_ranks_", "skill_")

        return Read(sheet, problems, field_of)

    def command(self, cid: str, sheet: Any, *, owner: str | None, npc: bool, hidden: bool) -> Command:
        return CreateCvCharacter(cid, sheet, owner=owner, npc=npc, hidden=hidden)

    def view(self, hero: Any) -> dict[str, Any]:
        return {}


EDITORS: dict[Ruleset, SheetEditor] = {Ruleset.LTL: LtlSheets(), Ruleset.CONVICTION: CvSheets()}


def editor_for(state: TableState) -> SheetEditor:
    return EDITORS[state.ruleset]
