"""The REST API under /api/v1: one small router per resource, each a thin layer over the table service and the
account store. The pages share the routers' models and helpers, never their route handlers."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from herotable.server.api import accounts, campaigns, commands, export, members, odds, tokens, webhooks
from herotable.server.deps import check_csrf, check_token

router = APIRouter(prefix="/api/v1", dependencies=[Depends(check_csrf), Depends(check_token)])
# commands first: routes are tried in order, and it serves the most requests
PARTS = (commands, accounts, campaigns, members, export, odds, tokens, webhooks)
for part in PARTS:
    router.include_router(part.router)
