"""Health for whoever runs the server: `/healthz` says the process answers; `/readyz` says whether it can serve a
table now (its database and, where one is set, Redis answer), 503 with the reason when not. Both are plain JSON,
read by a load balancer, a container orchestrator or a monitor; neither needs a login or says anything of a
campaign."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from sqlalchemy import text

from herotable.server.deps import ServicesDep
from herotable.server.redis_link import RedisAway

router = APIRouter(include_in_schema=False)


@router.get("/healthz")
def healthz() -> dict[str, str]:
    """The process answers."""
    return {"status": "ok"}


@router.get("/readyz")
def readyz(svc: ServicesDep) -> JSONResponse:
    """Each thing a table needs, checked now: "ok", "not used", or what is wrong."""
    checks: dict[str, str] = {"database": _database(svc), "redis": _redis(svc)}
    ready = all(v in ("ok", "not used") for v in checks.values())
    body: dict[str, Any] = {"status": "ready" if ready else "not ready", "checks": checks}
    return JSONResponse(body, status_code=200 if ready else 503)


def _database(svc: ServicesDep) -> str:
    engine = getattr(svc.table.store, "engine", None)
    if engine is None:
        return "ok"  # kept in memory: it answers while the process does
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
    except Exception as error:  # any failure means not ready; its kind is the reason given
        return f"does not answer: {type(error).__name__}"
    return "ok"


def _redis(svc: ServicesDep) -> str:
    if svc.redis is None:
        return "not used"
    try:
        svc.redis.ask(lambda client: client.ping())
    except RedisAway:
        return "does not answer"
    return "ok"
