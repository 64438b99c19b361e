"""Pages that change sheets and campaigns after creation: edit a character's descriptive parts, retire it, bring it
back or delete it; rename, archive or hand over a campaign, and delete it after offering its export.

Each change but a campaign's deletion is a table command (`herotable.table.sheet_edits`, `campaign_settings`): the
page offers what `legal_actions` lists for the viewer, says why the rest is not possible now, and shows a refusal
beside the form, with what the user typed kept and nothing written. Deleting a campaign removes its log, so it is no
fact: the GM must type the campaign's name to confirm it.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from herotable.errors import RulesError
from herotable.server import portraits
from herotable.server.deps import MaybeUserDep, ServicesDep, check_csrf
from herotable.server.options_form import option_fields, options_from_form
from herotable.server.pages import Refused, labelled, member, page, render
from herotable.store.port import UnknownCampaign
from herotable.table.campaign_settings import (
    ArchiveCampaign,
    ChangeOptions,
    HandOver,
    RenameCampaign,
    campaign_actions,
)
from herotable.table.codec import encode
from herotable.table.commands import NAME_LENGTH, PROSE_LENGTH, command_from_json
from herotable.table.game import LegalAction, game_of
from herotable.table.sheet_edits import (
    DeleteCharacter,
    EditCharacter,
    RetireCharacter,
    ReturnCharacter,
    descriptive,
    may_change,
    notes_of,
    parts_of,
    sheet_actions,
    shelved,
)
from herotable.table.state import TableState

router = APIRouter(dependencies=[Depends(check_csrf)])

CONFIRM_DELETE = "Delete {name} for good? The log keeps what they did, but the sheet is gone."
CONFIRM_ARCHIVE = "Archive {name}? It becomes read-only until you bring it back."


def _mine(state: TableState, uid: str, cid: str) -> dict[str, LegalAction]:
    """The viewer's sheet actions on one character, by command type."""
    return {a.type: a for a in sheet_actions(state, uid) if a.fixed.get("character") == cid}


def _ref(state: TableState, cid: str) -> Any:
    found = next((c for c in state.characters if c.id == cid), None)
    if found is None:
        gone = shelved(state, cid)
        found = gone.ref if gone is not None else None
    if found is None:
        raise Refused(404, "There is no such character in this campaign.")
    return found


def _why_not(state: TableState, uid: str, cid: str, offered: dict[str, LegalAction]) -> list[str]:
    """Why an edit, a retirement or a deletion the viewer could otherwise make is not offered now."""
    out = []
    if EditCharacter.type not in offered and state.structure.in_scene:
        out.append("A player edits their sheet between scenes: once the GM ends this scene.")
    if shelved(state, cid) is None and DeleteCharacter.type not in offered:
        why = parts_of(state).engaged(state.game, cid)
        if why:
            out.append(f"Retiring or deleting waits until it is settled: {why}.")
    return out


def _edit_page(
    request: Request,
    svc: ServicesDep,
    user: Any,
    state: TableState,
    cid: str,
    *,
    form: dict[str, str] | None = None,
    error: RulesError | None = None,
) -> Response:
    uid = user.user_id
    ref = _ref(state, cid)
    if not may_change(state, uid, ref.owner):
        raise Refused(403, f"{ref.name} is not your character: only its player or the GM changes it.")
    offered = _mine(state, uid, cid)
    retired = shelved(state, cid) is not None
    edit = offered.get(EditCharacter.type)
    if form is None:
        current = {} if retired else descriptive(state, cid)
        form = {"name": ref.name, "notes": notes_of(state, cid), **{f"details.{k}": v for k, v in current.items()}}
    return render(
        request,
        "character_edit.html",
        svc,
        user,
        status=422 if error else 200,
        campaign=state,
        character=ref,
        retired=retired,
        edit=edit,
        name_held=edit is not None and "name" in edit.fixed,
        details=parts_of(state).details,
        required=parts_of(state).required,
        form=form,
        error=error,
        offered=offered,
        why_not=_why_not(state, uid, cid, offered) if not retired else [],
        confirm_delete=CONFIRM_DELETE.format(name=ref.name),
        name_length=NAME_LENGTH,
        prose_length=PROSE_LENGTH,
        **portraits.edit_context(svc.table.store, state, uid, cid),
    )


@router.get("/campaigns/{campaign_id}/characters/{cid}/edit")
@page
def edit_character_page(campaign_id: str, cid: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    """Edit, retire or delete a character: its player or the GM."""
    assert user is not None
    return _edit_page(request, svc, user, member(svc, campaign_id, user), cid)


@router.post("/campaigns/{campaign_id}/characters/{cid}/edit")
async def edit_character(
    campaign_id: str, cid: str, request: Request, svc: ServicesDep, user: MaybeUserDep
) -> Response:
    form = await request.form()
    values = {k: str(v) for k, v in form.items()}
    return await run_in_threadpool(
        _edit, campaign_id=campaign_id, cid=cid, request=request, svc=svc, user=user, values=values
    )


@page
def _edit(
    campaign_id: str, cid: str, request: Request, svc: ServicesDep, user: MaybeUserDep, values: dict[str, str]
) -> Response:
    """Save the edit, or show the form again with the refusal and what was typed; nothing is written then."""
    assert user is not None
    state = member(svc, campaign_id, user)
    _ref(state, cid)
    keys = [k for k, _ in parts_of(state).details]
    body = {
        "type": EditCharacter.type,
        "character": cid,
        "name": values.get("name", ""),
        "notes": values.get("notes", ""),
        "details": {k: values.get(f"details.{k}", "") for k in keys},
    }
    try:
        svc.table.execute(campaign_id, user.user_id, command_from_json(body))
    except RulesError as err:
        return _edit_page(request, svc, user, state, cid, form=values, error=err)
    return RedirectResponse(f"/campaigns/{campaign_id}/characters/{cid}", status_code=303)


CHARACTER_STEPS = {"retire": RetireCharacter.type, "return": ReturnCharacter.type, "delete": DeleteCharacter.type}


@router.post("/campaigns/{campaign_id}/characters/{cid}/{step}")
@page
def character_step(
    campaign_id: str, cid: str, step: str, request: Request, svc: ServicesDep, user: MaybeUserDep
) -> Response:
    """Retire a character, bring it back, or delete it; then back to the campaign's page."""
    assert user is not None
    if step not in CHARACTER_STEPS:
        raise Refused(404, "There is no such change to a character.")
    state = member(svc, campaign_id, user)
    _ref(state, cid)
    try:
        svc.table.execute(
            campaign_id, user.user_id, command_from_json({"type": CHARACTER_STEPS[step], "character": cid})
        )
    except RulesError as err:
        return _edit_page(request, svc, user, state, cid, error=err)
    if step == "return":
        return RedirectResponse(f"/campaigns/{campaign_id}/characters/{cid}", status_code=303)
    return RedirectResponse(f"/campaigns/{campaign_id}#chars-h", status_code=303)


# --- the campaign's settings ---


def _settings_page(
    request: Request,
    svc: ServicesDep,
    user: Any,
    state: TableState,
    *,
    form: dict[str, str] | None = None,
    error: Any = None,  # a refusal, its fields called by the form's labels (`labelled`)
    status: int = 200,
) -> Response:
    if not state.is_gm(user.user_id):
        raise Refused(403, "Only the GM changes the campaign's settings.")
    offered = campaign_actions(state, user.user_id)
    hand_over = [
        (str(a.fixed["user"]), state.names().get(str(a.fixed["user"]), "")) for a in offered if a.type == HandOver.type
    ]
    return render(
        request,
        "campaign_settings.html",
        svc,
        user,
        status=422 if error else status,
        campaign=state,
        rename=any(a.type == RenameCampaign.type for a in offered),
        archive=next((a for a in offered if a.type == ArchiveCampaign.type), None),
        hand_over=hand_over,
        busy=None if state.archived else game_of(state).busy(state),
        form=form or {"name": state.name},
        error=error,
        confirm_archive=CONFIRM_ARCHIVE.format(name=state.name),
        name_length=NAME_LENGTH,
        options=option_fields(game_of(state).option_specs, encode(state.game.options), OPTION),
        done=DONE.get(request.query_params.get("done", "")) if not error else None,
    )


# what a settings change that went through says on the page it comes back to (`?done=`)
DONE = {
    "options": "The options are changed from now on; the log says what changed.",
    "same": "Nothing changed: the options were already so.",
    "renamed": "The campaign is renamed.",
}


OPTION = "option."  # the prefix of the options form's fields


@router.post("/campaigns/{campaign_id}/settings/options")
async def change_options(campaign_id: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    form = await request.form()
    return await run_in_threadpool(
        _change_options, campaign_id=campaign_id, request=request, svc=svc, user=user, form=form
    )


@page
def _change_options(campaign_id: str, request: Request, svc: ServicesDep, user: MaybeUserDep, form: Any) -> Response:
    """Change the game's options from the settings page: those that differ from the campaign's now; a refusal (an
    open roll, a value out of range) comes back on the page, nothing changed."""
    assert user is not None
    state = member(svc, campaign_id, user)
    if not state.is_gm(user.user_id):
        raise Refused(403, "Only the GM changes the campaign's settings.")
    game = game_of(state)
    now = encode(state.game.options)
    try:
        given = options_from_form(game.option_specs, form, OPTION)
        changed = {k: v for k, v in given.items() if now.get(k) != v}
        if changed:  # nothing changed: nothing to record
            svc.table.execute(campaign_id, user.user_id, ChangeOptions(changed))
    except RulesError as err:
        said = labelled(err, {s.name: s.title for s in game.option_specs})
        return _settings_page(request, svc, user, state, error=said)
    done = "options" if changed else "same"
    return RedirectResponse(f"/campaigns/{campaign_id}/settings?done={done}#options-h", status_code=303)


@router.get("/campaigns/{campaign_id}/settings")
@page
def settings_page(campaign_id: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    """The GM's campaign settings: rename, archive or bring back, hand the GM role over, delete."""
    assert user is not None
    return _settings_page(request, svc, user, member(svc, campaign_id, user))


SETTINGS = frozenset({RenameCampaign.type, ArchiveCampaign.type, HandOver.type})  # what the settings form may change
SETTING_LABELS = {"name": "New name", "user": "New GM"}  # the fields as the settings form names them


@router.post("/campaigns/{campaign_id}/settings")
@page
def change_settings(
    campaign_id: str,
    request: Request,
    svc: ServicesDep,
    user: MaybeUserDep,
    type: str = Form(""),
    name: str = Form(""),
    archived: str = Form(""),
    to: str = Form(""),
) -> Response:
    """Rename, archive (or bring back) or hand over the campaign; a refusal comes back on the settings page."""
    assert user is not None
    state = member(svc, campaign_id, user)
    if type not in SETTINGS:
        raise Refused(404, "There is no such campaign setting.")
    body: dict[str, Any] = {"type": type}
    if type == RenameCampaign.type:
        body["name"] = name
    elif type == ArchiveCampaign.type:
        body["archived"] = archived != "false"
    else:
        body["user"] = to
    try:
        svc.table.execute(campaign_id, user.user_id, command_from_json(body))
    except RulesError as err:
        said = labelled(err, SETTING_LABELS)
        return _settings_page(request, svc, user, state, form={"name": name or state.name}, error=said)
    if type == HandOver.type:
        return RedirectResponse(f"/campaigns/{campaign_id}", status_code=303)
    done = "?done=renamed" if type == RenameCampaign.type else ""
    return RedirectResponse(f"/campaigns/{campaign_id}/settings{done}", status_code=303)


def _delete_page(
    request: Request, svc: ServicesDep, user: Any, state: TableState, *, typed: str = "", problem: str = ""
) -> Response:
    if not state.is_gm(user.user_id):
        raise Refused(403, "Only the GM deletes the campaign.")
    return render(
        request,
        "campaign_delete.html",
        svc,
        user,
        status=422 if problem else 200,
        campaign=state,
        typed=typed,
        problem=problem,
        name_length=NAME_LENGTH,
    )


@router.get("/campaigns/{campaign_id}/delete")
@page
def delete_page(campaign_id: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    """Deleting the campaign: its export offered first, then its name typed to confirm."""
    assert user is not None
    return _delete_page(request, svc, user, member(svc, campaign_id, user))


@router.post("/campaigns/{campaign_id}/delete")
@page
def delete_campaign(
    campaign_id: str, request: Request, svc: ServicesDep, user: MaybeUserDep, confirm_name: str = Form("")
) -> Response:
    """Delete the campaign once its GM typed its name; anything else changes nothing."""
    assert user is not None
    state = member(svc, campaign_id, user)
    if not state.is_gm(user.user_id):
        raise Refused(403, "Only the GM deletes the campaign.")
    if confirm_name.strip() != state.name.strip():
        problem = f"Type the campaign's name exactly, {state.name!r}, to delete it; nothing was deleted."
        return _delete_page(request, svc, user, state, typed=confirm_name, problem=problem)
    try:
        svc.table.delete_campaign(campaign_id, user.user_id)
    except UnknownCampaign:
        raise Refused(404, "There is no such campaign.") from None
    return RedirectResponse("/", status_code=303)
