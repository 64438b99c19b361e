"""The Conviction table: every character in play, the pending checks, the Quotable Wit ledger, the exit bidding, and
who is in the scene, on which side and in what order (R-CV-1 … R-CV-14)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from herotable.conviction.character import Ability
from herotable.conviction.checks import Check
from herotable.conviction.exit_scene import ExitBid
from herotable.conviction.hero import Hero
from herotable.conviction.options import CampaignOptions
from herotable.conviction.quotable_wit import WitLedger
from herotable.conviction.rounds import Initiative
from herotable.table.kit import Roster


@dataclass(frozen=True)
class OpenCheck:
    """A pending check (R-CV-4): the roller's player and the GM see it; everyone once it is announced.
    `revealed`: a GM undo returned it to pending after it was announced (R-T-4)."""

    id: str  # the command that rolled it
    character: str
    check: Check
    secret: bool = False  # a GM roll that stays GM-only even when announced
    by_enemy: bool = True  # a Toughness save: the damage came from an enemy (R-CV-13, the GM's call)


@dataclass(frozen=True)
class CalledCheck:
    """A check the GM called for and the character's controller has yet to roll (R-T-3). The controller and the
    GM see it."""

    id: str  # the command that called it
    character: str
    label: str
    difficulty: int
    modifier: int = 0
    ability: Ability | None = None
    skill: str | None = None
    reason: str = ""  # why the modifier (R-T-2 amended)


@dataclass(frozen=True)
class CvTable(Roster[Hero]):
    game_title = "Conviction"

    options: CampaignOptions = field(default_factory=CampaignOptions)
    heroes: Mapping[str, Hero] = field(default_factory=dict)
    checks: tuple[OpenCheck, ...] = ()
    wits: WitLedger = field(default_factory=WitLedger)
    exit_bid: ExitBid | None = None
    left: tuple[str, ...] = ()  # characters who exited the running scene (R-CV-11)
    calls: tuple[CalledCheck, ...] = ()  # checks the GM called for, not yet rolled (R-T-3)
    absent: tuple[str, ...] = ()  # characters the GM set out of the running scene; everyone else is in it (R-CV-14)
    sides: Mapping[str, str] = field(default_factory=dict)  # the GM's sides; the rest: heroes against NPCs (R-CV-14)
    order: tuple[str, ...] = ()  # the initiative order of the running rounds, first to act first (R-CV-14)
    initiative: Mapping[str, int] = field(default_factory=dict)  # the totals rolled for that order (R-CV-14)
    # initiative rolled for a new round and still pending for its rollers, who may re-roll it with Conviction, until
    # the GM begins the first turn; listed as the GM named the characters, for ties (R-CV-4 amended, R-CV-14)
    initiative_rolls: tuple[tuple[str, Initiative], ...] = ()

    def present(self, cid: str) -> bool:
        """Whether the character is in the scene: not set out of it by the GM, and not exited (R-CV-11, R-CV-14)."""
        return cid not in self.absent and cid not in self.left

    def named(self, name: str) -> str:
        """The id of the character with this name (the rules know characters by name)."""
        return next(cid for cid, h in self.heroes.items() if h.name == name)
