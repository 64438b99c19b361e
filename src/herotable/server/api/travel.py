"""Characters that travel: one character's file, a file brought to a campaign, and each GM's library of characters.
Approving or turning away a character that waits for the GM is a command (`character.approve`,
`character.turn_away`) like any other."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, cast

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypedDict

from herotable.server import problems
from herotable.server.answers import CampaignView, answer
from herotable.server.api.common import IN_A_CAMPAIGN, member_state
from herotable.server.deps import ServicesDep, UserDep
from herotable.server.travel import Brought, add_from_library, bring, character_file, library_entry, save_to_library
from herotable.store.port import LibraryEntry
from herotable.table.commands import NAME_LENGTH
from herotable.table.travel import FORMAT
from herotable.table.views import view_for

router = APIRouter()
BROUGHT = IN_A_CAMPAIGN | problems.responses(409, 413, 422, 503)


@answer
class FilePortrait(TypedDict):
    """A portrait inside a character file."""

    media_type: Annotated[
        str, Field(description="image/webp as herotable keeps portraits; image/png or image/jpeg too")
    ]
    data: Annotated[str, Field(description="the image's bytes, base64")]


@answer
class CharacterFile(TypedDict):
    """One character as a file (format herotable.character): what another campaign of its game imports. Nothing of the
    campaign it comes from beyond the character."""

    format: Annotated[Literal["herotable.character"], Field(description=f"always {FORMAT}")]
    format_version: Annotated[int, Field(description="the format's version; 1 now")]
    game: Annotated[str, Field(description="the game it plays, as GET /api/v1/games lists them")]
    name: str
    sheet: Annotated[dict[str, Any], Field(description="its sheet, in its game's format")]
    advancement: Annotated[dict[str, Any], Field(description="what play added beyond the sheet, in its game's terms")]
    notes: str
    exported_at: Annotated[str, Field(description="when the file was made (ISO 8601, UTC)")]
    portrait: FilePortrait | None


class ImportBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    document: dict[str, Any] = Field(description="the character file, as an export gives it (its portrait included)")
    name: str = Field(default="", max_length=NAME_LENGTH, description="another name for it here; empty: the file's")
    npc: bool = Field(default=False, description="the GM's only: it joins as an NPC")
    hidden: bool = Field(default=False, description="the GM's only: its sheet is the GM's secret")


class FromLibrary(BaseModel):
    model_config = ConfigDict(extra="forbid")

    hidden: bool = Field(default=True, description="its sheet is the GM's secret, as a library's villain is at first")
    name: str = Field(default="", max_length=NAME_LENGTH, description="another name for it here; empty: the entry's")


@answer
class Imported(TypedDict):
    """A character a file brought: waiting for the GM's approval (a player's), or at the table (the GM's)."""

    character: Annotated[str, Field(description="its id here, which the table gave it")]
    name: str
    waiting: Annotated[bool, Field(description="it waits for the GM's approval before it plays")]
    view: CampaignView


@answer
class LibraryListed(TypedDict):
    """An entry of your library."""

    entry_id: str
    game: str
    name: str
    saved_from: Annotated[str, Field(description="the campaign it was saved from, as it was called then")]
    saved_at: Annotated[str, Field(description="when (ISO 8601, UTC)")]


@answer
class LibraryKept(TypedDict):
    """An entry of your library with its character file."""

    entry_id: str
    game: str
    name: str
    saved_from: str
    saved_at: str
    document: CharacterFile


@answer
class LibraryRemoved(TypedDict):
    removed: str


def listed(entry: LibraryEntry) -> LibraryListed:
    return {
        "entry_id": entry.entry_id,
        "game": entry.ruleset,
        "name": entry.name,
        "saved_from": entry.saved_from,
        "saved_at": entry.saved_at,
    }


def imported(brought: Brought, user: str) -> Imported:
    view: Any = view_for(brought.applied.state, user)
    return {"character": brought.character, "name": brought.name, "waiting": brought.waiting, "view": view}


@router.get(
    "/campaigns/{campaign_id}/characters/{character_id}/export", responses=IN_A_CAMPAIGN | problems.responses(409)
)
def export_character(campaign_id: str, character_id: str, svc: ServicesDep, user: UserDep) -> CharacterFile:
    """The character as a file, for its player or the GM (a hidden NPC's: the GM alone): its sheet, what play added
    to it, its notes and its portrait. POST it to …/characters/import of another campaign of its game."""
    state = member_state(svc, campaign_id, user)
    return cast(CharacterFile, character_file(svc, state, user.user_id, character_id))


@router.post("/campaigns/{campaign_id}/characters/import", status_code=201, responses=BROUGHT)
def import_character(campaign_id: str, body: ImportBody, svc: ServicesDep, user: UserDep) -> Imported:
    """Bring a character from a file: checked whole first (its format, its game, its sheet by the game's rules, what it
    gained by its ranges, its portrait as an upload is), every problem named with a fix in `problems` (422), and
    nothing written if any. A player's hero waits for the GM's approval (`character.approve`, `character.turn_away`);
    the GM's character joins at once. Names already at the table are refused (409): give it another `name`."""
    member_state(svc, campaign_id, user)
    brought = bring(svc, campaign_id, user, body.document, name=body.name, npc=body.npc, hidden=body.hidden)
    return imported(brought, user.user_id)


@router.post(
    "/campaigns/{campaign_id}/characters/{character_id}/library",
    status_code=201,
    responses=IN_A_CAMPAIGN | problems.responses(409),
)
def save_character(campaign_id: str, character_id: str, svc: ServicesDep, user: UserDep) -> LibraryListed:
    """Save a character of a campaign you GM to your library (NPCs and villains, a hero too), portrait and all, to add
    to any campaign of its game. Nobody else sees your library."""
    state = member_state(svc, campaign_id, user)
    return listed(save_to_library(svc, state, user, character_id))


@router.post("/campaigns/{campaign_id}/library/{entry_id}", status_code=201, responses=BROUGHT)
def add_character(
    campaign_id: str, entry_id: str, svc: ServicesDep, user: UserDep, body: FromLibrary | None = None
) -> Imported:
    """Add an entry of your library to a campaign you GM: it joins as your NPC, its sheet hidden unless `hidden` is
    false, checked as any file is."""
    state = member_state(svc, campaign_id, user)
    chosen = body or FromLibrary()
    brought = add_from_library(svc, state, user, entry_id, hidden=chosen.hidden, name=chosen.name)
    return imported(brought, user.user_id)


@router.get("/library")
def library(
    svc: ServicesDep,
    user: UserDep,
    game: Annotated[str | None, Query(max_length=32, description="only the entries of this game")] = None,
) -> list[LibraryListed]:
    """Your library, oldest first: the characters you saved from campaigns you GM. Only yours, ever."""
    return [listed(e) for e in svc.table.store.library(user.user_id, game)]


@router.get("/library/{entry_id}", responses=problems.responses(404))
def library_character(entry_id: str, svc: ServicesDep, user: UserDep) -> LibraryKept:
    """An entry of your library, with its character file."""
    entry = library_entry(svc, user, entry_id)
    assert entry.document is not None
    return {**listed(entry), "document": json.loads(entry.document)}


@router.delete("/library/{entry_id}", responses=problems.responses(404))
def remove_from_library(entry_id: str, svc: ServicesDep, user: UserDep) -> LibraryRemoved:
    """Remove an entry of your library (the characters added from it stay where they are)."""
    if not svc.table.store.delete_from_library(user.user_id, entry_id):
        library_entry(svc, user, entry_id)  # says it is not there
    return {"removed": entry_id}
