"""Errors as RFC 9457 problem details: every refusal the server answers itself is an `application/problem+json`
body, built here.

`type` is always `about:blank` and `title` the status's own phrase, as RFC 9457 reads them when a problem needs no
page of its own: what tells one problem from another is `code`, the stable code clients switch on (`karma/below_d4`,
`validation`). `detail` says what is wrong in a sentence; `fix` what would make it right, `ruling` the rule that
refused it. A 422 from the request's schema lists every error in `errors`, not only the first.
"""

from __future__ import annotations

from collections.abc import Mapping
from http import HTTPStatus
from typing import Annotated, NotRequired

from fastapi.responses import JSONResponse
from pydantic import Field
from typing_extensions import TypedDict

MEDIA_TYPE = "application/problem+json"
BLANK = "about:blank"


class FieldError(TypedDict):
    """One error in a request, tied to the field that holds it."""

    field: Annotated[str, Field(description='the field, as the client sent it ("" for the body as a whole)')]
    message: Annotated[str, Field(description="what is wrong with it, in a sentence that names the field")]
    fix: NotRequired[Annotated[str, Field(description="what would make it right")]]


class SheetProblem(TypedDict):
    """One thing wrong with a submitted character sheet."""

    field: str
    message: str


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


def answer(body: Problem, headers: Mapping[str, str] | None = None) -> ProblemResponse:
    return ProblemResponse(body, status_code=body["status"], headers=headers)
