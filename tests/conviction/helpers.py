"""Builders for Conviction tests: a valid sheet with sensible numbers, changed field by field."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from herotable.conviction import Abilities, Character, Conditions, Hero, Nature, Role, start_round


def make_sheet(**changes: Any) -> Character:
    base = Character(
        name="Kestrel",
        level=1,
        roles=(Role.WARRIOR,),
        first_role=Role.WARRIOR,
        abilities=Abilities(strength=2, dexterity=1, constitution=1, intelligence=0, wisdom=1, charisma=1),
        toughness=2,
        nature=Nature(virtue="Loyal", vice="Reckless"),
        conviction=3,
        combat_bonus=1,
        skills=(("Notice", 4), ("Diplomacy", 2)),
        feats=(),
    )
    return replace(base, **changes)


def make_hero(conditions: Conditions | None = None, **changes: Any) -> Hero:
    """A hero at the start of round 1."""
    return start_round(Hero(make_sheet(**changes), conditions=conditions or Conditions()))
