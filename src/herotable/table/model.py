"""The state of one campaign at the table, rebuilt from its events (R-T-1)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TypeVar

from herotable.conviction.checks import Check
from herotable.conviction.exit_scene import ExitBid
from herotable.conviction.hero import Hero as CvHero
from herotable.conviction.options import CampaignOptions
from herotable.conviction.quotable_wit import WitLedger
from herotable.errors import RulesError
from herotable.ltl.conflict import Conflict
from herotable.ltl.hero import Hero
from herotable.ltl.options import LtlOptions
from herotable.ltl.task import Task


class Ruleset(StrEnum):
    LTL = "ltl"
    CONVICTION = "conviction"


class Role(StrEnum):
    GM = "gm"
    PLAYER = "player"
    SPECTATOR = "spectator"


class Visibility(StrEnum):
    """Who may see an event or a piece of state: everyone, its owner (and the GM), or the GM only."""

    PUBLIC = "public"
    OWNER = "owner"
    GM = "gm"


class TableError(RulesError):
    """A table action refused: unknown character, wrong moment, not allowed for this member."""

    def __init__(self, code: str, message: str, *, fix: str, ruling: str = "R-T-1") -> None:
        super().__init__(code, message, ruling=ruling, fix=fix)


class Forbidden(TableError):
    """The member may not start this action (permissions, not rules)."""


@dataclass(frozen=True)
class Member:
    user: str
    name: str
    role: Role


@dataclass(frozen=True)
class LtlCharacter:
    """A Larger Than Life character at the table: a player's hero, or the GM's NPC or villain."""

    id: str
    owner: str  # user id
    hero: Hero
    npc: bool = False
    hidden: bool = False  # the sheet is shown to the GM only (the name is public)


@dataclass(frozen=True)
class CvCharacter:
    """A Conviction character at the table: a player's hero, or the GM's NPC or villain."""

    id: str
    owner: str  # user id
    hero: CvHero
    npc: bool = False
    hidden: bool = False  # the sheet is shown to the GM only (the name is public)


@dataclass(frozen=True)
class Structure:
    """Where the campaign is (R-T-1): adventure, game session and scene counters, and what is open."""

    adventure: int = 0
    session: int = 0
    scene: int = 0
    in_adventure: bool = False
    in_session: bool = False
    in_scene: bool = False
    dramatic: bool = False


@dataclass(frozen=True)
class OpenTask:
    """A rolled task not yet settled: the roller and the GM see it; everyone else sees it once settled."""

    id: str  # the command that rolled it
    character: str
    owner: str
    task: Task
    purpose: str = "challenge"  # challenge | karma | stunt | last_chance
    secret: bool = False  # a GM roll that stays GM-only even when settled
    detail: str = ""  # e.g. the stunt's "Power: stunt"


@dataclass(frozen=True)
class OpenCheck:
    """A pending Conviction check (R-CV-4): the roller and the GM see it; everyone else once it is announced."""

    id: str  # the command that rolled it
    character: str
    owner: str
    check: Check
    secret: bool = False  # a GM roll that stays GM-only even when announced
    by_enemy: bool = True  # a Toughness save: the damage came from an enemy (R-CV-13, the GM's call)


@dataclass(frozen=True)
class FailedTask:
    """The last settled must-succeed task a character failed: what Last Chance follows (R-LTL-10)."""

    character: str
    task: Task
    outcome: str
    secret: bool = False  # a GM secret roll: its failure is the GM's to know


@dataclass(frozen=True)
class OpenRequest:
    """A question for the GM's judgement (a difficulty, a Deus Ex Machina cost, a Last Chance), until answered."""

    id: str  # the command that asked it
    user: str  # who asked; they and the GM see it
    kind: str
    text: str
    character: str | None = None


@dataclass(frozen=True)
class Done:
    """A command that took effect: who issued it and whether it rolled dice (a commit point for players)."""

    command_id: str
    user: str
    name: str
    rolled: bool


UNDO_DEPTH = 50


@dataclass(frozen=True)
class TableState:
    campaign_id: str
    name: str
    ruleset: Ruleset
    members: tuple[Member, ...] = ()
    ltl_options: LtlOptions = field(default_factory=LtlOptions)
    characters: tuple[LtlCharacter, ...] = ()
    structure: Structure = field(default_factory=Structure)
    conflict: Conflict | None = None
    tasks: tuple[OpenTask, ...] = ()
    failed: tuple[FailedTask, ...] = ()
    done: tuple[Done, ...] = ()  # the most recent commands, newest last: what undo can reach
    seq: int = 0
    cv_characters: tuple[CvCharacter, ...] = ()
    cv_options: CampaignOptions = field(default_factory=CampaignOptions)
    wits: WitLedger = field(default_factory=WitLedger)
    exit_bid: ExitBid | None = None
    checks: tuple[OpenCheck, ...] = ()  # pending Conviction checks
    requests: tuple[OpenRequest, ...] = ()  # questions waiting for the GM's answer

    def member(self, user: str) -> Member | None:
        return next((m for m in self.members if m.user == user), None)

    def role_of(self, user: str) -> Role | None:
        m = self.member(user)
        return m.role if m else None

    def is_gm(self, user: str) -> bool:
        return self.role_of(user) is Role.GM

    def character(self, cid: str) -> LtlCharacter:
        for c in self.characters:
            if c.id == cid:
                return c
        raise TableError(
            "table/unknown_character",
            f"there is no character {cid!r} in this campaign",
            fix=f"use one of {', '.join(c.id for c in self.characters) or 'no characters yet'}",
        )

    def hero(self, cid: str) -> Hero:
        """The character's hero now: inside the conflict while it fights, else on the roster."""
        if self.conflict is not None and any(f.id == cid for f in self.conflict.fighters):
            return self.conflict.fighter(cid).hero
        return self.character(cid).hero

    def with_hero(self, cid: str, hero: Hero) -> TableState:
        if self.conflict is not None and any(f.id == cid for f in self.conflict.fighters):
            return replace(self, conflict=self.conflict.with_hero(cid, hero))
        chars = tuple(replace(c, hero=hero) if c.id == cid else c for c in self.characters)
        return replace(self, characters=chars)

    def task(self, task_id: str | None = None) -> OpenTask:
        """The open task with this id, or the only open one."""
        return _pick(self.tasks, task_id, "open roll", "settle or name one of the open rolls", "table/no_task", "R-T-1")

    def cv_character(self, cid: str) -> CvCharacter:
        for c in self.cv_characters:
            if c.id == cid:
                return c
        raise TableError(
            "table/unknown_character",
            f"there is no Conviction character {cid!r} in this campaign",
            fix=f"use one of {', '.join(c.id for c in self.cv_characters) or 'no characters yet'}",
        )

    def cv_hero(self, cid: str) -> CvHero:
        return self.cv_character(cid).hero

    def with_cv_hero(self, cid: str, hero: CvHero) -> TableState:
        self.cv_character(cid)
        chars = tuple(replace(c, hero=hero) if c.id == cid else c for c in self.cv_characters)
        return replace(self, cv_characters=chars)

    def cv_check(self, check_id: str | None = None) -> OpenCheck:
        """The pending Conviction check with this id, or the only pending one."""
        return _pick(
            self.checks,
            check_id,
            "pending check",
            "announce or name one of the pending checks",
            "table/no_check",
            "R-CV-4",
        )


_Pending = TypeVar("_Pending", OpenTask, OpenCheck)


def _pick(items: tuple[_Pending, ...], wanted: str | None, what: str, fix: str, code: str, ruling: str) -> _Pending:
    """The item with this id, or the only one when no id is given. Raises TableError naming the choices."""
    if wanted is None and len(items) == 1:
        return items[0]
    for item in items:
        if item.id == wanted:
            return item
    message = f"no such {what}" if wanted else f"{len(items)} of them are open; say which {what}"
    raise TableError(code, message, fix=f"{fix}: " + (", ".join(i.id for i in items) or "none"), ruling=ruling)
