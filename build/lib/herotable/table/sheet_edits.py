"""Sheets after creation: a character's descriptive parts edited, a character retired (and brought back) or deleted.

Only what describes a character changes by an edit: its name, its notes, and the descriptive fields its game names
(Larger Than Life: writer, artist, Origin, Motivation, Costume; Conviction: Nature). Ratings change only through the
rules (Hero Points, a level gained) or a logged GM override. A player edits their own characters between scenes; the
GM edits any character at any time. Each edit is a fact in the log.

Retiring takes a character out of play and keeps it as it was, to come back later; deleting removes it from the
table for good. The log keeps what either did, and still names it. Neither is allowed while the character has a
roll open or is in a running conflict (its game says when: `SheetParts.engaged`).

None of these is an action that undo reaches (R-T-4): like a membership change, each is a line undo does not cross.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

from herotable.table.campaign_settings import refuse_if_archived
from herotable.table.codec import evolved
from herotable.table.commands import (
    NAME_LENGTH,
    PROSE_LENGTH,
    Command,
    Ctx,
    Decision,
    Text,
    audience,
    handles,
    require_player,
)
from herotable.table.core import evolves
from herotable.table.facts import Emitted, Fact, Visibility, fact
from herotable.table.game import Domain, KeyedValues, LegalAction, TextDomain
from herotable.table.state import CharacterRef, Forbidden, Role, Ruleset, Shelved, TableError, TableState

RULE = "R-T-2"
PORTRAIT = "character.portrait"  # setting or removing a portrait: no command, but refused like one when archived


@dataclass(frozen=True)
class SheetParts:
    """What a game tells the table about its sheets: the descriptive fields besides the name (key, label), how an
    edit changes its table, why a character cannot leave play now, and how a character leaves and comes back."""

    details: tuple[tuple[str, str], ...]
    current: Callable[[Any, str], dict[str, str]]  # (game table, id) → the descriptive fields now, by key
    describe: Callable[[Any, str, str | None, Mapping[str, str]], Any]  # (game table, id, name, details) → table
    engaged: Callable[[Any, str], str | None]  # why the character cannot leave play now, or None
    shelve: Callable[[Any, str], tuple[Any, Any]]  # (table without the character, the character as JSON)
    unshelve: Callable[[Any, str, Any], Any]  # the table with the character back from its JSON
    required: bool = False  # the descriptive fields may not be blank
    unique_names: bool = False  # the game's rules know characters by name: no two alike (ignoring case and spacing)
    name_held: Callable[[Any, str], str | None] | None = None  # why the character's name cannot change now

    def labels(self) -> dict[str, str]:
        return dict(self.details)


PARTS: dict[Ruleset, SheetParts] = {}


def register_parts(ruleset: Ruleset, parts: SheetParts) -> None:
    """A game's sheet parts (each game's package registers its own)."""
    if ruleset in PARTS:
        raise ValueError(f"sheet parts of {ruleset} registered twice")
    PARTS[ruleset] = parts


def parts_of(state: TableState) -> SheetParts:
    return PARTS[state.ruleset]


# --- facts ---


@fact
@dataclass(frozen=True)
class CharacterEdited(Fact):
    """A character's descriptive parts, as edited: only what changed (`name` None: the name stayed)."""

    type = "character.edited"
    character: str
    name: str | None = None
    notes: str | None = None
    details: dict[str, str] = field(default_factory=dict)


@fact
@dataclass(frozen=True)
class CharacterRetired(Fact):
    """A character left play, kept as it was (`retired`), or came back (not `retired`)."""

    type = "character.retired"
    character: str
    retired: bool = True


@fact
@dataclass(frozen=True)
class CharacterDeleted(Fact):
    """A character was removed from the table for good; `name` is what the log still calls it."""

    type = "character.deleted"
    character: str
    name: str


def notes_of(state: TableState, cid: str) -> str:
    return next((text for c, text in state.notes if c == cid), "")


def shelved(state: TableState, cid: str) -> Shelved | None:
    return next((s for s in state.retired if s.ref.id == cid), None)


@evolves(CharacterEdited)
def _edited(state: TableState, f: CharacterEdited) -> TableState:
    changes: dict[str, Any] = {"done": (), "befores": ()}
    if f.name is not None:
        changes["characters"] = tuple(evolved(c, name=f.name) if c.id == f.character else c for c in state.characters)
    if f.name is not None or f.details:
        changes["game"] = parts_of(state).describe(state.game, f.character, f.name, f.details)
    if f.notes is not None:
        kept = tuple((c, text) for c, text in state.notes if c != f.character)
        changes["notes"] = (*kept, (f.character, f.notes)) if f.notes else kept
    return evolved(state, **changes)


@evolves(CharacterRetired)
def _retired(state: TableState, f: CharacterRetired) -> TableState:
    parts = parts_of(state)
    if f.retired:
        ref = state.character(f.character)
        game, hero = parts.shelve(state.game, f.character)
        return evolved(
            state,
            game=game,
            characters=tuple(c for c in state.characters if c.id != f.character),
            retired=(*state.retired, Shelved(ref, hero)),
            done=(),
            befores=(),
        )
    found = shelved(state, f.character)
    assert found is not None, f"{f.character} is not retired"
    ref = found.ref
    if state.member(ref.owner) is None:  # its player left meanwhile: their characters pass to the GM
        ref = evolved(ref, owner=state.gm)
    return evolved(
        state,
        game=parts.unshelve(state.game, f.character, found.hero),
        characters=(*state.characters, ref),
        retired=tuple(s for s in state.retired if s.ref.id != f.character),
        done=(),
        befores=(),
    )


@evolves(CharacterDeleted)
def _deleted(state: TableState, f: CharacterDeleted) -> TableState:
    game = state.game
    if state.has_character(f.character):
        game, _ = parts_of(state).shelve(game, f.character)
    return evolved(
        state,
        game=game,
        characters=tuple(c for c in state.characters if c.id != f.character),
        retired=tuple(s for s in state.retired if s.ref.id != f.character),
        notes=tuple((c, text) for c, text in state.notes if c != f.character),
        gone=(*state.gone, (f.character, f.name)),
        done=(),
        befores=(),
    )


# --- commands ---


@dataclass(frozen=True)
class EditCharacter(Command):
    """Set a character's descriptive parts, all of them, as a sheet form does: its name, its notes, and the
    descriptive fields of its game's sheet (`details`, by key; a key left out is blank). What did not change is
    not recorded."""

    type = "character.edit"
    character: Annotated[str, Text(NAME_LENGTH, required=True)]
    name: Annotated[str, Text(NAME_LENGTH, required=True)]
    notes: Annotated[str, Text(PROSE_LENGTH)] = ""
    details: Annotated[dict[str, str], Text(PROSE_LENGTH)] = field(default_factory=dict)


@dataclass(frozen=True)
class RetireCharacter(Command):
    """Take a character out of play, kept as it is."""

    type = "character.retire"
    character: Annotated[str, Text(NAME_LENGTH, required=True)]


@dataclass(frozen=True)
class ReturnCharacter(Command):
    """Bring a retired character back into play, as it was."""

    type = "character.return"
    character: Annotated[str, Text(NAME_LENGTH, required=True)]


@dataclass(frozen=True)
class DeleteCharacter(Command):
    """Remove a character (in play or retired) from the table for good; the log keeps what it did."""

    type = "character.delete"
    character: Annotated[str, Text(NAME_LENGTH, required=True)]


def may_change(state: TableState, user: str, owner: str | None) -> bool:
    """Whether `user` may change a character of `owner`: its player or the GM."""
    return state.is_gm(user) or (owner == user and state.role_of(user) is Role.PLAYER)


def _may_change(state: TableState, user: str, ref: CharacterRef, what: str) -> None:
    """Its player or the GM may change a character. Raises Forbidden."""
    require_player(state, user)
    if not (state.is_gm(user) or ref.owner == user):
        raise Forbidden(
            "character/not_yours", f"{ref.name} is not your character: you may not {what} it", fix="ask its player"
        )


def check_portrait_change(state: TableState, user: str, cid: str) -> CharacterRef:
    """`user` may set or remove the portrait of character `cid` (in play): as with its sheet, its player or the GM;
    not in an archived campaign. A portrait is kept beside the log, not as a fact, and changes nothing in play, so
    it may change during a scene. Raises Forbidden, TableError."""
    refuse_if_archived(state, PORTRAIT)
    ref = state.character(cid)
    _may_change(state, user, ref, "change the portrait of")
    return ref


def _free(state: TableState, cid: str, what: str) -> None:
    """The character may leave play now: no open roll, no running conflict (its game says). Raises TableError."""
    why = parts_of(state).engaged(state.game, cid)
    if why:
        raise TableError(
            "character/engaged",
            f"{state.character(cid).name} cannot be {what} now: {why}",
            fix="settle the roll or end the conflict first",
            ruling=RULE,
        )


@handles(EditCharacter)
def _edit(state: TableState, cmd: EditCharacter, ctx: Ctx) -> Decision:
    ref = state.character(cmd.character)
    _may_change(state, ctx.user, ref, "edit")
    if state.structure.in_scene and not state.is_gm(ctx.user):
        raise TableError(
            "character/in_scene",
            "a player edits a sheet between scenes, not during one",
            fix="edit it when the GM has ended the scene",
            ruling=RULE,
        )
    parts = parts_of(state)
    labels = parts.labels()
    unknown = sorted(k for k in cmd.details if k not in labels)
    if unknown:
        raise TableError(
            "character/not_descriptive",
            f"{unknown[0]!r} is not a descriptive part of this game's sheet; ratings change only through the rules "
            "or a GM override",
            fix=f"edit only {', '.join(labels)} (with the name and notes)",
            ruling=RULE,
        )
    given = {key: cmd.details.get(key, "").strip() for key in labels}
    blank = [k for k, v in given.items() if parts.required and not v]
    if blank:
        raise TableError(
            "character/blank",
            f"{labels[blank[0]]} cannot be blank on this game's sheet",
            fix=f"write the {labels[blank[0]]}",
            ruling=RULE,
        )
    current = descriptive(state, cmd.character)
    name, notes = cmd.name.strip(), cmd.notes.strip()
    if name != ref.name:
        _check_rename(state, cmd.character, name)
    changed = CharacterEdited(
        cmd.character,
        name if name != ref.name else None,
        notes if notes != notes_of(state, cmd.character) else None,
        {k: v for k, v in given.items() if v != current.get(k, "")},
    )
    if ref.hidden and changed.name is not None and (changed.notes is not None or changed.details):
        # the name of a hidden NPC is public; the rest of its sheet is the GM's
        return Decision(
            [
                Emitted(CharacterEdited(cmd.character, changed.name)),
                Emitted(CharacterEdited(cmd.character, None, changed.notes, changed.details), Visibility.GM),
            ]
        )
    shown = Visibility.PUBLIC if changed.name is not None else audience(state, cmd.character)
    return Decision([Emitted(changed, shown)])


def _same(text: str) -> str:
    return " ".join(text.split()).casefold()


def _other_names(state: TableState, cid: str) -> tuple[str, ...]:
    return tuple(c.name for c in state.characters if c.id != cid) + tuple(s.ref.name for s in state.retired)


def _name_held(state: TableState, cid: str) -> str | None:
    held = parts_of(state).name_held
    return held(state.game, cid) if held is not None else None


def _check_rename(state: TableState, cid: str, name: str) -> None:
    """The character may take this name now (a game that knows characters by name keeps them distinct, and keeps a
    name a pending roll holds). Raises TableError."""
    why = _name_held(state, cid)
    if why:
        raise TableError(
            "character/name_held",
            f"{state.character(cid).name}'s name cannot change now: {why}",
            fix="rename them once that is over, or leave the name as it is",
            ruling=RULE,
        )
    if parts_of(state).unique_names and _same(name) in {_same(n) for n in _other_names(state, cid)}:
        raise TableError(
            "character/name_taken",
            f"another character here is called {name!r}; this game knows its characters by name",
            fix="choose a name no other character has",
            ruling=RULE,
        )


@handles(RetireCharacter)
def _retire(state: TableState, cmd: RetireCharacter, ctx: Ctx) -> Decision:
    ref = state.character(cmd.character)
    _may_change(state, ctx.user, ref, "retire")
    _free(state, cmd.character, "retired")
    return Decision([Emitted(CharacterRetired(cmd.character, True))])


@handles(ReturnCharacter)
def _return(state: TableState, cmd: ReturnCharacter, ctx: Ctx) -> Decision:
    found = shelved(state, cmd.character)
    if found is None:
        raise TableError(
            "character/not_retired",
            f"{cmd.character!r} is not a retired character here",
            fix="bring back one of the retired characters",
            ruling=RULE,
        )
    _may_change(state, ctx.user, found.ref, "bring back")
    return Decision([Emitted(CharacterRetired(cmd.character, False))])


@handles(DeleteCharacter)
def _delete(state: TableState, cmd: DeleteCharacter, ctx: Ctx) -> Decision:
    found = shelved(state, cmd.character)
    ref = found.ref if found is not None else state.character(cmd.character)
    _may_change(state, ctx.user, ref, "delete")
    if found is None:
        _free(state, cmd.character, "deleted")
    return Decision([Emitted(CharacterDeleted(cmd.character, ref.name))])


def descriptive(state: TableState, cid: str) -> dict[str, str]:
    """The character's descriptive fields now (the game's, by key), as the edit form shows them."""
    return parts_of(state).current(state.game, cid)


# --- what a member may do ---


def _name_field(state: TableState, cid: str) -> dict[str, Domain]:
    """The name an edit may give (none, when the name cannot change now: the edit keeps it, see `_name_kept`)."""
    if _name_held(state, cid):
        return {}
    others = _other_names(state, cid) if parts_of(state).unique_names else ()
    return {"name": TextDomain(NAME_LENGTH, required=True, exclude=others)}


def _name_kept(state: TableState, cid: str) -> dict[str, str]:
    return {"name": state.character(cid).name} if _name_held(state, cid) else {}


def sheet_actions(state: TableState, user: str) -> list[LegalAction]:
    """Editing, retiring, bringing back and deleting the characters `user` may change."""
    role = state.role_of(user)
    if role is None or role is Role.SPECTATOR:
        return []
    gm = role is Role.GM
    parts = PARTS.get(state.ruleset)
    if parts is None:
        return []  # a game that keeps no sheets has none to edit
    group = "Characters"
    out: list[LegalAction] = []
    for c in state.characters:
        if not (gm or c.owner == user):
            continue
        if gm or not state.structure.in_scene:
            out.append(
                LegalAction(
                    EditCharacter.type,
                    f"Edit {c.name}'s sheet",
                    {"character": c.id, **_name_kept(state, c.id)},
                    {
                        **_name_field(state, c.id),
                        "notes": TextDomain(PROSE_LENGTH),
                        "details": KeyedValues(
                            tuple(k for k, _ in parts.details),
                            TextDomain(PROSE_LENGTH, required=parts.required),
                            tuple(label for _, label in parts.details),
                            min_keys=len(parts.details) if parts.required else 0,
                        ),
                    },
                    group=group,
                    rule=RULE,
                )
            )
        if parts.engaged(state.game, c.id) is None:
            out.append(
                LegalAction(RetireCharacter.type, f"Retire {c.name}", {"character": c.id}, group=group, rule=RULE)
            )
            out.append(
                LegalAction(DeleteCharacter.type, f"Delete {c.name}", {"character": c.id}, group=group, rule=RULE)
            )
    for s in state.retired:
        if gm or s.ref.owner == user:
            out.append(
                LegalAction(
                    ReturnCharacter.type, f"Bring {s.ref.name} back", {"character": s.ref.id}, group=group, rule=RULE
                )
            )
            out.append(
                LegalAction(
                    DeleteCharacter.type, f"Delete {s.ref.name}", {"character": s.ref.id}, group=group, rule=RULE
                )
            )
    return out


# --- the log ---


def _name(n: Mapping[str, str], cid: str) -> str:
    return n.get(cid, cid)


def _say_edited(f: CharacterEdited, n: Mapping[str, str]) -> str:
    said = []
    if f.name is not None:
        said.append(f"is now called {f.name}")
    said += [f"{key.replace('_', ' ')}: {value or '(cleared)'}" for key, value in f.details.items()]
    if f.notes is not None:
        said.append("notes rewritten" if f.notes else "notes cleared")
    who = _name(n, f.character)
    return f"{who}'s sheet is edited: " + "; ".join(said) if said else f"{who}'s sheet is saved unchanged"


def _say_retired(f: CharacterRetired, n: Mapping[str, str]) -> str:
    who = _name(n, f.character)
    return f"{who} retires from play, kept as they are" if f.retired else f"{who} comes back into play"


def _say_deleted(f: CharacterDeleted, n: Mapping[str, str]) -> str:
    return f"{f.name} is deleted from the table; the log keeps what they did"


SAYS: dict[str, Callable[[Any, Mapping[str, str]], str]] = {
    CharacterEdited.type: _say_edited,
    CharacterRetired.type: _say_retired,
    CharacterDeleted.type: _say_deleted,
}
TITLES = {
    CharacterEdited.type: "Sheet edited",
    CharacterRetired.type: "Characters",
    CharacterDeleted.type: "Characters",
}
COMMANDS_OUTSIDE_UNDO = frozenset(
    {EditCharacter.type, RetireCharacter.type, ReturnCharacter.type, DeleteCharacter.type}
)
