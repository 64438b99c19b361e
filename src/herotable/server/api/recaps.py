"""Game sessions' recaps: the list of a campaign's sessions, and one session's recap as its reader may see it."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path
from pydantic import Field
from typing_extensions import TypedDict

from herotable.server.answers import answer
from herotable.server.api.common import IN_A_CAMPAIGN, member_state
from herotable.server.api.webhooks import Refused
from herotable.server.deps import ServicesDep, UserDep
from herotable.service.recaps import no_such_session, read_recap, sessions_of
from herotable.table.recap import recap_json
from herotable.table.recap_notes import SESSIONS

router = APIRouter()


@answer
class RecapListed(TypedDict):
    """A game session in the campaign's list of recaps."""

    session: Annotated[int, Field(description="its number; 0 is what came before the first game session")]
    adventure: Annotated[int, Field(description="the adventure it began in; 0: none had begun")]
    started_at: Annotated[str | None, Field(description="when it began; null for session 0")]
    ended_at: Annotated[str | None, Field(description="when it ended; null while it runs, and for session 0")]
    noted: Annotated[bool, Field(description="the GM wrote a paragraph of their own for it")]


@answer
class RecapScene(TypedDict):
    number: int
    dramatic: bool
    ended: Annotated[bool, Field(description="it ended within the session")]


@answer
class RecapSection(TypedDict):
    """One heading of the game's part of the recap, and its sentences in the order they happened."""

    title: str
    lines: list[str]


@answer
class RecapNote(TypedDict):
    """The GM's own paragraph, as last written."""

    text: str
    at: str


@answer
class Recap(TypedDict):
    """A game session as you may see it, undone actions left out: its scenes, who took part, the game's account of
    it in words (conflicts and who won them, points spent, defeats, levels…), and the GM's own paragraph."""

    campaign_id: str
    campaign: Annotated[str, Field(description="the campaign's name")]
    game: Annotated[str, Field(description="the game's title")]
    session: int
    title: str
    adventure: int
    started_at: str | None
    ended_at: str | None
    running: Annotated[bool, Field(description="the session has not ended")]
    scenes: list[RecapScene]
    gm: Annotated[str, Field(description="the GM's name")]
    players: Annotated[list[str], Field(description="the players who did anything in it, by name")]
    characters: Annotated[list[str], Field(description="the characters its facts are about, by name")]
    sections: list[RecapSection]
    note: RecapNote | None


NOT_THERE = IN_A_CAMPAIGN  # 404: no such campaign, or no such session


@router.get("/campaigns/{campaign_id}/recaps", responses=IN_A_CAMPAIGN)
def recaps(campaign_id: str, svc: ServicesDep, user: UserDep) -> list[RecapListed]:
    """The campaign's game sessions, session 0 (what came before the first) first; read from the log's structure
    facts alone."""
    state = member_state(svc, campaign_id, user)
    return [
        {
            "session": s.number,
            "adventure": s.adventure,
            "started_at": s.started_at,
            "ended_at": s.ended_at,
            "noted": s.noted,
        }
        for s in sessions_of(svc.table.store, state, user.user_id)
    ]


# Made as plain JSON by the table; `response_model` checks it against its type on the way out.
@router.get("/campaigns/{campaign_id}/recaps/{session}", response_model=Recap, responses=NOT_THERE)
def recap(
    campaign_id: str,
    svc: ServicesDep,
    user: UserDep,
    session: Annotated[int, Path(ge=SESSIONS.lo, le=SESSIONS.hi, description="the session's number")],
) -> dict[str, Any]:
    """One game session's recap, as you may see it: nothing you may not see (a GM secret roll, a hidden sheet's
    numbers) is in it. The GM writes their paragraph with the `campaign.recap` command."""
    state = member_state(svc, campaign_id, user)
    found = read_recap(svc.table.store, state, session, user.user_id)
    if found is None:
        said, fix = no_such_session(state, session)
        raise Refused(404, "recap/no_session", said, fix)
    return recap_json(found)
