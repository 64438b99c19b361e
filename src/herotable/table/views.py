"""Per-viewer views: what each member may see, decided before anything leaves the server.

A fact is public, one member's (and the GM's), or the GM's alone. Pending rolls reach their roller's player and
the GM; GM secret rolls and hidden NPCs' sheets reach only the GM. The same rules serve pages, API answers, live
frames and logs.
"""

from __future__ import annotations

from typing import Any

from herotable.table import journal
from herotable.table.codec import encode
from herotable.table.facts import Visibility
from herotable.table.game import game_of
from herotable.table.state import Role, TableState


def may_see(state: TableState, user: str | None, visibility: str, owner: str | None) -> bool:
    """Public facts reach every member; owner facts their owner and the GM; GM facts the GM only."""
    role = state.role_of(user)
    if role is None:
        return False
    if role is Role.GM or visibility == Visibility.PUBLIC:
        return True
    return visibility == Visibility.OWNER and owner == user


def may_see_sheet(state: TableState, user: str | None, cid: str) -> bool:
    """Whether `user` may read the character's sheet: anyone unless the GM hid it, then its owner (the GM)."""
    c = state.character(cid)
    return not c.hidden or c.owner == user or state.is_gm(user)


def view_for(state: TableState, user: str | None) -> dict[str, Any]:
    """The campaign as `user` may see it, as plain JSON. Non-members see nothing but its name."""
    role = state.role_of(user)
    head: dict[str, Any] = {"campaign_id": state.campaign_id, "name": state.name, "ruleset": state.ruleset.value}
    if role is None or user is None:
        return head
    gm = role is Role.GM
    last = state.done[-1] if state.done else None
    return {
        **head,
        "role": role.value,
        "members": encode(state.members),
        "characters": encode(state.characters),
        "retired": encode(tuple(s.ref for s in state.retired)),
        # characters from files waiting for the GM's approval: each its player's and the GM's to see
        "arrivals": [encode(a) for a in state.arrivals if gm or a.ref.owner == user],
        "archived": state.archived,
        "structure": encode(state.structure),
        "requests": [encode(r) for r in state.requests if gm or r.user == user],
        "last_action": None
        if last is None or not (gm or last.user == user)
        else {"command_id": last.command_id, "type": last.type, "user": last.user, "commit": last.commit},
        "game": game_of(state).mask(state, user),
        "journal": journal.view(state, user),
    }
