"""Larger Than Life's part in editing and retiring sheets (`herotable.table.sheet_edits`): the descriptive fields of
a hero sheet (R-LTL-19), and when a hero is too busy to leave play."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from herotable.ltl.hero import Hero
from herotable.table.codec import decode_as, evolved
from herotable.table.ltl.state import LtlTable
from herotable.table.sheet_edits import SheetParts, register_parts
from herotable.table.state import Ruleset

DETAILS = (
    ("writer", "Writer"),
    ("artist", "Artist"),
    ("origin", "Origin"),
    ("motivation", "Motivation"),
    ("costume", "Costume"),
)


def _current(table: LtlTable, cid: str) -> dict[str, str]:
    sheet = table.hero(cid).sheet
    return {key: str(getattr(sheet, key)) for key, _ in DETAILS}


def _describe(table: LtlTable, cid: str, name: str | None, details: Mapping[str, str]) -> LtlTable:
    hero = table.hero(cid)
    sheet = evolved(hero.sheet, **dict(details), **({"name": name} if name is not None else {}))
    return table.with_hero(cid, evolved(hero, sheet=sheet))


def _engaged(table: LtlTable, cid: str) -> str | None:
    """Why the hero cannot leave play now: a roll open or called for, a conflict, a contest or a team task."""
    if table.conflict is not None and any(f.id == cid for f in table.conflict.fighters):
        return "they are in the running conflict"
    if any(t.character == cid for t in table.tasks):
        return "they have a roll open"
    if any(c.character == cid for c in table.calls):
        return "the GM has called for a roll from them"
    contest = table.contest
    if contest is not None and (cid in contest.waiting or any(p == cid for p, _ in contest.entries)):
        return "they are in an open contest"
    team = table.team
    if team is not None and (cid in team.members or team.target == cid):
        return "they are in a team task"
    return None


def _shelve(table: LtlTable, cid: str) -> tuple[LtlTable, Any]:
    hero = table.hero(cid)
    kept = evolved(
        table,
        heroes={k: h for k, h in table.heroes.items() if k != cid},
        failed=tuple(f for f in table.failed if f.character != cid),
        recovery=tuple(r for r in table.recovery if r.character != cid),
    )
    return kept, hero


def _unshelve(table: LtlTable, cid: str, data: Any) -> LtlTable:
    return table.with_hero(cid, data if isinstance(data, Hero) else decode_as(Hero, data))  # a snapshot's: JSON


PARTS = SheetParts(DETAILS, _current, _describe, _engaged, _shelve, _unshelve)
register_parts(Ruleset.LTL, PARTS)
