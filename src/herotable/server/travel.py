"""Characters that travel, on the web: a character's file (its sheet and advancement from the table, its portrait
from the store beside the log), a file brought to a campaign (checked whole, its portrait through the same checks and
re-encoding as an uploaded portrait, before anything is written), and each GM's library of characters. The pages and
the API both call these; the table decides (`herotable.table.travel`), and nothing here asks which game it is."""

from __future__ import annotations

import base64
import binascii
import json
import re
import uuid
from dataclasses import dataclass
from typing import Any

from fastapi import HTTPException

from herotable.errors import Problem
from herotable.server.deps import Services
from herotable.server.portrait_image import ACCEPT, MAX_BYTES, PortraitRefused, Reencoded, reencode
from herotable.service import Applied
from herotable.store.accounts import User
from herotable.store.port import LibraryEntry, Portrait, StoredEvent
from herotable.table.game import game_for
from herotable.table.state import Forbidden, Ruleset, TableError, TableState
from herotable.table.travel import (
    CharacterArrived,
    CharacterFileRefused,
    ImportCharacter,
    check_export,
    document,
    read_document,
    renamed,
)

# a file holds a portrait of at most MAX_BYTES as base64 (4 characters for 3 bytes), beside a sheet well under this
FILE_BYTES = MAX_BYTES * 4 // 3 + 64 * 1024
MEDIA_TYPES = tuple(ACCEPT.split(","))
SUFFIX = ".herotable.json"
REEXPORT = "export the character again from its page (Download as a file)"


def character_file(svc: Services, state: TableState, user: str, cid: str) -> dict[str, Any]:
    """The character's file for `user`, who must be its player or the GM (a hidden NPC's: the GM alone): its sheet,
    what play added to it, its notes and its portrait. Nothing of the campaign beyond the character. Raises Forbidden,
    TableError."""
    check_export(state, user, cid)
    made = document(state, cid, at=svc.now().isoformat(timespec="seconds"))
    kept = svc.table.store.portrait(state.campaign_id, cid)
    if kept is not None:
        made["portrait"] = {"media_type": kept.media_type, "data": base64.b64encode(kept.image).decode("ascii")}
    return made


def file_name(made: dict[str, Any]) -> str:
    """What a downloaded file is called: the character's name, then `.herotable.json`."""
    stem = re.sub(r"[^A-Za-z0-9]+", "-", str(made.get("name", ""))).strip("-").lower()[:40] or "character"
    return stem + SUFFIX


def parsed(raw: bytes) -> Any:
    """An uploaded file's JSON. Raises CharacterFileRefused for a file that is not JSON or is too large."""
    if not raw:
        raise CharacterFileRefused([Problem("", "no file was sent", f"choose a character file ({SUFFIX})")])
    if len(raw) > FILE_BYTES:
        size = f"{len(raw) / (1024 * 1024):.1f} MB"
        raise CharacterFileRefused(
            [
                Problem(
                    "", f"the file is {size}, more than a character file holds", f"choose a character file: {REEXPORT}"
                )
            ]
        )
    try:
        return json.loads(raw.decode("utf-8-sig"))  # a file saved by an editor that writes a byte-order mark too
    except RecursionError:
        raise CharacterFileRefused(
            [Problem("", "the file nests too deeply to be a character file", f"choose a character file: {REEXPORT}")]
        ) from None
    except (UnicodeDecodeError, ValueError) as err:
        said = str(err).split(":")[0]
        raise CharacterFileRefused(
            [Problem("", f"the file is not JSON ({said})", f"choose a character file ({SUFFIX}): {REEXPORT}")]
        ) from None


def _portrait_problems(svc: Services, portrait: Any) -> tuple[Reencoded | None, list[Problem]]:
    """The file's portrait re-encoded as an uploaded one is, or what is wrong with it. A portrait whose shape is wrong
    is the table's to name (`read_document`); only its image is looked at here."""
    if not isinstance(portrait, dict) or not all(isinstance(portrait.get(k), str) for k in ("media_type", "data")):
        return None, []
    if portrait["media_type"] not in MEDIA_TYPES:
        said = f"{portrait['media_type'][:40]!r} is not an image type a portrait may have"
        return None, [Problem("portrait.media_type", said, f"use one of {', '.join(MEDIA_TYPES)}, or {REEXPORT}")]
    try:
        image = base64.b64decode(portrait["data"], validate=True)
    except (binascii.Error, ValueError):
        return None, [Problem("portrait.data", "is not base64", f"leave the portrait null, or {REEXPORT}")]
    try:
        return reencode(image, svc.images.slot), []
    except PortraitRefused as refused:
        said, _, tip = refused.message.partition(". Tip: ")
        return None, [Problem("portrait", said, tip or "leave the portrait null, or choose another picture")]


@dataclass(frozen=True)
class Brought:
    """A character a file brought: its id and name here, whether it waits for the GM's approval, and what the command
    did."""

    character: str
    name: str
    waiting: bool
    applied: Applied


def bring(svc: Services, campaign_id: str, user: User, data: Any, *, name: str = "", npc: bool = False,
          hidden: bool = False) -> Brought:  # fmt: skip
    """Bring the character of a file (`data`, parsed) to the campaign for `user`: the file checked whole (format,
    game, sheet and advancement by the game's rules, portrait through the portrait checks) and every problem named,
    then the table's command, then its portrait kept. A refused file writes nothing. `name`: another name for it here.
    Raises CharacterFileRefused, RulesError, Busy (the server is decoding other pictures)."""
    state = svc.table.state(campaign_id)
    data = renamed(data, name)
    problems: list[Problem] = []
    try:
        read_document(state.ruleset, data)
    except CharacterFileRefused as refused:
        problems += refused.problems
    made, wrong = _portrait_problems(svc, data.get("portrait") if isinstance(data, dict) else None)
    if problems or wrong:
        raise CharacterFileRefused(problems + wrong)
    applied = svc.table.execute(campaign_id, user.user_id, ImportCharacter({**data, "portrait": None}, npc, hidden))
    first: StoredEvent = applied.events[0]
    cid = str(first.data["character"])
    if made is not None:
        at = svc.now().isoformat(timespec="microseconds")
        kept = Portrait.of(
            campaign_id, cid, made.image, media_type=made.media_type, width=made.width, height=made.height,
            set_by=user.user_id, set_at=at,
        )  # fmt: skip
        svc.table.store.set_portrait(kept)
    named = applied.state.names().get(cid) or next(a.ref.name for a in applied.state.arrivals if a.ref.id == cid)
    return Brought(cid, named, first.type == CharacterArrived.type, applied)


# --- the GM's library ---


class NotInLibrary(HTTPException):
    """No entry of that id in the asker's library (whether or not another GM's holds one): 404."""

    code = "library/unknown"
    fix = "GET /api/v1/library lists the entries of your library"

    def __init__(self) -> None:
        super().__init__(404, "there is no such entry in your library")


def require_gm(state: TableState, user: str, what: str) -> None:
    if not state.is_gm(user):
        raise Forbidden("library/gm_only", f"only the campaign's GM {what}", fix="ask the GM", ruling="R-T-3")


def save_to_library(svc: Services, state: TableState, user: User, cid: str) -> LibraryEntry:
    """Keep a character of a campaign `user` GMs in their library: its file, portrait included. Raises Forbidden,
    TableError."""
    require_gm(state, user.user_id, "saves its characters to a library")
    made = character_file(svc, state, user.user_id, cid)
    entry = LibraryEntry(
        uuid.uuid4().hex[:16],
        user.user_id,
        state.ruleset.value,
        str(made["name"]),
        state.name,
        svc.now().isoformat(timespec="microseconds"),
        json.dumps(made, ensure_ascii=False, separators=(",", ":")),
    )
    svc.table.store.save_to_library(entry)
    return entry


def library_entry(svc: Services, user: User, entry_id: str) -> LibraryEntry:
    """An entry of the user's own library, with its file. Raises NotInLibrary."""
    found = svc.table.store.library_entry(user.user_id, entry_id)
    if found is None:
        raise NotInLibrary()
    return found


def add_from_library(svc: Services, state: TableState, user: User, entry_id: str, *, hidden: bool = True,
                     name: str = "") -> Brought:  # fmt: skip
    """Add an entry of the user's library to a campaign they GM, as their NPC, hidden unless they say otherwise; checked
    as any file is. Raises NotInLibrary, Forbidden, TableError, CharacterFileRefused."""
    require_gm(state, user.user_id, "adds characters from a library")
    entry = library_entry(svc, user, entry_id)
    if entry.ruleset != state.ruleset.value:
        theirs, here = game_for(Ruleset(entry.ruleset)).title, game_for(state.ruleset).title
        raise TableError(
            "library/other_game",
            f"{entry.name} is a {theirs} character and {state.name} plays {here}",
            fix=f"add it to a {theirs} campaign",
            ruling="R-T-3",
        )
    assert entry.document is not None
    return bring(svc, state.campaign_id, user, json.loads(entry.document), name=name, npc=True, hidden=hidden)
