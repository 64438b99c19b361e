"""Game sessions' recaps read from the store for one reader, reading only what a recap needs.

The list of sessions, and where each begins, come from the log's structure facts alone (`events_of_types`: session
starts and ends, adventure starts, the GM's paragraphs), never from whole logs. A session's recap then loads the log
from the session's start (`load(campaign_id, after_seq)`) and stops at the next session's start: the newest session,
the one a table reads after playing, reads its own events and no others. The store reads no further bound, so an
older session's load runs on to the log's head, and what follows its end is passed by.

Undone actions and what the reader may not see are left out (`history.seen_facts`).
"""

from __future__ import annotations

from dataclasses import dataclass

from herotable.store.port import EventStore
from herotable.table.core import AdventureStarted, SessionEnded, SessionStarted
from herotable.table.history import Seen, Session, seen_facts, split
from herotable.table.recap import Recap, build, note_of
from herotable.table.recap_notes import RecapWritten
from herotable.table.state import TableState

MARKS = (SessionStarted.type, SessionEnded.type, AdventureStarted.type, RecapWritten.type)


@dataclass(frozen=True)
class Listed:
    """A game session in the list of recaps: its number (0: before the first), its adventure, when it began and
    ended (None: not yet, or for session 0 not marked), and whether the GM wrote a paragraph for it."""

    number: int
    adventure: int
    started_at: str | None
    ended_at: str | None
    noted: bool


def no_such_session(state: TableState, number: object) -> tuple[str, str]:
    """What to say of a session the campaign has not had (`number` as asked for), and what to ask for instead."""
    last = state.structure.session
    had = f"sessions 0 to {last}" if last else "only session 0, what came before the first game session"
    return f"there is no game session {str(number)[:12]!r} in this campaign", f"ask for one of {had}"


def _marks(store: EventStore, state: TableState, viewer: str) -> list[Seen]:
    return seen_facts(state, store.events_of_types(MARKS, [state.campaign_id]), viewer)


def sessions_of(store: EventStore, state: TableState, viewer: str) -> list[Listed]:
    """The campaign's game sessions as `viewer` may list them, session 0 first, read from its structure facts."""
    marks = _marks(store, state, viewer)
    found = {s.number: s for s in split(m for m in marks if not isinstance(m.fact, RecapWritten))}
    found.setdefault(0, Session(0, 0, None, None, ()))
    notes = [m for m in marks if isinstance(m.fact, RecapWritten)]
    return [
        Listed(s.number, s.adventure, s.started_at, s.ended_at, note_of(s, notes) is not None)
        for s in sorted(found.values(), key=lambda s: s.number)
    ]


def read_recap(store: EventStore, state: TableState, number: int, viewer: str) -> Recap | None:
    """The recap of game session `number` as `viewer` may read it, or None when the campaign has had no such
    session. `state`: the campaign's state now, which says what was undone."""
    marks = _marks(store, state, viewer)
    starts = [m for m in marks if isinstance(m.fact, SessionStarted)]
    start = next((m for m in starts if m.fact.number == number), None)
    if number and start is None:
        return None
    after = start.seq - 1 if start is not None else 0
    ends = [m.seq for m in starts if m.seq > after + 1]
    adventures = [m.fact.number for m in marks if isinstance(m.fact, AdventureStarted) and m.seq <= after]
    events = store.load(state.campaign_id, after)
    if ends:
        events = [e for e in events if e.seq < ends[0]]
    found = [s for s in split(seen_facts(state, events, viewer), adventures[-1] if adventures else 0)]
    session = next((s for s in found if s.number == number), Session(number, 0, None, None, ()))
    return build(state, session, [m for m in marks if isinstance(m.fact, RecapWritten)])
