"""Request dependencies: the services, the session, the current user, and the CSRF check."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, HTTPException, Request

from herotable.server.security import CSRF_FIELD, CSRF_HEADER, SESSION_COOKIE, LoginLimiter, Session, Sessions
from herotable.server.settings import Settings
from herotable.service import TableService
from herotable.store.accounts import AccountStore, User

UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}


@dataclass
class Services:
    settings: Settings
    table: TableService
    accounts: AccountStore
    sessions: Sessions
    limiter: LoginLimiter


def services(request: Request) -> Services:
    found: Services = request.app.state.services
    return found


def session(request: Request) -> Session | None:
    found: Session | None = request.state.session
    return found


def current_user(request: Request, svc: Annotated[Services, Depends(services)]) -> User | None:
    s: Session | None = request.state.session
    if s is None or s.user_id is None:
        return None
    return svc.accounts.user(s.user_id)


def require_user(user: Annotated[User | None, Depends(current_user)]) -> User:
    if user is None:
        raise HTTPException(401, "log in first")
    return user


async def check_csrf(request: Request, svc: Annotated[Services, Depends(services)]) -> None:
    """Unsafe requests must carry the session's CSRF token in a header or a form field."""
    if request.method not in UNSAFE:
        return
    token = request.headers.get(CSRF_HEADER)
    if token is None and request.headers.get("content-type", "").startswith(
        ("application/x-www-form-urlencoded", "multipart/form-data")
    ):
        form = await request.form()
        value = form.get(CSRF_FIELD)
        token = value if isinstance(value, str) else None
    s: Session | None = request.state.session
    if s is None or not svc.sessions.csrf_ok(s, token):
        raise HTTPException(403, f"missing or wrong CSRF token: send the {CSRF_HEADER} header (GET /api/v1/csrf)")


ServicesDep = Annotated[Services, Depends(services)]
UserDep = Annotated[User, Depends(require_user)]
MaybeUserDep = Annotated[User | None, Depends(current_user)]
COOKIE = SESSION_COOKIE
