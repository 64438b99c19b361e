"""Larger Than Life's characters as files (`herotable.table.travel`): the sheet as a player writes it (R-LTL-19),
and what play added beyond it: the Hero Points held, the history of every improvement bought with them (the sheet's
ratings already show them, R-LTL-16), and the stunts pulled off with Karma, which cost less to learn (R-LTL-10).

A hero travels rested: losses, burned Karma and Heroism, tokens and what a scene or a conflict left on it stay in
the campaign it leaves, as the end of an adventure would clear them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from herotable.errors import InvalidSheet, Problem
from herotable.ltl.advancement import KARMA_COST
from herotable.ltl.hero import Hero
from herotable.ltl.sheet import sheet_from_dict, sheet_to_dict, stored_sheet
from herotable.table.commands import NAME_LENGTH
from herotable.table.ltl.commands import Improvement
from herotable.table.ltl.state import LtlTable
from herotable.table.state import Ruleset
from herotable.table.travel import Travel, register_travel

ADVANCEMENT = ("hero_points", "history", "stunts")
MOST_HERO_POINTS = 1000  # far beyond what a long campaign awards (R-LTL-16): a file past it was edited
MOST_SPENDS = 200
MOST_STUNTS = 100
MOST_COST = 2 * KARMA_COST  # the dearest improvement: Karma from d12 to d20, two levels (R-LTL-1, R-LTL-16)
SPEND_KEYS = ("improvement", "target", "cost", "before", "after")
DICE = "d4, d6, d8, d10, d12 or d20"
TIPS = {  # a tip for each part of the sheet the rules may refuse
    "name": "give the hero a name",
    "base": f"write base Power as a die: {DICE}",
    "karma": f"write Karma as a die: {DICE}",
    "heroism": f"write Heroism as a die: {DICE}",
    "styles": f'write each Style as a die at or above base Power, like {{"Wits": "d12"}}: {DICE}',
    "superpowers": 'list each Superpower once, like {"name": "Flight", "stunts": ["Loop"]}',
    "drawbacks": "keep at most one Drawback",
    "specialties": "list the Specialties as text",
    "complications": "list the Complications as text",
}


def _tip(where: str) -> str:
    key = where.split(".", 1)[0].split("[", 1)[0]
    return TIPS.get(key, "correct it as the hero sheet's rules say (R-LTL-19), or export the hero again")


def _carried(table: LtlTable, cid: str) -> tuple[dict[str, Any], dict[str, Any]]:
    hero = table.hero(cid)
    sheet, advancement = _split(sheet_to_dict(hero.sheet))
    return sheet, {**advancement, "stunts": list(hero.stunts_pulled_off)}


def _split(new: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    sheet = {k: v for k, v in new.items() if k not in ("hero_points", "history")}
    return sheet, {"hero_points": new.get("hero_points", 0), "history": list(new.get("history", [])), "stunts": []}


def _whole(sheet: Mapping[str, Any], advancement: Mapping[str, Any]) -> dict[str, Any]:
    """The rules' sheet: the file's sheet with the Hero Points and their history it holds (R-LTL-19)."""
    return {**sheet, "hero_points": advancement.get("hero_points", 0), "history": advancement.get("history", [])}


def _spend_problems(history: Any, out: list[Problem]) -> None:
    if not isinstance(history, list) or len(history) > MOST_SPENDS:
        out.append(
            Problem("advancement.history", f"must be a list of at most {MOST_SPENDS} spends", "export the hero again")
        )
        return
    kinds = ", ".join(i.value for i in Improvement)
    for i, spend in enumerate(history):
        where = f"advancement.history[{i}]"
        if not isinstance(spend, dict) or set(spend) != set(SPEND_KEYS):
            out.append(Problem(where, f"must have exactly {', '.join(SPEND_KEYS)}", "export the hero again"))
            continue
        if spend["improvement"] not in {i.value for i in Improvement}:
            out.append(Problem(f"{where}.improvement", f"{spend['improvement']!r} is not an improvement", kinds))
        cost = spend["cost"]
        if type(cost) is not int or not 1 <= cost <= MOST_COST:
            out.append(Problem(f"{where}.cost", f"{cost!r} is no price of an improvement", f"1 to {MOST_COST}"))
        for key in ("target", "before", "after"):
            text = spend[key]
            if not isinstance(text, str) or len(text) > 2 * NAME_LENGTH:
                out.append(Problem(f"{where}.{key}", "must be text", "export the hero again"))


def _stunt_problems(stunts: Any, powers: set[str], out: list[Problem]) -> None:
    if not isinstance(stunts, list) or len(stunts) > MOST_STUNTS:
        out.append(
            Problem("advancement.stunts", f"must be a list of at most {MOST_STUNTS} stunts", "export the hero again")
        )
        return
    seen: set[str] = set()
    for i, entry in enumerate(stunts):
        where = f"advancement.stunts[{i}]"
        power, sep, stunt = entry.partition(": ") if isinstance(entry, str) else ("", "", "")
        if not sep or not stunt.strip():
            out.append(Problem(where, "must name a Superpower and the stunt", 'write it like "Flight: Loop"'))
        elif power.strip().casefold() not in powers:
            out.append(
                Problem(
                    where, f"names {power!r}, which is not among the hero's Superpowers", "add the Power or drop it"
                )
            )
        elif entry.casefold() in seen:
            out.append(Problem(where, f"{entry!r} is listed twice", "list each stunt once"))
        seen.add(str(entry).casefold())


def _problems(sheet: Mapping[str, Any], advancement: Mapping[str, Any]) -> list[Problem]:
    """Every problem of a file's hero: its sheet by the rules (R-LTL-19), its advancement by its ranges (R-LTL-16)."""
    out = [
        Problem(f"sheet.{k}", "is what play added, not part of the sheet", f"move it to advancement.{k}")
        for k in ("hero_points", "history")
        if k in sheet
    ]
    out += [
        Problem(f"advancement.{k}"[:80], "is not something a hero gains", f"keep to {', '.join(ADVANCEMENT)}")
        for k in advancement
        if k not in ADVANCEMENT
    ]
    points = advancement.get("hero_points", 0)
    if type(points) is not int or not 0 <= points <= MOST_HERO_POINTS:
        out.append(
            Problem(
                "advancement.hero_points",
                f"{points!r} is not a number of Hero Points a hero holds",
                f"give a whole number from 0 to {MOST_HERO_POINTS}",
            )
        )
        points = 0
    before = len(out)
    _spend_problems(advancement.get("history", []), out)
    history = advancement.get("history", []) if len(out) == before else []
    ruled = {k: v for k, v in sheet.items() if k not in ("hero_points", "history")}
    try:  # the rules read the sheet with the points and history it holds (whatever of them is sound)
        hero = sheet_from_dict(_whole(ruled, {"hero_points": points, "history": history}))
    except InvalidSheet as refused:
        return out + [Problem(f"sheet.{p.field}", p.message, _tip(p.field)) for p in refused.problems]
    _stunt_problems(advancement.get("stunts", []), {p.name.strip().casefold() for p in hero.superpowers}, out)
    return out


def _hero(sheet: Mapping[str, Any], advancement: Mapping[str, Any]) -> Hero:
    hero = Hero.from_sheet(stored_sheet(_whole(sheet, advancement)))
    stunts = tuple(str(s) for s in advancement.get("stunts", ()))
    return Hero(hero.sheet, hero.karma, hero.heroism, stunts_pulled_off=stunts)


def _gained(advancement: Mapping[str, Any]) -> str:
    points = int(advancement.get("hero_points", 0))
    spends, stunts = len(advancement.get("history", ())), len(advancement.get("stunts", ()))
    said = [f"{points} Hero Point{'' if points == 1 else 's'} held"]
    if spends:
        said.append(f"{spends} improvement{'' if spends == 1 else 's'} bought")
    if stunts:
        said.append(f"{stunts} stunt{'' if stunts == 1 else 's'} pulled off with Karma")
    return ", ".join(said)


def _normal(sheet: Mapping[str, Any], advancement: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The checked sheet as the create command records it (`sheet_to_dict`), its points and history apart."""
    recorded, gained = _split(sheet_to_dict(sheet_from_dict(_whole(sheet, advancement))))
    return recorded, {**gained, "stunts": [str(s) for s in advancement.get("stunts", ())]}


TRAVEL = Travel(_carried, _problems, _hero, _split, _gained, _normal)
register_travel(Ruleset.LTL, TRAVEL)
