"""Per-viewer views: what each member may see, decided before anything leaves the server.

GM-only rolls and pending (unsettled or unannounced) rolls reach only the roller and the GM; hidden NPC
sheets reach only the GM, in both games. This runs on the state and on every event, so pages, API answers,
live frames and exports all go through the same filter.
"""

from __future__ import annotations

from typing import Any

from herotable.table.codec import encode
from herotable.table.model import Role, TableState, Visibility


def may_see_event(state: TableState, user: str | None, visibility: str, owner: str | None) -> bool:
    """Public events reach every member; owner events their owner and the GM; GM events the GM only."""
    role = state.role_of(user) if user else None
    if role is None:
        return False
    if role is Role.GM:
        return True
    if visibility == Visibility.PUBLIC:
        return True
    return visibility == Visibility.OWNER and owner == user


def _owner_of(state: TableState, cid: str | None) -> str | None:
    if cid is None:
        return None
    owners = [c.owner for c in state.characters if c.id == cid] + [c.owner for c in state.cv_characters if c.id == cid]
    return owners[0] if owners else None


def view_for(state: TableState, user: str | None) -> dict[str, Any]:
    """The campaign state as `user` may see it, as plain JSON. Non-members see nothing but the name."""
    role = state.role_of(user) if user else None
    if role is None:
        return {"campaign_id": state.campaign_id, "name": state.name, "ruleset": state.ruleset.value}
    view: dict[str, Any] = encode(state)
    if role is Role.GM:
        return view
    view["tasks"] = [encode(t) for t in state.tasks if t.owner == user and not t.secret]
    view["failed"] = [encode(f) for f in state.failed if _owner_of(state, f.character) == user and not f.secret]
    view["done"] = [encode(d) for d in state.done if d.user == user]
    view["characters"] = [
        encode(c)
        if not c.hidden or c.owner == user
        else {"id": c.id, "owner": c.owner, "npc": c.npc, "hidden": True, "name": c.hero.name}
        for c in state.characters
    ]
    view["checks"] = [encode(c) for c in state.checks if c.owner == user and not c.secret]
    view["requests"] = [encode(r) for r in state.requests if r.user == user]
    view["cv_characters"] = [
        encode(c)
        if not c.hidden or c.owner == user
        else {"id": c.id, "owner": c.owner, "npc": c.npc, "hidden": True, "name": c.hero.name}
        for c in state.cv_characters
    ]
    hidden = {c.id for c in state.characters if c.hidden and c.owner != user}
    conflict = view.get("conflict")
    if isinstance(conflict, dict) and state.conflict is not None:
        for f in conflict["fighters"]:
            if f["id"] in hidden:
                f["hero"] = {"name": state.conflict.fighter(f["id"]).hero.name, "hidden": True}
        conflict["initiative_rolls"] = [r for r in conflict["initiative_rolls"] if r[0] not in hidden]
        act = state.conflict.open
        if act is not None and user not in (_owner_of(state, act.actor), _owner_of(state, act.target)):
            conflict["open"] = {"actor": act.actor, "target": act.target, "task": None, "rolling": True}
    return view
