"""What the table service's parts share: their limits, its errors, and folding stored events."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from herotable.store.port import CampaignRow, StoredEvent, StoreError
from herotable.table import campaign_settings
from herotable.table.codec import CodecError
from herotable.table.core import CampaignCreated, MemberJoined, MemberLeft, RoleChanged
from herotable.table.facts import FactError
from herotable.table.fold import Recorded, facts_of, fold, recorded_facts
from herotable.table.state import TableState

SNAPSHOT_EVERY = 200
TOPS_KEPT = 1024  # stream tops kept by seq, across campaigns (a few dozen bytes each)
BATCHES_KEPT = 256  # the newest runs of events seen, across campaigns, for answers made without a read
BATCH_KEPT_MOST = 64  # a longer run (a campaign read from far back) is not kept
MAX_RETRIES = 20
RETRY_WAIT_S = 2.0  # at most this long retrying clashes with other writers before answering "busy"
CACHED_CAMPAIGNS = 256  # current states kept in memory, the most recently used
PAGE = 200

# the facts that make a campaign's membership (membership changes are never undone: they are not actions)
MEMBERSHIP_FACTS = frozenset(
    {CampaignCreated.type, MemberJoined.type, RoleChanged.type, MemberLeft.type, *campaign_settings.LISTED_FACTS}
)


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


class LegacyCampaign(StoreError):
    """A campaign recorded before events were facts: kept in the store, but this herotable cannot open it."""

    def __init__(self, row: CampaignRow) -> None:
        self.campaign_id = row.campaign_id
        super().__init__(
            f"the campaign {row.name!r} ({row.campaign_id}) was recorded by an older herotable (its events are "
            "version 1 command-events) and cannot be opened by this one. Tip: export and replay it with the "
            "herotable that recorded it"
        )


class BrokenLog(StoreError):
    """A stored log that cannot be folded: damaged, or changed by hand."""


@dataclass(frozen=True)
class Applied:
    """A command that took effect: its stored events and the campaign state after them. `repeated`: the command id
    was already in the log, so nothing was written and these are the events it recorded the first time."""

    events: list[StoredEvent]
    state: TableState
    repeated: bool = False


def recorded(stored: Sequence[StoredEvent]) -> list[Recorded]:
    """Stored events as facts to fold. Raises BrokenLog for an event that cannot be read."""
    try:
        return recorded_facts(stored)
    except (FactError, CodecError) as err:
        raise BrokenLog(f"the log cannot be read: {err}") from None


def fold_log(stored: Iterable[StoredEvent], start: TableState | None = None) -> TableState:
    """The state after stored events, each read (decoded, upcast) as it is folded, so a long log never holds all
    its facts at once. Raises BrokenLog for an event that cannot be read, FoldError for a log that contradicts
    itself (UndoNeedsHistory when `start` lacks the history an undo needs)."""
    try:
        return fold(facts_of(stored, skim=True), start)
    except (FactError, CodecError) as err:
        raise BrokenLog(f"the log cannot be read: {err}") from None
