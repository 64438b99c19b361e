"""The journal's entries with their text, as their reader may read them (the campaign's view holds their headings
alone), found by words with `q`."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from typing_extensions import TypedDict

from herotable.server.answers import JournalEntry, answer
from herotable.server.api.common import IN_A_CAMPAIGN, member_state
from herotable.server.deps import ServicesDep, UserDep
from herotable.table import journal

router = APIRouter()


@answer
class JournalEntries(TypedDict):
    entries: list[JournalEntry]


@router.get("/campaigns/{campaign_id}/journal", response_model=JournalEntries, responses=IN_A_CAMPAIGN)
def entries(
    campaign_id: str,
    svc: ServicesDep,
    user: UserDep,
    q: Annotated[str, Query(max_length=200, description="words every entry found holds, in any case")] = "",
) -> dict[str, Any]:
    """The entries you may read (the GM: all), oldest first, each with its text; with `q`, those holding every word
    of it, the ones with the words in their title first. Nothing you may not read is searched."""
    state = member_state(svc, campaign_id, user)
    uid = user.user_id
    found = journal.search(state, uid, q) if q.strip() else journal.readable(state, uid)
    return {"entries": [journal.entry_json(state, e, uid, body=True) for e in found]}
