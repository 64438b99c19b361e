"""The FastAPI application: settings, services, session cookies, routes, and error mapping."""

from __future__ import annotations

import functools
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.openapi.utils import get_openapi
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import OperationalError
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from herotable.backup import hold_serving_lock, sqlite_path
from herotable.dice import Rng
from herotable.server import (
    admin,
    api,
    apidocs,
    chart_pages,
    chat,
    errors,
    health,
    journal_pages,
    live_routes,
    manage,
    metrics,
    pages,
    portrait_routes,
    problems,
    recap_pages,
    travel_pages,
    webhook_pages,
)
from herotable.server.api import accounts
from herotable.server.deps import Services, make_services
from herotable.server.limits import HeadAsGet, RequestGuard
from herotable.server.live import Hub
from herotable.server.logs import RequestLog
from herotable.server.proxy import ForwardedHeaders, parse_proxies
from herotable.server.security import SESSION_COOKIE
from herotable.server.settings import Settings
from herotable.server.transport import ready_to_serve
from herotable.server.webhooks import Courier, Sender, reach_for
from herotable.service import TableService
from herotable.store.port import EventStore, StoreError
from herotable.store.sql import open_store
from herotable.store.webhooks import webhooks_for

STATIC = Path(__file__).with_name("static")
# The web pages and their forms, in the order they are tried (chat before the pages: it serves the table's log panel).
# They answer browsers, in HTML: served, but no part of the API's schema.
PAGES = (
    chat.router,
    travel_pages.router,  # before `manage`, whose `/characters/{cid}/{step}` would take a character's library route
    manage.router,
    webhook_pages.router,
    journal_pages.router,
    admin.router,
    portrait_routes.router,
    chart_pages.router,
    recap_pages.router,
    pages.router,
)


class SessionCookie:
    """Every visitor has a signed session (anonymous until login), so forms can carry a CSRF token: the request's
    `state.session`, sent back as a cookie when the request came without one (and the answer sets none itself).
    Plain ASGI rather than an `http` middleware function, which runs each request in a task of its own."""

    def __init__(self, app: ASGIApp, services: Services) -> None:
        self.app = app
        self.services = services

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        services = self.services
        loaded = services.sessions.load(Request(scope).cookies.get(SESSION_COOKIE))
        state = scope.setdefault("state", {})
        state["session"] = loaded or services.sessions.new()
        if loaded is not None:
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                if not any(SESSION_COOKIE in value for value in headers.getlist("set-cookie")):
                    made = Response()
                    accounts.set_session_cookie(made, services, state["session"])
                    for value in made.headers.getlist("set-cookie"):
                        headers.append("set-cookie", value)
            await send(message)

        await self.app(scope, receive, sending)


def create_app(
    settings: Settings | None = None,
    *,
    store: EventStore | None = None,
    rng: Rng | None = None,
    clock: Callable[[], float] = time.time,
    ticks: Callable[[], float] = time.monotonic,
) -> FastAPI:
    """The web table. Tests pass their own store, dice and clocks (`clock`: the seconds since the epoch that login
    limits and invitations count by; `ticks`: the monotonic seconds a session check is kept for); `herotable serve`
    passes none."""
    settings = settings or Settings.load().with_secret()
    if store is None:  # SQLite is upgraded as it opens; a database server only when the operator says so
        url = settings.database_url or f"sqlite:///{settings.data_dir / 'herotable.db'}"
        store = open_store(url, migrate="upgrade" if settings.migrate else "auto")
        if settings.embedded:  # `herotable restore` refuses while this process serves the file
            hold_serving_lock(sqlite_path(url))
    table = TableService(store, rng=rng, cached_campaigns=settings.cached_campaigns)
    services = make_services(settings, table, clock, ticks)
    hub = Hub(
        table, services.redis, services.live_sessions, redis_prefix=settings.redis_prefix, metrics=services.metrics
    )
    courier = Courier(
        webhooks_for(table.store),
        table,
        public_url=settings.public_url,
        sender=Sender(lambda: reach_for(settings), settings.webhook_timeout_s),
        clock=clock,
        timeout_s=settings.webhook_timeout_s,
        counted=lambda outcome: services.metrics.webhook_deliveries.labels(outcome).inc(),
    )
    table.store.on_outbox(courier.wake)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await hub.start()
        courier.start()
        yield
        courier.stop()
        await hub.stop()

    app = FastAPI(title="herotable", version="0.1.0", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.services = services
    app.state.hub = hub
    app.state.courier = courier

    app.add_middleware(SessionCookie, services=services)
    errors.install(app)
    app.openapi = functools.partial(openapi, app)  # type: ignore[method-assign]
    app.add_middleware(RequestGuard, max_body=settings.body_limit)
    app.add_middleware(HeadAsGet)
    app.add_middleware(RequestLog, counted=services.metrics.requests)
    # outermost: every part of the app sees the request as a trusted proxy in front received it
    app.add_middleware(ForwardedHeaders, proxies=parse_proxies(settings.trusted_proxies))
    app.include_router(health.router)
    app.include_router(metrics.router)
    app.include_router(api.router)
    app.include_router(live_routes.router)
    for router in PAGES:
        app.include_router(router, include_in_schema=False)
    app.include_router(apidocs.router)
    app.mount(apidocs.ASSETS, apidocs.assets(), name="apidocs")  # before /static, which would take its paths
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


def openapi(app: FastAPI) -> dict[str, Any]:
    """The app's OpenAPI document, made once: FastAPI's, with the problems the app sends in place of the validation
    error FastAPI would document."""
    if app.openapi_schema is None:
        schema = get_openapi(title=app.title, version=app.version, description=api.ABOUT, routes=app.routes)
        app.openapi_schema = problems.documented(schema)
    return app.openapi_schema


def served_app() -> FastAPI:
    """The app as `herotable serve` runs it in each worker process: built from the environment, its start-up heap
    frozen, what outlives a full collection kept out of the next ones, large blocks given back to the system when
    freed."""
    app = create_app()
    ready_to_serve()
    return app


PERMANENT = ("does not exist", "authentication failed", "no pg_hba.conf entry")  # a server that answered: no


def answered(error: OperationalError) -> bool:
    """Whether the database server answered, and refused (a database or role that does not exist, a wrong password):
    waiting will not change that."""
    said = str(error.orig)
    return any(words in said for words in PERMANENT)


def app_when_database_answers(
    settings: Settings,
    *,
    sleep: Callable[[float], None] = time.sleep,
    ticks: Callable[[], float] = time.monotonic,
) -> FastAPI:
    """The app, once its database answers: a database server still starting (PostgreSQL beside herotable at boot)
    is tried again each second for up to `db_wait_s`. Raises `StoreError` in one sentence when it does not answer by
    then, or at once for anything else (a bad URL, a schema to upgrade)."""
    give_up = ticks() + settings.db_wait_s
    while True:
        try:
            return create_app(settings)
        except StoreError as err:
            if not isinstance(err.__cause__, OperationalError) or answered(err.__cause__):
                raise
            if ticks() >= give_up:
                waited = f" (tried for {settings.db_wait_s:g} s)" if settings.db_wait_s else ""
                raise StoreError(f"{err}{waited}") from None
            sleep(1.0)
