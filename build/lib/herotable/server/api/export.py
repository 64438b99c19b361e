"""A whole campaign as one JSON document, for its GM."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException

from herotable.server.api.common import member_state
from herotable.server.deps import ServicesDep, UserDep
from herotable.store.export import export_campaign

router = APIRouter()


@router.get("/campaigns/{campaign_id}/export")
def export(campaign_id: str, svc: ServicesDep, user: UserDep) -> dict[str, Any]:
    state = member_state(svc, campaign_id, user)
    if not state.is_gm(user.user_id):
        raise HTTPException(403, "only the GM exports the whole campaign")
    return export_campaign(svc.table.store, campaign_id)
