"""The REST API under /api/v1: one small router per resource, each a thin layer over the table service and the
account store. The pages share the routers' models and helpers, never their route handlers."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from herotable.server import problems
from herotable.server.api import (
    accounts,
    campaigns,
    charts,
    commands,
    export,
    journal,
    members,
    odds,
    recaps,
    tokens,
    travel,
    webhooks,
)
from herotable.server.deps import check_csrf, check_token

ABOUT = """The web table's REST API. People send their session cookie, and the `X-CSRF-Token` header
(`GET /api/v1/csrf`) on every unsafe request; bots and scripts send `Authorization: Bearer htk_…` (a personal API
token) and nothing else.

Every error is an RFC 9457 problem, `application/problem+json`: switch on its `code` (`validation`,
`karma/below_d4`, …); `detail` says what is wrong, `fix` what would make it right, `ruling` the rule that refused it,
and a 422 lists every error of the request in `errors`. `type` is always `about:blank`."""

# What any operation may answer: an address with a NUL (400), no login or a dead token (401), no right to it (403),
# a failure (500), a busy or absent database (503). Each operation declares the rest itself.
router = APIRouter(
    prefix="/api/v1",
    dependencies=[Depends(check_csrf), Depends(check_token)],
    responses=problems.responses(400, 401, 403, 500, 503),
)
# commands first: routes are tried in order, and it serves the most requests
PARTS = (commands, accounts, campaigns, members, export, odds, tokens, webhooks, charts, recaps, travel, journal)
for part in PARTS:
    router.include_router(part.router)
