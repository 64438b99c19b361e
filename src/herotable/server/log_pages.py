"""The log's filters and pages, and one fact as its viewer reads it (`seen_json`), for the API, the log panel and
the live socket alike.

A page is read from the viewer's own stream by slices (`TableService.stream`), newest first: never the whole log,
and never a fact the viewer may not see. Its cursors are the viewer's own stream positions, so they tell nothing
of what is hidden.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from herotable.server.answers import Event
from herotable.service import TableService
from herotable.table.chat import ChatRolled, ChatSaid
from herotable.table.facts import payload_of
from herotable.table.render import Seen, render
from herotable.table.state import TableState

FILTERS = {"all": "All", "rolls": "Rolls", "chat": "Chat", "mine": "Mine"}
FILTER_PATTERN = "^(" + "|".join(FILTERS) + ")$"
SLICE = 200  # facts read from the stream at a time
WANTED = 50  # a filtered page reads on until it holds this many facts…
SCAN_MOST = 1000  # …or has read this many, then ends early with a cursor to read on
CHAT_FACTS = frozenset({ChatSaid.type, ChatRolled.type})
FILTER_HELP = "all; rolls (events holding dice); chat (messages and chat rolls); mine (what you did, whispers to you)"


def keeps(kind: str, s: Seen, viewer: str) -> bool:
    """Whether the filter `kind` shows this fact: all; rolls (facts holding dice); chat (messages and chat rolls);
    mine (what the viewer did, and whispers to them)."""
    if kind == "rolls":
        return s.fact.rolled or bool(s.fact.dice_faces())
    if kind == "chat":
        return s.fact.type in CHAT_FACTS
    if kind == "mine":
        return s.actor == viewer or (s.fact.type in CHAT_FACTS and getattr(s.fact, "to", None) == viewer)
    return True


@dataclass(frozen=True)
class LogPage:
    """A page of one viewer's log, oldest first: `first` and `last` are the cursors around what was read, `older`
    the cursor to read on back from (None when the stream's start was reached)."""

    seen: list[Seen] = field(default_factory=list)
    first: str = ""
    last: str = ""
    older: str | None = None


def read_log(
    table: TableService,
    campaign_id: str,
    viewer: str,
    kind: str = "all",
    *,
    after: str | None = None,
    before: str | None = None,
    limit: int = SLICE,
) -> LogPage:
    """The viewer's log through the filter `kind`: after a cursor (one slice of `limit` facts, filtered), or back
    from one (or from the newest), by slices, until it holds WANTED facts (all: one slice of `limit`) or has read
    SCAN_MOST. Raises InvalidCommand for a cursor that is not one of ours."""
    if after is not None:
        got = table.stream(campaign_id, viewer, after=after, before=before, limit=limit, untrusted=True)
        return LogPage([s for s in got.seen if keeps(kind, s, viewer)], got.first, got.last, None)
    size = limit if kind == "all" else SLICE
    wanted = limit if kind == "all" else min(WANTED, limit)
    kept: list[Seen] = []
    read = 0
    cursor, last = before, ""
    while True:
        got = table.stream(campaign_id, viewer, before=cursor, limit=size, untrusted=True)
        last = last or got.last
        kept[:0] = [s for s in got.seen if keeps(kind, s, viewer)]
        read += len(got.seen)
        cursor = got.first
        if len(got.seen) < size:
            return LogPage(kept, cursor, last, None)
        if len(kept) >= wanted or read >= SCAN_MOST:
            return LogPage(kept, cursor, last, cursor)


def seen_json(state: TableState, s: Seen) -> Event:
    """One fact as its viewer reads it: their own position, never the global sequence."""
    return {
        "position": s.position,
        "type": s.fact.type,
        "command_id": s.command_id,
        "actor": s.actor,
        "at": s.at,
        "visibility": s.visibility,
        "text": render(state, s.fact),
        "fact": payload_of(s.fact),
        "undone": s.command_id in state.undone,
        "headline": s.fact.headline(),  # a roll or an outcome: the table page tells it as it happens
    }
