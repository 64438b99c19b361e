"""Characters that travel: one character exported as a file (its sheet, what play added to it, its notes and its
portrait) and brought into another campaign of the same game.

A character file is a JSON object in the format below, versioned by `format_version`:

    {"format": "herotable.character", "format_version": 1, "game": "ltl", "name": "Squall",
     "sheet": {…the game's sheet…}, "advancement": {…what play added…}, "notes": "…",
     "exported_at": "2026-12-04T10:00:00Z", "portrait": {"media_type": "image/webp", "data": "<base64>"} | null}

Each game says what its sheet and its advancement are, how a file's are checked and how a character is made of them
(`Travel`, registered beside the game as its sheet parts are): `server/` never asks which game. The portrait's bytes
are the server's to check (they never enter the log); everything else is checked here, every problem named by field
with a tip, before anything is written.

A player's character arrives waiting for the GM's approval (`character.arrived`, seen by its player and the GM): it
is not at the table and cannot act until the GM approves it (`character.imported`: it joins play with its
advancement) or turns it away with a reason its player reads (`character.turned_away`). The GM's own imports (an
NPC from the GM's library, say) join at once. None of these is an action undo reaches: like a sheet edit, each is a
line undo does not cross.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

from herotable.errors import InvalidSheet, Problem
from herotable.table.codec import evolved
from herotable.table.commands import (
    LABEL_LENGTH,
    NAME_LENGTH,
    PROSE_LENGTH,
    Command,
    Ctx,
    Decision,
    Text,
    bad_text,
    controls,
    handles,
    new_character_owner,
    require_gm,
    require_player,
)
from herotable.table.core import CharacterJoined, evolves
from herotable.table.facts import Emitted, Fact, Visibility, fact
from herotable.table.game import DocumentDomain, Domain, Flag, LegalAction, TextDomain, game_for
from herotable.table.sheet_edits import PARTS, notes_of
from herotable.table.state import Arrival, CharacterRef, Forbidden, Role, Ruleset, TableError, TableState
from herotable.table.views import may_see_sheet

FORMAT = "herotable.character"
FORMAT_VERSION = 1
RULE = "R-T-3"
KEYS = ("format", "format_version", "game", "name", "sheet", "advancement", "notes", "exported_at", "portrait")
STAMP_LENGTH = 40  # an ISO 8601 time, with room to spare
PORTRAIT_KEYS = ("media_type", "data")
REEXPORT = "export the character again from its page in herotable (Download as a file)"


# --- what each game says about its travelling characters ---


@dataclass(frozen=True)
class Travel:
    """How a game's characters travel: what a file carries of one (`carried`: its sheet and its advancement, from the
    game's table), every problem of a file's sheet and advancement (`problems`, fields named from the file's top,
    each with a tip), the character in play they make (`hero`: pure, unchecked, so a log folds whatever the rules say
    later), a new sheet as a file's sheet and advancement (`split`), and the advancement in words (`gained`)."""

    carried: Callable[[Any, str], tuple[dict[str, Any], dict[str, Any]]]
    problems: Callable[[Mapping[str, Any], Mapping[str, Any]], list[Problem]]
    hero: Callable[[Mapping[str, Any], Mapping[str, Any]], Any]
    split: Callable[[Mapping[str, Any]], tuple[dict[str, Any], dict[str, Any]]]
    gained: Callable[[Mapping[str, Any]], str]
    # a checked file's sheet and advancement as the game records them (what its create command records): what a log
    # keeps is what the rules read back, whatever shape a hand-edited file gave them
    normal: Callable[[Mapping[str, Any], Mapping[str, Any]], tuple[dict[str, Any], dict[str, Any]]]


TRAVEL: dict[Ruleset, Travel] = {}


def register_travel(ruleset: Ruleset, travel: Travel) -> None:
    """A game's way of travelling (each game's package registers its own)."""
    if ruleset in TRAVEL:
        raise ValueError(f"travel of {ruleset} registered twice")
    TRAVEL[ruleset] = travel


def travel_of(ruleset: Ruleset) -> Travel:
    """The game's way of travelling. Raises TableError for a game whose characters do not travel."""
    found = TRAVEL.get(ruleset)
    if found is None:
        raise TableError(
            "character/no_travel",
            f"{game_for(ruleset).title} characters are not exported or imported",
            fix="make the character anew in the other campaign",
            ruling=RULE,
        )
    return found


def travels(ruleset: Ruleset) -> bool:
    return ruleset in TRAVEL


# --- a character file, read and written ---


class CharacterFileRefused(InvalidSheet):
    """A character file that cannot come to this campaign: every problem, by field, each with a tip. Nothing was
    written."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(
            problems,
            ruling=RULE,
            code="character/file_refused",
            what="the character file",
            fix="correct each listed field in the file, or export the character again, and import it again",
        )


@dataclass(frozen=True)
class Traveller:
    """A character file as read and checked: its character's name, sheet, advancement and notes, and its portrait as
    the file gives it (`media_type` and base64 `data`, shape checked, image not: that is the server's)."""

    name: str
    sheet: dict[str, Any]
    advancement: dict[str, Any]
    notes: str = ""
    portrait: Mapping[str, Any] | None = None


def _text_problems(value: Any, where: str, out: list[Problem]) -> None:
    """Every text in a file's sheet or advancement that cannot be stored: a control character, too long."""
    if isinstance(value, str):
        problem = bad_text(value)
        if problem:
            out.append(Problem(where, problem, "remove that character"))
        elif len(value) > PROSE_LENGTH:
            out.append(
                Problem(where, f"is {len(value)} characters long", f"shorten it to {PROSE_LENGTH} characters or fewer")
            )
    elif isinstance(value, dict):
        for key, item in value.items():
            _text_problems(key, f"{where}.{key}", out)
            _text_problems(item, f"{where}.{key}", out)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _text_problems(item, f"{where}[{i}]", out)


def _name_problems(name: Any, where: str, out: list[Problem]) -> str:
    if not isinstance(name, str) or not name.strip():
        out.append(Problem(where, "a character needs a name", "write the character's name"))
        return ""
    problem = bad_text(name)
    if problem:
        out.append(Problem(where, problem, "remove that character"))
    elif len(name) > NAME_LENGTH:
        out.append(Problem(where, f"is {len(name)} characters long", f"shorten it to {NAME_LENGTH} characters"))
    return name.strip()


def _portrait_problems(portrait: Any, out: list[Problem]) -> Mapping[str, Any] | None:
    if portrait is None:
        return None
    if not isinstance(portrait, dict) or set(portrait) != set(PORTRAIT_KEYS):
        out.append(
            Problem(
                "portrait",
                "must be null or an object with media_type and data (the image in base64)",
                f"leave it null, or {REEXPORT}",
            )
        )
        return None
    if not isinstance(portrait["media_type"], str) or not isinstance(portrait["data"], str):
        out.append(Problem("portrait", "media_type and data must be text", f"leave it null, or {REEXPORT}"))
        return None
    return portrait


def _version_problems(version: Any, out: list[Problem]) -> None:
    if type(version) is not int or version < 1:
        out.append(Problem("format_version", f"{version!r} is not a version of the format", f"write {FORMAT_VERSION}"))
    elif version > FORMAT_VERSION:
        out.append(
            Problem(
                "format_version",
                f"version {version} is newer than this herotable reads ({FORMAT_VERSION})",
                "import it into a herotable as new as the one that exported it",
            )
        )


def _game_problem(game: Any, ruleset: Ruleset) -> Problem | None:
    if game == ruleset.value:
        return None
    here = game_for(ruleset).title
    known = {r.value: g for r, g in ((r, game_for(r)) for r in TRAVEL)}
    if isinstance(game, str) and game in known:
        return Problem(
            "game",
            f"the file holds a {known[game].title} character and this campaign plays {here}",
            f"import it into a {known[game].title} campaign; a character travels only between campaigns of its game",
        )
    return Problem("game", f"{str(game)[:40]!r} is not a game herotable plays", f'write "{ruleset.value}" ({here})')


def renamed(data: Any, name: str | None) -> Any:
    """The character file with its character called `name` (the file itself when no name is given, or when it is not
    a file whose name can change): how a character comes to a table under another name."""
    if not name or not name.strip() or not isinstance(data, dict) or not isinstance(data.get("sheet"), dict):
        return data
    return {**data, "name": name.strip(), "sheet": {**data["sheet"], "name": name.strip()}}


def read_document(ruleset: Ruleset, data: Any) -> Traveller:
    """A character file checked for a campaign of `ruleset`: its format and version, its game, its name, its sheet
    and advancement by the game's rules and ranges, its notes, and its portrait's shape. Raises CharacterFileRefused
    listing every problem."""
    if not isinstance(data, dict):
        raise CharacterFileRefused(
            [Problem("", "the file is not a JSON object", f"choose a character file: {REEXPORT}")]
        )
    out: list[Problem] = [
        Problem(str(k)[:60], "is not part of a character file", "remove it") for k in data if k not in KEYS
    ]
    if data.get("format") != FORMAT:
        out.append(Problem("format", f"is not {FORMAT!r}: this is not a herotable character file", REEXPORT))
        raise CharacterFileRefused(out)
    _version_problems(data.get("format_version"), out)
    wrong_game = _game_problem(data.get("game"), ruleset)
    if wrong_game is not None:  # another game's sheet is not read by this game's rules
        raise CharacterFileRefused([*out, wrong_game])
    travel = travel_of(ruleset)
    sheet, advancement = data.get("sheet"), data.get("advancement", {})
    if not isinstance(sheet, dict):
        out.append(Problem("sheet", "is missing or not an object", REEXPORT))
    if not isinstance(advancement, dict):
        out.append(Problem("advancement", "must be an object", "write {} for a character with nothing gained yet"))
    notes = data.get("notes", "")
    if not isinstance(notes, str):
        out.append(Problem("notes", "must be text", 'write "" for no notes'))
        notes = ""
    elif len(notes) > PROSE_LENGTH:
        out.append(Problem("notes", f"are {len(notes)} characters long", f"shorten them to {PROSE_LENGTH}"))
    elif bad_text(notes):
        out.append(Problem("notes", str(bad_text(notes)), "remove that character"))
    stamp = data.get("exported_at", "")
    if not isinstance(stamp, str) or len(stamp) > STAMP_LENGTH:
        out.append(Problem("exported_at", "must be a time, as text", "leave it out, or write when it was exported"))
    portrait = _portrait_problems(data.get("portrait"), out)
    if not isinstance(sheet, dict) or not isinstance(advancement, dict):
        raise CharacterFileRefused(out)
    given = _name_problems(data.get("name"), "name", out)
    if given and sheet.get("name") != data.get("name"):
        out.append(
            Problem("sheet.name", f"is {sheet.get('name')!r}, not the file's name {given!r}", "make the two the same")
        )
    for where, part in (("sheet", sheet), ("advancement", advancement)):
        _text_problems(part, where, out)
    out += travel.problems(sheet, advancement)
    if out:
        raise CharacterFileRefused(out)
    sheet, advancement = travel.normal(sheet, advancement)
    return Traveller(given, sheet, advancement, notes.strip(), portrait)


def document(state: TableState, cid: str, *, at: str = "") -> dict[str, Any]:
    """The character file of one character in play, without its portrait (kept beside the log: the server adds
    it). Nothing of the campaign beyond the character: its sheet, what play added to it, its notes."""
    ref = state.character(cid)
    sheet, advancement = travel_of(state.ruleset).carried(state.game, cid)
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": state.ruleset.value,
        "name": ref.name,
        "sheet": sheet,
        "advancement": advancement,
        "notes": notes_of(state, cid),
        "exported_at": at,
        "portrait": None,
    }


def new_document(ruleset: Ruleset, sheet: Mapping[str, Any]) -> dict[str, Any]:
    """The character file of a character made from a new sheet (as its game's create command takes it): nothing
    gained yet. What a file looks like before any play."""
    carried, advancement = travel_of(ruleset).split(sheet)
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": ruleset.value,
        "name": carried.get("name", ""),
        "sheet": carried,
        "advancement": advancement,
        "notes": "",
        "portrait": None,
    }


def may_export(state: TableState, user: str, cid: str) -> bool:
    """Whether `user` may export the character: who may read its sheet and acts for it (its player, the GM; a hidden
    NPC, the GM alone)."""
    return state.has_character(cid) and controls(state, user, cid) and may_see_sheet(state, user, cid)


def check_export(state: TableState, user: str, cid: str) -> CharacterRef:
    """The character `user` may export. Raises Forbidden (or TableError for no such character)."""
    ref = state.character(cid)
    travel_of(state.ruleset)
    if not may_export(state, user, cid):
        raise Forbidden(
            "character/not_exportable",
            f"{ref.name} is not yours to export: a character is exported by its player or the GM",
            fix="ask its player or the GM for the file",
            ruling=RULE,
        )
    return ref


# --- facts ---


@fact
@dataclass(frozen=True)
class CharacterArrived(Fact):
    """A player brought a character from a file; it waits for the GM's approval (its player and the GM see it)."""

    type = "character.arrived"
    character: str
    owner: str
    name: str
    sheet: dict[str, Any]
    advancement: dict[str, Any] = field(default_factory=dict)
    notes: str = ""


@fact
@dataclass(frozen=True)
class CharacterImported(Fact):
    """A character from a file is in play, with what it gained elsewhere: approved by the GM (`approved`), or the
    GM's own import. It follows `character.joined`; GM-only when its sheet is hidden."""

    type = "character.imported"
    character: str
    sheet: dict[str, Any]
    advancement: dict[str, Any] = field(default_factory=dict)
    notes: str = ""
    approved: bool = False


@fact
@dataclass(frozen=True)
class ArrivalTurnedAway(Fact):
    """The GM turned a waiting character away, with the reason its player reads; its id is free again."""

    type = "character.turned_away"
    character: str
    name: str
    reason: str


@evolves(CharacterArrived)
def _arrived(state: TableState, f: CharacterArrived) -> TableState:
    arrival = Arrival(CharacterRef(f.character, f.owner, f.name), f.sheet, f.advancement, f.notes)
    return evolved(state, arrivals=(*state.arrivals, arrival), done=(), befores=())


@evolves(CharacterImported)
def _imported(state: TableState, f: CharacterImported) -> TableState:
    hero = TRAVEL[state.ruleset].hero(f.sheet, f.advancement)
    kept = tuple((c, text) for c, text in state.notes if c != f.character)
    return evolved(
        state,
        game=PARTS[state.ruleset].unshelve(state.game, f.character, hero),
        notes=(*kept, (f.character, f.notes)) if f.notes else kept,
        arrivals=tuple(a for a in state.arrivals if a.ref.id != f.character),
        done=(),
        befores=(),
    )


@evolves(ArrivalTurnedAway)
def _turned_away(state: TableState, f: ArrivalTurnedAway) -> TableState:
    return evolved(state, arrivals=tuple(a for a in state.arrivals if a.ref.id != f.character), done=(), befores=())


# --- commands ---


@dataclass(frozen=True)
class ImportCharacter(Command):
    """Bring a character from a file (exported from another campaign of this game) to the table, its portrait left
    out (the web and the API take the file with it): a player's waits for the GM's approval; the GM's joins at once,
    as an NPC (hidden or not) if the GM says so. The table gives it its id, made of its name (`free_id`,
    `arrival_id`)."""

    type = "character.import"
    document: Annotated[dict[str, Any], Text(PROSE_LENGTH)]
    npc: bool = False
    hidden: bool = False


@dataclass(frozen=True)
class ApproveArrival(Command):
    """The GM lets a character waiting for approval into play, with what it gained elsewhere."""

    type = "character.approve"
    character: Annotated[str, Text(NAME_LENGTH, required=True)]


@dataclass(frozen=True)
class TurnAwayArrival(Command):
    """The GM turns a waiting character away, saying why (its player reads it)."""

    type = "character.turn_away"
    character: Annotated[str, Text(NAME_LENGTH, required=True)]
    reason: Annotated[str, Text(LABEL_LENGTH, required=True)]


def _same(text: str) -> str:
    """A name as compared: its compatibility form (a fullwidth letter is the letter), without invisible characters
    (a zero-width space), without regard to case or spacing."""
    shown = "".join(c for c in unicodedata.normalize("NFKC", text) if unicodedata.category(c) != "Cf")
    return " ".join(shown.split()).casefold()


def _names_here(state: TableState, but: str = "", user: str | None = None, *, waiting: bool = True) -> dict[str, str]:
    """The names of the campaign's characters (in play, retired, waiting), compared as `_same` says, by id; with
    `user`, only the waiting characters that member sees (their own; the GM, all): a player's import never learns
    of another's waiting hero, whose name the GM's approval checks again."""
    seen = (a.ref for a in state.arrivals if waiting and (user is None or a.ref.owner == user or state.is_gm(user)))
    refs = (*state.characters, *(s.ref for s in state.retired), *seen)
    return {_same(r.name): r.id for r in refs if r.id != but}


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:24] or "character"


def free_id(state: TableState, name: str) -> str:
    """An id made of the name that no character here holds: "nova", else "nova-2", "nova-3"…"""
    base = _slug(name)
    cid, n = base, 1
    while state.taken(cid):
        n += 1
        cid = f"{base}-{n}"
    return cid


def arrival_id(state: TableState, name: str, command_id: str) -> str:
    """The id a player's character from a file waits under, and plays under once approved: its name and a mark made of
    the command that brought it ("nova-3fa9c1"). Only its player and the GM see it waiting, so no other player could
    avoid it when choosing an id of their own: a mark nobody would choose keeps the two apart."""
    mark = hashlib.sha256(f"{state.campaign_id}/{command_id}".encode()).hexdigest()
    base = _slug(name)
    for size in (6, 12, 24, 64):
        cid = f"{base}-{mark[:size]}"
        if not state.taken(cid):
            return cid
    return free_id(state, f"{base}-{mark}")


def clash(
    state: TableState, name: str, but: str = "", user: str | None = None, *, waiting: bool = True
) -> TableError | None:
    """Why a character called `name` cannot come to the table: another character here has that name (the rules of
    either game know characters by name in places, and a table with two of one name confuses everyone); with `user`,
    among those that member may know of; without `waiting`, among those in play or retired (what an approval meets:
    two heroes of one name may wait, and the first approved takes it)."""
    if _same(name) not in _names_here(state, but, user, waiting=waiting):
        return None
    return TableError(
        "character/name_taken",
        f"a character called {name!r} is already here",
        fix="bring it under another name (the name field), or retire or delete the one here first",
        ruling=RULE,
    )


def arrival(state: TableState, cid: str) -> Arrival:
    """The character waiting for approval with this id. Raises TableError naming those waiting."""
    found = next((a for a in state.arrivals if a.ref.id == cid), None)
    if found is None:
        waiting = ", ".join(a.ref.id for a in state.arrivals) or "none"
        raise TableError(
            "character/not_waiting",
            f"no character {cid!r} is waiting for the GM's approval here",
            fix=f"name one that is (waiting: {waiting})",
            ruling=RULE,
        )
    return found


def may_see_arrival(state: TableState, user: str | None, cid: str) -> bool:
    """Whether `user` sees the waiting character: its player and the GM."""
    return any(a.ref.id == cid and (a.ref.owner == user or state.is_gm(user)) for a in state.arrivals)


def arrivals_for(state: TableState, user: str | None) -> list[Arrival]:
    """The waiting characters `user` sees: their own, or every one for the GM."""
    return [a for a in state.arrivals if a.ref.owner == user or state.is_gm(user)]


def waiting_hero(state: TableState, cid: str) -> Any:
    """The waiting character as it would play: the game's hero made of its file (for its page)."""
    found = arrival(state, cid)
    return travel_of(state.ruleset).hero(found.sheet, found.advancement)


def gained(state: TableState, advancement: Mapping[str, Any]) -> str:
    """What a character gained in play, in words (its game's)."""
    return travel_of(state.ruleset).gained(advancement)


@handles(ImportCharacter)
def _import(state: TableState, cmd: ImportCharacter, ctx: Ctx) -> Decision:
    require_player(state, ctx.user)
    gm = state.is_gm(ctx.user)
    if not gm and (cmd.npc or cmd.hidden):
        raise Forbidden("character/not_allowed", "players import their own heroes only", fix="ask the GM for NPCs")
    if cmd.document.get("portrait") is not None:
        raise CharacterFileRefused(
            [
                Problem(
                    "portrait",
                    "a command carries no image: the log keeps none",
                    "send the file with its portrait to POST /api/v1/campaigns/{id}/characters/import, or leave the "
                    "portrait null here",
                )
            ]
        )
    found = read_document(state.ruleset, cmd.document)
    refused = clash(state, found.name, user=ctx.user)
    if refused is not None:
        raise refused
    cid = free_id(state, found.name) if gm else arrival_id(state, found.name, ctx.command_id)
    owner = new_character_owner(state, ctx.user, cid, None, npc=cmd.npc, hidden=cmd.hidden)
    if not gm:
        arrived = CharacterArrived(cid, owner, found.name, found.sheet, found.advancement, found.notes)
        return Decision([Emitted(arrived, Visibility.OWNER, owner)])
    joined = CharacterJoined(cid, owner, found.name, cmd.npc, cmd.hidden)
    imported = CharacterImported(cid, found.sheet, found.advancement, found.notes)
    return Decision([Emitted(joined), Emitted(imported, Visibility.GM if cmd.hidden else Visibility.PUBLIC)])


@handles(ApproveArrival)
def _approve(state: TableState, cmd: ApproveArrival, ctx: Ctx) -> Decision:
    require_gm(state, ctx.user)
    found = arrival(state, cmd.character)
    refused = clash(state, found.ref.name, but=found.ref.id, waiting=False)
    if refused is not None:
        raise TableError(
            refused.code,
            refused.reason,
            fix="turn it away, asking its player to import it under another name",
            ruling=RULE,
        )
    # a player who left, or watches now, no longer plays it: it is the GM's, as a leaving player's characters are
    owner = found.ref.owner if state.role_of(found.ref.owner) is Role.PLAYER else state.gm
    joined = CharacterJoined(found.ref.id, owner, found.ref.name)
    imported = CharacterImported(found.ref.id, found.sheet, found.advancement, found.notes, approved=True)
    return Decision([Emitted(joined), Emitted(imported)])


@handles(TurnAwayArrival)
def _turn_away(state: TableState, cmd: TurnAwayArrival, ctx: Ctx) -> Decision:
    require_gm(state, ctx.user)
    found = arrival(state, cmd.character)
    turned = ArrivalTurnedAway(found.ref.id, found.ref.name, cmd.reason.strip())
    if state.member(found.ref.owner) is None or found.ref.owner == state.gm:
        return Decision([Emitted(turned, Visibility.GM)])
    return Decision([Emitted(turned, Visibility.OWNER, found.ref.owner)])


# --- what a member may do ---


def travel_actions(state: TableState, user: str) -> list[LegalAction]:
    """Importing a character from a file (a player their own hero; the GM anything, as an NPC hidden or not), and
    the GM's approval or refusal of each character waiting for it."""
    role = state.role_of(user)
    if role is None or role is Role.SPECTATOR or not travels(state.ruleset):
        return []
    group = "Characters"
    document: dict[str, Domain] = {"document": DocumentDomain(state.ruleset.value)}
    if role is not Role.GM:
        return [
            LegalAction(ImportCharacter.type, "Import your hero from a file", fields=document, group=group, rule=RULE)
        ]
    npc: dict[str, Domain] = {"npc": Flag(), "hidden": Flag()}
    out = [
        LegalAction(
            ImportCharacter.type, "Import a character from a file", fields=document | npc, group=group, rule=RULE
        )
    ]
    for a in state.arrivals:
        if clash(state, a.ref.name, but=a.ref.id, waiting=False) is None:
            out.append(
                LegalAction(
                    ApproveArrival.type, f"Approve {a.ref.name}", {"character": a.ref.id}, group=group, rule=RULE
                )
            )
        out.append(
            LegalAction(
                TurnAwayArrival.type,
                f"Turn {a.ref.name} away",
                {"character": a.ref.id},
                {"reason": TextDomain(LABEL_LENGTH, required=True)},
                group=group,
                rule=RULE,
            )
        )
    return out


# --- the log ---


def _say_arrived(f: CharacterArrived, n: Mapping[str, str]) -> str:
    return f"{f.name} comes from another campaign and waits for the GM's approval"


def _say_imported(f: CharacterImported, n: Mapping[str, str]) -> str:
    who = n.get(f.character, f.character)
    if f.approved:
        return f"The GM approves {who}, who joins play with what they gained before"
    return f"{who} comes to the table from a character file"


def _say_turned_away(f: ArrivalTurnedAway, n: Mapping[str, str]) -> str:
    return f"The GM turns {f.name} away: {f.reason}"


SAYS: dict[str, Callable[[Any, Mapping[str, str]], str]] = {
    CharacterArrived.type: _say_arrived,
    CharacterImported.type: _say_imported,
    ArrivalTurnedAway.type: _say_turned_away,
}
TITLES = {
    CharacterArrived.type: "Characters",
    CharacterImported.type: "New character",
    ArrivalTurnedAway.type: "Characters",
}
COMMANDS_OUTSIDE_UNDO = frozenset({ImportCharacter.type, ApproveArrival.type, TurnAwayArrival.type})
