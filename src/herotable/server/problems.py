"""Errors as RFC 9457 problem details: every refusal the server answers itself is an `application/problem+json`
body, built here and documented here in the OpenAPI schema.

`type` is always `about:blank` and `title` the status's own phrase, as RFC 9457 reads them when a problem needs no
page of its own: what tells one problem from another is `code`, the stable code clients switch on (`karma/below_d4`,
`validation`). `detail` says what is wrong in a sentence; `fix` what would make it right, `ruling` the rule that
refused it. A 422 from the request's schema lists every error in `errors`, not only the first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from http import HTTPStatus
from typing import Annotated, Any, NotRequired

from fastapi.responses import JSONResponse
from pydantic import Field, TypeAdapter
from typing_extensions import TypedDict

MEDIA_TYPE = "application/problem+json"
BLANK = "about:blank"


class FieldError(TypedDict):
    """One error in a request, tied to the field that holds it."""

    field: Annotated[str, Field(description='the field, as the client sent it ("" for the body as a whole)')]
    message: Annotated[str, Field(description="what is wrong with it, in a sentence that names the field")]
    fix: NotRequired[Annotated[str, Field(description="what would make it right")]]


class SheetProblem(TypedDict):
    """One thing wrong with a submitted character sheet or character file."""

    field: str
    message: str
    fix: NotRequired[Annotated[str, Field(description="how to put it right")]]


class Problem(TypedDict):
    """An error, as RFC 9457 problem details. Switch on `code`; show `detail` and `fix` to whoever sent the request.
    Unknown members may appear later: ignore them."""

    type: Annotated[str, Field(description="always about:blank: `code` tells one problem from another")]
    title: Annotated[str, Field(description="the HTTP status's phrase")]
    status: Annotated[int, Field(description="the HTTP status code, as sent")]
    detail: Annotated[str, Field(description="what is wrong, in a sentence")]
    code: Annotated[str, Field(description="a stable code for the problem, e.g. validation, karma/below_d4")]
    fix: NotRequired[Annotated[str, Field(description="what would make the request succeed")]]
    ruling: NotRequired[Annotated[str, Field(description="the rule or ruling that refused it, e.g. R-LTL-10")]]
    field: NotRequired[Annotated[str, Field(description="the field at fault (a 422's first error's)")]]
    problems: NotRequired[Annotated[list[SheetProblem], Field(description="a refused sheet's every problem")]]
    errors: NotRequired[Annotated[list[FieldError], Field(description="a 422's every error, in order")]]


def problem(
    status: int,
    code: str,
    detail: str,
    *,
    fix: str | None = None,
    ruling: str | None = None,
    field: str | None = None,
    problems: list[SheetProblem] | None = None,
    errors: list[FieldError] | None = None,
) -> Problem:
    """The body of one problem; extension members left out when they are None."""
    body: Problem = {
        "type": BLANK,
        "title": HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
        "code": code,
    }
    if fix is not None:
        body["fix"] = fix
    if ruling is not None:
        body["ruling"] = ruling
    if field is not None:
        body["field"] = field
    if problems is not None:
        body["problems"] = problems
    if errors is not None:
        body["errors"] = errors
    return body


class ProblemResponse(JSONResponse):
    media_type = MEDIA_TYPE


def respond(body: Problem, headers: Mapping[str, str] | None = None) -> ProblemResponse:
    """The problem as an answer, with its status and its media type."""
    return ProblemResponse(body, status_code=body["status"], headers=headers)


# --- in the OpenAPI schema ---

REF = "#/components/schemas/{model}"
SAID = {
    400: "A NUL character in the address, or a request the store cannot take",
    401: "Not logged in, or the API token is unknown, revoked or expired",
    403: "Not allowed: no member of the campaign, not its GM, a missing CSRF token, or beyond the token's scope",
    404: "No such campaign, invitation or token",
    409: "The rules refuse it now: `fix` says what would make it legal, `ruling` names the rule",
    410: "Gone: an invitation expired or used up, or a campaign recorded by an older herotable",
    413: "The request body is larger than any request here needs",
    422: "The request does not fit its schema (then `errors` lists every error) or what it names cannot be taken as it "
    "is (`code` says which, `fix` what would do)",
    429: "Too many attempts or commands: wait as long as Retry-After says",
    500: "The server failed: it cannot say whether the request took effect, so look before sending it again",
    503: "The database is busy or away: send it again in a moment (Retry-After)",
}


def responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """What an operation declares it may answer with a problem, for a route's or a router's `responses`."""
    return {
        s: {"description": SAID[s], "content": {MEDIA_TYPE: {"schema": {"$ref": REF.format(model="Problem")}}}}
        for s in statuses
    }


def documented(schema: dict[str, Any]) -> dict[str, Any]:
    """The OpenAPI document with problems as they are sent: the `Problem` schema among the components, a problem for
    422 where FastAPI documents its own validation error (which this server never sends), and one for 413 wherever
    every operation (a body past its limit is refused before any route reads it, one a GET was sent with too). Changes
    `schema` in place and returns it."""
    made = TypeAdapter(Problem).json_schema(mode="serialization", ref_template=REF)
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    components.update(made.pop("$defs", {}))
    components["Problem"] = made
    for gone in ("HTTPValidationError", "ValidationError"):
        components.pop(gone, None)
    for path_item in schema.get("paths", {}).values():
        for operation in _operations(path_item):
            said = operation.setdefault("responses", {})
            if "HTTPValidationError" in str(said.get("422", "")):
                said.update(_keyed(responses(422)))
            said.update(_keyed(responses(413)))  # a body is refused past its limit on any operation, before it is read
    return schema


def _operations(path_item: Mapping[str, Any]) -> Iterable[dict[str, Any]]:
    return (op for method, op in path_item.items() if method in ("get", "put", "post", "delete", "patch", "head"))


def _keyed(declared: dict[int | str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {str(status): value for status, value in declared.items()}
