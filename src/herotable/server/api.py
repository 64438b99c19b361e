"""The REST API under /api/v1: thin handlers that ask the table service and the account store."""

from __future__ import annotations

import secrets
import uuid
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, HTTPException, Query, Request, Response
from pydantic import BaseModel, Field

from herotable.server import odds_panel
from herotable.server.deps import COOKIE, ServicesDep, UserDep, check_csrf
from herotable.server.live import seen_json
from herotable.server.schemas import CommandBody, body_json, command_model
from herotable.server.security import SESSION_MAX_AGE_S, check_password, hash_password
from herotable.service import LegacyCampaign, utc_now
from herotable.store.accounts import Invite, User
from herotable.store.export import export_campaign
from herotable.table.commands import COMMANDS, command_from_json
from herotable.table.state import Role, Ruleset, TableState
from herotable.table.structure import Join, RemoveMember

router = APIRouter(prefix="/api/v1", dependencies=[Depends(check_csrf)])


class Credentials(BaseModel):
    username: str = Field(min_length=3, max_length=40, pattern=r"^[A-Za-z0-9_.-]+$")
    password: str = Field(min_length=8, max_length=200)


class Registration(Credentials):
    display_name: str = Field(min_length=1, max_length=60)


class NewCampaign(BaseModel):
    name: str = Field(min_length=1, max_length=100)
    ruleset: Ruleset


class NewInvite(BaseModel):
    role: Role = Role.PLAYER


class JoinRequest(BaseModel):
    display_name: str | None = Field(default=None, max_length=60)


def user_json(user: User) -> dict[str, str]:
    return {"user_id": user.user_id, "username": user.username, "display_name": user.display_name}


def login_session(request: Request, response: Response, svc: ServicesDep, user: User | None) -> None:
    """Start a fresh session (a new id, so a pre-login CSRF token dies with the old one)."""
    new = svc.sessions.new(user.user_id if user else None)
    request.state.session = new
    set_session_cookie(response, svc, new)


def set_session_cookie(response: Response, svc: ServicesDep, session: Any) -> None:
    response.set_cookie(
        COOKIE,
        svc.sessions.dump(session),
        max_age=SESSION_MAX_AGE_S,
        httponly=True,
        samesite="lax",
        secure=svc.settings.secure_cookies,
    )


def register_user(svc: ServicesDep, body: Registration) -> User:
    user = User(
        uuid.uuid4().hex[:16], body.username.lower(), body.display_name.strip(), hash_password(body.password), utc_now()
    )
    return svc.accounts.add_user(user)


def authenticate(request: Request, svc: ServicesDep, username: str, password: str) -> User:
    """The user with these credentials; refuses (429) after too many failures for this name and address."""
    key = f"{username.lower()}|{request.client.host if request.client else '-'}"
    wait = svc.limiter.retry_after(key)
    if wait > 0:
        raise HTTPException(
            429, f"too many failed logins; try again in {int(wait) + 1} s", headers={"Retry-After": str(int(wait) + 1)}
        )
    user = svc.accounts.user_by_name(username.lower())
    if user is None or not check_password(user.password_hash, password):
        svc.limiter.failed(key)
        raise HTTPException(401, "unknown username or wrong password")
    svc.limiter.succeeded(key)
    return user


def member_state(svc: ServicesDep, campaign_id: str, user: User) -> TableState:
    """The campaign's state, for one of its members only (403 otherwise)."""
    state = svc.table.state(campaign_id)
    if state.role_of(user.user_id) is None:
        raise HTTPException(403, "you are not a member of this campaign")
    return state


# --- accounts ---


@router.get("/csrf")
def csrf(request: Request, svc: ServicesDep) -> dict[str, str]:
    """The CSRF token of this session: send it as the X-CSRF-Token header on every unsafe request."""
    return {"csrf_token": svc.sessions.csrf_token(request.state.session)}


@router.post("/auth/register", status_code=201)
def register(body: Registration, request: Request, response: Response, svc: ServicesDep) -> dict[str, Any]:
    user = register_user(svc, body)
    login_session(request, response, svc, user)
    return {"user": user_json(user), "csrf_token": svc.sessions.csrf_token(request.state.session)}


@router.post("/auth/login")
def login(body: Credentials, request: Request, response: Response, svc: ServicesDep) -> dict[str, Any]:
    user = authenticate(request, svc, body.username, body.password)
    login_session(request, response, svc, user)
    return {"user": user_json(user), "csrf_token": svc.sessions.csrf_token(request.state.session)}


@router.post("/auth/logout")
def logout(request: Request, response: Response, svc: ServicesDep) -> dict[str, Any]:
    login_session(request, response, svc, None)
    return {"csrf_token": svc.sessions.csrf_token(request.state.session)}


@router.get("/me")
def me(user: UserDep) -> dict[str, str]:
    return user_json(user)


# --- campaigns ---


def my_campaigns(svc: ServicesDep, user: User) -> list[dict[str, Any]]:
    out = []
    for row in svc.table.store.campaigns():
        try:
            state = svc.table.state(row.campaign_id)
        except LegacyCampaign:
            continue
        role = state.role_of(user.user_id)
        if role is not None:
            out.append(
                {
                    "campaign_id": row.campaign_id,
                    "name": state.name,
                    "ruleset": state.ruleset.value,
                    "role": role.value,
                    "members": len(state.members),
                }
            )
    return out


@router.get("/campaigns")
def campaigns(svc: ServicesDep, user: UserDep) -> list[dict[str, Any]]:
    return my_campaigns(svc, user)


@router.post("/campaigns", status_code=201)
def create_campaign(body: NewCampaign, svc: ServicesDep, user: UserDep) -> dict[str, Any]:
    state = svc.table.create_campaign(user.user_id, user.display_name, body.name, body.ruleset)
    return svc.table.view(state.campaign_id, user.user_id)


@router.get("/campaigns/{campaign_id}")
def campaign(campaign_id: str, svc: ServicesDep, user: UserDep) -> dict[str, Any]:
    member_state(svc, campaign_id, user)
    return svc.table.view(campaign_id, user.user_id)


def cursor_query() -> Any:
    """A fresh Query per parameter: FastAPI binds a Query object to the first parameter that uses it."""
    return Query(default=None, max_length=40, description="An opaque cursor from an earlier page or live frame.")


@router.get("/campaigns/{campaign_id}/events")
def events(
    campaign_id: str,
    svc: ServicesDep,
    user: UserDep,
    after: str | None = cursor_query(),
    before: str | None = cursor_query(),
    limit: Annotated[int, Query(ge=1, le=500)] = 200,
) -> dict[str, Any]:
    """Your own stream of the log, numbered for you alone: `after` a cursor to catch up (oldest first), `before` one
    to page back, neither for the newest page. `first` and `last` are the cursors around the page."""
    state = member_state(svc, campaign_id, user)
    page = svc.table.stream(campaign_id, user.user_id, after=after, before=before, limit=limit, untrusted=True)
    return {"events": [seen_json(state, s) for s in page.seen], "first": page.first, "last": page.last}


@router.get("/campaigns/{campaign_id}/actions")
def actions(campaign_id: str, svc: ServicesDep, user: UserDep) -> dict[str, Any]:
    """Every command you may issue now, each field with its domain (`fixed` fields are sent as given)."""
    member_state(svc, campaign_id, user)
    return {"actions": [a.to_json() for a in svc.table.legal_actions(campaign_id, user.user_id)]}


@router.post("/campaigns/{campaign_id}/commands")
def command(campaign_id: str, svc: ServicesDep, user: UserDep, body: Annotated[CommandBody, Body()]) -> dict[str, Any]:
    """Run one table command (`{"type": "ltl.challenge", ...}`); GET …/actions lists what you may send now.

    The answer holds the command's id, everything new in your own stream since just before it (the command's facts
    you may see, and any another member's command landed meanwhile, each with its `command_id`), the cursor after
    them to catch up from, and your view. A command whose facts are all hidden from you (a roll against a hidden
    villain's sheet) has no events for you."""
    member_state(svc, campaign_id, user)
    start = svc.table.head_cursor(campaign_id, user.user_id)
    command_id = uuid.uuid4().hex
    applied = svc.table.execute(campaign_id, user.user_id, command_from_json(body_json(body)), command_id=command_id)
    page = svc.table.stream(campaign_id, user.user_id, after=start, limit=500)
    return {
        "command_id": command_id,
        "events": [seen_json(applied.state, s) for s in page.seen],
        "cursor": page.last,
        "view": svc.table.view(campaign_id, user.user_id),
    }


@router.get("/commands")
def command_types() -> dict[str, Any]:
    """Every command type with its fields and their JSON schema."""
    out: dict[str, Any] = {}
    for name, spec in sorted(COMMANDS.items()):
        schema = command_model(name).model_json_schema()
        out[name] = {
            "doc": (spec.cls.__doc__ or "").strip().split("\n")[0],
            "fields": [f for f in spec.cls.__dataclass_fields__],
            "schema": schema,
        }
    return out


@router.post("/campaigns/{campaign_id}/invites", status_code=201)
def invite(campaign_id: str, body: NewInvite, request: Request, svc: ServicesDep, user: UserDep) -> dict[str, str]:
    state = member_state(svc, campaign_id, user)
    if not state.is_gm(user.user_id):
        raise HTTPException(403, "only the GM invites")
    if body.role is Role.GM:
        raise HTTPException(422, "a campaign has one GM; invite players or spectators")
    code = secrets.token_urlsafe(9)
    now = datetime.now(UTC)
    expires = (now + timedelta(days=7)).isoformat(timespec="microseconds")
    svc.accounts.add_invite(Invite(code, campaign_id, body.role.value, now.isoformat(timespec="microseconds"), expires))
    return {"code": code, "role": body.role.value, "link": str(request.url_for("join_page", code=code))}


@router.get("/campaigns/{campaign_id}/invites")
def invites(campaign_id: str, svc: ServicesDep, user: UserDep) -> list[dict[str, str]]:
    state = member_state(svc, campaign_id, user)
    if not state.is_gm(user.user_id):
        raise HTTPException(403, "only the GM sees the invitations")
    return [{"code": i.code, "role": i.role} for i in svc.accounts.invites_for(campaign_id)]


@router.delete("/campaigns/{campaign_id}/invites/{code}")
def withdraw_invite(campaign_id: str, code: str, svc: ServicesDep, user: UserDep) -> dict[str, str]:
    """The GM withdraws an invitation; its link stops working."""
    state = member_state(svc, campaign_id, user)
    if not state.is_gm(user.user_id):
        raise HTTPException(403, "only the GM withdraws invitations")
    found = svc.accounts.invite(code)
    if found is None or found.campaign_id != campaign_id:
        raise HTTPException(404, "no such invitation in this campaign")
    svc.accounts.revoke_invite(code)
    return {"withdrawn": code}


def join_with_code(svc: ServicesDep, code: str, user: User, display_name: str | None) -> str:
    found = svc.accounts.invite(code)
    if found is None:
        raise HTTPException(404, "this invitation is unknown or was withdrawn; ask the GM for a new link")
    svc.table.execute(found.campaign_id, user.user_id, Join(display_name or user.display_name, Role(found.role)))
    return found.campaign_id


@router.post("/join/{code}")
def join(code: str, body: JoinRequest, svc: ServicesDep, user: UserDep) -> dict[str, Any]:
    campaign_id = join_with_code(svc, code, user, body.display_name)
    return svc.table.view(campaign_id, user.user_id)


@router.delete("/campaigns/{campaign_id}/members/{member}")
def remove_member(campaign_id: str, member: str, svc: ServicesDep, user: UserDep) -> dict[str, Any]:
    """The GM removes a member, or a member leaves (their own id)."""
    member_state(svc, campaign_id, user)
    svc.table.execute(campaign_id, user.user_id, RemoveMember(member))
    return {"removed": member}


@router.get("/campaigns/{campaign_id}/export")
def export(campaign_id: str, svc: ServicesDep, user: UserDep) -> dict[str, Any]:
    state = member_state(svc, campaign_id, user)
    if not state.is_gm(user.user_id):
        raise HTTPException(403, "only the GM exports the whole campaign")
    return export_campaign(svc.table.store, campaign_id)


# --- odds (never decide: they show what each choice is worth) ---


@router.get("/campaigns/{campaign_id}/odds/exchange")
def odds_exchange(
    campaign_id: str,
    actor: str,
    target: str,
    svc: ServicesDep,
    user: UserDep,
    style: str | None = None,
    target_style: str | None = None,
) -> dict[str, Any]:
    """The actor's options this round against the target, with the exchange and whole-duel odds of each."""
    state = member_state(svc, campaign_id, user)
    acts = svc.table.legal_actions(campaign_id, user.user_id)
    offered = any(a.type == "ltl.attack" and a.fixed.get("actor") == actor for a in acts)
    return odds_panel.exchange_odds(state, user.user_id, actor, target, style, target_style, acts if offered else None)


@router.get("/campaigns/{campaign_id}/odds/check")
def odds_check(campaign_id: str, bonus: int, dc: int, svc: ServicesDep, user: UserDep) -> dict[str, Any]:
    """A Conviction check's chance with and without a Conviction re-roll or a Quotable Wit."""
    member_state(svc, campaign_id, user)
    return odds_panel.check_odds(bonus, dc)


@router.get("/campaigns/{campaign_id}/odds/conflict.svg")
def odds_chart(campaign_id: str, actor: str, target: str, svc: ServicesDep, user: UserDep) -> Response:
    """How the conflict between two fighters may end, as an SVG chart."""
    state = member_state(svc, campaign_id, user)
    odds = odds_panel.conflict_odds(state, user.user_id, actor, target)
    svg = odds_panel.outcome_chart(odds, state.character(actor).name, state.character(target).name)
    return Response(svg, media_type="image/svg+xml")
