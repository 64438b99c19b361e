"""Accounts and sessions: register, log in and out, change the password; the helpers the pages use too."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from herotable.server import problems
from herotable.server.answers import answer
from herotable.server.auth import replace_password, stamp, start_session
from herotable.server.deps import COOKIE, ServicesDep, UserDep
from herotable.server.security import SESSION_MAX_AGE_S, digest
from herotable.service import utc_now
from herotable.store.accounts import User

router = APIRouter()


class Credentials(BaseModel):
    username: str = Field(min_length=3, max_length=40, pattern=r"^[A-Za-z0-9_.-]+$")
    password: str = Field(min_length=8, max_length=200)


class Registration(Credentials):
    display_name: str = Field(min_length=1, max_length=60)
    invite: str | None = Field(
        default=None,
        max_length=40,
        description="an invitation code; required where the server makes accounts by invitation only",
    )


class NewPassword(BaseModel):
    current_password: str = Field(min_length=1, max_length=200)
    new_password: str = Field(min_length=8, max_length=200)


@answer
class Account(TypedDict):
    """A user account, as its user sees it."""

    user_id: str
    username: str
    display_name: str
    admin: bool


@answer
class CsrfToken(TypedDict):
    """The session's CSRF token: send it as the X-CSRF-Token header on every unsafe request."""

    csrf_token: str


@answer
class LoggedIn(TypedDict):
    """A fresh session for the account: its cookie is set, and its CSRF token is here."""

    user: Account
    csrf_token: str


@answer
class LoggedOutEverywhere(TypedDict):
    """How many sessions ended, this one with them, and the new anonymous session's CSRF token."""

    ended: int
    csrf_token: str


@answer
class PasswordChanged(TypedDict):
    other_sessions_ended: int


def user_json(user: User) -> Account:
    return {"user_id": user.user_id, "username": user.username, "display_name": user.display_name, "admin": user.admin}


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
        secure=svc.settings.cookies_secure,
    )


def may_register(svc: ServicesDep, invite_code: str | None) -> None:
    """Raise 403 unless this server's registration setting lets someone register now: always when it is `open`,
    with a live invitation's code when it is `invite`, never when it is `closed`."""
    mode = svc.settings.registration
    if mode == "open":
        return
    if mode == "closed":
        raise HTTPException(
            403, "this server makes no accounts here; nothing was changed. Tip: ask the server's owner for one"
        )
    invite = svc.accounts.invite(invite_code) if invite_code else None
    now = utc_now()
    if invite is None or invite.expires_at <= now or (invite.max_uses is not None and invite.uses >= invite.max_uses):
        raise HTTPException(
            403,
            "this server makes accounts by invitation only; nothing was changed. Tip: open the invitation link your "
            "GM sent, and register there",
        )
    # a link for N players makes at most N accounts, whether or not they have joined yet
    if invite.max_uses is not None and svc.accounts.registered_with(invite.code) >= invite.max_uses:
        raise HTTPException(
            403,
            "this invitation has made as many accounts as it has places; nothing was changed. Tip: log in with the "
            "account made with it, or ask the GM for a new link",
        )


def register_user(
    svc: ServicesDep, body: Registration, request: Request | None = None, *, by_owner: bool = False
) -> User:
    """A new account, where the registration setting allows one (403). Registrations through a request are limited
    per address (429); the password is hashed before the name is looked at, so a taken name answers no faster than
    a free one. Nobody becomes an admin by registering. `by_owner`: made by whoever runs the server (the demo's
    accounts), whatever the registration setting."""
    if not by_owner:
        may_register(svc, body.invite)
    if request is not None:
        svc.guard.registering(svc.guard.address_of(request))
    hashed = svc.guard.gate.hash(body.password)
    invited = body.invite if svc.settings.registration == "invite" else None
    user = User(
        uuid.uuid4().hex[:16], body.username.lower(), body.display_name.strip(), hashed, utc_now(), invited_with=invited
    )
    return svc.accounts.add_user(user)


def authenticate(request: Request, svc: ServicesDep, username: str, password: str) -> User:
    """The user with these credentials. Attempts are limited per account and per address, with growing waits
    (429 while waiting); an unknown name costs as much as a wrong password."""
    user = svc.guard.login(svc.accounts, username, password, svc.guard.address_of(request))
    if user is None:
        raise HTTPException(401, "unknown username or wrong password")
    if user.disabled:  # said only to whoever knows the password
        raise HTTPException(403, "this account is disabled. Tip: ask the server's owner to enable it")
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


@router.get("/csrf")
def csrf(request: Request, svc: ServicesDep) -> CsrfToken:
    """The CSRF token of this session: send it as the X-CSRF-Token header on every unsafe request."""
    return {"csrf_token": svc.sessions.csrf_token(request.state.session)}


@router.post("/auth/register", status_code=201, responses=problems.responses(429))
def register(body: Registration, request: Request, response: Response, svc: ServicesDep) -> LoggedIn:
    user = register_user(svc, body, request)
    login_session(request, response, svc, user)
    return {"user": user_json(user), "csrf_token": svc.sessions.csrf_token(request.state.session)}


@router.post("/auth/login", responses=problems.responses(429))
def login(body: Credentials, request: Request, response: Response, svc: ServicesDep) -> LoggedIn:
    user = authenticate(request, svc, body.username, body.password)
    login_session(request, response, svc, user)
    return {"user": user_json(user), "csrf_token": svc.sessions.csrf_token(request.state.session)}


@router.post("/auth/logout")
def logout(request: Request, response: Response, svc: ServicesDep) -> CsrfToken:
    """End this session: its cookie, even if saved elsewhere, no longer logs anyone in."""
    login_session(request, response, svc, None)
    return {"csrf_token": svc.sessions.csrf_token(request.state.session)}


@router.post("/auth/logout-everywhere")
def logout_everywhere_api(request: Request, response: Response, svc: ServicesDep, user: UserDep) -> LoggedOutEverywhere:
    """End every session of this account, on every device, this one too."""
    ended = logout_everywhere(request, response, svc, user)
    return {"ended": ended, "csrf_token": svc.sessions.csrf_token(request.state.session)}


@router.post("/auth/password", responses=problems.responses(429))
def password(body: NewPassword, request: Request, svc: ServicesDep, user: UserDep) -> PasswordChanged:
    """Change the password (the current one is required); every other session of the account ends."""
    return {"other_sessions_ended": change_password(request, svc, user, body)}


@router.get("/me")
def me(user: UserDep) -> Account:
    """The account you act for: logged in, or your token's."""
    return user_json(user)
