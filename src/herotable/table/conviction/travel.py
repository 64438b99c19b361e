"""Conviction's characters as files (`herotable.table.travel`): the sheet as a player writes it, its level the one
reached in play (the rules' sheet carries the level, raised levels included, R-CV-2), and what play added beyond
it: the Conviction held, at most the level's maximum (R-CV-2). Points held above it, a setback's gift (R-CV-13),
stay in the campaign that gave them.

A character travels rested: conditions, this round's bookkeeping and a scene's effects stay behind."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from herotable.conviction.character import MAX_LEVEL, MIN_LEVEL, Character, conviction_maximum, sheet_problems
from herotable.conviction.character import Role as CvRole
from herotable.conviction.hero import Hero
from herotable.errors import Problem
from herotable.table.codec import CodecError, decode, encode
from herotable.table.conviction.commands import CvSheet
from herotable.table.conviction.decide import catalogue
from herotable.table.conviction.state import CvTable
from herotable.table.state import Ruleset
from herotable.table.travel import Travel, register_travel

ADVANCEMENT = ("conviction",)
SHEET_KEYS = tuple(f.name for f in dataclasses.fields(CvSheet))
TIPS = {  # a tip for each part of the sheet the rules may refuse (R-CV-2, R-CV-6)
    "name": "give the character a name",
    "level": f"give a level from {MIN_LEVEL} to {MAX_LEVEL}",
    "roles": "list one to three roles, each once: adept, expert, warrior; the first is the 1st-level role",
    "first_role": "put the 1st-level role first among the roles",
    "abilities": "write each ability as its modifier, from -5 to +10",
    "toughness": "write the Toughness bonus, from -5 to +25",
    "combat_bonus": "write a combat bonus from 0 to the level",
    "skills": 'list each skill once as ["Notice", ranks], ranks from 0 to the level + 3',
    "nature": "write one Virtue and one Vice",
    "feats": "take only feats of the catalogue, with what each requires",
    "uncounted_feats": "name only feats the sheet has taken",
}


def _tip(where: str) -> str:
    key = where.split(".", 1)[0].split("[", 1)[0]
    return TIPS.get(key, "correct it as the sheet's rules say (R-CV-2), or export the character again")


def _character(sheet: CvSheet, conviction: int) -> Character:
    roles = sheet.roles
    return Character(
        name=sheet.name.strip(),
        level=sheet.level,
        roles=roles,
        first_role=roles[0] if roles else CvRole.ADEPT,
        abilities=sheet.abilities,
        toughness=sheet.toughness,
        nature=sheet.nature,
        conviction=conviction,
        combat_bonus=sheet.combat_bonus,
        skills=sheet.skills,
        feats=sheet.feats,
        uncounted_feats=sheet.uncounted_feats,
    )


def _carried(table: CvTable, cid: str) -> tuple[dict[str, Any], dict[str, Any]]:
    c = table.hero(cid).sheet
    roles = (c.first_role, *(r for r in c.roles if r is not c.first_role))
    sheet = CvSheet(
        c.name, c.level, roles, c.abilities, c.toughness, c.nature, c.combat_bonus, c.skills, c.feats, c.uncounted_feats
    )
    data: dict[str, Any] = encode(sheet)
    return data, {"conviction": min(c.conviction, c.conviction_max)}


def _split(new: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    level = new.get("level", MIN_LEVEL)
    start = conviction_maximum(level) if type(level) is int and MIN_LEVEL <= level <= MAX_LEVEL else 0
    return dict(new), {"conviction": start}


def _problems(sheet: Mapping[str, Any], advancement: Mapping[str, Any]) -> list[Problem]:
    """Every problem of a file's character: its sheet by the rules and the feats catalogue (R-CV-2, R-CV-6), its
    Conviction within the level's maximum (R-CV-2)."""
    out = [
        Problem(f"sheet.{k}"[:80], "is not part of a Conviction sheet", "remove it")
        for k in sheet
        if k not in SHEET_KEYS
    ]
    out += [
        Problem(f"advancement.{k}"[:80], "is not something a character gains", f"keep to {', '.join(ADVANCEMENT)}")
        for k in advancement
        if k not in ADVANCEMENT
    ]
    try:
        read: CvSheet = decode(CvSheet, dict(sheet))
    except CodecError as err:
        where, _, said = str(err).partition(": ")
        field = where.removeprefix("$").removeprefix(".")
        return [*out, Problem(f"sheet.{field}" if field else "sheet", said or str(err), _tip(field))]
    points = advancement.get("conviction", 0)
    level_ok = MIN_LEVEL <= read.level <= MAX_LEVEL
    most = conviction_maximum(read.level) if level_ok else 0
    if type(points) is not int or not 0 <= points <= most:
        out.append(
            Problem(
                "advancement.conviction",
                f"{points!r} is not Conviction a level {read.level} character holds",
                f"give a whole number from 0 to {most}, the level's maximum",
            )
        )
        points = 0
    found = sheet_problems(_character(read, points), catalogue())
    return out + [Problem(f"sheet.{p.field}", p.message, _tip(p.field)) for p in found]


def _hero(sheet: Mapping[str, Any], advancement: Mapping[str, Any]) -> Hero:
    read: CvSheet = decode(CvSheet, dict(sheet))
    return Hero(_character(read, int(advancement.get("conviction", 0))))


def _gained(advancement: Mapping[str, Any]) -> str:
    return f"{int(advancement.get('conviction', 0))} Conviction held"


def _normal(sheet: Mapping[str, Any], advancement: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The checked sheet as the codec writes it, and the Conviction held."""
    recorded: dict[str, Any] = encode(decode(CvSheet, dict(sheet)))
    return recorded, {"conviction": int(advancement.get("conviction", 0))}


TRAVEL = Travel(_carried, _problems, _hero, _split, _gained, _normal)
register_travel(Ruleset.CONVICTION, TRAVEL)
