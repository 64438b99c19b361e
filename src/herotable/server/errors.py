"""One mapping from every error family to an HTTP answer: RFC 9457 problem details with a stable code (see
`problems`), never a stack trace. Pages show their own refusals as pages; what reaches these handlers from a page's
route (a missing CSRF token, a field its form cannot hold) is answered the same way as from the API."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from sqlalchemy.exc import OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException

from herotable.errors import InvalidSheet, Problem, RulesError
from herotable.server.logs import route_pattern
from herotable.server.problems import FieldError, ProblemResponse, SheetProblem, problem, respond
from herotable.service import CommandIdReused, LegacyCampaign
from herotable.store.port import ConcurrencyError, InvalidExport, StoreError, UnknownCampaign
from herotable.table.commands import COMMANDS, InvalidCommand
from herotable.table.state import Forbidden

log = logging.getLogger(__name__)


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
    parts = [str(p) for p in loc]
    if parts and parts[0] in ("body", "query", "path", "header", "cookie"):  # where it was sent: not its name
        parts = parts[1:]
    if parts and parts[0] in COMMANDS:
        parts = parts[1:]
    return ".".join(parts)


def field_error(error: Mapping[str, Any]) -> FieldError:
    """One of pydantic's validation errors as the client reads it: the field as sent, a sentence naming it, and a
    fix."""
    kind = str(error.get("type", ""))
    if kind == "json_invalid":
        reason = error.get("ctx", {}).get("error", "it does not parse")
        return {"field": "", "message": f"the request body is not valid JSON: {reason}", "fix": "send one JSON object"}
    field = validation_field(error.get("loc", ()))
    if not field and kind in ("model_attributes_type", "dict_type", "model_type"):  # the body was no JSON object
        return {
            "field": "",
            "message": "the request body is not a JSON object (was it sent as another content type?)",
            "fix": "send one JSON object, with Content-Type: application/json",
        }
    said = str(error.get("msg", "invalid")).removeprefix("Value error, ")  # a model's own words, as they are
    if kind.startswith("union_tag"):  # the command's type: named, and not with every type there is
        field = "type"
        tag = error.get("ctx", {}).get("tag")
        said = f"there is no command type {tag!r}" if kind == "union_tag_invalid" and tag else "it has no type"
    fix = FIXES.get(kind, "correct this field and send the request again").format(field=field or "the body")
    if kind == "extra_forbidden" and field == "command_id":
        fix = "send command_id in the query string (?command_id=…), beside the command, not in it"
    return {"field": field, "message": f"{field or 'request'}: {said}", "fix": fix}


def sheet_problem(p: Problem) -> SheetProblem:
    """One problem of a refused sheet or character file as the API sends it: its field, what is wrong, and the fix
    where it has one."""
    said: SheetProblem = {"field": p.field, "message": p.message}
    if p.fix:
        said["fix"] = p.fix
    return said


def install(app: FastAPI) -> None:
    @app.exception_handler(RulesError)
    async def _rules(request: Request, err: RulesError) -> ProblemResponse:
        sheet: list[SheetProblem] | None = None
        if isinstance(err, InvalidSheet):
            sheet = [sheet_problem(p) for p in err.problems]
        field = err.field if isinstance(err, InvalidCommand) else None
        status = rules_status(err)
        return respond(
            problem(status, err.code, err.reason, fix=err.fix, ruling=err.ruling, field=field, problems=sheet)
        )

    @app.exception_handler(UnknownCampaign)
    async def _unknown(request: Request, err: UnknownCampaign) -> ProblemResponse:
        return respond(problem(404, "campaign/unknown", err.reason))

    @app.exception_handler(LegacyCampaign)
    async def _legacy(request: Request, err: LegacyCampaign) -> ProblemResponse:
        return respond(problem(410, "campaign/legacy", err.reason))

    @app.exception_handler(InvalidExport)
    async def _export(request: Request, err: InvalidExport) -> ProblemResponse:
        return respond(problem(422, "export/invalid", err.reason))

    @app.exception_handler(CommandIdReused)
    async def _reused(request: Request, err: CommandIdReused) -> ProblemResponse:
        return respond(problem(409, "command/id_reused", err.reason))

    @app.exception_handler(ConcurrencyError)
    async def _busy(request: Request, err: ConcurrencyError) -> ProblemResponse:
        return respond(problem(503, "table/busy", err.reason), headers={"Retry-After": "1"})

    @app.exception_handler(StoreError)
    async def _store(request: Request, err: StoreError) -> ProblemResponse:
        return respond(problem(400, "store/error", err.reason))

    @app.exception_handler(OperationalError)
    async def _unavailable(request: Request, err: OperationalError) -> ProblemResponse:
        # the database is down, restarting, or dropped the connection (the pool is renewed for the next request)
        request.app.state.services.metrics.database_failures.inc()
        where = route_pattern(request.scope) or "(no route)"  # a path may hold a token: its pattern does not
        log.warning("the database failed on %s %s: %s", request.method, where, " ".join(str(err.orig).split()))
        message = (
            "the database did not answer; send the request again in a moment (a command sent again with the same "
            "command_id is never recorded twice)"
        )
        return respond(problem(503, "store/unavailable", message), headers={"Retry-After": "1"})

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, err: RequestValidationError) -> ProblemResponse:
        errors: list[FieldError] = [field_error(e) for e in err.errors()]
        errors = errors or [{"field": "", "message": "the request is not valid"}]
        said = [e["message"] for e in errors]
        detail = said[0] if len(said) == 1 else f"the request has {len(said)} errors: {'; '.join(said)}"
        first = errors[0]
        return respond(problem(422, "validation", detail, fix=first.get("fix"), field=first["field"], errors=errors))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, err: StarletteHTTPException) -> ProblemResponse:
        code = getattr(err, "code", None) or {
            401: "auth/required",
            403: "auth/forbidden",
            404: "not_found",
            405: "method_not_allowed",
            429: "auth/rate_limited",
        }.get(err.status_code, "http")
        said = problem(err.status_code, code, str(err.detail), fix=getattr(err, "fix", None))
        return respond(said, headers=getattr(err, "headers", None))

    @app.exception_handler(Exception)
    async def _crash(request: Request, err: Exception) -> ProblemResponse:
        log.exception("unhandled error on %s %s", request.method, route_pattern(request.scope) or "(no route)")
        message = (
            "something went wrong on the server, and it cannot say whether the request took effect; look before "
            "sending it again (a command sent again with the same command_id is never recorded twice)"
        )
        return respond(problem(500, "internal", message))
