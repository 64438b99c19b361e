"""A campaign's facts as they stand, session by session, as one reader may see them: what recaps and charts read.

Facts of actions an undo reversed are left out, and so are the undos themselves: a recap tells what happened as it
stands (R-T-4). Each reader gets only the facts they may see (`views.may_see`): a GM's secret roll never reaches a
player's recap or chart. A session runs from its start to the next session's start, so what is settled after it
ends (an adventure's awards) counts with it; what happened before the first session is session 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from herotable.table.core import AdventureStarted, SessionEnded, SessionStarted
from herotable.table.fold import UNDONE_TYPE, Recorded, facts_of
from herotable.table.recap_parts import Seen, Session
from herotable.table.state import TableState
from herotable.table.undo import UndoneTold
from herotable.table.views import may_see

__all__ = ["Seen", "Session", "seen_facts", "sessions", "split"]


def seen_facts(state: TableState, events: Sequence[Any], viewer: str | None) -> list[Seen]:
    """The stored `events` (with `at`) as the facts `viewer` may see, undone actions and undos left out."""
    out: list[Seen] = []
    for e, r in zip(events, facts_of(events), strict=True):
        if not _stands(state, r) or not may_see(state, viewer, r.visibility.value, r.owner):
            continue
        out.append(Seen(r.seq, e.at, r.command_id, r.actor, r.command_type, r.fact, r.visibility.value, r.owner))
    return out


def _stands(state: TableState, r: Recorded) -> bool:
    return r.command_id not in state.undone and r.fact.type not in (UNDONE_TYPE, UndoneTold.type)


def sessions(state: TableState, events: Sequence[Any], viewer: str | None) -> list[Session]:
    """The campaign's game sessions, oldest first, each with the facts `viewer` may see; session 0 (what came before
    the first session) only when it holds anything."""
    return split(seen_facts(state, events, viewer))


def split(facts: Iterable[Seen], begun: int = 0) -> list[Session]:
    """Facts cut into sessions at each session's start; `begun`: the adventure begun before the first of them, for
    facts read from the middle of the log."""
    out: list[Session] = []
    number, adventure, current, started, ended = 0, 0, begun, None, None
    held: list[Seen] = []

    def close() -> None:
        if number or held:
            out.append(Session(number, adventure, started, ended, tuple(held)))

    for s in facts:
        f = s.fact
        if isinstance(f, SessionStarted):
            close()
            number, adventure, started, ended, held = f.number, current, s.at, None, []
        elif isinstance(f, SessionEnded) and f.number == number:
            ended = s.at
        elif isinstance(f, AdventureStarted):
            current = f.number
            adventure = adventure or current
        held.append(s)
    close()
    return out
