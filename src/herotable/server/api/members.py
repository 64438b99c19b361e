"""Members and invitations: invite, join, withdraw an invitation, remove a member or leave."""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Annotated, Any, NotRequired

from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypedDict

from herotable.server import problems
from herotable.server.answers import CampaignView, answer
from herotable.server.api.common import IN_A_CAMPAIGN, member_state
from herotable.server.auth import stamp
from herotable.server.deps import ServicesDep, UserDep
from herotable.store.accounts import Invite, InviteRefused, User
from herotable.table.state import Role, TableState
from herotable.table.structure import Join, RemoveMember

router = APIRouter()


class NewInvite(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Role = Role.PLAYER
    days: int = Field(default=7, ge=1, le=30, description="days the link works")
    max_uses: int | None = Field(default=None, ge=1, le=100, description="joins it allows; none: no limit")


class JoinRequest(BaseModel):
    display_name: str | None = Field(default=None, max_length=60)


@answer
class Joined(TypedDict):
    """Someone who joined through an invitation, and when."""

    user_id: str
    name: str
    joined_at: str


@answer
class InviteAnswer(TypedDict):
    """An invitation link: it works until `expires_at`, for at most `max_uses` joins."""

    code: str
    role: Role
    link: Annotated[str, Field(description="the link to share")]
    created_at: str
    expires_at: str
    max_uses: Annotated[int | None, Field(description="joins it allows; null: no limit")]
    uses: int
    joined: NotRequired[Annotated[list[Joined], Field(description="who joined through it (in the GM's list)")]]


@answer
class Withdrawn(TypedDict):
    withdrawn: Annotated[str, Field(description="the invitation's code")]


@answer
class Removed(TypedDict):
    removed: Annotated[str, Field(description="the member's user id")]


def join_link(request: Request, code: str) -> str:
    """The invitation link to share: on HEROTABLE_PUBLIC_URL when the server knows its address (a Host header is
    the client's to write, so a link built from it could point anywhere), else on the address the GM used."""
    public = request.app.state.services.settings.public_url
    if public:
        return f"{public.rstrip('/')}/join/{code}"
    return str(request.url_for("join_page", code=code))


def invite_json(invite: Invite, request: Request, joined: list[Joined] | None = None) -> InviteAnswer:
    out: InviteAnswer = {
        "code": invite.code,
        "role": Role(invite.role),
        "link": join_link(request, invite.code),
        "created_at": invite.created_at,
        "expires_at": invite.expires_at,
        "max_uses": invite.max_uses,
        "uses": invite.uses,
    }
    if joined is not None:
        out["joined"] = joined
    return out


def invites_with_uses(svc: ServicesDep, state: TableState, request: Request) -> list[InviteAnswer]:
    """The campaign's invitations, each with who joined through it and when (for the GM)."""
    names = state.names()
    joined: dict[str, list[Joined]] = {}
    for use in svc.accounts.invite_uses(state.campaign_id):
        who: Joined = {"user_id": use.user_id, "name": names.get(use.user_id, use.user_id), "joined_at": use.joined_at}
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


@router.post("/campaigns/{campaign_id}/invites", status_code=201, responses=IN_A_CAMPAIGN)
def invite(campaign_id: str, body: NewInvite, request: Request, svc: ServicesDep, user: UserDep) -> InviteAnswer:
    """A new invitation link: it works for `days` days and admits at most `max_uses` people (none: no limit)."""
    return invite_json(make_invite(campaign_id, body, svc, user), request)


@router.get("/campaigns/{campaign_id}/invites", responses=IN_A_CAMPAIGN)
def invites(campaign_id: str, request: Request, svc: ServicesDep, user: UserDep) -> list[InviteAnswer]:
    """The invitations, with their expiry, uses, and who joined through each."""
    state = member_state(svc, campaign_id, user)
    if not state.is_gm(user.user_id):
        raise HTTPException(403, "only the GM sees the invitations")
    return invites_with_uses(svc, state, request)


@router.delete("/campaigns/{campaign_id}/invites/{code}", responses=IN_A_CAMPAIGN)
def withdraw_invite(campaign_id: str, code: str, svc: ServicesDep, user: UserDep) -> Withdrawn:
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


@router.post("/join/{code}", response_model=CampaignView, responses=IN_A_CAMPAIGN | problems.responses(409))
def join(code: str, body: JoinRequest, svc: ServicesDep, user: UserDep) -> dict[str, Any]:
    """Join a campaign through its invitation's code; its view, as the new member sees it."""
    campaign_id = join_with_code(svc, code, user, body.display_name)
    return svc.table.view(campaign_id, user.user_id)


def remove(svc: ServicesDep, campaign_id: str, user: User, member: str) -> None:
    """The GM removes a member, or a member leaves (their own id). Raises RulesError when the table refuses."""
    member_state(svc, campaign_id, user)
    svc.table.execute(campaign_id, user.user_id, RemoveMember(member))


@router.delete("/campaigns/{campaign_id}/members/{member}", responses=IN_A_CAMPAIGN | problems.responses(409))
def remove_member(campaign_id: str, member: str, svc: ServicesDep, user: UserDep) -> Removed:
    """The GM removes a member, or a member leaves (their own id)."""
    remove(svc, campaign_id, user, member)
    return {"removed": member}
