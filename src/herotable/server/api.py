"""The REST API under /api/v1: thin handlers that ask the table service and the account store."""

from __future__ import annotations

import secrets
import uuid
from datetime import timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, HTTPException, Query, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from herotable.server import log_pages, odds_panel
from herotable.server.auth import replace_password, stamp, start_session
from herotable.server.deps import COOKIE, ServicesDep, UserDep, check_csrf, current_user, require_user
from herotable.server.log_pages import seen_json
from herotable.server.schemas import CommandBody, body_json, command_model
from herotable.server.security import SESSION_MAX_AGE_S, digest
from herotable.service import utc_now
from herotable.store.accounts import Invite, InviteRefused, User
from herotable.store.export import export_campaign
from herotable.table.commands import COMMANDS, command_from_json
from herotable.table.state import Role, Ruleset, TableState
from herotable.table.structure import Join, RemoveMember
from herotable.table.views import view_for

router = APIRouter(prefix="/api/v1", dependencies=[Depends(check_csrf)])


class Credentials(BaseModel):
    username: str = Field(min_length=3, max_length=40, pattern=r"^[A-Za-z0-9_.-]+$")
    password: str = Field(min_length=8, max_length=200)


class Registration(Credentials):
    display_name: str = Field(min_length=1, max_length=60)


class NewCampaign(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=100)
    ruleset: Ruleset


class NewPassword(BaseModel):
    current_password: str = Field(min_length=1, max_length=200)
    new_password: str = Field(min_length=8, max_length=200)


class NewInvite(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Role = Role.PLAYER
    days: int = Field(default=7, ge=1, le=30, description="days the link works")
    max_uses: int | None = Field(default=None, ge=1, le=100, description="joins it allows; none: no limit")


class JoinRequest(BaseModel):
    display_name: str | None = Field(default=None, max_length=60)


COMMAND_ID = Query(
    pattern=r"^[A-Za-z0-9_-]{8,64}$",
    description="Your own id for this command (8 to 64 letters, digits, - or _): send the same id to retry a command "
    "whose answer you did not get, and it is recorded once.",
)


COMMAND_ANSWER = {
    "type": "object",
    "required": ["command_id", "repeated", "events", "cursor", "view"],
    "properties": {
        "command_id": {"type": "string", "description": "the command's id (yours, or one the server chose)"},
        "repeated": {"type": "boolean", "description": "the id was already recorded: nothing was written"},
        "events": {
            "type": "array",
            "items": {"type": "object"},
            "description": "what is new in your stream since just before the command, oldest first",
        },
        "cursor": {"type": "string", "description": "where those events leave your stream: catch up from here"},
        "view": {"type": "object", "description": "the table as you see it after the command"},
    },
}


# The first of the routes, since routes are tried in order and this one serves the most requests. The answer is built of
# JSON values already and sent as it is: no response model to validate it against again.
@router.post(
    "/campaigns/{campaign_id}/commands",
    response_model=None,
    responses={
        200: {"description": "The command was recorded", "content": {"application/json": {"schema": COMMAND_ANSWER}}}
    },
)
def command(
    campaign_id: str,
    svc: ServicesDep,
    request: Request,
    body: Annotated[CommandBody, Body()],
    command_id: Annotated[str | None, COMMAND_ID] = None,
) -> JSONResponse:
    """Run one table command (`{"type": "ltl.challenge", ...}`); GET …/actions lists what you may send now.

    The answer holds the command's id, everything new in your own stream since just before it (the command's facts
    you may see, and any another member's command landed meanwhile, each with its `command_id`), the cursor after
    them to catch up from, and your view. A command whose facts are all hidden from you (a roll against a hidden
    villain's sheet) has no events for you.

    A retry with a `command_id` already recorded writes nothing: the answer says `"repeated": true` and holds that
    command's facts as you see them, with the cursor of your stream's end; so is a command after which you read
    another stream (a GM handing the role over reads a player's from then on). The same id for another command is
    refused (409)."""
    user = require_user(current_user(request, svc))  # here rather than as a dependency: one thread for it all
    before = member_state(svc, campaign_id, user, recent=True)
    start = svc.table.head_cursor(campaign_id, user.user_id, before)
    cmd = command_from_json(body_json(body))
    if command_id is None:  # an id of the server's own is new: no need to look for an earlier landing
        chosen = uuid.uuid4().hex
        applied = svc.table.execute(campaign_id, user.user_id, cmd, command_id=chosen, fresh=True, state=before)
    else:
        chosen = command_id
        applied = svc.table.execute(campaign_id, user.user_id, cmd, command_id=chosen, state=before)
    # the answer reads the state the command landed on: no second look at the campaign's head. A member whose
    # stream changed with it (a GM who handed over reads a player's stream now) starts afresh in the new one.
    restarted = before.is_gm(user.user_id) != applied.state.is_gm(user.user_id)
    if applied.repeated or restarted:
        page = svc.table.stream(campaign_id, user.user_id, limit=500, state=applied.state)
        seen = [s for s in page.seen if s.command_id == chosen]
    else:  # the command's own events, and those that landed since `before` as this process remembers them, unread
        between = (
            svc.table.events_between(campaign_id, before.seq, applied.events[0].seq - 1) if applied.events else None
        )
        batch = [*between, *applied.events] if between is not None else []
        found = svc.table.following(applied.state, user.user_id, start, batch) if batch else None
        page = found or svc.table.stream(campaign_id, user.user_id, after=start, limit=500, state=applied.state)
        seen = page.seen
    return JSONResponse(
        {
            "command_id": chosen,
            "repeated": applied.repeated,
            "events": [seen_json(applied.state, s) for s in seen],
            "cursor": page.last,
            "view": view_for(applied.state, user.user_id),
        }
    )


def user_json(user: User) -> dict[str, str]:
    return {"user_id": user.user_id, "username": user.username, "display_name": user.display_name}


def login_session(request: Request, response: Response, svc: ServicesDep, user: User | None) -> None:
    """Start a fresh session (a new id, so a pre-login CSRF token dies with the old one); a logged-in one is
    recorded in the store, and the session it replaces is revoked there and forgotten by every process (its live
    sockets close)."""
    old = request.state.session
    if old is not None and old.user_id is not None:
        svc.accounts.revoke_session(digest(old.sid), stamp())
        sessions_ended(request, old.user_id)
    new = svc.sessions.new(user.user_id if user else None)
    if user is not None:
        start_session(svc.accounts, new.sid, user.user_id)
    request.state.session = new
    set_session_cookie(response, svc, new)


def sessions_ended(request: Request, user_id: str) -> None:
    """Some of `user_id`'s sessions ended: every server process forgets them (`LiveSessions`) and closes their live
    sockets. Every ending of a session calls this."""
    request.app.state.hub.sessions_ended(user_id)


def set_session_cookie(response: Response, svc: ServicesDep, session: Any) -> None:
    response.set_cookie(
        COOKIE,
        svc.sessions.dump(session),
        max_age=SESSION_MAX_AGE_S,
        httponly=True,
        samesite="lax",
        secure=svc.settings.secure_cookies,
    )


def register_user(svc: ServicesDep, body: Registration, request: Request | None = None) -> User:
    """A new account. Registrations through a request are limited per address (429); the password is hashed
    before the name is looked at, so a taken name answers no faster than a free one."""
    if request is not None:
        svc.guard.registering(svc.guard.address_of(request))
    hashed = svc.guard.gate.hash(body.password)
    user = User(uuid.uuid4().hex[:16], body.username.lower(), body.display_name.strip(), hashed, utc_now())
    return svc.accounts.add_user(user)


def authenticate(request: Request, svc: ServicesDep, username: str, password: str) -> User:
    """The user with these credentials. Attempts are limited per account and per address, with growing waits
    (429 while waiting); an unknown name costs as much as a wrong password."""
    user = svc.guard.login(svc.accounts, username, password, svc.guard.address_of(request))
    if user is None:
        raise HTTPException(401, "unknown username or wrong password")
    return user


def change_password(request: Request, svc: ServicesDep, user: User, body: NewPassword) -> int:
    """Check the current password (limited like a login), set the new one, end every other session of the user;
    how many ended. Raises 401 on a wrong current password, changing nothing."""
    if svc.guard.login(svc.accounts, user.username, body.current_password, svc.guard.address_of(request)) is None:
        raise HTTPException(401, "the current password is wrong; nothing was changed")
    ended = replace_password(svc.accounts, svc.guard.gate, user, body.new_password, keep=request.state.session.sid)
    sessions_ended(request, user.user_id)
    return ended


def logout_everywhere(request: Request, response: Response, svc: ServicesDep, user: User) -> int:
    """End every session of the user, this one too; how many ended."""
    ended = svc.accounts.revoke_sessions(user.user_id, stamp())
    login_session(request, response, svc, None)  # (every process forgets the user's sessions)
    return ended


def member_state(svc: ServicesDep, campaign_id: str, user: User, *, recent: bool = False) -> TableState:
    """The campaign's state, for one of its members only (403 otherwise). `recent`: the state in memory will do
    (a command's append checks that nothing landed since); a member it does not know yet is looked up afresh."""
    state = svc.table.recent_state(campaign_id) if recent else svc.table.state(campaign_id)
    if state.role_of(user.user_id) is None and recent:
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
    user = register_user(svc, body, request)
    login_session(request, response, svc, user)
    return {"user": user_json(user), "csrf_token": svc.sessions.csrf_token(request.state.session)}


@router.post("/auth/login")
def login(body: Credentials, request: Request, response: Response, svc: ServicesDep) -> dict[str, Any]:
    user = authenticate(request, svc, body.username, body.password)
    login_session(request, response, svc, user)
    return {"user": user_json(user), "csrf_token": svc.sessions.csrf_token(request.state.session)}


@router.post("/auth/logout")
def logout(request: Request, response: Response, svc: ServicesDep) -> dict[str, Any]:
    """End this session: its cookie, even if saved elsewhere, no longer logs anyone in."""
    login_session(request, response, svc, None)
    return {"csrf_token": svc.sessions.csrf_token(request.state.session)}


@router.post("/auth/logout-everywhere")
def logout_everywhere_api(request: Request, response: Response, svc: ServicesDep, user: UserDep) -> dict[str, Any]:
    """End every session of this account, on every device, this one too."""
    ended = logout_everywhere(request, response, svc, user)
    return {"ended": ended, "csrf_token": svc.sessions.csrf_token(request.state.session)}


@router.post("/auth/password")
def password(body: NewPassword, request: Request, svc: ServicesDep, user: UserDep) -> dict[str, Any]:
    """Change the password (the current one is required); every other session of the account ends."""
    return {"other_sessions_ended": change_password(request, svc, user, body)}


@router.get("/me")
def me(user: UserDep) -> dict[str, str]:
    return user_json(user)


# --- campaigns ---


def my_campaigns(svc: ServicesDep, user: User) -> list[dict[str, Any]]:
    """The user's campaigns, from the membership read model (no campaign's play is loaded)."""
    return [
        {
            "campaign_id": state.campaign_id,
            "name": state.name,
            "ruleset": state.ruleset.value,
            "role": role.value,
            "members": len(state.members),
            "archived": state.archived,
        }
        for state, role in svc.table.campaigns_of(user.user_id)
    ]


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
    filter: Annotated[str, Query(pattern=log_pages.FILTER_PATTERN, description=log_pages.FILTER_HELP)] = "all",
) -> dict[str, Any]:
    """Your own stream of the log, numbered for you alone: `after` a cursor to catch up (oldest first), `before` one
    to page back, neither for the newest page. `first` and `last` are the cursors around what was read; `older` the
    cursor to page back from, null once the start is reached. A filtered page back reads your stream by slices until
    it holds 50 events or has read 1,000, so it may hold fewer than `limit` and still have `older`."""
    state = member_state(svc, campaign_id, user)
    page = log_pages.read_log(svc.table, campaign_id, user.user_id, filter, after=after, before=before, limit=limit)
    return {
        "events": [seen_json(state, s) for s in page.seen],
        "first": page.first,
        "last": page.last,
        "older": page.older,
    }


@router.get("/campaigns/{campaign_id}/actions")
def actions(campaign_id: str, svc: ServicesDep, user: UserDep) -> dict[str, Any]:
    """Every command you may issue now, each field with its domain (`fixed` fields are sent as given)."""
    member_state(svc, campaign_id, user)
    return {"actions": [a.to_json() for a in svc.table.legal_actions(campaign_id, user.user_id)]}


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


def join_link(request: Request, code: str) -> str:
    """The invitation link to share: on HEROTABLE_PUBLIC_URL when the server knows its address (a Host header is
    the client's to write, so a link built from it could point anywhere), else on the address the GM used."""
    public = request.app.state.services.settings.public_url
    if public:
        return f"{public.rstrip('/')}/join/{code}"
    return str(request.url_for("join_page", code=code))


def invite_json(invite: Invite, request: Request, joined: list[dict[str, str]] | None = None) -> dict[str, Any]:
    return {
        "code": invite.code,
        "role": invite.role,
        "link": join_link(request, invite.code),
        "created_at": invite.created_at,
        "expires_at": invite.expires_at,
        "max_uses": invite.max_uses,
        "uses": invite.uses,
        **({"joined": joined} if joined is not None else {}),
    }


def invites_with_uses(svc: ServicesDep, state: TableState, request: Request) -> list[dict[str, Any]]:
    """The campaign's invitations, each with who joined through it and when (for the GM)."""
    names = state.names()
    joined: dict[str, list[dict[str, str]]] = {}
    for use in svc.accounts.invite_uses(state.campaign_id):
        who = {"user_id": use.user_id, "name": names.get(use.user_id, use.user_id), "joined_at": use.joined_at}
        joined.setdefault(use.code, []).append(who)
    return [invite_json(i, request, joined.get(i.code, [])) for i in svc.accounts.invites_for(state.campaign_id)]


def make_invite(campaign_id: str, body: NewInvite, svc: ServicesDep, user: User) -> Invite:
    state = member_state(svc, campaign_id, user)
    if not state.is_gm(user.user_id):
        raise HTTPException(403, "only the GM invites")
    if body.role is Role.GM:
        raise HTTPException(422, "a campaign has one GM; invite players or spectators")
    now = svc.now()
    made = Invite(
        secrets.token_urlsafe(9),
        campaign_id,
        body.role.value,
        stamp(now),
        stamp(now + timedelta(days=body.days)),
        body.max_uses,
    )
    return svc.accounts.add_invite(made)


@router.post("/campaigns/{campaign_id}/invites", status_code=201)
def invite(campaign_id: str, body: NewInvite, request: Request, svc: ServicesDep, user: UserDep) -> dict[str, Any]:
    """A new invitation link: it works for `days` days and admits at most `max_uses` people (none: no limit)."""
    return invite_json(make_invite(campaign_id, body, svc, user), request)


@router.get("/campaigns/{campaign_id}/invites")
def invites(campaign_id: str, request: Request, svc: ServicesDep, user: UserDep) -> list[dict[str, Any]]:
    """The invitations, with their expiry, uses, and who joined through each."""
    state = member_state(svc, campaign_id, user)
    if not state.is_gm(user.user_id):
        raise HTTPException(403, "only the GM sees the invitations")
    return invites_with_uses(svc, state, request)


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


INVITE_STATUS = {"unknown": 404, "expired": 410, "used_up": 410, "removed": 403}


def join_with_code(svc: ServicesDep, code: str, user: User, display_name: str | None) -> str:
    """Join through an invitation: it must be unexpired, have a use left, and (for a removed member) be newer
    than their removal. A member already in the campaign uses nothing up."""
    found = svc.accounts.invite(code)
    if found is None:
        raise HTTPException(404, InviteRefused.MESSAGES["unknown"])
    if svc.table.state(found.campaign_id).role_of(user.user_id) is not None:
        return found.campaign_id
    try:
        svc.accounts.claim_invite(code, user.user_id, stamp(svc.now()))
    except InviteRefused as refused:
        raise HTTPException(INVITE_STATUS[refused.why], refused.reason) from None
    try:
        svc.table.execute(found.campaign_id, user.user_id, Join(display_name or user.display_name, Role(found.role)))
    except BaseException:
        svc.accounts.unclaim_invite(code, user.user_id)
        raise
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
