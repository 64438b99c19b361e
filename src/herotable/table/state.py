"""The state of one campaign at the table (R-T-1): the common core every game shares, and `game`, the state of
the campaign's game (the Larger Than Life or the Conviction table). Rebuilt by folding facts; frozen."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, NamedTuple

from herotable.errors import RulesError
from herotable.table.codec import TRANSIENT
from herotable.table.facts import Visibility


class Ruleset(str):
    """Which game a campaign plays, by the name its log records. The names are open, as python-chess's variants are:
    each game registers its own (`herotable.table.game.register`), and `LTL` and `CONVICTION` are the two built in.
    Compare with `==`: a ruleset read back from a log is equal to the constant, not the same object."""

    __slots__ = ()
    LTL: ClassVar[Ruleset]
    CONVICTION: ClassVar[Ruleset]

    def __new__(cls, name: str) -> Ruleset:
        if not isinstance(name, str) or not _RULESET.fullmatch(name):
            raise ValueError(f"{name!r} is not a game's name: lower-case letters, digits and underscores")
        return super().__new__(cls, name)

    @property
    def value(self) -> str:
        """The name as plain text, as the log and the API write it."""
        return str.__str__(self)

    def __repr__(self) -> str:
        return f"Ruleset({self.value!r})"


_RULESET = re.compile(r"[a-z][a-z0-9_]{0,31}")
Ruleset.LTL = Ruleset("ltl")
Ruleset.CONVICTION = Ruleset("conviction")


class Role(StrEnum):
    GM = "gm"
    PLAYER = "player"
    SPECTATOR = "spectator"


class TableError(RulesError):
    """A table action refused: unknown character, wrong moment, bad field."""

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
class CharacterRef:
    """A character at the table, whatever the game: who controls it, and whether its sheet is the GM's secret.
    The name is public even when the sheet is hidden."""

    id: str
    owner: str  # user id
    name: str
    npc: bool = False
    hidden: bool = False


@dataclass(frozen=True)
class Shelved:
    """A retired character: out of play, its sheet and its game state kept until it returns."""

    ref: CharacterRef
    hero: Any  # the game's hero as it left play (JSON, when read back from a snapshot)


@dataclass(frozen=True)
class Arrival:
    """A character brought from another campaign by a player, waiting for the GM's approval before it plays
    (`herotable.table.travel`): its player and the GM see it, and it cannot act. Its sheet and advancement are kept
    as the character file gave them."""

    ref: CharacterRef
    sheet: dict[str, Any]
    advancement: dict[str, Any]
    notes: str = ""


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
class OpenRequest:
    """A question for the GM's judgement, until answered. The asker and the GM see it."""

    id: str  # the command that asked it
    user: str
    kind: str
    text: str
    character: str | None = None


@dataclass(frozen=True)
class JournalEntry:
    """A journal entry as it stands: its text (Markdown), the digest of its image (or None), and who reads it
    besides the GM: everyone (every member, spectators and those who join later included), or the `readers` named."""

    id: str
    title: str
    body: str
    image: str | None = None
    everyone: bool = False
    readers: tuple[str, ...] = ()

    def read_by(self, state: TableState, user: str | None) -> bool:
        """Whether `user` may read this entry now."""
        role = state.role_of(user)
        if role is None:
            return False
        return role is Role.GM or self.everyone or user in self.readers

    @property
    def shown(self) -> bool:
        return self.everyone or bool(self.readers)


def unread_by(journal: tuple[JournalEntry, ...], user: str) -> tuple[JournalEntry, ...]:
    """The journal with `user` named as a reader of no entry: a member who leaves (or becomes the GM, who reads every
    entry anyway) reads nothing more by name, should they come back."""
    if not any(user in e.readers for e in journal):
        return journal
    return tuple(
        JournalEntry(e.id, e.title, e.body, e.image, e.everyone, tuple(r for r in e.readers if r != user))
        if user in e.readers
        else e
        for e in journal
    )


class Done(NamedTuple):
    """An action still in effect, newest last: what undo can reach (R-T-4). `commit` marks an action that rolled
    dice or acted on a roll; `reveals` the rolls it made public; `audience` who saw it."""

    command_id: str
    user: str
    type: str
    commit: bool = False
    reveals: tuple[str, ...] = ()
    audience: Visibility = Visibility.GM
    audience_owner: str | None = None
    audience_also: tuple[str, ...] = ()  # the other members an owner audience holds (a handout shown to several)


UNDO_DEPTH = 50
SCANNED_MEMBERS = 8  # up to this many members, one is found by looking through them; beyond, through an index
MEMBER_INDEXES = 1024  # member lists whose index is kept (a batch's states share their list): all dropped when full
_member_indexes: dict[int, tuple[tuple[Member, ...], dict[str, Member]]] = {}


def _members_by_user(members: tuple[Member, ...]) -> dict[str, Member]:
    """The members by user id (the first of each), made once per member list: the states a table goes through share
    their list until it changes, and a live batch asks each of 50 viewers' roles of each."""
    kept = _member_indexes.get(id(members))
    if kept is not None and kept[0] is members:  # the list itself, kept alive by the entry: not another at its id
        return kept[1]
    index: dict[str, Member] = {}
    for m in members:
        index.setdefault(m.user, m)
    if len(_member_indexes) >= MEMBER_INDEXES:
        _member_indexes.clear()
    _member_indexes[id(members)] = (members, index)
    return index


@dataclass(frozen=True)
class TableState:
    campaign_id: str
    name: str
    ruleset: Ruleset
    game: Any = None  # the game's own state; its class comes from the game registry
    members: tuple[Member, ...] = ()
    characters: tuple[CharacterRef, ...] = ()
    structure: Structure = field(default_factory=Structure)
    requests: tuple[OpenRequest, ...] = ()
    done: tuple[Done, ...] = ()
    # what each action in `done` can change, as it was before it (the game, the characters, the structure, the
    # requests): kept in memory only, so a state loaded from a snapshot folds an undo from the log's start
    befores: tuple[tuple[Any, ...] | None, ...] = field(default=(), compare=False, repr=False, metadata=TRANSIENT)
    undone: frozenset[str] = frozenset()  # commands an undo reversed (their facts stay in the log)
    # rolls a GM undo returned to pending after they were shown: marked revealed for good, whatever is undone later
    revealed: frozenset[str] = frozenset()
    seq: int = 0  # the last event folded
    last_command: str = ""  # the command of the last event folded
    archived: bool = False  # read-only until the GM brings it back
    notes: tuple[tuple[str, str], ...] = ()  # (character, notes): shown with the sheet, to whoever may read it
    retired: tuple[Shelved, ...] = ()  # characters out of play, kept as they were
    gone: tuple[tuple[str, str], ...] = ()  # (id, name) of deleted characters, whose facts the log still names
    journal: tuple[JournalEntry, ...] = ()  # the journal's entries, oldest first (`herotable.table.journal`)
    journal_made: int = 0  # entries ever written: a new one's number, never one used before
    private_notes: tuple[tuple[str, str], ...] = ()  # (character, notes) its player and the GM alone read
    arrivals: tuple[Arrival, ...] = ()  # characters brought from other campaigns, waiting for the GM's approval

    def member(self, user: str | None) -> Member | None:
        if not user:
            return None
        if len(self.members) <= SCANNED_MEMBERS:
            return next((m for m in self.members if m.user == user), None)
        return _members_by_user(self.members).get(user)

    def role_of(self, user: str | None) -> Role | None:
        m = self.member(user)
        return m.role if m else None

    def is_gm(self, user: str | None) -> bool:
        return self.role_of(user) is Role.GM

    @property
    def gm(self) -> str:
        return next((m.user for m in self.members if m.role is Role.GM), "")

    def character(self, cid: str) -> CharacterRef:
        """The character with this id. Raises TableError naming the characters there are."""
        for c in self.characters:
            if c.id == cid:
                return c
        raise TableError(
            "table/unknown_character",
            f"there is no character {cid!r} in this campaign",
            fix=f"use one of {', '.join(c.id for c in self.characters) or 'no characters yet'}",
        )

    def has_character(self, cid: str) -> bool:
        return any(c.id == cid for c in self.characters)

    def taken(self, cid: str) -> bool:
        """Whether a character id is in use: at the table, retired, deleted (the log still names it), or held by a
        character waiting for the GM's approval."""
        return (
            self.has_character(cid)
            or any(s.ref.id == cid for s in self.retired)
            or any(g == cid for g, _ in self.gone)
            or any(a.ref.id == cid for a in self.arrivals)
        )

    def names(self) -> dict[str, str]:
        """Display names of members (by user id) and characters (by id, retired and deleted ones too); a hidden NPC's
        name is public."""
        out = {m.user: m.name for m in self.members}
        out.update(self.gone)
        out.update({s.ref.id: s.ref.name for s in self.retired})
        out.update({c.id: c.name for c in self.characters})
        return out
