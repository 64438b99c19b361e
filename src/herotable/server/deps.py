"""Request dependencies: the services, the session, the current user, and the CSRF check."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from starlette.concurrency import run_in_threadpool

from herotable.server.auth import Guard, LiveSessions, stamp
from herotable.server.metrics import Metrics
from herotable.server.redis_link import RedisLink
from herotable.server.security import CSRF_FIELD, CSRF_HEADER, SESSION_COOKIE, Session, Sessions
from herotable.server.settings import Settings
from herotable.server.slots import Slots
from herotable.server.tokens import TokenGate, bearer_of, check_scope
from herotable.service import TableService
from herotable.store.accounts import AccountStore, User, accounts_for
from herotable.store.port import StoredEvent
from herotable.table.core import MemberLeft
from herotable.table.sheet_edits import CharacterDeleted
from herotable.table.travel import ArrivalTurnedAway

UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}


@dataclass
class Services:
    settings: Settings
    table: TableService
    accounts: AccountStore
    sessions: Sessions
    guard: Guard
    live_sessions: LiveSessions  # which sessions are alive, kept a few seconds
    images: Slots  # portrait uploads decoded at once
    redis: RedisLink | None  # with HEROTABLE_REDIS_URL: what requests ask Redis (limits, endings) goes through it
    metrics: Metrics  # what /metrics reports
    tokens: TokenGate  # personal API tokens: who a bearer request acts for, and how many commands it sends

    def now(self) -> datetime:
        """The time by the app's clock (the one the login limits count by), for invitations and the removals they
        are compared with."""
        return moment(self.guard.clock)


def moment(clock: Callable[[], float]) -> datetime:
    """The time now by `clock` (seconds since the epoch), in UTC."""
    return datetime.fromtimestamp(clock(), UTC)


def make_services(
    settings: Settings,
    table: TableService,
    clock: Callable[[], float] = time.time,
    ticks: Callable[[], float] = time.monotonic,
) -> Services:
    """The services of one app: accounts beside the table's store, limits, removals remembered so that an
    invitation made before a member's removal no longer admits them, and a deleted character's portrait removed.
    `clock` (seconds since the epoch) is what login limits and invitations count by; `ticks` (seconds, monotonic)
    is how long a session check is kept, and how long Redis is left alone after it failed."""
    accounts = accounts_for(table.store)
    metrics = Metrics()
    table.execute = metrics.observing(table.execute)
    redis = (
        RedisLink(settings.redis_url, ticks=ticks, failed=metrics.redis_failures.inc) if settings.redis_url else None
    )

    def removals(campaign_id: str, events: list[StoredEvent]) -> None:
        for e in events:
            removed = e.data.get("user")
            if e.type == MemberLeft.type and isinstance(removed, str) and removed != e.actor:
                accounts.record_removal(campaign_id, removed, stamp(moment(clock)))

    def portraits(campaign_id: str, events: list[StoredEvent]) -> None:
        for e in events:
            if e.type == CharacterDeleted.type:  # the id is never used again; its portrait goes with it
                table.store.delete_portrait(campaign_id, str(e.data["character"]))
            if e.type == ArrivalTurnedAway.type:  # its id is free again: no portrait is left for another to show
                table.store.delete_portrait(campaign_id, str(e.data["character"]))

    table.subscribe(removals)
    table.subscribe(portraits)
    return Services(
        settings,
        table,
        accounts,
        Sessions(settings.secret_key),
        Guard.build(settings, accounts, clock, redis),
        LiveSessions(accounts, clock=ticks),
        Slots(settings.image_slots, settings.image_wait_s, work="reading portraits", doing="reading other pictures"),
        redis,
        metrics,
        TokenGate(accounts, settings.token_commands_per_minute, ticks),
    )


async def services(request: Request) -> Services:  # async: no I/O, so no thread of its own
    found: Services = request.app.state.services
    return found


async def session(request: Request) -> Session | None:
    found: Session | None = request.state.session
    return found


def current_user(request: Request, svc: Annotated[Services, Depends(services)]) -> User | None:
    """The logged-in user: the cookie's session must be alive in the store (not logged out, revoked or expired), as
    the store said within the last few seconds (`LiveSessions`)."""
    by_token: User | None = getattr(request.state, "api_user", None)  # a bearer request (`check_token`)
    if by_token is not None:
        return by_token
    s: Session | None = request.state.session
    if s is None or s.user_id is None:
        return None
    return svc.live_sessions.user(s.sid, s.user_id)


def require_user(user: Annotated[User | None, Depends(current_user)]) -> User:
    if user is None:
        raise HTTPException(401, "log in first")
    return user


async def check_csrf(request: Request, svc: Annotated[Services, Depends(services)]) -> None:
    """Unsafe requests must carry the session's CSRF token in a header or a form field; a bearer request (an API
    token, which no browser sends by itself) is checked by `check_token` instead."""
    if request.method not in UNSAFE or bearer_of(request) is not None:
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


async def check_token(request: Request, svc: Annotated[Services, Depends(services)]) -> None:
    """A bearer request on /api/v1: the token's user becomes the request's (401 for a token not live), within the
    token's scope and campaign (403), and its commands counted (429). Async, so that the requests without a token
    (every browser's) pass without a thread of their own; a token's reads of the store run on one."""
    header = bearer_of(request)
    if header is None:
        return
    await run_in_threadpool(_token_user, request, svc, header)


def _token_user(request: Request, svc: Services, header: str) -> None:
    token, user = svc.tokens.resolve(header)
    check_scope(request, token, user, lambda campaign: svc.table.state(campaign).is_gm(user.user_id))
    if request.method == "POST" and request.url.path.endswith("/commands"):
        svc.tokens.command(token)
    request.state.api_user = user
    request.state.api_token = token


ServicesDep = Annotated[Services, Depends(services)]
UserDep = Annotated[User, Depends(require_user)]
MaybeUserDep = Annotated[User | None, Depends(current_user)]
COOKIE = SESSION_COOKIE
