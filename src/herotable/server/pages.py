"""Server-rendered pages (Jinja2 + htmx). Handlers only gather what the templates show and pass what the user
posted to the table service; the rules decide, and their errors are shown beside the form that caused them."""

from __future__ import annotations

import dataclasses
import functools
import re
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, ParamSpec, cast
from urllib.parse import urlsplit

from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from herotable.errors import InvalidSheet, Problem, RulesError
from herotable.server import (
    actions,
    board,
    games,  # noqa: F401  (importing it registers each game's presenter)
    portraits,
    rules_ref,
)
from herotable.server.api import accounts, campaigns, members
from herotable.server.api.tokens import NewToken, new_token, revoke_token, token_json
from herotable.server.auth import replace_password, stamp
from herotable.server.deps import MaybeUserDep, Services, ServicesDep, check_csrf
from herotable.server.options_form import option_fields, options_from_form
from herotable.server.presenter import listed, presenter_for
from herotable.server.security import digest
from herotable.service import LegacyCampaign, TableService
from herotable.store.accounts import User, UsernameTaken
from herotable.store.port import StoreError
from herotable.table import journal
from herotable.table.commands import InvalidCommand
from herotable.table.facts import FACT_TYPES
from herotable.table.game import Flag, LegalAction, game_for, game_of
from herotable.table.legal import legal_actions
from herotable.table.sheet_edits import may_change
from herotable.table.state import Role, Ruleset, TableState
from herotable.table.views import may_see_sheet

templates = Jinja2Templates(directory=Path(__file__).with_name("templates"))
templates.env.globals["dice_svg"] = board.dice_svg
templates.env.globals["game_title"] = lambda ruleset: game_for(Ruleset(ruleset)).title
router = APIRouter(dependencies=[Depends(check_csrf)])
P = ParamSpec("P")


def local_path(target: str) -> str:
    """`target` if it is a path on this site, else "/": a `next` parameter never leads off the site."""
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith(("//", "/\\")):
        return "/"
    return target


def render(request: Request, name: str, svc: ServicesDep, user: Any, status: int = 200, **context: Any) -> HTMLResponse:
    csrf = svc.sessions.csrf_token(request.state.session)
    shared = {"user": user, "csrf": csrf, "registration": svc.settings.registration}
    return templates.TemplateResponse(request, name, {**shared, **context}, status_code=status)


class Refused(Exception):
    """A page the user may not see: shown as a page with the reason, never as a stack trace."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def page(fn: Callable[P, Response]) -> Callable[P, Response]:
    """A page for logged-in members: anonymous visitors are sent to log in and come back; refusals render."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> Response:
        request = cast(Request, kwargs["request"])
        svc = cast(Services, kwargs["svc"])
        user = kwargs.get("user")
        if user is None:
            if request.headers.get("HX-Request"):
                return Response(status_code=401, headers={"HX-Redirect": f"/login?next={request.url.path}"})
            return RedirectResponse(f"/login?next={request.url.path}", status_code=303)
        try:
            return fn(*args, **kwargs)
        except Refused as refused:
            return render(request, "message.html", svc, user, status=refused.status, message=refused.message)

    return wrapper


def member(svc: Services, campaign_id: str, user: User) -> TableState:
    """The campaign, for its members only (404 when unknown, 403 for everyone else)."""
    try:
        state = svc.table.state(campaign_id)
    except LegacyCampaign as err:
        raise Refused(410, f"{err.reason}.") from None
    except StoreError:
        raise Refused(404, "There is no such campaign.") from None
    if not state.members:
        raise Refused(404, "There is no such campaign.")
    if state.role_of(user.user_id) is None:
        raise Refused(403, "You are not a member of this campaign. Ask its GM for an invitation link.")
    return state


# --- accounts ---


@router.get("/", response_class=HTMLResponse)
def index(request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    if user is None:
        return render(request, "login.html", svc, None)
    return render(request, "campaigns.html", svc, user, campaigns=campaigns.my_campaigns(svc, user), games=_games())


@router.get("/favicon.ico", include_in_schema=False)
def favicon() -> Response:
    """The icon, for a browser or a tool that asks for it where icons used to be (pages link it themselves)."""
    return RedirectResponse("/static/favicon.svg", status_code=308)


@router.get("/login", response_class=HTMLResponse)
def login_page(request: Request, svc: ServicesDep, user: MaybeUserDep, next: str = "/") -> Response:
    if user is not None:
        return RedirectResponse(local_path(next), status_code=303)
    return render(request, "login.html", svc, None, next=local_path(next))


@router.post("/login")
def login_form(
    request: Request, svc: ServicesDep, username: str = Form(...), password: str = Form(...), next: str = Form("/")
) -> Response:
    try:
        user = accounts.authenticate(request, svc, username, password)
    except HTTPException as err:
        return render(
            request, "login.html", svc, None, status=err.status_code, error=err.detail, username=username, next=next
        )
    response = RedirectResponse(local_path(next), status_code=303)
    accounts.login_session(request, response, svc, user)
    return response


@router.post("/register")
def register_form(
    request: Request,
    svc: ServicesDep,
    username: str = Form(...),
    password: str = Form(...),
    display_name: str = Form(...),
    next: str = Form("/"),
) -> Response:
    try:
        invited = next.removeprefix("/join/") if next.startswith("/join/") else None
        body = accounts.Registration(username=username, password=password, display_name=display_name, invite=invited)
        user = accounts.register_user(svc, body, request)
    except HTTPException as err:  # too many registrations from here (429), or too busy hashing (503)
        refused = render(
            request, "login.html", svc, None, status=err.status_code, register_error=err.detail, new_username=username
        )
        refused.headers.update(err.headers or {})
        return refused
    except ValidationError as err:
        first = err.errors()[0]
        message = f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}"
        return render(
            request, "login.html", svc, None, status=422, register_error=message, new_username=username, next=next
        )
    except UsernameTaken as err:
        return render(
            request, "login.html", svc, None, status=409, register_error=err.reason, new_username=username, next=next
        )
    response = RedirectResponse(local_path(next), status_code=303)
    accounts.login_session(request, response, svc, user)
    return response


@router.post("/logout")
def logout_form(request: Request, svc: ServicesDep) -> Response:
    """End this session: the cookie, even a copy saved before, no longer logs anyone in."""
    response = RedirectResponse("/", status_code=303)
    accounts.login_session(request, response, svc, None)
    return response


def _account(request: Request, svc: ServicesDep, user: User, status: int = 200, **context: Any) -> HTMLResponse:
    """The account page, with the user's API tokens and the campaigns a new one may be bound to."""
    now = stamp()
    return render(
        request,
        "account.html",
        svc,
        user,
        status=status,
        tokens=[token_json(t, now) for t in svc.accounts.tokens_of(user.user_id)],
        campaigns=[(state.campaign_id, state.name) for state, _ in svc.table.campaigns_of(user.user_id)],
        **context,
    )


@router.get("/account", response_class=HTMLResponse)
@page
def account_page(request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    assert user is not None
    return _account(request, svc, user)


@router.post("/account/tokens")
@page
def token_form(
    request: Request,
    svc: ServicesDep,
    user: MaybeUserDep,
    name: str = Form(""),
    scope: str = Form("play"),
    campaign_id: str = Form(""),
    days: str = Form(""),
) -> Response:
    """Make an API token: its text is shown on the page this once."""
    assert user is not None
    try:
        body = NewToken.model_validate(
            {"name": name, "scope": scope, "campaign_id": campaign_id or None, "days": days.strip() or None}
        )
        text, token = new_token(svc, user, body)
    except (ValidationError, ValueError):
        message = "Name the token (up to 60 characters), choose its scope, and give 1 to 365 days or none."
        return _account(request, svc, user, status=422, token_error=message)
    except HTTPException as err:
        return _account(request, svc, user, status=err.status_code, token_error=str(err.detail))
    return _account(request, svc, user, made=text, made_name=token.name)


@router.post("/account/tokens/{token_id}/revoke")
@page
def token_revoke_form(request: Request, svc: ServicesDep, user: MaybeUserDep, token_id: str) -> Response:
    assert user is not None
    if not revoke_token(request, svc, user, token_id):
        return _account(request, svc, user, status=404, token_error="You have no live token of this id.")
    return _account(request, svc, user, notice="The token is revoked: from now on it is refused.")


@router.post("/account/password")
@page
def password_form(
    request: Request,
    svc: ServicesDep,
    user: MaybeUserDep,
    current_password: str = Form(""),
    new_password: str = Form(""),
) -> Response:
    """Change the password; every other session of the account ends. Errors show on the form, nothing changed."""
    assert user is not None
    try:
        body = accounts.NewPassword(current_password=current_password, new_password=new_password)
        ended = accounts.change_password(request, svc, user, body)
    except ValidationError as err:
        field = str(err.errors()[0]["loc"][0])
        message = (
            "The new password needs 8 to 200 characters; nothing was changed."
            if field == "new_password"
            else "Give your current password; nothing was changed."
        )
        return _account(request, svc, user, status=422, error=message)
    except HTTPException as err:
        text = str(err.detail)
        return _account(request, svc, user, status=err.status_code, error=text[0].upper() + text[1:])
    others = f"{ended} other session{'' if ended == 1 else 's'}" if ended else "no other session"
    return _account(request, svc, user, notice=f"Your password is changed; {others} ended, and your API tokens too.")


@router.post("/account/logout-everywhere")
@page
def logout_everywhere_form(request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    assert user is not None
    response = RedirectResponse("/login", status_code=303)
    accounts.logout_everywhere(request, response, svc, user)
    return response


def _reset_refused(request: Request, svc: Services) -> Response:
    message = "This password link is unknown, used or expired. Ask the server's owner for a new one."
    return render(request, "message.html", svc, None, status=410, message=message)


@router.get("/reset/{token}", response_class=HTMLResponse)
def reset_page(token: str, request: Request, svc: ServicesDep) -> Response:
    user = svc.accounts.reset_user(digest(token), stamp())
    if user is None:
        return _reset_refused(request, svc)
    return render(request, "reset.html", svc, None, token=token, username=user.username)


@router.post("/reset/{token}")
def reset_form(token: str, request: Request, svc: ServicesDep, new_password: str = Form("")) -> Response:
    """Set a new password through a one-time link; every session of the account ends. A short password is
    refused beside the form and the link stays usable."""
    user = svc.accounts.reset_user(digest(token), stamp())
    if user is None:
        return _reset_refused(request, svc)
    if not 8 <= len(new_password) <= 200:
        message = "The new password needs 8 to 200 characters; nothing was changed."
        return render(request, "reset.html", svc, None, status=422, token=token, username=user.username, error=message)
    if svc.accounts.use_reset(digest(token), stamp()) is None:  # spent by a request a moment ago
        return _reset_refused(request, svc)
    replace_password(svc.accounts, svc.guard.gate, user, new_password, keep=None)
    accounts.sessions_ended(request, user.user_id)
    notice = "Your password is set and every session of the account ended. Log in with the new password."
    return render(request, "login.html", svc, None, notice=notice, username=user.username)


@router.get("/join/{code}", response_class=HTMLResponse, name="join_page")
def join_page(code: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    invite = svc.accounts.invite(code)
    if invite is None:
        return render(
            request,
            "message.html",
            svc,
            user,
            status=404,
            message="This invitation is unknown or was withdrawn. Ask the GM for a new link.",
        )
    state = svc.table.state(invite.campaign_id)
    if user is None:
        how = "Log in" if svc.settings.registration == "closed" else "Log in or register"
        return render(
            request,
            "login.html",
            svc,
            None,
            next=f"/join/{code}",
            notice=f"{how} to join {state.name}.",
        )
    if state.role_of(user.user_id) is not None:
        return RedirectResponse(f"/campaigns/{invite.campaign_id}", status_code=303)
    return render(request, "join.html", svc, user, code=code, campaign=state, role=invite.role)


@router.post("/join/{code}")
def join_form(
    code: str, request: Request, svc: ServicesDep, user: MaybeUserDep, display_name: str = Form("")
) -> Response:
    if user is None:
        return RedirectResponse(f"/join/{code}", status_code=303)
    try:
        campaign_id = members.join_with_code(svc, code, user, display_name.strip() or None)
    except HTTPException as err:
        text = str(err.detail)
        return render(request, "message.html", svc, user, status=err.status_code, message=text[0].upper() + text[1:])
    return RedirectResponse(f"/campaigns/{campaign_id}", status_code=303)


# --- campaigns ---


def _games(typed: Any = None) -> list[dict[str, Any]]:
    """The games a new campaign may play, as the form lists them, each with its options at their defaults, or as
    `typed` (the form sent back after a refusal) had them."""
    out = []
    for p in listed():
        game = game_for(p.ruleset)
        prefix = f"option.{p.ruleset.value}."
        values = dict(game.default_options())
        for spec in game.option_specs:
            raw = typed.get(prefix + spec.name) if typed is not None else None
            if raw is not None:  # a box ticked sends "true" after its hidden "false": the last one counts
                values[spec.name] = raw == "true" if isinstance(spec.domain, Flag) else str(raw)
        fields = option_fields(game.option_specs, values, prefix)
        out.append({"value": p.ruleset.value, "title": game.title, "blurb": p.blurb, "options": fields})
    return out


@router.post("/campaigns")
async def new_campaign(request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    form = await request.form()
    return await run_in_threadpool(_new_campaign, request=request, svc=svc, user=user, form=form)


@page
def _new_campaign(request: Request, svc: ServicesDep, user: MaybeUserDep, form: Any) -> Response:
    """A new campaign from the form: its name, its game, and that game's options (the other games' are ignored)."""
    assert user is not None
    name, ruleset = str(form.get("name", "")), str(form.get("ruleset", ""))
    try:
        body = campaigns.NewCampaign(name=name.strip(), ruleset=ruleset)
        game = game_for(Ruleset(body.ruleset))
        chosen = options_from_form(game.option_specs, form, f"option.{body.ruleset}.")
        created = campaigns.new_campaign(svc, user, body.model_copy(update={"options": chosen}))
    except ValidationError as err:
        field = str(err.errors()[0]["loc"][0])
        titles = " or ".join(g["title"] for g in _games())
        message = "give the campaign a name" if field == "name" else f"choose {titles}"
        return _campaigns_again(request, svc, user, form, {field: message})
    except InvalidCommand as err:
        said = labelled(err, {s.name: s.title for s in game.option_specs})
        return _campaigns_again(request, svc, user, form, {"options": f"{said.reason}: {said.fix}"})
    # the first thing a new GM does is invite the players: their link is waiting on the campaign's page, to copy
    members.make_invite(created, members.NewInvite(), svc, user)
    return RedirectResponse(f"/campaigns/{created}", status_code=303)


def _campaigns_again(request: Request, svc: Services, user: User, form: Any, errors: dict[str, str]) -> Response:
    """The campaigns page again, with what was typed and what is wrong with it; nothing was made."""
    return render(
        request,
        "campaigns.html",
        svc,
        user,
        status=422,
        campaigns=campaigns.my_campaigns(svc, user),
        games=_games(form),
        errors=errors,
        form={"name": form.get("name", ""), "ruleset": form.get("ruleset", "")},
    )


@router.get("/campaigns/{campaign_id}", response_class=HTMLResponse)
@page
def campaign_page(campaign_id: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    assert user is not None
    state = member(svc, campaign_id, user)
    gm = state.is_gm(user.user_id)
    invites = members.invites_with_uses(svc, state, request) if gm else []
    return render(
        request,
        "campaign.html",
        svc,
        user,
        campaign=state,
        gm=gm,
        role=state.role_of(user.user_id),
        invites=invites,
        characters=_character_rows(state, user.user_id),
        retired=_retired_rows(state, user.user_id),
    )


def _character_rows(state: TableState, user: str) -> list[dict[str, Any]]:
    who = state.names()
    return [
        {
            "id": c.id,
            "name": c.name,
            "owner": who.get(c.owner, c.owner),
            "npc": c.npc,
            "hidden": c.hidden,
            "readable": may_see_sheet(state, user, c.id),
            "editable": may_change(state, user, c.owner) and not state.archived,
        }
        for c in state.characters
    ]


def _retired_rows(state: TableState, user: str) -> list[dict[str, Any]]:
    """Retired characters: their names for every member, bringing back and deleting for their player and the GM."""
    who = state.names()
    return [
        {
            "id": s.ref.id,
            "name": s.ref.name,
            "owner": who.get(s.ref.owner, s.ref.owner),
            "editable": may_change(state, user, s.ref.owner) and not state.archived,
        }
        for s in state.retired
    ]


@router.post("/campaigns/{campaign_id}/invites")
@page
def invite_form(
    campaign_id: str,
    request: Request,
    svc: ServicesDep,
    user: MaybeUserDep,
    role: str = Form("player"),
    days: str = Form("7"),
    max_uses: str = Form(""),
) -> Response:
    assert user is not None
    member(svc, campaign_id, user)
    try:
        body = members.NewInvite.model_validate(
            {"role": role, "days": days or "7", "max_uses": max_uses.strip() or None}, strict=False
        )
        members.make_invite(campaign_id, body, svc, user)
    except (HTTPException, ValidationError) as err:
        detail = err.detail if isinstance(err, HTTPException) else _invite_problem(err)
        raise Refused(getattr(err, "status_code", 422), f"No invitation was made: {detail}.") from None
    return RedirectResponse(f"/campaigns/{campaign_id}#invites", status_code=303)


def _invite_problem(err: ValidationError) -> str:
    field = str(err.errors()[0]["loc"][0])
    return {
        "days": "a link works for 1 to 30 days",
        "max_uses": "allow 1 to 100 joins, or leave it empty for no limit",
    }.get(field, "invite a player or a spectator")


@router.post("/campaigns/{campaign_id}/invites/{code}/withdraw")
@page
def withdraw_invite(campaign_id: str, code: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    assert user is not None
    state = member(svc, campaign_id, user)
    found = svc.accounts.invite(code)
    if not state.is_gm(user.user_id) or found is None or found.campaign_id != campaign_id:
        raise Refused(403, "Only the GM withdraws this campaign's invitations.")
    svc.accounts.revoke_invite(code)
    return RedirectResponse(f"/campaigns/{campaign_id}#invites", status_code=303)


@router.post("/campaigns/{campaign_id}/members/{member_id}/remove")
@page
def remove_member_form(
    campaign_id: str, member_id: str, request: Request, svc: ServicesDep, user: MaybeUserDep
) -> Response:
    """The GM removes a member, or a member leaves (their own id)."""
    assert user is not None
    member(svc, campaign_id, user)
    try:
        members.remove(svc, campaign_id, user, member_id)
    except RulesError as err:
        raise Refused(403, f"{err.reason}. {err.fix.capitalize()}.") from None
    return RedirectResponse("/" if member_id == user.user_id else f"/campaigns/{campaign_id}", status_code=303)


# --- character sheets ---


def _slug(name: str, state: TableState) -> str:
    base = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:24] or "character"
    taken = {c.id for c in state.characters}
    cid, n = base, 1
    while cid in taken:
        n += 1
        cid = f"{base}-{n}"
    return cid


def _sheet_context(state: TableState, user: User) -> dict[str, Any]:
    gm = state.is_gm(user.user_id)
    return {
        "campaign": state,
        "gm": gm,
        "members": [(m.user, m.name) for m in state.members if m.role is not Role.SPECTATOR],
        **presenter_for(state).sheets.context(),
    }


@router.get("/campaigns/{campaign_id}/characters/new", response_class=HTMLResponse)
@page
def new_character(campaign_id: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    assert user is not None
    state = member(svc, campaign_id, user)
    if state.role_of(user.user_id) is Role.SPECTATOR:
        raise Refused(403, "Spectators watch the table; ask the GM to make you a player to build a hero.")
    template = presenter_for(state).sheets.template
    return render(request, template, svc, user, form={}, errors={}, others=[], **_sheet_context(state, user))


@router.post("/campaigns/{campaign_id}/characters")
async def create_character(campaign_id: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    form = await request.form()
    return await run_in_threadpool(
        _create_character, campaign_id=campaign_id, request=request, svc=svc, user=user, form=form
    )


@page
def _create_character(campaign_id: str, request: Request, svc: ServicesDep, user: MaybeUserDep, form: Any) -> Response:
    """Create the character, or show the sheet again with each problem beside its field and nothing written."""
    assert user is not None
    state = member(svc, campaign_id, user)
    values = {k: str(v) for k, v in form.items()}
    gm = state.is_gm(user.user_id)
    npc, hidden = gm and values.get("npc") == "true", gm and values.get("hidden") == "true"
    owner = values.get("owner") or user.user_id if gm else None
    cid = values.get("character", "").strip() or _slug(values.get("name", ""), state)
    editor = presenter_for(state).sheets
    read = editor.read(values, form)
    problems = list(read.problems)
    try:
        if not problems:
            cmd = editor.command(cid, read.sheet, owner=owner, npc=npc, hidden=hidden)
            svc.table.execute(campaign_id, user.user_id, cmd)
            return RedirectResponse(f"/campaigns/{campaign_id}/characters/{cid}", status_code=303)
    except InvalidSheet as err:
        problems += list(err.problems)
    except RulesError as err:
        field = "name" if err.code == "character/name" else "character" if err.code == "character/id" else ""
        problems = [Problem(field or "sheet", f"{err.reason}. {err.fix.capitalize()}.")]
    errors: dict[str, list[str]] = {}
    keys = editor.keys()
    for p in problems:
        key = read.field_of(p)
        beside = key in keys or key.startswith("feat_")
        errors.setdefault(key if beside else "sheet", []).append(p.message if beside else f"{p.field}: {p.message}")
    template = editor.template
    chosen = {
        "roles": form.getlist("roles"),
        "feats": form.getlist("feats"),
        "uncounted_feats": form.getlist("uncounted_feats"),
    }
    return render(
        request,
        template,
        svc,
        user,
        status=422,
        form=values,
        chosen=chosen,
        errors=errors,
        **_sheet_context(state, user),
    )


@router.get("/campaigns/{campaign_id}/characters/{cid}", response_class=HTMLResponse)
@page
def character_page(campaign_id: str, cid: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    assert user is not None
    state = member(svc, campaign_id, user)
    found = next((c for c in state.characters if c.id == cid), None)
    if found is None:
        raise Refused(404, "There is no such character in this campaign.")
    if not may_see_sheet(state, user.user_id, cid):
        raise Refused(403, f"{found.name}'s sheet is the GM's secret.")
    hero = state.game.heroes[cid]
    context: dict[str, Any] = {
        "campaign": state,
        "character": found,
        "hero": hero,
        "owner": state.names().get(found.owner),
        "editable": may_change(state, user.user_id, found.owner) and not state.archived,
    }
    sheets = presenter_for(state).sheets
    context.update(sheets.view(hero), sheet_view=sheets.view_template)
    return render(request, "sheet_view.html", svc, user, **context)


# --- the rules reference ---


@router.get("/rules", response_class=HTMLResponse)
def rules_page(request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    """Both games' rules as herotable runs them, an anchor per ruling: what a rule id on the table links to."""
    try:
        found = rules_ref.books()
    except FileNotFoundError as err:
        return render(request, "message.html", svc, user, status=404, message=f"No rules reference here: {err}.")
    return render(request, "rules.html", svc, user, books=found)


# --- the table ---


def _table_context(state: TableState, uid: str, digests: dict[str, str]) -> dict[str, Any]:
    """What the table page's panels show one viewer (a member's user id): the board, their legal actions laid out
    where they apply, the turn tracker, and the portraits they may see (of the store's `digests`, by character). The
    same for every viewer of one audience (the GM, a player, every spectator), so a live frame renders it once per
    audience; nothing in it belongs to one login session."""
    gm = state.is_gm(uid)
    face = presenter_for(state)
    laid = actions.panel(state, legal_actions(state, uid), face.layout, gm=gm)
    shown = board.build(state, uid, face.read_board)
    return {
        "campaign": state,
        "gm": gm,
        "role": state.role_of(uid),
        "who": state.names(),
        "board": shown,
        "laid": laid,
        "checks": face.chances(state, uid, laid),
        "odds_panels": face.odds_panels(laid),
        "panels": face.panels,
        "own": [c for c in state.characters if c.owner == uid],
        "alerts": _alerts(shown, laid, gm),
        "portraits": portraits.shown(state, uid, digests),
        "journal": journal.readable(state, uid),
    }


def _alerts(shown: board.Board, laid: actions.Panel, gm: bool) -> str:
    """What the page toasts when it changes: the viewer's calls, their turn, and (the GM) open requests. The page
    keeps the last set it saw and toasts only what is new."""
    keys = [f"call:{c}" for c in laid.calls] if not gm else []
    if shown.turns is not None and shown.turns["yours"]:  # the viewer's own fighters whose turn it is, this round:
        turns = shown.turns  # others acting meanwhile is no news to them
        own = sorted(e["id"] for g in turns["groups"] for e in g if e["mine"] and e["id"] in turns["turn"])
        keys.append(f"turn:{turns['round']}:{','.join(own)}")
    if gm:
        keys += [f"request:{r.id}" for r in shown.requests]
    return " ".join(keys)


ODDS_CACHED = 512  # odds panels kept per server, by campaign, state and viewer
OddsPanel = list[dict[str, Any]]
_odds_caches: weakref.WeakKeyDictionary[TableService, OrderedDict[tuple[str, int, str], OddsPanel]] = (
    weakref.WeakKeyDictionary()
)
_odds_lock = threading.Lock()


def _odds_context(svc: TableService, state: TableState, uid: str, acts: list[LegalAction]) -> OddsPanel:
    """The odds panel, computed once per campaign state and viewer: every reload of the panel after it, until
    something happens at the table, reads it from memory (the odds of a state never change)."""
    key = (state.campaign_id, state.seq, uid)
    with _odds_lock:
        cache = _odds_caches.setdefault(svc, OrderedDict())
        found = cache.get(key)
        if found is not None:
            cache.move_to_end(key)
            return found
    duels = presenter_for(state).duels
    made = duels.panel(state, uid, acts) if duels is not None else []
    with _odds_lock:
        cache[key] = made
        while len(cache) > ODDS_CACHED:
            cache.popitem(last=False)
    return made


TABLE_PARTS = ("bar", "play")  # the log and the chat serve themselves (herotable.server.chat)


@router.get("/campaigns/{campaign_id}/table", response_class=HTMLResponse)
@page
def table_page(campaign_id: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    assert user is not None
    state = member(svc, campaign_id, user)
    context = _table_context(state, user.user_id, svc.table.store.portrait_digests(campaign_id))
    # where the page's panels stand in the member's stream: its socket carries on from there, so its first frame
    # holds only what happened after the page was drawn, never the panels again
    cursor = svc.table.cursor_of(state, user.user_id)  # None: the socket says hello instead
    return render(request, "table.html", svc, user, cursor=cursor, **context)


FORM_ID = re.compile(r"[A-Za-z0-9_-]{1,200}")


@router.get("/campaigns/{campaign_id}/table/form", response_class=HTMLResponse)
@page
def table_form(
    campaign_id: str, request: Request, svc: ServicesDep, user: MaybeUserDep, key: str = "", id: str = ""
) -> Response:
    """One action's form, loaded when its section is first opened (`key`: the action's, `id`: its section's, which
    names the form's controls): the table page carries the sections' titles, not every form in them."""
    assert user is not None
    state = member(svc, campaign_id, user)
    if not FORM_ID.fullmatch(id):
        raise Refused(422, "The form's section id is letters, digits, '-' and '_': open the section from the table.")
    laid = actions.panel(
        state, legal_actions(state, user.user_id), presenter_for(state).layout, gm=state.is_gm(user.user_id)
    )
    return render(request, "parts/form.html", svc, user, cid=campaign_id, action=laid.find(key), id=id)


@router.get("/campaigns/{campaign_id}/table/odds", response_class=HTMLResponse)
@page
def table_odds(
    campaign_id: str, request: Request, svc: ServicesDep, user: MaybeUserDep, actor: str = "", inline: str = ""
) -> Response:
    """The odds of the viewer's attacks: every choice's odds and the chart of how the conflict may end, for each
    fighter against each opponent (or one fighter's, `actor`); with `inline`, only the line beside the attack (win
    this exchange, win the conflict). Computed when asked, once per state and viewer."""
    assert user is not None
    state = member(svc, campaign_id, user)
    acts = svc.table.legal_actions(campaign_id, user.user_id)
    pairs = [p for p in _odds_context(svc.table, state, user.user_id, acts) if not actor or p["actor_id"] == actor]
    name = "parts/odds_inline.html" if inline else "parts/odds.html"
    conflict = game_of(state).board(state, user.user_id).conflict is not None
    return render(request, name, svc, user, campaign=state, odds=pairs, conflict=conflict)


@router.get("/campaigns/{campaign_id}/table/{part}", response_class=HTMLResponse)
@page
def table_part(campaign_id: str, part: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    """One panel of the table page: the live frames carry them, and a page fetches one itself after it held a
    frame back while its user was filling in a form there."""
    assert user is not None
    if part not in TABLE_PARTS:
        raise Refused(404, "There is no such part of the table page.")
    state = member(svc, campaign_id, user)
    digests = svc.table.store.portrait_digests(campaign_id)
    return render(request, f"parts/{part}.html", svc, user, **_table_context(state, user.user_id, digests))


def live_fragments(state: TableState, uid: str, digests: dict[str, str]) -> str:
    """The table page's panels for one audience as htmx out-of-band fragments, for a live frame: rendered once per
    audience and sent to each of its sockets. Forms carry no session's CSRF token here; the page fills in its own."""
    context = {"csrf": "", "user": None, **_table_context(state, uid, digests)}
    return "".join(templates.get_template(f"parts/{part}.html").render(context, oob=True) for part in ("bar", "play"))


@router.post("/campaigns/{campaign_id}/table/act")
async def act(campaign_id: str, request: Request, svc: ServicesDep, user: MaybeUserDep) -> Response:
    form = await request.form()
    return await run_in_threadpool(_act, campaign_id=campaign_id, request=request, svc=svc, user=user, form=form)


@page
def _act(campaign_id: str, request: Request, svc: ServicesDep, user: MaybeUserDep, form: Any) -> Response:
    """Run one table command from an action form. The answer is a fragment for the form's result area."""
    assert user is not None
    state = member(svc, campaign_id, user)
    htmx = bool(request.headers.get("HX-Request"))
    try:
        applied = svc.table.execute(campaign_id, user.user_id, actions.command_from_form(form))
    except RulesError as err:
        said = _in_form_words(state, form, err)
        if not htmx:
            message = f"{said.reason} ({said.ruling}). Tip: {said.fix}"
            return render(
                request, "message.html", svc, user, status=409, message=message, back=f"/campaigns/{campaign_id}/table"
            )
        return render(request, "parts/result.html", svc, user, error=said)
    if not htmx:
        return RedirectResponse(f"/campaigns/{campaign_id}/table", status_code=303)
    done, dice = _done_text(applied)
    # a roll this action made public and final: its answer follows the roll to its roller's card once it is gone
    settled = any(getattr(FACT_TYPES.get(e.type), "reveals", None) for e in applied.events)
    response = render(request, "parts/result.html", svc, user, done=done, dice=dice, settled=settled)
    response.headers["HX-Trigger"] = "acted"
    return response


@dataclasses.dataclass(frozen=True)
class Said:
    """A refusal as a form shows it: its words, with the field it names called by the form's label."""

    code: str
    reason: str
    fix: str
    ruling: str
    problems: tuple[Any, ...] = ()


def _in_form_words(state: TableState, form: Any, err: RulesError) -> Any:
    """A refusal about one field of the form (a number out of its range, a text too long) names the field as the form
    labels it, not as the command spells it ("Situational modifier is 5", not "shift is 5")."""
    field = getattr(err, "field", "")
    if not field:
        return err
    label = actions.field_label(presenter_for(state).layout, str(form.get("type", "")), field)
    return labelled(err, {field: label})


def labelled(err: RulesError, labels: Mapping[str, str]) -> Any:
    """A refusal with the field it names called by its form's label (`labels`: field → label), as a page shows it;
    the refusal itself where it names no field the form labels."""
    field = str(getattr(err, "field", "") or "")
    if field not in labels:
        return err
    label = re.sub(r"\s*\(.*?\)", "", labels[field])  # the words, without the range the label spells out
    named = re.compile(rf"\b{re.escape(field)}\b")
    within = label if label[:2].isupper() else label[:1].lower() + label[1:]  # "new GM", not "new gm"
    reason, fix = named.sub(label, err.reason, count=1), named.sub(within, err.fix)
    return Said(err.code, reason[:1].upper() + reason[1:], fix, err.ruling)


def _done_text(applied: Any) -> tuple[str, Any]:
    """What the answer says: the action's first fact in words (its outcome, where it has one), and every die it
    rolled that its actor may see, drawn as dice."""
    from herotable.table.facts import read_fact
    from herotable.table.render import render as say
    from herotable.table.views import may_see

    said: list[str] = []
    faces: list[tuple[int, int]] = []
    for e in applied.events:
        if not may_see(applied.state, e.actor, e.visibility, e.owner):
            continue
        f = read_fact(e.type, e.version, e.data)
        faces += f.dice_faces()
        text = say(applied.state, f)
        if text and (not said or f.news):
            said.append(text)
    dice = board.dice_svg([board.Die(sides, face) for sides, face in faces]) if faces else ""
    return ("; ".join(said) or "Done."), dice
