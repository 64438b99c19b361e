"""The pages of characters that travel: a character's file to download, a file brought to a campaign (its every
problem shown, nothing written), a character waiting for the GM's approval (its player and the GM see it; the GM
approves it or turns it away with a reason), and each GM's library of characters (saved from a character's page,
added to any campaign of its game they GM, hidden by default)."""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from herotable.errors import InvalidSheet, Problem, RulesError
from herotable.server import portraits
from herotable.server.deps import MaybeUserDep, Services, ServicesDep, check_csrf
from herotable.server.errors import rules_status
from herotable.server.pages import Refused, member, page, render, templates
from herotable.server.presenter import presenter_for
from herotable.server.slots import Busy
from herotable.server.travel import (
    SUFFIX,
    NotInLibrary,
    add_from_library,
    bring,
    character_file,
    file_name,
    parsed,
    save_to_library,
)
from herotable.store.accounts import User
from herotable.table.commands import LABEL_LENGTH, NAME_LENGTH
from herotable.table.game import game_for
from herotable.table.state import Role, Ruleset, TableState
from herotable.table.travel import (
    ApproveArrival,
    TurnAwayArrival,
    arrival,
    arrivals_for,
    gained,
    may_export,
    may_see_arrival,
    travels,
    waiting_hero,
)

router = APIRouter(dependencies=[Depends(check_csrf)])
FIELD = "file"  # the import form's file control


def _travel_links(state: TableState, user: str, cid: str) -> dict[str, bool]:
    """What a character's page offers of travelling: its file to download, saving it to the GM's library."""
    may = travels(state.ruleset) and may_export(state, user, cid)
    return {"export": may, "library": may and state.is_gm(user)}


def _waiting(state: TableState, user: str) -> list[dict[str, Any]]:
    """The characters waiting for the GM's approval that `user` sees, as the campaign page lists them."""
    who = state.names()
    return [
        {
            "id": a.ref.id,
            "name": a.ref.name,
            "owner": who.get(a.ref.owner, a.ref.owner),
            "gained": gained(state, a.advancement),
        }
        for a in arrivals_for(state, user)
    ]


templates.env.globals.update(travel_links=_travel_links, waiting_for_gm=_waiting, travels=travels)


def _problems(err: RulesError) -> list[Problem]:
    """A refusal as the list a page shows: each problem of a refused file, or the refusal itself."""
    if isinstance(err, InvalidSheet):
        return list(err.problems)
    return [Problem("", f"{err.reason}.", err.fix)]


# --- a character's file ---


@router.get("/campaigns/{campaign_id}/characters/{cid}/export")
@page
def download(campaign_id: str, cid: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    """The character's file, downloaded: its player's or the GM's (a hidden NPC's: the GM's alone)."""
    assert user is not None
    state = member(svc, campaign_id, user)
    if not state.has_character(cid):
        raise Refused(404, "There is no such character in play in this campaign.")
    try:
        made = character_file(svc, state, user.user_id, cid)
    except RulesError as err:
        raise Refused(403, f"{err.reason}. Tip: {err.fix}.") from None
    body = json.dumps(made, ensure_ascii=False, indent=1)
    disposition = f'attachment; filename="{file_name(made)}"'
    return Response(body, media_type="application/json", headers={"Content-Disposition": disposition})


# --- bringing a file to a campaign ---


def _import_page(
    request: Request, svc: Services, user: User, state: TableState, *, status: int = 200, **context: Any
) -> Response:
    gm = state.is_gm(user.user_id)
    return render(
        request,
        "character_import.html",
        svc,
        user,
        status=status,
        campaign=state,
        gm=gm,
        field=FIELD,
        suffix=SUFFIX,
        name_length=NAME_LENGTH,
        **context,
    )


def _may_bring(svc: Services, campaign_id: str, user: User) -> TableState:
    state = member(svc, campaign_id, user)
    if state.role_of(user.user_id) is Role.SPECTATOR:
        raise Refused(403, "Spectators watch the table; ask the GM to make you a player to bring a hero.")
    if not travels(state.ruleset):
        raise Refused(404, f"{game_for(state.ruleset).title} characters are not imported from files.")
    if state.archived:
        raise Refused(409, f"{state.name} is archived: it is kept read-only.")
    return state


@router.get("/campaigns/{campaign_id}/import")
@page
def import_page(campaign_id: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    """Bring a character from a file: a player's hero waits for the GM's approval; the GM's joins at once."""
    assert user is not None
    return _import_page(request, svc, user, _may_bring(svc, campaign_id, user), form={})


@router.post("/campaigns/{campaign_id}/import")
async def import_form(campaign_id: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    form = await request.form()
    upload = form.get(FIELD)
    raw = await upload.read() if isinstance(upload, UploadFile) else b""
    values = {k: str(v) for k, v in form.items() if k != FIELD}
    return await run_in_threadpool(
        _import, campaign_id=campaign_id, request=request, svc=svc, user=user, raw=raw, values=values
    )


@page
def _import(
    campaign_id: str, request: Request, svc: ServicesDep, user: MaybeUserDep, raw: bytes, values: dict[str, str]
) -> Response:
    """Check the whole file and bring its character, or show every problem with the form as it was sent: nothing
    written."""
    assert user is not None
    state = _may_bring(svc, campaign_id, user)
    gm = state.is_gm(user.user_id)
    try:
        brought = bring(
            svc,
            campaign_id,
            user,
            parsed(raw),
            name=values.get("name", ""),
            npc=gm and values.get("npc") == "true",
            hidden=gm and values.get("hidden") == "true",
        )
    except RulesError as err:
        return _import_page(request, svc, user, state, status=rules_status(err), form=values, problems=_problems(err))
    except Busy as busy:
        refusal = [Problem("portrait", f"{busy.reason}.", busy.fix)]
        answer = _import_page(request, svc, user, state, status=503, form=values, problems=refusal)
        answer.headers.update(busy.headers or {})
        return answer
    where = "arrivals" if brought.waiting else "characters"
    return RedirectResponse(f"/campaigns/{campaign_id}/{where}/{brought.character}", status_code=303)


# --- a character waiting for the GM ---


def _arrival_page(
    request: Request, svc: Services, user: User, state: TableState, cid: str, *, status: int = 200, **context: Any
) -> Response:
    if not may_see_arrival(state, user.user_id, cid):
        raise Refused(404, "No such character is waiting for the GM here.")
    found = arrival(state, cid)
    hero = waiting_hero(state, cid)
    sheets = presenter_for(state).sheets
    digests = svc.table.store.portrait_digests(state.campaign_id)
    shown = portraits.portrait_url(state.campaign_id, cid, digests[cid]) if cid in digests else None
    return render(
        request,
        "arrival.html",
        svc,
        user,
        status=status,
        campaign=state,
        character=found.ref,
        hero=hero,
        owner=state.names().get(found.ref.owner, found.ref.owner),
        gained=gained(state, found.advancement),
        notes=found.notes,
        gm=state.is_gm(user.user_id),
        portrait=shown,
        reason_length=LABEL_LENGTH,
        sheet_view=sheets.view_template,
        **sheets.view(hero),
        **context,
    )


@router.get("/campaigns/{campaign_id}/arrivals/{cid}")
@page
def arrival_page(campaign_id: str, cid: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    """A character waiting for the GM's approval, to its player and the GM: its sheet and what it gained before."""
    assert user is not None
    return _arrival_page(request, svc, user, member(svc, campaign_id, user), cid)


def _answer(
    svc: Services, campaign_id: str, user: User, cid: str, cmd: Any, request: Request, reason: str = ""
) -> Response:
    state = member(svc, campaign_id, user)
    if not may_see_arrival(state, user.user_id, cid):
        raise Refused(404, "No such character is waiting for the GM here.")
    try:
        svc.table.execute(campaign_id, user.user_id, cmd)
    except RulesError as err:
        return _arrival_page(request, svc, user, state, cid, status=rules_status(err), error=err, reason=reason)
    if isinstance(cmd, ApproveArrival):
        return RedirectResponse(f"/campaigns/{campaign_id}/characters/{cid}", status_code=303)
    return RedirectResponse(f"/campaigns/{campaign_id}#chars-h", status_code=303)


@router.post("/campaigns/{campaign_id}/arrivals/{cid}/approve")
@page
def approve(campaign_id: str, cid: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    assert user is not None
    return _answer(svc, campaign_id, user, cid, ApproveArrival(cid), request)


@router.post("/campaigns/{campaign_id}/arrivals/{cid}/turn-away")
async def turn_away_form(
    campaign_id: str, cid: str, request: Request, svc: ServicesDep, user: MaybeUserDep
) -> Response:
    form = await request.form()
    reason = str(form.get("reason", ""))
    return await run_in_threadpool(
        _turn_away, campaign_id=campaign_id, cid=cid, request=request, svc=svc, user=user, reason=reason
    )


@page
def _turn_away(
    campaign_id: str, cid: str, request: Request, svc: ServicesDep, user: MaybeUserDep, reason: str
) -> Response:
    assert user is not None
    if not reason.strip():
        state = member(svc, campaign_id, user)
        said = Problem("reason", "Say why the character is turned away: its player reads it.", "write a reason")
        return _arrival_page(request, svc, user, state, cid, status=422, reason_error=said, reason=reason)
    return _answer(svc, campaign_id, user, cid, TurnAwayArrival(cid, reason[:LABEL_LENGTH]), request, reason)


# --- the GM's library ---


@router.post("/campaigns/{campaign_id}/characters/{cid}/library")
@page
def save(campaign_id: str, cid: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    """Save a character of a campaign the user GMs to their library."""
    assert user is not None
    state = member(svc, campaign_id, user)
    if not state.has_character(cid):
        raise Refused(404, "There is no such character in play in this campaign.")
    try:
        entry = save_to_library(svc, state, user, cid)
    except RulesError as err:
        raise Refused(403, f"{err.reason}. Tip: {err.fix}.") from None
    return RedirectResponse(f"/library?saved={entry.entry_id}#entry-{entry.entry_id}", status_code=303)


def _gm_of(svc: Services, user: User, campaign_id: str) -> TableState | None:
    """The campaign the library page adds to (`?campaign=`): one the user GMs, else a refusal."""
    if not campaign_id:
        return None
    state = member(svc, campaign_id, user)
    if not state.is_gm(user.user_id):
        raise Refused(403, "Only the campaign's GM adds characters to it from a library.")
    return state


def _library_page(
    request: Request, svc: Services, user: User, *, campaign: str = "", saved: str = "", status: int = 200,
    **context: Any,
) -> Response:  # fmt: skip
    into = _gm_of(svc, user, campaign)
    entries = svc.table.store.library(user.user_id, into.ruleset.value if into is not None else None)
    games = []  # the entries by game, in the order the games are listed
    for ruleset in dict.fromkeys(Ruleset(e.ruleset) for e in entries):
        mine = [e for e in entries if e.ruleset == ruleset.value]
        games.append({"title": game_for(ruleset).title, "ruleset": ruleset.value, "entries": mine})
    # where each game's entries may go: the campaigns of that game the user GMs, and not archived
    targets: dict[str, list[tuple[str, str]]] = {}
    for state, role in svc.table.campaigns_of(user.user_id):
        if role is Role.GM and not state.archived:
            targets.setdefault(state.ruleset.value, []).append((state.campaign_id, state.name))
    return render(
        request,
        "library.html",
        svc,
        user,
        status=status,
        games=games,
        into=into,
        targets=targets,
        saved=saved,
        **context,
    )


@router.get("/library")
@page
def library_page(
    request: Request, svc: ServicesDep, user: MaybeUserDep, campaign: str = "", saved: str = ""
) -> Response:
    """The user's library: their characters by game, each to add to a campaign of its game they GM, or to delete.
    `campaign`: only what that campaign (theirs to GM) may take, added straight to it."""
    assert user is not None
    return _library_page(request, svc, user, campaign=campaign, saved=saved)


@router.post("/library/{entry_id}/add")
async def add_form(entry_id: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    form = await request.form()
    values = {k: str(v) for k, v in form.items()}
    return await run_in_threadpool(_add, entry_id=entry_id, request=request, svc=svc, user=user, values=values)


@page
def _add(entry_id: str, request: Request, svc: ServicesDep, user: MaybeUserDep, values: dict[str, str]) -> Response:
    """Add the entry to the chosen campaign, as the GM's NPC, hidden unless the box is cleared."""
    assert user is not None
    campaign_id = values.get("campaign_id", "")
    state = _gm_of(svc, user, campaign_id)
    if state is None:
        raise Refused(422, "Choose the campaign to add the character to.")
    back = values.get("back", "")
    try:
        hidden, name = values.get("hidden") == "true", values.get("name", "").strip()
        brought = add_from_library(svc, state, user, entry_id, hidden=hidden, name=name)
    except NotInLibrary:
        raise Refused(404, "There is no such entry in your library.") from None
    except RulesError as err:
        problems = _problems(err)
        return _library_page(request, svc, user, campaign=back, status=rules_status(err), problems=problems)
    except Busy as busy:
        raise Refused(503, f"{busy.reason}. Tip: {busy.fix}.") from None
    return RedirectResponse(f"/campaigns/{campaign_id}/characters/{brought.character}", status_code=303)


@router.post("/library/{entry_id}/delete")
@page
def delete(entry_id: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    assert user is not None
    if not svc.table.store.delete_from_library(user.user_id, entry_id):
        raise Refused(404, "There is no such entry in your library.")
    return RedirectResponse("/library", status_code=303)
