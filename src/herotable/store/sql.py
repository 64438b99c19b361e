"""`SqlEventStore` on SQLAlchemy 2 (SQLite or PostgreSQL) and `open_store`, which picks the backend."""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any, Literal

from sqlalchemy import (
    Executable,
    Text,
    and_,
    bindparam,
    delete,
    func,
    insert,
    literal,
    null,
    or_,
    select,
    union_all,
    update,
)
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, IntegrityError, OperationalError

from herotable.store import payload
from herotable.store.chain import GENESIS
from herotable.store.engine import create_store_engine, for_writing
from herotable.store.invariants import (
    chained,
    check_batch,
    check_campaign,
    check_image,
    check_library_entry,
    check_log,
    check_portrait,
    check_seq,
    check_snapshot_seq,
    encode_snapshot,
    positions,
    stream_key,
)
from herotable.store.memberships import changes_members, members_after
from herotable.store.memory import MemoryEventStore
from herotable.store.migrate import require_head, upgrade
from herotable.store.port import (
    LOG_VERSION,
    CampaignExists,
    CampaignImage,
    CampaignRow,
    CatchUp,
    ConcurrencyError,
    DuplicateCommand,
    EventStore,
    LibraryEntry,
    Membership,
    NewEvent,
    OverQuota,
    Portrait,
    Snapshot,
    StoredEvent,
    StoreError,
    StreamCursor,
    StreamTops,
    UnknownCampaign,
)
from herotable.store.schema import (
    CampaignImageRecord,
    CampaignRecord,
    EventRecord,
    InviteRecord,
    InviteUseRecord,
    LibraryRecord,
    MembershipRecord,
    OutboxRecord,
    PortraitRecord,
    RemovalRecord,
    SnapshotRecord,
    WebhookRecord,
)
from herotable.store.webhooks import enqueue

DATABASE_URL_ENV = "HEROTABLE_DATABASE_URL"
DATA_DIR_ENV = "HEROTABLE_DATA_DIR"
ACCEPTED_URLS = (
    "memory://, sqlite:///relative/path.db, sqlite:////absolute/path.db, "
    "postgresql+psycopg://user[:password]@host[:port]/database (postgresql://… means the same)"
)

_CAMPAIGN_COLUMNS = (
    CampaignRecord.campaign_id,
    CampaignRecord.name,
    CampaignRecord.ruleset,
    CampaignRecord.created_at,
    CampaignRecord.head,
    CampaignRecord.log_version,
)
_EVENT_COLUMNS = (
    EventRecord.campaign_id,
    EventRecord.seq,
    EventRecord.type,
    EventRecord.data,
    EventRecord.command_id,
    EventRecord.at,
    EventRecord.actor,
    EventRecord.visibility,
    EventRecord.owner,
    EventRecord.version,
    EventRecord.rules_version,
    EventRecord.command,
    EventRecord.prev_hash,
    EventRecord.hash,
    EventRecord.stream_pos,
)
_IMAGE_COLUMNS = (  # in `CampaignImage`'s field order
    CampaignImageRecord.campaign_id,
    CampaignImageRecord.digest,
    CampaignImageRecord.media_type,
    CampaignImageRecord.image,
    CampaignImageRecord.width,
    CampaignImageRecord.height,
    CampaignImageRecord.set_by,
    CampaignImageRecord.set_at,
)
_PORTRAIT_COLUMNS = (  # in `Portrait`'s field order
    PortraitRecord.campaign_id,
    PortraitRecord.character_id,
    PortraitRecord.media_type,
    PortraitRecord.image,
    PortraitRecord.width,
    PortraitRecord.height,
    PortraitRecord.digest,
    PortraitRecord.set_by,
    PortraitRecord.set_at,
)

_LIBRARY_COLUMNS = (  # in `LibraryEntry`'s field order, its document last
    LibraryRecord.entry_id,
    LibraryRecord.owner,
    LibraryRecord.ruleset,
    LibraryRecord.name,
    LibraryRecord.saved_from,
    LibraryRecord.saved_at,
)


# The statements every command runs, built once with their parameters bound by name: building a statement and its
# cache key again for each call costs more than running it on SQLite.
_CAMPAIGN_ROW = select(*_CAMPAIGN_COLUMNS).where(CampaignRecord.campaign_id == bindparam("campaign_id"))
_HEAD_FOR_APPEND = (
    select(CampaignRecord.head, CampaignRecord.head_hash, CampaignRecord.webhooks)
    .where(CampaignRecord.campaign_id == bindparam("campaign_id"))
    # PostgreSQL: held to the commit, so appends to one campaign queue (NO KEY UPDATE, as the head's UPDATE takes:
    # rows that refer to the campaign, a snapshot or a membership, are still written meanwhile); SQLite locks the file
    .with_for_update(key_share=True)
)
# the head, held as `_HEAD_FOR_APPEND` holds it, with the events after `after_seq` in the same read (one round trip
# for a writer that may have to catch up): one row per newer event, or one row with no event
_HEAD_AND_NEWER = (
    select(CampaignRecord.head, CampaignRecord.head_hash, CampaignRecord.webhooks, *_EVENT_COLUMNS)
    .select_from(CampaignRecord)
    .outerjoin(
        EventRecord,
        and_(EventRecord.campaign_id == CampaignRecord.campaign_id, EventRecord.seq > bindparam("after_seq")),
    )
    .where(CampaignRecord.campaign_id == bindparam("campaign_id"))
    .order_by(EventRecord.seq)
    .with_for_update(key_share=True, of=CampaignRecord)
)
_REPEATED = (
    select(EventRecord.command_id)
    .where(EventRecord.campaign_id == bindparam("campaign_id"))
    .where(EventRecord.command_id.in_(bindparam("command_ids", expanding=True)))
    .limit(1)
)
_MOVE_HEAD = (
    update(CampaignRecord)
    .where(CampaignRecord.campaign_id == bindparam("which"))
    .where(CampaignRecord.head == bindparam("expected"))
    .values(head=bindparam("new_head"), head_hash=bindparam("new_hash"))
)
# the same, when the writer knows the head's hash too: it moves the head without reading it first
# (with the campaign's count of webhooks: the outbox is written only for a campaign that has some)
_MOVE_HEAD_FROM = _MOVE_HEAD.where(CampaignRecord.head_hash == bindparam("expected_hash")).returning(
    CampaignRecord.webhooks
)
_INSERT_EVENTS = insert(EventRecord)


# A stream's top position, and the owners with a stream of their own, are each the edge of a run of `ix_events_stream`
# (campaign_id, visibility, owner, stream_pos), found by one index search however long the log: written as ORDER BY …
# LIMIT 1 in the index's own order, never as MAX or MIN, which PostgreSQL answers for `owner IS NULL` (and, with stale
# statistics, for an owner too) by reading every entry of the stream. Audiences are as the contract has them: the
# public's and the GM's streams name no owner, an owner event names its owner.
def _top(campaign: Any, visibility: Any, owner: Any) -> Any:
    """The top position of one audience's stream (a one-column select: no row when it has no event)."""
    alone = EventRecord.owner.is_(None) if owner is None else EventRecord.owner == owner
    return (
        select(EventRecord.stream_pos)
        .where(EventRecord.campaign_id == campaign, EventRecord.visibility == visibility, alone)
        .order_by(EventRecord.owner.desc(), EventRecord.stream_pos.desc())
        .limit(1)
    )


def _owner_after(campaign: Any, owner: Any) -> Any:
    """The first owner with a stream of their own (`owner` None), or the next one after `owner`."""
    later = EventRecord.owner.is_not(None) if owner is None else EventRecord.owner > owner
    return (
        select(EventRecord.owner)
        .where(EventRecord.campaign_id == campaign, EventRecord.visibility == "owner", later)
        .order_by(EventRecord.owner)
        .limit(1)
        .scalar_subquery()
    )


def _stream_tops_statement() -> Executable:
    """The campaign's head and each audience's top stream position in one statement, which never walks the log (a
    GROUP BY over its events reads every one, and costs as much as the campaign's history): the owners are found one
    after the other by a recursive query, each audience's top by one index search. A row (visibility, owner, top) per
    audience (the top NULL when it has no event), and one ("", NULL, head)."""
    campaign: Any = bindparam("campaign_id")
    owners = select(_owner_after(campaign, None).label("owner")).cte("owners", recursive=True)
    owners = owners.union_all(select(_owner_after(campaign, owners.c.owner)).where(owners.c.owner.is_not(None)))
    no_owner = null().cast(Text)
    return union_all(
        select(literal("owner"), owners.c.owner, _top(campaign, "owner", owners.c.owner).scalar_subquery()).where(
            owners.c.owner.is_not(None)
        ),
        *(select(literal(kind), no_owner, _top(campaign, kind, None).scalar_subquery()) for kind in ("public", "gm")),
        select(literal(""), no_owner, CampaignRecord.head).where(CampaignRecord.campaign_id == campaign),
    )


_PUBLIC_TOP = _top(bindparam("campaign_id"), bindparam("visibility"), None)
_OWNER_TOP = _top(bindparam("campaign_id"), bindparam("visibility"), bindparam("owner"))
_STREAM_TOPS = _stream_tops_statement()
_LOAD = (
    select(*_EVENT_COLUMNS)
    .where(EventRecord.campaign_id == bindparam("campaign_id"))
    .where(EventRecord.seq > bindparam("after_seq"))
    .order_by(EventRecord.seq)
)


@cache
def _stream_query(everything: bool, after: bool, before: bool) -> Executable:
    """`read_stream`'s statement for one combination of its arguments, built once (parameters: campaign_id, viewer,
    after_public, after_own, before_public, before_own, limit)."""
    query = select(*_EVENT_COLUMNS).where(EventRecord.campaign_id == bindparam("campaign_id"))
    if everything:
        if after:
            query = query.where(EventRecord.seq > bindparam("after_public"))
        if before:
            query = query.where(EventRecord.seq <= bindparam("before_public"))
    else:
        public = EventRecord.visibility == "public"
        own = and_(EventRecord.visibility == "owner", EventRecord.owner == bindparam("viewer"))
        if after:
            public = and_(public, EventRecord.stream_pos > bindparam("after_public"))
            own = and_(own, EventRecord.stream_pos > bindparam("after_own"))
        if before:
            public = and_(public, EventRecord.stream_pos <= bindparam("before_public"))
            own = and_(own, EventRecord.stream_pos <= bindparam("before_own"))
        query = query.where(or_(public, own))
    return query.order_by(EventRecord.seq.desc() if before else EventRecord.seq).limit(bindparam("limit"))


def _event_row(event: StoredEvent, data: str, command: str | None) -> dict[str, Any]:
    return {
        "campaign_id": event.campaign_id,
        "seq": event.seq,
        "type": event.type,
        "version": event.version,
        "command_id": event.command_id,
        "at": event.at,
        "actor": event.actor,
        "visibility": event.visibility,
        "owner": event.owner,
        "data": data,
        "rules_version": event.rules_version,
        "command": command,
        "prev_hash": event.prev_hash,
        "hash": event.hash,
        "stream_pos": event.stream_pos,
    }


def _encoded(events: Sequence[NewEvent]) -> tuple[list[str], list[str | None]]:
    """The events' payloads and commands as stored text. Raises StoreError for one that cannot be stored."""
    return (
        [payload.dumps(event.data, f"events[{index}].data") for index, event in enumerate(events)],
        [_command_text(event, f"events[{index}].command") for index, event in enumerate(events)],
    )


def _stored(row: Any) -> StoredEvent:
    """An event from a row of `_EVENT_COLUMNS` (in `StoredEvent`'s field order), unpacked as a tuple: loading a
    campaign reads every row, and a row's attribute access is several times slower."""
    (campaign_id, seq, kind, data, command_id, at, actor, visibility, owner, version, rules_version, command,
     prev_hash, hash_, stream_pos) = row  # fmt: skip
    return StoredEvent(
        campaign_id,
        seq,
        kind,
        payload.loads(data),
        command_id,
        at,
        actor,
        visibility,
        owner,
        version,
        rules_version,
        None if command is None else payload.loads(command),
        prev_hash,
        hash_,
        stream_pos,
    )


def _command_text(event: NewEvent | StoredEvent, where: str) -> str | None:
    return None if event.command is None else payload.dumps(event.command, where)


class SqlEventStore:
    """An `EventStore` in a SQL database migrated to the newest revision (see `open_store`)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._writer = for_writing(engine)
        self._outbox_woken: list[Callable[[], None]] = []

    @property
    def engine(self) -> Engine:
        """The database engine, shared with the account store of the same database."""
        return self._engine

    def _campaign(self, connection: Connection, campaign_id: str) -> CampaignRow:
        found = connection.execute(_CAMPAIGN_ROW, {"campaign_id": campaign_id}).one_or_none()
        if found is None:
            raise UnknownCampaign(campaign_id)
        return CampaignRow(*found)

    def create_campaign(self, campaign_id: str, name: str, ruleset: str, created_at: str) -> CampaignRow:
        """Create an empty campaign (head 0). Raises `CampaignExists`."""
        check_campaign(campaign_id, name, ruleset, created_at)
        row = CampaignRow(campaign_id, name, ruleset, created_at, 0, LOG_VERSION)
        try:
            with self._writer.begin() as connection:
                connection.execute(insert(CampaignRecord).values(**vars(row), head_hash=GENESIS))
        except IntegrityError:
            raise CampaignExists(campaign_id) from None
        return row

    def campaigns(self) -> list[CampaignRow]:
        """Every campaign, oldest first."""
        with self._engine.connect() as connection:
            found = connection.execute(
                select(*_CAMPAIGN_COLUMNS).order_by(CampaignRecord.created_at, CampaignRecord.campaign_id)
            )
            return [CampaignRow(*row) for row in found]

    def campaign(self, campaign_id: str) -> CampaignRow:
        """One campaign. Raises `UnknownCampaign`."""
        with self._engine.connect() as connection:
            return self._campaign(connection, campaign_id)

    def append(
        self,
        campaign_id: str,
        expected_seq: int,
        events: Sequence[NewEvent],
        *,
        fresh_ids: bool = False,
        stream_tops: StreamTops | None = None,
        catch_up: CatchUp | None = None,
        head_hash: str | None = None,
    ) -> list[StoredEvent]:
        """Append all of `events` after `expected_seq`, or nothing. Raises `ConcurrencyError` on a clash (with no
        `catch_up`), `DuplicateCommand` for a command id already in the log (not looked for with `fresh_ids`).
        Stream positions count on from `stream_tops` when given (the tops at `expected_seq`), else from the log.
        The campaign's row is held from the head's read to the commit (SQLite: the write lock taken up front;
        PostgreSQL: `SELECT … FOR NO KEY UPDATE`), so with `catch_up` a writer that finds the head moved reads what
        landed, decides again and appends, while the others wait their turn. With `head_hash` and `stream_tops` the
        head is moved first, from that seq and hash, and read only when it was elsewhere."""
        check_seq(expected_seq, "expected_seq")
        check_batch(events)
        encoded, commands = _encoded(events)
        try:
            with self._writer.begin() as connection:
                stored = None
                hooks = 0
                if head_hash is not None and stream_tops is not None:  # the head moved without a read: held now
                    tops = dict(stream_tops)
                    stored = chained(campaign_id, expected_seq, head_hash, events, encoded, commands, tops)
                    moved = connection.execute(
                        _MOVE_HEAD_FROM,
                        {
                            "which": campaign_id,
                            "expected": expected_seq,
                            "expected_hash": head_hash,
                            "new_head": stored[-1].seq,
                            "new_hash": stored[-1].hash,
                        },
                    )
                    held = moved.first()
                    if held is None:  # another head (or none): read it, held to the commit
                        stored = None
                    else:
                        hooks = held[0]
                if stored is None:
                    if catch_up is None:
                        rows = [*connection.execute(_HEAD_FOR_APPEND, {"campaign_id": campaign_id})]
                    else:  # what landed since comes with the head, in one read
                        rows = [
                            *connection.execute(
                                _HEAD_AND_NEWER, {"campaign_id": campaign_id, "after_seq": expected_seq}
                            )
                        ]
                    if not rows:
                        raise UnknownCampaign(campaign_id)
                    head, prev, hooks = rows[0][0], rows[0][1], rows[0][2]
                    if head > expected_seq and catch_up is not None:  # (a head behind: the caller knows a log gone)
                        newer = [_stored(row[3:]) for row in rows if row[4] is not None]
                        if len(newer) != head - expected_seq:  # PostgreSQL waited for the lock, and the read's snapshot
                            newer = [  # is older than the events of the writer it waited for: read them now
                                _stored(row)
                                for row in connection.execute(
                                    _LOAD, {"campaign_id": campaign_id, "after_seq": expected_seq}
                                )
                            ]
                        events, stream_tops = catch_up(newer)
                        events = list(events)
                        check_batch(events)
                        encoded, commands = _encoded(events)
                        expected_seq = head
                    if head != expected_seq:
                        raise ConcurrencyError(campaign_id, expected_seq, head)
                    streams = {
                        key: stream_tops.get(key, 0)
                        if stream_tops is not None
                        else self._stream_top(connection, campaign_id, key)
                        for key in {stream_key(e) for e in events}
                    }
                    stored = chained(campaign_id, expected_seq, prev, events, encoded, commands, streams)
                    # Compare-and-set on the head: of two writers that read the same head, the second updates nothing.
                    moved = connection.execute(
                        _MOVE_HEAD,
                        {
                            "which": campaign_id,
                            "expected": expected_seq,
                            "new_head": stored[-1].seq,
                            "new_hash": stored[-1].hash,
                        },
                    )
                    if moved.rowcount != 1:
                        raise ConcurrencyError(campaign_id, expected_seq, self._campaign(connection, campaign_id).head)
                ids = sorted({event.command_id for event in events})
                repeated = None if fresh_ids else self._repeated(connection, campaign_id, ids)
                if repeated is not None:
                    raise DuplicateCommand(campaign_id, repeated)
                connection.execute(
                    _INSERT_EVENTS,
                    [
                        _event_row(event, data, command)
                        for event, data, command in zip(stored, encoded, commands, strict=True)
                    ],
                )
                if changes_members(events):
                    self._keep_members(connection, campaign_id, events)
                if hooks:  # what the campaign's webhooks are to be told
                    hooks = enqueue(connection, campaign_id, stored)
        except IntegrityError:
            # The unique (campaign_id, seq) key caught a writer that slipped past the compare-and-set.
            raise ConcurrencyError(campaign_id, expected_seq, self.head(campaign_id)) from None
        if hooks:  # committed: the sender may take the rows now
            for wake in self._outbox_woken:
                wake()
        return stored

    def on_outbox(self, wake: Callable[[], None]) -> None:
        self._outbox_woken.append(wake)

    @staticmethod
    def _members(connection: Connection, campaign_id: str) -> dict[str, str]:
        found = connection.execute(
            select(MembershipRecord.user_id, MembershipRecord.role).where(MembershipRecord.campaign_id == campaign_id)
        )
        return {user: role for user, role in found}

    def _keep_members(self, connection: Connection, campaign_id: str, events: Sequence[NewEvent | StoredEvent]) -> None:
        """Bring the campaign's membership rows up to date with `events`, in the caller's transaction: only the rows
        that change are written. Raises StoreError for a membership fact that cannot be read."""
        before = self._members(connection, campaign_id)
        after = members_after(before, events)
        gone = [user for user in before if before[user] != after.get(user)]
        if gone:
            connection.execute(
                delete(MembershipRecord)
                .where(MembershipRecord.campaign_id == campaign_id)
                .where(MembershipRecord.user_id.in_(gone))
            )
        new = [{"campaign_id": campaign_id, "user_id": u, "role": r} for u, r in after.items() if before.get(u) != r]
        if new:
            connection.execute(insert(MembershipRecord), new)

    @staticmethod
    def _repeated(connection: Connection, campaign_id: str, command_ids: list[str]) -> str | None:
        """One of `command_ids` that is already in the log, if any."""
        found: str | None = connection.execute(
            _REPEATED, {"campaign_id": campaign_id, "command_ids": command_ids}
        ).scalar_one_or_none()
        return found

    @staticmethod
    def _stream_top(connection: Connection, campaign_id: str, key: tuple[str, str | None]) -> int:
        visibility, owner = key
        query = _PUBLIC_TOP if owner is None else _OWNER_TOP
        top = connection.execute(
            query, {"campaign_id": campaign_id, "visibility": visibility, "owner": owner}
        ).scalar_one_or_none()
        return int(top or 0)

    def load(self, campaign_id: str, after_seq: int = 0) -> list[StoredEvent]:
        """The events with seq > `after_seq`, in order. Raises `UnknownCampaign`."""
        check_seq(after_seq, "after_seq")
        with self._engine.connect() as connection:
            self._campaign(connection, campaign_id)
            found = connection.execute(_LOAD, {"campaign_id": campaign_id, "after_seq": after_seq})
            return [_stored(row) for row in found]

    def events_of_types(self, types: Collection[str], campaign_ids: Collection[str]) -> list[StoredEvent]:
        """These campaigns' events of these types, by campaign then seq. `ix_events_campaign_type` finds them; they are
        put in order here, since an ORDER BY in the query would have the database walk whole logs by their key."""
        if not campaign_ids or not types:
            return []
        with self._engine.connect() as connection:
            found = connection.execute(
                select(*_EVENT_COLUMNS)
                .where(EventRecord.campaign_id.in_(sorted(set(campaign_ids))))
                .where(EventRecord.type.in_(sorted(types)))
            )
            return sorted((_stored(row) for row in found), key=lambda e: (e.campaign_id, e.seq))

    def memberships_of(self, user: str) -> list[Membership]:
        """The campaigns `user` belongs to, with their role, oldest first: `ix_memberships_user` finds their rows."""
        with self._engine.connect() as connection:
            found = connection.execute(
                select(MembershipRecord.campaign_id, MembershipRecord.role)
                .join(CampaignRecord, CampaignRecord.campaign_id == MembershipRecord.campaign_id)
                .where(MembershipRecord.user_id == user)
                .order_by(CampaignRecord.created_at, CampaignRecord.campaign_id)
            )
            return [Membership(campaign_id, user, role) for campaign_id, role in found]

    def members(self, campaign_id: str) -> list[Membership]:
        """The campaign's membership rows, by user. Raises `UnknownCampaign`."""
        with self._engine.connect() as connection:
            self._campaign(connection, campaign_id)
            members = self._members(connection, campaign_id)
        return [Membership(campaign_id, user, members[user]) for user in sorted(members)]

    def command_events(self, campaign_id: str, command_id: str) -> list[StoredEvent]:
        """The events `command_id` recorded, in order (none when it is not in the log). Raises `UnknownCampaign`."""
        with self._engine.connect() as connection:
            self._campaign(connection, campaign_id)
            found = connection.execute(
                select(*_EVENT_COLUMNS)
                .where(EventRecord.campaign_id == campaign_id)
                .where(EventRecord.command_id == command_id)
                .order_by(EventRecord.seq)
            )
            return [_stored(row) for row in found]

    def read_stream(
        self,
        campaign_id: str,
        viewer: str | None,
        *,
        everything: bool = False,
        after: StreamCursor | None = None,
        before: StreamCursor | None = None,
        limit: int = 100,
        known: bool = False,
    ) -> list[StoredEvent]:
        """One viewer's events, after `after` (oldest first) or the newest before `before`. Raises `UnknownCampaign`
        (unless `known`: the caller has just read the campaign, and it is not looked up again)."""
        query = _stream_query(everything, after is not None, before is not None)
        parameters = {
            "campaign_id": campaign_id,
            "viewer": viewer,
            "after_public": after.public if after else 0,
            "after_own": after.own if after else 0,
            "before_public": before.public if before else 0,
            "before_own": before.own if before else 0,
            "limit": limit,
        }
        with self._engine.connect() as connection:
            if not known:
                self._campaign(connection, campaign_id)
            found = [_stored(row) for row in connection.execute(query, parameters)]
        return found[::-1] if before is not None else found

    def stream_tops(self, campaign_id: str) -> tuple[int, dict[tuple[str, str | None], int]]:
        """The head and each audience's top position in one statement, so both come from the same moment."""
        with self._engine.connect() as connection:
            found = connection.execute(_STREAM_TOPS, {"campaign_id": campaign_id}).all()
        heads = [int(top) for kind, _, top in found if kind == ""]
        if not heads:
            raise UnknownCampaign(campaign_id)
        return heads[0], {(kind, owner): int(top) for kind, owner, top in found if kind and top is not None}

    def stream_head(
        self, campaign_id: str, viewer: str | None, *, everything: bool = False, known: bool = False
    ) -> StreamCursor:
        """The cursor just after the viewer's newest event. Raises `UnknownCampaign` (unless `known`, as in
        `read_stream`; the GM's cursor is the campaign's head, read all the same)."""
        with self._engine.connect() as connection:
            if everything or not known:
                row = self._campaign(connection, campaign_id)
                if everything:
                    return StreamCursor(row.head, 0)
            public = self._stream_top(connection, campaign_id, ("public", None))
            own = self._stream_top(connection, campaign_id, ("owner", viewer)) if viewer else 0
            return StreamCursor(public, own)

    def head(self, campaign_id: str) -> int:
        """The seq of the campaign's last event, 0 when it has none. Raises `UnknownCampaign`."""
        return self.campaign(campaign_id).head

    def save_snapshot(self, campaign_id: str, seq: int, state: Mapping[str, Any], version: int) -> None:
        """Keep `state` as the fold of events 1..`seq` in state format `version`."""
        encoded = encode_snapshot(seq, state, version)
        try:
            with self._writer.begin() as connection:
                check_snapshot_seq(campaign_id, seq, self._campaign(connection, campaign_id).head)
                key = (
                    (SnapshotRecord.campaign_id == campaign_id)
                    & (SnapshotRecord.version == version)
                    & (SnapshotRecord.seq == seq)
                )
                connection.execute(delete(SnapshotRecord).where(key))
                connection.execute(
                    insert(SnapshotRecord).values(campaign_id=campaign_id, version=version, seq=seq, state=encoded)
                )
        except IntegrityError:  # PostgreSQL: another process saved it at the same moment (two readings of one log)
            return

    def latest_snapshot(self, campaign_id: str, version: int) -> Snapshot | None:
        """The snapshot with the highest seq in state format `version`, or None."""
        with self._engine.connect() as connection:
            self._campaign(connection, campaign_id)
            found = connection.execute(
                select(SnapshotRecord.seq, SnapshotRecord.state)
                .where(SnapshotRecord.campaign_id == campaign_id)
                .where(SnapshotRecord.version == version)
                .order_by(SnapshotRecord.seq.desc())
                .limit(1)
            ).one_or_none()
        if found is None:
            return None
        return Snapshot(campaign_id, found.seq, payload.loads(found.state), version)

    def import_events(self, row: CampaignRow, events: Sequence[StoredEvent]) -> CampaignRow:
        """Create campaign `row` with exactly `events` as its log in one transaction. Raises `CampaignExists`."""
        check_log(row, events)
        rows = [
            _event_row(
                replace(event, stream_pos=place),
                payload.dumps(event.data, f"event seq {event.seq}: data"),
                _command_text(event, f"event seq {event.seq}: command"),
            )
            for event, place in zip(events, positions(events), strict=True)
        ]
        head_hash = events[-1].hash if events else GENESIS
        members = members_after({}, events) if row.log_version >= LOG_VERSION else {}
        try:
            with self._writer.begin() as connection:
                connection.execute(insert(CampaignRecord).values(**vars(row), head_hash=head_hash))
                if rows:
                    connection.execute(insert(EventRecord), rows)
                if members:
                    connection.execute(
                        insert(MembershipRecord),
                        [{"campaign_id": row.campaign_id, "user_id": u, "role": r} for u, r in members.items()],
                    )
        except IntegrityError:
            raise CampaignExists(row.campaign_id) from None
        return row

    def delete_campaign(self, campaign_id: str) -> None:
        """Remove a campaign with its log, snapshots, portraits, memberships, invitations, webhooks and their
        records. Raises `UnknownCampaign`."""
        with self._writer.begin() as connection:
            self._campaign(connection, campaign_id)
            tables = (InviteUseRecord, RemovalRecord, InviteRecord, SnapshotRecord, PortraitRecord, MembershipRecord)
            for table in (*tables, OutboxRecord, WebhookRecord, CampaignImageRecord, EventRecord):
                connection.execute(delete(table).where(table.campaign_id == campaign_id))
            connection.execute(delete(CampaignRecord).where(CampaignRecord.campaign_id == campaign_id))

    def add_image(self, image: CampaignImage, quota: int) -> bool:
        check_image(image)
        key = (CampaignImageRecord.campaign_id == image.campaign_id) & (CampaignImageRecord.digest == image.digest)
        try:
            with self._writer.begin() as connection:
                # the campaign's row, held to the commit: two uploads to one campaign count their quota in turn
                if connection.execute(_HEAD_FOR_APPEND, {"campaign_id": image.campaign_id}).one_or_none() is None:
                    raise UnknownCampaign(image.campaign_id)
                if connection.execute(select(CampaignImageRecord.digest).where(key)).first() is not None:
                    return False
                used = connection.execute(
                    select(func.coalesce(func.sum(func.length(CampaignImageRecord.image)), 0)).where(
                        CampaignImageRecord.campaign_id == image.campaign_id
                    )
                ).scalar_one()
                if used + len(image.image) > quota:
                    raise OverQuota(int(used), len(image.image), quota)
                connection.execute(insert(CampaignImageRecord).values(**vars(image)))
                return True
        except IntegrityError:  # the same image, uploaded at the same moment: kept once
            return False

    def campaign_image(self, campaign_id: str, digest: str) -> CampaignImage | None:
        with self._engine.connect() as connection:
            found = connection.execute(
                select(*_IMAGE_COLUMNS)
                .where(CampaignImageRecord.campaign_id == campaign_id)
                .where(CampaignImageRecord.digest == digest)
            ).one_or_none()
        return None if found is None else CampaignImage(*found)

    def campaign_images(self, campaign_id: str) -> list[CampaignImage]:
        with self._engine.connect() as connection:
            self._campaign(connection, campaign_id)
            found = connection.execute(
                select(*_IMAGE_COLUMNS)
                .where(CampaignImageRecord.campaign_id == campaign_id)
                .order_by(CampaignImageRecord.set_at, CampaignImageRecord.digest)
            )
            return [CampaignImage(*row) for row in found]

    def images_used(self, campaign_id: str) -> tuple[int, list[tuple[str, int]]]:
        with self._engine.connect() as connection:
            found = connection.execute(
                select(CampaignImageRecord.digest, func.length(CampaignImageRecord.image))
                .where(CampaignImageRecord.campaign_id == campaign_id)
                .order_by(CampaignImageRecord.set_at, CampaignImageRecord.digest)
            )
            sizes = [(str(digest), int(size)) for digest, size in found]
        return sum(size for _, size in sizes), sizes

    def remove_image(self, campaign_id: str, digest: str) -> bool:
        with self._writer.begin() as connection:
            gone = connection.execute(
                delete(CampaignImageRecord)
                .where(CampaignImageRecord.campaign_id == campaign_id)
                .where(CampaignImageRecord.digest == digest)
            )
            return bool(gone.rowcount)

    def set_portrait(self, portrait: Portrait) -> None:
        """Keep `portrait`, replacing its character's earlier one. Raises `UnknownCampaign`, `StoreError`."""
        check_portrait(portrait)
        key = (PortraitRecord.campaign_id == portrait.campaign_id) & (
            PortraitRecord.character_id == portrait.character_id
        )
        for _ in range(2):  # a concurrent first portrait of the same character: the second try replaces it
            try:
                with self._writer.begin() as connection:
                    self._campaign(connection, portrait.campaign_id)
                    connection.execute(delete(PortraitRecord).where(key))
                    connection.execute(insert(PortraitRecord).values(**vars(portrait)))
                return
            except IntegrityError:
                continue
        raise StoreError(
            f"the portrait of {portrait.character_id!r} kept changing while it was being set. Tip: send it again"
        )

    def portrait(self, campaign_id: str, character_id: str) -> Portrait | None:
        """The character's portrait, or None."""
        with self._engine.connect() as connection:
            found = connection.execute(
                select(*_PORTRAIT_COLUMNS)
                .where(PortraitRecord.campaign_id == campaign_id)
                .where(PortraitRecord.character_id == character_id)
            ).one_or_none()
        return None if found is None else Portrait(*found)

    def portrait_digests(self, campaign_id: str) -> dict[str, str]:
        """Each portrait's digest by character id (the primary key's prefix finds them; no image is read)."""
        with self._engine.connect() as connection:
            found = connection.execute(
                select(PortraitRecord.character_id, PortraitRecord.digest).where(
                    PortraitRecord.campaign_id == campaign_id
                )
            )
            return {character: digest for character, digest in found}

    def delete_portrait(self, campaign_id: str, character_id: str) -> bool:
        """Remove the character's portrait; whether there was one."""
        with self._writer.begin() as connection:
            gone = connection.execute(
                delete(PortraitRecord)
                .where(PortraitRecord.campaign_id == campaign_id)
                .where(PortraitRecord.character_id == character_id)
            )
            return bool(gone.rowcount)

    def save_to_library(self, entry: LibraryEntry) -> None:
        """Keep `entry` in its owner's library. Raises `StoreError`."""
        check_library_entry(entry)
        try:
            with self._writer.begin() as connection:
                connection.execute(insert(LibraryRecord).values(**vars(entry)))
        except IntegrityError:
            raise StoreError(
                f"library entry {entry.entry_id!r} is kept already. Tip: give a new entry a new id"
            ) from None

    def library(self, owner: str, ruleset: str | None = None) -> list[LibraryEntry]:
        """`owner`'s entries (of one game), oldest first, found by the owner's index; no document is read."""
        query = select(*_LIBRARY_COLUMNS).where(LibraryRecord.owner == owner)
        if ruleset is not None:
            query = query.where(LibraryRecord.ruleset == ruleset)
        with self._engine.connect() as connection:
            rows = connection.execute(query.order_by(LibraryRecord.saved_at, LibraryRecord.entry_id))
            return [LibraryEntry(*row) for row in rows]

    def library_entry(self, owner: str, entry_id: str) -> LibraryEntry | None:
        """One of `owner`'s entries with its document, or None."""
        with self._engine.connect() as connection:
            found = connection.execute(
                select(*_LIBRARY_COLUMNS, LibraryRecord.document)
                .where(LibraryRecord.entry_id == entry_id)
                .where(LibraryRecord.owner == owner)
            ).one_or_none()
        return None if found is None else LibraryEntry(*found)

    def delete_from_library(self, owner: str, entry_id: str) -> bool:
        """Remove one of `owner`'s entries; whether there was one."""
        with self._writer.begin() as connection:
            gone = connection.execute(
                delete(LibraryRecord).where(LibraryRecord.entry_id == entry_id).where(LibraryRecord.owner == owner)
            )
            return bool(gone.rowcount)

    def close(self) -> None:
        """Close the store's connections."""
        self._engine.dispose()


def default_database_url() -> str:
    """The SQLite file `herotable.db` in the data directory (`HEROTABLE_DATA_DIR`, default `./data`)."""
    return f"sqlite:///{Path(os.environ.get(DATA_DIR_ENV) or 'data') / 'herotable.db'}"


def parse_database_url(raw: str) -> URL:
    """Read a SQLite or PostgreSQL URL; `postgresql://` is given the psycopg 3 driver. Raises `StoreError`."""
    scheme = raw.split("://", 1)[0] if "://" in raw else raw[:20]
    try:
        url = make_url(raw)
    except ArgumentError:
        raise StoreError(f"cannot read the database URL starting {scheme!r}. Accepted forms: {ACCEPTED_URLS}") from None
    if url.drivername in ("sqlite", "sqlite+pysqlite"):
        if not url.database or url.database == ":memory:":
            raise StoreError(
                "a SQLite database in memory would vanish with each connection. Tip: use memory:// for a "
                f"store in memory, or name a file. Accepted forms: {ACCEPTED_URLS}"
            )
        return url
    if url.drivername in ("postgresql", "postgresql+psycopg"):
        return url.set(drivername="postgresql+psycopg")
    raise StoreError(f"unsupported database URL scheme {url.drivername!r}. Accepted forms: {ACCEPTED_URLS}")


def private_sqlite_file(path: Path) -> None:
    """Make the SQLite file (it holds password hashes and session records) readable by its owner only: a new one
    is created mode 0600 (SQLite gives its -wal and -shm files the same mode), an existing one of ours is
    narrowed to 0600. A new data directory is created mode 0700."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    except OSError as error:
        raise StoreError(
            f"cannot create the database file {path}: {error.strerror}. Tip: check the directory"
        ) from error
    info = path.stat()
    if info.st_mode & 0o077 and info.st_uid == os.geteuid():
        path.chmod(0o600)
        for extra in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            if extra.exists() and extra.stat().st_uid == os.geteuid():
                extra.chmod(0o600)


Migrate = Literal["upgrade", "auto", "check"]


def open_store(url: str | None = None, *, migrate: Migrate = "upgrade") -> EventStore:
    """Open the store at `url`, else `HEROTABLE_DATABASE_URL`, else the default SQLite file.

    `migrate` says what to do with a schema older than this herotable's: "upgrade" it; "check" refuses in one
    sentence and writes nothing (read-only commands, and a server not told to migrate a database server); "auto"
    upgrades SQLite, a file of this machine's, and checks a database server. With "check" a SQLite file that is not
    there is not made. A schema newer than this herotable's is refused whatever `migrate` says.

    Raises `StoreError` for a URL it cannot use, a database it cannot reach, or a schema it may not use.
    """
    raw = url or os.environ.get(DATABASE_URL_ENV) or default_database_url()
    if raw == "memory://":
        return MemoryEventStore()
    parsed = parse_database_url(raw)
    sqlite = parsed.get_backend_name() == "sqlite"
    mode = ("upgrade" if sqlite else "check") if migrate == "auto" else migrate
    shown = parsed.render_as_string(hide_password=True)
    if sqlite and parsed.database:
        if mode == "check" and not Path(parsed.database).exists():
            raise StoreError(
                f"there is no database at {parsed.database}. Tip: check --database or HEROTABLE_DATABASE_URL; a new "
                "one is made by `herotable db upgrade` or by starting the server"
            )
        private_sqlite_file(Path(parsed.database))
    engine = create_store_engine(parsed)
    try:
        if mode == "upgrade":
            upgrade(engine)
        else:
            require_head(engine, f"the database {shown}")
    except OperationalError as error:
        engine.dispose()
        raise StoreError(
            f"cannot open the database {shown}: {one_line(error.orig)}. Tip: check the URL and that the server runs"
        ) from error
    except BaseException:
        engine.dispose()
        raise
    return SqlEventStore(engine)


def one_line(error: object) -> str:
    """A driver's message on one line (psycopg's span several)."""
    return " ".join(str(error).split())
