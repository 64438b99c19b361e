"""Conviction's part in editing and retiring sheets (`herotable.table.sheet_edits`): a character's Nature is its
descriptive part, and when a character is too busy to leave play."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from herotable.conviction.character import Nature
from herotable.conviction.hero import Hero
from herotable.table.codec import decode_as, evolved
from herotable.table.conviction.state import CvTable
from herotable.table.sheet_edits import SheetParts, register_parts
from herotable.table.state import Ruleset

DETAILS = (("virtue", "Virtue (Nature)"), ("vice", "Vice (Nature)"))


def _current(table: CvTable, cid: str) -> dict[str, str]:
    nature = table.hero(cid).sheet.nature
    return {"virtue": nature.virtue, "vice": nature.vice}


def _describe(table: CvTable, cid: str, name: str | None, details: Mapping[str, str]) -> CvTable:
    hero = table.hero(cid)
    sheet = hero.sheet
    nature = Nature(details.get("virtue", sheet.nature.virtue), details.get("vice", sheet.nature.vice))
    sheet = evolved(sheet, nature=nature, **({"name": name} if name is not None else {}))
    table = table.with_hero(cid, evolved(hero, sheet=sheet))
    if name is None or name == hero.name:
        return table
    # the Quotable Wits know their speakers and listeners by name (R-CV-12): they follow the new one
    old = hero.name

    def renamed(who: str) -> str:
        return name if who == old else who

    wits = tuple(
        evolved(
            w,
            speaker=renamed(w.speaker),
            designated_by=renamed(w.designated_by),
            heard_by=frozenset(renamed(h) for h in w.heard_by),
            used_by=renamed(w.used_by) if w.used_by is not None else None,
        )
        for w in table.wits.wits
    )
    return evolved(table, wits=evolved(table.wits, wits=wits))


def _engaged(table: CvTable, cid: str) -> str | None:
    """Why the character cannot leave play now: a check pending or called for, an exit being bid on, the rounds."""
    if any(c.character == cid for c in table.checks):
        return "they have a check pending"
    if any(c.character == cid for c in table.calls):
        return "the GM has called for a check from them"
    bid, name = table.exit_bid, table.hero(cid).name  # an exit bid knows its sides by name
    if bid is not None and (bid.leaver == name or any(p == name for p, _ in bid.interference)):
        return "an exit they are part of is being bid on"
    if cid in table.order or any(c == cid for c, _ in table.initiative_rolls):
        return "they are in the running rounds"
    return None


def _shelve(table: CvTable, cid: str) -> tuple[CvTable, Any]:
    hero = table.hero(cid)
    kept = evolved(
        table,
        heroes={k: h for k, h in table.heroes.items() if k != cid},
        left=tuple(c for c in table.left if c != cid),
        absent=tuple(c for c in table.absent if c != cid),
        sides={k: v for k, v in table.sides.items() if k != cid},
        initiative={k: v for k, v in table.initiative.items() if k != cid},
    )
    return kept, hero


def _unshelve(table: CvTable, cid: str, data: Any) -> CvTable:
    return table.with_hero(cid, data if isinstance(data, Hero) else decode_as(Hero, data))  # a snapshot's: JSON


PARTS = SheetParts(
    DETAILS,
    _current,
    _describe,
    _engaged,
    _shelve,
    _unshelve,
    required=True,
    unique_names=True,
    name_held=_engaged,  # a pending check, a call, a bid or the rounds know the character by its name
)
register_parts(Ruleset.CONVICTION, PARTS)
