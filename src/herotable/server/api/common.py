"""What every API router shares: a campaign's state for one of its members, and the problems that may bring."""

from __future__ import annotations

from fastapi import HTTPException

from herotable.server import problems
from herotable.server.deps import ServicesDep
from herotable.store.accounts import User
from herotable.table.state import TableState

# What an operation on one campaign may answer besides: no such campaign (404), or one recorded by a herotable too
# old to read (410).
IN_A_CAMPAIGN = problems.responses(404, 410)


def member_state(svc: ServicesDep, campaign_id: str, user: User, *, recent: bool = False) -> TableState:
    """The campaign's state, for one of its members only (403 otherwise). `recent`: the state in memory will do
    (a command's append checks that nothing landed since); a member it does not know yet is looked up afresh."""
    state = svc.table.recent_state(campaign_id) if recent else svc.table.state(campaign_id)
    if state.role_of(user.user_id) is None and recent:
        state = svc.table.state(campaign_id)
    if state.role_of(user.user_id) is None:
        raise HTTPException(403, "you are not a member of this campaign")
    return state
