"""What the table tests read back: each viewer's own stream of facts, and the game's state."""

from __future__ import annotations

from typing import Any

from herotable.service import Applied, TableService
from herotable.table.facts import payload_of
from herotable.table.render import render


def seen(service: TableService, campaign_id: str, user: str) -> list[tuple[str, dict[str, Any]]]:
    """(fact type, payload) of everything `user` may see, oldest first."""
    page = service.stream(campaign_id, user, limit=10_000)
    return [(s.fact.type, payload_of(s.fact)) for s in page.seen]


def seen_types(service: TableService, campaign_id: str, user: str) -> list[str]:
    return [kind for kind, _ in seen(service, campaign_id, user)]


def facts(applied: Applied) -> list[tuple[str, str, dict[str, Any]]]:
    """(type, visibility, payload) of each event a command stored."""
    return [(e.type, e.visibility, dict(e.data)) for e in applied.events]


def text_seen(service: TableService, campaign_id: str, user: str) -> str:
    """Everything `user` may read of the campaign: the log in words, the facts and the view."""
    state = service.state(campaign_id)
    page = service.stream(campaign_id, user, limit=10_000)
    lines = [str(render(state, s.fact)) for s in page.seen]
    return "\n".join(lines) + repr([payload_of(s.fact) for s in page.seen]) + repr(service.view(campaign_id, user))


def hero(service: TableService, campaign_id: str, cid: str) -> Any:
    """A character's rules value (a Larger Than Life or Conviction hero) in the campaign now."""
    return service.state(campaign_id).game.heroes[cid]


def accept_others(service: TableService, campaign_id: str, settler: str) -> None:
    """Everyone but `settler` whose character rolls in the conflict's open exchange accepts it, so that `settler`'s
    Accept is the one that settles it (R-LTL-3, Larger Than Life rules version 8)."""
    from herotable.table.ltl.commands import Settle
    from herotable.table.ltl.state import accepter, waiting_for

    state = service.state(campaign_id)
    o = state.game.conflict.open
    users = []
    for cid in waiting_for(o):
        user = accepter(state, cid) or state.gm
        if user != settler and user not in users:
            users.append(user)
    for user in users:
        service.execute(campaign_id, user, Settle())
