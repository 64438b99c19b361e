"""The table service: loads a campaign's state, decides a command into facts, appends them with optimistic
concurrency, folds them, and reads each viewer's own stream. The one place that joins `table` and `store`.

It is made of named parts, each in its own module, which `TableService` puts together and speaks for:

- `memory.Memory`: what is remembered of recent campaigns (states, stream tops, runs of events), one eviction rule;
- `states.States`: a campaign's state, remembered or read (snapshot and newer events);
- `streams.Streams`: each viewer's own stream and its cursors;
- `writer.Writer`: a command's path (load, decide, append, announce), its turns and group commit, and catching up
  with another process's commands through the store's `CatchUp` port;
- `campaigns.Campaigns`: a campaign made, listed for a member, deleted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from herotable.dice import Rng, SystemRng
from herotable.service.campaigns import Campaigns
from herotable.service.common import (
    CACHED_CAMPAIGNS,
    MEMBERSHIP_FACTS,
    PAGE,
    SNAPSHOT_EVERY,
    Applied,
    BrokenLog,
    LegacyCampaign,
    fold_log,
    recorded,
    utc_now,
)
from herotable.service.memory import Memory
from herotable.service.states import States
from herotable.service.streams import Page, Streams, decode_cursor, encode_cursor
from herotable.service.writer import CommandIdReused, Listener, TableBusy, Writer
from herotable.store.export import import_campaign
from herotable.store.memory import MemoryEventStore
from herotable.store.port import EventStore, InvalidExport, StoredEvent
from herotable.table import kinds  # noqa: F401  (registers every command, fact and game)
from herotable.table.fold import FoldError
from herotable.table.game import LegalAction
from herotable.table.legal import legal_actions
from herotable.table.state import TableState
from herotable.table.views import view_for

__all__ = [
    "CACHED_CAMPAIGNS",
    "MEMBERSHIP_FACTS",
    "PAGE",
    "SNAPSHOT_EVERY",
    "Applied",
    "BrokenLog",
    "CommandIdReused",
    "LegacyCampaign",
    "Page",
    "TableBusy",
    "TableService",
    "decode_cursor",
    "encode_cursor",
    "fold_log",
    "recorded",
    "replay_events",
    "utc_now",
    "verified_import",
]


class TableService:
    """Runs commands against campaigns in `store`. Safe to share between threads; several processes may share one
    database, since every append is checked against the sequence it was computed from. `cached_campaigns`: how many
    campaign states it keeps in memory (CACHED_CAMPAIGNS unless told)."""

    def __init__(
        self,
        store: EventStore,
        *,
        rng: Rng | None = None,
        clock: Callable[[], str] = utc_now,
        snapshot_every: int = SNAPSHOT_EVERY,
        cached_campaigns: int | None = None,
    ) -> None:
        self.store = store
        self.memory = Memory(cached_campaigns)
        self.states = States(store, self.memory, snapshot_every=snapshot_every)
        self.streams = Streams(store, self.states, self.memory)
        self.writer = Writer(
            store, self.states, self.memory, rng=rng or SystemRng(), clock=clock, snapshot_every=snapshot_every
        )
        self.campaigns = Campaigns(store, self.states, self.memory, self.writer)
        # its interface: each part's own methods, named as callers know them
        self.state = self.states.state
        self.recent_state = self.states.recent
        self.remembered = self.states.remembered
        self.advanced = self.states.advanced
        self.stream_tops = self.states.stream_tops
        self.continues = self.memory.continues
        self.events_between = self.memory.events_between
        self.stream = self.streams.stream
        self.following = self.streams.following
        self.head_cursor = self.streams.head_cursor
        self.cursor_of = self.streams.cursor_of
        self.cursor_at = self.streams.cursor_at
        self.legacy_campaigns = self.campaigns.legacy_campaigns
        self.campaigns_of = self.campaigns.campaigns_of
        self.create_campaign = self.campaigns.create_campaign
        self.delete_campaign = self.campaigns.delete_campaign
        self.execute = self.writer.execute

    @property
    def rng(self) -> Rng:
        """The dice every command is decided with."""
        return self.writer.rng

    @rng.setter
    def rng(self, rng: Rng) -> None:
        self.writer.rng = rng

    def subscribe(self, listener: Listener) -> None:
        """Call `listener(campaign_id, events)` after every append made through this service."""
        self.writer.listeners.append(listener)

    def view(self, campaign_id: str, user: str | None) -> dict[str, Any]:
        return view_for(self.state(campaign_id), user)

    def legal_actions(self, campaign_id: str, user: str) -> list[LegalAction]:
        return legal_actions(self.state(campaign_id), user)


def replay_events(events: Sequence[StoredEvent]) -> TableState:
    """Fold a whole log (an export) without touching any store. Raises BrokenLog."""
    try:
        return fold_log(events)
    except FoldError as err:
        raise BrokenLog(f"the log cannot be folded: {err}") from None


def verified_import(store: EventStore, document: Any) -> TableState:
    """Import an exported campaign into `store` only if it is intact: its digest and hash chain hold, and every
    event folds. Raises InvalidExport with the reason; nothing is written then."""
    scratch = MemoryEventStore()
    row = import_campaign(scratch, document)
    try:
        state = replay_events(scratch.load(row.campaign_id))
    except BrokenLog as err:
        raise InvalidExport(err.reason) from None
    import_campaign(store, document)
    return state
