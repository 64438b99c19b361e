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
from herotable.service.memory import Memory, Tops
from herotable.service.states import States
from herotable.service.streams import Page, Streams, decode_cursor, encode_cursor
from herotable.service.writer import CommandIdReused, Listener, TableBusy, Writer
from herotable.store.export import import_campaign
from herotable.store.memory import MemoryEventStore
from herotable.store.port import CampaignRow, EventStore, InvalidExport, StoredEvent
from herotable.table import kinds  # noqa: F401  (registers every command, fact and game)
from herotable.table.commands import Command
from herotable.table.fold import FoldError
from herotable.table.game import LegalAction
from herotable.table.legal import legal_actions
from herotable.table.state import Role, Ruleset, TableState
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
    database, since every append is checked against the sequence it was computed from."""

    def __init__(
        self,
        store: EventStore,
        *,
        rng: Rng | None = None,
        clock: Callable[[], str] = utc_now,
        snapshot_every: int = SNAPSHOT_EVERY,
    ) -> None:
        self.store = store
        self.memory = Memory()
        self.states = States(store, self.memory)
        self.streams = Streams(store, self.states, self.memory)
        self.writer = Writer(
            store, self.states, self.memory, rng=rng or SystemRng(), clock=clock, snapshot_every=snapshot_every
        )
        self.campaigns = Campaigns(store, self.states, self.memory, self.writer)

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

    # --- reading ---

    def state(self, campaign_id: str) -> TableState:
        return self.states.state(campaign_id)

    def recent_state(self, campaign_id: str) -> TableState:
        return self.states.recent(campaign_id)

    def remembered(self, campaign_id: str, seq: int) -> TableState | None:
        return self.states.remembered(campaign_id, seq)

    def advanced(self, campaign_id: str, batch: Sequence[StoredEvent]) -> TableState | None:
        return self.states.advanced(campaign_id, batch)

    def continues(self, campaign_id: str, batch: Sequence[StoredEvent]) -> bool:
        return self.memory.continues(campaign_id, batch)

    def events_between(self, campaign_id: str, after_seq: int, upto_seq: int) -> list[StoredEvent] | None:
        return self.memory.events_between(campaign_id, after_seq, upto_seq)

    def stream_tops(self, campaign_id: str, seq: int) -> Tops | None:
        return self.states.stream_tops(campaign_id, seq)

    def view(self, campaign_id: str, user: str | None) -> dict[str, Any]:
        return view_for(self.state(campaign_id), user)

    def legal_actions(self, campaign_id: str, user: str) -> list[LegalAction]:
        return legal_actions(self.state(campaign_id), user)

    def stream(
        self,
        campaign_id: str,
        user: str | None,
        *,
        after: str | None = None,
        before: str | None = None,
        limit: int = PAGE,
        untrusted: bool = False,
        state: TableState | None = None,
    ) -> Page:
        return self.streams.stream(
            campaign_id, user, after=after, before=before, limit=limit, untrusted=untrusted, state=state
        )

    def following(self, state: TableState, user: str, cursor: str, batch: Sequence[StoredEvent]) -> Page | None:
        return self.streams.following(state, user, cursor, batch)

    def head_cursor(self, campaign_id: str, user: str, state: TableState | None = None) -> str:
        return self.streams.head_cursor(campaign_id, user, state)

    def cursor_at(self, campaign_id: str, user: str, role: Role, seq: int) -> str | None:
        return self.streams.cursor_at(campaign_id, user, role, seq)

    # --- campaigns ---

    def legacy_campaigns(self) -> list[CampaignRow]:
        return self.campaigns.legacy_campaigns()

    def campaigns_of(self, user: str) -> list[tuple[TableState, Role]]:
        return self.campaigns.campaigns_of(user)

    def create_campaign(
        self,
        user: str,
        display_name: str,
        title: str,
        ruleset: Ruleset,
        *,
        options: dict[str, Any] | None = None,
        campaign_id: str | None = None,
    ) -> TableState:
        return self.campaigns.create_campaign(
            user, display_name, title, ruleset, options=options, campaign_id=campaign_id
        )

    def delete_campaign(self, campaign_id: str, user: str) -> None:
        self.campaigns.delete_campaign(campaign_id, user)

    # --- writing ---

    def execute(
        self,
        campaign_id: str,
        user: str,
        cmd: Command,
        *,
        command_id: str | None = None,
        fresh: bool = False,
        state: TableState | None = None,
    ) -> Applied:
        return self.writer.execute(campaign_id, user, cmd, command_id=command_id, fresh=fresh, state=state)


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
