"""The FastAPI application: settings, services, session cookies, routes, and error mapping."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request, Response
from fastapi.staticfiles import StaticFiles

from herotable.dice import Rng
from herotable.server import api, chat, errors, live_routes, manage, pages, portrait_routes
from herotable.server.deps import make_services
from herotable.server.limits import RequestGuard
from herotable.server.live import Hub
from herotable.server.security import SESSION_COOKIE
from herotable.server.settings import Settings
from herotable.service import TableService
from herotable.store.port import EventStore
from herotable.store.sql import open_store

STATIC = Path(__file__).with_name("static")


def create_app(
    settings: Settings | None = None,
    *,
    store: EventStore | None = None,
    rng: Rng | None = None,
    clock: Callable[[], float] = time.time,
) -> FastAPI:
    """The web table. Tests pass their own store, dice and clock (the seconds the login limits count in);
    `herotable serve` passes none."""
    settings = settings or Settings.from_env()
    store = store or open_store(settings.database_url)
    table = TableService(store, rng=rng)
    services = make_services(settings, table, clock)
    hub = Hub(table, settings.redis_url, services.accounts)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await hub.start()
        yield
        await hub.stop()

    app = FastAPI(title="herotable", version="0.1.0", lifespan=lifespan)
    app.state.services = services
    app.state.hub = hub

    @app.middleware("http")
    async def session_cookie(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        """Every visitor has a signed session (anonymous until login), so forms can carry a CSRF token."""
        loaded = services.sessions.load(request.cookies.get(SESSION_COOKIE))
        request.state.session = loaded or services.sessions.new()
        response = await call_next(request)
        if loaded is None and SESSION_COOKIE not in response.headers.get("set-cookie", ""):
            api.set_session_cookie(response, services, request.state.session)
        return response

    errors.install(app)
    app.add_middleware(RequestGuard)
    app.include_router(api.router)
    app.include_router(live_routes.router)
    app.include_router(chat.router)  # before pages: it serves the table's log panel
    app.include_router(manage.router)
    app.include_router(portrait_routes.router)
    app.include_router(pages.router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
