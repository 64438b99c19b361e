"""herotable.store: campaigns' event logs and snapshots, in memory, SQLite or PostgreSQL.

`open_store()` picks the backend from `HEROTABLE_DATABASE_URL` and migrates the database; every backend
keeps the same `EventStore` contract (see `port`).
"""

from herotable.store.export import export_campaign, import_campaign
from herotable.store.memory import MemoryEventStore
from herotable.store.port import (
    LOG_VERSION,
    CampaignExists,
    CampaignRow,
    CatchUp,
    ConcurrencyError,
    DuplicateCommand,
    EventStore,
    InvalidExport,
    LibraryEntry,
    NewEvent,
    Portrait,
    Snapshot,
    StoredEvent,
    StoreError,
    StreamCursor,
    StreamTops,
    UnknownCampaign,
)
from herotable.store.sql import SqlEventStore, open_store

__all__ = [
    "LOG_VERSION",
    "CampaignExists",
    "CampaignRow",
    "CatchUp",
    "ConcurrencyError",
    "DuplicateCommand",
    "EventStore",
    "InvalidExport",
    "LibraryEntry",
    "MemoryEventStore",
    "NewEvent",
    "Portrait",
    "Snapshot",
    "SqlEventStore",
    "StoreError",
    "StoredEvent",
    "StreamCursor",
    "StreamTops",
    "UnknownCampaign",
    "export_campaign",
    "import_campaign",
    "open_store",
]
