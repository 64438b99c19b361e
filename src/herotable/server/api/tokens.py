"""Personal API tokens, made, listed and revoked by their user, logged in (a token cannot make tokens)."""

from __future__ import annotations

from typing import Annotated, Literal, cast

from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypedDict

from herotable.server import problems
from herotable.server.answers import answer
from herotable.server.api.accounts import sessions_ended
from herotable.server.api.common import IN_A_CAMPAIGN, member_state
from herotable.server.auth import stamp
from herotable.server.deps import ServicesDep, UserDep
from herotable.server.tokens import make_token
from herotable.store.accounts import ApiToken, User

router = APIRouter()
Scope = Literal["read", "play", "gm"]


class NewToken(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=60, description="what it is for, e.g. the group's dice bot")
    scope: Scope = Field(description="read: GET only; play: commands as a player; gm: all")
    campaign_id: str | None = Field(default=None, max_length=40, description="the one campaign it reaches; none: all")
    days: int | None = Field(default=None, ge=1, le=365, description="days it works; none: until revoked")


@answer
class Token(TypedDict):
    """A personal API token, never its text."""

    token_id: str
    name: str
    scope: Annotated[Scope, Field(description="read: GET only; play: commands as a player; gm: all")]
    campaign_id: Annotated[str | None, Field(description="the one campaign it reaches; null: all")]
    created_at: str
    expires_at: Annotated[str | None, Field(description="null: until revoked")]
    last_used_at: Annotated[str | None, Field(description="written at most once a minute")]
    revoked_at: str | None
    live: Annotated[bool, Field(description="it works now: neither revoked nor expired")]


@answer
class MadeToken(Token):
    """A new token, with its text: shown in this answer only."""

    token: Annotated[str, Field(description="send it as `Authorization: Bearer …`")]


@answer
class Revoked(TypedDict):
    revoked: Annotated[str, Field(description="the token's id")]


def token_json(token: ApiToken, now: str) -> Token:
    return {
        "token_id": token.token_id,
        "name": token.name,
        "scope": cast(Scope, token.scope),
        "campaign_id": token.campaign_id,
        "created_at": token.created_at,
        "expires_at": token.expires_at,
        "last_used_at": token.last_used_at,
        "revoked_at": token.revoked_at,
        "live": token.live(now),
    }


def new_token(svc: ServicesDep, user: UserDep, body: NewToken) -> tuple[str, ApiToken]:
    if body.campaign_id is not None:
        member_state(svc, body.campaign_id, user)  # a member's campaign only
    return make_token(svc.accounts, user, body.name.strip(), body.scope, body.campaign_id, body.days)


@router.post("/tokens", status_code=201, responses=IN_A_CAMPAIGN)
def create(body: NewToken, svc: ServicesDep, user: UserDep) -> MadeToken:
    """Make a token. Its text is in this answer only: it is kept as a hash, and nobody can show it again."""
    text, token = new_token(svc, user, body)
    return {"token": text, **token_json(token, stamp())}


@router.get("/tokens")
def listing(svc: ServicesDep, user: UserDep) -> list[Token]:
    """Your tokens, newest first, with when each was last used."""
    now = stamp()
    return [token_json(t, now) for t in svc.accounts.tokens_of(user.user_id)]


def revoke_token(request: Request, svc: ServicesDep, user: User, token_id: str) -> bool:
    """Revoke one of the user's tokens, and close the live sockets it opened; whether it was live."""
    if not svc.accounts.revoke_token(token_id, user.user_id, stamp()):
        return False
    sessions_ended(request, user.user_id)  # every process checks the user's sockets again, the token's among them
    return True


@router.delete("/tokens/{token_id}", responses=problems.responses(404))
def revoke(token_id: str, request: Request, svc: ServicesDep, user: UserDep) -> Revoked:
    """Revoke one of your tokens: from now on it is refused, and its live sockets close."""
    if not revoke_token(request, svc, user, token_id):
        raise HTTPException(404, "you have no live token of this id")
    return {"revoked": token_id}
