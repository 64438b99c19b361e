"""A whole campaign as one JSON document, for its GM."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException
from pydantic import Field
from typing_extensions import TypedDict

from herotable.server.answers import answer
from herotable.server.api.common import IN_A_CAMPAIGN, member_state
from herotable.server.deps import ServicesDep, UserDep
from herotable.store.export import export_campaign

router = APIRouter()


@answer
class ExportedCampaign(TypedDict):
    campaign_id: str
    name: str
    ruleset: str
    created_at: str
    head: Annotated[int, Field(description="the seq of its last event")]
    log_version: int


@answer
class ExportedEvent(TypedDict):
    """An event of the log as the store keeps it, every GM-only fact and die face included."""

    campaign_id: str
    seq: int
    type: str
    data: dict[str, Any]
    command_id: str
    at: str
    actor: str | None
    visibility: str
    owner: str | None
    version: int
    rules_version: int
    command: dict[str, Any] | None
    prev_hash: str
    hash: Annotated[str, Field(description="chained to the previous event's")]


@answer
class ExportedImage(TypedDict):
    """An image the campaign's journal shows, as the server keeps it."""

    digest: Annotated[str, Field(description="SHA-256 of its bytes, hex")]
    media_type: str
    width: int
    height: int
    set_by: str
    set_at: str
    data: Annotated[str, Field(description="its bytes, in base64")]


@answer
class ExportDocument(TypedDict):
    """The campaign and its whole log, as `herotable import` reads it back."""

    format: str
    format_version: int
    campaign: ExportedCampaign
    event_count: int
    events: list[ExportedEvent]
    images: list[ExportedImage]
    sha256: Annotated[
        str, Field(description="SHA-256 of the canonical JSON of campaign, event_count, events and images")
    ]


# The store writes the document as plain JSON; `response_model` checks it against its type on the way out.
@router.get("/campaigns/{campaign_id}/export", response_model=ExportDocument, responses=IN_A_CAMPAIGN)
def export(campaign_id: str, svc: ServicesDep, user: UserDep) -> dict[str, Any]:
    """The whole campaign, every event of its log included, as one document (`herotable import` restores it)."""
    state = member_state(svc, campaign_id, user)
    if not state.is_gm(user.user_id):
        raise HTTPException(403, "only the GM exports the whole campaign")
    return export_campaign(svc.table.store, campaign_id)
