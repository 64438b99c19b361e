"""One mapping from every error family to an HTTP answer: JSON with a stable code, never a stack trace."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException

from herotable.errors import InvalidSheet, RulesError
from herotable.server.logs import route_pattern
from herotable.service import CommandIdReused, LegacyCampaign
from herotable.store.port import ConcurrencyError, InvalidExport, StoreError, UnknownCampaign
from herotable.table.commands import COMMANDS, InvalidCommand
from herotable.table.state import Forbidden

log = logging.getLogger(__name__)


def error_body(code: str, message: str, **extra: object) -> dict[str, object]:
    return {"error": {"code": code, "message": message, **extra}}


def rules_status(err: RulesError) -> int:
    if isinstance(err, Forbidden):
        return 403
    if isinstance(err, InvalidSheet | InvalidCommand):
        return 422
    return 409


FIXES = {
    "missing": "add {field}",
    "extra_forbidden": "leave {field} out: the command has no such field",
    "union_tag_invalid": "use a command type that GET /api/v1/commands lists",
    "union_tag_not_found": 'give the command its "type", one of those GET /api/v1/commands lists',
}


def validation_field(loc: Sequence[object]) -> str:
    """The field a validation error names, as a client sends it: without the body and without the command type
    pydantic puts before a command's fields."""
    parts = [str(p) for p in loc if p != "body"]
    if parts and parts[0] in COMMANDS:
        parts = parts[1:]
    return ".".join(parts)


def install(app: FastAPI) -> None:
    @app.exception_handler(RulesError)
    async def _rules(request: Request, err: RulesError) -> JSONResponse:
        extra: dict[str, object] = {"ruling": err.ruling, "fix": err.fix}
        if isinstance(err, InvalidSheet):
            extra["problems"] = [{"field": p.field, "message": p.message} for p in err.problems]
        if isinstance(err, InvalidCommand):
            extra["field"] = err.field
        return JSONResponse(error_body(err.code, err.reason, **extra), status_code=rules_status(err))

    @app.exception_handler(UnknownCampaign)
    async def _unknown(request: Request, err: UnknownCampaign) -> JSONResponse:
        return JSONResponse(error_body("campaign/unknown", err.reason), status_code=404)

    @app.exception_handler(LegacyCampaign)
    async def _legacy(request: Request, err: LegacyCampaign) -> JSONResponse:
        return JSONResponse(error_body("campaign/legacy", err.reason), status_code=410)

    @app.exception_handler(InvalidExport)
    async def _export(request: Request, err: InvalidExport) -> JSONResponse:
        return JSONResponse(error_body("export/invalid", err.reason), status_code=422)

    @app.exception_handler(CommandIdReused)
    async def _reused(request: Request, err: CommandIdReused) -> JSONResponse:
        return JSONResponse(error_body("command/id_reused", err.reason), status_code=409)

    @app.exception_handler(ConcurrencyError)
    async def _busy(request: Request, err: ConcurrencyError) -> JSONResponse:
        return JSONResponse(error_body("table/busy", err.reason), status_code=503, headers={"Retry-After": "1"})

    @app.exception_handler(StoreError)
    async def _store(request: Request, err: StoreError) -> JSONResponse:
        return JSONResponse(error_body("store/error", err.reason), status_code=400)

    @app.exception_handler(OperationalError)
    async def _unavailable(request: Request, err: OperationalError) -> JSONResponse:
        # the database is down, restarting, or dropped the connection (the pool is renewed for the next request)
        request.app.state.services.metrics.database_failures.inc()
        where = route_pattern(request.scope) or "(no route)"  # a path may hold a token: its pattern does not
        log.warning("the database failed on %s %s: %s", request.method, where, " ".join(str(err.orig).split()))
        message = (
            "the database did not answer; send the request again in a moment (a command sent again with the same "
            "command_id is never recorded twice)"
        )
        return JSONResponse(error_body("store/unavailable", message), status_code=503, headers={"Retry-After": "1"})

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, err: RequestValidationError) -> JSONResponse:
        first = err.errors()[0] if err.errors() else {}
        kind = str(first.get("type", ""))
        if kind == "json_invalid":
            reason = first.get("ctx", {}).get("error", "it does not parse")
            message = f"the request body is not valid JSON: {reason}"
            return JSONResponse(
                error_body("validation", message, field="", fix="send one JSON object"), status_code=422
            )
        field = validation_field(first.get("loc", ()))
        said = str(first.get("msg", "invalid"))
        message = f"{field or 'request'}: {said.removeprefix('Value error, ')}"  # a model's own words, as they are
        fix = FIXES.get(kind, "correct this field and send the request again").format(field=field or "the body")
        return JSONResponse(error_body("validation", message, field=field, fix=fix), status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, err: StarletteHTTPException) -> JSONResponse:
        code = {401: "auth/required", 403: "auth/forbidden", 404: "not_found", 429: "auth/rate_limited"}.get(
            err.status_code, "http"
        )
        return JSONResponse(
            error_body(code, str(err.detail)), status_code=err.status_code, headers=getattr(err, "headers", None)
        )

    @app.exception_handler(Exception)
    async def _crash(request: Request, err: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, route_pattern(request.scope) or "(no route)")
        return JSONResponse(
            error_body(
                "internal",
                "something went wrong on the server, and it cannot say whether the request took effect; look before "
                "sending it again (a command sent again with the same command_id is never recorded twice)",
            ),
            status_code=500,
        )
